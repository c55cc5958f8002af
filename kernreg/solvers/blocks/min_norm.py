"""The minimum-norm solution ``α = K⁺ y`` of a PSD kernel system under MATLAB ``pinv``'s rank
cut-off, by eigendecomposition or by pivoted Cholesky.

Both keep the eigen-directions of ``K`` whose eigenvalue exceeds ``τ = rcond · λ_max(K)``
(``rcond = n · eps`` by default, MATLAB ``pinv``'s tolerance).

- :func:`eigh_min_norm`: ``K = U S Uᵀ``, ``α = U_k S_k⁻¹ U_kᵀ y`` over the kept eigenvalues (a
  full symmetric eigendecomposition with vectors: ``4n³/3`` flops of tridiagonal reduction,
  half of them matrix–vector products, and about ``2n³`` more for the eigenvectors).
- :func:`pivoted_cholesky_min_norm`: LAPACK's blocked pivoted Cholesky (``dpstrf``) stopped
  once the largest residual diagonal is at most ``τ``, ``Pᵀ K P ≈ L Lᵀ`` with
  ``L = [L₁₁; L₂₁]`` of ``r`` columns (``n³/3 − (n − r)³/3`` flops), then the minimum-norm
  solution on ``L``'s range, ``α = P (L Lᵀ)⁺ Pᵀ y``. With ``B = [I; M]``, ``M = L₂₁ L₁₁⁻¹``
  (one triangular solve, ``(n − r) r²`` flops): ``L Lᵀ = B C Bᵀ`` with ``C = L₁₁ L₁₁ᵀ`` and

      (L Lᵀ)⁺ = B (BᵀB)⁻¹ C⁻¹ (BᵀB)⁻¹ Bᵀ,   BᵀB = I + MᵀM,

  ``(BᵀB)⁻¹`` applied through the smaller of ``I + MᵀM`` (``r × r``) and ``I + MMᵀ``
  (``(n − r)²``, by Woodbury). ``BᵀB`` has its eigenvalues in ``[1, 1 + ‖M‖²]``: only the
  solves with ``L₁₁`` see ``K``'s conditioning, and with ``κ(L₁₁) = √κ(K₁₁)``. A QR of ``L``
  would cost ``2nr² − 2r³/3`` flops (three factorizations when ``r ≈ n``); the normal
  equations ``α = L (LᵀL)⁻² Lᵀ y`` would square ``κ(K)``. At full rank ``α = P L⁻ᵀ L⁻¹ Pᵀ y``.

When the two agree. ``K = L Lᵀ + S`` (in pivot order) with ``S`` the Schur complement, PSD.

- kept: ``K₁₁ = L₁₁ L₁₁ᵀ`` is the principal submatrix of ``K`` on the pivots, so by
  interlacing ``λ_r(K) ≥ λ_min(K₁₁) = 1 / ‖K₁₁⁻¹‖₂ ≥ 1 / ‖K₁₁⁻¹‖₁``;
- dropped: ``K − S`` has rank ``r``, so ``λ_{r+1}(K) ≤ ‖S‖₂ ≤ tr S`` (Weyl).

If ``1 / ‖K₁₁⁻¹‖₁ > τ ≥ tr S``, the eigenvalue rule keeps exactly ``r``
eigenvalues (:attr:`MinNormSolution.certified`), and the two answers differ only by the
perturbation ``S`` — zero, to rounding, for a full-rank ``K`` or an exactly rank-deficient one
(duplicated rows, a linear kernel with ``d < n``). ``‖K₁₁⁻¹‖₁`` is LAPACK's condition
estimate from the factor (``dpocon``: an estimate from below, usually exact or within a small
factor, so the test is not a proof; the 1-norm itself overestimates ``‖K₁₁⁻¹‖₂`` by at most
``√r``, measured 1.6–4× on Adult, Insurance and cpuSmall). Without the
gap — a spectrum that decays smoothly through ``τ`` — the two rules keep different
directions and the predictions differ at order one (docs/solvers.md): :func:`min_norm_solve`
then falls back to the eigendecomposition.

On a device (a torch ``K``: :mod:`kernreg.backend`) :func:`min_norm_solve` always takes the
eigendecomposition, there (cuSOLVER on a GPU): PyTorch has no pivoted Cholesky.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.linalg as la
from array_api_compat import device as device_of
from array_api_compat import to_device
from scipy.linalg import blas, lapack

from kernreg.backend.linalg import is_host, namespace
from kernreg.solvers.blocks.linalg import eigh_inplace, sym_inplace, top_eigenvalue
from kernreg.solvers.blocks.tridiagonal import tridiagonal_min_norm, tridiagonalize

__all__ = ["MIN_NORM_SOLVERS", "MinNormSolution", "check_solver", "default_rcond",
           "eigh_min_norm", "min_norm_solve", "pivoted_cholesky_min_norm"]

log = logging.getLogger(__name__)

#: Factorizations of :func:`min_norm_solve` (``tridiagonal``: the eigendecomposition's rule
#: in ``K``'s memory, :mod:`kernreg.solvers.blocks.tridiagonal`).
MIN_NORM_SOLVERS = ("pivoted_cholesky", "eigh", "tridiagonal")
#: The most rows :func:`min_norm_solve` hands LAPACK's ``dpstrf``: on a 39992 × 39992 Gaussian
#: kernel it ends the process with a segmentation fault inside OpenBLAS (measured with SciPy's
#: LP64 OpenBLAS 0.3.30 and NumPy's ILP64 0.3.31, so not a 32-bit index), while at this size it
#: factors (measured); larger systems take the fallback's eigenvalue rule instead.
DPSTRF_MAX_ROWS = 26049


@dataclass(frozen=True)
class MinNormSolution:
    """``α = K⁺ y`` under the cut-off ``τ``, and how it was obtained.

    Attributes
    ----------
    alpha : ndarray of shape (n,) or (n, k)
    rank : int
        Directions kept (eigenvalues above ``τ``, or Cholesky pivots above ``τ``).
    cutoff : float
        ``τ = rcond · λ_max(K)``.
    factorization : {"eigh", "pivoted_cholesky", "tridiagonal"}
        What produced ``alpha``.
    certified : bool
        The eigenvalue rule keeps the same ``rank`` (always true for ``eigh``; for the pivoted
        Cholesky, the gap test of the module docstring).
    lambda_min_bound : float
        The gap test's ``1 / ‖K₁₁⁻¹‖₁`` (NaN for ``eigh``, or when not computed).
    residual_trace : float
        The gap test's ``tr S`` (NaN for ``eigh``).
    seconds : dict
        Wall time of each step (``lambda_max``, ``factor``, ``gap_test``, ``solve``), for the
        benchmark's profile.
    """

    alpha: np.ndarray | None
    rank: int
    cutoff: float
    factorization: str
    certified: bool
    seconds: dict[str, float] = field(default_factory=dict)
    lambda_min_bound: float = float("nan")
    residual_trace: float = float("nan")


def default_rcond(n: int) -> float:
    """``n · eps`` (float64): MATLAB ``pinv``'s relative tolerance."""
    return n * float(np.finfo(np.float64).eps)


def check_solver(solver: object) -> None:
    """Raise ``ValueError`` unless ``solver`` is one of :data:`MIN_NORM_SOLVERS`."""
    if not isinstance(solver, str) or solver not in MIN_NORM_SOLVERS:
        raise ValueError(f"solver must be one of {list(MIN_NORM_SOLVERS)}, got {solver!r}")


def eigh_min_norm(K: Any, y: Any, rcond: float) -> MinNormSolution:
    """``α = U_k S_k⁻¹ U_kᵀ y`` over the eigenvalues ``|s| > rcond · max|s|``; destroys ``K``
    (symmetric, C-ordered float64). ``K`` is a numpy array or a device (torch) array, which is
    decomposed on its device (cuSOLVER on a GPU); ``alpha`` comes back as a float64 numpy
    array."""
    clock = _Clock()
    s, U = eigh_inplace(K)
    clock.lap("factor")
    xp = namespace(s, U)
    y = xp.asarray(y, device=device_of(U))
    cutoff = rcond * (float(xp.max(xp.abs(s))) if s.shape[0] else 0.0)
    keep = xp.abs(s) > cutoff
    kept, divisor = keep, xp.where(keep, s, xp.ones_like(s))
    if y.ndim == 2:  # k right-hand sides: one weight column each
        kept, divisor = kept[:, None], divisor[:, None]
    # zero weights instead of U[:, keep], which would copy the n × n eigenvectors twice
    weights = xp.where(kept, (U.T @ y) / divisor, xp.zeros_like(divisor))
    alpha = _to_host(U @ weights)
    clock.lap("solve")
    return MinNormSolution(alpha, int(keep.sum()), cutoff, "eigh", True, clock.seconds)


def pivoted_cholesky_min_norm(K: np.ndarray, y: np.ndarray, rcond: float, *,
                              lambda_max: float | None = None,
                              solve_uncertified: bool = True) -> MinNormSolution:
    """The minimum-norm solution on the range of ``K``'s pivoted Cholesky factor stopped at
    ``τ = rcond · λ_max(K)`` (see the module docstring); destroys ``K`` (symmetric, C-ordered
    float64).

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y : ndarray of shape (n,) or (n, k)
    rcond : float
        Relative cut-off.
    lambda_max : float, optional
        ``λ_max(K)``; by default Lanczos on ``K`` (a few passes over it) before it is factored.
    solve_uncertified : bool, default True
        Whether to solve when the gap test fails (``False``: return ``alpha`` as ``None``
        and save the solve, for a caller that falls back to :func:`eigh_min_norm`).

    Returns
    -------
    MinNormSolution
    """
    n = K.shape[0]
    y = np.asarray(y, dtype=np.float64)
    clock = _Clock()
    if not np.isfinite(K.sum()):  # one pass, no n × n temporary
        raise np.linalg.LinAlgError("the kernel matrix has non-finite entries")
    if lambda_max is None:
        lambda_max = top_eigenvalue(K, tol=1e-8) if n else 0.0
    clock.lap("lambda_max")
    cutoff = rcond * max(float(lambda_max), 0.0)
    diag = K.diagonal().copy()
    # Kᵀ = K is Fortran-ordered: LAPACK factors K's own memory (its lower triangle is Kᵀ's)
    c, piv, rank, info = lapack.dpstrf(K.T, tol=cutoff, lower=1, overwrite_a=1)
    clock.lap("factor")
    if info < 0:  # pragma: no cover - an argument error would be a bug here
        raise ValueError(f"dpstrf: illegal argument {-info}")
    if rank == 0:  # every diagonal entry at most τ: certified when even their sum is
        return MinNormSolution(np.zeros(y.shape), 0, cutoff, "pivoted_cholesky",
                               bool(diag.sum() <= cutoff), clock.seconds)
    piv = piv.astype(np.int64) - 1
    yp = y[piv]
    if rank == n:
        trace_s = 0.0
        bound = _lambda_min_bound(c)
        certified = bound > cutoff
        clock.lap("gap_test")
        if not (certified or solve_uncertified):
            return MinNormSolution(None, rank, cutoff, "pivoted_cholesky", False, clock.seconds,
                                   bound, trace_s)
        ap = _triangular(c, _triangular(c, yp), trans=1)
    else:
        M = np.asfortranarray(c[rank:, :rank])  # L₂₁, turned into M = L₂₁ L₁₁⁻¹ below
        L11 = _leading_block(c.T, rank)
        residual = np.clip(diag[piv[rank:]] - np.einsum("ij,ij->i", M, M), 0.0, None)
        trace_s = float(residual.sum())
        bound = _lambda_min_bound(L11)
        certified = trace_s <= cutoff and bound > cutoff
        clock.lap("gap_test")
        if not (certified or solve_uncertified):
            return MinNormSolution(None, rank, cutoff, "pivoted_cholesky", False, clock.seconds,
                                   bound, trace_s)
        M = blas.dtrsm(1.0, L11, M, side=1, lower=1, overwrite_b=1)
        gram_inv = _inverse_of_btb(M)
        u = gram_inv(yp[:rank] + M.T @ yp[rank:])
        v = _triangular(L11, _triangular(L11, u), trans=1)
        w = gram_inv(v)
        ap = np.concatenate([w, M @ w])
    alpha = np.empty(y.shape)
    alpha[piv] = ap
    clock.lap("solve")
    return MinNormSolution(alpha, int(rank), cutoff, "pivoted_cholesky", bool(certified),
                           clock.seconds, bound, trace_s)


def _triangular(L: np.ndarray, b: np.ndarray, trans: int = 0) -> np.ndarray:
    """``L⁻¹ b`` (``L⁻ᵀ b`` with ``trans=1``) for lower-triangular ``L``: one BLAS-2 solve
    for a vector, one BLAS-3 solve for the k columns of several outputs."""
    if b.ndim == 1:
        return blas.dtrsv(L, b, lower=1, trans=trans)
    return blas.dtrsm(1.0, L, b, lower=1, trans_a=trans)


class _Clock:
    """Wall time between successive laps, by name."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = now - self._last
        self._last = now


def _leading_block(A: np.ndarray, r: int) -> np.ndarray:
    """``Aᵀ[:r, :r]`` of a C-ordered ``A`` moved to the start of ``A``'s own memory as a
    Fortran-ordered ``r × r`` array (what BLAS takes without a copy; a copy would cost 3.4 GB
    on Adult). ``A`` is destroyed."""
    n = A.shape[0]
    flat = A.reshape(-1)  # a view: A is C-contiguous
    for j in range(1, r):  # column j of Kᵀ is row j of K; targets never pass unread sources
        flat[j * r:(j + 1) * r] = flat[j * n:j * n + r]  # numpy buffers an overlap
    return flat[:r * r].reshape(r, r).T


def _lambda_min_bound(L: np.ndarray) -> float:
    """``1 / ‖(L Lᵀ)⁻¹‖₁`` for lower-triangular ``L`` by LAPACK's condition estimator
    (``dpocon`` with ``‖L Lᵀ‖₁`` given as 1): at most ``λ_min(L Lᵀ)`` when the estimate is
    exact (``‖A⁻¹‖₂ ≤ ‖A⁻¹‖₁`` for symmetric ``A``)."""
    rcond, _ = lapack.dpocon(L, 1.0, uplo="L")
    return float(rcond)


def _inverse_of_btb(M: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``x ↦ (I + MᵀM)⁻¹ x`` through the smaller Gram matrix of ``M`` (``k × r``)."""
    k, r = M.shape
    if k >= r:
        G = blas.dsyrk(1.0, M, trans=1, lower=1)
        G[np.diag_indices(r)] += 1.0
        factor = la.cho_factor(G, lower=True, overwrite_a=True, check_finite=False)
        return lambda x: la.cho_solve(factor, x, check_finite=False)
    G = blas.dsyrk(1.0, M, trans=0, lower=1)
    G[np.diag_indices(k)] += 1.0
    factor = la.cho_factor(G, lower=True, overwrite_a=True, check_finite=False)
    # Woodbury: (I + MᵀM)⁻¹ = I − Mᵀ (I + MMᵀ)⁻¹ M
    return lambda x: x - M.T @ la.cho_solve(factor, M @ x, check_finite=False)


def min_norm_solve(kernel_matrix: Callable[[], Any], y: np.ndarray, *,
                   rcond: float | None = None, solver: str = "pivoted_cholesky",
                   scale: np.ndarray | None = None, fallback: str = "eigh"
                   ) -> MinNormSolution:
    """``α = K⁺ y`` under MATLAB ``pinv``'s cut-off, by ``solver``.

    ``pivoted_cholesky`` returns its own answer only when the gap test certifies that the
    eigenvalue rule keeps the same rank, and otherwise falls back to ``fallback`` (``eigh``, or
    ``tridiagonal``: the same rule in ``K``'s memory) on a freshly evaluated ``K``, so every
    solver follows the same rank cut-off rule. A ``K`` on a device
    (a torch array: PyTorch has no LAPACK pivoted Cholesky) is always solved by ``eigh``, there
    (the solution's ``factorization`` says so).

    Parameters
    ----------
    kernel_matrix : callable
        Returns a fresh ``K`` (float64 or float32, C-ordered, ``n × n``; a numpy array, or an
        array of a device); called once, twice on a fallback (the first ``K`` is destroyed by
        the factorization and released first).
    y : ndarray of shape (n,) or (n, k)
        One right-hand side, or k solved with the same factorization.
    rcond : float, optional
        Relative cut-off; default :func:`default_rcond`.
    solver : {"pivoted_cholesky", "eigh", "tridiagonal"}
    scale : ndarray of shape (n,), optional
        Solve with ``diag(scale) K diag(scale)`` instead of ``K`` (repeated rows merged:
        :mod:`kernreg.solvers.blocks.distinct`), scaled where ``K`` is.
    fallback : {"eigh", "tridiagonal"}, default "eigh"
        What an uncertified pivoted Cholesky falls back to.

    Returns
    -------
    MinNormSolution
    """
    check_solver(solver)
    y = np.asarray(y, dtype=np.float64)
    rcond = default_rcond(y.shape[0]) if rcond is None else float(rcond)
    if y.ndim == 2 and y.shape[1] == 1:  # one column: the vector's solve, to the bit
        solution = min_norm_solve(kernel_matrix, y[:, 0], rcond=rcond, solver=solver,
                                  scale=scale, fallback=fallback)
        return replace(solution, alpha=solution.alpha[:, None])

    def fresh() -> Any:
        K = kernel_matrix()
        xp = namespace(K)
        K = xp.astype(K, xp.float64, copy=False)
        if scale is not None:  # M = diag(s) K diag(s), in place
            s = xp.asarray(scale, dtype=xp.float64, device=device_of(K))
            K *= s[:, None]
            K *= s[None, :]
        return sym_inplace(K)

    K = fresh()
    if solver == "pivoted_cholesky" and y.shape[0] > DPSTRF_MAX_ROWS:
        log.info("%d rows exceed the %d that LAPACK's dpstrf is known to factor (it ends the "
                 "process with a segmentation fault at 39992): the eigenvalue rule by %s",
                 y.shape[0], DPSTRF_MAX_ROWS, fallback)
        solver = fallback
    if solver == "pivoted_cholesky" and is_host(K):
        solution = pivoted_cholesky_min_norm(K, y, rcond, solve_uncertified=False)
        if solution.certified:
            return solution
        del K  # destroyed by the factorization: its memory goes before the fresh one's
        log.info("the pivoted Cholesky cannot certify the cut-off's rank (rank %d): the "
                 "eigenvalue rule by %s", solution.rank, fallback)
        K = fresh()
        solver = fallback
    if solver == "tridiagonal" and is_host(K):
        clock = _Clock()
        tri = tridiagonalize(K)
        clock.lap("factor")
        alpha, rank, cutoff = tridiagonal_min_norm(tri, y, rcond)
        clock.lap("solve")
        return MinNormSolution(alpha, rank, cutoff, "tridiagonal", True, clock.seconds)
    return eigh_min_norm(K, y, rcond)


def _to_host(a: Any) -> np.ndarray:
    """A float64 numpy copy of a device array (``a`` itself when it is a numpy one)."""
    return np.asarray(to_device(a, "cpu"), dtype=np.float64)
