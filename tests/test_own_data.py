"""A data file of one's own, and a solver of one's own, through ``kernreg run`` and everything
after it: the same numbers as the registered dataset, every format alike, every bad file one
message with nothing written, plugins from a config and from an installed distribution."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import dump_svmlight_file, make_friedman1

from kernreg.config import load_experiment
from kernreg.errors import ConfigError, DataError
from kernreg.solvers import algorithm_names, unregister

REPO = Path(__file__).resolve().parents[1]

ALGORITHMS = """
algorithms:
  - {name: nkrls, m: 40, lambdas: {logspace: [1.0e-8, 1.0, 9]}}
  - {name: nytro, m: 40, max_iter: 60}
protocol: {trials: 2, seed: 3}
"""


def friedman(n: int = 300, seed: int = 0) -> pd.DataFrame:
    X, y = make_friedman1(n_samples=n, n_features=5, noise=0.3, random_state=seed)
    return pd.DataFrame(X, columns=[f"x{i}" for i in range(5)]).assign(price=y)


def write_config(folder: Path, name: str, dataset: str, extra: str = "") -> Path:
    path = folder / f"{name}.yaml"
    budget = "" if extra.startswith("budget") else "budget: {blas_threads: 1}\n"
    path.write_text(f"name: {name}\ndataset: {dataset}\n{extra}{budget}{ALGORITHMS}")
    return path


def results(run_dir: Path) -> pd.DataFrame:
    return pd.read_csv(run_dir / "results.csv").sort_values(["label", "trial"],
                                                           ignore_index=True)


# ------------------------------------------------------------------ the registered Adult


@pytest.mark.mirror
def test_the_a9a_files_give_the_numbers_of_the_registered_adult(mirror: Path, tmp_path: Path,
                                                                kernreg_cli) -> None:
    """NYTRO Table 2's Adult as files: LIBSVM's a9a / a9a.t with n_features 123 and σ = 3.3
    (the registry maps the 0/1 features to ±1, doubling every distance: σ = 6.6 / 2) give the
    registered dataset's test RMSE and t*, trial by trial (rows subsampled the same way)."""
    algorithms = textwrap.dedent("""
        algorithms:
          - name: nytro
            m: 200
            max_iter: 100
            step_rows: all
            stopping: {rule: window_slope, window: 10, threshold: 0.0069, select: stop}
        protocol: {trials: 2, validation_fraction: 0.2, seed: 0, refit: false}
        budget: {blas_threads: 1}
        """)
    # the papers fit no intercept; a data file's runs do unless told not to
    libsvm = mirror / "libsvm"
    registered = tmp_path / "adult.yaml"
    registered.write_text("name: adult_small\ndataset: {name: adult, n_train: 3000, "
                          "n_test: 2000}\n" + algorithms)
    own = tmp_path / "a9a.yaml"
    own.write_text(f"name: a9a_small\ndataset: {{file: {libsvm / 'a9a'}, test_file: "
                   f"{libsvm / 'a9a.t'}, format: libsvm, n_features: 123, n_train: 3000, "
                   f"n_test: 2000}}\nkernel: {{sigma: 3.3}}\n"
                   + algorithms.replace("refit: false}", "refit: false, fit_intercept: false}"))
    for config in (registered, own):
        code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                    "--no-progress"])
        assert code == 0, err
    ours, theirs = results(tmp_path / "runs" / "a9a_small"), results(tmp_path / "runs" /
                                                                     "adult_small")
    assert set(ours["dataset"]) == {"file:a9a"} and set(theirs["dataset"]) == {"adult"}
    np.testing.assert_array_equal(ours["selected"], theirs["selected"])
    np.testing.assert_allclose(ours["test_rmse"], theirs["test_rmse"], rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours["test_error"], theirs["test_error"], rtol=0, atol=1e-12)


# ------------------------------------------------------------------ every format alike


@pytest.fixture
def friedman_files(tmp_path: Path) -> dict[str, Path]:
    frame = friedman()
    X, y = frame.drop(columns="price").to_numpy(), frame["price"].to_numpy()
    files = {"csv": tmp_path / "friedman.csv", "parquet": tmp_path / "friedman.parquet",
             "npz": tmp_path / "friedman.npz", "hdf5": tmp_path / "friedman.h5",
             "tsv": tmp_path / "friedman.tsv", "npy": tmp_path / "friedman.npy"}
    frame.to_csv(files["csv"], index=False, float_format="%.17g")
    frame.to_csv(files["tsv"], index=False, sep="\t", float_format="%.17g")
    frame.to_parquet(files["parquet"])
    np.savez(files["npz"], X=X, y=y)
    np.save(files["npy"], np.column_stack([X, y]))
    with h5py.File(files["hdf5"], "w") as f:
        f["data/features"] = X
        f["data/price"] = y
    return files


def test_a_csv_runs_end_to_end_and_every_command_reads_its_run(
        tmp_path: Path, friedman_files: dict[str, Path], kernreg_cli) -> None:
    config = write_config(tmp_path, "friedman", "{file: friedman.csv, target: price, "
                          "preprocessing: [standardize]}")
    out = tmp_path / "runs"
    code, stdout, err = kernreg_cli(["run", str(config), "--out", str(out), "--no-progress"])
    assert code == 0, err
    assert "friedman.csv m=40" in stdout
    run_dir = out / "friedman"
    frame = results(run_dir)
    assert len(frame) == 4 and set(frame["dataset"]) == {"file:friedman.csv"}
    assert np.isfinite(frame["test_rmse"]).all()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    about = manifest["dataset_file"]
    assert about["files"] == {str(friedman_files["csv"]): manifest["config"]["dataset"]
                              ["sha256"]["file"]}
    assert about["task"] == "regression" and about["rows"] == 300
    assert about["training_rows"] == 240 and about["test_rows"] == 60
    # no σ given: the median heuristic's, said so in the manifest
    assert about["sigma"]["value"] == manifest["config"]["kernel"]["sigma"] == \
        about["median_sigma"]
    assert about["sigma"]["from"].startswith("the median distance")
    for args in (["table", str(run_dir)], ["table", str(config), "--results-dir", str(out)],
                 ["plot", str(run_dir)],
                 ["report", str(run_dir), "-o", str(tmp_path / "report.html")]):
        code, stdout, err = kernreg_cli(args)
        assert code == 0, (args, err)
    assert "friedman.csv" in (tmp_path / "report.html").read_text()
    # NYTRO Table 1's layout: the sizes as the run recorded them, no registry lookup
    code, stdout, err = kernreg_cli(["table", str(run_dir), "--table", "table1"])
    assert code == 0, err
    assert f"| friedman.csv | 240 | 60 | 5 | regression | {about['sigma']['value']:g} | 40 |" \
        in stdout
    assert any((run_dir / "figures").iterdir())


@pytest.mark.parametrize("fmt, dataset", [
    ("parquet", "{file: friedman.parquet, target: price}"),
    ("tsv", "{file: friedman.tsv, target: price}"),
    ("npz", "{file: friedman.npz}"),
    ("npy", "{file: friedman.npy}"),
    ("hdf5", "{file: friedman.h5, features: data/features, target: data/price}"),
])
def test_every_format_gives_the_numbers_of_the_csv(tmp_path: Path, friedman_files,
                                                    kernreg_cli, fmt: str, dataset: str) -> None:
    out = tmp_path / "runs"
    for name, block in (("from_csv", "{file: friedman.csv, target: price}"),
                        (f"from_{fmt}", dataset)):
        code, _, err = kernreg_cli(["run", str(write_config(tmp_path, name, block)), "--out",
                                    str(out), "--no-progress"])
        assert code == 0, err
    ours, csv = results(out / f"from_{fmt}"), results(out / "from_csv")
    np.testing.assert_array_equal(ours["selected"], csv["selected"])
    np.testing.assert_allclose(ours["test_rmse"], csv["test_rmse"], rtol=1e-12)


def test_a_config_file_path_is_taken_from_the_config_s_folder(tmp_path: Path,
                                                              friedman_files) -> None:
    elsewhere = tmp_path / "configs"
    elsewhere.mkdir()
    config = write_config(elsewhere, "relative", "{file: ../friedman.csv}")
    exp = load_experiment(config)
    assert exp.dataset["file"] == str(friedman_files["csv"])
    assert exp.dataset["task"] == "regression" and exp.dataset["format"] == "csv"
    assert exp.dataset["test_fraction"] == 0.2
    assert exp.dataset_name == "file:friedman.csv"
    assert exp.sigma_source == "dataset"


def test_the_hash_follows_the_bytes_not_the_path(tmp_path: Path, friedman_files) -> None:
    first = load_experiment(write_config(tmp_path, "a", "{file: friedman.csv}"))
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / "friedman.csv").write_bytes(friedman_files["csv"].read_bytes())
    second = load_experiment(write_config(moved, "a", "{file: friedman.csv}"))
    assert first.dataset["file"] != second.dataset["file"]
    assert first.config_hash() == second.config_hash()
    friedman(seed=1).to_csv(moved / "friedman.csv", index=False)
    assert load_experiment(moved / "a.yaml").config_hash() != first.config_hash()


def test_a_changed_file_is_refused_on_resume_and_a_moved_one_resumes(
        tmp_path: Path, friedman_files, kernreg_cli) -> None:
    config = write_config(tmp_path, "resumed", "{file: friedman.csv}")
    out = str(tmp_path / "runs")
    assert kernreg_cli(["run", str(config), "--out", out, "--trials", "1",
                        "--no-progress"])[0] == 0
    original = friedman_files["csv"].read_bytes()
    friedman(seed=5).to_csv(friedman_files["csv"], index=False)
    code, _, err = kernreg_cli(["run", str(config), "--out", out, "--resume", "--no-progress"])
    assert code == 2
    assert "its data changed since its trials were computed" in err
    assert str(friedman_files["csv"]) in err and "--force" in err
    assert len(list((tmp_path / "runs" / "resumed" / "trials").iterdir())) == 2  # kept
    # the same bytes elsewhere: the same data, the run resumes
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / "friedman.csv").write_bytes(original)
    (moved / "resumed.yaml").write_text(config.read_text())
    code, _, err = kernreg_cli(["run", str(moved / "resumed.yaml"), "--out", out, "--resume",
                                "--no-progress"])
    assert code == 0, err
    assert len(results(tmp_path / "runs" / "resumed")) == 4


def test_smoke_set_and_dask_take_a_file(tmp_path: Path, friedman_files, kernreg_cli) -> None:
    config = write_config(tmp_path, "friedman", "{file: friedman.csv}")
    out = tmp_path / "runs"
    code, _, err = kernreg_cli(["run", str(config), "--smoke", "--out", str(out),
                                "--no-progress"])
    assert code == 0, err
    code, _, err = kernreg_cli(["run", str(config), "--out", str(out), "--no-progress",
                                "--set", "dataset.file=friedman.parquet",
                                "--set", "dataset.target=price", "--set", "name=from_set"])
    assert code == 0, err
    assert set(results(out / "from_set")["dataset"]) == {"file:friedman.parquet"}


def test_a_file_dataset_runs_on_dask_workers(tmp_path: Path, friedman_files,
                                             kernreg_cli) -> None:
    pytest.importorskip("distributed")
    config = write_config(tmp_path, "friedman", "{file: friedman.csv}")
    out = tmp_path / "runs"
    assert kernreg_cli(["run", str(config), "--out", str(out / "here"), "--no-progress"])[0] == 0
    code, _, err = kernreg_cli(["run", str(config), "--out", str(out / "dask"),
                                "--scheduler", "local:1", "--no-progress"])
    assert code == 0, err
    np.testing.assert_allclose(results(out / "dask" / "friedman")["test_rmse"],
                               results(out / "here" / "friedman")["test_rmse"], rtol=1e-12)


# ------------------------------------------------------------------ bad files


def _ragged(folder: Path) -> str:
    (folder / "bad.csv").write_text("a,b,y\n1,2,3\n4,5,6,7\n" + "1,2,3\n" * 20)
    return "{file: bad.csv}"


def _write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text)


def _rows(n: int, extra: str = "") -> str:
    rng = np.random.default_rng(0)
    return "a,b,y\n" + "".join(f"{a:.6f},{b:.6f},{a + b:.6f}\n"
                               for a, b in rng.standard_normal((n, 2))) + extra


def _bad_case(name: str, folder: Path) -> tuple[str, str, str]:
    """(dataset block, budget line, words the message must hold) of bad file ``name``."""
    if name == "missing":
        return "{file: nowhere.csv}", "", "does not exist"
    if name == "empty":
        _write(folder, "bad.csv", "")
        return "{file: bad.csv}", "", "is empty"
    if name == "truncated npz":
        path = folder / "bad.npz"
        np.savez(path, X=np.ones((50, 3)), y=np.arange(50.0))
        path.write_bytes(path.read_bytes()[:300])
        return "{file: bad.npz}", "", "truncated"
    if name == "wrong format":
        np.save(folder / "bad.npy", np.ones((20, 3)))
        (folder / "bad.csv").write_bytes((folder / "bad.npy").read_bytes())
        return "{file: bad.csv}", "", "not a valid csv file"
    if name == "nan":
        _write(folder, "bad.csv", _rows(30, "nan,1,2\n"))
        return "{file: bad.csv}", "", "NaN"
    if name == "inf":
        _write(folder, "bad.csv", _rows(30, "inf,1,2\n"))
        return "{file: bad.csv}", "", "infinite"
    if name == "ragged":
        return _ragged(folder), "", "line"
    if name == "non-numeric":
        _write(folder, "bad.csv", _rows(30, "1,oops,2\n"))
        return "{file: bad.csv}", "", "'oops'"
    if name == "no target column":
        _write(folder, "bad.csv", _rows(30))
        return "{file: bad.csv, target: price}", "", "'price'"
    if name == "one-valued target":
        _write(folder, "bad.csv", "a,b,y\n" + "".join(f"{i},{i % 3},1\n" for i in range(30)))
        return "{file: bad.csv}", "", "one value"
    if name == "test file width":
        _write(folder, "bad.csv", _rows(30))
        _write(folder, "test.csv", "a,b,c,y\n1,2,3,4\n5,6,7,8\n")
        return "{file: bad.csv, test_file: test.csv}", "", "test.csv"
    if name == "labels for the task":
        _write(folder, "bad.csv", "a,y\n" + "".join(f"{i},{i % 3}\n" for i in range(30)))
        return "{file: bad.csv, task: binary}", "", "3 distinct values"
    if name == "too few rows":
        _write(folder, "bad.csv", "a,y\n1,2\n3,4\n")
        return "{file: bad.csv}", "", "training row"
    if name == "missing hdf5 key":
        with h5py.File(folder / "bad.h5", "w") as f:
            f["X"] = np.ones((20, 2))
            f["y"] = np.arange(20.0)
        return "{file: bad.h5, target: labels}", "", "'labels'"
    if name == "too large":
        with h5py.File(folder / "bad.h5", "w") as f:
            f.create_dataset("X", shape=(200_000, 1000), dtype="f8")  # 1.5 GiB, never written
            f["y"] = np.zeros(200_000)
        return "{file: bad.h5}", "budget: {memory_gb: 0.5, blas_threads: 1}\n", "memory budget"
    if name == "sparse too large":
        dump_svmlight_file(np.eye(30), np.arange(30) % 2, str(folder / "bad.svm"))
        return ("{file: bad.svm, n_features: 20000000}",
                "budget: {memory_gb: 1, blas_threads: 1}\n", "memory budget")
    raise AssertionError(name)


BAD_FILES = ["missing", "empty", "truncated npz", "wrong format", "nan", "inf", "ragged",
             "non-numeric", "no target column", "one-valued target", "test file width",
             "labels for the task", "too few rows", "missing hdf5 key", "too large",
             "sparse too large"]


@pytest.mark.parametrize("case", BAD_FILES)
def test_a_bad_file_is_one_message_and_nothing_is_written(tmp_path: Path, kernreg_cli,
                                                          case: str) -> None:
    dataset, budget, words = _bad_case(case, tmp_path)
    config = write_config(tmp_path, "bad", dataset, budget)
    out = tmp_path / "runs"
    code, _, err = kernreg_cli(["run", str(config), "--out", str(out), "--no-progress"])
    assert code == 2, (case, err)
    assert err.startswith("error: ") and words in err, (case, err)
    assert "bad" in err or "nowhere" in err  # the file is named
    assert not out.exists(), case


def test_settings_that_do_not_fit_the_file_name_the_key(tmp_path: Path, friedman_files) -> None:
    with pytest.raises(ConfigError, match=r"dataset\.target: npy files have no named target"):
        load_experiment(write_config(tmp_path, "a", "{file: friedman.npy, target: y}"))
    with pytest.raises(ConfigError, match=r"dataset: .*is not valid"):
        load_experiment(write_config(tmp_path, "b", "{file: friedman.csv, name: adult}"))
    with pytest.raises(ConfigError, match=r"dataset\.test_fraction"):
        load_experiment(write_config(tmp_path, "c", "{file: friedman.csv, test_fraction: 2}"))
    with pytest.raises(DataError, match=r"dataset\.file: .*does not exist"):
        load_experiment(write_config(tmp_path, "d", "{file: ~/no/such/file.csv}"))


def test_a_multiclass_file_takes_the_classifiers_and_refuses_the_others(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.standard_normal(90), "b": rng.standard_normal(90),
                  "digit": np.arange(90) % 3}).to_csv(tmp_path / "three.csv", index=False)
    exp = load_experiment(write_config(tmp_path, "m", "{file: three.csv, task: multiclass}"))
    assert exp.dataset["task"] == "multiclass"
    config = tmp_path / "p.yaml"
    config.write_text("name: p\ndataset: {file: three.csv}\nalgorithms:\n  - {name: sigm}\n")
    with pytest.raises(ConfigError, match=r"sigm fits one output; file:three\.csv is multiclass"):
        load_experiment(config)


# ------------------------------------------------------------------ plugins

PLUGIN = '''
"""Ridge regression on the kernel columns of the first rows: a solver of one's own."""
import numpy as np

import kernreg
from kernreg.solvers import rmse


class ColumnRidge(kernreg.KernelEstimator):
    path_parameter = "lambda"

    def __init__(self, kernel="gaussian", sigma=1.0, lambdas=None, n_columns=5,
                 dtype="float64", memory_budget=2**26):
        self.kernel, self.sigma, self.lambdas = kernel, sigma, lambdas
        self.n_columns, self.dtype, self.memory_budget = n_columns, dtype, memory_budget

    def fit(self, X, y, X_val=None, y_val=None):
        X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
        C = X[: self.n_columns]
        K = self.kernel_(X, C)
        lambdas = np.asarray(self.lambdas if self.lambdas is not None else [1e-3])
        alphas = np.column_stack([
            np.linalg.solve(K.T @ K + lam * len(y) * np.eye(len(C)), K.T @ y)
            for lam in lambdas])
        val = rmse(y_val, self.kernel_(X_val, C) @ alphas)
        best = int(np.argmin(val))
        self.centers_, self.alpha_ = C, alphas[:, best]
        self.best_lambda_ = float(lambdas[best])
        self.path_ = {"lambdas": lambdas, "val_rmse": val}
        return self


kernreg.register_algorithm(kernreg.AlgorithmSpec(
    name="column_ridge", estimator=ColumnRidge, title="Column ridge",
    schema={"lambdas": {"type": "array", "items": {"type": "number"}},
            "n_columns": {"type": "integer", "minimum": 1}},
    config_defaults=("n_columns",),
    memory=lambda params, problem: {"columns": problem.n_fit * params["n_columns"] * 8}))
'''

PLUGIN_RUN = """
algorithms:
  - {name: column_ridge, n_columns: 30, lambdas: [1.0e-6, 1.0e-3]}
  - {name: nkrls, m: 30}
protocol: {trials: 2}
budget: {blas_threads: 1}
"""


@pytest.fixture
def column_ridge_unregistered():
    yield
    if "column_ridge" in algorithm_names():
        unregister("column_ridge")


def test_a_plugin_file_named_by_the_config_runs_and_tabulates(
        tmp_path: Path, friedman_files, kernreg_cli, column_ridge_unregistered) -> None:
    (tmp_path / "my_solvers.py").write_text(PLUGIN)
    config = tmp_path / "plugin.yaml"
    config.write_text("name: plugin\nplugins: [./my_solvers.py]\n"
                      "dataset: {file: friedman.csv}\n" + PLUGIN_RUN)
    out = tmp_path / "runs"
    code, stdout, err = kernreg_cli(["run", str(config), "--out", str(out), "--no-progress"])
    assert code == 0, err
    assert "Column ridge" in stdout
    frame = results(out / "plugin")
    assert set(frame["algorithm"]) == {"column_ridge", "nkrls"}
    code, stdout, err = kernreg_cli(["table", str(out / "plugin")])
    assert code == 0 and "Column ridge" in stdout, err
    manifest = json.loads((out / "plugin" / "manifest.json").read_text())
    assert manifest["config"]["plugins"] == ["./my_solvers.py"]


def test_a_plugin_that_fails_is_one_message(tmp_path: Path, friedman_files,
                                            kernreg_cli) -> None:
    (tmp_path / "broken.py").write_text("import numpy\n\nraise RuntimeError('no licence')\n")
    for plugins, words in (("[./broken.py]", "broken.py:3: RuntimeError: no licence"),
                           ("[no_such_module_here]", "no module 'no_such_module_here'"),
                           ("[./absent.py]", "absent.py is not a file")):
        config = tmp_path / "p.yaml"
        config.write_text(f"name: p\nplugins: {plugins}\ndataset: {{file: friedman.csv}}\n"
                          + ALGORITHMS)
        code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs")])
        assert code == 2 and "plugins[0]" in err and words in err, err
        assert not (tmp_path / "runs").exists()


def test_an_installed_plugin_registers_through_its_entry_point(tmp_path: Path,
                                                               friedman_files) -> None:
    """A distribution on the path whose ``kernreg.plugins`` entry point names its module:
    ``kernreg run`` finds its algorithm with no ``plugins:`` key, ``kernreg table`` its title."""
    site = tmp_path / "site"
    (site / "column_ridge_plugin").mkdir(parents=True)
    (site / "column_ridge_plugin" / "__init__.py").write_text(PLUGIN)
    info = site / "column_ridge_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: column-ridge-plugin\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text("[kernreg.plugins]\n"
                                           "column_ridge = column_ridge_plugin\n")
    config = tmp_path / "installed.yaml"
    config.write_text("name: installed\ndataset: {file: friedman.csv}\n" + PLUGIN_RUN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])}
    for args in (["run", str(config), "--out", str(tmp_path / "runs"), "--no-progress"],
                 ["table", str(tmp_path / "runs" / "installed")]):
        done = subprocess.run([sys.executable, "-m", "kernreg", *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "Column ridge" in done.stdout


def test_a_path_may_name_environment_variables(tmp_path: Path, friedman_files,
                                               monkeypatch: pytest.MonkeyPatch,
                                               kernreg_cli) -> None:
    config = write_config(tmp_path, "env",
                          "{file: $MY_DATA/friedman.csv}")
    monkeypatch.delenv("MY_DATA", raising=False)
    with pytest.raises(ConfigError, match=r"dataset\.file: .*MY_DATA, which is not set"):
        load_experiment(config)
    monkeypatch.setenv("MY_DATA", str(tmp_path))
    assert load_experiment(config).dataset["file"] == str(friedman_files["csv"])


@pytest.mark.mirror
def test_the_shipped_a9a_config_takes_the_mirror_option(mirror: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        kernreg_cli) -> None:
    """``--mirror`` is set before the config is read: its ``$KERNREG_MIRROR`` paths find it."""
    monkeypatch.delenv("KERNREG_MIRROR")
    code, _, err = kernreg_cli(["run", "a9a_file_nytro", "--smoke", "--mirror", str(mirror),
                                "--out", str(tmp_path), "--no-progress"])
    assert code == 0, err
    assert set(results(tmp_path / "a9a_file_nytro")["dataset"]) == {"file:a9a"}


def test_text_labels_are_coded_recorded_and_reported(tmp_path: Path, kernreg_cli) -> None:
    """Any two labels: sorted, the first coded −1, the second +1 (the registered datasets'
    coding), the mapping in the manifest and the report; the measures are classification's."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((240, 3))
    churn = np.where(X[:, 0] + 0.3 * rng.standard_normal(240) > 0, "yes", "no")
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(churn=churn).to_csv(tmp_path / "churn.csv",
                                                                        index=False)
    config = write_config(tmp_path, "churn", "{file: churn.csv}")
    out = tmp_path / "runs"
    code, _, err = kernreg_cli(["run", str(config), "--out", str(out), "--no-progress"])
    assert code == 0, err
    manifest = json.loads((out / "churn" / "manifest.json").read_text())
    assert manifest["dataset_file"]["task"] == "binary"
    assert manifest["dataset_file"]["labels"] == {"-1": "no", "+1": "yes"}
    frame = results(out / "churn")
    assert (frame["test_error"] < 0.3).all()  # a learnable target, measured as classes
    code, _, err = kernreg_cli(["report", str(out / "churn"), "-o", str(tmp_path / "r.html")])
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    assert "&#x27;no&#x27; → -1, &#x27;yes&#x27; → +1" in page
    digest = manifest["config"]["dataset"]["sha256"]["file"]
    assert f"{tmp_path / 'churn.csv'}, sha256 {digest}" in page
