"""Peak allocations of the n × n solvers stay at what the memory preflight assumes.

numpy reports its allocations to ``tracemalloc``, so the peak of a fit is measured exactly
(LAPACK work arrays are numpy arrays allocated by scipy's wrappers).
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest

from kernreg.solvers import KOLS, KRLS, KernelLandweber
from kernreg.solvers.blocks.linalg import eigh_inplace, sym, sym_inplace

F64 = 8
BLOCK = 2**18  # bytes per kernel block: small, so that n × n arrays dominate the peak


def _peak(fn: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("n", [1, 7, 1024, 2500])
def test_sym_inplace_equals_sym_without_a_copy(n: int) -> None:
    M = np.random.default_rng(n).standard_normal((n, n))
    expected = sym(M)
    peak = _peak(lambda: sym_inplace(M, block=512))
    np.testing.assert_array_equal(M, expected)
    assert peak <= 3 * 512 * 512 * F64


def test_eigh_inplace_matches_eigh_and_copies_nothing() -> None:
    A = np.random.default_rng(0).standard_normal((600, 600))
    K = A @ A.T
    s_ref, U_ref = np.linalg.eigh(K)
    work = K.copy()
    peak = _peak(lambda: eigh_inplace(work))
    s, U = eigh_inplace(K.copy())
    np.testing.assert_allclose(s, s_ref, rtol=1e-9, atol=1e-9 * s_ref[-1])
    np.testing.assert_allclose(np.abs(U.T @ U_ref).max(axis=0), 1.0, rtol=1e-8)
    assert peak < 1.5 * K.nbytes  # eigenvectors (n²) + LAPACK workspace, no copy of K


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(1)
    X, X_val = rng.uniform(-1, 1, (1500, 4)), rng.uniform(-1, 1, (300, 4))
    return X, np.sin(3 * X[:, 0]), X_val, np.sin(3 * X_val[:, 0])


@pytest.mark.parametrize(
    ("make", "limit"),
    [
        # K + eigenvectors (the preflight allows 3n² + the validation kernel)
        (lambda: KRLS(sigma=0.5, lambdas=np.logspace(-9, 0, 10), memory_budget=BLOCK),
         lambda n, v: 2.1 * n * n),
        (lambda: KOLS(sigma=0.5, memory_budget=BLOCK), lambda n, v: 2.1 * n * n),
        # K and the validation kernel, nothing more
        (lambda: KernelLandweber(sigma=0.5, max_iter=20, memory_budget=BLOCK),
         lambda n, v: 1.05 * (n * n + v * n)),
    ],
    ids=["krls", "kols", "es"],
)
def test_full_kernel_solvers_peak(data, make, limit) -> None:
    X, y, X_val, y_val = data
    peak = _peak(lambda: make().fit(X, y, X_val, y_val))
    assert peak <= limit(len(X), len(X_val)) * F64 + 4 * BLOCK
