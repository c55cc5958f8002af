"""Binary cache of prepared datasets: one HDF5 file per (dataset, preprocessing, dtype).

The key hashes everything that changes the arrays: the registry entry's version, the
checksums of its source files, the split, its preprocessing steps (names with their
parameters) and the dtype, so a changed entry never reuses an old file. Files are written to
a temporary name and renamed, so a crash never leaves a half-written cache entry.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import h5py
import numpy as np

from kernreg.atomic import write_hdf5
from kernreg.datasets.spec import DatasetSpec, Splits
from kernreg.errors import OutputError

log = logging.getLogger("kernreg.datasets")

_ARRAYS = ("X_train", "y_train", "X_test", "y_test")


def cache_key(spec: DatasetSpec, dtype: np.dtype) -> str:
    """Short hash of what determines the prepared arrays."""
    parts = {
        "dataset": spec.name,
        "version": spec.version,
        "sources": [[f.known_hash for f in source.files] for source in spec.sources],
        "split": spec.split.describe(),
        "preprocessing": [p.name for p in spec.preprocessing],
        "dtype": np.dtype(dtype).name,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def cache_path(folder: Path, spec: DatasetSpec, dtype: np.dtype) -> Path:
    return folder / f"{spec.name}-{np.dtype(dtype).name}-{cache_key(spec, dtype)}.h5"


def read(path: Path) -> tuple[Splits, dict[str, object]] | None:
    """Load a cache entry, or ``None`` if it is absent or unreadable (then it is rebuilt)."""
    if not path.is_file():
        return None
    try:
        with h5py.File(path, "r") as f:
            arrays = {name: f[name][()] for name in _ARRAYS}
            meta = json.loads(f.attrs["meta"])
    except (OSError, KeyError, ValueError) as exc:
        log.warning("ignoring unreadable cache file %s (%s); it will be rebuilt", path, exc)
        return None
    return Splits(**arrays), meta


def write(path: Path, splits: Splits, meta: dict[str, object]) -> None:
    """Write a cache entry atomically (built in memory, then written to a temporary file in the
    same folder and renamed: :func:`~kernreg.atomic.write_hdf5`, so a full disk never leaves
    the HDF5 library holding a file it cannot close). The cache only saves time: a failure to
    write it (read-only or full disk) is logged and the data are used uncached."""

    def fill(f: h5py.File) -> None:
        for name in _ARRAYS:
            f.create_dataset(name, data=getattr(splits, name))
        f.attrs["meta"] = json.dumps(meta, allow_nan=False)  # strict JSON (all strings)

    try:
        write_hdf5(path, fill)
    except (OutputError, OSError) as exc:
        log.warning("could not cache prepared data at %s (%s); continuing without the cache",
                    path, exc)
