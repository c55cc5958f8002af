"""Reading a user's data file(s) in any of the formats of
:data:`~kernreg.datasets.file_spec.FORMATS` into row tables, with every check of the bytes and
the rows: the file is there and its first bytes fit its format, the dense data fit the memory
budget (from the header or shape, before the data are read), no ragged rows, non-numeric
fields, NaN or infinite values, a test file with the training file's columns."""

from __future__ import annotations

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

from kernreg.backend.memory import MemoryBudget, in_gib
from kernreg.datasets.file_spec import FileDatasetSpec, listing
from kernreg.errors import DataError, MissingDependencyError

__all__ = ["Table", "check_finite", "checked_file", "match_test_columns", "read_tables",
           "sparsity_of"]

_TEXT_FORMATS = ("libsvm", "csv", "tsv")

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


def checked_file(path: Path, fmt: str, key: str) -> Path:
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
class Table:
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


def read_tables(spec: FileDatasetSpec, fmt: str, paths: list[Path], budget: MemoryBudget,
                 dtype: np.dtype) -> list[Table]:
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
                 dtype: np.dtype) -> list[Table]:
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
    return [Table(path, X, y, "the label")
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


def _read_npy(path: Path, spec: FileDatasetSpec, target: str | None) -> Table:
    with _reading(path, "npy"):
        array = np.load(path, mmap_mode="r", allow_pickle=False)
        X = np.array(array[:, :-1], dtype=np.float64)
        y = np.array(array[:, -1], dtype=np.float64)
    return Table(path, X, y, "the last column")


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
                            f"{listing(sorted(arrays))}")
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


def _read_npz(path: Path, spec: FileDatasetSpec, target: str | None) -> Table:
    features, target_key = _pair_keys(spec)
    with _reading(path, "npz"), np.load(path, allow_pickle=False) as archive:
        X = np.asarray(archive[features], dtype=np.float64)
        y = _target_values(archive[target_key])
    return Table(path, X, y, f"array {target_key!r}")


def _read_hdf5(path: Path, spec: FileDatasetSpec, target: str | None) -> Table:
    import h5py

    features, target_key = _pair_keys(spec)
    with _reading(path, "hdf5"), h5py.File(path, "r") as handle:
        X = np.asarray(handle[features][()], dtype=np.float64)
        y = _target_values(np.asarray(handle[target_key][()]))
    return Table(path, X, y, f"array {target_key!r}")


# pandas' message for a row with more fields than the first rows
_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _read_text_table(path: Path, spec: FileDatasetSpec, target: str | None) -> Table:
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
                        f"{listing(names)}")
    return meta.num_rows, meta.num_columns


def _read_parquet(path: Path, spec: FileDatasetSpec, target: str | None) -> Table:
    pq = _pyarrow_parquet(path)
    import pyarrow as pa

    with _reading(path, "parquet", pa.ArrowException):
        frame = pq.read_table(path).to_pandas()
    return _from_frame(path, frame, target, "parquet")


def _from_frame(path: Path, frame: pd.DataFrame, target: str | None, fmt: str) -> Table:
    """A table's target and numeric feature columns."""
    frame.columns = columns = [str(c) for c in frame.columns]
    if len(columns) < 2:
        raise DataError(f"{path}: {len(columns)} column; a {fmt} dataset needs a target column "
                        f"and at least one feature column")
    target = columns[-1] if target is None else target
    if target not in columns:
        raise DataError(f"dataset.target: no column {target!r} in {path}; its columns are "
                        f"{listing(columns)}")
    features = [c for c in columns if c != target]
    for name in features:
        frame[name] = _numeric_column(path, name, frame[name])
    X = frame[features].to_numpy(dtype=np.float64, na_value=np.nan)
    return Table(path, X, _frame_target(path, target, frame[target]), f"column {target!r}",
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
_READERS: dict[str, Callable[[Path, FileDatasetSpec, str | None], Table]] = {
    "csv": _read_text_table, "tsv": _read_text_table, "npy": _read_npy, "npz": _read_npz,
    "hdf5": _read_hdf5, "parquet": _read_parquet,
}


# ------------------------------------------------------------------------- checks of the rows


def match_test_columns(tables: list[Table]) -> None:
    """A test file must have the training file's features (named columns in any order)."""
    if len(tables) < 2:
        return
    train, test = tables
    if train.columns is not None and test.columns is not None:
        missing = [c for c in train.columns if c not in test.columns]
        extra = [c for c in test.columns if c not in train.columns]
        if missing or extra:
            raise DataError(f"dataset.test_file: {test.path} has other columns than "
                            f"{train.path}: missing {listing(missing)}, extra {listing(extra)}")
        order = [test.columns.index(c) for c in train.columns]
        test.X, test.columns = test.X[:, order], train.columns
    elif train.X.shape[1] != test.X.shape[1]:
        raise DataError(f"dataset.test_file: {test.path} has {test.X.shape[1]} feature columns, "
                        f"the training file {train.path} has {train.X.shape[1]}")


def check_finite(table: Table) -> None:
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


def sparsity_of(matrices: list[np.ndarray | sp.csr_matrix]) -> float:
    size = sum(X.shape[0] * X.shape[1] for X in matrices)
    nonzero = sum(X.count_nonzero() if sp.issparse(X) else np.count_nonzero(X)
                  for X in matrices)
    return 1.0 - nonzero / size
