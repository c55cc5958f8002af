"""What a config's ``dataset: {file: ...}`` block says about a user's data file: the formats,
tasks and preprocessing steps there are, and :class:`FileDatasetSpec`, checked when built."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernreg._validation import is_int
from kernreg.errors import DataError

__all__ = ["ARRAY_PAIRS", "DEFAULT_MEMORY_GB", "DEFAULT_TEST_FRACTION", "FORMATS", "MAX_CLASSES",
           "PREPROCESSING", "SUFFIXES", "TASKS", "FileDatasetSpec", "is_number",
           "listing"]

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
#: The formats holding a feature array and a target array by name.
ARRAY_PAIRS = ("npz", "hdf5")


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
        if self.features is not None and fmt not in ARRAY_PAIRS:
            problems.append(f"dataset.features: only npz and hdf5 files name a feature array, "
                            f"this is {fmt}")
        elif self.features is not None and (not isinstance(self.features, str)
                                            or not self.features):
            problems.append(f"dataset.features: must be an array name, got {self.features!r}")
        if self.n_features is not None:
            if fmt != "libsvm":
                problems.append(f"dataset.n_features: only libsvm files take it, this is {fmt}")
            elif not is_int(self.n_features) or self.n_features < 1:
                problems.append(f"dataset.n_features: must be a positive integer, "
                                f"got {self.n_features!r}")
        if self.test_fraction is not None:
            if self.test_file is not None:
                problems.append("dataset.test_fraction: not allowed with dataset.test_file "
                                "(the test file holds the test rows)")
            elif not is_number(self.test_fraction) or not 0 < self.test_fraction < 1:
                problems.append(f"dataset.test_fraction: must be a number between 0 and 1 "
                                f"(exclusive), got {self.test_fraction!r}")
        if self.task is not None and self.task not in TASKS:
            problems.append(f"dataset.task: {self.task!r} is not one of {', '.join(TASKS)}")
        unknown = [s for s in self.preprocessing if s not in PREPROCESSING]
        if unknown:
            problems.append(f"dataset.preprocessing: {', '.join(map(repr, unknown))} not among "
                            f"{', '.join(PREPROCESSING)}")
        if self.sigma is not None and (not is_number(self.sigma) or not math.isfinite(self.sigma)
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


# --------------------------------------------------------------------------- checks of values


def is_number(value: object) -> bool:
    """A real number (Python or numpy), not a bool."""
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def _as_path(value: object, key: str, problems: list[str]) -> Path:
    if isinstance(value, str | os.PathLike) and str(value):
        return Path(value)
    problems.append(f"{key}: must be a file path, got {value!r}")
    return Path(str(value))


def listing(names: Sequence[str], limit: int = 20) -> str:
    """``names`` quoted and joined for a message, at most ``limit`` of them."""
    shown = ", ".join(repr(n) for n in names[:limit])
    more = f", … ({len(names) - limit} more)" if len(names) > limit else ""
    return (shown + more) or "(none)"
