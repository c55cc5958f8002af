"""The real datasets of the offline mirror: shapes of REFERENCE.md, label counts of MANIFEST.md,
preprocessing ranges, and the ``kernreg data`` commands."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kernreg.cli import main
from kernreg.datasets import dataset_names, load_dataset

pytestmark = pytest.mark.mirror

# (train, test, d) from the dataset table of ../shared/REFERENCE.md, written out independently
# of the registry so that a wrong registry entry fails here.
REFERENCE_SHAPES = {
    "insurance": (5822, 4000, 85),
    "adult": (32561, 16281, 123),
    "ijcnn1": (49990, 91701, 22),
    "cpusmall": (6554, 1638, 12),
    "cpu_act": (6554, 1638, 21),
    "pumadyn32nh": (4096, 4096, 32),
    "pumadyn32fh": (4096, 4096, 32),
    "pumadyn32nm": (4096, 4096, 32),
    "covtype_binary": (522910, 58102, 54),
}
# Positive-class counts over train + test from MANIFEST.md.
POSITIVES = {"insurance": 348 + 238, "adult": 7841 + 3846, "ijcnn1": 4853 + 8712,
             "covtype_binary": 283301}


@pytest.mark.parametrize("name", sorted(REFERENCE_SHAPES))
def test_shapes_labels_and_ranges(mirror: Path, name: str) -> None:
    ds = load_dataset(name)
    n_train, n_test, d = REFERENCE_SHAPES[name]
    assert ds.X_train.shape == (n_train, d)
    assert ds.X_test.shape == (n_test, d)
    assert ds.y_train.shape == (n_train,) and ds.y_test.shape == (n_test,)
    assert np.isfinite(ds.X_train).all() and np.isfinite(ds.y_test).all()
    if name in POSITIVES:
        y = np.concatenate([ds.y_train, ds.y_test])
        assert set(np.unique(y)) == {-1.0, 1.0}
        assert int((y == 1).sum()) == POSITIVES[name]
    if name in ("cpusmall", "cpu_act"):  # min-max over all rows
        X = np.concatenate([ds.X_train, ds.X_test])
        np.testing.assert_allclose(X.min(axis=0), 0.0)
        assert X.max() == 1.0
    if name in ("covtype_binary", "insurance", "adult"):  # x -> 2x - 1 on [0, 1] features
        X = np.concatenate([ds.X_train, ds.X_test])
        np.testing.assert_array_equal(X.min(axis=0), -1.0)
        np.testing.assert_array_equal(X.max(axis=0), 1.0)


def test_adult_first_row_is_coded_plus_minus_one(mirror: Path) -> None:
    # a9a line 1: "-1 3:1 11:1 14:1 19:1 39:1 42:1 55:1 64:1 67:1 73:1 75:1 76:1 80:1 83:1";
    # the authors' Adult class maps the {0, 1} features to {-1, +1}
    ds = load_dataset("adult")
    expected = -np.ones(123)
    expected[np.array([3, 11, 14, 19, 39, 42, 55, 64, 67, 73, 75, 76, 80, 83]) - 1] = 1.0
    np.testing.assert_array_equal(ds.X_train[0], expected)
    assert ds.y_train[0] == -1.0
    assert set(np.unique(ds.X_test)) == {-1.0, 1.0}  # feature 123, absent from a9a.t, is -1


def test_insurance_first_row_scaled_to_plus_minus_one(mirror: Path) -> None:
    # ticdata2000.txt row 1 starts 33 1 3 2 8 0; the COIL 2000 data dictionary gives these
    # attributes the ranges 1-41, 1-10, 1-6, 1-6, 1-10, 0-9 (all attained in train + test):
    # min-max to [0, 1], then 2x - 1, as the authors' InsuranceCompanyBenchmark class does
    ds = load_dataset("insurance")
    expected = [2 * 32 / 40 - 1, -1.0, 2 * 2 / 5 - 1, 2 * 1 / 5 - 1, 2 * 7 / 9 - 1, -1.0]
    np.testing.assert_allclose(ds.X_train[0, :6], expected, rtol=1e-12)
    assert ds.y_train[0] == -1.0  # CARAVAN 0


def test_pumadyn_scaled_by_the_authors_formula(mirror: Path) -> None:
    import gzip

    with gzip.open(mirror / "pumadyn-32nh" / "Dataset.data.gz") as f:
        raw = np.loadtxt(f)[:, :32]
    low, high = raw.min(axis=0), raw.max(axis=0)
    ds = load_dataset("pumadyn32nh")
    X = np.concatenate([ds.X_train, ds.X_test])
    np.testing.assert_allclose(X, (np.abs(low) + raw) / (high - low) * 2 - 1, rtol=1e-12)
    np.testing.assert_allclose(X[:, :17].min(axis=0), -1.0)  # negative minima: [-1, 1]
    np.testing.assert_allclose(X[:, :17].max(axis=0), 1.0)
    assert (X[:, 17:].min(axis=0) > -0.6).all()  # minimum 0.25: shifted, as they ran it


def test_cpusmall_first_row_matches_libsvm_cpusmall(mirror: Path) -> None:
    # First row of LIBSVM cpusmall_scale ([-1, 1] scaling) as quoted in MANIFEST.md:
    # "90 1:-0.993496 2:-0.993043 ..." -> in our [0, 1] scaling 2x - 1 must give these values.
    ds = load_dataset("cpusmall")
    assert ds.y_train[0] == 90.0
    np.testing.assert_allclose(2 * ds.X_train[0, :2] - 1, [-0.993496, -0.993043], atol=1e-6)


def test_breast_cancer_from_bundled_copy() -> None:
    ds = load_dataset("breast_cancer")
    assert ds.X_train.shape == (400, 30) and ds.X_test.shape == (169, 30)
    y = np.concatenate([ds.y_train, ds.y_test])
    assert int((y == 1).sum()) == 212  # malignant


def test_data_list_shows_every_dataset(mirror: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["data", "list"])
    out = capsys.readouterr().out
    for name in dataset_names():
        assert name in out
    assert "yearprediction" in out and "download needed" in out


def test_data_fetch_and_info(mirror: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["data", "fetch", "adult", "insurance", "cpusmall"])
    out = capsys.readouterr().out
    assert "adult: train 32561, test 16281, d 123" in out
    main(["data", "info", "adult"])
    out = capsys.readouterr().out
    assert "shape          train 32561 / test 16281 / d 123" in out
    assert "f5d5ffd8d865ff41328e7ee043e4b020816914ff6843ff15b98905ddbedce906" in out


def test_data_fetch_missing_dataset_fails_with_message(
    mirror: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["data", "fetch", "yearprediction"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "YearPredictionMSD.txt.zip" in err and "offline mode" in err
    assert "Traceback" not in err


def test_unknown_dataset_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["data", "info", "nosuch"])
    assert exit_info.value.code == 2
    assert "unknown dataset 'nosuch'" in capsys.readouterr().err
