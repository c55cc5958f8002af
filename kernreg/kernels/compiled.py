"""The compiled kernel layer: numba kernels for the hot loops, with a pure-numpy fallback.

Two operations are compiled (``numba``, multithreaded with ``prange``):

* :func:`distance_exp` — the elementwise half of a distance kernel's block: from the cross
  products ``x·y`` (a BLAS GEMM, already in the block) and the precomputed squared norms, one
  pass writes ``exp(−‖x − y‖²/(2σ²))`` (Gaussian), ``exp(−‖x − y‖/σ)`` (Laplacian) or the
  half-integer Matérn kernels (ν = 3/2, 5/2: a polynomial times the exponential) in place:
  the distance expansion, the clamp at 0 and the exponential fused, on every thread of the
  budget, with an exponential that vectorizes (numpy's ``exp`` runs on one core, and numba's
  ``math.exp`` calls libm one element at a time);
* :func:`normal_pass` — ``g = Kᵀ(K β − y)`` and the residual ``K β − y`` for ``β`` of shape
  ``(m, k)``: each row of ``K`` is read once and used for both products while it is in cache,
  products accumulated in float64 whatever ``K``'s dtype.

Which path runs is decided per call by :func:`jit_enabled`: numba must import, and the
environment switch ``KERNREG_JIT`` must not be off (``0``/``false``/``no``/``off``; unset,
empty or ``1``/``true``/``yes``/``on`` leave it on; any other value is refused with a
:class:`~kernreg.errors.ConfigError`, :mod:`kernreg.switches`); :func:`use_jit` overrides both
within a ``with`` block, for tests and benchmarks.
:func:`active_path` names the path (``"numba"`` or ``"numpy"``). Both paths compute the same
numbers: float64 to about 1e-15 relative (the exponentials differ by a few ulp), float32 to
about 1e-6 relative (:data:`FLOAT32_RTOL`).

Threads: a compiled call uses :func:`compiled_threads` threads — the BLAS thread limit in force
(the runner's ``budget.blas_threads``, set with threadpoolctl) capped by numba's pool — set for
the call and restored after, so compiled code and BLAS never run more threads than the budget.

numba is optional (``pip install 'kernreg[jit]'``): without it, or with it turned off, the numpy
path runs, and each trial records which path ran (``kernel_path`` in its record, ``numba`` and
``kernel_path_at_start`` in the run's manifest). Importing numba and loading its compiled
functions costs each process about 0.3 s (seconds where numba's cache is empty):
:func:`warm_up` pays that before the timed fits, in the runner and on every Dask worker.
"""

from __future__ import annotations

import importlib.util
import threading
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from kernreg.switches import env_switch

__all__ = [
    "FLOAT32_RTOL",
    "GAUSSIAN",
    "HAVE_NUMBA",
    "LAPLACIAN",
    "MATERN32",
    "MATERN52",
    "active_path",
    "compiled_signatures",
    "compiled_threads",
    "distance_exp",
    "jit_enabled",
    "max_threads",
    "normal_pass",
    "use_jit",
    "warm_up",
]

#: Whether numba is installed (the ``jit`` extra: kernreg works without it, on its numpy path).
#: It is imported on the first compiled call only (or by :func:`warm_up`).
HAVE_NUMBA = importlib.util.find_spec("numba") is not None

#: Profiles of :func:`distance_exp`: the map applied to the squared distance ``s`` (with
#: ``t = scale·√s``): ``exp(−scale·s)``; ``exp(−t)`` (Laplacian, Matérn ν = 1/2); Matérn
#: ν = 3/2 ``(1 + t)·exp(−t)`` and ν = 5/2 ``(1 + t + t²/3)·exp(−t)`` (``scale = √(2ν)/σ``).
GAUSSIAN, LAPLACIAN, MATERN32, MATERN52 = 0, 1, 2, 3

#: Relative agreement of the float32 compiled and numpy paths on kernel values (the rounding of
#: ``‖x‖² + ‖y‖² − 2x·y`` in float32, and the float32 exponentials, differ between the paths).
FLOAT32_RTOL = 1e-5

#: The environment switches of the two paths (:mod:`kernreg.switches`).
ENV_JIT, ENV_JIT_PASS = "KERNREG_JIT", "KERNREG_JIT_PASS"
_override: bool | None = None
# numba's default "workqueue" threading layer must not be entered by two Python threads at once
# (Dask's threaded workers would); other layers are thread-safe.
_lock = threading.Lock()


def jit_enabled() -> bool:
    """Whether the compiled path runs: numba is installed (and imported without error when it
    was first needed), and neither :func:`use_jit` nor ``KERNREG_JIT`` (``0``, ``false``,
    ``no``, ``off``) turns it off.

    Raises
    ------
    ConfigError
        ``KERNREG_JIT`` holds a value that is neither on nor off (e.g. ``fasle``).
    """
    # checked first: a misspelt value is an error whichever path would run, never a guess
    setting = env_switch(ENV_JIT)
    if not HAVE_NUMBA or _import_error is not None:
        return False
    if _override is not None:
        return _override
    return setting is not False


def active_path() -> str:
    """``"numba"`` when the compiled path runs, else ``"numpy"``."""
    return "numba" if jit_enabled() else "numpy"


@contextmanager
def use_jit(enabled: bool | None) -> Iterator[None]:
    """Force the compiled path on (``True``, where numba is installed) or off (``False``) within
    the block; ``None`` restores the default (``KERNREG_JIT``). Not thread-local."""
    global _override
    previous = _override
    _override = enabled
    try:
        yield
    finally:
        _override = previous


_controller: Any = None
_jit_module: Any = None
_import_error: Exception | None = None


def _kernels() -> Any:
    """The numba kernels when the compiled path is on, else None. The module (and numba with
    it) is imported on first use; an import that fails warns once and leaves numpy in charge."""
    global _jit_module, _import_error
    if not jit_enabled():
        return None
    if _jit_module is None:
        try:
            from kernreg.kernels import _jit
        except Exception as exc:  # a numba that does not match this numpy, a broken install
            _import_error = exc
            warnings.warn(f"numba could not be loaded ({exc}); kernreg uses its numpy path",
                          RuntimeWarning, stacklevel=3)
            return None
        _jit_module = _jit
    return _jit_module


#: The compiled functions of :mod:`kernreg.kernels._jit` that the public operations call.
COMPILED_FUNCTIONS = ("distance_exp_f64", "distance_exp_f32", "normal_pass_single",
                      "normal_pass_kernel")


def warm_up() -> bool:
    """Make the compiled path ready now, so that its one-off cost falls outside timed fits.

    Imports numba, then calls each compiled function once on tiny arrays of the argument types
    a run passes (float64 and float32 blocks, one and several right-hand sides where
    :func:`compiled_pass_enabled` takes them): numba loads each from its on-disk cache, or
    compiles it where the cache has none, and starts its thread pool (measured here: 0.3 s
    with a warm cache, 4.5–5.9 s with an empty one). A second call takes under 1 ms. With
    the compiled path off (numba not installed, ``KERNREG_JIT`` off, :func:`use_jit`) it
    imports nothing and does nothing.

    Returns
    -------
    bool
        Whether the compiled path is ready (``False``: the numpy path runs; a numba that
        fails to import has warned once, as on a first compiled call).

    Raises
    ------
    ConfigError
        ``KERNREG_JIT`` or ``KERNREG_JIT_PASS`` holds a value that is neither on nor off.
    """
    if _kernels() is None:
        return False
    for dtype in (np.float64, np.float32):
        # the profile and the scale are runtime values: one signature per dtype covers all
        distance_exp(np.zeros((4, 4), dtype=dtype), np.zeros(4), np.zeros(4), GAUSSIAN, 1.0,
                     threads=1)
        for beta in (np.zeros(4), np.zeros((4, 2))):  # normal_pass_single, normal_pass_kernel
            normal_pass(np.zeros((8, 4), dtype=dtype), beta, np.zeros(8), threads=1)
    return True


def compiled_signatures() -> dict[str, int]:
    """How many argument-type signatures each compiled function holds in this process (loaded
    from numba's cache or compiled): ``{}`` before the compiled layer is first used, and
    without numba. A diagnostic: :func:`warm_up` leaves every function a run calls with one
    per dtype."""
    if _jit_module is None:
        return {}
    return {name: len(getattr(_jit_module, name).signatures) for name in COMPILED_FUNCTIONS}


def _numba() -> Any:
    """The numba module; ``None`` where it is not installed or does not import."""
    if not HAVE_NUMBA or _import_error is not None:
        return None
    try:
        import numba
    except Exception:  # a broken install: the numpy path runs (_kernels warns of it)
        return None
    return numba


def max_threads() -> int:
    """Threads numba's pool has (``NUMBA_NUM_THREADS``, by default the cores); 1 without numba."""
    numba = _numba()
    return 1 if numba is None else int(numba.config.NUMBA_NUM_THREADS)


def compiled_threads() -> int:
    """Threads a compiled call uses: the largest BLAS thread limit in force (the runner sets it
    from ``budget.blas_threads``), at most numba's pool size, at least 1."""
    global _controller
    numba = _numba()
    if numba is None:
        return 1
    from threadpoolctl import ThreadpoolController

    if _controller is None:
        _controller = ThreadpoolController()
    blas = [lib.num_threads for lib in _controller.lib_controllers if lib.user_api == "blas"]
    limit = max(blas) if blas else numba.config.NUMBA_NUM_THREADS
    return max(1, min(int(limit), numba.config.NUMBA_NUM_THREADS))


@contextmanager
def _threads(threads: int | None) -> Iterator[None]:
    """numba's thread count for the duration of one compiled call, restored after."""
    import numba

    n = compiled_threads() if threads is None else max(1, min(int(threads),
                                                             numba.config.NUMBA_NUM_THREADS))
    layer_safe = _threading_layer() in ("omp", "tbb")
    if not layer_safe:
        _lock.acquire()
    previous = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(previous)
        if not layer_safe:
            _lock.release()


def _threading_layer() -> str:
    import numba

    try:
        return numba.threading_layer()
    except ValueError:  # no parallel region has run yet
        return "unknown"


# --------------------------------------------------------------------------- numpy reference
def _distance_exp_numpy(out: np.ndarray, xx: np.ndarray, yy: np.ndarray, profile: int,
                        scale: float, noise: float) -> np.ndarray:
    out *= -2.0
    out += xx[:, None]
    out += yy[None, :]
    np.maximum(out, 0.0, out=out)
    if profile == GAUSSIAN:
        out *= -scale
        return np.exp(out, out=out)
    out[out <= noise] = 0.0
    np.sqrt(out, out=out)
    out *= scale  # t
    poly = None
    if profile == MATERN32:
        poly = 1.0 + out
    elif profile == MATERN52:
        poly = 1.0 + out + out * out / 3.0
    np.negative(out, out=out)
    np.exp(out, out=out)
    if poly is not None:
        out *= poly
    return out


#: Bytes of ``K`` rows per step of the numpy pass: the second product (``K_bᵀ r_b`` after
#: ``K_b β``) then reads the rows from cache rather than from memory.
NUMPY_PASS_BYTES = 4 * 2**20


def _normal_pass_numpy(K: np.ndarray, beta: np.ndarray, y: np.ndarray, grad: np.ndarray,
                       resid: np.ndarray) -> None:
    bk = beta.astype(K.dtype, copy=False)
    rows = max(1, NUMPY_PASS_BYTES // max(1, K.shape[1] * K.itemsize))
    for start in range(0, K.shape[0], rows):
        Kb = K[start:start + rows]
        r = Kb @ bk - y[start:start + rows]  # float64
        resid[start:start + rows] = r
        grad += Kb.T @ r.astype(K.dtype, copy=False)


# --------------------------------------------------------------------------- public operations
def distance_exp(out: np.ndarray, xx: np.ndarray, yy: np.ndarray, profile: int, scale: float,
                 noise: float = 0.0, *, threads: int | None = None) -> np.ndarray:
    """Turn a block of cross products into kernel values, in place, in one pass.

    On entry ``out[i, j] = x_i·y_j``; on return ``out[i, j] = exp(−scale·s)`` (``GAUSSIAN``)
    or, with ``t = scale·√s``, ``exp(−t)`` (``LAPLACIAN``), ``(1 + t)·exp(−t)``
    (``MATERN32``), ``(1 + t + t²/3)·exp(−t)`` (``MATERN52``), where
    ``s = max(‖x_i‖² + ‖y_j‖² − 2 x_i·y_j, 0)``; for the last three, ``s ≤ noise`` is taken as
    0 so that coincident points give exactly 1.

    Parameters
    ----------
    out : ndarray of shape (r, p), float32 or float64, C-contiguous
    xx, yy : ndarray of shape (r,) and (p,)
        Squared row norms (cast to ``out``'s dtype).
    profile : {GAUSSIAN, LAPLACIAN, MATERN32, MATERN52}
    scale : float
        ``1/(2σ²)`` for the Gaussian, ``1/σ`` for the Laplacian, ``√(2ν)/σ`` for Matérn ν.
    noise : float, default 0
        Squared distances at or below it are treated as 0 (all but the Gaussian).
    threads : int, optional
        Compiled threads; default :func:`compiled_threads`.
    """
    if profile not in (GAUSSIAN, LAPLACIAN, MATERN32, MATERN52):
        raise ValueError("profile must be GAUSSIAN (0), LAPLACIAN (1), MATERN32 (2) or "
                         f"MATERN52 (3), got {profile!r}")
    xx = np.ascontiguousarray(xx, dtype=out.dtype)
    yy = np.ascontiguousarray(yy, dtype=out.dtype)
    jit = _kernels() if out.flags.c_contiguous and out.dtype in (np.float32, np.float64) else None
    if jit is None:
        return _distance_exp_numpy(out, xx, yy, profile, scale, noise)
    kernel = jit.distance_exp_f64 if out.dtype == np.float64 else jit.distance_exp_f32
    with _threads(threads):
        kernel(out, xx, yy, profile, float(scale), float(noise))
    return out


def _as_columns(a: Any, rows: int, name: str) -> tuple[np.ndarray, bool]:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim not in (1, 2) or a.shape[0] != rows:
        raise ValueError(f"{name} must have shape ({rows},) or ({rows}, k), got {a.shape} "
                         "(shape mismatch)")
    return (a[:, None] if a.ndim == 1 else a), a.ndim == 1


def normal_pass(
    K: np.ndarray | Iterable[tuple[slice, np.ndarray]],
    beta: Any,
    y: Any = None,
    *,
    grad: np.ndarray | None = None,
    resid: np.ndarray | None = None,
    threads: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(Kᵀ(K β − y), K β − y)`` reading ``K`` once (the NYTRO/Landweber gradient pass).

    Parameters
    ----------
    K : ndarray of shape (n, m), float32 or float64, or an iterable of ``(row_slice, block)``
        The stored kernel (``K_nm``), whole or as row blocks (each read once, in order; the
        slices cover ``0:n``).
    beta : array-like of shape (m,) or (m, k)
        One or several right-hand sides (columns), carried by the same read of ``K``.
    y : array-like of shape (n,) or (n, k), optional
        Targets: one column per column of ``beta``, or a 1-D ``y`` shared by every column;
        ``None`` is 0 (then the pass is ``KᵀK β``).
    grad : ndarray of shape (m, k) float64, optional
        Added to (not overwritten): pass zeros, or a running sum over row blocks.
    resid : ndarray of shape (n, k) float64, optional
        Written with the residual.
    threads : int, optional
        Compiled threads; default :func:`compiled_threads`.

    Returns
    -------
    grad : ndarray of shape (m,) or (m, k), float64
    resid : ndarray of shape (n,) or (n, k), float64
        1-D when ``beta`` is 1-D.

    Notes
    -----
    The compiled loop runs for one column of ``beta`` (several go to BLAS, see
    :func:`compiled_pass_enabled`). It multiplies in float64 whatever ``K``'s dtype (a float32
    ``K`` is widened element by element, in registers); BLAS's products multiply a float32 ``K``
    in float32 (widening the block would cost a copy) and sum the blocks in float64.
    """
    blocks = [(slice(0, K.shape[0]), K)] if isinstance(K, np.ndarray) else list(K)
    if not blocks or blocks[0][1].ndim != 2:
        raise ValueError("K must be a 2-D array or a non-empty sequence of (rows, block)")
    m = blocks[0][1].shape[1]
    n = max(sl.stop for sl, _ in blocks)
    b, vector = _as_columns(beta, m, "beta")
    k = b.shape[1]
    y2 = np.zeros((n, 1)) if y is None else _as_columns(y, n, "y")[0]
    if y2.shape[1] not in (1, k):
        raise ValueError(f"y has {y2.shape[1]} columns but beta has {k} (shape mismatch)")
    g = np.zeros((m, k)) if grad is None else grad.reshape(m, k)
    r = np.empty((n, k)) if resid is None else resid.reshape(n, k)
    b = np.ascontiguousarray(b)
    for sl, Kb in blocks:
        if Kb.ndim != 2 or Kb.shape[1] != m or Kb.shape[0] != sl.stop - sl.start:
            raise ValueError(f"block {sl} of K has shape {Kb.shape}, expected "
                             f"({sl.stop - sl.start}, {m}) (shape mismatch)")
        _normal_pass_block(Kb, b, y2[sl], g, r[sl], threads)
    if vector:
        return g[:, 0], r[:, 0]
    return g, r


def compiled_pass_enabled(columns: int = 1) -> bool:
    """Whether :func:`normal_pass` runs its compiled loop for ``columns`` right-hand sides
    (besides :func:`jit_enabled`): by default for one column and not for several;
    ``KERNREG_JIT_PASS`` on (``1``, ``true``, ...) takes it for any number, off (``0``, ...)
    for none (:mod:`kernreg.switches`).

    Measured (``reproduce/bench/bench_kernels.py``, 2 threads, 20000 stored rows,
    OPENBLAS_THREAD_TIMEOUT 4, 2026-11-27): one column, the compiled loop four rows at a time
    against numpy's two BLAS products per block, see docs/speed.md; several columns, BLAS's
    GEMMs win (k = 16: Adult-sized float32 25.3 against 97.2 ms, Ijcnn1-sized float64 243
    against 507 ms)."""
    setting = env_switch(ENV_JIT_PASS)  # ConfigError for a value neither on nor off
    return columns == 1 if setting is None else setting


def _normal_pass_block(Kb: np.ndarray, beta: np.ndarray, y: np.ndarray, grad: np.ndarray,
                       resid: np.ndarray, threads: int | None) -> None:
    k = beta.shape[1]
    jit = _kernels() if (compiled_pass_enabled(k) and Kb.dtype in (np.float32, np.float64)
                         and Kb.flags.c_contiguous) else None
    if jit is None:
        _normal_pass_numpy(Kb, beta, y, grad, resid)
        return
    import numba

    with _threads(threads):
        # one part per thread, but none shorter than 64 rows (its gradient costs m·k to sum)
        parts = max(1, min(numba.get_num_threads(), Kb.shape[0] // 64))
        grad_parts = np.zeros((parts, *grad.shape))
        r = resid if resid.flags.c_contiguous else np.empty(resid.shape)
        if k == 1:
            jit.normal_pass_single(Kb, np.ascontiguousarray(beta[:, 0]),
                                   np.ascontiguousarray(y[:, 0]), grad_parts[..., 0], r[:, 0])
        else:
            jit.normal_pass_kernel(Kb, beta, np.ascontiguousarray(y), grad_parts, r)
    grad += grad_parts.sum(axis=0)
    if r is not resid:
        resid[...] = r
