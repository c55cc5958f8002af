"""KRLS, KOLS and ES (kernel Landweber) with the n × n kernel on a device equal the numpy path.

``device="torch"`` runs the device code (the kernel built by ``Kernel.on_device``, symmetrised,
factored or iterated with ``torch.linalg``) on the CPU build of PyTorch, so these tests check on
any machine the lines a GPU runs. Every point of every path is compared: each λ's validation
RMSE (KRLS), each iteration's (ES), to 1e-10 relative, and the selected λ* / t* must be the
same. The data are small (n = 400, d = 5) and the σ chosen so that ``K`` is reasonably
conditioned (Gaussian σ = 1: λ_min/λ_max ≈ 2e-5; Laplacian and Matérn 3/2 σ = 2: 1e-3 and 7e-5).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

torch = pytest.importorskip("torch")

from kernreg.kernels.base import Kernel  # noqa: E402
from kernreg.solvers import KOLS, KRLS, KernelLandweber  # noqa: E402
from kernreg.solvers.algorithms.krls import _solve_shifted  # noqa: E402
from kernreg.solvers.blocks.linalg import eigh_inplace, sym, sym_inplace  # noqa: E402

RTOL = 1e-10
#: σ of each kernel (the linear kernel has none)
SIGMAS = {"gaussian": 1.0, "laplacian": 2.0, "matern32": 2.0, "linear": 1.0}
KERNELS = list(SIGMAS)
#: The protocol's λ range. The linear kernel is rank d = 5: its n − d null eigenvalues are
#: rounding noise (≈ eps·‖K‖ = 1e-13, of either sign), and α(λ) holds that noise divided by
#: λn; the validation predictions see it through the rounding of ``K(X_val, X)``, relative
#: ``≈ eps·‖K‖/(λn)``: numpy and torch round differently and agree only to 6e-2 at λ = 1e-15,
#: 6e-10 at 1e-7 and 6e-11 at 1e-6 (measured), so its grid starts at 1e-6.
LAMBDAS = {k: np.logspace(-15, 0, 31) for k in KERNELS} | {"linear": np.logspace(-6, 0, 13)}


def _rel(a: Any, b: Any) -> float:
    """Largest elementwise relative difference (the path values are positive)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    return float(np.max(np.abs(a - b) / np.abs(b)))


def _rel_norm(a: Any, b: Any) -> float:
    """``‖a − b‖ / ‖b‖`` (coefficients and predictions: some entries are near 0)."""
    return float(np.linalg.norm(np.asarray(a) - b) / np.linalg.norm(b))


@pytest.fixture(scope="module", autouse=True)
def one_thread() -> Iterator[None]:
    """One BLAS and one torch thread: at n = 400 threads only add their start-up and, on a
    busy machine, their spinning (the file takes 6 s so, 12 s with 2 threads when idle and
    over a minute when other jobs share the cores)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(1):
            yield
    finally:
        torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    n, d = 400, 5

    def rows(m: int) -> tuple[np.ndarray, np.ndarray]:
        X = rng.standard_normal((m, d))
        return X, np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + 0.1 * rng.standard_normal(m)

    (X, y), (X_val, y_val), (X_test, y_test) = rows(n), rows(150), rows(200)
    # 60 repeated rows (their targets differ: K is singular, K⁺ averages them)
    X_dup = np.vstack([X, X[:60]])
    y_dup = np.concatenate([y, y[:60] + 0.1 * rng.standard_normal(60)])
    return {"X": X, "y": y, "X_val": X_val, "y_val": y_val, "X_test": X_test,
            "y_test": y_test, "X_dup": X_dup, "y_dup": y_dup}


@pytest.fixture
def on_device(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[type]]:
    """The types of the kernel matrices the fits built (``Kernel.on_device``)."""
    made: list[type] = []
    original = Kernel.on_device

    def spy(self: Kernel, X: Any, Y: Any = None) -> Any:
        K = original(self, X, Y)
        made.append(type(K))
        return K

    monkeypatch.setattr(Kernel, "on_device", spy)
    yield made


def _both(make: Callable[..., Any], fit: Callable[[Any], Any], made: list[type]
          ) -> tuple[Any, Any]:
    """The model fitted on the numpy path and on ``device="torch"``, whose kernel matrices
    must all have been torch tensors (and the numpy path's numpy arrays, where it asks
    ``on_device``: ES's host path writes K into a kept buffer instead)."""
    host = fit(make(device="cpu"))
    assert all(t is np.ndarray for t in made)
    made.clear()
    device = fit(make(device="torch"))
    assert made and all(t is torch.Tensor for t in made)
    assert device.kernel_.device.name == "torch"
    return host, device


def _test_rmse(model: Any, data: dict[str, np.ndarray]) -> float:
    return float(np.sqrt(np.mean((model.predict(data["X_test"]) - data["y_test"]) ** 2)))


def test_sym_and_eigh_in_place_on_the_device() -> None:
    """The n × n helpers serve torch arrays: ``sym_inplace`` equals ``sym`` exactly (tiles
    across the edge), and ``eigh_inplace`` writes the eigenvectors into ``K``'s memory."""
    A = np.random.default_rng(2).standard_normal((150, 150))
    K = torch.from_numpy(A.copy())
    assert sym_inplace(K, block=64) is K
    np.testing.assert_array_equal(K.numpy(), sym(A))
    memory = K.data_ptr()
    s, U = eigh_inplace(K)
    assert U.data_ptr() == memory and s.dtype == U.dtype == torch.float64
    s_host, _ = eigh_inplace(sym(A))
    np.testing.assert_allclose(s.numpy(), s_host, rtol=0, atol=1e-12 * np.abs(s_host).max())
    np.testing.assert_allclose((U * s) @ U.T, sym(A), rtol=0, atol=1e-12 * np.abs(s_host).max())


# ------------------------------------------------------------------------------------ KRLS
@pytest.mark.parametrize("refit", [False, True])
@pytest.mark.parametrize("kernel", KERNELS)
def test_krls_path_equals_numpy(data, on_device, kernel: str, refit: bool) -> None:
    def make(**kw: Any) -> KRLS:
        return KRLS(kernel=kernel, sigma=SIGMAS[kernel], lambdas=LAMBDAS[kernel], refit=refit,
                    **kw)

    host, device = _both(make, lambda m: m.fit(data["X"], data["y"], data["X_val"],
                                               data["y_val"], X_eval=data["X_test"]), on_device)
    assert _rel(device.path_["val_rmse"], host.path_["val_rmse"]) <= RTOL  # every λ
    assert device.best_lambda_ == host.best_lambda_
    assert _rel_norm(device.eval_outputs_, host.eval_outputs_) <= RTOL  # every λ's model
    assert isinstance(device.alpha_, np.ndarray) and device.alpha_.dtype == np.float64
    assert _rel_norm(device.alpha_, host.alpha_) <= 1e-8
    assert _rel_norm(device.predict(data["X_test"]), host.predict(data["X_test"])) <= RTOL


@pytest.mark.parametrize(("kernel", "lam"),
                         [(k, lam) for k in KERNELS if k != "linear" for lam in (1e-3, 1e-12)]
                         + [("linear", 1e-3), ("linear", 1e-5)])
def test_krls_single_lambda_equals_numpy(data, on_device, kernel: str, lam: float) -> None:
    """Without validation data: one Cholesky of ``K + λnI`` on the device. The linear kernel
    at λ ≥ 1e-5 only, for the reason its path starts at 1e-6 (:data:`LAMBDAS`), here through
    the triangular solves: the predictions differ by 1.1e-10 at λ = 1e-6, 4e-8 at 1e-9."""
    calls = []
    cholesky = torch.linalg.cholesky_ex

    def spy(A: Any) -> Any:
        calls.append(A.shape)
        return cholesky(A)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(torch.linalg, "cholesky_ex", spy)
        host, device = _both(lambda **kw: KRLS(kernel=kernel, sigma=SIGMAS[kernel], lam=lam,
                                               **kw),
                             lambda m: m.fit(data["X"], data["y"]), on_device)
    assert calls == [(400, 400)]
    assert device.best_lambda_ == host.best_lambda_ == lam and device.path_ is None
    assert _rel_norm(device.alpha_, host.alpha_) <= 1e-8
    assert _rel_norm(device.predict(data["X_test"]), host.predict(data["X_test"])) <= RTOL


def test_solve_shifted_falls_back_to_eigh_on_the_device() -> None:
    """``K + shift·I`` indefinite (an eigenvalue of K below −shift): Cholesky fails on both
    paths and the eigendecomposition (eigenvalues clipped at 0) gives the same answer."""
    rng = np.random.default_rng(3)
    Q = np.linalg.qr(rng.standard_normal((50, 50)))[0]
    s = np.concatenate([[-1e-6], np.logspace(-3, 0, 49)])
    K = (Q * s) @ Q.T
    K = 0.5 * (K + K.T)
    y, shift = rng.standard_normal(50), 1e-8
    expected = Q @ ((Q.T @ y) / (np.maximum(s, 0.0) + shift))
    host = _solve_shifted(K.copy(), y, shift)
    device = _solve_shifted(torch.from_numpy(K.copy()), torch.from_numpy(y), shift)
    assert isinstance(device, torch.Tensor)
    assert _rel_norm(host, expected) <= 1e-8
    assert _rel_norm(device.numpy(), host) <= 1e-9


# ------------------------------------------------------------------------------------ KOLS
@pytest.mark.parametrize("rows", ["distinct", "merged", "unmerged"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_kols_equals_numpy_eigh(data, on_device, kernel: str, rows: str) -> None:
    """On a device ``K⁺y`` comes from the eigendecomposition: compared with the host's
    ``solver="eigh"`` (the same rank cut-off, the same factorization)."""
    X, y = (data["X"], data["y"]) if rows == "distinct" else (data["X_dup"], data["y_dup"])

    def make(device: str) -> KOLS:
        return KOLS(kernel=kernel, sigma=SIGMAS[kernel], merge_duplicates=rows == "merged",
                    solver="eigh" if device == "cpu" else "pivoted_cholesky", device=device)

    host, device = _both(make, lambda m: m.fit(X, y, data["X_val"], data["y_val"]), on_device)
    assert device.factorization_ == host.factorization_ == "eigh"
    assert device.rank_ == host.rank_ == (5 if kernel == "linear" else 400)
    assert device.n_distinct_ == host.n_distinct_ == (460 if rows == "unmerged" else 400)
    assert _rel(device.path_["val_rmse"], host.path_["val_rmse"]) <= RTOL
    assert _rel_norm(device.predict(data["X_test"]), host.predict(data["X_test"])) <= RTOL
    assert _rel_norm(device.alpha_, host.alpha_) <= 1e-8


@pytest.mark.parametrize("rows", ["distinct", "merged"])
def test_kols_host_pivoted_cholesky_gives_the_device_model(data, rows: str) -> None:
    """The host's default (pivoted Cholesky, certified on this well-conditioned K) and the
    device's eigendecomposition give the same model."""
    X, y = (data["X"], data["y"]) if rows == "distinct" else (data["X_dup"], data["y_dup"])
    host = KOLS(sigma=1.0).fit(X, y)
    device = KOLS(sigma=1.0, device="torch").fit(X, y)
    assert host.factorization_ == "pivoted_cholesky" and device.factorization_ == "eigh"
    assert host.rank_ == device.rank_ == 400
    assert _rel_norm(device.predict(data["X_test"]), host.predict(data["X_test"])) <= 1e-9


# -------------------------------------------------------------------------------------- ES
@pytest.mark.parametrize(("merge", "refit", "step_rule"),
                         [(True, False, "norm"), (False, True, "norm"), (True, True, "n")])
@pytest.mark.parametrize("kernel", KERNELS)
def test_es_path_equals_numpy(data, on_device, kernel: str, merge: bool, refit: bool,
                              step_rule: str) -> None:
    # the linear kernel's 5 directions converge by iteration ~25, after which its validation
    # RMSE is flat to rounding (±2e-16) and where the rule stops or finds the lowest error is
    # rounding's choice: 20 iterations, on the part of the path that still descends
    max_iter = 20 if kernel == "linear" else 300

    def make(**kw: Any) -> KernelLandweber:
        return KernelLandweber(kernel=kernel, sigma=SIGMAS[kernel], max_iter=max_iter,
                               step_rule=step_rule, merge_duplicates=merge, refit=refit, **kw)

    host, device = _both(make, lambda m: m.fit(data["X_dup"], data["y_dup"], data["X_val"],
                                               data["y_val"]), on_device)
    assert len(on_device) == 2 + refit  # K and K_val, and the refit's K
    assert device.n_iter_ == host.n_iter_ and device.path_["stopped"] == host.path_["stopped"]
    assert _rel(device.path_["val_rmse"], host.path_["val_rmse"]) <= RTOL  # every iteration
    assert device.best_iter_ == host.best_iter_
    assert abs(device.step_size_ / host.step_size_ - 1) <= 1e-12
    n_centers = (400 if merge else 460) + 150 * refit  # the refit's include the validation rows
    assert device.centers_.shape == host.centers_.shape == (n_centers, 5)
    assert _rel_norm(device.alpha_, host.alpha_) <= 1e-9
    assert _rel_norm(device.predict(data["X_test"]), host.predict(data["X_test"])) <= RTOL


def test_es_without_validation_data_equals_numpy(data) -> None:
    host = KernelLandweber(sigma=1.0, max_iter=50).fit(data["X_dup"], data["y_dup"])
    device = KernelLandweber(sigma=1.0, max_iter=50, device="torch").fit(data["X_dup"],
                                                                         data["y_dup"])
    assert device.n_iter_ == host.n_iter_ == 50 and device.path_ is None
    assert _rel_norm(device.alpha_, host.alpha_) <= 1e-12


# --------------------------------------------------------------------------------- float32
@pytest.mark.parametrize("kernel", KERNELS)
def test_float32_kernel_on_device(data, kernel: str) -> None:
    """float32 kernel values (evaluated on the device, factored there in float64): the test
    RMSE of every algorithm's selected model agrees with the numpy path to 4 digits. KOLS
    with the linear kernel is left out: float32 rounding lifts the n − d null eigenvalues of
    XXᵀ to ≈ 1e-5, far above the float64 cut-off n·eps·λ_max, so ``K⁺y`` is that noise's
    inverse on either path; for KRLS its grid starts at λ = 1e-3 (λn = 0.4, above that noise:
    at λ = 1e-6 float32 rounding moves the selected model's test RMSE by 3e-4)."""
    sigma = SIGMAS[kernel]
    lambdas = np.logspace(-3, 0, 7) if kernel == "linear" else LAMBDAS[kernel]
    makers: list[Callable[..., Any]] = [
        lambda **kw: KRLS(kernel=kernel, sigma=sigma, lambdas=lambdas, **kw),
        lambda **kw: KernelLandweber(kernel=kernel, sigma=sigma,
                                     max_iter=20 if kernel == "linear" else 200, **kw),
    ]
    if kernel != "linear":
        makers.append(lambda **kw: KOLS(kernel=kernel, sigma=sigma, solver="eigh", **kw))
    for make in makers:
        host = make(dtype="float32").fit(data["X"], data["y"], data["X_val"], data["y_val"])
        device = make(dtype="float32", device="torch").fit(data["X"], data["y"],
                                                           data["X_val"], data["y_val"])
        assert device.kernel_.dtype == np.float32 and device.alpha_.dtype == np.float64
        assert abs(_test_rmse(device, data) / _test_rmse(host, data) - 1) <= 1e-4, make
