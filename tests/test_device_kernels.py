"""The device layer: kernels evaluated on a device, their fused products, K_nm kept or streamed
there, and NYTRO on a device — each equal to the numpy host path.

``device="torch"`` runs the device code on PyTorch's CPU build: the same lines a GPU runs, so
these tests check on any machine what ``device: cuda`` computes.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from kernreg.backend import CPU, get_device
from kernreg.backend.linalg import cholesky_upper, eigh, solve_triangular
from kernreg.kernels import make_kernel
from kernreg.solvers.algorithms.nytro import Nytro
from kernreg.solvers.blocks.knm import DeviceBlockedKnm, DeviceStoredKnm, make_knm

torch = pytest.importorskip("torch")

KERNELS = [("gaussian", {}), ("laplacian", {}), ("linear", {}), ("matern", {"nu": 0.5}),
           ("matern", {"nu": 1.5}), ("matern", {"nu": 2.5}), ("matern32", {})]


def rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(a)), 1e-300))


@pytest.fixture(scope="module")
def data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((700, 6))
    return {"X": X, "C": X[:50].copy(), "v": rng.standard_normal(50),
            "V": rng.standard_normal((50, 3)), "y": rng.standard_normal(700),
            "u": rng.standard_normal(700)}


def test_device_names_are_checked() -> None:
    assert get_device("cpu") is CPU and CPU.is_numpy
    assert get_device("torch").xp.__name__.endswith("torch")
    for bad in ("gpu", "cuda:x", "", None, 3):
        with pytest.raises(ValueError, match="device must be one of"):
            get_device(bad)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU is visible"):
            get_device("cuda")


def test_device_survives_clone_and_pickle() -> None:
    device = get_device("torch", memory_bytes=12345)
    assert copy.deepcopy(device) is device
    assert pickle.loads(pickle.dumps(device)) == device
    assert "torch" in device.describe() and device.memory_budget() == 12345


@pytest.mark.parametrize(("name", "params"), KERNELS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_kernel_products_on_device_equal_host(data: dict, name: str, params: dict,
                                              dtype: str) -> None:
    X, C, v, V, y, u = (data[k] for k in "X C v V y u".split())
    # a small block budget: several row blocks per product
    host = make_kernel(name, 1.3, dtype=dtype, memory_budget=50 * 8 * 64, **params)
    dev = host.to("torch")
    tol = 1e-12 if dtype == "float64" else 2e-5
    K = host(X, C)
    assert rel(K, dev.on_device(X, C).numpy()) < tol
    assert rel(host.matvec(X, C, v), dev.matvec(X, C, v)) < tol
    assert rel(host.matvec(X, C, V), dev.matvec(X, C, V)) < tol
    assert rel(host.rmatvec(X, C, u), dev.rmatvec(X, C, u)) < tol
    for w in (v, V):
        g_h, r_h = host.normal_matvec(X, C, w, y)
        g_d, r_d = dev.normal_matvec(X, C, w, y)
        assert rel(g_h, g_d) < tol and rel(r_h, r_d) < tol
    scale = np.linspace(0.5, 2.0, len(X))
    G_h, b_h = host.gram_products(X, C, y, row_scale=scale)
    G_d, b_d = dev.gram_products(X, C, y, row_scale=scale)
    assert rel(G_h, G_d) < tol and rel(b_h, b_d) < tol
    assert np.array_equal(G_d, G_d.T)


def test_sparse_rows_and_coincident_points(data: dict) -> None:
    X = data["X"].copy()
    X[X < 0.5] = 0.0
    Xs = sp.csr_matrix(X)
    C = X[:20]
    for name in ("laplacian", "matern12"):
        host, dev = make_kernel(name, 0.7), make_kernel(name, 0.7, device="torch")
        K_dev = dev.on_device(Xs, C).numpy()
        assert rel(host(Xs, C), K_dev) < 1e-12
        # centers drawn from the rows are at distance 0: exactly 1, as on the host
        assert np.all(K_dev[np.arange(20), np.arange(20)] == 1.0)


def test_kernel_without_device_path_is_refused() -> None:
    with pytest.raises(ValueError, match="no device path"):
        make_kernel("matern", 1.0, nu=0.8, device="torch")
    with pytest.raises(ValueError, match="no device path"):
        make_kernel("periodic_spline", None, device="torch")


def test_linalg_helpers_match_scipy() -> None:
    rng = np.random.default_rng(1)
    A = rng.standard_normal((30, 30))
    S = A @ A.T + 30 * np.eye(30)
    B = rng.standard_normal((30, 4))
    St, Bt = torch.from_numpy(S), torch.from_numpy(B)
    R = cholesky_upper(S)
    assert rel(R, cholesky_upper(St).numpy()) < 1e-12
    Rt = torch.from_numpy(R)
    for trans in (False, True):
        assert rel(solve_triangular(R, B, trans=trans),
                   solve_triangular(Rt, Bt, trans=trans).numpy()) < 1e-12
        assert rel(solve_triangular(R, B.T, trans=trans, right=True),
                   solve_triangular(Rt, Bt.T, trans=trans, right=True).numpy()) < 1e-12
    assert rel(eigh(S)[0], eigh(St)[0].numpy()) < 1e-12
    with pytest.raises(np.linalg.LinAlgError):
        cholesky_upper(-torch.eye(3, dtype=torch.float64))


@pytest.mark.parametrize("storage", ["memory", "blocked"])
def test_knm_on_device(data: dict, storage: str) -> None:
    X, C, v, y = data["X"], data["C"], data["V"], data["y"]
    host_k, dev_k = make_kernel("gaussian", 1.1), make_kernel("gaussian", 1.1, device="torch")
    host, dev = make_knm(storage, host_k, X, C), make_knm(storage, dev_k, X, C)
    assert isinstance(dev, DeviceStoredKnm if storage == "memory" else DeviceBlockedKnm)
    assert rel(host.matvec(v), dev.matvec(v)) < 1e-12
    assert rel(host.rmatvec(data["u"]), dev.rmatvec(data["u"])) < 1e-12
    g_h, r_h = host.normal_matvec(v, y)
    g_d, r_d = dev.normal_matvec(v, y)
    assert rel(g_h, g_d) < 1e-12 and rel(r_h, r_d) < 1e-12
    dev.close()


def test_blocked_knm_streams_rows_from_host_over_budget(data: dict) -> None:
    X, C = data["X"], data["C"]
    small = make_kernel("gaussian", 1.1, device=get_device("torch", memory_bytes=1000),
                        memory_budget=50 * 8 * 32)
    knm = make_knm("blocked", small, X, C)
    assert isinstance(knm.X, np.ndarray)  # rows stay on the host: sent block by block
    roomy = make_knm("blocked", make_kernel("gaussian", 1.1, device="torch"), X, C)
    assert isinstance(roomy.X, torch.Tensor)  # rows kept on the device
    assert rel(knm.matvec(data["v"]), roomy.matvec(data["v"])) < 1e-12


def test_stored_knm_over_the_device_budget_is_reevaluated(data: dict) -> None:
    """PCG and the validation rows ask make_knm for a stored K_nm: one that does not fit the
    device is re-evaluated there instead, never an out-of-memory error mid-fit."""
    X, C = data["X"], data["C"]
    small = make_kernel("gaussian", 1.1, device=get_device("torch", memory_bytes=100_000))
    knm = make_knm("memory", small, X, C)  # 700 × 50 float64 = 280 kB
    assert isinstance(knm, DeviceBlockedKnm)
    host = make_knm("memory", make_kernel("gaussian", 1.1), X, C)
    assert rel(host.matvec(data["v"]), knm.matvec(data["v"])) < 1e-12


def _nytro_problem() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(3)
    X = rng.standard_normal((1500, 5))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(1500)
    X[100:130] = X[:30]  # repeated rows: merged before the products, on a device too
    y[100:130] = y[:30]
    X_val = rng.standard_normal((400, 5))
    return X, y, X_val, np.sin(X_val[:, 0])


@pytest.mark.parametrize("strategy", ["memory", "blocked", "gram"])
@pytest.mark.parametrize("validation_strategy", ["memory", "blocked", "gram"])
def test_nytro_on_device_equals_numpy_along_the_path(strategy: str,
                                                     validation_strategy: str) -> None:
    X, y, X_val, y_val = _nytro_problem()
    params = dict(sigma=1.5, m=120, max_iter=80, random_state=2, strategy=strategy,
                  validation_strategy=validation_strategy, step_rows="all")
    host = Nytro(**params).fit(X, y, X_val, y_val)
    dev = Nytro(device="torch", **params).fit(X, y, X_val, y_val)
    # every iteration's validation error, the step size, t* and the model
    assert rel(host.path_["val_rmse"], dev.path_["val_rmse"]) < 1e-10
    assert abs(host.step_size_ - dev.step_size_) < 1e-10 * host.step_size_
    assert host.best_iter_ == dev.best_iter_
    assert rel(host.predict(X_val), dev.predict(X_val)) < 1e-10


@pytest.mark.parametrize("acceleration", ["none", "nu"])
def test_nytro_on_device_refit_and_acceleration(acceleration: str) -> None:
    X, y, X_val, y_val = _nytro_problem()
    params = dict(sigma=1.5, m=100, max_iter=40, random_state=0, refit=True,
                  acceleration=acceleration)
    host = Nytro(**params).fit(X, y, X_val, y_val)
    dev = Nytro(device="torch", **params).fit(X, y, X_val, y_val)
    assert rel(host.path_["val_rmse"], dev.path_["val_rmse"]) < 1e-10
    # the refit model (α itself is ill-determined along K_mm's near-null directions)
    assert rel(host.predict(X_val), dev.predict(X_val)) < 1e-10


def test_nytro_over_the_device_budget_streams_and_agrees() -> None:
    """K_nm larger than the device's memory: the plan re-evaluates it there block by block,
    with the same iterates."""
    X, y, X_val, y_val = _nytro_problem()
    params = dict(sigma=1.5, m=120, max_iter=30, random_state=2, memory_budget=120 * 8 * 100)
    roomy = Nytro(device="torch", strategy="memory", **params).fit(X, y, X_val, y_val)
    # the config's strategy: memory gives way: 1500 × 120 float64 = 1.4 MB does not fit 0.4 MB
    tight = Nytro(device=get_device("torch", memory_bytes=400_000), strategy="memory",
                  **params)
    tight.fit(X, y, X_val, y_val)
    assert tight.strategy_ == "blocked"
    assert rel(roomy.path_["val_rmse"], tight.path_["val_rmse"]) < 1e-10


def test_nytro_float32_on_device_keeps_the_error() -> None:
    X, y, X_val, y_val = _nytro_problem()
    params = dict(sigma=1.5, m=120, max_iter=60, random_state=2, dtype="float32",
                  strategy="memory")
    host = Nytro(**params).fit(X, y, X_val, y_val)
    dev = Nytro(device="torch", **params).fit(X, y, X_val, y_val)
    err_h = np.sqrt(np.mean((host.predict(X_val) - y_val) ** 2))
    err_d = np.sqrt(np.mean((dev.predict(X_val) - y_val) ** 2))
    assert f"{err_h:.4g}" == f"{err_d:.4g}"


def test_device_with_dask_backend_is_refused() -> None:
    X, y, _, _ = _nytro_problem()
    with pytest.raises(ValueError, match="needs backend='local'"):
        Nytro(device="torch", backend="dask", m=10).fit(X, y)
