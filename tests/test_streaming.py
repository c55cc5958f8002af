"""MNIST in the registry (IDX reader), the class-incremental stream of thesis Section 7.6 (a
registered protocol, run by ``kernreg run``) end to end on a small generated IDX dataset, its
resume, determinism, registered methods and bad-input messages."""

from __future__ import annotations

import gzip
import json
import struct
from pathlib import Path

import numpy as np
import pytest
import yaml

from kernreg.cli import main
from kernreg.datasets import load_dataset
from kernreg.datasets.catalog import affine_features
from kernreg.datasets.readers import idx_images_labels, read_idx
from kernreg.datasets.spec import DatasetSpec, FileSplit, RemoteFile, Source, register, unregister
from kernreg.errors import ConfigError, DataError
from kernreg.protocols.class_incremental import load_config
from kernreg.protocols.class_incremental.bayes import bayes_scores
from kernreg.protocols.class_incremental.summary import render_table7
from kernreg.protocols.class_incremental.trial import draw_trial, stream_trial
from kernreg.results.trial_store import TrialStore


def write_idx(path: Path, array: np.ndarray) -> Path:
    """An IDX file as LeCun's tools write it (gzipped when the name ends in .gz)."""
    codes = {np.dtype("uint8"): 0x08, np.dtype(">i4"): 0x0C, np.dtype(">f8"): 0x0E}
    array = np.asarray(array)
    dtype = array.dtype.newbyteorder(">") if array.dtype.itemsize > 1 else array.dtype
    raw = bytes([0, 0, codes[dtype], array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    raw += array.astype(dtype).tobytes()
    (gzip.open if path.suffix == ".gz" else open)(path, "wb").write(raw)
    return path


@pytest.mark.parametrize("name", ["images.idx3-ubyte", "images.idx3-ubyte.gz"])
def test_idx_reader_on_generated_files(tmp_path: Path, name: str) -> None:
    images = np.random.default_rng(0).integers(0, 256, (7, 4, 3)).astype(np.uint8)
    labels = np.array([3, 0, 1, 2, 9, 9, 4], dtype=np.uint8)
    img, lab = write_idx(tmp_path / name, images), write_idx(tmp_path / f"l{name}", labels)
    np.testing.assert_array_equal(read_idx(img), images)
    ((X, y),) = idx_images_labels()([img, lab])
    np.testing.assert_array_equal(X, images.reshape(7, 12).astype(float))
    np.testing.assert_array_equal(y, labels.astype(float))
    other = write_idx(tmp_path / "f.idx", np.arange(6, dtype=">i4").reshape(2, 3))
    np.testing.assert_array_equal(read_idx(other), np.arange(6).reshape(2, 3))


def test_idx_reader_refuses_damaged_files(tmp_path: Path) -> None:
    good = write_idx(tmp_path / "a.idx", np.zeros((5, 2, 2), np.uint8))
    truncated = tmp_path / "t.idx"
    truncated.write_bytes(good.read_bytes()[:-3])
    with pytest.raises(DataError, match="truncated or corrupt"):
        read_idx(truncated)
    bad = tmp_path / "b.idx"
    bad.write_bytes(b"\x01\x02\x08\x01" + bytes(8))
    with pytest.raises(DataError, match="not an IDX file"):
        read_idx(bad)
    labels = write_idx(tmp_path / "l.idx", np.zeros(4, np.uint8))
    with pytest.raises(DataError, match="5 images for 4 labels"):
        idx_images_labels()([good, labels])


@pytest.mark.mirror
def test_mnist_from_the_mirror(mirror: Path) -> None:
    ds = load_dataset("mnist", use_cache=False)
    assert ds.X_train.shape == (60000, 784) and ds.X_test.shape == (10000, 784)
    np.testing.assert_array_equal(ds.y_train[:5], [5, 0, 4, 1, 9])  # the canonical first digits
    np.testing.assert_array_equal(np.bincount(ds.y_train.astype(int)),
                                  [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949])
    np.testing.assert_array_equal(np.bincount(ds.y_test.astype(int)),
                                  [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009])
    assert ds.X_train.min() == 0.0 and ds.X_train.max() == 1.0
    # the first training image is a 5 of 166 lit pixels; its raw pixel sum is 27525
    assert np.count_nonzero(ds.X_train[0]) == 166
    assert round(ds.X_train[0].sum() * 255) == 27525


# ------------------------------------------------------------------------ a small streamed set
CLASSES, D = 4, 6


def _toy_images(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Separable-ish classes: class c lights pixel block c more brightly."""
    y = np.repeat(np.arange(CLASSES), n // CLASSES).astype(np.uint8)
    X = rng.integers(0, 120, (y.size, 2, 3)).astype(np.int64)
    X.reshape(y.size, -1)[np.arange(y.size), y] += 135
    return X.astype(np.uint8), y


@pytest.fixture
def toy_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    rng = np.random.default_rng(7)
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    files = []
    for part, n in (("train", 240), ("test", 80)):
        X, y = _toy_images(rng, n)
        write_idx(mirror / f"{part}-images.gz", X)
        write_idx(mirror / f"{part}-labels.gz", y)
        files += [RemoteFile(f"{part}-images.gz", urls=(), known_hash=None),
                  RemoteFile(f"{part}-labels.gz", urls=(), known_hash=None)]
    monkeypatch.setenv("KERNREG_MIRROR", str(mirror))
    spec = register(DatasetSpec(
        name="toy_digits", title="generated IDX", task="multiclass", n_train=240, n_test=80,
        d=D, sources=(Source("gen", files=tuple(files), reader=idx_images_labels(),
                             description="generated"),),
        split=FileSplit(), preprocessing=(affine_features(1 / 255, 0.0),),
        raw_labels=tuple(float(c) for c in range(CLASSES)), sigma=None, m=None,
        reference="test"))
    config = {
        "name": "toy_stream",
        "dataset": {"name": "toy_digits"},
        "protocol": {"kind": "streaming", "trials": 2, "seed": 3, "n_bal": 25, "n_test": 10,
                     "record_at": [1, 2, 5, 10], "holdout_every": 6},
        "model": {"lambdas": [0.01, 1.0, 100.0], "alphas": [0.0, 0.5, 1.0]},
    }
    path = tmp_path / "toy_stream.yaml"
    path.write_text(yaml.safe_dump(config))
    yield path, config
    unregister(spec.name)


def test_streaming_run_end_to_end_and_resume(toy_stream, tmp_path: Path, capsys) -> None:
    path, _ = toy_stream
    out = tmp_path / "results"
    main(["run", str(path), "--out", str(out), "--no-progress"])
    run = out / "toy_stream"
    trials = sorted((run / "trials").glob("t*.h5"))
    assert [p.name for p in trials] == ["t000.h5", "t001.h5"]
    assert (run / "fig7_3.png").stat().st_size > 0
    text = (run / "table7_1.md").read_text()
    assert "| 1 |" in text and "iCubWorld28" in text
    printed = capsys.readouterr().out
    assert text in printed and "2 trials in" in printed
    # resume: finished trials are not redone; a third trial is added
    stamp = trials[0].stat().st_mtime_ns
    main(["run", str(path), "--out", str(out), "--no-progress", "--resume", "--trials", "3"])
    assert trials[0].stat().st_mtime_ns == stamp
    assert len(list((run / "trials").glob("t*.h5"))) == 3
    assert "3 trials in" in capsys.readouterr().out
    # the table, figures and report of the run folder
    table = tmp_path / "table.md"
    main(["table", str(run), "-o", str(table)])
    assert table.read_text() == (run / "table7_1.md").read_text()
    main(["plot", str(run), "--format", "png"])
    assert (run / "figures" / "fig7_3.png").stat().st_size > 0
    main(["report", str(run), "-o", str(tmp_path / "report.html")])
    report = (tmp_path / "report.html").read_text()
    assert "<table>" in report and "data:image/png;base64," in report
    assert "config hash" in report
    with pytest.raises(SystemExit) as exit_info:  # results exist: --resume or --force
        main(["run", str(path), "--out", str(out), "--no-progress"])
    assert exit_info.value.code == 2
    assert "already exist" in capsys.readouterr().err


def test_a_trial_is_determined_by_its_seed(toy_stream) -> None:
    path, _ = toy_stream
    cfg = load_config(path)
    ds = load_dataset("toy_digits")
    args = (cfg, ds.X_train, ds.y_train, ds.X_test, ds.y_test)
    a, b, c = stream_trial(*args, 0), stream_trial(*args, 0), stream_trial(*args, 1)
    for method in ("N", "RB", "RC"):
        for key, value in a[method].items():
            np.testing.assert_array_equal(value, b[method][key])
    assert a["attrs"] == b["attrs"] and a["attrs"]["seed"] != c["attrs"]["seed"]
    # the protocol's counts: n_bal per balanced class, every 6th draw held out
    rows = draw_trial(ds.y_train, ds.y_test, cfg.protocol, np.random.default_rng(0))
    assert rows["fit"].size == 25 * (CLASSES - 1) and rows["val"].size == 5 * (CLASSES - 1)
    assert np.sum(~rows["stream_held"]) == 10 and rows["test"].size == 10 * CLASSES
    assert not np.isin(rows["stream"], rows["fit"]).any()
    # N never predicts a class it has seen once among 75 examples, at any λ
    assert a["N"]["imbalanced"][0] == 0.0
    text = render_table7([a, c])
    assert "2 trials" in text


def test_a_run_begun_with_the_earlier_size_key_resumes_and_renders(toy_stream, tmp_path: Path,
                                                                  capsys) -> None:
    """A run folder whose manifest says ``features: {kind: nystrom, size: M}`` (the spelling
    before ``m``) resumes under the new spelling, its trial kept, and its table names m."""
    _, config = toy_stream
    path = tmp_path / "nystrom.yaml"
    path.write_text(yaml.safe_dump({**config, "model": {
        **config["model"], "features": {"kind": "nystrom", "m": 12, "sigma": 1.0}}}))
    out = tmp_path / "results"
    main(["run", str(path), "--out", str(out), "--no-progress", "--trials", "1"])
    run = out / "toy_stream"
    manifest = json.loads((run / "manifest.json").read_text())
    features = manifest["config"]["model"]["features"]
    assert features == {"kind": "nystrom", "m": 12, "sigma": 1.0}
    features["size"] = features.pop("m")
    (run / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    main(["table", str(run)])
    assert "inputs: nystrom features, m = 12, σ = 1" in capsys.readouterr().out
    stamp = (run / "trials" / "t000.h5").stat().st_mtime_ns
    main(["run", str(path), "--out", str(out), "--no-progress", "--resume"])
    assert (run / "trials" / "t000.h5").stat().st_mtime_ns == stamp
    assert len(list((run / "trials").glob("t*.h5"))) == 2


@pytest.mark.parametrize(("kind", "size"), [("nystrom", "m"), ("rff", "n_components")])
def test_a_trial_on_kernel_features(toy_stream, kind: str, size: str) -> None:
    path, _ = toy_stream
    cfg = load_config(path)
    cfg.model["features"] = {"kind": kind, size: 20, "sigma": 1.0}
    ds = load_dataset("toy_digits")
    args = (cfg, ds.X_train, ds.y_train, ds.X_test, ds.y_test, 0)
    a, b = stream_trial(*args), stream_trial(*args)
    assert a["attrs"]["n_features"] == 20
    np.testing.assert_array_equal(a["RC"]["total"], b["RC"]["total"])
    assert np.all((a["RB"]["total"] >= 0) & (a["RB"]["total"] <= 1))


@pytest.mark.parametrize(("change", "message"), [
    ({"protocol": {"kind": "streaming", "n_bal": 0}}, "protocol.n_bal"),
    ({"model": {"alphas": [0.5, 1.0]}}, "model.alphas: must contain 0"),
    ({"model": {"features": {"kind": "nystrom"}}}, "model.features.m: required"),
    ({"model": {"features": {"kind": "rff", "m": 10, "sigma": 1.0}}},
     "model.features.n_components: required"),
    ({"protocol": {"kind": "streaming", "imbalanced_class": 11}}, "protocol.imbalanced_class"),
    ({"dataset": {"name": "cpusmall"}}, "needs class labels"),
    ({"methods": ["N", "XX"]}, "methods"),
])
def test_bad_stream_configs_exit_2_naming_the_key(toy_stream, tmp_path: Path, capsys,
                                                  change, message) -> None:
    _, config = toy_stream
    bad = {**config, **change}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad))
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_config(path)
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(path), "--out", str(tmp_path / "o")])
    assert exit_info.value.code == 2
    assert message.split(":")[0] in capsys.readouterr().err


def test_the_hold_out_reader_and_the_old_command_point_to_kernreg_run(
        toy_stream, tmp_path: Path, capsys) -> None:
    from kernreg.config import load_experiment

    path, _ = toy_stream
    with pytest.raises(ConfigError, match="not the hold-out protocol; `kernreg run"):
        load_experiment(path)
    with pytest.raises(SystemExit) as exit_info:
        main(["stream", str(path), "--out", str(tmp_path / "o"), "--table", "t.md"])
    assert exit_info.value.code == 2
    assert "is now `kernreg run`" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    holdout = tmp_path / "mnist.yaml"
    holdout.write_text(yaml.safe_dump({"dataset": {"name": "mnist"}, "kernel": {"sigma": 7.0},
                                       "algorithms": [{"name": "libsvm"}]}))
    with pytest.raises(SystemExit):  # a hold-out fits MNIST's classes with RLSC only
        main(["run", str(holdout), "--out", str(tmp_path / "o")])
    assert "libsvm fits one output; mnist is multiclass" in capsys.readouterr().err


def test_bayes_rule_of_figure_7_1() -> None:
    # balanced: both rules agree; rebalanced: independent of γ; boundary where densities meet
    x = np.random.default_rng(0).standard_normal((50, 2))
    np.testing.assert_allclose(bayes_scores(x, 0.5, rebalanced=False),
                               bayes_scores(x, 0.5, rebalanced=True))
    np.testing.assert_allclose(bayes_scores(x, 0.9, rebalanced=True),
                               bayes_scores(x, 0.6, rebalanced=True))
    # on the axis between the means, the standard rule with γ = 0.9 favours class 1 more
    point = np.array([[0.45, 0.0]])
    assert bayes_scores(point, 0.9, rebalanced=False)[0] > bayes_scores(point, 0.9,
                                                                         rebalanced=True)[0]
    # a point where ρ(x|1) = ρ(x|−1): score 0 for the rebalanced rule
    def dens(p, m, s):
        return np.exp(-np.sum((p - m) ** 2) / (2 * s**2)) / (2 * np.pi * s**2)
    from scipy.optimize import brentq
    t = brentq(lambda u: dens(np.array([u, 0.0]), np.array([-1, 0]), 1.0)
               - dens(np.array([u, 0.0]), np.array([1, 0]), 0.3), 0.0, 1.0)
    assert abs(bayes_scores(np.array([[t, 0.0]]), 0.7, rebalanced=True)[0]) < 1e-9


# ------------------------------------------------------------------ the run folder of a stream
@pytest.fixture
def stream(kernreg_cli):
    """``kernreg run ARGS --no-progress`` on a stream config: exit status and stderr."""
    def run(args: list[str]) -> tuple[int, str]:
        code, _, err = kernreg_cli(["run", *args, "--no-progress"])
        return code, err
    return run


def _tree(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` with its modification time: what a command changed (the
    run lock aside: a writer of a folder takes its lock, and its file stays)."""
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".lock"} \
        if folder.exists() else {}


def _with(config: dict, path: Path, **changes) -> Path:
    """``config`` with top-level keys changed (``protocol`` and ``model`` merged), as a file."""
    new = {**config}
    for key, value in changes.items():
        new[key] = {**config.get(key, {}), **value} if isinstance(value, dict) else value
    path.write_text(yaml.safe_dump(new))
    return path


@pytest.mark.parametrize("name", ["..", ".", "toy\n", "a/b", "-x"])
def test_a_stream_name_that_is_no_folder_name_is_refused(toy_stream, tmp_path: Path, stream,
                                                         name: str) -> None:
    _, config = toy_stream
    out = tmp_path / "box" / "out"
    before = _tree(tmp_path)
    code, err = stream([str(_with(config, tmp_path / "bad.yaml", name=name)), "--out",
                         str(out), "--force"])
    assert code == 2 and "name:" in err and "cannot be a file name" in err
    after = _tree(tmp_path)
    assert {k: v for k, v in after.items() if k != "bad.yaml"} == \
        {k: v for k, v in before.items() if k != "bad.yaml"}


def test_a_stream_file_named_dots_without_a_name_is_refused(toy_stream, tmp_path: Path,
                                                            stream) -> None:
    _, config = toy_stream
    unnamed = {k: v for k, v in config.items() if k != "name"}
    path = tmp_path / "...yaml"
    path.write_text(yaml.safe_dump(unnamed))
    code, err = stream([str(path), "--out", str(tmp_path / "out")])
    assert code == 2 and "none given, so the file name '...yaml'" in err
    assert not (tmp_path / "out").exists()


def test_stream_force_deletes_only_its_own_run(toy_stream, tmp_path: Path, stream) -> None:
    path, config = toy_stream
    out = tmp_path / "out"
    # a hold-out run's folder of the same name, and one of another experiment
    for folder, manifest in ((out / "toy_stream", {"experiment": "toy_stream", "config_hash":
                                                   "h", "config": {"protocol": {}}}),
                             (out / "other", {"experiment": "theirs", "config_hash": "h",
                                              "config": {"protocol": {"kind": "streaming"}}})):
        (folder / "trials").mkdir(parents=True)
        (folder / "manifest.json").write_text(json.dumps(manifest))
        (folder / "trials" / "t000.h5").write_bytes(b"precious")
    before = _tree(out)
    code, err = stream([str(path), "--out", str(out), "--force"])
    assert code == 2 and "is not marked as a streaming run of toy_stream" in err
    assert "hold-out run" in err and _tree(out) == before
    code, err = stream([str(_with(config, tmp_path / "o.yaml", name="other")), "--out",
                         str(out), "--force"])
    assert code == 2 and "of experiment 'theirs', not 'other'" in err and _tree(out) == before
    code, err = stream([str(path), "--out", str(out), "--resume"])
    assert code == 2 and "holds a hold-out run" in err and _tree(out) == before
    # its own run: --force deletes what kernreg wrote there, and only that
    own = tmp_path / "own"
    assert stream([str(path), "--out", str(own), "--trials", "1"])[0] == 0
    run = own / "toy_stream"
    (run / "trials" / "notes.txt").write_text("mine")
    (run / "notes.txt").write_text("mine")
    assert stream([str(path), "--out", str(own), "--force", "--trials", "1"])[0] == 0
    assert (run / "trials" / "notes.txt").read_text() == "mine"
    assert (run / "notes.txt").read_text() == "mine"


def test_foreign_and_copied_trial_files_are_never_merged(toy_stream, tmp_path: Path,
                                                         stream) -> None:
    path, config = toy_stream
    out = tmp_path / "out"
    assert stream([str(path), "--out", str(out)])[0] == 0
    trials = out / "toy_stream" / "trials"
    # a copied trial file: trial 0 named trial 2
    (trials / "t002.h5").write_bytes((trials / "t000.h5").read_bytes())
    before = _tree(out)
    code, err = stream([str(path), "--out", str(out), "--resume", "--trials", "3"])
    assert code == 2 and "t002.h5 does not belong to this run" in err
    assert "holds trial 0, not trial 2" in err and _tree(out) == before
    (trials / "t002.h5").unlink()
    # a trial file of another config (another seed)
    other = tmp_path / "other_out"
    seed = _with(config, tmp_path / "seed.yaml", protocol={"seed": 99})
    assert stream([str(seed), "--out", str(other), "--trials", "3"])[0] == 0
    (trials / "t002.h5").write_bytes((other / "toy_stream" / "trials" / "t002.h5").read_bytes())
    before = _tree(out)
    code, err = stream([str(path), "--out", str(out), "--resume", "--trials", "3"])
    assert code == 2 and "comes from another config" in err and _tree(out) == before
    (trials / "t002.h5").unlink()
    # the manifest lost, then another config resumed into the folder: refused, nothing written
    (out / "toy_stream" / "manifest.json").unlink()
    before = _tree(out)
    code, err = stream([str(seed), "--out", str(out), "--resume"])
    assert code == 2 and "comes from another config" in err and _tree(out) == before
    # the same config after the lost manifest continues: its trials are its own
    assert stream([str(path), "--out", str(out), "--resume", "--trials", "3"])[0] == 0
    assert sorted(p.name for p in trials.glob("t*.h5")) == ["t000.h5", "t001.h5", "t002.h5"]


def test_a_stream_holds_its_folder_and_clears_dead_writers_temporaries(
        toy_stream, tmp_path: Path, stream) -> None:
    path, _ = toy_stream
    out = tmp_path / "out"
    assert stream([str(path), "--out", str(out), "--trials", "1"])[0] == 0
    run = out / "toy_stream"
    stale = run / "trials" / ".t001.h5.999999.0123456789abcdef.tmp"
    with TrialStore(run).lock():  # another process's run (flock: per open file)
        stale.write_bytes(b"half")  # its live temporary: kept while it runs
        before = _tree(out)
        code, err = stream([str(path), "--out", str(out), "--force"])
    assert code == 2 and "is in use by another kernreg run" in err and _tree(out) == before
    assert stream([str(path), "--out", str(out), "--resume"])[0] == 0
    assert not stale.exists() and (run / "trials" / "t001.h5").is_file()


def test_a_streamed_record_equals_an_uninterrupted_one(toy_stream, tmp_path: Path,
                                                       stream) -> None:
    """Trials written one command at a time equal those of one command (same arrays)."""
    path, _ = toy_stream
    assert stream([str(path), "--out", str(tmp_path / "a")])[0] == 0
    assert stream([str(path), "--out", str(tmp_path / "b"), "--trials", "1"])[0] == 0
    assert stream([str(path), "--out", str(tmp_path / "b"), "--resume"])[0] == 0
    a = TrialStore(tmp_path / "a" / "toy_stream").load_trials()
    b = TrialStore(tmp_path / "b" / "toy_stream").load_trials()
    assert len(a) == len(b) == 2
    for x, y in zip(a, b, strict=True):
        assert x["attrs"] == y["attrs"]
        for method in ("N", "RB", "RC"):
            for key, value in x[method].items():
                np.testing.assert_array_equal(value, y[method][key])


@pytest.mark.parametrize(("changes", "message"), [
    ({"protocol": {"n_bal": 60}}, "protocol.n_bal: 60 training examples"),
    ({"protocol": {"n_test": 21}}, "protocol.n_test: 21 test examples of every class; class "),
    ({"protocol": {"record_at": [1, 100]}}, "protocol.record_at: its largest value, 100"),
    ({"protocol": {"imbalanced_class": 2, "record_at": [1, 100]}}, "class 2 has 60"),
    ({"protocol": {"holdout_every": 10**9}}, "protocol.holdout_every: 1000000000 leaves no"),
    ({"protocol": {"validation_min_examples": 26}}, "protocol.validation_min_examples: 26"),
    ({"model": {"features": {"kind": "nystrom", "m": 10**6, "sigma": 1.0}}},
     "model.features.m: 1000000 Nyström centres exceed the 75"),
    ({"model": {"lambdas": {"min": 1e-3, "max": 1e3, "num": 100_000}}},
     "model.lambdas.num: must be <= 10000, got 100000 (model.lambdas takes a λ grid: a list, "
     "{logspace: [low, high, count]}"),
    ({"model": {"features": {"kind": "rff", "n_components": 10**9, "sigma": 1.0}}},
     "estimated peak memory exceeds the budget of 20 GiB"),
    ({"model": {"features": {"kind": "rff", "n_components": 2000, "sigma": 1.0},
                "lambdas": {"min": 1e-3, "max": 1e3, "num": 10_000}}},
     "factors (one D×D per λ) 298.02 GiB"),
    ({"budget": {"memory_gb": 1e-6}},
     "budget of 1e-06 GiB (budget.memory_gb; 90% of this machine's"),
    ({"protocol": {"trials": 10**8}}, "protocol.trials: must be <= 10000"),
])
def test_stream_sizes_are_checked_before_anything_is_written(toy_stream, tmp_path: Path, stream,
                                                             changes, message) -> None:
    _, config = toy_stream
    out = tmp_path / "out"
    code, err = stream([str(_with(config, tmp_path / "big.yaml", **changes)), "--out",
                         str(out)])
    assert code == 2 and message in err
    assert not out.exists()


def test_stream_trial_count_and_outputs_are_checked_before_the_run(toy_stream, tmp_path: Path,
                                                                   stream, kernreg_cli) -> None:
    path, _ = toy_stream
    out = tmp_path / "out"
    code, err = stream([str(path), "--out", str(out), "--trials", str(10**8)])
    assert code == 2 and "protocol.trials: must be <= 10000" in err and not out.exists()
    for option, value in (("--only", "N"), ("--scheduler", "local:2"), ("--device", "torch")):
        code, err = stream([str(path), "--out", str(out), option, value])
        assert code == 2 and f"{option}: a streaming run" in err and not out.exists()
    assert stream([str(path), "--out", str(out), "--trials", "1"])[0] == 0
    before = _tree(out)
    code, _, err = kernreg_cli(["table", str(out / "toy_stream"), "-o",
                                str(out / "toy_stream" / "manifest.json")])
    assert code == 2 and "--output" in err and "part of the record" in err
    assert _tree(out) == before


def test_the_stream_config_hash_is_that_of_earlier_runs() -> None:
    """The committed stream config's hash is pinned (neither its memory budget nor its notes
    are part of it): a change that would orphan its run folder shows here."""
    config = Path(__file__).resolve().parents[1] / "configs" / "thesis_table7.yaml"
    assert load_config(config).config_hash() == \
        "84d13a943b8794e20040378d7ab36aca84a1b94c965a84352676afc8ed7f9d62"


def test_a_registered_method_runs_beside_the_thesis_ones(toy_stream, tmp_path: Path,
                                                         stream) -> None:
    """A method is one registration: configs list it, trials record it, the table shows it."""
    from kernreg.protocols.class_incremental import (
        Decision,
        StreamMethod,
        register_method,
        unregister_method,
    )

    def largest_lambda(point) -> Decision:  # no selection: the most regularized model
        return Decision(point.test_scores[-1], len(point.lambdas) - 1, 0.0)

    register_method(StreamMethod("BIG", "largest λ, no selection", "largest λ", "tab:green",
                                 ":", largest_lambda))
    try:
        _, config = toy_stream
        path = _with(config, tmp_path / "big.yaml", methods=["N", "BIG"])
        assert stream([str(path), "--out", str(tmp_path / "out"), "--trials", "1"])[0] == 0
        run = tmp_path / "out" / "toy_stream"
        (record,) = TrialStore(run).load_trials()
        assert set(record) >= {"N", "BIG"} and "RB" not in record
        np.testing.assert_array_equal(record["BIG"]["lambda"], 100.0)
        assert "Total BIG" in (run / "table7_1.md").read_text()
    finally:
        unregister_method("BIG")


def _summary_row(method: str, n_imb: int, metric: str, mean: float, std: float) -> dict:
    return {"method": method, "n_imb": n_imb, "metric": metric, "mean": mean, "std": std,
            "median": mean, "trials": 10}


def test_table7_labels_every_cell_beyond_two_percent_with_its_z_score() -> None:
    import pandas as pd

    from kernreg.protocols.class_incremental.summary import table7_gaps

    summary = pd.DataFrame([
        _summary_row("N", 1, "total", 79.0, 1.2),        # thesis 79.2 ± 0.3: -0.3%, no label
        _summary_row("N", 1, "imbalanced", 0.0, 0.0),    # thesis 0.0 ± 0.0: equal
        _summary_row("RB", 5, "imbalanced", 36.0, 14.0),  # thesis 39.6 ± 6.2: z = -0.74
        _summary_row("RC", 1, "imbalanced", 2.0, 2.0),    # thesis 9.5 ± 4.9: z = -4.5
        _summary_row("RC", 5, "imbalanced", 7.0, 12.4)])  # thesis 17.5 ± 6.6
    notes = [{"n_imb": 5, "method": "RC", "metric": "imbalanced", "note": "the α grid",
              "open": "3 α grids (results/x.csv)"}]
    lines = table7_gaps(summary, 10, notes)
    assert len(lines) == 3
    noise, rc1, rc5 = lines
    assert noise.startswith("≠ imbalanced RB at n_imb = 5, accuracy %: 36 vs 39.6 (-9.1%), "
                            "z = -0.74 (10 trials here, 10 in the thesis)")
    assert noise.endswith(": within noise")
    assert "z = -4.48" in rc1 and rc1.endswith(": open")
    assert rc5.endswith(": open after 3 α grids (results/x.csv) — the α grid")


def test_a_configs_notes_label_its_table_cells_without_changing_its_hash(
        toy_stream, tmp_path: Path, capsys) -> None:
    path, config = toy_stream
    out = tmp_path / "results"
    main(["run", str(path), "--out", str(out), "--no-progress", "--trials", "1"])
    capsys.readouterr()
    main(["table", str(path), "--results-dir", str(out)])
    flagged = [line for line in capsys.readouterr().out.splitlines() if line.startswith("- ≠ ")]
    assert flagged and all(line.endswith(": open") for line in flagged)
    metric, method, *_, n_imb = flagged[0][4:].split(",")[0].split()
    noted = {**config, "notes": [{"n_imb": int(n_imb), "method": method, "metric": metric,
                                  "note": "a measured reason"}]}
    before = load_config(path).config_hash()
    path.write_text(yaml.safe_dump(noted))
    assert load_config(path).config_hash() == before  # the finished trials stay valid
    main(["table", str(path), "--results-dir", str(out)])
    text = capsys.readouterr().out
    assert f"{flagged[0][2:]}".removesuffix(": open") + ": measured reason (its note) — a " \
        "measured reason" in text


def test_the_alpha_grid_takes_the_spaced_forms(toy_stream, tmp_path: Path) -> None:
    _, config = toy_stream
    path = tmp_path / "alphas.yaml"
    path.write_text(yaml.safe_dump({**config, "model": {
        **config["model"], "alphas": {"linspace": [0.0, 1.0, 101]}}}))
    alphas = load_config(path).model["alphas"]
    assert len(alphas) == 101 and alphas[0] == 0.0 and alphas[7] == 0.07 and alphas[-1] == 1.0
    listed = tmp_path / "listed.yaml"
    listed.write_text(yaml.safe_dump({**config, "model": {**config["model"], "alphas": alphas}}))
    assert load_config(listed).config_hash() == load_config(path).config_hash()
    path.write_text(yaml.safe_dump({**config, "model": {
        **config["model"], "alphas": {"linspace": [0.1, 1.0, 10]}}}))
    with pytest.raises(ConfigError, match="model.alphas: must contain 0"):
        load_config(path)
