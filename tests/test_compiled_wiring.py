"""The solvers' hot spots through the compiled layer (issue 30, phase 2), on both paths (numba
and the numpy fallback): a stored K_nm's gradient pass and normal product, the Matérn blocks,
several right-hand sides per read (PCG's and the Gram strategy's validation) giving exactly the
one-vector results, and whole fits equal with the compiled path on and off."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.gaussian_process.kernels import Matern

from kernreg.kernels import GaussianKernel, make_kernel, use_jit
from kernreg.kernels.compiled import HAVE_NUMBA
from kernreg.solvers import KernelLandweber, NystromKRLS, NystromPCG, Nytro
from kernreg.solvers.algorithms import pcg as pcg_module
from kernreg.solvers.blocks import cg as cg_module
from kernreg.solvers.blocks.dask_rows import _Part
from kernreg.solvers.blocks.knm import knm_normal_product, make_knm
from kernreg.solvers.blocks.rows import RowProducts

PATHS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not HAVE_NUMBA, reason="numba is not installed: only the numpy path can run"))]


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Run the test with the compiled path forced on or off (the compiled stored pass, opt-in
    by default, included)."""
    monkeypatch.setenv("KERNREG_JIT_PASS", "1" if request.param == "numba" else "0")
    with use_jit(request.param == "numba"):
        yield request.param


@pytest.fixture(scope="module")
def problem() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(30)
    X, X_val, X_test = (rng.uniform(-1, 1, size=(n, 4)) for n in (500, 160, 120))
    f = lambda Z: np.sin(3 * Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2 - Z[:, 3]  # noqa: E731
    y, y_val = f(X) + 0.1 * rng.standard_normal(500), f(X_val) + 0.1 * rng.standard_normal(160)
    return X, y, X_val, y_val, X_test


def _gauss(X: np.ndarray, C: np.ndarray, sigma: float) -> np.ndarray:
    return np.exp(-cdist(X, C, "sqeuclidean") / (2 * sigma**2))


# ----------------------------------------------------------------- stored K_nm products
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("k", [1, 5])
def test_stored_knm_pass_and_normal_product_equal_dense(path, problem, dtype, k) -> None:
    X, y = problem[0], problem[1]
    C = X[::10]
    K = _gauss(X, C, 0.9)
    rng = np.random.default_rng(1)
    v = rng.standard_normal((C.shape[0], k))[:, 0] if k == 1 else \
        rng.standard_normal((C.shape[0], k))
    knm = make_knm("memory", GaussianKernel(0.9, dtype=dtype), X, C)
    # float32 storage: the compiled pass multiplies the float32 values in float64; the
    # numpy fallback in float32 (both sum in float64)
    tol = 1e-11 if dtype == "float64" else 2e-5
    grad, resid = knm.normal_matvec(v, y)
    r = K @ v - (y if k == 1 else y[:, None])
    scale = np.abs(K.T @ r).max()
    np.testing.assert_allclose(resid, r, rtol=tol, atol=tol * np.abs(r).max())
    np.testing.assert_allclose(grad, K.T @ r, rtol=tol, atol=tol * scale)
    normal = knm_normal_product(knm)(v)
    np.testing.assert_allclose(normal, K.T @ (K @ v), rtol=tol,
                               atol=tol * np.abs(K.T @ (K @ v)).max())
    # the stored and the re-evaluated strategies agree
    blocked = make_knm("blocked", GaussianKernel(0.9, dtype=dtype, memory_budget=8 * 50 * 37),
                       X, C)
    np.testing.assert_allclose(knm_normal_product(blocked)(v), normal, rtol=10 * tol,
                               atol=10 * tol * np.abs(normal).max())


def test_a_dask_part_uses_the_same_pass(path, problem) -> None:
    """A cluster part's products (computed on its worker) are the local operator's."""
    X, y = problem[0], problem[1]
    C = X[::10]
    kernel = GaussianKernel(0.9)
    part = _Part.build(X, y, kernel, C, "memory")
    U = np.random.default_rng(2).standard_normal((C.shape[0], 3))
    K = _gauss(X, C, 0.9)
    np.testing.assert_allclose(part.normal(U), K.T @ (K @ U), rtol=1e-11)
    np.testing.assert_allclose(part.gradient(U[:, 0]), K.T @ (K @ U[:, 0] - y), rtol=1e-10,
                               atol=1e-10 * np.abs(K.T @ y).max())


# ----------------------------------------------------------------- Matérn blocks
@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matern_blocks_through_the_fused_pass(path, nu, dtype) -> None:
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(150, 6)), rng.normal(size=(40, 6))
    Y[:10] = X[:10]  # coincident points: exactly 1
    kernel = make_kernel("matern", 1.3, nu=nu, dtype=dtype, memory_budget=8 * 40 * 16)
    K = kernel(X, Y)
    assert K.dtype == np.dtype(dtype)
    ref = Matern(length_scale=1.3, nu=nu)(X, Y)
    np.testing.assert_allclose(K, ref, rtol=0, atol=1e-12 if dtype == "float64" else 2e-3)
    np.testing.assert_array_equal(K[np.arange(10), np.arange(10)], 1.0)
    # the blocks of the blocked routines are the same values
    for sl, block in kernel.blocks(X, Y):
        np.testing.assert_array_equal(block, K[sl])


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
def test_matern_blocks_agree_across_paths(nu) -> None:
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(120, 5)), rng.normal(size=(33, 5))
    kernel = make_kernel("matern", 0.9, nu=nu)
    with use_jit(True):
        fast = kernel(X, Y)
    with use_jit(False):
        ref = kernel(X, Y)
    np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=0)


# ----------------------------------------------------------------- several vectors per read
def test_gram_validation_scores_columns_in_one_product(path, problem) -> None:
    """The Gram strategy's validation error of k iterates in one GEMM with G_v equals each
    iterate's own, and the RMSE of the explicit predictions."""
    X, _, X_val, y_val = problem[:4]
    C = X[::10]
    rows = RowProducts(GaussianKernel(0.9), "local", lambda close: None)
    score, chunk, _ = rows.validation(X_val, y_val, C, "gram")
    assert chunk > 1
    A = np.random.default_rng(5).standard_normal((C.shape[0], 7)) * 0.1
    together = score(A)
    alone = np.concatenate([score(A[:, [j]]) for j in range(A.shape[1])])
    np.testing.assert_allclose(together, alone, rtol=1e-12)
    explicit = np.sqrt(((_gauss(X_val, C, 0.9) @ A - y_val[:, None]) ** 2).mean(axis=0))
    np.testing.assert_allclose(together, explicit, rtol=1e-8)


@pytest.mark.parametrize("rule", ["window_linear_fitting", "none"])
@pytest.mark.parametrize("validation_strategy", ["memory", "blocked"])
def test_pcg_chunked_validation_equals_one_iterate_per_read(path, problem, monkeypatch, rule,
                                                            validation_strategy) -> None:
    """PCG scores its iterates several per read of K_vm where the rule cannot fire among them:
    the same path, selection and model as one read per iterate, and no more CG steps."""
    X, y, X_val, y_val, X_test = problem
    kw = {"sigma": 0.8, "m": 50, "lambdas": np.logspace(-9, -1, 5), "max_iter": 18,
          "stopping_rule": rule, "window": 4, "random_state": 3,
          "validation_strategy": validation_strategy}
    reads = []
    matvec = pcg_module.make_knm

    def counting_make_knm(*args, **kwargs):
        knm = matvec(*args, **kwargs)
        if args[2] is X_val:  # (strategy, kernel, rows, centers)
            inner = knm.matvec
            knm.matvec = lambda a: (reads.append(a.shape[-1] if a.ndim == 2 else 1),
                                    inner(a))[1]
        return knm

    monkeypatch.setattr(pcg_module, "make_knm", counting_make_knm)
    chunked = NystromPCG(**kw).fit(X, y, X_val, y_val)
    chunked_reads, reads[:] = list(reads), []
    monkeypatch.setattr(cg_module, "VALIDATION_CHUNK", 1)  # the CG loop's block (blocks/cg.py)
    single = NystromPCG(**kw).fit(X, y, X_val, y_val)
    assert set(reads) == {1} and len(chunked_reads) < len(reads)
    assert sum(chunked_reads) == sum(reads)  # every iterate scored once, none in vain
    assert (chunked.best_lambda_, chunked.best_iter_, chunked.n_iter_) == \
        (single.best_lambda_, single.best_iter_, single.n_iter_)
    np.testing.assert_array_equal(chunked.path_["iterations"], single.path_["iterations"])
    np.testing.assert_allclose(chunked.path_["val_rmse"], single.path_["val_rmse"], rtol=1e-12)
    np.testing.assert_allclose(chunked.predict(X_test), single.predict(X_test), rtol=1e-10)


# ----------------------------------------------------------------- whole fits, both paths
@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
@pytest.mark.parametrize("make", [
    lambda: NystromKRLS(sigma=0.8, m=60, lambdas=np.logspace(-10, 0, 21), random_state=1),
    lambda: Nytro(sigma=0.8, m=60, max_iter=120, strategy="memory",
                  validation_strategy="memory", random_state=1),
    lambda: Nytro(sigma=0.8, m=60, max_iter=120, strategy="blocked",
                  validation_strategy="gram", random_state=1),
    lambda: NystromPCG(sigma=0.8, m=60, lambdas=np.logspace(-8, -2, 4), random_state=1),
    lambda: KernelLandweber(sigma=0.8, max_iter=60),
    lambda: Nytro(kernel="matern32", sigma=0.8, m=60, max_iter=80, random_state=1),
], ids=["nkrls", "nytro-memory", "nytro-blocked-gram", "pcg", "es", "nytro-matern32"])
def test_fits_equal_with_the_compiled_path_on_and_off(problem, make) -> None:
    """float64: the same selection and predictions to 1e-10 relative, numba or numpy."""
    X, y, X_val, y_val, X_test = problem
    fits = {}
    for jit in (True, False):
        with use_jit(jit):
            est = make().fit(X, y, X_val, y_val)
            fits[jit] = (est.predict(X_test), getattr(est, "best_lambda_", None),
                         getattr(est, "best_iter_", None))
    (pred_on, lam_on, t_on), (pred_off, lam_off, t_off) = fits[True], fits[False]
    assert (lam_on, t_on) == (lam_off, t_off)
    np.testing.assert_allclose(pred_on, pred_off, rtol=1e-10,
                               atol=1e-10 * np.abs(pred_off).max())


@pytest.mark.parametrize("given,first", [(None, "kernreg"), ("28", "kernreg"),
                                         (None, "numpy")])
def test_openblas_threads_sleep_after_a_call_unless_the_user_says(given, first) -> None:
    """``import kernreg`` before numpy sets OPENBLAS_THREAD_TIMEOUT to 4 (OpenBLAS reads it as
    it loads); a value already in the environment wins; after numpy it is left alone (OpenBLAS
    has read it); results record it."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if given is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = given
    code = (f"import {first}, kernreg, os; "
            "from kernreg.experiment.resources import environment; "
            "print(os.environ.get('OPENBLAS_THREAD_TIMEOUT', 'unset'), "
            "environment()['openblas_thread_timeout'])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    expected = given or ("4" if first == "kernreg" else "unset")
    assert out == [expected, expected]


NO_NUMBA_RUN = """
import json, sys
sys.modules["numba"] = None  # as if not installed: `import numba` raises ImportError
from pathlib import Path
from kernreg.config import load_experiment
from kernreg.experiment import run_experiment

config = Path(sys.argv[1])
table = run_experiment(load_experiment(config), config.parent / "out", progress=False)
manifest = json.loads((config.parent / "out" / "nonumba" / "manifest.json").read_text())
print(json.dumps({"kernel_path": sorted(set(table["kernel_path"])),
                  "trials": len(table),
                  "numba": manifest["environment"]["numba"],
                  "at_start": manifest["environment"]["kernel_path_at_start"],
                  "loaded": sorted(m for m in ("numba", "llvmlite")
                                   if sys.modules.get(m) is not None)}))
"""


def test_a_run_without_numba_uses_numpy_and_records_it(tmp_path) -> None:
    """numba is an extra: with it not importable a run (Gaussian NYTRO and NKRLS, whose blocks
    and gradient passes are the compiled layer's) completes on the numpy path, silently, and
    its records say so — each trial's kernel_path and the manifest's numba and
    kernel_path_at_start."""
    import json
    import subprocess
    import sys

    config = tmp_path / "nonumba.yaml"
    config.write_text("""
name: nonumba
dataset: {name: breast_cancer, n_train: 200, n_test: 100}
algorithms:
  - {name: nkrls, m: 30, lambdas: {logspace: [1e-6, 1e-1, 4]}}
  - {name: nytro, m: 30, max_iter: 20}
protocol: {trials: 2}
budget: {blas_threads: 1}
""")
    run = subprocess.run([sys.executable, "-c", NO_NUMBA_RUN, str(config)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "numba" not in run.stderr  # no warning: a missing extra is no fault
    assert json.loads(run.stdout.splitlines()[-1]) == {
        "kernel_path": ["numpy"], "trials": 4, "numba": "not installed", "at_start": "numpy",
        "loaded": []}
