"""A user's own data file as a dataset: read, checked, split and preprocessed.

A config's ``dataset: {file: ...}`` block describes a :class:`FileDatasetSpec`;
:func:`read_file_dataset` turns it into a :class:`FileData` (dense train/test arrays, the task,
the label mapping, the files' sha256 and a suggested kernel width). Every problem with the file
is a :class:`~kernreg.errors.DataError` naming the file, the problem and, where a setting can fix
it, the setting (``dataset.target``); size problems are found from the file's header or shape
before the data are read.

Formats (``dataset.format``, else from the suffix)
--------------------------------------------------
``libsvm`` (``.svm .libsvm .svmlight``)
    ``label index:value ...``, indices from 1 (or from 0 if any file uses index 0);
    ``.gz``/``.bz2`` files are read directly when ``format: libsvm`` is given.
``csv`` (``.csv``), ``tsv`` (``.tsv .tab``)
    A header row naming the columns; ``target`` names the target column (default: the last),
    every other column is a numeric feature.
``npy`` (``.npy``)
    One 2-D numeric array, one row per sample: its **last column is the target**, the others are
    the features.
``npz`` (``.npz``), ``hdf5`` (``.h5 .hdf5``)
    Two arrays: ``features`` (default ``"X"``, rows × features) and ``target`` (default ``"y"``,
    one value per row; HDF5 paths such as ``"data/X"`` work).
``parquet`` (``.parquet .pq``)
    Columns as in csv; needs pyarrow (``pip install 'kernreg[parquet]'``).

Task inference (when ``dataset.task`` is not given)
---------------------------------------------------
From the training file's target values:

- text labels (``"yes"``/``"no"``): 2 distinct values → ``binary``, more → ``multiclass``;
- integer values with exactly 2 distinct values → ``binary``;
- integer values with 3 to 50 distinct values, and no more than 10 % of the row count →
  ``multiclass``;
- anything else → ``regression``.

Labels
------
``binary``: the two labels in sorted order become −1 and +1 (the registered datasets' coding).
``multiclass``: numeric labels are kept as they are (as floats); text labels become their index
in the sorted label list. :attr:`FileData.labels` holds the sorted original labels in both cases.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kernreg._validation import is_int
from kernreg.backend.memory import MemoryBudget
from kernreg.bandwidth import median_sigma
from kernreg.datasets.fetch import file_digest
from kernreg.datasets.file_formats import (
    Table,
    check_finite,
    checked_file,
    match_test_columns,
    read_tables,
    sparsity_of,
)
from kernreg.datasets.file_spec import (
    DEFAULT_MEMORY_GB,
    DEFAULT_TEST_FRACTION,
    FORMATS,
    MAX_CLASSES,
    PREPROCESSING,
    SUFFIXES,
    TASKS,
    FileDatasetSpec,
    listing,
)
from kernreg.datasets.loader import check_dtype
from kernreg.errors import DataError

__all__ = ["DEFAULT_MEMORY_GB", "DEFAULT_TEST_FRACTION", "FORMATS", "MAX_CLASSES",
           "PREPROCESSING", "SUFFIXES", "TASKS", "FileData", "FileDatasetSpec", "median_sigma",
           "read_file_dataset"]

# An integer target is taken for class labels up to this many distinct values...
_MAX_INFERRED_CLASSES = 50
# ...and only while they are few against the rows (else it is a count: a regression target).
_INFERRED_CLASS_SHARE = 0.1
_MIN_TRAIN_ROWS = 2  # a kernel width needs one pairwise distance

#: The sorted original labels of a classification target; ``None`` for regression.
Labels = tuple[float, ...] | tuple[str, ...] | None


@dataclass(frozen=True)
class FileData:
    """A user's dataset, read, checked, split and preprocessed.

    Attributes
    ----------
    X_train, y_train, X_test, y_test : numpy.ndarray
        Dense arrays in the requested dtype; targets coded as :attr:`labels` says.
    task : str
        ``regression``, ``binary`` or ``multiclass`` (given or inferred).
    labels : tuple or None
        Binary: the two original labels in sorted order, coded −1 and +1. Multiclass: the
        sorted original labels (numbers are kept as the targets; text labels are coded by their
        index here). Regression: ``None``.
    sha256 : dict of str to str
        The sha256 of each file read (training first), by path.
    n_rows : int
        Rows read, training and test file together.
    n_columns : int
        Feature columns.
    sparsity : float
        Share of zero feature values in the files, before preprocessing.
    dense_bytes : int
        Bytes of the dense feature and target arrays in the requested dtype,
        ``n_rows × (n_columns + 1) × itemsize``.
    suggested_sigma : float
        :func:`median_sigma` of the preprocessed training rows (0 when most sampled rows
        coincide).
    format : str
        The format the files were read as.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    task: str
    labels: Labels
    sha256: dict[str, str]
    n_rows: int
    n_columns: int
    sparsity: float
    dense_bytes: int
    suggested_sigma: float
    format: str


def read_file_dataset(spec: FileDatasetSpec, *, seed: int, dtype: str | np.dtype = "float64",
                      memory: MemoryBudget | None = None) -> FileData:
    """Read, check, split and preprocess a user's data file(s).

    Parameters
    ----------
    spec : FileDatasetSpec
        The file(s) and how to read them.
    seed : int
        Seeds the split (when there is no test file) and :func:`median_sigma`'s sample.
    dtype : str or numpy.dtype
        ``"float64"`` (default) or ``"float32"``; reading and preprocessing run in float64.
    memory : MemoryBudget, optional
        The run's memory budget; its ``host`` bytes must hold the dense data (default
        ``MemoryBudget.of(DEFAULT_MEMORY_GB)``). Checked before the data are read: from the
        shape in the header (npy, npz, hdf5, parquet), from the sparse matrix (libsvm, before it
        is made dense), and for csv/tsv from an upper bound, 4 × the text's size in bytes (a
        number takes at least 2 bytes of text and 8 as float64), which may refuse a file whose
        numbers would fit.

    Returns
    -------
    FileData

    Raises
    ------
    kernreg.errors.DataError
        A missing, unreadable, truncated or mis-named file; ragged rows or non-numeric features;
        NaN or infinite values; a target or array that is not there; a target with one value
        or labels that do not fit the task; a test file of another width; too few rows for the
        split; data larger than the memory budget.
    kernreg.errors.MissingDependencyError
        A parquet file without pyarrow installed.
    ValueError
        ``seed`` is not an integer in [0, 2**32).
    """
    out_dtype = check_dtype(dtype)
    seed = _check_seed(seed)
    budget = memory if memory is not None else MemoryBudget.of(DEFAULT_MEMORY_GB)
    fmt = spec.resolved_format
    paths = [checked_file(spec.file, fmt, "dataset.file")]
    if spec.test_file is not None:
        paths.append(checked_file(spec.test_file, fmt, "dataset.test_file"))

    tables = read_tables(spec, fmt, paths, budget, out_dtype)
    match_test_columns(tables)
    for table in tables:
        check_finite(table)
    sha256 = {str(path): file_digest(path) for path in paths}
    n_rows = sum(t.X.shape[0] for t in tables)
    n_columns = tables[0].X.shape[1]
    sparsity = sparsity_of([t.X for t in tables])
    task, labels = _task_and_labels(spec, tables)
    codes = [_coded(t.y, task, labels) for t in tables]
    dense = [t.X.toarray() if sp.issparse(t.X) else t.X for t in tables]

    if len(tables) == 2:
        X_train, y_train, X_test, y_test = dense[0], codes[0], dense[1], codes[1]
        if X_train.shape[0] < _MIN_TRAIN_ROWS:
            raise DataError(f"{paths[0]}: {X_train.shape[0]} training row(s); at least "
                            f"{_MIN_TRAIN_ROWS} are needed")
    else:
        X_train, X_test, y_train, y_test = _split(dense[0], tables[0].y, codes[0], task,
                                                  spec.split_fraction, seed, paths[0])
    del dense
    X_train, X_test = _preprocess(spec.preprocessing, X_train, X_test)
    X_train, X_test, y_train, y_test = (np.ascontiguousarray(a, dtype=out_dtype)
                                        for a in (X_train, X_test, y_train, y_test))
    return FileData(
        X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test,
        task=task, labels=labels, sha256=sha256, n_rows=n_rows, n_columns=n_columns,
        sparsity=sparsity, dense_bytes=n_rows * (n_columns + 1) * out_dtype.itemsize,
        suggested_sigma=median_sigma(X_train, seed), format=fmt,
    )


# --------------------------------------------------------------------------- checks of values


def _check_seed(seed: int) -> int:
    if not is_int(seed) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an integer in [0, 2**32), got {seed!r}")
    return int(seed)


def _task_and_labels(spec: FileDatasetSpec, tables: list[Table]) -> tuple[str, Labels]:
    """The task (given or inferred from the training target) and its label mapping."""
    train = tables[0]
    text = train.y.dtype.kind == "U"
    values = np.unique(train.y)
    if len(values) < 2:
        raise DataError(f"{train.path}: the target ({train.target}) has one value, "
                        f"{values[0].item()!r}: there is nothing to learn")
    task = spec.task or _infer_task(values, text, len(train.y))
    _check_task(task, values, text, train, given=spec.task is not None)
    if len(tables) == 2:
        test = tables[1]
        if (test.y.dtype.kind == "U") != text:
            kinds = ("text", "numbers") if text else ("numbers", "text")
            raise DataError(f"dataset.test_file: the target of {test.path} holds {kinds[1]}, "
                            f"the training file's {kinds[0]}")
        unseen = np.setdiff1d(np.unique(test.y), values) if task != "regression" else []
        if len(unseen):
            raise DataError(f"dataset.test_file: {test.path} has label(s) "
                            f"{listing([v.item() for v in unseen])} that the training file "
                            f"{train.path} does not have")
    if task == "regression":
        return task, None
    return task, tuple(v.item() for v in values)


def _infer_task(values: np.ndarray, text: bool, n_rows: int) -> str:
    """The rule of the module's docstring, on the sorted distinct target values."""
    if text:
        return "binary" if len(values) == 2 else "multiclass"
    integers = bool(np.all(values == np.round(values)))
    if integers and len(values) == 2:
        return "binary"
    if (integers and len(values) <= _MAX_INFERRED_CLASSES
            and len(values) <= _INFERRED_CLASS_SHARE * n_rows):
        return "multiclass"
    return "regression"


def _check_task(task: str, values: np.ndarray, text: bool, table: Table, *, given: bool) -> None:
    said = f"dataset.task is {task}" if given else f"the target looks {task}"
    about = f"{table.path}: {said}, but the target ({table.target})"
    if task == "regression" and text:
        raise DataError(f"{about} holds text, such as {values[0].item()!r}")
    if task == "binary" and len(values) != 2:
        raise DataError(f"{about} has {len(values)} distinct values: "
                        f"{listing([v.item() for v in values], 10)}")
    if task == "multiclass":
        if not text and not np.all(values == np.round(values)):
            example = values[values != np.round(values)][0].item()
            raise DataError(f"{about} holds non-integer labels, such as {example!r}; class labels "
                            f"must be integers or text")
        if len(values) > MAX_CLASSES:
            raise DataError(f"{about} has {len(values)} classes, more than the {MAX_CLASSES} a "
                            f"multiclass task allows")


def _coded(y: np.ndarray, task: str, labels: Labels) -> np.ndarray:
    """Targets as the run uses them: ±1 (binary), a class's label or index (multiclass)."""
    if task == "binary":
        return np.where(y == labels[1], 1.0, -1.0)
    if task == "multiclass" and y.dtype.kind == "U":
        return np.searchsorted(np.asarray(labels), y).astype(np.float64)
    return y.astype(np.float64)


def _split(X: np.ndarray, y_raw: np.ndarray, y: np.ndarray, task: str, fraction: float,
           seed: int, path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A seeded hold-out split, stratified by class for classification."""
    from sklearn.model_selection import train_test_split

    n = len(y)
    n_test = math.ceil(fraction * n)  # what train_test_split takes
    n_train = n - n_test
    split = f"{n} rows give {n_train} training and {n_test} test rows with " \
            f"dataset.test_fraction {fraction:g}"
    if n_train < _MIN_TRAIN_ROWS:
        raise DataError(f"{path}: {split}; at least {_MIN_TRAIN_ROWS} training rows are needed")
    stratify = task != "regression"
    if stratify:
        classes, counts = np.unique(y_raw, return_counts=True)
        if counts.min() < 2:
            rare = classes[int(np.argmin(counts))].item()
            raise DataError(f"{path}: class {rare!r} has {counts.min()} row; a stratified split "
                            f"needs at least 2 rows of every class")
        if min(n_train, n_test) < len(classes):
            raise DataError(f"{path}: {split}; a stratified split needs at least one row of each "
                            f"of the {len(classes)} classes on both sides")
    train, test = train_test_split(np.arange(n), test_size=fraction, random_state=seed,
                                   stratify=y if stratify else None)
    return X[train], X[test], y[train], y[test]


# ------------------------------------------------------------------------------ preprocessing


def _standardize(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean, std = train.mean(axis=0), train.std(axis=0)
    std = np.where(std > 0, std, 1.0)  # a constant feature becomes 0, not NaN
    return (train - mean) / std, (test - mean) / std


def _minmax(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    low, high = train.min(axis=0), train.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    return (train - low) / span, (test - low) / span


def _unit_norm(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    def scaled(X: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        return X / np.where(norms > 0, norms, 1.0)  # a zero row stays zero

    return scaled(train), scaled(test)


_STEPS: dict[str, Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]] = {
    "none": lambda train, test: (train, test),
    "standardize": _standardize,
    "minmax": _minmax,
    "unit-norm": _unit_norm,
}


def _preprocess(steps: Sequence[str], X_train: np.ndarray,
                X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    for step in steps:
        X_train, X_test = _STEPS[step](X_train, X_test)
    return X_train, X_test
