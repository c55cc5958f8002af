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
                                                 ("rf", "n_components", "d_values")])
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


@pytest.mark.parametrize("name, params", [
    ("es", {"max_iter": 12}),
    ("nytro", {"m": 40, "max_iter": 12, "random_state": 2}),
    ("eigenpro", {"max_iter": 8, "random_state": 2}),
    ("askotch", {"lam": 1e-6, "block_size": 20, "max_iter": 6, "random_state": 2}),
])
def test_an_iteration_paths_outputs_equal_fits_stopped_there(name: str, params: dict) -> None:
    X, y, X_val, y_val, X_eval = _data()
    cls = get_algorithm(name)
    est = cls(sigma=0.8, stopping_rule="none", **params).fit(X, y, X_val, y_val, X_eval=X_eval)
    assert est.eval_outputs_.shape == (est.n_iter_, 1, X_eval.shape[0])
    assert est.eval_seconds_ >= 0
    for t in (1, est.n_iter_ // 2, est.n_iter_):  # t iterations alone, without validation
        alone = cls(sigma=0.8, **{**params, "max_iter": t}).fit(X, y)
        np.testing.assert_allclose(est.eval_outputs_[t - 1, 0], alone.predict(X_eval),
                                   rtol=1e-9, atol=1e-12)


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
                                     "{name: kols}"))
    with pytest.raises(ConfigError, match=r"protocol.record_test_path: algorithms\[1\] "
                                          r"\(kols\) has no path of models"):
        load_experiment(config)


def test_false_is_the_default_and_keeps_the_config_hash(tmp_path: Path) -> None:
    plain, off = tmp_path / "plain.yaml", tmp_path / "off.yaml"
    plain.write_text(CONFIG.replace(", record_test_path: true", ""))
    off.write_text(CONFIG.replace("record_test_path: true", "record_test_path: false"))
    assert load_experiment(plain).config_hash() == load_experiment(off).config_hash()
    assert "record_test_path" not in load_experiment(off).protocol


# --- the stochastic methods (thesis Chapter 6): epochs of SIGM, step-size guesses of SGM ---

def _binary(seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 2))
    y = np.where(X[:, 0] + 0.4 * rng.normal(size=150) > 0, 1.0, -1.0)
    return X[:70], y[:70], X[70:100], y[70:100], X[100:], y[100:]


def _hinge(y: np.ndarray, F: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, 1.0 - y * F).mean(axis=-1)


@pytest.mark.parametrize("max_memory", [None, 1000])  # test kernel stored / blocked
def test_sigm_epoch_outputs_are_the_fixed_epoch_fits(max_memory: int | None) -> None:
    X, y, X_val, y_val, X_eval, y_eval = _binary()
    cls = get_algorithm("sigm")
    kwargs = {"sigma": 1.0, "step_size": 0.3, "theta": 0.5, "random_state": 4,
              "max_memory": max_memory, "memory_budget": 8 * 70 * 9}
    est = cls(max_iter=6, stopping_rule="none", **kwargs).fit(X, y, X_val, y_val,
                                                               X_eval=X_eval)
    assert est.eval_outputs_.shape == (6, 1, X_eval.shape[0]) and est.eval_seconds_ >= 0
    for epoch in (1, 4, 6):  # epoch e of the path = e epochs without validation
        fixed = cls(max_iter=epoch, **kwargs).fit(X, y)
        np.testing.assert_allclose(est.eval_outputs_[epoch - 1, 0],
                                   fixed.decision_function(X_eval),
                                   rtol=1e-12, atol=1e-13)
    # the test rows scored as validation rows give the validation path itself
    again = cls(max_iter=6, stopping_rule="none", **kwargs).fit(X, y, X_eval, y_eval,
                                                                 X_eval=X_eval)
    np.testing.assert_allclose(_hinge(y_eval, again.eval_outputs_[:, 0]),
                               again.path_["val_rmse"], rtol=1e-12)


def test_sigm_stopped_early_records_the_epochs_it_scored_and_selects_the_same() -> None:
    X, y, X_val, y_val, X_eval, _ = _binary(1)
    cls = get_algorithm("sigm")
    kwargs = {"sigma": 0.5, "step_size": 1.0, "max_iter": 80, "window": 3, "random_state": 0}
    plain = cls(**kwargs).fit(X, y, X_val, y_val)
    with_eval = cls(**kwargs).fit(X, y, X_val, y_val, X_eval=X_eval)
    assert plain.n_iter_ < 80  # the rule fired: the path is shorter than max_iter
    assert with_eval.eval_outputs_.shape[0] == with_eval.n_iter_ == plain.n_iter_
    assert with_eval.best_iter_ == plain.best_iter_
    np.testing.assert_array_equal(with_eval.alpha_, plain.alpha_)
    np.testing.assert_allclose(with_eval.eval_outputs_[with_eval.best_iter_ - 1, 0],
                               plain.decision_function(X_eval), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name, extra", [("sgm", {}), ("sgm", {"passes": 3}),
                                         ("sgm_rf", {"n_components": 50})])
def test_sgm_guess_outputs_are_the_single_guess_fits(name: str, extra: dict) -> None:
    X, y, X_val, y_val, X_eval, _ = _binary(2)
    cls = get_algorithm(name)
    etas = [0.01, 0.2, 1.0]
    est = cls(sigma=1.0, etas=etas, random_state=3, **extra)
    est.fit(X, y, X_val, y_val, X_eval=X_eval)
    assert est.eval_outputs_.shape == (3, 1, X_eval.shape[0])
    for k, eta in enumerate(etas):
        one = cls(sigma=1.0, etas=[eta], random_state=3, **extra).fit(X, y, X_val, y_val)
        np.testing.assert_allclose(est.eval_outputs_[k, 0], one.decision_function(X_eval),
                                   rtol=1e-10, atol=1e-12)
    plain = cls(sigma=1.0, etas=etas, random_state=3, **extra).fit(X, y, X_val, y_val)
    assert plain.best_param_ == est.best_param_


CH6_CONFIG = """
name: ch6_test_path
task: binary
dataset: {name: breast_cancer, n_train: 120, n_test: 60}
kernel: {sigma: 4}
algorithms:
  - {name: sgm, label: SGM_C, schedule: constant, etas: [0.01, 0.1, 1.0]}
  - {name: sigm, label: SIGM_C, max_iter: 5, stopping: {rule: none}}
protocol: {trials: 2, seed: 1, record_test_path: true}
budget: {blas_threads: 1}
"""


def test_stochastic_trials_record_test_hinge_and_error_along_the_path(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(CH6_CONFIG)
    run_experiment(load_experiment(config), tmp_path / "out", progress=False)
    run = load_run(tmp_path / "out" / "ch6_test_path")
    assert len(run.records) == 4
    for record in run.records:
        assert set(record.test_path) >= {"hinge", "error"}
        assert record.test_path["hinge"].shape == record.val_rmse.shape
        # the selected model is on the path: its test measures are the trial's
        j = int(np.argmin(np.abs(record.path_values - record.selected)))
        assert record.test_path["hinge"][j] == pytest.approx(record.measures["hinge"], rel=1e-10)
        assert record.test_path["error"][j] == pytest.approx(record.test_error, rel=1e-10)
    sigm = [r for r in run.records if r.label == "SIGM_C"]
    assert all(r.test_path["hinge"].shape == (5,) for r in sigm)


def _figure_script():  # a script, not a module of the layer: load it by its path
    import importlib.util
    path = Path(__file__).resolve().parents[1] / "reproduce" / "thesis_ch6" \
        / "thesis_ch6_figures.py"
    spec = importlib.util.spec_from_file_location("thesis_ch6_figures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_chapter6_figures_are_drawn_from_the_run_records(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(CH6_CONFIG.replace("{name: sigm, label: SIGM_C, max_iter: 5, stopping: "
                                         "{rule: none}}",
                                         "{name: sigm, label: SIGM_C, max_iter: 5, stopping: "
                                         "{rule: none}}\n  - {name: sigm, label: SIGM_D, "
                                         "step_size: 0.25, theta: 0.5, max_iter: 4, stopping: "
                                         "{rule: none}}"))
    run_experiment(load_experiment(config), tmp_path / "out", progress=False)
    script = _figure_script()
    table = script.curves(tmp_path / "out" / "ch6_test_path", trial=1)
    records = {r.label: r for r in load_run(tmp_path / "out" / "ch6_test_path").records
               if r.trial == 1}
    for label, g in table.groupby("label"):
        np.testing.assert_array_equal(g["x"], records[label].path_values)
        np.testing.assert_array_equal(g["test_hinge"], records[label].test_path["hinge"])
        np.testing.assert_array_equal(g["test_error"], records[label].test_path["error"])
    assert list(dict.fromkeys(table["figure"])) == ["6.1", "6.2"]
    assert table.groupby("figure")["panel"].nunique().to_dict() == {"6.1": 2, "6.2": 1}


def test_chapter6_figures_refuse_a_run_without_test_paths(tmp_path: Path) -> None:
    from kernreg.errors import ResultsError
    config = tmp_path / "run.yaml"
    config.write_text(CH6_CONFIG.replace(", record_test_path: true", ""))
    run_experiment(load_experiment(config), tmp_path / "out", progress=False)
    with pytest.raises(ResultsError, match="SGM_C trial 0 has no test hinge/error path"):
        _figure_script().curves(tmp_path / "out" / "ch6_test_path")
