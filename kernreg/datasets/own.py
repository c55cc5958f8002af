"""A user's data file as a run's dataset: read once per process, described like a registered one.

A config's ``dataset: {file: ...}`` block is read with :func:`load_file_data` (the reader of
:mod:`kernreg.datasets.files`, its last result kept, so the config's checks and the run share
one read), and :func:`file_dataset_spec` describes the data with the fields the config's
defaults and checks take from a registered :class:`~kernreg.datasets.spec.DatasetSpec` (task,
row counts, width, σ). Such a dataset is named ``file:<file name>`` in results
(:func:`file_dataset_name`), a name no registered dataset can have, so that tables never look
it up in the registry.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from kernreg.backend.memory import MemoryBudget
from kernreg.datasets.files import FileData, FileDatasetSpec, read_file_dataset
from kernreg.datasets.spec import DatasetSpec, FileSplit

__all__ = ["FILE_PREFIX", "SPEC_TASKS", "file_dataset_name", "file_dataset_spec",
           "is_file_dataset_name", "load_file_data", "median_sigma_text"]

#: The prefix of a file dataset's name in results (``file:train.csv``).
FILE_PREFIX = "file:"
#: A file's task as a registered dataset's kind (:data:`kernreg.datasets.spec.Task`).
SPEC_TASKS = {"regression": "regression", "binary": "classification",
              "multiclass": "multiclass"}

# The last read: (key, data). One entry: a run reads one dataset, and keeping more would hold
# their arrays for nothing.
_LAST: list[tuple[tuple, FileData]] = []


def file_dataset_name(file: str | os.PathLike[str]) -> str:
    """The name of the dataset of ``file`` in results and tables: ``file:<its name>``."""
    return FILE_PREFIX + Path(file).name


def is_file_dataset_name(name: str) -> bool:
    """Whether a dataset name in results is a file's (:func:`file_dataset_name`)."""
    return name.startswith(FILE_PREFIX)


def _stat_key(path: Path | None) -> tuple | None:
    if path is None:
        return None
    stat = path.stat()
    return (str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino)


def load_file_data(spec: FileDatasetSpec, *, seed: int, dtype: str = "float64",
                   memory: MemoryBudget | None = None) -> FileData:
    """:func:`~kernreg.datasets.files.read_file_dataset`, or its last result when it read the
    same files (same size, modification time and inode) with the same settings.

    Raises
    ------
    kernreg.errors.DataError
        What :func:`~kernreg.datasets.files.read_file_dataset` raises.
    """
    try:
        files = (_stat_key(spec.file), _stat_key(spec.test_file))
    except OSError:  # missing or unreadable: the reader names the problem
        files = None
    host = None if memory is None else memory.host
    key = (spec, seed, np.dtype(dtype).name, host, files)
    if files is not None and _LAST and _LAST[0][0] == key:
        return _LAST[0][1]
    _LAST.clear()
    data = read_file_dataset(spec, seed=seed, dtype=dtype, memory=memory)
    if files is not None:
        _LAST.append((key, data))
    return data


def median_sigma_text(seed: int) -> str:
    """How a file dataset's default σ was found (recorded in the run's manifest)."""
    return (f"the median distance between two distinct training rows, over at most 1000 rows "
            f"drawn with seed {seed} (kernreg.bandwidth.median_sigma)")


def file_dataset_spec(spec: FileDatasetSpec, data: FileData) -> DatasetSpec:
    """An unregistered :class:`DatasetSpec` of a read file: its name, task, row counts and
    width; σ the file block's ``sigma``, else the median heuristic's
    (:attr:`FileData.suggested_sigma`); no paper m and no stopping threshold."""
    sigma = spec.sigma if spec.sigma is not None else data.suggested_sigma
    return DatasetSpec(
        name=file_dataset_name(spec.file),
        title=spec.file.name,
        task=SPEC_TASKS[data.task],  # type: ignore[arg-type]
        n_train=int(data.X_train.shape[0]),
        n_test=int(data.X_test.shape[0]),
        d=int(data.n_columns),
        sources=(),
        split=FileSplit(),
        preprocessing=(),
        sigma=float(sigma) if sigma else None,
        m=None,
        reference=str(spec.file),
    )
