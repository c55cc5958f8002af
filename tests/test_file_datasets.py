"""A user's own data file (``kernreg.datasets.files``): every format gives the same rows; the
split, the label mapping and the preprocessing; and each bad file is one DataError naming the
file and the problem."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import dump_svmlight_file, make_classification, make_friedman1

from kernreg.backend.memory import MemoryBudget
from kernreg.datasets.files import (
    FORMATS,
    SUFFIXES,
    FileData,
    FileDatasetSpec,
    median_sigma,
    read_file_dataset,
)
from kernreg.errors import DataError, MissingDependencyError

SUFFIX = {"libsvm": ".svm", "csv": ".csv", "tsv": ".tsv", "npy": ".npy", "npz": ".npz",
          "hdf5": ".h5", "parquet": ".parquet"}
PROBLEMS = ("regression", "binary", "multiclass")
#: A host budget of 1000 bytes: every generated file is too large for it.
TINY = MemoryBudget(configured=1000, physical=2**40)


def _problem(kind: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "regression":
        X, y = make_friedman1(n_samples=300, random_state=0)
    elif kind == "binary":
        X, y = make_classification(n_samples=300, n_features=8, random_state=0)
    else:
        X, y = make_classification(n_samples=300, n_features=8, n_informative=4, n_classes=3,
                                   random_state=0)
    return X, y.astype(np.float64)


def _frame(X: np.ndarray, y: np.ndarray) -> pd.DataFrame:
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["target"] = y
    return frame


def _write(fmt: str, path: Path, X: np.ndarray, y: np.ndarray) -> Path:
    """Write ``X, y`` as ``fmt`` at ``path``; npy files carry the target as the last column."""
    if fmt == "libsvm":
        dump_svmlight_file(X, y, str(path), zero_based=False)
    elif fmt in ("csv", "tsv"):
        _frame(X, y).to_csv(path, sep="," if fmt == "csv" else "\t", index=False,
                            float_format="%.17g")
    elif fmt == "npy":
        np.save(path, np.column_stack([X, y]))
    elif fmt == "npz":
        np.savez(path, X=X, y=y)
    elif fmt == "hdf5":
        with h5py.File(path, "w") as handle:
            handle["X"], handle["y"] = X, y
    else:
        pytest.importorskip("pyarrow")
        _frame(X, y).to_parquet(path)
    return path


def _file(tmp_path: Path, fmt: str, X: np.ndarray, y: np.ndarray, stem: str = "data") -> Path:
    return _write(fmt, tmp_path / f"{stem}{SUFFIX[fmt]}", X, y)


def _read(path: Path, **settings: object) -> FileData:
    return read_file_dataset(FileDatasetSpec(path, **settings), seed=0)


def _refused(call: Callable[[], object], *fragments: str,
             error: type[Exception] = DataError) -> str:
    """``call`` raises ``error`` and its message holds every fragment."""
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def _rows(X: np.ndarray) -> np.ndarray:
    """Rows in lexicographic order, to compare sets of rows."""
    return X[np.lexsort(X.T[::-1])]


# ------------------------------------------------------------------------ formats and reading


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("problem", PROBLEMS)
def test_every_format_reads_the_same_rows(tmp_path: Path, problem: str, fmt: str) -> None:
    X, y = _problem(problem)
    reference = _read(_file(tmp_path, "npz", X, y, "reference"))
    data = _read(_file(tmp_path, fmt, X, y))
    # dump_svmlight_file writes 16 significant digits; every other format round-trips exactly
    tolerance = {"rtol": 1e-15, "atol": 0} if fmt == "libsvm" else {"rtol": 0, "atol": 0}
    for name in ("X_train", "y_train", "X_test", "y_test"):
        np.testing.assert_allclose(getattr(data, name), getattr(reference, name), **tolerance,
                                   err_msg=name)
    assert (data.task, data.labels, data.format) == (reference.task, reference.labels, fmt)
    assert data.task == problem
    assert (data.n_rows, data.n_columns) == X.shape
    assert data.X_train.shape == (240, X.shape[1]) and data.X_test.shape == (60, X.shape[1])
    # the split is of the file's rows: together they are the file's rows
    np.testing.assert_array_equal(_rows(np.concatenate([reference.X_train, reference.X_test])),
                                  _rows(X))


@pytest.mark.parametrize(("suffix", "fmt"), [*SUFFIXES.items(), (".CSV", "csv"), (".H5", "hdf5")])
def test_format_from_suffix(suffix: str, fmt: str) -> None:
    assert FileDatasetSpec(Path(f"data{suffix}")).resolved_format == fmt


def test_format_given_overrides_suffix(tmp_path: Path) -> None:
    X, y = _problem("regression")
    path = _write("libsvm", tmp_path / "a9a-like.txt", X, y)
    assert _read(path, format="libsvm").n_rows == 300


def test_float32(tmp_path: Path) -> None:
    data = read_file_dataset(FileDatasetSpec(_file(tmp_path, "npz", *_problem("binary"))),
                             seed=0, dtype="float32")
    assert {a.dtype for a in (data.X_train, data.y_train, data.X_test, data.y_test)} == \
        {np.dtype(np.float32)}
    assert data.dense_bytes == 300 * (8 + 1) * 4


def test_sha256_of_each_file(tmp_path: Path) -> None:
    X, y = _problem("regression")
    train = _write("csv", tmp_path / "train.csv", X[:240], y[:240])
    test = _write("csv", tmp_path / "test.csv", X[240:], y[240:])
    data = _read(train, test_file=test)
    assert data.sha256 == {str(p): hashlib.sha256(p.read_bytes()).hexdigest()
                           for p in (train, test)}
    assert list(data.sha256) == [str(train), str(test)]


@pytest.mark.parametrize("fmt", ["npz", "libsvm"])
def test_sizes_and_sparsity(tmp_path: Path, fmt: str) -> None:
    X, y = _problem("regression")
    X[:, ::2] = 0.0  # 5 of 10 features
    data = _read(_file(tmp_path, fmt, X, y))
    assert (data.n_rows, data.n_columns) == (300, 10)
    assert data.sparsity == pytest.approx(0.5)
    assert data.dense_bytes == 300 * 11 * 8


# ----------------------------------------------------------------------------------- the split


@pytest.mark.parametrize("problem", PROBLEMS)
def test_split_is_seeded_and_reproducible(tmp_path: Path, problem: str) -> None:
    path = _file(tmp_path, "npz", *_problem(problem))
    spec = FileDatasetSpec(path)
    first, again = (read_file_dataset(spec, seed=3) for _ in range(2))
    other = read_file_dataset(spec, seed=4)
    np.testing.assert_array_equal(first.X_test, again.X_test)
    np.testing.assert_array_equal(first.y_train, again.y_train)
    assert not np.array_equal(first.X_test, other.X_test)


@pytest.mark.parametrize("problem", ["binary", "multiclass"])
def test_split_is_stratified(tmp_path: Path, problem: str) -> None:
    X, y = _problem(problem)
    y[:40] = 0.0  # unbalance the classes
    data = read_file_dataset(FileDatasetSpec(_file(tmp_path, "npz", X, y), test_fraction=0.3),
                             seed=1)
    everything = np.concatenate([data.y_train, data.y_test])
    for label in np.unique(everything):
        share = np.mean(data.y_test == label) / np.mean(everything == label)
        assert abs(np.sum(data.y_test == label) - 0.3 * np.sum(everything == label)) <= 1, label
        assert share == pytest.approx(1.0, abs=0.05)
    assert len(data.y_test) == 90


def test_test_fraction(tmp_path: Path) -> None:
    data = _read(_file(tmp_path, "npz", *_problem("regression")), test_fraction=0.25)
    assert (len(data.y_train), len(data.y_test)) == (225, 75)


def test_test_file_rows_used_as_they_are(tmp_path: Path) -> None:
    X, y = _problem("regression")
    train = _write("tsv", tmp_path / "train.tsv", X[:200], y[:200])
    test = _write("tsv", tmp_path / "test.tsv", X[200:], y[200:])
    data = _read(train, test_file=test)
    np.testing.assert_array_equal(data.X_train, X[:200])
    np.testing.assert_array_equal(data.X_test, X[200:])
    np.testing.assert_array_equal(data.y_test, y[200:])
    assert data.n_rows == 300


def test_test_file_columns_matched_by_name(tmp_path: Path) -> None:
    X, y = _problem("regression")
    _write("csv", tmp_path / "train.csv", X[:200], y[:200])
    shuffled = _frame(X[200:], y[200:])
    shuffled[list(shuffled.columns[::-1])].to_csv(tmp_path / "test.csv", index=False,
                                                  float_format="%.17g")
    data = _read(tmp_path / "train.csv", test_file=tmp_path / "test.csv")
    np.testing.assert_array_equal(data.X_test, X[200:])
    np.testing.assert_array_equal(data.y_test, y[200:])


# ---------------------------------------------------------------------------- labels and tasks


def test_binary_labels_sorted_to_minus_and_plus_one(tmp_path: Path) -> None:
    X, y = _problem("binary")
    y = np.where(y == 1, 7.0, 3.0)
    train = _write("npz", tmp_path / "train.npz", X[:200], y[:200])
    test = _write("npz", tmp_path / "test.npz", X[200:], y[200:])
    data = _read(train, test_file=test)
    assert (data.task, data.labels) == ("binary", (3.0, 7.0))
    np.testing.assert_array_equal(data.y_train, np.where(y[:200] == 7.0, 1.0, -1.0))
    np.testing.assert_array_equal(data.y_test, np.where(y[200:] == 7.0, 1.0, -1.0))


def test_text_labels_in_csv(tmp_path: Path) -> None:
    X, y = _problem("binary")
    frame = _frame(X, np.where(y == 1, "yes", "no"))
    frame.to_csv(tmp_path / "yes-no.csv", index=False)
    data = _read(tmp_path / "yes-no.csv", test_fraction=0.5)
    assert (data.task, data.labels) == ("binary", ("no", "yes"))
    assert set(np.unique(data.y_train)) == {-1.0, 1.0}
    # "yes" rows (label 1 in the generated data) are +1
    assert np.sum(data.y_train == 1.0) + np.sum(data.y_test == 1.0) == np.sum(y == 1)


def test_multiclass_numeric_labels_kept(tmp_path: Path) -> None:
    X, y = _problem("multiclass")
    data = _read(_file(tmp_path, "npz", X, y + 10.0))
    assert (data.task, data.labels) == ("multiclass", (10.0, 11.0, 12.0))
    assert set(np.unique(data.y_train)) == {10.0, 11.0, 12.0}


def test_multiclass_text_labels_coded_by_index(tmp_path: Path) -> None:
    X, y = _problem("multiclass")
    names = np.array(["dog", "bird", "cat"])[y.astype(int)]
    train = tmp_path / "animals.csv"
    test = tmp_path / "animals-test.csv"
    _frame(X[:200], names[:200]).to_csv(train, index=False, float_format="%.17g")
    _frame(X[200:], names[200:]).to_csv(test, index=False, float_format="%.17g")
    data = _read(train, test_file=test)
    assert (data.task, data.labels) == ("multiclass", ("bird", "cat", "dog"))
    np.testing.assert_array_equal(data.y_test, np.searchsorted(["bird", "cat", "dog"],
                                                               names[200:]))


def test_text_labels_in_hdf5(tmp_path: Path) -> None:
    X, y = _problem("binary")
    path = tmp_path / "text.h5"
    with h5py.File(path, "w") as handle:
        handle["X"] = X
        handle.create_dataset("y", data=np.where(y == 1, "dog", "cat").astype(object),
                              dtype=h5py.string_dtype())
    data = _read(path)
    assert (data.task, data.labels) == ("binary", ("cat", "dog"))


def test_regression_has_no_labels(tmp_path: Path) -> None:
    data = _read(_file(tmp_path, "npz", *_problem("regression")))
    assert (data.task, data.labels) == ("regression", None)


@pytest.mark.parametrize(("values", "rows", "task"), [
    ([0, 1], 300, "binary"),
    ([-1, 1], 300, "binary"),
    ([1, 2, 3, 4, 5], 300, "multiclass"),
    (list(range(50)), 500, "multiclass"),
    (list(range(51)), 600, "regression"),  # more than 50 distinct integers: counts
    ([1, 2, 3, 4, 5], 40, "regression"),  # 5 values > 10 % of 40 rows
    ([0.5, 1.5], 300, "regression"),  # two non-integer values
    (["a", "b", "c"], 300, "multiclass"),
    (["no", "yes"], 300, "binary"),
])
def test_task_inference(tmp_path: Path, values: list, rows: int, task: str) -> None:
    y = np.array(values * (rows // len(values) + 1))[:rows]
    X = np.random.default_rng(0).normal(size=(rows, 3))
    assert _read(_file(tmp_path, "npz", X, y)).task == task


def test_task_given_wins(tmp_path: Path) -> None:
    X, y = _problem("multiclass")
    assert _read(_file(tmp_path, "npz", X, y), task="regression").task == "regression"


# ------------------------------------------------------------------------------- preprocessing


def _train_test_files(tmp_path: Path) -> tuple[Path, Path]:
    X, y = _problem("regression")
    X = X * np.arange(1, 11) + 5.0  # features of different scales and offsets
    return (_write("npz", tmp_path / "train.npz", X[:200], y[:200]),
            _write("npz", tmp_path / "test.npz", X[200:], y[200:]))


def test_standardize_fitted_on_training_rows(tmp_path: Path) -> None:
    train, test = _train_test_files(tmp_path)
    raw = _read(train, test_file=test)
    data = _read(train, test_file=test, preprocessing=("standardize",))
    mean, std = raw.X_train.mean(axis=0), raw.X_train.std(axis=0)
    np.testing.assert_allclose(data.X_train, (raw.X_train - mean) / std, rtol=1e-12)
    np.testing.assert_allclose(data.X_test, (raw.X_test - mean) / std, rtol=1e-12)
    # the test rows keep their own offset: they were not standardized with their own numbers
    assert not np.allclose(data.X_test.mean(axis=0), 0.0, atol=0.05)


def test_standardize_on_a_split_uses_the_training_rows(tmp_path: Path) -> None:
    path = _file(tmp_path, "npz", *_problem("regression"))
    raw = _read(path)
    data = _read(path, preprocessing="standardize")
    mean, std = raw.X_train.mean(axis=0), raw.X_train.std(axis=0)
    np.testing.assert_allclose(data.X_test, (raw.X_test - mean) / std, rtol=1e-12)


def test_minmax_fitted_on_training_rows(tmp_path: Path) -> None:
    train, test = _train_test_files(tmp_path)
    raw = _read(train, test_file=test)
    data = _read(train, test_file=test, preprocessing=["minmax"])
    low, high = raw.X_train.min(axis=0), raw.X_train.max(axis=0)
    np.testing.assert_allclose(data.X_train.min(axis=0), 0.0, atol=1e-15)
    np.testing.assert_allclose(data.X_train.max(axis=0), 1.0)
    np.testing.assert_allclose(data.X_test, (raw.X_test - low) / (high - low), rtol=1e-12)


def test_steps_applied_in_order(tmp_path: Path) -> None:
    train, test = _train_test_files(tmp_path)
    raw = _read(train, test_file=test)
    data = _read(train, test_file=test, preprocessing=("standardize", "unit-norm"))
    mean, std = raw.X_train.mean(axis=0), raw.X_train.std(axis=0)
    standardized = (raw.X_test - mean) / std
    np.testing.assert_allclose(
        data.X_test, standardized / np.linalg.norm(standardized, axis=1, keepdims=True),
        rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(data.X_train, axis=1), 1.0)
    other = _read(train, test_file=test, preprocessing=("unit-norm", "standardize"))
    assert not np.allclose(other.X_test, data.X_test)
    unchanged = _read(train, test_file=test, preprocessing=("none",))
    np.testing.assert_array_equal(unchanged.X_test, raw.X_test)


# ---------------------------------------------------------------------------------------- sigma


def _brute_median(X: np.ndarray) -> float:
    return float(np.median([np.linalg.norm(X[i] - X[j])
                            for i, j in combinations(range(len(X)), 2)]))


def test_median_sigma_over_all_rows_is_the_brute_force_median() -> None:
    X = np.random.default_rng(0).normal(size=(40, 3))
    assert median_sigma(X, seed=0) == pytest.approx(_brute_median(X), rel=1e-12)


def test_median_sigma_over_a_seeded_sample() -> None:
    X = np.random.default_rng(1).normal(size=(60, 4))
    rows = np.sort(np.random.default_rng(5).choice(60, 15, replace=False))
    assert median_sigma(X, seed=5, sample=15) == pytest.approx(_brute_median(X[rows]), rel=1e-12)
    assert median_sigma(X, seed=5, sample=15) == median_sigma(X, seed=5, sample=15)
    assert median_sigma(X, seed=5, sample=15) != median_sigma(X, seed=6, sample=15)


def test_suggested_sigma_is_the_median_of_the_training_rows(tmp_path: Path) -> None:
    data = _read(_file(tmp_path, "npz", *_problem("binary")), preprocessing=("standardize",))
    assert data.suggested_sigma == median_sigma(data.X_train, seed=0)
    assert data.suggested_sigma > 0


@pytest.mark.parametrize("X", [np.zeros((1, 3)), np.zeros(5)])
def test_median_sigma_needs_two_rows(X: np.ndarray) -> None:
    with pytest.raises(ValueError, match="at least 2 rows"):
        median_sigma(X, seed=0)


# --------------------------------------------------------------------- settings (the spec)


@pytest.mark.parametrize(("settings", "key"), [
    ({"format": "xlsx"}, "dataset.format"),
    ({"task": "ranking"}, "dataset.task"),
    ({"preprocessing": ("standardise",)}, "dataset.preprocessing"),
    ({"test_fraction": 0.0}, "dataset.test_fraction"),
    ({"test_fraction": 1.5}, "dataset.test_fraction"),
    ({"test_fraction": True}, "dataset.test_fraction"),
    ({"n_features": 10}, "dataset.n_features"),
    ({"format": "libsvm", "n_features": 0}, "dataset.n_features"),
    ({"features": "X"}, "dataset.features"),
    ({"format": "npy", "target": "y"}, "dataset.target"),
    ({"format": "libsvm", "target": "label"}, "dataset.target"),
    ({"target": ""}, "dataset.target"),
    ({"sigma": -1.0}, "dataset.sigma"),
    ({"sigma": float("nan")}, "dataset.sigma"),
])
def test_invalid_settings(settings: dict, key: str) -> None:
    _refused(lambda: FileDatasetSpec(Path("data.csv"), **settings), "data.csv", key)


def test_test_file_and_test_fraction_both_given() -> None:
    _refused(lambda: FileDatasetSpec(Path("a.csv"), test_file=Path("b.csv"), test_fraction=0.3),
             "a.csv", "dataset.test_fraction", "not allowed with dataset.test_file")


def test_test_file_of_another_format() -> None:
    _refused(lambda: FileDatasetSpec(Path("a.csv"), test_file=Path("b.npz")),
             "b.npz", "dataset.test_file", "npz")


def test_unknown_suffix_lists_the_formats() -> None:
    message = _refused(lambda: FileDatasetSpec(Path("data.xyz")), "data.xyz", "dataset.format")
    assert all(fmt in message for fmt in FORMATS)


def test_invalid_dtype(tmp_path: Path) -> None:
    path = _file(tmp_path, "npz", *_problem("binary"))
    _refused(lambda: read_file_dataset(FileDatasetSpec(path), seed=0, dtype="int32"), "dtype")


# ------------------------------------------------------------------------------ bad files


def test_missing_file(tmp_path: Path) -> None:
    _refused(lambda: _read(tmp_path / "absent.csv"), "absent.csv", "does not exist",
             "dataset.file")


def test_missing_test_file(tmp_path: Path) -> None:
    path = _file(tmp_path, "csv", *_problem("regression"))
    _refused(lambda: _read(path, test_file=tmp_path / "absent.csv"), "absent.csv",
             "does not exist", "dataset.test_file")


def test_empty_file(tmp_path: Path) -> None:
    (tmp_path / "empty.csv").touch()
    _refused(lambda: _read(tmp_path / "empty.csv"), "empty.csv", "is empty")


def test_truncated_npy(tmp_path: Path) -> None:
    path = _file(tmp_path, "npy", *_problem("regression"))
    path.write_bytes(path.read_bytes()[:-100])
    _refused(lambda: _read(path), "data.npy", "truncated")


def test_npy_cut_inside_its_header(tmp_path: Path) -> None:
    path = _file(tmp_path, "npy", *_problem("regression"))
    path.write_bytes(path.read_bytes()[:40])
    _refused(lambda: _read(path), "data.npy", "truncated")


def test_truncated_npz(tmp_path: Path) -> None:
    path = _file(tmp_path, "npz", *_problem("regression"))
    path.write_bytes(path.read_bytes()[:-200])
    _refused(lambda: _read(path), "data.npz", "truncated")


def test_corrupt_hdf5(tmp_path: Path) -> None:
    path = _file(tmp_path, "hdf5", *_problem("regression"))
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    _refused(lambda: _read(path), "data.h5", "truncated")


def test_binary_file_given_as_csv(tmp_path: Path) -> None:
    path = tmp_path / "noise.csv"
    path.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    _refused(lambda: _read(path), "noise.csv", "not a valid csv file", "binary data")


@pytest.mark.parametrize(("written", "named", "found"), [
    ("npz", "data.csv", "zip archive"),
    ("npy", "data.tsv", "NumPy .npy"),
    ("hdf5", "data.svm", "HDF5"),
    ("csv", "data.npz", "text"),
    ("csv", "data.npy", "text"),
    ("npz", "data.h5", "zip archive"),
    ("npy", "data.parquet", "NumPy .npy"),
])
def test_wrong_format_for_the_suffix(tmp_path: Path, written: str, named: str,
                                     found: str) -> None:
    real = _file(tmp_path, written, *_problem("regression"), stem="real")
    (tmp_path / named).write_bytes(real.read_bytes())
    fmt = SUFFIXES[Path(named).suffix]
    _refused(lambda: _read(tmp_path / named), named, f"not a valid {fmt} file", found,
             "dataset.format")


def test_nan_and_inf_in_features_counted(tmp_path: Path) -> None:
    X, y = _problem("regression")
    X[4, 2] = X[10, 3] = np.nan
    X[20, 5] = np.inf
    frame = _frame(X, y)
    frame.to_csv(tmp_path / "holes.csv", index=False, float_format="%.17g")
    text = (tmp_path / "holes.csv").read_text().splitlines()
    fields = text[31].split(",")  # row 31: an empty field
    fields[0] = ""
    text[31] = ",".join(fields)
    (tmp_path / "holes.csv").write_text("\n".join(text) + "\n")
    _refused(lambda: _read(tmp_path / "holes.csv"), "holes.csv",
             "3 NaN and 1 infinite value(s) among the features", "first at row 5, column 'x2'")


def test_inf_in_target(tmp_path: Path) -> None:
    X, y = _problem("regression")
    y[[7, 8]] = [np.inf, -np.inf]
    path = _file(tmp_path, "npz", X, y)
    _refused(lambda: _read(path), "data.npz", "0 NaN and 2 infinite in the target",
             "first at row 8 of the target")


def test_nan_in_libsvm(tmp_path: Path) -> None:
    path = tmp_path / "data.svm"
    path.write_text("1 1:0.5 2:1\n-1 1:nan 3:2\n1 2:0.25\n-1 1:1\n1 2:2\n-1 3:1\n")
    _refused(lambda: _read(path), "data.svm", "1 NaN", "first at row 2, column '1'")


def test_nan_in_test_file(tmp_path: Path) -> None:
    X, y = _problem("regression")
    X[250, 0] = np.nan
    train = _write("npy", tmp_path / "train.npy", X[:200], y[:200])
    test = _write("npy", tmp_path / "test.npy", X[200:], y[200:])
    _refused(lambda: _read(train, test_file=test), "test.npy", "1 NaN",
             "first at row 51, column '1'")


def test_ragged_csv_row(tmp_path: Path) -> None:
    path = _file(tmp_path, "csv", *_problem("regression"))
    lines = path.read_text().splitlines()
    lines[5] += ",1.5"
    path.write_text("\n".join(lines) + "\n")
    _refused(lambda: _read(path), "data.csv", "row 5 (line 6) has 12 fields, the header has 11")


def test_every_row_longer_than_the_header(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_text("a,b,y\n" + "".join(f"{i},1,2,{i % 2}\n" for i in range(20)))
    _refused(lambda: _read(path), "wide.csv", "the rows have 4 fields, the header has 3")


def test_non_numeric_feature(tmp_path: Path) -> None:
    X, y = _problem("regression")
    frame = _frame(X, y).astype({"x3": object})
    frame.loc[6, "x3"] = "red"
    frame.loc[9, "x3"] = "blue"
    frame.to_csv(tmp_path / "colours.csv", index=False)
    _refused(lambda: _read(tmp_path / "colours.csv"), "colours.csv",
             "column 'x3' is not numeric", "row 7 holds 'red'", "2 such values")


def test_csv_without_a_header(tmp_path: Path) -> None:
    path = tmp_path / "bare.csv"
    path.write_text("".join(f"{i},{i * 2},{i % 2}\n" for i in range(20)))
    _refused(lambda: _read(path), "bare.csv", "holds only numbers", "header row")


def test_csv_with_a_header_only(tmp_path: Path) -> None:
    path = tmp_path / "header.csv"
    path.write_text("a,b,y\n")
    _refused(lambda: _read(path), "header.csv", "no data rows")


def test_missing_target_column_lists_the_columns(tmp_path: Path) -> None:
    path = _file(tmp_path, "csv", *_problem("regression"))
    _refused(lambda: _read(path, target="price"), "data.csv", "dataset.target",
             "no column 'price'", "'x0', 'x1'", "'target'")


def test_missing_target_column_in_parquet(tmp_path: Path) -> None:
    path = _file(tmp_path, "parquet", *_problem("regression"))
    _refused(lambda: _read(path, target="price"), "data.parquet", "dataset.target",
             "no column 'price'", "'target'")


def test_missing_npz_array_lists_the_arrays(tmp_path: Path) -> None:
    path = _file(tmp_path, "npz", *_problem("regression"))
    _refused(lambda: _read(path, target="labels"), "data.npz", "dataset.target",
             "no array 'labels'", "'X', 'y'")
    _refused(lambda: _read(path, features="inputs"), "data.npz", "dataset.features",
             "no array 'inputs'")


def test_missing_hdf5_key(tmp_path: Path) -> None:
    X, y = _problem("regression")
    path = tmp_path / "grouped.h5"
    with h5py.File(path, "w") as handle:
        handle["data/inputs"], handle["data/outputs"] = X, y
    _refused(lambda: _read(path), "grouped.h5", "dataset.features", "no array 'X'",
             "'data/inputs', 'data/outputs'")
    data = _read(path, features="data/inputs", target="/data/outputs")
    assert data.n_rows == 300


def test_target_with_one_value(tmp_path: Path) -> None:
    X, _ = _problem("regression")
    path = _file(tmp_path, "csv", X, np.full(300, 4.0))
    _refused(lambda: _read(path), "data.csv", "has one value, 4.0")


def test_test_file_of_another_width(tmp_path: Path) -> None:
    X, y = _problem("regression")
    train = _write("npy", tmp_path / "train.npy", X[:200], y[:200])
    test = _write("npy", tmp_path / "test.npy", X[200:, :9], y[200:])
    _refused(lambda: _read(train, test_file=test), "test.npy", "dataset.test_file",
             "9 feature columns", "train.npy has 10")


def test_test_file_with_other_columns(tmp_path: Path) -> None:
    X, y = _problem("regression")
    train = _write("csv", tmp_path / "train.csv", X[:200], y[:200])
    _frame(X[200:], y[200:]).rename(columns={"x4": "x99"}).to_csv(tmp_path / "test.csv",
                                                                 index=False)
    _refused(lambda: _read(train, test_file=tmp_path / "test.csv"), "test.csv",
             "dataset.test_file", "missing 'x4'", "extra 'x99'")


def test_libsvm_test_file_wider_than_training(tmp_path: Path) -> None:
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text("".join(f"{(-1) ** i} 1:{i} 5:1\n" for i in range(10)))
    test.write_text("1 2:1 7:0.5\n-1 1:1\n")
    _refused(lambda: _read(train, test_file=test), "test.svm", "dataset.test_file",
             "7 features", "(5)")


def test_libsvm_narrower_test_file_is_padded(tmp_path: Path) -> None:
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    train.write_text("".join(f"{(-1) ** i} 1:{i} 5:1\n" for i in range(10)))
    test.write_text("1 2:1\n-1 1:1\n")
    data = _read(train, test_file=test, n_features=6)
    assert data.X_train.shape == (10, 6) and data.X_test.shape == (2, 6)
    np.testing.assert_array_equal(data.X_test[0], [0, 1, 0, 0, 0, 0])


def test_libsvm_wider_than_n_features(tmp_path: Path) -> None:
    path = tmp_path / "data.svm"
    path.write_text("".join(f"{(-1) ** i} 1:{i} 5:1\n" for i in range(10)))
    _refused(lambda: _read(path, n_features=3), "data.svm", "dataset.n_features",
             "5 features", "(3)")


def test_binary_task_with_three_labels(tmp_path: Path) -> None:
    path = _file(tmp_path, "npz", *_problem("multiclass"))
    _refused(lambda: _read(path, task="binary"), "data.npz", "dataset.task is binary",
             "3 distinct values: 0.0, 1.0, 2.0")


def test_multiclass_with_non_integer_labels(tmp_path: Path) -> None:
    X, y = _problem("multiclass")
    path = _file(tmp_path, "npz", X, y + 0.5)
    _refused(lambda: _read(path, task="multiclass"), "data.npz",
             "dataset.task is multiclass", "non-integer labels, such as 0.5")


def test_multiclass_with_too_many_classes(tmp_path: Path) -> None:
    y = np.repeat(np.arange(1001.0), 2)
    path = _file(tmp_path, "npz", np.random.default_rng(0).normal(size=(2002, 2)), y)
    _refused(lambda: _read(path, task="multiclass"), "data.npz", "1001 classes",
             "more than the 1000")


def test_too_many_text_classes(tmp_path: Path) -> None:
    y = np.array([f"c{i}" for i in range(1001)] * 2)
    path = _file(tmp_path, "npz", np.random.default_rng(0).normal(size=(2002, 2)), y)
    _refused(lambda: _read(path), "data.npz", "1001 classes", "more than the 1000")


def test_regression_takes_any_numeric_target(tmp_path: Path) -> None:
    X, y = _problem("binary")
    assert _read(_file(tmp_path, "npz", X, y), task="regression").labels is None


def test_regression_with_a_text_target(tmp_path: Path) -> None:
    X, y = _problem("binary")
    path = _file(tmp_path, "npz", X, np.where(y == 1, "yes", "no"))
    _refused(lambda: _read(path, task="regression"), "data.npz",
             "dataset.task is regression", "holds text, such as 'no'")


def test_empty_text_label(tmp_path: Path) -> None:
    X, y = _problem("binary")
    frame = _frame(X, np.where(y == 1, "yes", "no"))
    frame.loc[11, "target"] = None
    frame.to_csv(tmp_path / "gaps.csv", index=False)
    _refused(lambda: _read(tmp_path / "gaps.csv"), "gaps.csv", "1 empty value(s)",
             "row 12")


def test_test_labels_missing_from_training(tmp_path: Path) -> None:
    X, y = _problem("binary")
    train = _write("npz", tmp_path / "train.npz", X[:200], y[:200])
    test = _write("npz", tmp_path / "test.npz", X[200:], np.where(y[200:] == 1, 2.0, 0.0))
    _refused(lambda: _read(train, test_file=test), "test.npz", "label(s) 2.0",
             "train.npz does not have")


def test_class_with_one_row_cannot_be_stratified(tmp_path: Path) -> None:
    X, y = _problem("multiclass")
    y[0] = 9.0
    path = _file(tmp_path, "npz", X, y)
    _refused(lambda: _read(path, task="multiclass"), "data.npz", "class 9.0 has 1 row",
             "at least 2 rows of every class")


def test_too_few_test_rows_for_the_classes(tmp_path: Path) -> None:
    X = np.random.default_rng(0).normal(size=(10, 2))
    path = _file(tmp_path, "npz", X, np.array([0.0, 1.0] * 5))
    _refused(lambda: _read(path, test_fraction=0.1), "data.npz", "1 test rows",
             "one row of each of the 2 classes on both sides")


def test_too_few_training_rows(tmp_path: Path) -> None:
    path = _file(tmp_path, "npz", np.ones((2, 2)), np.array([0.5, 1.5]))
    _refused(lambda: _read(path, test_fraction=0.5), "data.npz", "1 training",
             "at least 2 training rows")


# -------------------------------------------------------------------------- memory budget


@pytest.mark.parametrize("fmt", FORMATS)
def test_too_large_for_the_memory_budget(tmp_path: Path, fmt: str) -> None:
    path = _file(tmp_path, fmt, *_problem("regression"))
    message = _refused(lambda: read_file_dataset(FileDatasetSpec(path), seed=0, memory=TINY),
                       path.name, "memory budget", "GiB", "budget.memory_gb")
    assert message.count("GiB") >= 2  # what is needed and what is available


@pytest.mark.parametrize("fmt", ["csv", "npz", "hdf5"])
def test_budget_checked_before_the_data_are_read(tmp_path: Path, fmt: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = _file(tmp_path, fmt, *_problem("regression"))

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the data were read")

    monkeypatch.setattr(pd, "read_csv", never)
    monkeypatch.setattr(np.lib.npyio.NpzFile, "__getitem__", never)
    monkeypatch.setattr(h5py.Dataset, "__getitem__", never)
    _refused(lambda: read_file_dataset(FileDatasetSpec(path), seed=0, memory=TINY),
             path.name, "memory budget")


def test_budget_counts_training_and_test_file(tmp_path: Path) -> None:
    X, y = _problem("regression")
    train = _write("npy", tmp_path / "train.npy", X[:150], y[:150])
    test = _write("npy", tmp_path / "test.npy", X[150:], y[150:])
    budget = MemoryBudget(configured=150 * 11 * 8 + 100, physical=2**40)  # holds one file
    _refused(lambda: read_file_dataset(FileDatasetSpec(train, test_file=test), seed=0,
                                       memory=budget),
             "train.npy", "test.npy", "300 rows × 10 features", "memory budget")


# --------------------------------------------------------------------------------- parquet


def test_parquet_without_pyarrow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "data.parquet"
    path.write_bytes(b"PAR1" + bytes(32) + b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    _refused(lambda: _read(path), "data.parquet", "pyarrow", "kernreg[parquet]",
             error=MissingDependencyError)


def test_corrupt_parquet(tmp_path: Path) -> None:
    path = _file(tmp_path, "parquet", *_problem("regression"))
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    _refused(lambda: _read(path), "data.parquet", "truncated")


# ------------------------------------------------------------------------- the mirror's a9a


@pytest.mark.mirror
def test_a9a_from_the_mirror(mirror: Path) -> None:
    train, test = mirror / "libsvm" / "a9a", mirror / "libsvm" / "a9a.t"
    if not (train.is_file() and test.is_file()):
        pytest.skip(f"a9a and a9a.t not in the mirror at {mirror / 'libsvm'}")
    data = read_file_dataset(FileDatasetSpec(train, format="libsvm", test_file=test,
                                             n_features=123), seed=0)
    assert data.X_train.shape == (32561, 123)
    assert data.X_test.shape == (16281, 123)
    assert (data.task, data.labels) == ("binary", (-1.0, 1.0))
    assert set(np.unique(data.y_train)) == set(np.unique(data.y_test)) == {-1.0, 1.0}
    assert int(np.sum(data.y_train == 1.0)) == 7841  # the mirror's MANIFEST counts
    assert int(np.sum(data.y_test == 1.0)) == 3846
    assert data.sha256[str(train)] == \
        "f5d5ffd8d865ff41328e7ee043e4b020816914ff6843ff15b98905ddbedce906"
    assert data.sha256[str(test)] == \
        "1f448a153f0320399a7e40836eb207655b0bde0f21fc941cc472193daa9f5de9"
    # the test file never uses feature 123: padded, not refused
    assert not data.X_test[:, 122].any()
