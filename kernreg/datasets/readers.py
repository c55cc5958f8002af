"""Parsers: turn the published files of a source into row blocks ``(X, y)``.

Each factory returns a :data:`~kernreg.datasets.spec.Reader` bound to its format parameters.
Compressed files (``.gz``, ``.bz2``, ``.xz``, ``.zip``) are read directly; any parse failure
becomes a :class:`~kernreg.errors.DataError` naming the file.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from kernreg.datasets.spec import Part, Reader
from kernreg.errors import DataError, MissingDependencyError

# What a corrupt or truncated file raises in the libraries used below.
_PARSE_ERRORS = (
    ValueError, EOFError, OSError, KeyError, IndexError, TypeError,
    zipfile.BadZipFile, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
)


@contextmanager
def parsing(path: Path) -> Iterator[None]:
    """Turn any parse failure inside the block into a DataError naming ``path``."""
    try:
        yield
    except DataError:
        raise
    except _PARSE_ERRORS as exc:
        raise DataError(f"cannot parse {path}: {type(exc).__name__}: {exc}") from exc


def _float_table(path: Path, sep: str, header: int | None = None, **kwargs: object) -> pd.DataFrame:
    with parsing(path):
        return pd.read_csv(path, sep=sep, header=header, compression="infer", **kwargs)


def svmlight(n_features: int) -> Reader:
    """LIBSVM/svmlight text files (optionally ``.bz2``/``.gz``), one part per file, made dense."""

    def read(paths: Sequence[Path]) -> list[Part]:
        parts = []
        for path in paths:
            with parsing(path):
                # imported here: sklearn.datasets costs most of the CLI's start-up time
                from sklearn.datasets import load_svmlight_file

                X, y = load_svmlight_file(str(path), n_features=n_features, dtype=np.float64)
            parts.append((X.toarray(), y))
        return parts

    return read


def coil2000() -> Reader:
    """UCI COIL 2000: ``ticdata2000.txt`` (85 features + CARAVAN), ``ticeval2000.txt`` (85
    features), ``tictgts2000.txt`` (CARAVAN of the evaluation rows); tab separated."""

    def read(paths: Sequence[Path]) -> list[Part]:
        train, evaluation, targets = paths
        tr = _float_table(train, sep="\t").to_numpy(dtype=np.float64)
        te = _float_table(evaluation, sep="\t").to_numpy(dtype=np.float64)
        y_te = _float_table(targets, sep="\t").to_numpy(dtype=np.float64)
        for path, table, cols in ((train, tr, 86), (evaluation, te, 85), (targets, y_te, 1)):
            if table.shape[1] != cols:
                raise DataError(f"{path}: expected {cols} columns, found {table.shape[1]}")
        if y_te.shape[0] != te.shape[0]:
            raise DataError(
                f"{targets}: {y_te.shape[0]} targets for {te.shape[0]} rows of {evaluation}"
            )
        return [(tr[:, :85], tr[:, 85]), (te, y_te[:, 0])]

    return read


def csv_with_header(target: str, features: Sequence[str] | None = None) -> Reader:
    """Comma-separated file with a header row; ``target`` names the target column and
    ``features`` (default: all other columns, in file order) the feature columns."""

    def read(paths: Sequence[Path]) -> list[Part]:
        (path,) = paths
        table = _float_table(path, sep=",", header=0)
        names = list(features) if features is not None else [c for c in table if c != target]
        missing = [c for c in [target, *names] if c not in table.columns]
        if missing:
            raise DataError(f"{path}: missing column(s) {', '.join(missing)}")
        with parsing(path):
            X = table[names].to_numpy(dtype=np.float64)
            y = table[target].to_numpy(dtype=np.float64)
        return [(X, y)]

    return read


def delimited(sep: str, target_column: int, n_columns: int, header: int | None = None) -> Reader:
    """Delimited numeric table with no header (``sep=r"\\s+"`` for whitespace), one part per
    file; column ``target_column`` (may be negative) is the target, the others are features."""

    def read(paths: Sequence[Path]) -> list[Part]:
        parts = []
        for path in paths:
            table = _float_table(path, sep=sep, header=header)
            if table.shape[1] != n_columns:
                raise DataError(f"{path}: expected {n_columns} columns, found {table.shape[1]}")
            with parsing(path):
                values = table.to_numpy(dtype=np.float64)
            t = target_column % n_columns
            parts.append((np.delete(values, t, axis=1), values[:, t]))
        return parts

    return read


def wdbc_uci() -> Reader:
    """UCI ``wdbc.data``: id, diagnosis (M/B), 30 real features; returns labels M → 1, B → 0."""

    def read(paths: Sequence[Path]) -> list[Part]:
        (path,) = paths
        table = _float_table(path, sep=",", header=None)
        if table.shape[1] != 32:
            raise DataError(f"{path}: expected 32 columns, found {table.shape[1]}")
        diagnosis = table[1].astype(str).str.strip()
        bad = ~diagnosis.isin(["M", "B"])
        if bad.any():
            raise DataError(f"{path}: diagnosis must be M or B, row {int(np.argmax(bad))} is not")
        with parsing(path):
            X = table.iloc[:, 2:].to_numpy(dtype=np.float64)
        return [(X, (diagnosis == "M").to_numpy(dtype=np.float64))]

    return read


def wdbc_sklearn() -> Reader:
    """scikit-learn's bundled ``breast_cancer.csv`` (the same 569 WDBC rows): a header line
    ``569,30,malignant,benign``, then 30 features and the class (0 malignant, 1 benign);
    returns labels malignant → 1, benign → 0, as :func:`wdbc_uci` does."""

    def read(paths: Sequence[Path]) -> list[Part]:
        (path,) = paths
        table = _float_table(path, sep=",", header=None, skiprows=1)
        if table.shape[1] != 31:
            raise DataError(f"{path}: expected 31 columns, found {table.shape[1]}")
        with parsing(path):
            values = table.to_numpy(dtype=np.float64)
        return [(values[:, :30], (values[:, 30] == 0).astype(np.float64))]

    return read


def covertype_rda() -> Reader:
    """The R data file ``covertype.rda`` (sgmcmc package): a 581012 × 55 matrix, column 0 =
    LIBSVM label − 1, columns 1..54 the unscaled features.

    To stand in for LIBSVM's ``covtype.libsvm.binary.scale`` it returns what that file holds:
    labels 1/2 and every feature min-max scaled to [0, 1] over all rows (as ``svm-scale`` does;
    LIBSVM's file carries about 6 significant digits, this copy full precision).
    """

    def read(paths: Sequence[Path]) -> list[Part]:
        (path,) = paths
        try:  # imported here: only this reader needs it, and it is slow to import
            import rdata
        except ImportError as exc:  # an optional dependency (the rdata extra)
            reason = None if exc.name == "rdata" else str(exc)  # else one of its own is broken
            raise MissingDependencyError(f"reading {path}", "rdata", "rdata", reason) from None
        with parsing(path):
            converted = rdata.read_rda(str(path))
            matrix = np.asarray(converted["covertype"], dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[1] != 55:
            raise DataError(f"{path}: expected a matrix with 55 columns, got shape {matrix.shape}")
        X = matrix[:, 1:]
        low, high = X.min(axis=0), X.max(axis=0)
        span = np.where(high > low, high - low, 1.0)
        X -= low
        X /= span
        return [(X, matrix[:, 0] + 1.0)]

    return read


def zipped_csv(target_column: int, n_columns: int) -> Reader:
    """A ``.zip`` archive holding one headerless comma-separated table."""
    inner = delimited(",", target_column, n_columns)

    def read(paths: Sequence[Path]) -> list[Part]:
        for path in paths:
            with parsing(path), zipfile.ZipFile(path) as archive:
                members = [n for n in archive.namelist() if not n.endswith("/")]
                if len(members) != 1:
                    raise DataError(f"{path}: expected one file in the archive, found {members}")
        return inner(paths)

    return read


# IDX type codes (LeCun's format): the byte after the two zero bytes of the magic number.
_IDX_DTYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: Path) -> np.ndarray:
    """One IDX file (``.gz`` or plain): magic ``00 00 <type> <ndim>``, ``ndim`` big-endian
    uint32 sizes, then the values in C order. Returns an array of that shape."""
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with parsing(path), opener(path, "rb") as handle:
        raw = handle.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise DataError(f"{path}: not an IDX file (magic bytes {raw[:4].hex() or 'missing'})")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise DataError(f"{path}: IDX header truncated")
    shape = tuple(int(s) for s in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    dtype = np.dtype(_IDX_DTYPES[raw[2]])
    expected = header + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(raw) != expected:
        raise DataError(f"{path}: IDX header announces shape {shape} ({expected} bytes), "
                        f"the file has {len(raw)} bytes; the file is truncated or corrupt")
    return np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape)


def idx_images_labels() -> Reader:
    """Pairs of IDX files ``(images, labels, images, labels, …)``, one part per pair: each
    image flattened to a row (MNIST: 28 × 28 → 784 raw pixel values 0–255), labels as floats."""

    def read(paths: Sequence[Path]) -> list[Part]:
        if len(paths) % 2:
            raise DataError(f"IDX reader: expected image/label file pairs, got {len(paths)} files")
        parts = []
        for images_path, labels_path in zip(paths[::2], paths[1::2], strict=True):
            images, labels = read_idx(images_path), read_idx(labels_path)
            if images.ndim < 2 or labels.ndim != 1:
                raise DataError(f"{images_path}, {labels_path}: expected images of ≥ 2 "
                                f"dimensions and 1-d labels, got {images.shape}, {labels.shape}")
            if images.shape[0] != labels.shape[0]:
                raise DataError(f"{images_path}: {images.shape[0]} images for "
                                f"{labels.shape[0]} labels in {labels_path}")
            parts.append((images.reshape(images.shape[0], -1).astype(np.float64),
                          labels.astype(np.float64)))
        return parts

    return read
