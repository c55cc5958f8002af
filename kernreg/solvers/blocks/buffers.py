"""Large kernel arrays handed from one fit to the next fit of the same shape.

On these VMs the first write to memory the process has not touched before runs at about
0.6 GB/s (the hypervisor backs each page on its first touch; freed memory goes back to it)
against ~10 GB/s into touched memory: a fresh 16.7 GB ``K_nm`` costs ≈ 28 s of a 95 s Covertype
NYTRO trial, and a 104 MB one ≈ 0.17 s of a 0.75 s Adult one. Inside :func:`reuse_buffers` —
the experiment runner holds it over one algorithm's trials — an array that a fit gives back
with :func:`release` is kept and handed to the next :func:`take` of the same shape and dtype.
A request that matches no kept array frees all of them first, so kept memory never adds to the
peak of a fit of another shape. Outside the context :func:`take` is ``np.empty`` and
:func:`release` keeps nothing.

An array must not be used after it is released (the next fit overwrites it); estimators release
only arrays that no attribute or returned value refers to, when their ``fit`` ends.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

__all__ = ["release", "reuse_buffers", "take"]

_lock = threading.Lock()
_kept: list[np.ndarray] = []
_depth = 0


@contextmanager
def reuse_buffers() -> Iterator[None]:
    """Keep released arrays for the next fits until the outermost context ends."""
    global _depth
    with _lock:
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _kept.clear()


def take(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An uninitialized array of ``shape`` and ``dtype``: a kept one when one matches."""
    dtype = np.dtype(dtype)
    with _lock:
        for i, kept in enumerate(_kept):
            if kept.shape == tuple(shape) and kept.dtype == dtype:
                return _kept.pop(i)
        _kept.clear()  # nothing matches: free the kept memory before allocating more
    return np.empty(shape, dtype=dtype)


def release(*arrays: np.ndarray | None) -> None:
    """Give ``arrays`` back for the next fit (inside :func:`reuse_buffers`; else drop them)."""
    with _lock:
        if _depth:
            for array in arrays:
                if array is not None and array.flags.owndata \
                        and not any(array is kept for kept in _kept):
                    _kept.append(array)
