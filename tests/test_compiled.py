"""The compiled kernel layer (kernreg.kernels.compiled): both paths — numba and the numpy
fallback — on the same inputs, against direct formulas and against each other; the path
selection (KERNREG_JIT, use_jit) and the thread budget."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from threadpoolctl import threadpool_limits

from kernreg.kernels import (
    GaussianKernel,
    LaplacianKernel,
    active_path,
    compiled,
    jit_enabled,
    use_jit,
)
from kernreg.kernels.compiled import (
    FLOAT32_RTOL,
    GAUSSIAN,
    HAVE_NUMBA,
    LAPLACIAN,
    distance_exp,
    normal_pass,
)
from reproduce.bench.floor import HostRates, noisy_host

PATHS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not HAVE_NUMBA, reason="numba is not installed: only the numpy path can run"))]
KERNELS = {"gaussian": GaussianKernel, "laplacian": LaplacianKernel}


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Run the test with the compiled path forced on or off (the compiled stored pass, opt-in
    by default, included)."""
    monkeypatch.setenv("KERNREG_JIT_PASS", "1" if request.param == "numba" else "0")
    with use_jit(request.param == "numba"):
        assert active_path() == request.param
        yield request.param


def _data(n: int = 230, m: int = 41, d: int = 9, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    C = np.vstack([X[:m // 2], rng.standard_normal((m - m // 2, d))])  # half of C from X
    return X, C


def _formula(name: str, X: np.ndarray, C: np.ndarray, sigma: float) -> np.ndarray:
    D = cdist(X, C)
    return np.exp(-D**2 / (2 * sigma**2)) if name == "gaussian" else np.exp(-D / sigma)


# ----------------------------------------------------------------- path selection
def test_environment_variable_and_override_select_the_path(monkeypatch) -> None:
    monkeypatch.setenv("KERNREG_JIT", "0")
    assert not jit_enabled() and active_path() == "numpy"
    monkeypatch.setenv("KERNREG_JIT", "off")
    assert active_path() == "numpy"
    monkeypatch.setenv("KERNREG_JIT", "1")
    assert active_path() == ("numba" if HAVE_NUMBA else "numpy")
    with use_jit(False):
        assert active_path() == "numpy"
        with use_jit(None):  # back to the environment
            assert active_path() == ("numba" if HAVE_NUMBA else "numpy")
    monkeypatch.delenv("KERNREG_JIT")
    assert active_path() == ("numba" if HAVE_NUMBA else "numpy")
    monkeypatch.setenv("KERNREG_JIT", " OFF ")  # any case, spaces ignored
    assert active_path() == "numpy"


def test_a_value_that_is_neither_on_nor_off_is_refused_even_under_use_jit(monkeypatch) -> None:
    from kernreg.errors import ConfigError

    monkeypatch.setenv("KERNREG_JIT", "fasle")  # once read as "on"
    for override in (None, True, False):
        with use_jit(override), pytest.raises(ConfigError, match=r"KERNREG_JIT='fasle'"):
            active_path()
    monkeypatch.setenv("KERNREG_JIT_PASS", "2")
    with pytest.raises(ConfigError, match=r"KERNREG_JIT_PASS='2'"):
        compiled.compiled_pass_enabled(1)


def test_missing_numba_falls_back_to_numpy(monkeypatch) -> None:
    monkeypatch.setattr(compiled, "HAVE_NUMBA", False)
    assert active_path() == "numpy"
    X, C = _data()
    np.testing.assert_allclose(GaussianKernel(1.5)(X, C), _formula("gaussian", X, C, 1.5),
                               rtol=1e-12)


# ----------------------------------------------------------------- block evaluation
@pytest.mark.parametrize("name", ["gaussian", "laplacian"])
@pytest.mark.parametrize("sparse", [False, True])
def test_blocks_equal_the_formula(path, name, sparse) -> None:
    X, C = _data()
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0)) if sparse else X
    Xd = Xs.toarray() if sparse else X
    kernel = KERNELS[name](1.7, memory_budget=20 * C.shape[0] * 8)  # 20-row blocks
    K = kernel(Xs, C)
    np.testing.assert_allclose(K, _formula(name, Xd, C, 1.7), rtol=1e-12 if name == "gaussian"
                               else 1e-7)  # Laplacian: √ of the expansion's rounding
    if name == "laplacian" and not sparse:
        # centers drawn from X: coincident points give exactly 1 on both paths
        assert np.all(K[np.arange(C.shape[0] // 2), np.arange(C.shape[0] // 2)] == 1.0)


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
@pytest.mark.parametrize("name", ["gaussian", "laplacian"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_compiled_blocks_equal_numpy_blocks(name, dtype) -> None:
    X, C = _data(n=301, m=57, d=13, seed=3)
    kernel = KERNELS[name](2.3, dtype=dtype, memory_budget=64 * C.shape[0] * 8)
    with use_jit(True):
        fast = kernel(X, C)
    with use_jit(False):
        ref = kernel(X, C)
    assert fast.dtype == ref.dtype == np.dtype(dtype)
    rtol = 1e-12 if dtype == "float64" else FLOAT32_RTOL
    np.testing.assert_allclose(fast, ref, rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_exponential_over_its_whole_range(path, dtype) -> None:
    """The compiled exponential (polynomial + exponent bits) against numpy's, from 0 down
    through the subnormal range to 0: a few ulp where the result is normal."""
    low = -760.0 if dtype == "float64" else -110.0
    a = np.linspace(low, 0.0, 100_001).astype(dtype)
    out = np.zeros((1, a.size), dtype=dtype)  # cross products x·y = 0
    # s = ‖x‖² + ‖y‖² − 2x·y = −a with ‖x‖² = 0, ‖y‖² = −a: the block becomes exp(a)
    distance_exp(out, np.zeros(1), -a, GAUSSIAN, 1.0)
    ref = np.exp(a.astype(np.float64))
    tiny = np.finfo(dtype).tiny
    normal = ref >= tiny
    eps = np.finfo(dtype).eps
    np.testing.assert_allclose(out[0, normal], ref[normal], rtol=8 * eps, atol=0)
    assert np.all(np.abs(out[0, ~normal] - ref[~normal]) <= 2 * tiny * eps)
    assert out[0, -1] == 1.0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
def test_matern_profiles_equal_the_formula(path, nu, dtype) -> None:
    """The half-integer Matérn profiles, for the Matérn kernel's block evaluation."""
    X, C = _data(n=120, m=30, d=5, seed=7)
    sigma = 1.9
    out = (X @ C.T).astype(dtype)
    xx, yy = np.einsum("ij,ij->i", X, X), np.einsum("ij,ij->i", C, C)
    profile = {0.5: LAPLACIAN, 1.5: compiled.MATERN32, 2.5: compiled.MATERN52}[nu]
    noise = 4.0 * np.finfo(dtype).eps * (xx.max() + yy.max())
    distance_exp(out, xx, yy, profile, np.sqrt(2 * nu) / sigma, noise)
    t = np.sqrt(2 * nu) * cdist(X, C) / sigma
    poly = {0.5: 1.0, 1.5: 1.0 + t, 2.5: 1.0 + t + t**2 / 3.0}[nu]
    ref = poly * np.exp(-t)
    # the √ of the expansion's rounding (≈ √eps·‖x‖ in t) sets the tolerance
    rtol = 1e-7 if dtype == "float64" else 3e-3
    np.testing.assert_allclose(out, ref, rtol=rtol)
    assert np.all(out[np.arange(15), np.arange(15)] == 1.0)  # coincident points


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
@pytest.mark.parametrize("profile", [GAUSSIAN, LAPLACIAN, compiled.MATERN32, compiled.MATERN52])
def test_profiles_agree_across_paths(profile) -> None:
    X, C = _data(n=90, m=33, d=6, seed=8)
    xx, yy = np.einsum("ij,ij->i", X, X), np.einsum("ij,ij->i", C, C)
    results = []
    for jit in (True, False):
        out = X @ C.T
        with use_jit(jit):
            results.append(distance_exp(out, xx, yy, profile, 0.7, 1e-14))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=0)


def test_distance_exp_checks_its_profile() -> None:
    with pytest.raises(ValueError, match="profile"):
        distance_exp(np.zeros((2, 2)), np.zeros(2), np.zeros(2), 7, 1.0)


# ----------------------------------------------------------------- the gradient pass
def _reference_pass(K: np.ndarray, beta: np.ndarray, y: np.ndarray):
    K = K.astype(np.float64)
    r = K @ beta - y
    return K.T @ r, r


@pytest.mark.parametrize("k", [1, 16])
@pytest.mark.parametrize("stored", [True, False])
def test_normal_pass_equals_two_gemms(path, k, stored) -> None:
    X, C = _data(n=517, m=43, d=7, seed=5)
    kernel = GaussianKernel(2.0, memory_budget=100 * C.shape[0] * 8)  # 100-row blocks
    rng = np.random.default_rng(1)
    beta = rng.standard_normal((C.shape[0], k))
    y = rng.standard_normal((X.shape[0], k))
    with use_jit(False):
        K = kernel(X, C)
    g_ref, r_ref = _reference_pass(K, beta, y)
    if stored:
        g, r = normal_pass(K, beta, y)
    else:  # K_nm evaluated block by block and never stored
        g, r = kernel.normal_matvec(X, C, beta, y)
    np.testing.assert_allclose(g, g_ref, rtol=1e-10, atol=1e-10 * np.abs(g_ref).max())
    np.testing.assert_allclose(r, r_ref, rtol=1e-10, atol=1e-10 * np.abs(r_ref).max())


def test_normal_pass_over_row_blocks_and_vector_shapes(path) -> None:
    rng = np.random.default_rng(2)
    K = rng.random((300, 20))
    beta, y = rng.standard_normal(20), rng.standard_normal(300)
    g_ref, r_ref = _reference_pass(K, beta, y)
    blocks = [(slice(s, min(s + 70, 300)), K[s:s + 70]) for s in range(0, 300, 70)]
    g, r = normal_pass(blocks, beta, y)
    assert g.shape == (20,) and r.shape == (300,)
    np.testing.assert_allclose(g, g_ref, rtol=1e-12)
    np.testing.assert_allclose(r, r_ref, rtol=1e-12)
    # a 1-D y is shared by the columns of beta; y None is zero (the pass is KᵀK β)
    B = rng.standard_normal((20, 3))
    g2, _ = normal_pass(K, B, y)
    np.testing.assert_allclose(g2, _reference_pass(K, B, y[:, None])[0], rtol=1e-12)
    np.testing.assert_allclose(normal_pass(K, B)[0], K.T @ (K @ B), rtol=1e-12)
    # grad is added to: a running sum over blocks
    acc = np.ones((20, 3))
    normal_pass(K, B, grad=acc)
    np.testing.assert_allclose(acc, 1.0 + K.T @ (K @ B), rtol=1e-12)


@pytest.mark.parametrize("k", [1, 16])
def test_float32_storage_accumulates_in_float64(path, k) -> None:
    """The compiled pass widens float32 K in registers (float64 products); the numpy fallback
    multiplies in float32 and sums in float64."""
    rng = np.random.default_rng(4)
    K = rng.random((400, 30)).astype(np.float32)
    beta, y = rng.standard_normal((30, k)), rng.standard_normal((400, k))
    g_ref, r_ref = _reference_pass(K, beta, y)
    g, r = normal_pass(K, beta, y)
    rtol = 1e-10 if path == "numba" else FLOAT32_RTOL
    np.testing.assert_allclose(g, g_ref, rtol=rtol, atol=rtol * np.abs(g_ref).max())
    np.testing.assert_allclose(r, r_ref, rtol=rtol, atol=rtol * np.abs(r_ref).max())


@pytest.mark.parametrize("rows", [*range(1, 9), *range(128, 137)])  # 1 part, 2 parts
def test_one_column_pass_for_every_row_remainder(path, rows: int) -> None:
    """The one-column compiled loop takes four rows at a time per thread: every count of
    left-over rows, float64 and float32 storage, one and two threads."""
    rng = np.random.default_rng(rows)
    for dtype in (np.float64, np.float32):
        K = rng.random((rows, 37)).astype(dtype)
        beta, y = rng.standard_normal(37), rng.standard_normal(rows)
        g_ref, r_ref = _reference_pass(K, beta, y)
        for threads in (1, 2):
            g, r = normal_pass(K, beta, y, threads=threads)
            rtol = 1e-12 if path == "numba" or dtype == np.float64 else FLOAT32_RTOL
            np.testing.assert_allclose(g, g_ref, rtol=rtol, atol=rtol * np.abs(g_ref).max())
            np.testing.assert_allclose(r, r_ref, rtol=rtol, atol=rtol * np.abs(r_ref).max())


def test_normal_pass_shape_errors_name_the_argument() -> None:
    K = np.ones((10, 4))
    with pytest.raises(ValueError, match="beta"):
        normal_pass(K, np.ones(5), np.ones(10))
    with pytest.raises(ValueError, match="y"):
        normal_pass(K, np.ones(4), np.ones(9))
    with pytest.raises(ValueError, match="columns"):
        normal_pass(K, np.ones((4, 3)), np.ones((10, 2)))
    with pytest.raises(ValueError, match="block"):
        normal_pass([(slice(0, 5), K[:4])], np.ones(4), np.ones(5))
    kernel = GaussianKernel(1.0)
    with pytest.raises(ValueError, match="y must have shape"):
        kernel.normal_matvec(np.ones((10, 2)), np.ones((4, 2)), np.ones((4, 3)), np.ones((10, 2)))


# ----------------------------------------------------------------- threads
@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
def test_threads_follow_the_blas_budget_and_are_restored() -> None:
    import numba

    before = numba.get_num_threads()
    with threadpool_limits(limits=1):
        assert compiled.compiled_threads() == 1
    assert 1 <= compiled.compiled_threads() <= compiled.max_threads()
    with use_jit(True):
        normal_pass(np.ones((200, 5)), np.ones(5), np.ones(200), threads=1)
        distance_exp(np.zeros((3, 3)), np.zeros(3), np.zeros(3), LAPLACIAN, 1.0, threads=1)
    assert numba.get_num_threads() == before


# ----------------------------------------------------------------- floor helpers
def test_noisy_host_names_the_rates_that_moved() -> None:
    before = HostRates(gemm=100e9, stream=20e9, exp=2e9)
    assert noisy_host(before, HostRates(gemm=85e9, stream=23e9, exp=1.8e9)) == []
    assert noisy_host(before, HostRates(gemm=75e9, stream=20e9, exp=2.5e9)) == ["gemm", "exp"]
    assert noisy_host(before, HostRates(gemm=100e9, stream=20e9)) == []  # exp not measured


def test_the_compiled_stored_pass_runs_for_one_column(monkeypatch: pytest.MonkeyPatch) -> None:
    """By default the stored pass runs its compiled loop for one right-hand side and BLAS's
    products for several (measured faster for each); KERNREG_JIT_PASS=1 takes the compiled
    loop for any number, 0 for none; either way the result is the same."""
    from kernreg.kernels.compiled import compiled_pass_enabled

    monkeypatch.delenv("KERNREG_JIT_PASS", raising=False)
    assert compiled_pass_enabled(1) and not compiled_pass_enabled(16)
    monkeypatch.setenv("KERNREG_JIT_PASS", "1")
    assert compiled_pass_enabled(1) and compiled_pass_enabled(16)
    monkeypatch.setenv("KERNREG_JIT_PASS", "0")
    assert not compiled_pass_enabled(1) and not compiled_pass_enabled(16)
    monkeypatch.delenv("KERNREG_JIT_PASS")
    rng = np.random.default_rng(0)
    K, beta, y = rng.random((50, 7)), rng.random(7), rng.random(50)
    with_jit = normal_pass(K, beta, y)[0]
    monkeypatch.setenv("KERNREG_JIT_PASS", "0")
    np.testing.assert_allclose(normal_pass(K, beta, y)[0], with_jit, rtol=1e-12)


# ----------------------------------------------------------------- warm-up
WARM_UP_THEN_FIT = """
import json, sys
import numpy as np
from kernreg.kernels.compiled import compiled_signatures, warm_up
from kernreg.solvers import NystromKRLS, Nytro

assert compiled_signatures() == {}  # a fresh process: nothing loaded yet
ready = warm_up()
warmed = compiled_signatures()
rng = np.random.default_rng(0)
X = rng.uniform(-1, 1, size=(300, 4))
y = X[:, 0] - X[:, 1] ** 2
for dtype in ("float64", "float32"):
    for strategy in ("memory", "blocked", "gram"):
        Nytro(sigma=0.8, m=40, max_iter=20, strategy=strategy, validation_strategy=strategy,
              dtype=dtype, random_state=1).fit(X[:200], y[:200], X[200:], y[200:])
    Nytro(kernel="laplacian", sigma=0.8, m=40, max_iter=20, dtype=dtype,
          random_state=1).fit(X[:200], y[:200], X[200:], y[200:])
NystromKRLS(sigma=0.8, m=40, random_state=1).fit(X[:200], y[:200], X[200:], y[200:])
print(json.dumps({"ready": ready, "warmed": warmed, "after_fits": compiled_signatures(),
                  "numba_imported": sys.modules.get("numba") is not None}))
"""


def _fresh_process(code: str, **env: str) -> dict:
    import json
    import os
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
def test_warm_up_loads_every_compiled_function_that_fits_call() -> None:
    """In a fresh process warm_up() leaves each compiled function with its signatures loaded
    (or compiled), and fits of both dtypes, every strategy, Gaussian and Laplacian, then add
    none: nothing is compiled inside a timed fit."""
    result = _fresh_process(WARM_UP_THEN_FIT, KERNREG_JIT="1", OPENBLAS_NUM_THREADS="1")
    assert result["ready"]
    warmed = result["warmed"]
    # one signature per dtype; the several-column loop only where KERNREG_JIT_PASS takes it
    assert warmed["distance_exp_f64"] == warmed["distance_exp_f32"] == 1
    assert warmed["normal_pass_single"] == 2 and warmed["normal_pass_kernel"] == 0
    assert result["after_fits"] == warmed


@pytest.mark.parametrize("switch", ["KERNREG_JIT", "hidden"])
def test_warm_up_does_nothing_with_the_compiled_path_off(switch: str) -> None:
    """KERNREG_JIT=0, or numba not importable: warm_up() imports nothing, loads nothing, and
    the fits run on numpy."""
    code = WARM_UP_THEN_FIT
    if switch == "hidden":
        code = "import sys; sys.modules['numba'] = None\n" + code
    result = _fresh_process(code, KERNREG_JIT="0" if switch == "KERNREG_JIT" else "1")
    assert result == {"ready": False, "warmed": {}, "after_fits": {}, "numba_imported": False}
