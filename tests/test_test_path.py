"""Test error along the path (``protocol: {record_test_path: true}``): the path's models on the
test rows equal independent fits at each (λ, m'), the selection is unchanged, trials record and
store every measure along the path, and configs that cannot record one are refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kernreg.config import load_experiment
from kernreg.errors import ConfigError
from kernreg.experiment import run_experiment
from kernreg.results.store import load_run
from kernreg.solvers import get_algorithm


def _data(seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (260, 3))
    y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.standard_normal(260)
    return X[:160], y[:160], X[160:200], y[160:200], X[200:]


@pytest.mark.parametrize("name, size, levels", [("inkrls", "m", "m_values"),
                                                 ("rf", "n_features", "d_values")])
def test_path_outputs_equal_independent_fits_at_every_point(name: str, size: str,
                                                            levels: str) -> None:
    X, y, X_val, y_val, X_eval = _data()
    lambdas = np.array([1e-6, 1e-3, 1e-1])
    cls = get_algorithm(name)
    est = cls(sigma=0.8, lambdas=lambdas, random_state=3, **{size: 40, levels: [10, 25, 40]})
    est.fit(X, y, X_val, y_val, X_eval=X_eval)
    assert est.eval_outputs_.shape == (3, 3, X_eval.shape[0]) and est.eval_seconds_ >= 0
    for j, lam in enumerate(lambdas):
        for k, level in enumerate([10, 25, 40]):
            # the first `level` centers (features) of the same seed, a path of (λ, level) alone
            one = cls(sigma=0.8, lambdas=[lam], random_state=3,
                      **{size: 40, levels: [level]})
            one.fit(X, y, X_val, y_val)
            np.testing.assert_allclose(est.eval_outputs_[j, k], one.predict(X_eval),
                                       rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("refit", [False, True])
def test_selection_is_the_same_with_and_without_test_rows(refit: bool) -> None:
    X, y, X_val, y_val, X_eval = _data(1)
    kwargs = {"sigma": 0.8, "m": 30, "m_values": [10, 20, 30], "random_state": 0,
              "lambdas": np.logspace(-8, 0, 5), "refit": refit}
    cls = get_algorithm("inkrls")
    plain, with_eval = cls(**kwargs).fit(X, y, X_val, y_val), \
        cls(**kwargs).fit(X, y, X_val, y_val, X_eval=X_eval)
    assert (plain.best_lambda_, plain.best_m_) == (with_eval.best_lambda_, with_eval.best_m_)
    np.testing.assert_array_equal(plain.alpha_, with_eval.alpha_)
    np.testing.assert_array_equal(plain.predict(X_eval), with_eval.predict(X_eval))


CONFIG = """
name: test_path_run
dataset: {name: breast_cancer}
kernel: {sigma: 0.9}
algorithms:
  - {name: inkrls, m: 40, m_values: [10, 20, 40], lambdas: [1.0e-6, 1.0e-2]}
  - {name: krls, lambdas: [1.0e-6, 1.0e-3, 1.0e-1]}
protocol: {trials: 2, record_test_path: true}
budget: {blas_threads: 1}
"""


def test_trials_record_every_measure_along_the_path(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(CONFIG)
    results = run_experiment(load_experiment(config), tmp_path / "out", progress=False)
    run = load_run(tmp_path / "out" / "test_path_run")
    assert len(run.records) == 4
    for record in run.records:
        assert set(record.test_path) >= {"rmse", "error"}  # the binary task's measures
        for grid in record.test_path.values():
            assert grid.shape == record.val_rmse.shape
        # without refit the selected model is the path's: its test measures are the trial's
        j = int(np.argmin(np.abs(record.path_values - record.selected)))
        at = (j, list(record.m_values).index(record.info["m_selected"])) \
            if record.m_values.size else (j,)
        assert record.test_path["rmse"][at] == pytest.approx(record.test_rmse, rel=1e-10)
        assert record.test_path["error"][at] == pytest.approx(record.test_error, rel=1e-10)
        assert record.info["test_path_seconds"] >= 0
    assert "test_path" not in results  # arrays stay in the HDF5 record, not the tidy CSV


def test_config_refuses_algorithms_without_a_path_of_models(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text(CONFIG.replace("{name: krls, lambdas: [1.0e-6, 1.0e-3, 1.0e-1]}",
                                     "{name: nytro, m: 20}"))
    with pytest.raises(ConfigError, match=r"protocol.record_test_path: algorithms\[1\] "
                                          r"\(nytro\) has no path of models"):
        load_experiment(config)


def test_false_is_the_default_and_keeps_the_config_hash(tmp_path: Path) -> None:
    plain, off = tmp_path / "plain.yaml", tmp_path / "off.yaml"
    plain.write_text(CONFIG.replace(", record_test_path: true", ""))
    off.write_text(CONFIG.replace("record_test_path: true", "record_test_path: false"))
    assert load_experiment(plain).config_hash() == load_experiment(off).config_hash()
    assert "record_test_path" not in load_experiment(off).protocol
