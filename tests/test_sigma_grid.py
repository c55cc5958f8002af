"""σ as a grid dimension (``kernel: {sigma: [...]}`` or ``{logspace: [...]}``): selected
jointly with the algorithm's own parameter on the same hold-out, recorded with its (σ × path)
validation array; a grid of one σ is the plain run; bad grids are config errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kernreg.cli import main
from kernreg.config import load_experiment
from kernreg.errors import ConfigError
from kernreg.experiment import run_experiment
from kernreg.results.store import load_run
from kernreg.solvers import get_algorithm
from kernreg.solvers.blocks.sigma_search import SigmaSearch, sigma_grid


def _data() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, (220, 3))
    y = np.sin(4 * X[:, 0]) * X[:, 1] + 0.05 * rng.standard_normal(220)
    return X[:150], y[:150], X[150:], y[150:]


@pytest.mark.parametrize("name", ["inkrls", "nkrls", "nytro"])
def test_selected_sigma_is_the_argmin_of_the_validation_error(name: str) -> None:
    X, y, X_val, y_val = _data()
    params = {"m": 40, "random_state": 1}
    if name == "inkrls":
        params["m_values"] = [10, 20, 40]
    if name != "nytro":
        params["lambdas"] = np.logspace(-9, -1, 5)
    sigmas = [0.05, 0.3, 1.0, 5.0]
    search = SigmaSearch(get_algorithm(name)(**params), sigmas).fit(X, y, X_val, y_val)
    selected = []
    for i, s in enumerate(sigmas):  # each σ's own fit, independently
        plain = get_algorithm(name)(sigma=s, **params).fit(X, y, X_val, y_val)
        val = plain.selection().val_rmse
        np.testing.assert_array_equal(search.sigma_val_rmse_[i][: val.shape[0]], val)
        selected.append(val[plain.best_iter_ - 1] if name == "nytro" else np.nanmin(val))
    assert search.best_sigma_ == sigmas[int(np.argmin(selected))]
    np.testing.assert_allclose(search.sigma_scores_, selected)
    best = get_algorithm(name)(sigma=search.best_sigma_, **params).fit(X, y, X_val, y_val)
    np.testing.assert_array_equal(search.predict(X_val), best.predict(X_val))
    assert search.selection().info["sigma_selected"] == search.best_sigma_


def test_the_refit_happens_at_the_selected_sigma_only() -> None:
    X, y, X_val, y_val = _data()
    params = {"m": 30, "lambdas": np.logspace(-9, -1, 5), "random_state": 0, "refit": True}
    search = SigmaSearch(get_algorithm("nkrls")(**params), [0.1, 0.5]).fit(X, y, X_val, y_val)
    plain = get_algorithm("nkrls")(sigma=search.best_sigma_, **params).fit(X, y, X_val, y_val)
    np.testing.assert_array_equal(search.predict(X_val), plain.predict(X_val))


def test_logspace_grid() -> None:
    np.testing.assert_allclose(sigma_grid({"logspace": [0.1, 10, 3]}), [0.1, 1, 10])
    np.testing.assert_allclose(sigma_grid([2, 3]), [2, 3])


CONFIG = """
name: sigma_run
dataset: {name: breast_cancer}
kernel: {sigma: SIGMA}
algorithms:
  - {name: inkrls, m: 40, m_values: [10, 20, 40], lambdas: {logspace: [1e-8, 1e-1, 4]}}
protocol: {trials: 2, refit: true}
budget: {blas_threads: 1}
"""


def _config(tmp_path: Path, sigma: str, name: str = "sigma_run") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(CONFIG.replace("SIGMA", sigma).replace("sigma_run", name))
    return path


def test_a_grid_of_one_sigma_is_the_plain_run(tmp_path: Path) -> None:
    plain = run_experiment(load_experiment(_config(tmp_path, "0.9", "plain")),
                           tmp_path / "out", progress=False)
    grid = run_experiment(load_experiment(_config(tmp_path, "[0.9]", "grid")),
                          tmp_path / "out", progress=False)
    for column in ("test_rmse", "test_error", "selected", "m_selected", "sigma"):
        np.testing.assert_array_equal(plain[column].to_numpy(float),
                                      grid[column].to_numpy(float))
    plain_run, grid_run = load_run(tmp_path / "out" / "plain"), load_run(tmp_path / "out" / "grid")
    for a, b in zip(plain_run.records, grid_run.records, strict=True):
        np.testing.assert_array_equal(a.val_rmse, b.val_rmse)
        assert a.sigma_values.size == 0 and list(b.sigma_values) == [0.9]
        np.testing.assert_array_equal(b.sigma_val_rmse[0], a.val_rmse)


def test_a_grid_records_sigma_star_and_the_sigma_by_path_array(tmp_path: Path) -> None:
    results = run_experiment(load_experiment(_config(tmp_path, "{logspace: [0.1, 10, 5]}")),
                             tmp_path / "out", progress=False)
    run = load_run(tmp_path / "out" / "sigma_run")
    for record, sigma in zip(run.records, results["sigma"], strict=True):
        assert record.sigma_val_rmse.shape == (5, 4, 3)
        best = int(np.argmin(np.nanmin(record.sigma_val_rmse, axis=(1, 2))))
        assert record.info["sigma_selected"] == pytest.approx(record.sigma_values[best])
        assert sigma == pytest.approx(record.sigma_values[best])  # the CSV's σ: σ*


@pytest.mark.parametrize("sigma, message", [
    ("[]", r"kernel.sigma: \[\]: a σ grid is a list of distinct positive numbers"),
    ("[0.5, -1]", r"kernel.sigma: \[0.5, -1\]: a σ grid is"),
    ("[0.5, 0.5]", r"kernel.sigma: \[0.5, 0.5\]: a σ grid is"),
    ("{logspace: [1, 0.1, 3]}", r"kernel.sigma.logspace: low \(1\) must be smaller"),
    ("{logspace: [0.1, 1]}", r"kernel.sigma: \{'logspace': \[0.1, 1\]\}: a σ grid is"),
    ("{linspace: [0.1, 1, 3]}", r"kernel.sigma: \{'linspace'"),
    ("[1.0e+200]", r"kernel.sigma: 1e\+200 is outside"),
])
def test_bad_grids_are_config_errors(tmp_path: Path, sigma: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_experiment(_config(tmp_path, sigma))


def test_bad_grid_exits_2_from_the_command_line(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["run", str(_config(tmp_path, "{logspace: [1, 0.1, 3]}")), "--out",
              str(tmp_path / "out")])
    assert exc.value.code == 2 and "kernel.sigma.logspace" in capsys.readouterr().err


def test_a_linear_kernel_has_no_sigma_to_select(tmp_path: Path) -> None:
    path = _config(tmp_path, "[1, 2]")
    path.write_text(path.read_text().replace("kernel: {sigma:", "kernel: {name: linear, sigma:"))
    with pytest.raises(ConfigError, match="kernel.sigma: the linear kernel has no σ"):
        load_experiment(path)


def test_a_grid_with_a_test_path_records_the_selected_sigmas_path(tmp_path: Path) -> None:
    path = _config(tmp_path, "[0.5, 2.0]")
    path.write_text(path.read_text().replace("refit: true", "refit: true, record_test_path: true"))
    run_experiment(load_experiment(path), tmp_path / "out", progress=False)
    for record in load_run(tmp_path / "out" / "sigma_run").records:
        assert record.test_path["error"].shape == record.val_rmse.shape == (4, 3)
        best = list(record.sigma_values).index(record.info["sigma_selected"])
        np.testing.assert_array_equal(record.sigma_val_rmse[best], record.val_rmse)
