"""Registry entries: what a dataset is, where its files come from and how it is prepared.

One :class:`DatasetSpec` per dataset, registered once in :mod:`kernreg.datasets.catalog`.
A spec lists one or more :class:`Source` objects (alternative ways to obtain the same raw data,
e.g. the canonical LIBSVM file and a verified derived copy); each source lists its
:class:`RemoteFile` objects and the reader that turns those files into row blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from kernreg.errors import DataError
from kernreg.registry import Registry

#: A block of rows: features (n, d) and raw targets/labels (n,).
Part = tuple[np.ndarray, np.ndarray]
#: A reader turns the local paths of a source's files (same order as ``Source.files``) into parts.
Reader = Callable[[Sequence[Path]], list[Part]]

#: ``multiclass``: the class labels are kept as they are; the estimator codes them.
Task = Literal["regression", "classification", "multiclass"]


@dataclass(frozen=True)
class RemoteFile:
    """One file as published, with the checksum of its bytes.

    Parameters
    ----------
    name
        File name in the cache (the canonical published name).
    urls
        Download locations, tried in order.
    known_hash
        ``"sha256:<hex>"`` or ``"md5:<hex>"`` of the bytes as published, or ``None`` when no
        checksum of the original is known: the first copy obtained is then pinned (its sha256
        recorded next to it) and every later read is checked against that pin.
    mirror_paths
        Paths, relative to a mirror folder, where an offline copy may lie (the mirror's layout,
        see ``../shared/datasets/MANIFEST.md``); ``name`` at the mirror's top level is also tried.
    package_file
        ``(package, file)`` of a copy shipped inside an installed Python package (e.g.
        scikit-learn's bundled WDBC table), used before any download.
    """

    name: str
    urls: tuple[str, ...]
    known_hash: str | None
    mirror_paths: tuple[str, ...] = ()
    package_file: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.known_hash is not None:
            algo, _, digest = self.known_hash.partition(":")
            if algo not in ("sha256", "md5") or not digest:
                raise ValueError(f"{self.name}: known_hash must be 'sha256:…' or 'md5:…'")


@dataclass(frozen=True)
class Source:
    """One way to obtain a dataset's raw rows: a set of files and the reader that parses them."""

    name: str
    files: tuple[RemoteFile, ...]
    reader: Reader
    description: str


@dataclass(frozen=True)
class Preprocessing:
    """One named preprocessing step applied to the split data.

    ``apply(splits)`` returns new splits; ``description`` says exactly what it does and is shown
    by ``kernreg data info``. The step's name and parameters enter the cache key.
    """

    name: str
    description: str
    apply: Callable[[Splits], Splits]


@dataclass
class Splits:
    """Train/test arrays of one dataset."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


@dataclass(frozen=True)
class FileSplit:
    """The source's first part is the training set, the second the test set."""

    def apply(self, parts: list[Part]) -> Splits:
        if len(parts) != 2:
            raise DataError(f"expected a training and a test part, the reader gave {len(parts)}")
        (X_tr, y_tr), (X_te, y_te) = parts
        return Splits(X_tr, y_tr, X_te, y_te)

    def describe(self) -> str:
        return "published train / test files"


@dataclass(frozen=True)
class RowSplit:
    """All parts concatenated in file order; the first ``n_train`` rows train, the next test."""

    n_train: int
    n_test: int

    def apply(self, parts: list[Part]) -> Splits:
        X = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
        y = np.concatenate([p[1] for p in parts]) if len(parts) > 1 else parts[0][1]
        if X.shape[0] != self.n_train + self.n_test:
            raise DataError(
                f"expected {self.n_train + self.n_test} rows in file order, found {X.shape[0]}"
            )
        n = self.n_train
        return Splits(X[:n], y[:n], X[n:], y[n:])

    def describe(self) -> str:
        return f"file order: first {self.n_train} rows train, next {self.n_test} rows test"


@dataclass(frozen=True)
class DatasetSpec:
    """Everything kernreg knows about one dataset.

    ``n_train``, ``n_test`` and ``d`` are checked against what the files give; ``raw_labels`` (for
    classification) is the exact label set the files must contain before preprocessing.
    ``sigma`` and ``m`` are the paper's defaults (``None`` where the paper gives none).
    ``stopping_threshold`` is the threshold θ the authors applied with the ``window_slope``
    stopping rule (window 10) to obtain NYTRO Table 2's t* (``None`` where they recorded none);
    configs using that rule without a threshold get it.
    """

    name: str
    title: str
    task: Task
    n_train: int
    n_test: int
    d: int
    sources: tuple[Source, ...]
    split: FileSplit | RowSplit
    preprocessing: tuple[Preprocessing, ...]
    sigma: float | None
    m: int | None
    reference: str
    aliases: tuple[str, ...] = ()
    raw_labels: tuple[float, ...] | None = None
    stopping_threshold: float | None = None
    notes: str = ""
    #: Bumped whenever the reader or preprocessing changes meaning, to invalidate caches.
    version: int = 1


_DATASETS: Registry[DatasetSpec] = Registry("dataset", lambda spec: spec.name, DataError,
                                             fold=str.lower,
                                             aliases_of=lambda spec: spec.aliases)
#: Add a dataset (names and aliases case-insensitive and unique); remove one and its aliases
#: (a test's generated dataset); look one up by name or alias (else a ``DataError`` naming
#: the registered ones); the registered names, in registration order.
register, unregister, get_spec, dataset_names = (_DATASETS.register, _DATASETS.unregister,
                                                 _DATASETS.get, _DATASETS.names)


def paper_default(spec: DatasetSpec, param: str, key: str, problems: list[str]) -> Any:
    """The paper's value of ``param`` (``"sigma"`` or ``"m"``) for ``spec``'s dataset: what a
    setting left out takes. Where the paper gives none, ``None``, and ``problems`` gets a line
    naming ``key`` (the setting is then required)."""
    value = getattr(spec, param)
    if value is None:
        problems.append(f"{key}: required, dataset {spec.name} has no paper default")
    return value
