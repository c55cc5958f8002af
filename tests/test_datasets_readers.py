"""Each parser on small generated files written in the published formats."""

from __future__ import annotations

import bz2
import gzip
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from kernreg.datasets import readers
from kernreg.errors import DataError, MissingDependencyError

RNG = np.random.default_rng(0)


def _libsvm_lines(X: np.ndarray, y: np.ndarray) -> str:
    lines = []
    for row, label in zip(X, y, strict=True):
        entries = " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(row) if v != 0)
        lines.append(f"{label:g} {entries}".rstrip())
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("suffix", ["", ".bz2", ".gz"])
def test_svmlight_dense_padding_and_compression(tmp_path: Path, suffix: str) -> None:
    X = np.round(RNG.random((7, 5)), 3) * (RNG.random((7, 5)) > 0.4)
    X[:, -1] = 0  # like a9a.t: the last feature never appears, the reader must pad
    y = np.array([1, -1, 1, 1, -1, -1, 1], dtype=float)
    text = _libsvm_lines(X, y).encode()
    opener = {"": lambda b: b, ".bz2": bz2.compress, ".gz": gzip.compress}[suffix]
    path = tmp_path / f"part{suffix}"
    path.write_bytes(opener(text))
    ((X_read, y_read),) = readers.svmlight(n_features=5)([path])
    np.testing.assert_array_equal(X_read, X)
    np.testing.assert_array_equal(y_read, y)


def test_svmlight_truncated_bz2_names_file(tmp_path: Path) -> None:
    data = bz2.compress(_libsvm_lines(RNG.random((200, 4)), np.ones(200)).encode())
    path = tmp_path / "cut.bz2"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataError, match="cut.bz2"):
        readers.svmlight(n_features=4)([path])


def test_svmlight_garbage_line(tmp_path: Path) -> None:
    path = tmp_path / "bad"
    path.write_text("1 1:0.5 2:0.25\n-1 1:x\n")
    with pytest.raises(DataError, match="cannot parse .*bad"):
        readers.svmlight(n_features=2)([path])


def _coil_files(tmp_path: Path, n_train: int = 6, n_eval: int = 4) -> tuple[list[Path], tuple]:
    train = RNG.integers(0, 10, (n_train, 86))
    evaluation = RNG.integers(0, 10, (n_eval, 85))
    targets = RNG.integers(0, 2, n_eval)

    def write(name: str, table: np.ndarray) -> Path:
        # The UCI files: tab separated, CRLF line ends, no newline after the last row.
        rows = ["\t".join(str(v) for v in np.atleast_1d(r)) for r in table]
        path = tmp_path / name
        path.write_bytes("\r\n".join(rows).encode())
        return path

    paths = [write("ticdata2000.txt", train), write("ticeval2000.txt", evaluation),
             write("tictgts2000.txt", targets[:, None])]
    return paths, (train, evaluation, targets)


def test_coil2000(tmp_path: Path) -> None:
    paths, (train, evaluation, targets) = _coil_files(tmp_path)
    (X_tr, y_tr), (X_te, y_te) = readers.coil2000()(paths)
    np.testing.assert_array_equal(X_tr, train[:, :85])
    np.testing.assert_array_equal(y_tr, train[:, 85])
    np.testing.assert_array_equal(X_te, evaluation)
    np.testing.assert_array_equal(y_te, targets)


def test_coil2000_wrong_column_count(tmp_path: Path) -> None:
    paths, _ = _coil_files(tmp_path)
    paths[1].write_bytes(b"1\t2\t3\r\n4\t5\t6")
    with pytest.raises(DataError, match="ticeval2000.txt: expected 85 columns"):
        readers.coil2000()(paths)


def test_csv_with_header_selects_named_columns(tmp_path: Path) -> None:
    path = tmp_path / "cpu_act.csv"
    path.write_text("target,a,b,c\n90.0,1,2,3\n85.5,4,5,6\n")
    ((X, y),) = readers.csv_with_header("target", ["c", "a"])([path])
    np.testing.assert_array_equal(X, [[3, 1], [6, 4]])
    np.testing.assert_array_equal(y, [90.0, 85.5])
    ((X_all, _),) = readers.csv_with_header("target")([path])
    assert X_all.shape == (2, 3)


def test_csv_with_header_missing_column(tmp_path: Path) -> None:
    path = tmp_path / "cpu_act.csv"
    path.write_text("target,a\n1,2\n")
    with pytest.raises(DataError, match="missing column.*freemem"):
        readers.csv_with_header("target", ["a", "freemem"])([path])


def test_delve_whitespace_gz(tmp_path: Path) -> None:
    table = RNG.normal(size=(5, 4))
    # Delve writes fixed-width columns with leading blanks.
    text = "\n".join("".join(f"{v:16.7e}" for v in row) for row in table) + "\n"
    path = tmp_path / "Dataset.data.gz"
    path.write_bytes(gzip.compress(text.encode()))
    ((X, y),) = readers.delimited(r"\s+", target_column=-1, n_columns=4)([path])
    np.testing.assert_allclose(X, table[:, :3], rtol=1e-7)
    np.testing.assert_allclose(y, table[:, 3], rtol=1e-7)


def test_year_prediction_zip(tmp_path: Path) -> None:
    table = np.column_stack([RNG.integers(1922, 2012, 6), RNG.normal(size=(6, 90))])
    path = tmp_path / "YearPredictionMSD.txt.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("YearPredictionMSD.txt",
                         "\n".join(",".join(f"{v:.8g}" for v in r) for r in table) + "\n")
    ((X, y),) = readers.zipped_csv(target_column=0, n_columns=91)([path])
    np.testing.assert_array_equal(y, table[:, 0])
    np.testing.assert_allclose(X, table[:, 1:], rtol=1e-7)


def test_corrupt_zip_names_file(tmp_path: Path) -> None:
    path = tmp_path / "YearPredictionMSD.txt.zip"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DataError, match="YearPredictionMSD.txt.zip"):
        readers.zipped_csv(target_column=0, n_columns=91)([path])


def test_wdbc_both_formats_agree(tmp_path: Path) -> None:
    features = np.round(RNG.random((4, 30)) * 100, 4)
    diagnosis = ["M", "B", "B", "M"]
    uci = tmp_path / "wdbc.data"
    uci.write_text("".join(f"{8000 + i},{d}," + ",".join(f"{v:g}" for v in row) + "\n"
                           for i, (d, row) in enumerate(zip(diagnosis, features, strict=True))))
    bundled = tmp_path / "breast_cancer.csv"
    bundled.write_text("4,30,malignant,benign\n" + "".join(
        ",".join(f"{v:g}" for v in row) + f",{0 if d == 'M' else 1}\n"
        for d, row in zip(diagnosis, features, strict=True)))
    ((X1, y1),) = readers.wdbc_uci()([uci])
    ((X2, y2),) = readers.wdbc_sklearn()([bundled])
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, [1, 0, 0, 1])
    np.testing.assert_array_equal(y1, y2)


def test_wdbc_bad_diagnosis(tmp_path: Path) -> None:
    path = tmp_path / "wdbc.data"
    path.write_text("1,X," + ",".join(["1"] * 30) + "\n")
    with pytest.raises(DataError, match="diagnosis must be M or B"):
        readers.wdbc_uci()([path])


def test_covertype_rda_scales_like_libsvm_scale_file(tmp_path: Path) -> None:
    rdata = pytest.importorskip("rdata")  # the rdata extra
    features = RNG.integers(0, 4000, (6, 54)).astype(float)
    features[:, 10] = 7.0  # a constant column must not divide by zero
    labels = np.array([0, 1, 1, 0, 0, 1], dtype=float)  # stored as LIBSVM label - 1
    path = tmp_path / "covertype.rda"
    rdata.write_rda(str(path), {"covertype": np.column_stack([labels, features])},
                    compression="bzip2")
    ((X, y),) = readers.covertype_rda()([path])
    np.testing.assert_array_equal(y, labels + 1)
    assert X.min() == 0.0 and X.max() == 1.0
    np.testing.assert_array_equal(X[:, 10], 0.0)
    expected = (features[:, 0] - features[:, 0].min()) / np.ptp(features[:, 0])
    np.testing.assert_allclose(X[:, 0], expected)


def test_covertype_rda_wrong_shape(tmp_path: Path) -> None:
    rdata = pytest.importorskip("rdata")
    path = tmp_path / "covertype.rda"
    rdata.write_rda(str(path), {"covertype": np.zeros((3, 10))}, compression="bzip2")
    with pytest.raises(DataError, match="55 columns"):
        readers.covertype_rda()([path])


def test_covertype_rda_without_rdata_names_the_extra(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """rdata is an extra: without it the reader says, in one message, which file needs it and
    how to install it; an rdata that is there but fails to import says why."""
    path = tmp_path / "covertype.rda"
    monkeypatch.setitem(sys.modules, "rdata", None)  # as if not installed
    with pytest.raises(MissingDependencyError) as missing:
        readers.covertype_rda()([path])
    assert str(missing.value) == (f"reading {path} needs rdata, which is not installed: "
                                  f"pip install 'kernreg[rdata]'")
    assert missing.value.extra == "rdata" and missing.value.exit_code == 2
    # an rdata whose own dependency is missing (as when xarray is uninstalled)
    broken = tmp_path / "site" / "rdata"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("import kernreg_test_no_such_module\n")
    monkeypatch.delitem(sys.modules, "rdata")
    monkeypatch.syspath_prepend(str(broken.parent))
    with pytest.raises(MissingDependencyError, match=r"needs rdata, which failed to import "
                       r"\(No module named 'kernreg_test_no_such_module'\): pip install "
                       r"'kernreg\[rdata\]'"):
        readers.covertype_rda()([path])


def test_ct_slices_zip_in_the_published_format(tmp_path: Path) -> None:
    """UCI slice_localization_data.zip: one CSV with header patientId, value0..value383,
    reference; the registered source reads the 384 values and the reference."""
    from kernreg.datasets import get_spec

    spec = get_spec("ct_slices")
    (source,) = spec.sources
    values = RNG.uniform(-0.25, 1.0, size=(5, 384)).round(6)
    values[:, 7] = -0.25  # the file's "missing" marker, kept as a value
    reference = RNG.uniform(0, 100, size=5).round(6)
    header = ",".join(["patientId", *(f"value{i}" for i in range(384)), "reference"])
    rows = [",".join([str(p), *(f"{v:.6f}" for v in vals), f"{r:.6f}"])
            for p, vals, r in zip([0, 0, 1, 1, 2], values, reference, strict=True)]
    path = tmp_path / "slice_localization_data.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("slice_localization_data.csv", "\n".join([header, *rows]) + "\n")
    ((X, y),) = source.reader([path])
    assert X.shape == (5, 384) and spec.d == 384
    np.testing.assert_array_equal(X, values)
    np.testing.assert_array_equal(y, reference)
    assert (spec.n_train, spec.n_test, spec.sigma) == (42800, 10700, 5.2613)
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DataError, match="slice_localization_data.zip"):
        source.reader([path])
