"""Measuring what a trial costs: wall time, peak resident memory, BLAS threads, versions."""

from __future__ import annotations

import os
import platform
import threading
import time
from types import TracebackType

import psutil
from threadpoolctl import threadpool_info

from kernreg.backend import CPU, Device, in_gib


class PeakMemory:
    """Context manager sampling this process's resident set size in a background thread.

    ``peak_bytes`` is the largest RSS seen while the block ran (sampled every ``interval``
    seconds, plus once at entry and exit), i.e. what the OS had to provide, BLAS buffers
    included — unlike ``tracemalloc``, which sees only Python allocations.
    """

    def __init__(self, interval: float = 0.02) -> None:
        self.interval = interval
        self.peak_bytes = 0
        self._process = psutil.Process()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _sample(self) -> None:
        self.peak_bytes = max(self.peak_bytes, self._process.memory_info().rss)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def __enter__(self) -> PeakMemory:
        self._sample()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()


class Stopwatch:
    """``with Stopwatch() as sw: ...`` then ``sw.seconds`` (perf_counter wall time)."""

    seconds: float = 0.0

    def __enter__(self) -> Stopwatch:
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start


def idle_cores(interval: float = 0.1) -> int:
    """Cores of this process's affinity set that other processes left idle over ``interval``
    seconds (at least 1): the host's busy time from ``/proc/stat`` minus this process's own.

    What ``budget.blas_threads: auto`` resolves to when a trial starts: BLAS threads beyond the
    idle cores share a core with another process, and every GEMM then waits for its slowest
    thread. Where ``/proc/stat`` cannot be read, all cores count as idle.
    """
    cores = len(os.sched_getaffinity(0))
    try:
        busy0, own0, start = _host_busy_seconds(), _own_cpu_seconds(), time.monotonic()
        time.sleep(interval)
        busy1, own1, end = _host_busy_seconds(), _own_cpu_seconds(), time.monotonic()
    except (OSError, ValueError):
        return cores
    others = max(0.0, (busy1 - busy0) - (own1 - own0)) / (end - start)
    return max(1, min(cores, cores - round(others)))


def _host_busy_seconds() -> float:
    """CPU seconds all processes of the host have run (``/proc/stat``: all but idle, iowait)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def resolve_blas_threads(setting: int | str) -> int:
    """``budget.blas_threads`` as a count: an integer as is, ``"auto"`` the idle cores now."""
    return idle_cores() if setting == "auto" else int(setting)


def blas_threads() -> dict[str, int]:
    """Threads each loaded BLAS/OpenMP library will use, e.g. ``{"openblas": 2}``."""
    info: dict[str, int] = {}
    for lib in threadpool_info():
        info[lib["internal_api"]] = lib["num_threads"]
    return info


def gemm_gflops(n: int = 1024, repeats: int = 3, dtype: str = "float64") -> float:
    """This host's measured GEMM rate (GFLOP/s, best of ``repeats`` ``n × n`` products) under
    the current BLAS thread limits: the yardstick printed beside absolute times, since the
    same run takes 2.5× longer on one shared host than on another."""
    import numpy as np

    a = np.random.default_rng(0).standard_normal((n, n)).astype(dtype)
    out = np.empty_like(a)
    np.matmul(a, a, out=out)  # warm up: threads, page faults
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        np.matmul(a, a, out=out)
        best = min(best, time.perf_counter() - start)
    return 2.0 * n**3 / best / 1e9


def exp_rate(n: int = 2**24, repeats: int = 3, dtype: str = "float64",
             threads: int | None = None) -> float:
    """This host's best exponential rate (exponentials per second): the compiled Gaussian pass
    of :func:`kernreg.kernels.compiled.distance_exp` over ``n`` entries, best of ``repeats``
    after a warm-up, on ``threads`` threads (default: every core numba may use). With the
    compiled path off it is numpy's ``exp`` pass. The floor counts a kernel block's n·m
    exponentials at this rate."""
    import numpy as np

    from kernreg.kernels.compiled import GAUSSIAN, distance_exp, max_threads

    cols = 4096
    rows = max(1, n // cols)
    out = np.empty((rows, cols), dtype=dtype)
    xx, yy = np.zeros(rows, dtype=dtype), np.zeros(cols, dtype=dtype)
    threads = max_threads() if threads is None else threads
    best = float("inf")
    for attempt in range(repeats + 1):  # attempt 0 warms up (compilation, first touch)
        out.fill(-0.25)
        start = time.perf_counter()
        distance_exp(out, xx, yy, GAUSSIAN, 1.0, threads=threads)
        if attempt:
            best = min(best, time.perf_counter() - start)
    return rows * cols / best


def blas_description() -> str:
    """The loaded BLAS libraries with version, compute kernels and threads, e.g.
    ``"openblas 0.3.31 Haswell ×2"``: kernels (``OPENBLAS_CORETYPE``) change GEMM speed ~2×."""
    parts = [f"{lib['internal_api']} {lib.get('version')} {lib.get('architecture')} "
             f"×{lib['num_threads']}" for lib in threadpool_info() if lib["user_api"] == "blas"]
    return "; ".join(parts) or "none loaded"


def environment(device: Device = CPU) -> dict[str, str]:
    """Versions and machine facts of this invocation, stored in the run's manifest (rewritten
    by each ``--resume``; the kernel path and the device of each trial are in its own record),
    ``device`` the run's (:mod:`kernreg.experiment.devices`).

    Raises
    ------
    ConfigError
        A ``KERNREG_JIT`` value that is neither on nor off (:mod:`kernreg.switches`).
    """
    import h5py
    import numpy
    import scipy
    import sklearn

    from kernreg import __version__
    from kernreg.kernels.compiled import HAVE_NUMBA, active_path

    if HAVE_NUMBA:
        from importlib.metadata import version

        numba = version("numba")
    else:
        numba = "not installed"
    return {
        "kernreg": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "h5py": h5py.__version__,
        "blas": blas_description(),
        # how long OpenBLAS's threads spin after a call (kernreg's default 4; unset: 28)
        "openblas_thread_timeout": os.environ.get("OPENBLAS_THREAD_TIMEOUT", "unset"),
        "numba": numba,
        # compiled ("numba") or "numpy" kernel loops when this invocation started: a resumed
        # run's earlier trials may have run the other path; each trial's record names its own
        # (TrialRecord.info["kernel_path"])
        "kernel_path_at_start": active_path(),
        # the device this invocation's trials run on (each trial's record names its own:
        # TrialRecord.info["device"]); a resumed run's earlier trials may have run elsewhere
        "device_at_start": device.describe(),
        "machine": f"{platform.machine()}, {psutil.cpu_count()} CPUs, "
                   f"{in_gib(psutil.virtual_memory().total):.1f} GiB",
    }
