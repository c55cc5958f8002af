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

import hashlib
import math
import os
import re
import warnings
import zipfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.spatial.distance import pdist

from kernreg.backend.memory import MemoryBudget, in_gib
from kernreg.errors import DataError, MissingDependencyError

__all__ = ["DEFAULT_MEMORY_GB", "DEFAULT_TEST_FRACTION", "FORMATS", "MAX_CLASSES",
           "PREPROCESSING", "SUFFIXES", "TASKS", "FileData", "FileDatasetSpec", "median_sigma",
           "read_file_dataset"]

#: The file formats a user's dataset may have.
FORMATS = ("libsvm", "csv", "tsv", "npy", "npz", "hdf5", "parquet")
#: The format each suffix implies when ``dataset.format`` is not given (case-insensitive).
SUFFIXES = {".svm": "libsvm", ".libsvm": "libsvm", ".svmlight": "libsvm", ".csv": "csv",
            ".tsv": "tsv", ".tab": "tsv", ".npy": "npy", ".npz": "npz", ".h5": "hdf5",
            ".hdf5": "hdf5", ".parquet": "parquet", ".pq": "parquet"}
#: What the target is: a number, one of two classes, one of several classes.
TASKS = ("regression", "binary", "multiclass")
#: Preprocessing steps, applied in the order given, fitted on the training rows only.
PREPROCESSING = ("none", "standardize", "minmax", "unit-norm")
#: Share of the rows held out for testing when there is no test file.
DEFAULT_TEST_FRACTION = 0.2
#: The host memory budget when the caller gives none (``budget.memory_gb``'s default).
DEFAULT_MEMORY_GB = 20.0
#: Most classes a multiclass target may have.
MAX_CLASSES = 1000
# An integer target is taken for class labels up to this many distinct values...
_MAX_INFERRED_CLASSES = 50
# ...and only while they are few against the rows (else it is a count: a regression target).
_INFERRED_CLASS_SHARE = 0.1
_DTYPES = ("float64", "float32")
_TEXT_FORMATS = ("libsvm", "csv", "tsv")
_ARRAY_PAIRS = ("npz", "hdf5")
_MIN_TRAIN_ROWS = 2  # a kernel width needs one pairwise distance

#: The sorted original labels of a classification target; ``None`` for regression.
Labels = tuple[float, ...] | tuple[str, ...] | None


@dataclass(frozen=True)
class FileDatasetSpec:
    """What a config's ``dataset: {file: ...}`` block says about a user's data file.

    Checked when built: an invalid value is a :class:`~kernreg.errors.DataError` naming every
    offending setting (``dataset.format: ...; dataset.task: ...``). Relative paths are taken
    from the working directory.

    Parameters
    ----------
    file : Path
        The data file (the training rows when ``test_file`` is given).
    format : str, optional
        One of :data:`FORMATS`; ``None``: from the file's suffix (:data:`SUFFIXES`).
    target : str, optional
        The target column (csv, tsv, parquet; default the last column) or array (npz, hdf5;
        default ``"y"``). Not used by npy (the last column) or libsvm (the label).
    features : str, optional
        The feature array of npz and hdf5 files (default ``"X"``).
    test_file : Path, optional
        Test rows in a file of their own, same format and columns; used as they are.
    test_fraction : float, optional
        Share of the rows held out for testing when there is no ``test_file`` (default
        :data:`DEFAULT_TEST_FRACTION`); not allowed together with ``test_file``.
    task : str, optional
        One of :data:`TASKS`; ``None``: inferred from the target (see the module's docstring).
    n_features : int, optional
        libsvm only: the feature count, for files whose largest index is smaller (LIBSVM's
        ``a9a.t`` never uses feature 123).
    preprocessing : tuple of str
        Steps of :data:`PREPROCESSING`, applied in order, fitted on the training rows:
        ``standardize`` (training mean 0, standard deviation 1; constant features become 0),
        ``minmax`` (training range to [0, 1]; test rows may fall outside), ``unit-norm``
        (each row divided by its Euclidean norm), ``none``.
    sigma : float, optional
        The kernel width the user chose (the median heuristic's is
        :attr:`FileData.suggested_sigma`).
    """

    file: Path
    format: str | None = None
    target: str | None = None
    features: str | None = None
    test_file: Path | None = None
    test_fraction: float | None = None
    task: str | None = None
    n_features: int | None = None
    preprocessing: tuple[str, ...] = ()
    sigma: float | None = None

    def __post_init__(self) -> None:
        problems: list[str] = []
        object.__setattr__(self, "file", _as_path(self.file, "dataset.file", problems))
        if self.test_file is not None:
            object.__setattr__(self, "test_file",
                               _as_path(self.test_file, "dataset.test_file", problems))
        steps = self.preprocessing
        if steps is None or isinstance(steps, str):
            steps = () if steps is None else (steps,)
        elif isinstance(steps, list | tuple):
            steps = tuple(steps)
        else:
            problems.append(f"dataset.preprocessing: must be a list of steps, got {steps!r}")
            steps = ()
        object.__setattr__(self, "preprocessing", steps)
        if not problems:
            self._check(problems)
        if problems:
            raise DataError(f"dataset file {self.file}: " + "; ".join(problems))

    def _check(self, problems: list[str]) -> None:
        fmt = self.format
        if fmt is not None and fmt not in FORMATS:
            problems.append(f"dataset.format: {fmt!r} is not one of {', '.join(FORMATS)}")
            return
        if fmt is None and self.file.suffix.lower() not in SUFFIXES:
            problems.append(f"dataset.format: the suffix {self.file.suffix or '(none)'!r} "
                            f"names no format; set dataset.format to one of {', '.join(FORMATS)}"
                            f" (suffixes: {' '.join(SUFFIXES)})")
            return
        fmt = self.resolved_format
        test_format = SUFFIXES.get(self.test_file.suffix.lower()) if self.test_file else None
        if test_format is not None and test_format != fmt:
            problems.append(f"dataset.test_file: {self.test_file} has the suffix of {test_format} "
                            f"files, the training file is read as {fmt}; both must have one "
                            f"format")
        if self.target is not None and (not isinstance(self.target, str) or not self.target):
            problems.append(f"dataset.target: must be a column or array name, got {self.target!r}")
        elif self.target is not None and fmt in ("npy", "libsvm"):
            where = "the last column" if fmt == "npy" else "the label"
            problems.append(f"dataset.target: {fmt} files have no named target ({where} is)")
        if self.features is not None and fmt not in _ARRAY_PAIRS:
            problems.append(f"dataset.features: only npz and hdf5 files name a feature array, "
                            f"this is {fmt}")
        elif self.features is not None and (not isinstance(self.features, str)
                                            or not self.features):
            problems.append(f"dataset.features: must be an array name, got {self.features!r}")
        if self.n_features is not None:
            if fmt != "libsvm":
                problems.append(f"dataset.n_features: only libsvm files take it, this is {fmt}")
            elif not _is_int(self.n_features) or self.n_features < 1:
                problems.append(f"dataset.n_features: must be a positive integer, "
                                f"got {self.n_features!r}")
        if self.test_fraction is not None:
            if self.test_file is not None:
                problems.append("dataset.test_fraction: not allowed with dataset.test_file "
                                "(the test file holds the test rows)")
            elif not _is_number(self.test_fraction) or not 0 < self.test_fraction < 1:
                problems.append(f"dataset.test_fraction: must be a number between 0 and 1 "
                                f"(exclusive), got {self.test_fraction!r}")
        if self.task is not None and self.task not in TASKS:
            problems.append(f"dataset.task: {self.task!r} is not one of {', '.join(TASKS)}")
        unknown = [s for s in self.preprocessing if s not in PREPROCESSING]
        if unknown:
            problems.append(f"dataset.preprocessing: {', '.join(map(repr, unknown))} not among "
                            f"{', '.join(PREPROCESSING)}")
        if self.sigma is not None and (not _is_number(self.sigma) or not math.isfinite(self.sigma)
                                       or self.sigma <= 0):
            problems.append(f"dataset.sigma: must be a positive number, got {self.sigma!r}")

    @property
    def resolved_format(self) -> str:
        """``format``, or the one the training file's suffix implies."""
        return self.format or SUFFIXES[self.file.suffix.lower()]

    @property
    def split_fraction(self) -> float | None:
        """The share of rows held out for testing; ``None`` with a test file."""
        if self.test_file is not None:
            return None
        return DEFAULT_TEST_FRACTION if self.test_fraction is None else float(self.test_fraction)


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
    out_dtype = _check_dtype(dtype)
    seed = _check_seed(seed)
    budget = memory if memory is not None else MemoryBudget.of(DEFAULT_MEMORY_GB)
    fmt = spec.resolved_format
    paths = [_checked_file(spec.file, fmt, "dataset.file")]
    if spec.test_file is not None:
        paths.append(_checked_file(spec.test_file, fmt, "dataset.test_file"))

    tables = _read_tables(spec, fmt, paths, budget, out_dtype)
    _match_test_columns(tables)
    for table in tables:
        _check_finite(table)
    sha256 = {str(path): _sha256(path) for path in paths}
    n_rows = sum(t.X.shape[0] for t in tables)
    n_columns = tables[0].X.shape[1]
    sparsity = _sparsity([t.X for t in tables])
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


def median_sigma(X: np.ndarray | sp.spmatrix, seed: int, sample: int = 1000) -> float:
    """The median heuristic for a Gaussian kernel's width: the median Euclidean distance
    between two distinct rows of ``X``.

    Over all rows when there are at most ``sample``; else over ``sample`` rows drawn without
    replacement by ``numpy.random.default_rng(seed).choice(n_rows, sample, replace=False)``.
    Each pair of distinct rows counts once (the zero distance of a row to itself is left out).

    Parameters
    ----------
    X : array or sparse matrix of shape (n_rows, n_features)
        Training rows, ``n_rows ≥ 2``.
    seed : int
        Seeds the sample of rows.
    sample : int
        Most rows used (at least 2); the cost grows with its square.

    Returns
    -------
    float
        The median distance (0 when most sampled rows coincide).

    Raises
    ------
    ValueError
        ``X`` is not 2-D with at least 2 rows, or ``sample`` is not an integer ≥ 2.
    """
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"median_sigma: X must be 2-D with at least 2 rows, got shape {X.shape}")
    if not _is_int(sample) or sample < 2:
        raise ValueError(f"median_sigma: sample must be an integer ≥ 2, got {sample!r}")
    n = X.shape[0]
    rows = X
    if n > sample:
        rows = X[np.sort(np.random.default_rng(seed).choice(n, sample, replace=False))]
    rows = rows.toarray() if sp.issparse(rows) else np.asarray(rows)
    return float(np.median(pdist(rows.astype(np.float64, copy=False))))


# --------------------------------------------------------------------------- checks of values


def _is_int(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def _as_path(value: object, key: str, problems: list[str]) -> Path:
    if isinstance(value, str | os.PathLike) and str(value):
        return Path(value)
    problems.append(f"{key}: must be a file path, got {value!r}")
    return Path(str(value))


def _check_dtype(dtype: str | np.dtype) -> np.dtype:
    name = np.dtype(dtype).name
    if name not in _DTYPES:
        raise DataError(f"dtype must be one of {', '.join(_DTYPES)}, got {name!r}")
    return np.dtype(name)


def _check_seed(seed: int) -> int:
    if not _is_int(seed) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an integer in [0, 2**32), got {seed!r}")
    return int(seed)


def _listing(names: Sequence[str], limit: int = 20) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    more = f", … ({len(names) - limit} more)" if len(names) > limit else ""
    return (shown + more) or "(none)"


# ----------------------------------------------------------------------- the files themselves

# First bytes of the formats (and compressions) a file given in the wrong format may have.
_SIGNATURES = ((b"\x93NUMPY", "npy"), (b"PK\x03\x04", "npz"), (b"PK\x05\x06", "npz"),
               (b"\x89HDF\r\n\x1a\n", "hdf5"), (b"PAR1", "parquet"), (b"\x1f\x8b", "gzip"),
               (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
_KIND_NAMES = {"npy": "a NumPy .npy array", "npz": "a zip archive (.npz)",
               "hdf5": "an HDF5 file", "parquet": "a Parquet file", "gzip": "gzip-compressed data",
               "bzip2": "bzip2-compressed data", "xz": "xz-compressed data",
               "binary": "binary data", "text": "text"}
# Compressed libsvm files load_svmlight_file opens by their suffix.
_COMPRESSED_LIBSVM = {("gzip", ".gz"), ("bzip2", ".bz2")}
_SNIFF_BYTES = 1 << 16


def _content_kind(path: Path) -> str:
    """``empty``, ``text``, ``binary`` or the format its first bytes announce."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not head:
        return "empty"
    for magic, kind in _SIGNATURES:
        if head.startswith(magic):
            return kind
    return "binary" if b"\x00" in head else "text"


def _checked_file(path: Path, fmt: str, key: str) -> Path:
    """``path``, once it exists and its first bytes fit ``fmt``."""
    if not path.exists():
        raise DataError(f"{key}: {path} does not exist")
    if not path.is_file():
        raise DataError(f"{key}: {path} is not a file")
    kind = _content_kind(path)
    if kind == "empty":
        raise DataError(f"{key}: {path} is empty")
    expected = "text" if fmt in _TEXT_FORMATS else fmt
    if kind == expected or (fmt == "libsvm" and (kind, path.suffix.lower()) in _COMPRESSED_LIBSVM):
        return path
    if fmt == "hdf5" and _is_hdf5(path):  # the signature may follow a user block
        return path
    raise DataError(f"{key}: {path} is not a valid {fmt} file: it holds {_KIND_NAMES[kind]}; set "
                    f"dataset.format to the file's format, or give it that format's suffix")


def _is_hdf5(path: Path) -> bool:
    import h5py  # imported here: only HDF5 files need it

    return bool(h5py.is_hdf5(path))


def _sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


# What a truncated or corrupt file raises in the libraries that read it.
_READ_ERRORS = (ValueError, OSError, EOFError, KeyError, TypeError, zipfile.BadZipFile)


@contextmanager
def _reading(path: Path, fmt: str, *errors: type[Exception]) -> Iterator[None]:
    """Turn a reading library's failure inside the block into a DataError naming ``path``."""
    try:
        yield
    except (*_READ_ERRORS, *errors) as exc:
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"cannot read {path} as {fmt}: the file is truncated, corrupt or not "
                        f"{fmt} ({type(exc).__name__}: {why})") from exc


def _check_budget(paths: Sequence[Path], needed: int, how: str, budget: MemoryBudget) -> None:
    if needed > budget.host:
        raise DataError(f"{', '.join(map(str, paths))}: the data need {in_gib(needed):.3g} GiB "
                        f"({how}), more than the memory budget, {budget.describe()}; raise "
                        f"budget.memory_gb or use a smaller file")


# ------------------------------------------------------------------------------------ reading


@dataclass
class _Table:
    """One file's rows before the task is known."""

    path: Path
    X: np.ndarray | sp.csr_matrix
    #: float64, or str (``U``) for text labels
    y: np.ndarray
    #: how messages name the target: ``column 'label'``, ``array 'y'``, ``the last column``
    target: str
    #: the feature columns' names (csv, tsv, parquet); ``None``: by position
    columns: tuple[str, ...] | None = None
    #: the target column's name (csv, tsv, parquet), which a test file must have too
    target_key: str | None = None


def _read_tables(spec: FileDatasetSpec, fmt: str, paths: list[Path], budget: MemoryBudget,
                 dtype: np.dtype) -> list[_Table]:
    """Read the training (and test) file, the budget checked first."""
    if fmt == "libsvm":
        tables = _read_libsvm(spec, paths, budget, dtype)
    else:
        if fmt in ("csv", "tsv"):
            size = sum(p.stat().st_size for p in paths)
            _check_budget(paths, 4 * size, f"an upper bound: {size} bytes of {fmt} text hold at "
                          f"most {size // 2} numbers, 8 bytes each as float64", budget)
        else:
            shapes = [_SHAPES[fmt](path, spec) for path in paths]
            rows, columns = sum(s[0] for s in shapes), shapes[0][1]
            _check_budget(paths, rows * columns * dtype.itemsize,
                          f"{rows} rows × {columns - 1} features + target, {dtype.name}", budget)
        tables = [_READERS[fmt](paths[0], spec, spec.target)]
        if len(paths) == 2:  # the test file's target column is the training file's
            tables.append(_READERS[fmt](paths[1], spec, tables[0].target_key or spec.target))
    for table in tables:
        if table.X.shape[0] == 0:
            raise DataError(f"{table.path} has no data rows")
        if table.X.shape[1] == 0:
            raise DataError(f"{table.path} has no feature columns")
    return tables


def _read_libsvm(spec: FileDatasetSpec, paths: list[Path], budget: MemoryBudget,
                 dtype: np.dtype) -> list[_Table]:
    # imported here: sklearn.datasets costs most of the CLI's start-up time
    from sklearn.datasets import load_svmlight_file

    matrices, labels = [], []
    for path in paths:
        with _reading(path, "libsvm"):
            # read 0-based, then decide the base over all files together, as LIBSVM tools do
            X, y = load_svmlight_file(str(path), zero_based=True, dtype=np.float64)
        matrices.append(X.tocsr())
        labels.append(y)
    if not any(X.nnz and X.indices.min() == 0 for X in matrices):
        matrices = [X[:, 1:].tocsr() for X in matrices]  # indices from 1: no column 0
    widths = [X.shape[1] for X in matrices]
    width = spec.n_features or widths[0]
    if widths[0] > width:
        raise DataError(f"dataset.n_features: {paths[0]} has {widths[0]} features (its largest "
                        f"feature index), more than dataset.n_features ({width})")
    if len(paths) == 2 and widths[1] > width:
        raise DataError(f"dataset.test_file: {paths[1]} has {widths[1]} features (its largest "
                        f"feature index), more than the training file {paths[0]} ({width})")
    rows = sum(X.shape[0] for X in matrices)
    _check_budget(paths, rows * (width + 1) * dtype.itemsize,
                  f"{rows} rows × {width} features + target, {dtype.name}", budget)
    for X in matrices:
        X.resize((X.shape[0], width))
    return [_Table(path, X, y, "the label")
            for path, X, y in zip(paths, matrices, labels, strict=True)]


def _numeric_kind(dtype: np.dtype) -> bool:
    return dtype.kind in "biuf"


def _npy_shape(path: Path, spec: FileDatasetSpec) -> tuple[int, int]:
    with _reading(path, "npy"):
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    if array.ndim != 2 or array.shape[1] < 2:
        raise DataError(f"{path}: an npy dataset is one 2-D array, the features and the target "
                        f"as its last column; this one has shape {array.shape}")
    if not _numeric_kind(array.dtype):
        raise DataError(f"{path}: the array holds {array.dtype} values, not numbers")
    return array.shape


def _read_npy(path: Path, spec: FileDatasetSpec, target: str | None) -> _Table:
    with _reading(path, "npy"):
        array = np.load(path, mmap_mode="r", allow_pickle=False)
        X = np.array(array[:, :-1], dtype=np.float64)
        y = np.array(array[:, -1], dtype=np.float64)
    return _Table(path, X, y, "the last column")


def _npz_arrays(path: Path) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """Each array of an npz archive with its shape and dtype, from the headers only."""
    found = {}
    with _reading(path, "npz"), zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if not name.endswith(".npy"):
                continue
            with archive.open(name) as member:
                version = np.lib.format.read_magic(member)
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, _, dtype = read_header(member)
            found[name[: -len(".npy")]] = (shape, dtype)
    return found


def _hdf5_arrays(path: Path) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """Each dataset of an HDF5 file (by its path inside the file) with its shape and dtype."""
    import h5py

    found = {}

    def visit(name: str, item: object) -> None:
        if isinstance(item, h5py.Dataset):
            found[name] = (item.shape, item.dtype)

    with _reading(path, "hdf5"), h5py.File(path, "r") as handle:
        handle.visititems(visit)
    return found


def _pair_keys(spec: FileDatasetSpec) -> tuple[str, str]:
    """The feature and target arrays' names, as h5py lists them (no leading ``/``)."""
    return (spec.features or "X").strip("/"), (spec.target or "y").strip("/")


def _pair_shape(path: Path, arrays: dict[str, tuple[tuple[int, ...], np.dtype]],
                spec: FileDatasetSpec) -> tuple[int, int]:
    """Rows and columns (features + target) of an npz/hdf5 file's pair of arrays."""
    features, target = _pair_keys(spec)
    for key, setting in ((features, "dataset.features"), (target, "dataset.target")):
        if key not in arrays:
            raise DataError(f"{setting}: no array {key!r} in {path}; it holds "
                            f"{_listing(sorted(arrays))}")
    (x_shape, x_dtype), (y_shape, y_dtype) = arrays[features], arrays[target]
    if len(x_shape) != 2:
        raise DataError(f"{path}: array {features!r} must be 2-D (rows × features), it has "
                        f"shape {x_shape}")
    if not _numeric_kind(x_dtype):
        raise DataError(f"{path}: array {features!r} holds {x_dtype} values, not numbers")
    if not (len(y_shape) == 1 or (len(y_shape) == 2 and y_shape[1] == 1)):
        raise DataError(f"{path}: array {target!r} must hold one value per row, it has shape "
                        f"{y_shape}")
    if not (_numeric_kind(y_dtype) or y_dtype.kind in "OSU"):
        raise DataError(f"{path}: array {target!r} holds {y_dtype} values, not numbers or text")
    if x_shape[0] != y_shape[0]:
        raise DataError(f"{path}: array {features!r} has {x_shape[0]} rows, array {target!r} "
                        f"{y_shape[0]}")
    return x_shape[0], x_shape[1] + 1


def _target_values(y: np.ndarray) -> np.ndarray:
    """Numbers as float64, anything else (text, bytes) as str."""
    y = y.reshape(-1)
    if _numeric_kind(y.dtype):
        return y.astype(np.float64)
    return np.array([v.decode() if isinstance(v, bytes) else str(v) for v in y.tolist()],
                    dtype=str)


def _read_npz(path: Path, spec: FileDatasetSpec, target: str | None) -> _Table:
    features, target_key = _pair_keys(spec)
    with _reading(path, "npz"), np.load(path, allow_pickle=False) as archive:
        X = np.asarray(archive[features], dtype=np.float64)
        y = _target_values(archive[target_key])
    return _Table(path, X, y, f"array {target_key!r}")


def _read_hdf5(path: Path, spec: FileDatasetSpec, target: str | None) -> _Table:
    import h5py

    features, target_key = _pair_keys(spec)
    with _reading(path, "hdf5"), h5py.File(path, "r") as handle:
        X = np.asarray(handle[features][()], dtype=np.float64)
        y = _target_values(np.asarray(handle[target_key][()]))
    return _Table(path, X, y, f"array {target_key!r}")


# pandas' message for a row with more fields than the first rows
_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _read_text_table(path: Path, spec: FileDatasetSpec, target: str | None) -> _Table:
    fmt = spec.resolved_format
    sep = "," if fmt == "csv" else "\t"
    with _reading(path, fmt, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError):
        try:
            with warnings.catch_warnings():
                # pandas drops the extra fields of rows all longer than the header, with a
                # warning (index_col=False; without it they silently become an index)
                warnings.simplefilter("error", pd.errors.ParserWarning)
                frame = pd.read_csv(path, sep=sep, header=0, index_col=False, low_memory=False)
        except pd.errors.ParserWarning:
            header, first = (len(pd.read_csv(path, sep=sep, header=None, skiprows=k, nrows=1,
                                              dtype=str).columns) for k in (0, 1))
            raise DataError(f"{path}: the rows have {first} fields, the header has "
                            f"{header}") from None
        except pd.errors.ParserError as exc:
            ragged = _RAGGED.search(str(exc))
            if ragged is None:
                raise
            fields, line, saw = (int(g) for g in ragged.groups())
            raise DataError(f"{path}: row {line - 1} (line {line}) has {saw} fields, the header "
                            f"has {fields}") from None
    columns = [str(c) for c in frame.columns]
    if columns and all(_parses_as_number(c) for c in columns):
        with path.open(encoding="utf-8", errors="replace") as handle:
            first = handle.readline().strip()
        raise DataError(f"{path}: the first line ({first[:60]}{'…' if len(first) > 60 else ''}) "
                        f"holds only numbers: {fmt} files need a header row naming the columns")
    return _from_frame(path, frame, target, fmt)


def _parses_as_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _pyarrow_parquet(path: Path) -> ModuleType:
    try:  # imported here: an optional dependency (the parquet extra)
        import pyarrow.parquet as pq
    except ImportError as exc:
        reason = None if (exc.name or "").startswith("pyarrow") else str(exc)
        raise MissingDependencyError(f"reading {path}", "pyarrow", "parquet", reason) from None
    return pq


def _parquet_shape(path: Path, spec: FileDatasetSpec) -> tuple[int, int]:
    pq = _pyarrow_parquet(path)
    import pyarrow as pa

    with _reading(path, "parquet", pa.ArrowException):
        meta = pq.read_metadata(path)
        names = meta.schema.to_arrow_schema().names
    if spec.target is not None and spec.target not in names:
        raise DataError(f"dataset.target: no column {spec.target!r} in {path}; its columns are "
                        f"{_listing(names)}")
    return meta.num_rows, meta.num_columns


def _read_parquet(path: Path, spec: FileDatasetSpec, target: str | None) -> _Table:
    pq = _pyarrow_parquet(path)
    import pyarrow as pa

    with _reading(path, "parquet", pa.ArrowException):
        frame = pq.read_table(path).to_pandas()
    return _from_frame(path, frame, target, "parquet")


def _from_frame(path: Path, frame: pd.DataFrame, target: str | None, fmt: str) -> _Table:
    """A table's target and numeric feature columns."""
    frame.columns = columns = [str(c) for c in frame.columns]
    if len(columns) < 2:
        raise DataError(f"{path}: {len(columns)} column; a {fmt} dataset needs a target column "
                        f"and at least one feature column")
    target = columns[-1] if target is None else target
    if target not in columns:
        raise DataError(f"dataset.target: no column {target!r} in {path}; its columns are "
                        f"{_listing(columns)}")
    features = [c for c in columns if c != target]
    for name in features:
        frame[name] = _numeric_column(path, name, frame[name])
    X = frame[features].to_numpy(dtype=np.float64, na_value=np.nan)
    return _Table(path, X, _frame_target(path, target, frame[target]), f"column {target!r}",
                  tuple(features), target)


def _numeric_column(path: Path, name: str, column: pd.Series) -> pd.Series:
    if pd.api.types.is_numeric_dtype(column):
        return column
    converted = pd.to_numeric(column, errors="coerce")
    bad = (converted.isna() & column.notna()).to_numpy()
    if bad.any():
        row = int(np.argmax(bad))
        raise DataError(f"{path}: column {name!r} is not numeric: row {row + 1} holds "
                        f"{column.iloc[row]!r} ({int(bad.sum())} such values); features must be "
                        f"numbers")
    return converted


def _frame_target(path: Path, name: str, column: pd.Series) -> np.ndarray:
    if pd.api.types.is_numeric_dtype(column):
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    missing = column.isna().to_numpy()
    if missing.any():
        raise DataError(f"{path}: the target column {name!r} has {int(missing.sum())} empty "
                        f"value(s), the first at row {int(np.argmax(missing)) + 1}")
    return column.astype(str).to_numpy(dtype=str)


_SHAPES: dict[str, Callable[[Path, FileDatasetSpec], tuple[int, int]]] = {
    "npy": _npy_shape,
    "npz": lambda path, spec: _pair_shape(path, _npz_arrays(path), spec),
    "hdf5": lambda path, spec: _pair_shape(path, _hdf5_arrays(path), spec),
    "parquet": _parquet_shape,
}
_READERS: dict[str, Callable[[Path, FileDatasetSpec, str | None], _Table]] = {
    "csv": _read_text_table, "tsv": _read_text_table, "npy": _read_npy, "npz": _read_npz,
    "hdf5": _read_hdf5, "parquet": _read_parquet,
}


# ------------------------------------------------------------------------- checks of the rows


def _match_test_columns(tables: list[_Table]) -> None:
    """A test file must have the training file's features (named columns in any order)."""
    if len(tables) < 2:
        return
    train, test = tables
    if train.columns is not None and test.columns is not None:
        missing = [c for c in train.columns if c not in test.columns]
        extra = [c for c in test.columns if c not in train.columns]
        if missing or extra:
            raise DataError(f"dataset.test_file: {test.path} has other columns than "
                            f"{train.path}: missing {_listing(missing)}, extra {_listing(extra)}")
        order = [test.columns.index(c) for c in train.columns]
        test.X, test.columns = test.X[:, order], train.columns
    elif train.X.shape[1] != test.X.shape[1]:
        raise DataError(f"dataset.test_file: {test.path} has {test.X.shape[1]} feature columns, "
                        f"the training file {train.path} has {train.X.shape[1]}")


def _check_finite(table: _Table) -> None:
    """No NaN or infinite value among the features and a numeric target: count them."""
    values = table.X.data if sp.issparse(table.X) else table.X
    target = table.y if _numeric_kind(table.y.dtype) else np.zeros(0)
    if np.isfinite(values).all() and np.isfinite(target).all():
        return
    counts = [int(np.isnan(a).sum()) for a in (values, target)]
    infinite = [int(np.isinf(a).sum()) for a in (values, target)]
    bad = ~np.isfinite(values)
    if not bad.any():
        first_at = f" (first at row {int(np.argmax(~np.isfinite(target))) + 1} of the target)"
    else:
        if sp.issparse(table.X):
            first = int(np.argmax(bad))
            row = int(np.searchsorted(table.X.indptr, first, side="right")) - 1
            row, column = row, int(table.X.indices[first])
        else:
            row, column = (int(i) for i in np.argwhere(bad)[0])
        name = table.columns[column] if table.columns else str(column + 1)
        first_at = f" (first at row {row + 1}, column {name!r})"
    hint = (" (an empty field, or a row with fewer fields than the header, reads as NaN)"
            if table.columns is not None else "")
    raise DataError(f"{table.path}: {counts[0]} NaN and {infinite[0]} infinite value(s) among the "
                    f"features, {counts[1]} NaN and {infinite[1]} infinite in the target "
                    f"({table.target}){first_at}{hint}")


def _sparsity(matrices: list[np.ndarray | sp.csr_matrix]) -> float:
    size = sum(X.shape[0] * X.shape[1] for X in matrices)
    nonzero = sum(X.count_nonzero() if sp.issparse(X) else np.count_nonzero(X)
                  for X in matrices)
    return 1.0 - nonzero / size


def _task_and_labels(spec: FileDatasetSpec, tables: list[_Table]) -> tuple[str, Labels]:
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
                            f"{_listing([v.item() for v in unseen])} that the training file "
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


def _check_task(task: str, values: np.ndarray, text: bool, table: _Table, *, given: bool) -> None:
    said = f"dataset.task is {task}" if given else f"the target looks {task}"
    about = f"{table.path}: {said}, but the target ({table.target})"
    if task == "regression" and text:
        raise DataError(f"{about} holds text, such as {values[0].item()!r}")
    if task == "binary" and len(values) != 2:
        raise DataError(f"{about} has {len(values)} distinct values: "
                        f"{_listing([v.item() for v in values], 10)}")
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
