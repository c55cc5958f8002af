"""The thread pools of a benchmark's processes, set through the environment: imports nothing
heavy, so a script can size them before numpy, numba or torch is imported."""

from __future__ import annotations

import os

__all__ = ["THREAD_VARIABLES", "set_thread_variables"]

#: The environment variables that size thread pools (numpy's BLAS, OpenMP, numba): read when
#: those libraries load, by this process and every process it starts afterwards.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMBA_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def set_thread_variables(threads: int) -> None:
    """Every thread pool of the libraries loaded from now on, here and in the processes
    started from now on, sized to ``threads``."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(threads)
