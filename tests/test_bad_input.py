"""Bad input never reaches a traceback: one message, exit status 2, nothing half-written.

Every class of the issue, with real files: non-finite config values, parameters only an
estimator can reject, unwritable and full output folders, damaged result files, a run with
nothing to plot, the exit statuses — and a property test feeding random values to the config.
Data: scikit-learn's bundled breast cancer table (no mirror needed), subsampled.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import h5py
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernreg.cli import main

CONFIG = """
name: small
dataset: {name: breast_cancer, n_train: 120, n_test: 60}
algorithms:
  - {name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1e-1, 6]}}
  - {name: nytro, m: 20, max_iter: 30}
protocol: {trials: 3}
budget: {blas_threads: 1}
"""


def _config(tmp_path: Path, text: str = CONFIG, name: str = "small.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``kernreg ARGS``: exit status, stdout, stderr (no traceback may reach stderr)."""
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def _written(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() \
        else []


# ------------------------------------------------------------------ 1. non-finite numbers
@pytest.mark.parametrize("old,new,where", [
    ("protocol: {trials: 3}", "protocol: {trials: 3}\nkernel: {sigma: .nan}", "kernel.sigma"),
    ("[1e-6, 1e-1, 6]", "[1e-6, .inf, 6]", "algorithms[0].lambdas.logspace[1]"),
    ("lambdas: {logspace: [1e-6, 1e-1, 6]}", "lambdas: [1e-3, .nan]", "algorithms[0].lambdas[1]"),
    ("max_iter: 30}", "max_iter: 30, epsilon: .inf}", "algorithms[1].epsilon"),
    ("max_iter: 30}", "max_iter: 30, acceleration: nu, nu: .nan}", "algorithms[1].nu"),
    ("max_iter: 30}", "max_iter: 30, stopping: {threshold: -.inf}}",
     "algorithms[1].stopping.threshold"),
    ("trials: 3", "trials: 3, validation_fraction: .nan", "protocol.validation_fraction"),
    ("blas_threads: 1", "blas_threads: 1, memory_gb: .inf", "budget.memory_gb"),
    ("blas_threads: 1", "blas_threads: 1, block_mb: .nan", "budget.block_mb"),
])
def test_non_finite_values_are_refused_by_one_rule(
    old: str, new: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, CONFIG.replace(old, new))
    out = tmp_path / "out"
    code, _, err = _run(["run", str(config), "--out", str(out), "--no-progress"], capsys)
    assert code == 2
    assert f"{where}: must be a finite number" in err
    assert _written(out) == []


def test_a_block_size_rounding_to_zero_bytes_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, CONFIG.replace("blas_threads: 1", "blas_threads: 1, "
                                              "block_mb: 1e-9"))
    code, _, err = _run(["run", str(config), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "budget.block_mb: must be >= 0.0009765625" in err
    assert _written(tmp_path / "out") == []


# ------------------------------------------------------------------ 2. validation before writing
def test_a_bad_parameter_of_the_second_algorithm_stops_the_run_before_any_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the schema lets any sampler carry lam; the uniform sampler (its own code) refuses it
    config = _config(tmp_path, CONFIG.replace(
        "max_iter: 30}", "max_iter: 30, sampler: {name: uniform, lam: 1e-3}}"))
    out = tmp_path / "out"
    code, _, err = _run(["run", str(config), "--out", str(out), "--no-progress"], capsys)
    assert code == 2
    assert "algorithms[1] (nytro): sampler 'uniform'" in err and "lam" in err
    assert _written(out) == []  # no manifest, no trial of the first algorithm


# ------------------------------------------------------------------ 3. output folders
def test_out_under_a_file_is_refused_before_computing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(blocker / "out"),
                         "--no-progress"], capsys)
    assert code == 2 and f"cannot write {blocker / 'out' / 'small'}" in err
    assert "choose another --out" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_out_under_a_read_only_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(locked / "out")],
                            capsys)
    finally:
        locked.chmod(0o700)
    assert code == 2 and "cannot write" in err and "Permission denied" in err


def _trial_files(run: Path) -> list[Path]:
    return sorted((run / "trials").glob("*.h5"))


def _readable(path: Path) -> bool:
    with h5py.File(path, "r") as f:
        return "val_rmse" in f


def test_disk_full_at_a_trial_keeps_finished_trials_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An injected ENOSPC when the third trial file is written (the disk is full)."""
    import kernreg.results.store as store

    real_file = h5py.File
    writes = {"n": 0}

    def full_disk(name, mode="r", *args, **kwargs):
        if mode == "w" and "trials" in str(name):
            writes["n"] += 1
            if writes["n"] == 3:
                raise OSError(errno.ENOSPC, "No space left on device", str(name))
        return real_file(name, mode, *args, **kwargs)

    monkeypatch.setattr(store.h5py, "File", full_disk)
    out = tmp_path / "out"
    code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(out), "--no-progress"],
                        capsys)
    assert code == 2
    assert "No space left on device" in err and "--resume" in err
    run = out / "small"
    assert len(_trial_files(run)) == 2 and all(_readable(p) for p in _trial_files(run))
    assert not [p for p in run.rglob("*.tmp")]  # no temporary file left behind
    monkeypatch.setattr(store.h5py, "File", real_file)
    code, _, _ = _run(["run", str(_config(tmp_path)), "--out", str(out), "--resume",
                       "--no-progress"], capsys)
    assert code == 0 and len(_trial_files(run)) == 6


def test_file_size_limit_at_the_merged_results_is_named_and_rebuilt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real write failure: the process may not write files beyond a size (RLIMIT_FSIZE),
    large enough for the trial files, too small for the merged results.h5."""
    config = _config(tmp_path)
    # calibrate the limit on an unlimited run: above every trial file, below results.h5
    code, _, _ = _run(["run", str(config), "--out", str(tmp_path / "free"), "--no-progress"],
                      capsys)
    free = tmp_path / "free" / "small"
    largest_trial = max(p.stat().st_size for p in _trial_files(free))
    merged = (free / "results.h5").stat().st_size
    assert code == 0 and largest_trial < merged
    limit = (largest_trial + merged) // 2
    out = tmp_path / "out"
    limited = textwrap.dedent(f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fail the write, do not kill
        resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
        from kernreg.cli import main
        main(["run", {str(config)!r}, "--out", {str(out)!r}, "--no-progress"])
    """)
    done = subprocess.run([sys.executable, "-c", limited], capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"}, timeout=300)
    run = out / "small"
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "results.h5" in done.stderr and "kernreg table --rebuild" in done.stderr
    assert len(_trial_files(run)) == 6 and all(_readable(p) for p in _trial_files(run))
    assert not [p for p in run.rglob("*.tmp")]
    code, out_text, err = _run(["table", str(run), "--rebuild"], capsys)
    assert code == 0 and "rebuilt" in err and "| Breast Cancer" in out_text


# ------------------------------------------------------------------ 4. result files
@pytest.fixture
def finished_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, _, _ = _run(["run", str(_config(tmp_path)), "--out", str(tmp_path / "out"),
                       "--no-progress"], capsys)
    assert code == 0
    return tmp_path / "out" / "small"


@pytest.mark.parametrize("damage,message", [
    (lambda p: p.write_bytes(os.urandom(3000)), "is not a readable CSV"),
    (lambda p: p.write_text("a,b\n1,2\n"), "lacks the columns"),
    (lambda p: p.write_text(p.read_text()[: len(p.read_text()) // 2]), "results.csv"),
    (lambda p: p.write_text("\n".join(p.read_text().splitlines()[:-2]) + "\n"),
     "lists 4 trials, the trial files are 6"),
])
def test_damaged_results_csv_is_named_and_rebuilt(
    finished_run: Path, damage, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    damage(finished_run / "results.csv")
    code, out, err = _run(["table", str(finished_run)], capsys)
    assert code == 2 and message in err and str(finished_run / "results.csv") in err
    assert f"kernreg table --rebuild {finished_run}" in err and out == ""
    code, out, _ = _run(["table", str(finished_run), "--rebuild"], capsys)
    assert code == 0 and "| Breast Cancer" in out


def test_damaged_results_h5_is_named(finished_run: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = finished_run / "results.h5"
    path.write_bytes(path.read_bytes()[:500])
    code, _, err = _run(["table", str(finished_run)], capsys)
    assert code == 2 and f"{path} is damaged" in err and "--rebuild" in err


def test_damaged_trial_file_is_named(finished_run: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    trial = _trial_files(finished_run)[1]
    trial.write_bytes(b"\x89HDF garbage")
    code, _, err = _run(["table", str(finished_run), "--rebuild"], capsys)
    assert code == 2 and f"damaged trial file {trial}" in err and "--resume" in err
    code, _, err = _run(["plot", str(finished_run)], capsys)
    assert code == 2 and f"damaged trial file {trial}" in err


# ------------------------------------------------------------------ 5. nothing to plot
def test_plot_says_what_it_could_not_draw(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, CONFIG.replace(
        "  - {name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1e-1, 6]}}\n"
        "  - {name: nytro, m: 20, max_iter: 30}\n", "  - {name: kols}\n"))
    assert _run(["run", str(config), "--out", str(tmp_path / "out"), "--no-progress"],
                capsys)[0] == 0
    code, out, err = _run(["plot", str(tmp_path / "out" / "small")], capsys)
    assert code == 0 and out == ""
    assert "not drawn: path_kols: kols has no path to draw" in err
    assert "not drawn: time_vs_m" in err and "nothing to draw" in err


# ------------------------------------------------------------------ 6. exit statuses
def test_cannot_run_here_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, CONFIG.replace("blas_threads: 1", "blas_threads: 1, "
                                              "memory_gb: 0.0001"))
    code, _, err = _run(["run", str(config), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "estimated peak memory exceeds the budget" in err
    assert _run(["table", str(tmp_path / "nowhere")], capsys)[0] == 2


# ------------------------------------------------------------------ 7. any value, no traceback
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 40), st.sampled_from([0.0, -1.0, 1e-12, 0.5, 2.0]),
    st.sampled_from([float("nan"), float("inf"), -float("inf")]),
    st.text(max_size=6), st.lists(st.integers(-2, 30), max_size=3),
    st.fixed_dictionaries({"logspace": st.lists(st.sampled_from([1e-6, 1.0, 0, -1, 3]),
                                                max_size=4)}),
)
KEYS = [("kernel", "sigma"), ("protocol", "trials"), ("protocol", "validation_fraction"),
        ("protocol", "seed"), ("budget", "memory_gb"), ("budget", "block_mb"),
        ("budget", "blas_threads"), ("dataset", "n_train"), ("dataset", "dtype"),
        ("algorithms", "m"), ("algorithms", "lambdas"), ("algorithms", "max_iter"),
        ("algorithms", "epsilon"), ("algorithms", "stopping"), ("algorithms", "sampler"),
        ("algorithms", "strategy"), ("algorithms", "step_rows")]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.sampled_from(KEYS), VALUES), min_size=1, max_size=3))
def test_any_config_value_gives_exit_2_or_a_valid_run(
    changes: list, tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str]
) -> None:
    data = yaml.safe_load(CONFIG)
    data["protocol"]["trials"] = 1
    for (section, key), value in changes:
        if section == "algorithms":
            data["algorithms"][1][key] = value  # the NYTRO entry
        else:
            data.setdefault(section, {})[key] = value
    folder = tmp_path_factory.mktemp("prop")
    config = folder / "c.yaml"
    config.write_text(yaml.safe_dump(data))
    code, _, err = _run(["run", str(config), "--out", str(folder / "out"), "--no-progress"],
                        capsys)
    assert code in (0, 2)
    if code == 2:
        assert err.startswith("error: ") and _written(folder / "out") == []


def test_m_above_the_rows_left_for_fitting_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the estimators clamp m to n with a warning (scikit-learn's convention); a run refuses it
    # up front, since a table cell labelled m = 500 must not silently use fewer centers
    config = _config(tmp_path, CONFIG.replace("{name: nytro, m: 20", "{name: nytro, m: 500"))
    out = tmp_path / "out"
    code, _, err = _run(["run", str(config), "--out", str(out), "--no-progress"], capsys)
    assert code == 2
    assert "algorithms[1].m: 500 exceeds the" in err and "rows left for fitting" in err
    assert _written(out) == []
