"""The eigendecomposition path of a PSD kernel matrix in the matrix's own memory: one
Householder tridiagonalization, then the tridiagonal's eigenvectors a chunk at a time.

``eigh`` keeps ``K``'s ``n × n`` eigenvectors beside ``K`` (or in its place): at n = 39992
(Ijcnn1's fit rows) that is 25.6 GB, or an in-place decomposition measured at hours. Here

- ``K = Q T Qᵀ`` by LAPACK's ``dsytrd`` in ``K``'s memory (``4n³/3`` flops; the reflectors
  defining ``Q`` take ``K``'s lower triangle, ``T`` is the diagonal ``d`` and off-diagonal
  ``e``);
- ``T = S Λ Sᵀ`` by MRRR (LAPACK's ``dstemr``, ``O(n²)`` for all eigenpairs), the columns of
  ``S`` computed ``chunk`` at a time by their index range and dropped after use;
- every formula of the eigendecomposition path is evaluated through them:
  ``U f(Λ) Uᵀ y = Q (Σ_c S_c f(Λ_c) S_cᵀ) Qᵀ y`` with ``U = QS``: the KRLS path
  ``f(s) = 1/(max(s, 0) + λn)`` (:func:`~kernreg.solvers.blocks.lambda_path.eigen_path_coefs`'s
  clipping) and the minimum-norm solve ``f(s) = 1/s`` over ``|s| > τ``
  (:func:`~kernreg.solvers.blocks.min_norm.eigh_min_norm`'s cut-off).

Memory: ``K``'s ``n²`` plus one chunk of ``S`` (``n × chunk``) and the right-hand sides. The
same answers as ``eigh``'s to rounding (``tests/test_tridiagonal.py``). ``Q`` is applied in
blocks of reflectors in compact WY form (``I − V T Vᵀ``, LAPACK's ``dlarft``/``dlarfb``
without their copies of the reflectors' matrix): ``2n²`` flops per right-hand side, BLAS-3.
``dstemr`` is called through SciPy's own LAPACK (:mod:`scipy.linalg.cython_lapack`), whose
Python wrapper would allocate an ``n × n`` ``Z`` for any index range.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cython_lapack, lapack

from kernreg.progress import report

__all__ = ["CHUNK", "SPECTRAL_METHODS", "Tridiagonal", "check_on_host", "eigh_fits",
           "spectral_method",
           "tridiagonal_min_norm", "tridiagonal_min_norm_cutoffs",
           "tridiagonal_path_coefs", "tridiagonalize"]

#: Eigenvectors of ``T`` held at once (``n × CHUNK`` float64: 330 MB at n = 40000).
CHUNK = 1024
#: Reflectors applied together (one compact WY block).
_BLOCK = 64
#: How an ``n × n`` kernel's spectral path is computed: ``eigh`` (the eigenvectors beside
#: ``K``), ``tridiagonal`` (in ``K``'s memory), or ``auto``: ``eigh`` where it fits.
SPECTRAL_METHODS = ("auto", "eigh", "tridiagonal")

log = logging.getLogger(__name__)


def check_on_host(path_method: str, on_host: bool, device: object) -> None:
    """Refuse ``path_method="tridiagonal"`` off the host: PyTorch has no tridiagonal reduction,
    and the path reads ``K``'s LAPACK storage."""
    if path_method == "tridiagonal" and not on_host:
        raise ValueError(f"path_method='tridiagonal' runs on the host; device={device!r} takes "
                         "another path_method")


def eigh_fits(n: int, max_memory: int | None) -> bool:
    """Whether ``eigh``'s ``K`` and eigenvectors (``2n²`` float64) fit ``max_memory`` bytes
    (``None``: no limit)."""
    return max_memory is None or 2 * n * n * 8 <= max_memory


def spectral_method(method: str, n: int, max_memory: int | None, on_host: bool = True,
                    who: str = "") -> str:
    """``eigh`` or ``tridiagonal`` for ``method`` (one of :data:`SPECTRAL_METHODS`): ``auto``
    takes ``eigh`` where its ``2n²`` float64 fit ``max_memory`` (or on a device, which has no
    tridiagonal path here), else ``tridiagonal``; ``who`` (the estimator taking the path now)
    says so in the log, an empty one decides a fallback that may never be taken."""
    if method != "auto":
        return method
    if not on_host or eigh_fits(n, max_memory):
        return "eigh"
    if who:
        log.info("%s: eigh's kernel and eigenvectors (%.1f GiB) exceed the %.1f GiB budget: "
                 "the tridiagonal path in the kernel's own memory (%.1f GiB)", who,
                 2 * n * n * 8 / 2**30, max_memory / 2**30, n * n * 8 / 2**30)
    return "tridiagonal"


@dataclass
class Tridiagonal:
    """``K = Q T Qᵀ`` from :func:`tridiagonalize`.

    Attributes
    ----------
    reflectors : ndarray of shape (n, n), Fortran-ordered
        ``K``'s memory: below the subdiagonal, the Householder vectors defining ``Q``
        (LAPACK's lower storage).
    tau : ndarray of shape (n - 1,)
    d, e : ndarray of shape (n,) and (n - 1,)
        ``T``'s diagonal and off-diagonal.
    """

    reflectors: np.ndarray
    tau: np.ndarray
    d: np.ndarray
    e: np.ndarray

    @property
    def n(self) -> int:
        return int(self.d.shape[0])

    def apply_q(self, C: np.ndarray, transpose: bool = False) -> np.ndarray:
        """``Q C`` (``Qᵀ C`` with ``transpose``) for ``C`` of shape ``(n,)`` or ``(n, k)``, a
        new array. ``Q = H(0) H(1) ⋯ H(n−2)``, ``H(j) = I − τ_j v_j v_jᵀ`` with ``v_j`` zero
        above row ``j + 1``, one there and the reflector column below."""
        out = np.array(C, dtype=np.float64, copy=True)
        flat = out.reshape(self.n, -1)
        starts = list(range(0, self.n - 1, _BLOCK))
        for j0 in (starts if transpose else reversed(starts)):
            j1 = min(j0 + _BLOCK, self.n - 1)
            V, T = self._block(j0, j1)
            rows = flat[j0 + 1:]
            W = V.T @ rows
            rows -= V @ ((T.T if transpose else T) @ W)
        return out

    def _block(self, j0: int, j1: int) -> tuple[np.ndarray, np.ndarray]:
        """``H(j0) ⋯ H(j1−1) = I − V T Vᵀ`` on rows ``j0 + 1 …``: ``V`` unit lower
        trapezoidal, ``T`` upper triangular (LAPACK's ``dlarft``, forward, columnwise)."""
        V = np.tril(self.reflectors[j0 + 1:, j0:j1], -1)
        nb = j1 - j0
        V[np.arange(nb), np.arange(nb)] = 1.0
        tau = self.tau[j0:j1]
        G = V.T @ V
        T = np.zeros((nb, nb))
        for k in range(nb):
            T[k, k] = tau[k]
            if k:
                T[:k, k] = -tau[k] * (T[:k, :k] @ G[:k, k])
        return V, T

    def eigenvalues(self) -> np.ndarray:
        """``T``'s (and ``K``'s) eigenvalues, ascending (LAPACK's ``dsterf``)."""
        w, info = lapack.dsterf(self.d.copy(), self.e.copy())
        if info:
            raise np.linalg.LinAlgError(f"dsterf did not converge ({info})")
        return w

    def eigenpairs(self, chunk: int = CHUNK) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """``(w_c, S_c)``: ``T``'s eigenvalues and eigenvectors in ascending order,
        ``chunk`` at a time (each chunk computed by its index range, then dropped)."""
        for start in range(0, self.n, chunk):
            report("tridiagonal eigenvectors {}/{}", start, self.n)
            yield _dstemr(self.d, self.e, start, min(start + chunk, self.n))

    def spectral_sum(self, z: np.ndarray, weights: Callable[[np.ndarray], np.ndarray],
                     chunk: int = CHUNK) -> np.ndarray:
        """``Σ_c S_c (weights(w_c) ⊙ S_cᵀ z)``: ``S f(Λ) Sᵀ z`` for ``z`` ``(n,)`` or
        ``(n, k)``; ``weights(w)`` gives ``(c, …)`` multipliers of the ``c`` rows of
        ``S_cᵀ z`` (``(c, L)`` for L shifts: the result gains an axis of L after the first)."""
        total = None
        for w, S in self.eigenpairs(chunk):
            projected = S.T @ z  # (c,) or (c, k)
            scale = weights(w)  # (c,) or (c, L)
            if scale.ndim == 2:  # one column per shift: (c, L[, k])
                part = projected[:, None] * scale if z.ndim == 1 else \
                    projected[:, None, :] * scale[:, :, None]
            else:
                part = projected * (scale if z.ndim == 1 else scale[:, None])
            term = S @ part.reshape(S.shape[1], -1)
            total = term if total is None else total + term
        return total.reshape(self.n, *part.shape[1:])


def tridiagonalize(K: np.ndarray) -> Tridiagonal:
    """``K = Q T Qᵀ`` by LAPACK's ``dsytrd`` in ``K``'s own memory (``K`` symmetric, C-ordered
    float64, destroyed: ``Kᵀ = K`` is the Fortran array LAPACK factors)."""
    n = K.shape[0]
    lwork = int(lapack.dsytrd_lwork(n, lower=1)[0])
    started = time.perf_counter()
    log.info("tridiagonalizing the %d × %d kernel in place (LAPACK dsytrd, %.2g flops; no "
             "progress until it returns)", n, n, 4 * n**3 / 3)
    A, d, e, tau, info = lapack.dsytrd(K.T, lower=1, lwork=max(lwork, 1), overwrite_a=1)
    log.info("tridiagonalized in %.1f s", time.perf_counter() - started)
    if info:
        raise np.linalg.LinAlgError(f"dsytrd: illegal argument {-info}")
    if not np.shares_memory(A, K):  # pragma: no cover - a copy would double the memory
        raise RuntimeError("dsytrd copied the kernel matrix")
    return Tridiagonal(A, tau, d, e)


def tridiagonal_path_coefs(tri: Tridiagonal, y: np.ndarray, shifts: np.ndarray,
                           chunk: int = CHUNK) -> np.ndarray:
    """:func:`~kernreg.solvers.blocks.lambda_path.eigen_path_coefs` of ``K`` for every shift
    (``λn``): ``(n, L)`` for ``y`` ``(n,)``, ``(n, L, k)`` for ``(n, k)``; eigenvalues
    clipped at 0 as there."""
    shifts = np.asarray(shifts, dtype=np.float64)
    z = tri.apply_q(y, transpose=True)
    inner = tri.spectral_sum(
        z, lambda w: 1.0 / (np.maximum(w, 0.0)[:, None] + shifts[None, :]), chunk)
    return tri.apply_q(inner.reshape(tri.n, -1)).reshape(inner.shape)


def tridiagonal_min_norm(tri: Tridiagonal, y: np.ndarray, rcond: float,
                         chunk: int = CHUNK) -> tuple[np.ndarray, int, float]:
    """``α = K⁺ y`` under :func:`~kernreg.solvers.blocks.min_norm.eigh_min_norm`'s rule (the
    eigenvalues ``|s| > rcond · max|s|``): ``(α, rank, cut-off)``."""
    alphas, ranks, cutoffs = tridiagonal_min_norm_cutoffs(tri, y, [rcond], chunk)
    return alphas[:, 0], int(ranks[0]), float(cutoffs[0])


def tridiagonal_min_norm_cutoffs(tri: Tridiagonal, y: np.ndarray, rconds: Sequence[float],
                                 chunk: int = CHUNK
                                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`tridiagonal_min_norm` for several relative cut-offs from the one
    tridiagonalization: ``α`` of shape ``(n, L)`` (``(n, L, k)`` for ``y`` ``(n, k)``), and
    each cut-off's rank and absolute value (``(L,)``)."""
    values = tri.eigenvalues()
    top = float(np.max(np.abs(values))) if values.size else 0.0
    cutoffs = np.asarray(rconds, dtype=np.float64) * top
    ranks = np.array([int(np.sum(np.abs(values) > c)) for c in cutoffs])

    def inverse(w: np.ndarray) -> np.ndarray:
        keep = np.abs(w)[:, None] > cutoffs[None, :]
        return np.where(keep, 1.0 / np.where(keep, w[:, None], 1.0), 0.0)

    z = tri.apply_q(y, transpose=True)
    inner = tri.spectral_sum(z, inverse, chunk)
    return tri.apply_q(inner.reshape(tri.n, -1)).reshape(inner.shape), ranks, cutoffs


@functools.cache
def _dstemr_function() -> Callable[..., None]:
    """LAPACK's ``dstemr`` from SciPy's own LAPACK, callable with pointers."""
    capsule = cython_lapack.__pyx_capi__["dstemr"]
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule))
    p = ctypes.c_void_p
    return ctypes.CFUNCTYPE(None, *([p] * 21))(address)


def _dstemr(d: np.ndarray, e: np.ndarray, start: int, stop: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs ``start … stop − 1`` (ascending) of the tridiagonal ``(d, e)`` by MRRR: the
    eigenvalues ``(c,)`` and eigenvectors ``(n, c)`` (Fortran-ordered)."""
    n, c = d.shape[0], stop - start
    dd = np.array(d, dtype=np.float64, copy=True)  # dstemr overwrites d and e
    ee = np.zeros(n)
    ee[:n - 1] = e
    w = np.zeros(n)
    Z = np.zeros((n, max(c, 1)), order="F")
    isuppz = np.zeros(2 * max(c, 1), dtype=np.int32)
    work = np.zeros(max(18 * n, 1))
    iwork = np.zeros(max(10 * n, 1), dtype=np.int32)

    def ref(value: object, kind: type) -> ctypes._Pointer:
        return ctypes.pointer(kind(value))

    m, info, tryrac = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(1)
    ints = [ref(v, ctypes.c_int) for v in (n, start + 1, stop, n, c, work.size, iwork.size)]
    n_, il, iu, ldz, nzc, lwork, liwork = ints
    _dstemr_function()(
        ctypes.c_char_p(b"V"), ctypes.c_char_p(b"I"), n_, dd.ctypes.data, ee.ctypes.data,
        ref(0.0, ctypes.c_double), ref(0.0, ctypes.c_double), il, iu, ctypes.byref(m),
        w.ctypes.data, Z.ctypes.data, ldz, nzc, isuppz.ctypes.data, ctypes.byref(tryrac),
        work.ctypes.data, lwork, iwork.ctypes.data, liwork, ctypes.byref(info))
    if info.value or m.value != c:
        raise np.linalg.LinAlgError(f"dstemr: info {info.value}, {m.value} of {c} eigenpairs")
    return w[:c], Z[:, :c]
