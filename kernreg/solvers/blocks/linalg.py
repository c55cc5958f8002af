"""Dense linear-algebra helpers shared by the solvers: Nyström factor and top eigenvalue."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as la
from scipy.linalg import blas
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from kernreg.backend import CPU, Device
from kernreg.backend.linalg import is_host, namespace, solve_triangular

__all__ = [
    "NystromFactor",
    "eigh_inplace",
    "lanczos_top_eigenvalue",
    "lanczos_top_pair",
    "nystrom_factor",
    "sym",
    "sym_inplace",
    "top_eigenvalue",
]


def sym(M: Any) -> Any:
    """Symmetric part ``(M + Mᵀ)/2`` (removes rounding asymmetry before ``eigh``); numpy or
    device arrays."""
    return 0.5 * (M + M.T)


def sym_inplace(M: Any, block: int | None = None) -> Any:
    """Replace square ``M`` by ``(M + Mᵀ)/2`` in place, one ``block × block`` tile pair at a time.

    For an ``n × n`` kernel matrix :func:`sym` needs two more ``n × n`` temporaries (38 GB at
    n = 40000); this needs one tile. ``M`` is a numpy array or a device (torch) array, the same
    lines serving both; ``block`` defaults to 256 on the host and 2048 on a device (a GPU runs
    a tile in microseconds, so fewer, larger tiles: 32 MiB of temporaries).
    """
    n = M.shape[0]
    if block is None:
        block = 256 if is_host(M) else 2048
    for i in range(0, n, block):
        rows = slice(i, min(i + block, n))
        tile = M[rows, rows]
        tile[...] = 0.5 * (tile + tile.T)
        for j in range(i + block, n, block):
            cols = slice(j, min(j + block, n))
            avg = 0.5 * (M[rows, cols] + M[cols, rows].T)
            M[rows, cols] = avg
            M[cols, rows] = avg.T
    return M


def eigh_inplace(K: Any) -> tuple[Any, Any]:
    """Eigendecomposition of a symmetric C-ordered ``K``, destroying it, without copying it.

    ``Kᵀ`` is the same matrix and is Fortran-ordered, so LAPACK works on ``K``'s own memory
    (passing ``K`` itself makes a Fortran-ordered copy): peak ``2n²`` floats, not ``3n²``. A
    device (torch) ``K`` is decomposed on its device (``torch.linalg.eigh``: cuSOLVER on a
    GPU) with ``Kᵀ`` — column-major, as cuSOLVER writes its eigenvectors — as the output, so
    there too the eigenvectors overwrite ``K`` (ascending eigenvalues, the same order).
    """
    if is_host(K):
        return la.eigh(K.T, overwrite_a=True, check_finite=False)
    import torch

    s = torch.empty(K.shape[0], dtype=K.dtype, device=K.device)
    s, U = torch.linalg.eigh(K.mT, out=(s, K.mT))
    return s, U


@dataclass(frozen=True)
class NystromFactor:
    """Upper Cholesky factor ``R`` with ``RᵀR = K_mm + εI``.

    Attributes
    ----------
    R : ndarray of shape (m, m), upper triangular
    epsilon : float
        The ε actually used.
    epsilon_requested : float
        The ε asked for; larger ``epsilon`` means Cholesky failed ``retries`` times and ε was
        multiplied by ``growth`` each time.
    retries : int
    """

    R: np.ndarray
    epsilon: float
    epsilon_requested: float
    retries: int
    #: Where the solves run: host vectors given to a factor of a device (an estimator's
    #: kernel's) are solved there, where ``R`` is read at the device's bandwidth (m = 10000:
    #: 800 MB per solve, two solves per NYTRO iteration).
    device: Device = field(default=CPU, repr=False, compare=False)
    _device_R: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def solve(self, B: np.ndarray) -> np.ndarray:
        """``R⁻¹ B``."""
        return self._solve(B, trans=0)

    def solve_t(self, B: np.ndarray) -> np.ndarray:
        """``R⁻ᵀ B``."""
        return self._solve(B, trans=1)

    def _solve(self, B: np.ndarray, trans: int) -> np.ndarray:
        if not is_host(B):
            R = self._on_device(B)
            return solve_triangular(R, namespace(B).astype(B, R.dtype), trans=bool(trans))
        if not self.device.is_numpy:
            return self.device.to_numpy(self._solve(self.device.asarray(B), trans))
        if B.ndim == 1 and B.dtype == np.float64 and self.R.flags.f_contiguous:
            # BLAS trsv directly: an iteration of NYTRO's gram strategy does two solves with
            # one vector each, where solve_triangular's checks cost as much as the solve.
            return blas.dtrsv(self.R, B, lower=0, trans=trans)
        return la.solve_triangular(self.R, B, trans=trans, lower=False, check_finite=False)

    def right_solve(self, B: Any) -> Any:
        """``B R⁻¹`` in float64 (e.g. a row block of ``A = K_nm R⁻¹``); a device array ``B``
        is solved on its device (``R`` sent there once)."""
        if not is_host(B):
            R = self._on_device(B)
            return solve_triangular(R, namespace(B).astype(B, R.dtype), right=True)
        B = np.asarray(B, dtype=np.float64)
        return la.solve_triangular(self.R, B.T, trans="T", lower=False, check_finite=False).T

    def _on_device(self, like: Any) -> Any:
        """``R`` in float64 on the device of the array ``like`` (cached per device)."""
        key = str(like.device)
        if key not in self._device_R:
            import torch

            self._device_R[key] = torch.from_numpy(np.ascontiguousarray(self.R)).to(like.device)
        return self._device_R[key]

    @property
    def info(self) -> dict[str, float | int]:
        """What was done, for the fitted estimator's record."""
        return {
            "epsilon_requested": self.epsilon_requested,
            "epsilon_used": self.epsilon,
            "retries": self.retries,
        }


def nystrom_factor(
    K_mm: np.ndarray,
    epsilon: float = 1e-10,
    *,
    floor: float = 0.0,
    growth: float = 10.0,
    max_retries: int = 20,
) -> NystromFactor:
    """Cholesky factor of ``K_mm + εI``, increasing ε geometrically if Cholesky fails.

    ``K_mm`` of a smooth kernel is often numerically singular (duplicate or close centers); the
    ridge ``εI`` makes it positive definite. If the factorization still fails, ε is multiplied by
    ``growth`` (up to ``max_retries`` times) and the final ε is recorded in the result. The
    first attempt uses ``max(epsilon, floor)`` (e.g. the rounding level of a float32 ``K_mm``).

    Raises
    ------
    numpy.linalg.LinAlgError
        If no ε tried gives a factorization (e.g. ``K_mm`` not symmetric PSD at all).
    """
    K = sym_inplace(np.array(K_mm, dtype=np.float64))  # own copy: ε goes on its diagonal
    diag = K.diagonal().copy()
    eps = max(float(epsilon), float(floor))
    if eps == 0.0:
        # a zero ridge cannot grow geometrically; start retries from a scale-aware value
        fallback = np.finfo(np.float64).eps * max(1.0, float(np.max(diag)))
    else:
        fallback = eps
    for retry in range(max_retries + 1):
        np.fill_diagonal(K, diag + eps)
        try:
            R = la.cholesky(K, lower=False, check_finite=False)
            return NystromFactor(R, eps, float(epsilon), retry)
        except la.LinAlgError:
            eps = fallback * growth if eps == 0.0 else eps * growth
    raise np.linalg.LinAlgError(
        f"Cholesky of K_mm + epsilon*I failed for epsilon up to {eps / growth:.3g}"
    )


def lanczos_top_eigenvalue(
    matmat: Callable[[np.ndarray], np.ndarray], dim: int, *, block: int = 1,
    tol: float = 1e-8, stall: float = 1e-10, max_steps: int = 60, exact_max_dim: int = 128,
    start: np.ndarray | None = None,
) -> tuple[float, int]:
    """Largest eigenvalue of a symmetric PSD operator, and the number of operator products.

    (Block) Lanczos with full reorthogonalization and no restart: each step applies ``matmat``
    to ``block`` new orthonormal vectors and takes the top Ritz value on the whole basis. It
    stops when the Ritz vector's residual is below ``tol`` times the Ritz value (the value is
    then accurate to about ``tol²``), or when the Ritz value changed by less than ``stall``
    (relative) in a step: an operator applied in float32 (a stored float32 ``K_nm``) has a
    residual floor near 1e-6, while its Ritz value has long settled. On Covertype's NYTRO
    operator this takes 9 products where ARPACK with a 6-vector restarted basis took 13 (each
    a pass over ``K_nm``, and with ``step_rows="all"`` an evaluation of ``K_vm``); wider blocks
    save steps but not passes. Deterministic: the first vector is ``start`` when given (a guess
    of the top eigenvector), else the all-ones one; further ones come from a fixed seed. Exact
    (dense) for ``dim <= exact_max_dim``.
    """
    theta, _, steps = lanczos_top_pair(matmat, dim, block=block, tol=tol, stall=stall,
                                       max_steps=max_steps, exact_max_dim=exact_max_dim,
                                       start=start)
    return theta, steps


def lanczos_top_pair(
    matmat: Callable[[np.ndarray], np.ndarray], dim: int, *, block: int = 1,
    tol: float = 1e-8, stall: float = 1e-10, max_steps: int = 60, exact_max_dim: int = 128,
    start: np.ndarray | None = None,
) -> tuple[float, np.ndarray, int]:
    """:func:`lanczos_top_eigenvalue` with its Ritz vector: ``(θ, x, products)``, ``‖x‖ = 1``."""
    if dim <= exact_max_dim:
        M = sym(matmat(np.eye(dim)))
        w, V = la.eigh(M, subset_by_index=[dim - 1, dim - 1])
        return float(w[0]), V[:, 0], 1
    block = min(block, dim)
    first = np.random.default_rng(0).standard_normal((dim, block))
    first[:, 0] = 1.0 if start is None else np.asarray(start, dtype=np.float64).reshape(dim)
    Q = la.qr(first, mode="economic")[0]
    basis, images = [], []
    theta = previous = 0.0
    ritz = Q[:, 0]
    for _ in range(max_steps):
        basis.append(Q)
        images.append(np.asarray(matmat(Q), dtype=np.float64).reshape(dim, -1))
        B, AB = np.hstack(basis), np.hstack(images)
        w, S = la.eigh(sym(B.T @ AB))
        theta, x = float(w[-1]), S[:, -1]
        ritz = B @ x
        residual = np.linalg.norm(AB @ x - theta * ritz)
        if residual <= tol * theta or abs(theta - previous) <= stall * theta:
            break
        previous = theta
        W = images[-1] - B @ (B.T @ images[-1])
        W -= B @ (B.T @ W)  # twice is enough (Kahan)
        Q, r = la.qr(W, mode="economic")
        keep = np.abs(np.diag(r)) > 1e-12 * max(np.abs(r).max(), 1e-300)
        if not keep.any() or B.shape[1] >= dim:  # an invariant subspace: θ is exact
            break
        Q = Q[:, keep]
    return theta, ritz / np.linalg.norm(ritz), len(basis)


def top_eigenvalue(
    A: np.ndarray | LinearOperator, *, tol: float = 1e-10, exact_max_dim: int = 128
) -> float:
    """Largest eigenvalue of a symmetric PSD matrix or operator (its spectral norm).

    Exact (dense ``eigvalsh``) when ``dim <= exact_max_dim``; otherwise Lanczos (ARPACK) with
    relative tolerance ``tol`` started from the all-ones vector, so the result is deterministic.
    Lanczos Ritz values approach the top eigenvalue from below.
    """
    dim = A.shape[0]
    if dim > exact_max_dim:
        v0 = np.full(dim, 1.0 / np.sqrt(dim))
        try:
            # A small Krylov basis: kernel spectra have a wide gap below the top eigenvalue,
            # so 6 vectors converge in ~7 products where ARPACK's default 20 costs 21 (each a
            # full pass over K_nm for NYTRO).
            vals = eigsh(A, k=1, which="LA", tol=tol, v0=v0, ncv=min(dim, 6),
                         return_eigenvectors=False)
            return float(vals[0])
        except ArpackNoConvergence:
            pass  # rare; fall through to the exact computation
    M = A if isinstance(A, np.ndarray) else A.matmat(np.eye(dim))
    return float(la.eigvalsh(sym(M), subset_by_index=[dim - 1, dim - 1], check_finite=False)[0])
