"""NKRLS's ``AᵀA`` in mixed precision: float32 products of float64 row blocks, every λ of the
path refined in float64.

Where the float32 may go, measured (Adult, m = 1000, trial 0: ``‖Ĥ − AᵀA‖₂`` against
``λ*n = 1.49``; ``‖AᵀA‖₂ = 1.3e4``):

* ``A_b = K_b R⁻¹`` must stay float64. ``R⁻¹`` reaches ``1/√ε`` (1e5 at ε = 1e-10), so float32
  rounding of ``K_b`` or of the triangular solve comes out of it magnified: a float32 solve gave
  ``‖Ĥ − AᵀA‖ = 4.8``, above λ*n; the explicit Gram ``R⁻ᵀ(K_nmᵀK_nm)R⁻¹`` in float32 8.8 (in
  float64 it already loses the small eigenvalues: −0.05 against λn ≈ 1e-3 on Ijcnn1).
* ``A_bᵀA_b`` may be float32. ``A`` is well scaled (``AAᵀ`` is the Nyström approximation of the
  kernel), so rounding ``A_b`` to float32 and forming its Gram by float32 ``syrk`` (the block
  sums added in float64) gives ``‖Ĥ − AᵀA‖ = 0.015``, about ``u₃₂·‖AᵀA‖``. That is half of the
  ``2·n·m²`` flops at twice the rate: the ``syrk`` (``n·m²``) runs in float32, the triangular
  solve (``n·m²``) does not.

``Ĥ`` alone is not enough: below ``λn ≈ ‖Ĥ − AᵀA‖`` it perturbs exactly the small eigenvalues
that a small λ lets through (the failure of the explicit Gram, now at float32's rounding: on an
ill-conditioned test case the plain float32 path's predictions are 1e-5 off at λ = 1e-8). So
every λ's solution is refined in float64 by preconditioned conjugate gradients on the exact
system ``(AᵀA + λnI)β = Aᵀy``, with ``P_λ = Ĥ + λnI`` as preconditioner — applied exactly
through ``Ĥ``'s eigendecomposition, which also gives the starting point of every λ (the float64
path's ``eigh`` scheme on ``Ĥ``). Products with the exact ``AᵀA`` are float64 passes over
``A`` itself, kept from the Gram's pass (``n·m`` float64), every unconverged λ one column of
the same pass (``4·n·m·L`` flops). Not over ``K_nm`` and ``R⁻¹``: ``R⁻¹u`` of a search
direction reaches ``‖R⁻¹‖·‖u‖`` and ``K_nm`` then cancels it back, so those residuals carry
rounding magnified by up to ``κ(R)`` — measured on the test case, predictions 8e-5 off an 80-bit
reference at λ = 1e-12 where float64's are 2e-7 off (through the stored ``A``: 2e-7).

Why CG rather than plain iterative refinement: its error contracts by the spread of
``P_λ⁻¹(AᵀA + λnI)`` around 1, not by ``‖Ĥ − AᵀA‖/λn`` (above 1 for the grid's smallest λ),
and it minimises the error in the energy norm ``‖e‖² = ‖Ae‖² + λn‖e‖²``, whose first term is
the error of the training predictions. A λ is done when ``√(rᵀP_λ⁻¹r)`` — that energy-norm
error when ``P_λ ≈ AᵀA + λnI`` — is below ``tol·‖y‖`` (predictions within about ``tol`` of
float64's, relative); after ``max_steps`` CG steps a λ still above ``accept·‖y‖`` makes the
whole path fall back to the float64 ``AᵀA``
(:func:`~kernreg.solvers.blocks.nystrom.nystrom_products`): the mixed path never returns a
solution it has not checked against float64 residuals.

Cost: the float64 path's ``2·n·m²`` flops become ``n·m²`` in float64 and ``n·m²`` in float32,
plus ``A``'s ``n·m`` float64 entries in memory and one pass of ``4·n·m·L`` flops per CG step
(and one for the first residual): a gain only for ``m`` well above ``8·L`` (L = 100 λ). The cost
model (:func:`precision_costs`) decides for ``precision="auto"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg._validation import check_choice
from kernreg.backend import CPU, Device, in_gib
from kernreg.backend.memory import available_memory
from kernreg.kernels import Kernel, normal_pass
from kernreg.solvers.blocks.buffers import release, take
from kernreg.solvers.blocks.dask_rows import DistributedRows
from kernreg.solvers.blocks.distinct import merged_rows
from kernreg.solvers.blocks.lambda_path import NystromSystem, eigen_path_coefs
from kernreg.solvers.blocks.linalg import NystromFactor
from kernreg.solvers.blocks.nystrom import nystrom_products
from kernreg.solvers.blocks.strategy import BANDWIDTH, F64, GEMM_FLOPS, _kernel_seconds

__all__ = ["PRECISIONS", "REFINE_ACCEPT", "REFINE_MAX_STEPS", "REFINE_TOL", "MixedNystromSystem",
           "a_blocks", "a_fits", "check_fits", "check_precision", "float32_gram_products",
           "mixed_system", "nkrls_system", "precision_costs", "refine_path", "refit_system",
           "resolve_precision"]

#: How NKRLS forms ``AᵀA``: in float64, in mixed precision (float32 ``syrk`` refined in
#: float64), or as the cost model chooses.
PRECISIONS = ("float64", "mixed", "auto")

#: Refinement stops for a λ when its energy-norm error estimate is below ``REFINE_TOL·‖y‖``.
REFINE_TOL = 1e-9
#: CG steps at most; a λ whose estimate is then still above ``REFINE_ACCEPT·‖y‖`` sends the
#: path back to the float64 ``AᵀA``.
REFINE_MAX_STEPS = 8
REFINE_ACCEPT = 1e-7
#: Passes over ``A`` (all λ as columns) the cost model expects: the first residual and the CG
#: steps (Adult, trial 0: 2 steps for every λ of its grid).
EXPECTED_PASSES = 2
#: ``auto`` takes mixed precision only where the model expects it this much faster (the model's
#: rates are nominal).
AUTO_MARGIN = 0.85
#: Mixed precision keeps ``A = K_nm R⁻¹`` (float64) for its refinement passes: ``auto`` takes
#: it only when ``A`` needs at most this share of the memory available when the fit starts.
STORE_SHARE = 0.25


def check_precision(precision: Any, dtype: Any, backend: str, device: Device = CPU) -> str:
    """``precision`` must be one of :data:`PRECISIONS`; ``"mixed"`` needs float64 kernel values
    (float32 rounding of ``K_nm`` comes out of ``R⁻¹`` magnified up to ``1/√ε``, which no
    refinement of ``A = K_nm R⁻¹`` undoes: float64's answer is the one to reproduce), the
    local backend and the ``cpu`` device (its stored ``A`` and float32 ``syrk`` are host
    arrays and host BLAS; on a device the float64 ``AᵀA`` is formed there instead)."""
    check_choice(precision, "precision", PRECISIONS)
    if precision == "mixed" and np.dtype(dtype) != np.float64:
        raise ValueError("precision='mixed' needs dtype='float64' (float32 kernel values are "
                         f"rounded before R⁻¹ magnifies them), got dtype={dtype!r}")
    if precision == "mixed" and backend != "local":
        raise ValueError(f"precision='mixed' needs backend='local', got backend={backend!r}")
    if precision == "mixed" and not device.is_numpy:
        raise ValueError(f"precision='mixed' runs on device 'cpu' only (it keeps A = K_nm R⁻¹ "
                         f"in host memory), got device={device.name!r}; use precision='float64'"
                         " or 'auto' on a device")
    return precision


def precision_costs(n: int, m: int, d: int, n_lambdas: int, itemsize: int = F64
                    ) -> dict[str, float]:
    """Estimated seconds of forming and solving the λ path in each precision (nominal rates of
    :mod:`kernreg.solvers.blocks.strategy`; only their ratio is used).

    float64: the kernel blocks, ``A_b = K_b R⁻¹`` (``n·m²``) and ``AᵀA`` (``syrk``, ``n·m²``).
    mixed: the same blocks and solve, ``A`` written once (``8·n·m`` bytes) and copied to
    float32, the ``syrk`` in float32 (twice the rate), and :data:`EXPECTED_PASSES` refinement
    passes over ``A`` with ``n_lambdas`` columns (``4·n·m·L`` flops each).
    """
    kernel = _kernel_seconds(n, m, d, GEMM_FLOPS * F64 / itemsize)
    solve = n * m * m / GEMM_FLOPS
    one_pass = 4.0 * n * m * n_lambdas / GEMM_FLOPS
    return {"float64": kernel + solve + n * m * m / GEMM_FLOPS,
            "mixed": (kernel + solve + n * m * m / (2 * GEMM_FLOPS) + 20.0 * n * m / BANDWIDTH
                      + EXPECTED_PASSES * one_pass)}


def a_fits(n: int, m: int) -> bool:
    """Whether ``A`` (``n × m`` float64) fits the mixed path's share of the memory available
    now (:data:`STORE_SHARE`)."""
    return n * m * F64 <= STORE_SHARE * available_memory()


def check_fits(n: int, m: int) -> None:
    """Refuse mixed precision where ``A`` does not fit (:func:`a_fits`): recomputing its blocks
    for every refinement pass would cost a triangular solve (``n·m²``) per pass, more than the
    float32 ``syrk`` saves."""
    if not a_fits(n, m):
        raise MemoryError(f"precision='mixed' keeps A = K_nm R⁻¹ ({n} × {m} float64, "
                          f"{in_gib(n * m * F64):.1f} GiB): more than {STORE_SHARE:.0%} of the "
                          "memory available now; use precision='float64' (or 'auto')")


def resolve_precision(precision: str, n: int, m: int, d: int, n_lambdas: int, dtype: Any,
                      backend: str = "local", device: Device = CPU) -> str:
    """``"float64"`` or ``"mixed"``: the one asked for, or for ``"auto"`` the cost model's
    choice (mixed when :func:`precision_costs` expects it :data:`AUTO_MARGIN` of float64's
    time or less; float64 on a Dask cluster, whose parts sum float64 Grams, for float32
    kernels, which mixed precision does not take, and on a device, where ``AᵀA`` is formed)."""
    if precision != "auto":
        return precision
    itemsize = np.dtype(dtype).itemsize
    if backend != "local" or itemsize != F64 or not device.is_numpy:
        return "float64"
    costs = precision_costs(n, m, d, n_lambdas, itemsize)
    cheaper = costs["mixed"] <= AUTO_MARGIN * costs["float64"]
    return "mixed" if cheaper and a_fits(n, m) else "float64"


def a_blocks(kernel: Kernel, X: Any, C: Any, factor: NystromFactor,
             out: np.ndarray | None = None, row_scale: np.ndarray | None = None
             ) -> Iterator[tuple[slice, np.ndarray]]:
    """Row blocks ``(rows, A_b)`` of ``A = K(X, C) R⁻¹`` in float64 (each by a triangular solve
    of the kernel block: backward stable, so ``A`` is as accurate as the float64 path's), also
    written into ``out[rows]`` when ``out`` is given; ``diag(row_scale) K(X, C) R⁻¹`` with
    ``row_scale``."""
    for sl, Kb in kernel.blocks(X, C, reuse_buffer=True, row_scale=row_scale):
        Ab = factor.right_solve(Kb)
        if out is not None:
            out[sl] = Ab
        yield sl, Ab


def float32_gram_products(
    blocks: Iterable[tuple[slice, np.ndarray]], y: np.ndarray, m: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(Ĥ, Aᵀy)`` from the float64 row blocks ``(rows, A_b)`` of ``A``: ``Ĥ`` the float32
    Gram (each ``A_b`` rounded to float32, ``A_bᵀA_b`` by float32 ``syrk``, the blocks summed
    in float64) and ``Aᵀy`` exact in float64."""
    H = np.zeros((m, m))
    Aty = np.zeros(m)
    tmp = np.empty((m, m), dtype=np.float32)
    for sl, Ab in blocks:
        Aty += Ab.T @ y[sl]
        A32 = Ab.astype(np.float32)
        np.matmul(A32.T, A32, out=tmp)  # numpy dispatches AᵀA to ssyrk
        H += tmp
    return 0.5 * (H + H.T), Aty


@dataclass
class RefineInfo:
    """What the refinement did: CG ``steps`` (each one pass over ``K_nm``, after the first
    residual's), λ values left above the tolerance, and the largest final estimate relative to
    ``‖y‖``."""

    steps: int = 0
    unconverged: list[float] = field(default_factory=list)
    worst: float = 0.0


def refine_path(
    H_hat: np.ndarray, Aty: np.ndarray, lambdas: np.ndarray, n: int,
    normal: Callable[[np.ndarray], np.ndarray], y_norm: float, *,
    tol: float = REFINE_TOL, max_steps: int = REFINE_MAX_STEPS, accept: float = REFINE_ACCEPT,
) -> tuple[np.ndarray, RefineInfo]:
    """``β(λ)`` solving ``(AᵀA + λnI)β = Aᵀy`` for every λ, by block PCG in float64 from the
    solutions of ``Ĥ`` with ``P_λ = Ĥ + λnI`` as preconditioner.

    Parameters
    ----------
    H_hat : ndarray of shape (m, m)
        The approximate ``AᵀA`` (:func:`float32_gram_products`).
    Aty : ndarray of shape (m,)
        ``Aᵀy`` in float64.
    lambdas : ndarray of shape (L,)
    n : int
        The λ scaling (training rows).
    normal : callable
        ``U ↦ AᵀA U`` in float64 for ``U`` of shape ``(m, k)``: one pass over ``K_nm``.
    y_norm : float
        ``‖y‖``, the scale of the stopping rule.
    tol, max_steps, accept : float, int, float
        A λ stops when ``√(rᵀP_λ⁻¹r) <= tol·y_norm``, all after ``max_steps`` CG steps at
        most; those then above ``accept·y_norm`` are listed as unconverged.

    Returns
    -------
    betas : ndarray of shape (m, L)
    info : RefineInfo
    """
    s, V = la.eigh(H_hat, check_finite=False, driver="evd")
    s = np.maximum(s, 0.0)  # Ĥ is PSD up to rounding; P_λ >= λnI stays positive definite
    shifts = np.asarray(lambdas, dtype=np.float64) * n

    def precondition(R: np.ndarray, sh: np.ndarray) -> np.ndarray:
        return V @ ((V.T @ R) / (s[:, None] + sh[None, :]))

    B = eigen_path_coefs(s, V, Aty, shifts)
    R = Aty[:, None] - normal(B) - B * shifts  # the true residual, float64
    Z = precondition(R, shifts)
    rz = np.einsum("ij,ij->j", R, Z)
    P = Z
    limit = tol * max(y_norm, np.finfo(np.float64).tiny)
    active = np.sqrt(np.abs(rz)) > limit
    info = RefineInfo()
    while active.any() and info.steps < max_steps:
        a = np.flatnonzero(active)
        Pa = P[:, a]
        Q = normal(Pa) + Pa * shifts[a]
        curvature = np.einsum("ij,ij->j", Pa, Q)
        ok = curvature > 0  # rounding at the level of the solution: nothing left to gain
        step = np.where(ok, rz[a] / np.where(ok, curvature, 1.0), 0.0)
        B[:, a] += step * Pa
        R[:, a] -= step * Q
        Za = precondition(R[:, a], shifts[a])
        rz_new = np.einsum("ij,ij->j", R[:, a], Za)
        P[:, a] = Za + (rz_new / np.where(rz[a] != 0, rz[a], 1.0)) * Pa
        rz[a] = rz_new
        info.steps += 1
        active[a] = ok & (np.sqrt(np.abs(rz_new)) > limit)
    final = np.sqrt(np.abs(rz)) / max(y_norm, np.finfo(np.float64).tiny)
    info.worst = float(final.max(initial=0.0))
    info.unconverged = [float(lam) for lam in np.asarray(lambdas)[final > max(tol, accept)]]
    return B, info


class MixedNystromSystem(NystromSystem):
    """A :class:`~kernreg.solvers.blocks.lambda_path.NystromSystem` whose ``H`` is the float32
    Gram ``Ĥ``; :meth:`solve` refines every λ in float64 against ``K_nm`` and falls back to the
    float64 ``AᵀA`` when a λ does not converge. ``info`` records what happened."""

    def __init__(self, factor: NystromFactor, H: np.ndarray, Aty: np.ndarray, A: np.ndarray,
                 y_norm: float, exact: Callable[[], tuple[np.ndarray, np.ndarray]],
                 tol: float = REFINE_TOL, max_steps: int = REFINE_MAX_STEPS) -> None:
        super().__init__(factor, H, Aty, info={"precision": "mixed"})
        self.A, self.y_norm, self.exact = A, y_norm, exact
        self.tol, self.max_steps = tol, max_steps
        self.float64: NystromSystem | None = None

    def normal(self, U: np.ndarray) -> np.ndarray:
        """``AᵀA U`` in float64: one pass over the stored ``A`` for every column of ``U``."""
        return normal_pass(self.A, U)[0]

    def close(self) -> None:
        release(self.A)
        self.A = None  # type: ignore[assignment]

    def solve(self, lambdas: np.ndarray, n: int, method: str = "eigh"
              ) -> tuple[np.ndarray, list[float]]:
        if self.float64 is not None:  # fell back before: stay on the float64 AᵀA
            return self.float64.solve(lambdas, n, method)
        betas, info = refine_path(self.H, self.Aty, lambdas, n, self.normal, self.y_norm,
                                  tol=self.tol, max_steps=self.max_steps)
        self.info.update({"refine_steps": info.steps, "refine_worst": info.worst,
                          "refine_unconverged": len(info.unconverged)})
        if info.unconverged:
            self.float64 = NystromSystem(self.factor, *self.exact())
            self.info["precision"] = "float64"  # what the path was solved in
            self.info["mixed_fallback"] = (f"{len(info.unconverged)} λ above tolerance after "
                                           f"{info.steps} steps (smallest "
                                           f"{min(info.unconverged):.3g})")
            return self.float64.solve(lambdas, n, method)
        return self.factor.solve(betas), []


def mixed_system(kernel: Kernel, X: Any, C: Any, y: np.ndarray, factor: NystromFactor, *,
                 tol: float = REFINE_TOL, max_steps: int = REFINE_MAX_STEPS
                 ) -> MixedNystromSystem:
    """The mixed-precision NKRLS system of the rows ``(X, y)``, holding ``A = K_nm R⁻¹`` in
    float64 for the refinement (see the module's docstring for why ``A`` and not ``K_nm``).
    Close the system when done with it: ``A`` goes to the next fit of its shape."""
    y = np.asarray(y, dtype=np.float64)
    # repeated rows merged (A = diag(√counts) K_um R⁻¹ on the u distinct rows): the same AᵀA
    # and Aᵀy, and the refinement's products with them, from u rows of A instead of n
    X_u, y_u, scale = merged_rows(X, y)
    u, m = X_u.shape[0], C.shape[0]
    check_fits(u, m)
    A = take((u, m), np.float64)
    H, Aty = float32_gram_products(a_blocks(kernel, X_u, C, factor, out=A, row_scale=scale),
                                   y_u, m)
    return MixedNystromSystem(factor, H, Aty, A, float(np.linalg.norm(y)),
                              lambda: nystrom_products(kernel, X, C, y, factor),
                              tol=tol, max_steps=max_steps)


def nkrls_system(kernel: Kernel, X: Any, y: np.ndarray, C: Any, factor: NystromFactor,
                 precision: str, backend: str = "local") -> NystromSystem:
    """NKRLS's system of the rows ``(X, y)`` in ``precision`` (``"float64"`` or ``"mixed"``):
    :func:`mixed_system`, or ``(AᵀA, Aᵀy)`` in float64 here or summed over the parts of the
    rows on a Dask cluster (``backend="dask"``)."""
    if precision == "mixed":
        check_precision(precision, kernel.dtype, backend, kernel.device)
        system = mixed_system(kernel, X, C, y, factor)
        system.rows = X.shape[0]
        return system
    if backend == "dask":  # repeated rows merged, as nystrom_products does here
        X_u, y_u, scale = merged_rows(X, y)
        rows = DistributedRows(kernel, X_u, y_u, C, "blocked", row_scale=scale)
        try:
            return NystromSystem(factor, *rows.gram_products(factor), rows=X.shape[0])
        finally:
            rows.close()
    return NystromSystem(factor, *nystrom_products(kernel, X, C, y, factor), rows=X.shape[0])


def refit_system(kernel: Kernel, X: Any, y: np.ndarray, C: Any, state: NystromSystem,
                 precision: str, backend: str = "local") -> NystromSystem:
    """The system of the refit rows ``(X, y)`` — the fit rows of ``state`` followed by the
    validation rows (``refit_rows``). ``AᵀA`` and ``Aᵀy`` are sums over rows, so a float64
    system adds only the validation rows' terms to ``state``'s; a mixed one is formed anew (its
    refinement needs the stored ``A`` of every row)."""
    if isinstance(state, MixedNystromSystem) or not state.rows:
        return nkrls_system(kernel, X, y, C, state.factor, precision, backend)
    val = nkrls_system(kernel, X[state.rows:], y[state.rows:], C, state.factor, "float64",
                       backend)
    return NystromSystem(state.factor, state.H + val.H, state.Aty + val.Aty, X.shape[0])
