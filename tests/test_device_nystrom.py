"""NKRLS, Falkon's PCG and random Fourier features on a device: ``device="torch"`` (the CPU
build of PyTorch runs the code a GPU runs) equals the numpy float64 path at every point of the
validated path, selects the same model and predicts the same.

The problems are conditioned so that the comparison means something: NKRLS's smallest λ and
PCG's iterations past convergence amplify rounding (a different summation order of ``AᵀA``, as
the host's own block size or Gram strategy gives, moves them by up to ~1e-7 and ~1e-3 on
near-singular ``K_mm``); here every point of the path is stable to far below 1e-10.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

import kernreg.solvers.algorithms.pcg as pcg_module
from kernreg.solvers.algorithms.nkrls import NystromKRLS
from kernreg.solvers.algorithms.pcg import NystromPCG
from kernreg.solvers.algorithms.random_features import RandomFeaturesKRLS
from kernreg.solvers.blocks.metrics import rmse

RTOL = 1e-10


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(7)
    X, X_val, X_test = (rng.uniform(-1, 1, size=(n, 3)) for n in (500, 150, 120))
    X[400:440] = X[:40]  # repeated rows: merged into weighted rows by NKRLS
    f = lambda Z: np.sin(3 * Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2  # noqa: E731
    y = f(X) + 0.1 * rng.standard_normal(X.shape[0])
    y_val = f(X_val) + 0.1 * rng.standard_normal(X_val.shape[0])
    return X, y, X_val, y_val, X_test


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def _pair(cls: type, data: tuple[np.ndarray, ...], **kw) -> tuple:
    X, y, X_val, y_val, _ = data
    host = cls(**kw).fit(X, y, X_val, y_val)
    dev = cls(device="torch", **kw).fit(X, y, X_val, y_val)
    assert dev.kernel_.device.name == "torch" and host.kernel_.device.is_numpy
    if isinstance(dev, RandomFeaturesKRLS):  # the features' blocks and products too
        assert dev.feature_map_.device.name == "torch" and host.feature_map_.device.is_numpy
    return host, dev


def _assert_same_path(host, dev, X_test: np.ndarray, rtol: float = RTOL) -> None:
    np.testing.assert_allclose(dev.path_["val_rmse"], host.path_["val_rmse"], rtol=rtol, atol=0)
    assert dev.best_lambda_ == host.best_lambda_
    assert _rel(dev.predict(X_test), host.predict(X_test)) < rtol


# ------------------------------------------------------------------------------------ NKRLS
@pytest.mark.parametrize("refit", [False, True])
@pytest.mark.parametrize("path_method", ["eigh", "cholesky"])
def test_nkrls_path_on_device_equals_numpy(data, path_method: str, refit: bool) -> None:
    host, dev = _pair(NystromKRLS, data, sigma=0.8, m=80, random_state=3,
                      path_method=path_method, refit=refit)
    _assert_same_path(host, dev, data[4])  # all 100 λ of the default grid, 1e-15 to 1
    assert _rel(dev.predict_path(data[4]), host.predict_path(data[4])) < RTOL
    assert dev.precision_info_["precision"] == "float64"


def test_nkrls_identity_penalty_and_single_lambda_on_device(data) -> None:
    X, y, *_, X_test = data
    host, dev = _pair(NystromKRLS, data, sigma=0.5, m=60, random_state=1, penalty="identity",
                      lambdas=np.logspace(-9, -1, 9))
    _assert_same_path(host, dev, X_test)
    host = NystromKRLS(sigma=0.8, m=80, lam=1e-5, random_state=3).fit(X, y)
    dev = NystromKRLS(sigma=0.8, m=80, lam=1e-5, random_state=3, device="torch").fit(X, y)
    assert _rel(dev.alpha_, host.alpha_) < RTOL


def test_nkrls_precision_on_device(data) -> None:
    X, y, *_ = data
    with pytest.raises(ValueError, match=r"precision='mixed'.*device='torch'"):
        NystromKRLS(precision="mixed", device="torch").fit(X, y)
    est = NystromKRLS(sigma=0.8, m=40, precision="auto", device="torch", random_state=0)
    assert est.fit(X, y).precision_info_["precision"] == "float64"


# -------------------------------------------------------------------------------------- PCG
@pytest.fixture
def cg_runs(monkeypatch: pytest.MonkeyPatch) -> list:
    """Every λ's CG run of each fit (``_LambdaSolve``: the error after every iteration)."""
    runs: list = []
    original = pcg_module.cg_path

    def recording(*args, **kwargs):
        solved = original(*args, **kwargs)
        runs.append(solved)
        return solved

    monkeypatch.setattr(pcg_module, "cg_path", recording)
    return runs


@pytest.mark.parametrize(("strategy", "validation_strategy", "preconditioner", "lambdas"), [
    ("memory", None, "falkon", np.logspace(-3, -1, 4)),
    ("blocked", None, "falkon", np.logspace(-3, -1, 4)),
    ("gram", None, "falkon", np.logspace(-3, -1, 4)),
    ("memory", "blocked", "nystrom", np.logspace(-6, -1, 6)),
    ("gram", "memory", "nystrom", np.logspace(-6, -1, 6)),
])
def test_pcg_path_on_device_equals_numpy(data, cg_runs, strategy: str,
                                         validation_strategy: str | None,
                                         preconditioner: str, lambdas: np.ndarray) -> None:
    host, dev = _pair(NystromPCG, data, sigma=0.3, m=60, random_state=2, lambdas=lambdas,
                      max_iter=12, tol=1e-8, strategy=strategy,
                      validation_strategy=validation_strategy, preconditioner=preconditioner,
                      refit=True)
    path_host, refit_host, path_dev, refit_dev = cg_runs  # the path, then the refit
    assert len(path_host) == len(path_dev) == lambdas.size
    for a, b in zip(path_host, path_dev, strict=True):  # every iteration of every λ
        assert a.n_iter == b.n_iter
        np.testing.assert_allclose(b.errors, a.errors, rtol=RTOL, atol=0)
    assert _rel(refit_dev[0].last, refit_host[0].last) < RTOL
    _assert_same_path(host, dev, data[4])
    assert dev.best_iter_ == host.best_iter_
    np.testing.assert_array_equal(dev.path_["iterations"], host.path_["iterations"])


# ----------------------------------------------------------------------- random features
def test_rff_path_on_device_equals_numpy(data) -> None:
    host, dev = _pair(RandomFeaturesKRLS, data, sigma=0.8, n_components=120, random_state=5,
                      lambdas=np.logspace(-8, 0, 9), d_values=[30, 60, 120], refit=True)
    _assert_same_path(host, dev, data[4])
    assert dev.best_n_components_ == host.best_n_components_
    np.testing.assert_array_equal(dev.frequencies_, host.frequencies_)  # the host's draw


def test_matern_fourier_features_run_on_device(data) -> None:
    host, dev = _pair(RandomFeaturesKRLS, data, kernel="matern", sigma=0.8, n_components=80,
                      random_state=5, lambdas=np.logspace(-6, 0, 4), d_values=[40, 80],
                      features="rff_matern")
    _assert_same_path(host, dev, data[4])


@pytest.mark.parametrize("features", ["fastfood", {"name": "fastfood", "variant": "fft"}])
def test_other_feature_maps_are_refused_on_a_device(data, features) -> None:
    est = RandomFeaturesKRLS(features=features, device="torch")
    with pytest.raises(ValueError, match=r"fastfood.*device='torch'"):
        est.check_params()
    with pytest.raises(ValueError, match=r"fastfood.*device='torch'"):
        est.fit(*data[:2])


# ------------------------------------------------------ memory budget, float32 kernels
def test_a_small_memory_budget_streams_the_same_results(data) -> None:
    """Kernel (feature) blocks of a few rows: the device streams many row blocks, with the
    same numbers as numpy with its default blocks."""
    budget = 80 * 8 * 13  # 13 rows of an 80-column float64 block: 39 blocks and a short one
    X_test = data[4]
    for cls, kw in ((NystromKRLS, {"m": 80, "lambdas": np.logspace(-10, 0, 11)}),
                    (NystromPCG, {"m": 80, "lambdas": np.logspace(-3, -1, 3), "max_iter": 8,
                                  "strategy": "blocked", "sigma": 0.3}),
                    (RandomFeaturesKRLS, {"n_components": 80, "d_values": [40, 80],
                                          "lambdas": np.logspace(-8, 0, 5)})):
        kw = {"sigma": 0.8, "random_state": 3, **kw}
        host = cls(**kw).fit(*data[:4])
        dev = cls(device="torch", memory_budget=budget, **kw).fit(*data[:4])
        _assert_same_path(host, dev, X_test)


@pytest.mark.parametrize("cls", [NystromKRLS, NystromPCG])
def test_float32_kernels_on_device(data, cls: type) -> None:
    X, y, X_val, y_val, X_test = data
    f = lambda Z: np.sin(3 * Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2  # noqa: E731
    kw = {"sigma": 0.5, "m": 60, "random_state": 4, "lambdas": np.logspace(-6, -1, 6)}
    host, dev = _pair(cls, data, dtype="float32", **kw)
    reference = cls(**kw).fit(X, y, X_val, y_val)  # float64 kernel on the host
    errors = [rmse(f(X_test), est.predict(X_test)) for est in (host, dev, reference)]
    assert errors[1] == pytest.approx(errors[0], rel=1e-4)
    assert errors[1] == pytest.approx(errors[2], rel=1e-3)
    assert dev.best_lambda_ == host.best_lambda_
