"""NKRLS in mixed precision (kernreg.solvers.blocks.mixed_precision): AᵀA by float32 products of
the float64 blocks K_b R⁻¹, every λ refined in float64 against K_nm.

The plain float32 Gram is shown to fail the checks on an ill-conditioned case (so the tests can
fail), the refined one to pass them; mixed equals float64 on small random problems, on the
numpy fallback and on the compiled path; the option is validated, recorded and chosen by the
cost model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as la

from kernreg.config import load_experiment
from kernreg.errors import ConfigError
from kernreg.kernels import GaussianKernel, active_path, use_jit
from kernreg.kernels.compiled import HAVE_NUMBA
from kernreg.solvers.algorithms.nkrls import NystromKRLS
from kernreg.solvers.blocks.lambda_path import NystromSystem
from kernreg.solvers.blocks.mixed_precision import (
    a_blocks,
    float32_gram_products,
    mixed_system,
    precision_costs,
    refine_path,
    resolve_precision,
)
from kernreg.solvers.blocks.nystrom import nystrom_products, nystrom_setup

PATHS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not HAVE_NUMBA, reason="numba is not installed: only the numpy path can run"))]


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """The compiled path forced on (its stored pass included) or off."""
    monkeypatch.setenv("KERNREG_JIT_PASS", "1" if request.param == "numba" else "0")
    with use_jit(request.param == "numba"):
        assert active_path() == request.param
        yield request.param


def _problem(n: int = 3000, m: int = 300, d: int = 3, sigma: float = 2.0, seed: int = 0,
             noise: float = 0.05):
    """Smooth target on a wide Gaussian kernel: K_mm's spectrum falls to ε = 1e-10 within a few
    dozen eigenvalues, so R⁻¹ reaches 1e5 and AᵀA has eigenvalues over 16 decades."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + noise * rng.standard_normal(n)
    kernel = GaussianKernel(sigma)
    setup = nystrom_setup(X, m, kernel, sampler="uniform", random_state=seed, epsilon=1e-10)
    return X, y, kernel, setup


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def test_plain_float32_gram_fails_where_the_refined_one_recovers_float64(path: str) -> None:
    X, y, kernel, setup = _problem()
    n, C, factor = X.shape[0], setup.centers, setup.factor
    H, Aty = nystrom_products(kernel, X, C, y, factor)
    H32, Aty32 = float32_gram_products(a_blocks(kernel, X, C, factor), y, C.shape[0])
    np.testing.assert_allclose(Aty32, Aty, rtol=1e-12)  # Aᵀy stays float64
    # the plain float32 Gram loses the small eigenvalues: float64's smallest are ~1e-19 (at
    # its rounding, ‖AᵀA‖ = 2.4e3), float32's are negative at ~1e-10 and wrong by far more
    # than themselves up to 1e-8 (its rounding, ~u₃₂·‖AᵀA‖ = 2.5e-4 in norm, sits there)
    s64, s32 = la.eigvalsh(H), la.eigvalsh(H32)
    assert s64.min() > -1e-16 and s32.min() < -1e-11
    small = s64 < 1e-8
    assert small.sum() > 100
    assert np.max(np.abs(s32[small] - s64[small]) / np.maximum(s64[small], 1e-16)) > 1e3
    lambdas = np.array([1e-8])  # λn = 3e-5: float64 solves this to 2e-10 (80-bit reference)
    exact = NystromSystem(factor, H, Aty).solve(lambdas, n)[0]
    plain = NystromSystem(factor, H32, Aty).solve(lambdas, n)[0]
    K = kernel(X, C)
    f64 = K @ exact
    assert _rel(K @ plain, f64) > 1e-6  # the plain float32 path fails the check below
    system = mixed_system(kernel, X, C, y, factor)
    try:
        mixed = system.solve(lambdas, n)[0]
    finally:
        system.close()
    assert system.info["precision"] == "mixed" and system.info["refine_unconverged"] == 0
    assert _rel(K @ mixed, f64) < 1e-8


def _long_double_reference(K: np.ndarray, R: np.ndarray, y: np.ndarray, lam_n: float
                           ) -> np.ndarray:
    """Training predictions ``A(AᵀA + λnI)⁻¹Aᵀy``, ``A = K R⁻¹``, in 80-bit extended precision
    (x87 long double: 2048 times float64's unit roundoff) by forward substitution and a
    Cholesky factorization written out here (LAPACK has no long double)."""
    L = np.longdouble
    K, R, y = K.astype(L), R.astype(L), y.astype(L)
    n, m = K.shape
    A = np.zeros((n, m), dtype=L)
    for j in range(m):
        A[:, j] = (K[:, j] - A[:, :j] @ R[:j, j]) / R[j, j]
    M = A.T @ A + L(lam_n) * np.eye(m, dtype=L)
    G = np.zeros_like(M)
    for j in range(m):
        G[j, j] = np.sqrt(M[j, j] - G[j, :j] @ G[j, :j])
        G[j + 1:, j] = (M[j + 1:, j] - G[j + 1:, :j] @ G[j, :j]) / G[j, j]
    z = A.T @ y
    for i in range(m):
        z[i] = (z[i] - G[i, :i] @ z[:i]) / G[i, i]
    for i in reversed(range(m)):
        z[i] = (z[i] - G[i + 1:, i] @ z[i + 1:]) / G[i, i]
    return (A @ z).astype(np.float64)


@pytest.mark.skipif(np.finfo(np.longdouble).eps > 1e-18, reason="long double is float64 here")
def test_mixed_is_as_accurate_as_float64_down_to_the_smallest_lambda() -> None:
    # where float64 itself is inexact (λn below its rounding magnified by R⁻¹), mixed
    # precision is off from an 80-bit reference by about as much, not more
    X, y, kernel, setup = _problem(n=1500, m=150)
    n, C, factor = X.shape[0], setup.centers, setup.factor
    K = kernel(X, C)
    lambdas = np.array([1e-8, 1e-10, 1e-12, 1e-14])
    exact = NystromSystem(factor, *nystrom_products(kernel, X, C, y, factor)).solve(lambdas, n)
    system = mixed_system(kernel, X, C, y, factor)
    try:
        mixed = system.solve(lambdas, n)[0]
    finally:
        system.close()
    assert system.info["precision"] == "mixed"
    for j, lam in enumerate(lambdas):
        ref = _long_double_reference(K, factor.R, y, lam * n)
        err64, err_mixed = _rel(K @ exact[0][:, j], ref), _rel(K @ mixed[:, j], ref)
        assert err_mixed <= 3 * err64 + 1e-9, (lam, err64, err_mixed)


def test_refinement_converges_over_the_whole_grid() -> None:
    X, y, kernel, setup = _problem(seed=1)
    n, C, factor = X.shape[0], setup.centers, setup.factor
    H, Aty = nystrom_products(kernel, X, C, y, factor)
    H32, _ = float32_gram_products(a_blocks(kernel, X, C, factor), y, C.shape[0])
    lambdas = np.logspace(-10, 0, 50)

    def normal(U: np.ndarray) -> np.ndarray:  # AᵀA U with float64's own AᵀA
        return H @ U

    betas, info = refine_path(H32, Aty, lambdas, n, normal, float(np.linalg.norm(y)))
    assert not info.unconverged and info.steps <= 3
    exact = NystromSystem(factor, H, Aty).solve(lambdas, n)[0]
    K = kernel(X, C)
    f64, mixed = K @ exact, K @ factor.solve(betas)
    # the energy-norm stopping rule bounds the training predictions' error by ~tol·‖y‖
    assert np.max(np.linalg.norm(mixed - f64, axis=0)) < 1e-8 * np.linalg.norm(y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mixed_equals_float64_on_random_problems(path: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, d = 1500, 4
    X, Xv, Xt = (rng.standard_normal((k, d)) for k in (n, 400, 300))
    f = lambda Z: np.sin(Z @ np.arange(1, d + 1) / d) + 0.3 * Z[:, 0] ** 2  # noqa: E731
    y, yv = f(X) + 0.1 * rng.standard_normal(n), f(Xv) + 0.1 * rng.standard_normal(400)
    lambdas = np.logspace(-12, 0, 40)
    fits = {p: NystromKRLS(sigma=1.5, m=150, lambdas=lambdas, random_state=seed,
                           precision=p).fit(X, y, Xv, yv) for p in ("float64", "mixed")}
    e64, emx = fits["float64"], fits["mixed"]
    assert emx.precision_info_["precision"] == "mixed"
    assert emx.best_lambda_ == e64.best_lambda_
    assert _rel(emx.predict(Xt), e64.predict(Xt)) < 1e-6
    np.testing.assert_allclose(emx.path_["val_rmse"], e64.path_["val_rmse"], rtol=1e-6)
    assert _rel(emx.predict_path(Xt), e64.predict_path(Xt)) < 1e-6


def test_mixed_refit_and_single_lambda_equal_float64() -> None:
    X, y, *_ = _problem(n=1200, m=120)
    Xv, yv, *_ = _problem(n=300, m=10, seed=5)
    for kwargs in ({"refit": True}, {}):
        e64 = NystromKRLS(sigma=2.0, m=120, random_state=0, **kwargs)
        emx = NystromKRLS(sigma=2.0, m=120, random_state=0, precision="mixed", **kwargs)
        if kwargs:
            e64.fit(X, y, Xv, yv)
            emx.fit(X, y, Xv, yv)
        else:  # no validation data: the solution at lam
            e64.set_params(lam=1e-7).fit(X, y)
            emx.set_params(lam=1e-7).fit(X, y)
        assert _rel(emx.predict(Xv), e64.predict(Xv)) < 1e-6


def test_an_unconverged_lambda_sends_the_path_back_to_float64() -> None:
    X, y, kernel, setup = _problem(n=1500, m=200)
    n, C, factor = X.shape[0], setup.centers, setup.factor
    lambdas = np.logspace(-12, 0, 13)
    system = mixed_system(kernel, X, C, y, factor, max_steps=0)
    try:
        alphas, _ = system.solve(lambdas, n)
    finally:
        system.close()
    assert system.info["precision"] == "float64"
    assert "above tolerance after 0 steps" in system.info["mixed_fallback"]
    exact = NystromSystem(factor, *nystrom_products(kernel, X, C, y, factor)).solve(lambdas, n)
    np.testing.assert_allclose(alphas, exact[0], rtol=1e-12, atol=0)


def test_the_cost_model_chooses_mixed_for_large_m_only() -> None:
    # Table 2 shapes: Ijcnn1 (m = 5000) gains, Adult (m = 1000) does not
    ijcnn1, adult = precision_costs(39992, 5000, 22, 100), precision_costs(26048, 1000, 123, 100)
    assert ijcnn1["mixed"] < 0.85 * ijcnn1["float64"]
    assert adult["mixed"] > adult["float64"]
    assert resolve_precision("auto", 26048, 1000, 123, 100, np.float64) == "float64"
    assert resolve_precision("auto", 4000, 2000, 10, 10, np.float64) == "mixed"
    # never for float32 kernels or a Dask cluster; an explicit choice is kept
    assert resolve_precision("auto", 4000, 2000, 10, 10, np.float32) == "float64"
    assert resolve_precision("auto", 4000, 2000, 10, 10, np.float64, "dask") == "float64"
    assert resolve_precision("mixed", 26048, 1000, 123, 100, np.float64) == "mixed"


def test_auto_runs_mixed_where_chosen_and_records_it() -> None:
    rng = np.random.default_rng(3)
    X, Xv = rng.standard_normal((2500, 3)), rng.standard_normal((300, 3))
    y, yv = np.sin(X[:, 0]), np.sin(Xv[:, 0])
    est = NystromKRLS(sigma=1.0, m=1200, lambdas=np.logspace(-10, 0, 5), random_state=0,
                      precision="auto").fit(X, y, Xv, yv)
    assert est.precision_info_["precision"] == "mixed"
    info = est.selection().info
    assert info["precision"] == "mixed" and info["refine_unconverged"] == 0
    small = NystromKRLS(sigma=1.0, m=50, random_state=0, precision="auto").fit(X, y, Xv, yv)
    assert small.selection().info["precision"] == "float64"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"precision": "half"}, "precision"),
    ({"precision": "mixed", "dtype": "float32"}, "needs dtype='float64'"),
    ({"precision": "mixed", "backend": "dask"}, "needs backend='local'"),
])
def test_bad_precision_is_refused(kwargs: dict, message: str) -> None:
    X = np.random.default_rng(0).standard_normal((50, 2))
    with pytest.raises(ValueError, match=message):
        NystromKRLS(m=10, **kwargs).fit(X, X[:, 0])


def test_config_schema_takes_precision(tmp_path: Path) -> None:
    body = ("name: p\ndataset: {name: cpusmall}\nalgorithms:\n"
            "  - {name: nkrls, m: 100, precision: %s}\nprotocol: {trials: 1}\n")
    good = tmp_path / "good.yaml"
    good.write_text(body % "mixed")
    assert load_experiment(good).algorithms[0].params["precision"] == "mixed"
    bad = tmp_path / "bad.yaml"
    bad.write_text(body % "half")
    with pytest.raises(ConfigError, match=r"algorithms\[0\]\.precision"):
        load_experiment(bad)


def test_mixed_needs_room_for_A(monkeypatch: pytest.MonkeyPatch) -> None:
    import kernreg.solvers.blocks.mixed_precision as mp

    monkeypatch.setattr(mp, "STORE_SHARE", 1e-12)  # no room for A = K_nm R⁻¹
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((400, 2)), rng.standard_normal(400)
    assert mp.resolve_precision("auto", 4000, 2000, 10, 10, np.float64) == "float64"
    with pytest.raises(MemoryError, match=r"precision='mixed' keeps A = K_nm R⁻¹ \(400 × 50"):
        NystromKRLS(m=50, precision="mixed").fit(X, y)
