"""The periodic kernels on [0, 1] are registered kernels: a config names them with their own
parameters (β or ρ, and the constant's weight; no σ), KRLS and NKRLS get those parameters
through ``kernel_params``, and a run on generated [0, 1] data goes through the CLI, the trials
and the store; bad parameters stop with exit status 2 and the offending field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as la

from kernreg.cli import main
from kernreg.config import load_experiment, make_estimator
from kernreg.datasets import readers
from kernreg.datasets.spec import DatasetSpec, RemoteFile, RowSplit, Source, register, unregister
from kernreg.experiment.trial import prepare_data, trial_split
from kernreg.kernels import PeriodicSplineKernel, get_kernel_spec, make_kernel
from kernreg.results.store import load_run
from kernreg.solvers import get_algorithm

N_TRAIN, N_TEST = 160, 60


def _write(path: Path, X: np.ndarray, y: np.ndarray) -> None:
    header = ",".join([*(f"x{j}" for j in range(X.shape[1])), "y"])
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="")


def _spec(name: str, columns: int) -> DatasetSpec:
    return DatasetSpec(
        name=name, title=f"generated on [0, 1]^{columns}", task="regression",
        n_train=N_TRAIN, n_test=N_TEST, d=columns,
        sources=(Source("gen", files=(RemoteFile(f"{name}.csv", urls=(), known_hash=None),),
                        reader=readers.csv_with_header("y"), description="generated"),),
        split=RowSplit(N_TRAIN, N_TEST), preprocessing=(), sigma=None, m=None,
        reference="test")


@pytest.fixture
def circle_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``y = cos 2πx + 0.5 sin 4πx + noise`` on uniform ``x`` (one column), and a two-column
    copy."""
    rng = np.random.default_rng(0)
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    x = rng.uniform(size=N_TRAIN + N_TEST)
    y = np.cos(2 * np.pi * x) + 0.5 * np.sin(4 * np.pi * x) + 0.1 * rng.standard_normal(x.size)
    _write(mirror / "toy_circle.csv", x[:, None], y)
    _write(mirror / "toy_square.csv", np.column_stack([x, rng.uniform(size=x.size)]), y)
    monkeypatch.setenv("KERNREG_MIRROR", str(mirror))
    specs = [register(_spec("toy_circle", 1)), register(_spec("toy_square", 2))]
    yield
    for spec in specs:
        unregister(spec.name)


CONFIG = """name: spline_run
dataset: {name: toy_circle}
kernel: {name: periodic_spline, beta: 2, constant: 1}
algorithms:
  - {name: krls, lambdas: {logspace: [1e-9, 1e-1, 9]}}
  - {name: nkrls, m: 40, lambdas: {logspace: [1e-9, 1e-1, 9]}}
protocol: {trials: 2}
budget: {blas_threads: 1}
"""


def _config(tmp_path: Path, text: str = CONFIG) -> Path:
    path = tmp_path / "spline_run.yaml"
    path.write_text(text)
    return path


def test_registered_with_their_own_parameters_and_no_sigma() -> None:
    spline = get_kernel_spec("periodic_spline")
    assert spline.parameters == ("beta", "constant")
    assert spline.defaults == {"beta": 1, "constant": 0.0}
    assert get_kernel_spec("periodic_exponential").parameters == ("rho", "constant")
    x = np.linspace(0, 1, 7)[:, None]
    k = make_kernel("periodic_spline", None, beta=2, constant=1.0)
    assert isinstance(k, PeriodicSplineKernel) and (k.beta, k.constant) == (2, 1.0)
    i = np.arange(1, 20001)
    series = 1 + (2 * i ** -4.0 * np.cos(2 * np.pi * np.outer(x[:, 0] - x[2, 0], i))).sum(1)
    np.testing.assert_allclose(k(x, x[2:3])[:, 0], series, atol=1e-12)
    # the estimators taking kernel_params build it with them; σ does not reach it
    est = get_algorithm("krls")(kernel="periodic_exponential", sigma=5.0,
                                kernel_params={"rho": 0.5})
    est.check_params()
    assert est._make_kernel().rho == 0.5
    with pytest.raises(ValueError, match=r"takes the parameters \['beta', 'constant'\], got "
                                         r"\['rho'\]"):
        get_algorithm("nkrls")(kernel="periodic_spline", kernel_params={"rho": 1.0}) \
            .check_params()
    with pytest.raises(ValueError, match="kernel_params must be a dict"):
        get_algorithm("krls")(kernel="periodic_spline", kernel_params=[2]).check_params()


def test_a_run_on_circle_data_through_the_cli(circle_data: None, tmp_path: Path) -> None:
    config = _config(tmp_path)
    main(["run", str(config), "--out", str(tmp_path / "out"), "--no-progress"])
    run = load_run(tmp_path / "out" / "spline_run")
    assert sorted((r.algorithm, r.trial) for r in run.records) == [
        ("krls", 0), ("krls", 1), ("nkrls", 0), ("nkrls", 1)]
    exp = load_experiment(config)
    assert exp.kernel == {"name": "periodic_spline", "beta": 2, "constant": 1}
    data = prepare_data(exp)
    noise_free_scale = float(np.std(data.y_test))
    for record in run.records:
        # a smooth periodic target: near the noise level (0.1), far below the target's scale
        assert record.measures["rmse"] < 0.2 < noise_free_scale
    # the KRLS trial is the closed form with the configured kernel at the selected λ
    record = next(r for r in run.records if r.algorithm == "krls" and r.trial == 1)
    seed, (X_fit, y_fit, X_val, y_val) = trial_split(exp, data, 1)
    algo = next(a for a in exp.algorithms if a.name == "krls")
    est = make_estimator(algo, exp, random_state=seed)
    assert est.kernel_params == {"beta": 2, "constant": 1}
    lam = est.fit(X_fit, y_fit, X_val, y_val).best_lambda_
    K = PeriodicSplineKernel(2, constant=1.0)
    alpha = la.solve(K(X_fit) + lam * X_fit.shape[0] * np.eye(X_fit.shape[0]), y_fit,
                     assume_a="pos")
    rmse = np.sqrt(np.mean((K(data.X_test, X_fit) @ alpha - data.y_test) ** 2))
    assert record.measures["rmse"] == pytest.approx(rmse, rel=1e-8)


@pytest.mark.parametrize(("kernel", "message"), [
    ("{name: periodic_spline, beta: 0}", "kernel.beta: must be >= 1, got 0"),
    ("{name: periodic_spline, beta: 1.5}", "kernel.beta: expected integer, got 1.5"),
    ("{name: periodic_spline, constant: -1}", "kernel.constant: must be >= 0, got -1"),
    ("{name: periodic_exponential, rho: 0}", "kernel.rho: must be > 0, got 0"),
    ("{name: periodic_spline, sigma: 1}", "kernel: unknown key 'sigma'; allowed keys: beta, "
                                          "constant, name"),
    ("{name: periodic_spline, rho: 1}", "kernel: unknown key 'rho'"),
])
def test_bad_parameters_exit_2_naming_the_field(
    circle_data: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], kernel: str,
    message: str
) -> None:
    config = _config(tmp_path, CONFIG.replace("{name: periodic_spline, beta: 2, constant: 1}",
                                              kernel))
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(config), "--out", str(tmp_path / "out"), "--no-progress"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("change", "message"), [
    # an estimator without kernel_params would drop β: refused, not defaulted
    (("- {name: krls, lambdas: {logspace: [1e-9, 1e-1, 9]}}", "- {name: kols}"),
     "kernel.beta: the kols estimator takes no kernel parameter 'beta'"),
    # two columns: the kernel is on [0, 1]; refused before any trial
    (("toy_circle", "toy_square"), "kernel.name: the periodic_spline kernel cannot take these "
                                   "data: PeriodicSplineKernel takes points on [0, 1]: X must "
                                   "have one column, got 2"),
])
def test_what_the_estimator_or_the_data_cannot_take_exits_2(
    circle_data: None, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    change: tuple[str, str], message: str
) -> None:
    config = _config(tmp_path, CONFIG.replace(*change))
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(config), "--out", str(tmp_path / "out"), "--no-progress"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / "spline_run" / "trials").exists()
