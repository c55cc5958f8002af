"""Bad input never reaches a traceback: one message, exit status 2, nothing half-written.

Every class of the issue, with real files: non-finite config values, parameters only an
estimator can reject, unwritable and full output folders, damaged result files, a run with
nothing to plot, the exit statuses — and a property test feeding random values to the config.
Data: scikit-learn's bundled breast cancer table (no mirror needed), subsampled.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import h5py
import pandas as pd
import pytest
import yaml
from cli_runner import run_kernreg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


_run = run_kernreg  # ``kernreg ARGS``: exit status, stdout, stderr; never a traceback


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
    """An injected ENOSPC when the third trial file is written (the disk is full; a real
    full disk: tests/test_full_disk.py)."""
    import builtins

    import kernreg.atomic as atomic

    real_open = builtins.open
    writes = {"n": 0}

    def full_disk(name, mode="r", *args, **kwargs):
        if mode == "wb" and "trials" in str(name):
            writes["n"] += 1
            if writes["n"] == 3:
                raise OSError(errno.ENOSPC, "No space left on device", str(name))
        return real_open(name, mode, *args, **kwargs)

    monkeypatch.setattr(atomic, "open", full_disk, raising=False)
    out = tmp_path / "out"
    code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(out), "--no-progress"],
                        capsys)
    assert code == 2
    assert "No space left on device" in err and "--resume" in err
    run = out / "small"
    assert len(_trial_files(run)) == 2 and all(_readable(p) for p in _trial_files(run))
    assert not [p for p in run.rglob("*.tmp")]  # no temporary file left behind
    monkeypatch.setattr(atomic, "open", real_open, raising=False)
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
    assert "nothing to draw" in err
    assert "time_vs_m" not in err  # no m was swept: a figure nobody asked for is not missed


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


# ------------------------------------------------------------------ 8. names become paths
@pytest.mark.parametrize("name,why", [
    ("..", "cannot be a file name"), (".", "cannot be a file name"),
    ("'a\\n'", "does not match"), ("x" * 300, "at most 100"), ("-rf", "cannot be a file name"),
])
def test_hostile_names_are_refused_before_any_write(
    name: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "parent" / "out"
    (tmp_path / "parent" / "neighbour").mkdir(parents=True)
    config = _config(tmp_path, CONFIG.replace("name: small", f'name: {name}'))
    for flags in ([], ["--force"]):
        code, _, err = _run(["run", str(config), "--out", str(out), "--no-progress", *flags],
                            capsys)
        assert code == 2 and "name:" in err and why in err
    assert _written(tmp_path / "parent") == ["neighbour"]


def test_a_file_stem_that_is_no_name_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, CONFIG.replace("name: small\n", ""), name="-my run.yaml")
    code, _, err = _run(["run", str(config), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "the file name '-my run.yaml'" in err
    assert _written(tmp_path / "out") == []


@pytest.mark.parametrize("label", ["a/b", "/tmp/evil", "../up", "a b", "ä"])
def test_hostile_labels_are_refused(label: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, CONFIG.replace("m: 20, max_iter", f"m: 20, label: '{label}', "
                                              "max_iter"))
    code, _, err = _run(["run", str(config), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "algorithms[1].label" in err and "cannot be a file name" in err
    assert _written(tmp_path / "out") == []


def test_writes_never_go_through_links(finished_run: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (finished_run / "results.csv").unlink()
    (finished_run / "results.csv").symlink_to(victim)  # the rename replaces the link itself
    code, _, _ = _run(["table", str(finished_run), "--rebuild"], capsys)
    assert code == 0 and victim.read_text() == "keep"
    assert not (finished_run / "results.csv").is_symlink()
    # a link that leads out of the run folder is refused, and --force deletes the link only
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for path in _trial_files(finished_run):
        path.rename(elsewhere / path.name)
    (finished_run / "trials").rmdir()
    (finished_run / "trials").symlink_to(elsewhere)
    code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(finished_run.parent),
                         "--resume", "--no-progress"], capsys)
    assert code == 2 and "trials: it is a symbolic link" in err
    code, _, _ = _run(["run", str(_config(tmp_path)), "--out", str(finished_run.parent),
                       "--force", "--no-progress"], capsys)
    assert code == 0 and len(list(elsewhere.iterdir())) == 6


def test_temporaries_are_exclusive_and_unpredictable(tmp_path: Path) -> None:
    from kernreg.atomic import atomic_path

    target = tmp_path / "f.txt"
    with atomic_path(target) as first, atomic_path(target) as second:
        assert first != second and first.stat().st_size == 0
        assert first.name.startswith(".f.txt.") and first.name.endswith(".tmp")
        first.write_text("a")
        second.write_text("b")
    assert target.read_text() == "a" and sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def test_force_deletes_only_a_run_of_this_experiment(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    mine = out / "small"
    mine.mkdir(parents=True)
    (mine / "thesis.tex").write_text("precious")
    code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(out), "--force"], capsys)
    assert code == 0  # no results there: nothing to delete, the run writes beside the file
    assert (mine / "thesis.tex").read_text() == "precious"
    (mine / "manifest.json").write_text(json.dumps({"experiment": "other",
                                                    "config_hash": "0" * 64}))
    code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(out), "--force"], capsys)
    assert code == 2 and "is not marked as a hold-out run of small" in err and "'other'" in err
    assert (mine / "thesis.tex").read_text() == "precious"
    assert len(_trial_files(mine)) == 6


# ------------------------------------------------------------------ 9. trial files say whose
def test_a_trial_file_holding_another_trial_is_reported_not_merged(
    finished_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trials = _trial_files(finished_run)
    trials[1].write_bytes(trials[0].read_bytes())  # nkrls t000 copied over nkrls t001
    for args in (["table", str(finished_run)], ["table", str(finished_run), "--rebuild"]):
        code, out, err = _run(args, capsys)
        assert code == 2 and f"trial file {trials[1]} does not belong to this run" in err
        assert "holds trial 0 of 'nkrls', not trial 1" in err and out == ""
    code, _, err = _run(["run", str(finished_run.parent.parent / "small.yaml"), "--out",
                         str(finished_run.parent), "--resume", "--no-progress"], capsys)
    assert code == 2 and "does not belong to this run" in err


def test_a_trial_file_of_another_config_is_reported(finished_run: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = _trial_files(finished_run)[2]
    with h5py.File(path, "r+") as f:
        f.attrs["config_hash"] = "f" * 64
    code, _, err = _run(["table", str(finished_run), "--rebuild"], capsys)
    assert code == 2 and "comes from another config (hash ffffffffffff" in err


def test_an_algorithm_added_to_the_config_resumes_keeping_the_other_trials(
    finished_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trials depend on the protocol seed and their number, never on the other algorithms: a
    column added to a config resumes, the finished trials are kept byte for byte, and the run
    equals a fresh run of the extended config."""
    before = {p.name: p.read_bytes() for p in _trial_files(finished_run)}
    extended = CONFIG.replace("protocol: {trials: 3}",
                              "  - {name: krls, lambdas: [1e-3, 1e-1]}\nprotocol: {trials: 4}")
    config = _config(finished_run.parent.parent, extended, "small.yaml")
    code, _, err = _run(["run", str(config), "--out", str(finished_run.parent), "--resume",
                         "--no-progress"], capsys)
    assert code == 0, err
    for name, data in before.items():
        assert (finished_run / "trials" / name).read_bytes() == data
    assert len(_trial_files(finished_run)) == 12
    manifest = json.loads((finished_run / "manifest.json").read_text())
    assert len(manifest["compatible_hashes"]) == 1
    code, out, err = _run(["table", str(finished_run), "--rebuild"], capsys)
    assert code == 0 and "KRLS" in out, err
    resumed = pd.read_csv(finished_run / "results.csv")
    fresh_dir = finished_run.parent.parent / "fresh"
    code, _, err = _run(["run", str(config), "--out", str(fresh_dir), "--no-progress"], capsys)
    assert code == 0, err
    fresh = pd.read_csv(fresh_dir / "small" / "results.csv")
    keys = ["label", "trial", "seed", "selected", "test_rmse", "n_fit"]
    pd.testing.assert_frame_equal(
        resumed[keys].sort_values(["label", "trial"]).reset_index(drop=True),
        fresh[keys].sort_values(["label", "trial"]).reset_index(drop=True))


@pytest.mark.parametrize("edit,named", [
    (lambda text: text.replace("max_iter: 30", "max_iter: 40"), "'nytro' (changed)"),
    (lambda text: text.replace("  - {name: nytro, m: 20, max_iter: 30}\n", ""),
     "'nytro' (not in the config)"),
    (lambda text: text.replace("n_train: 120", "n_train: 130"),
     "'nkrls' (changed), 'nytro' (changed)"),
])
def test_a_config_that_changes_finished_trials_does_not_resume(
    finished_run: Path, capsys: pytest.CaptureFixture[str], edit, named: str
) -> None:
    before = _written(finished_run)
    config = _config(finished_run.parent.parent, edit(CONFIG), "small.yaml")
    code, _, err = _run(["run", str(config), "--out", str(finished_run.parent), "--resume",
                         "--no-progress"], capsys)
    assert code == 2 and "cannot resume" in err and named in err, err
    assert _written(finished_run) == before


def test_unknown_files_in_trials_are_reported_and_ignored(
    finished_run: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    (finished_run / "trials" / "notes.txt").write_text("mine")
    (finished_run / "trials" / "nkrls__t1.h5").write_text("odd name")
    code, _, _ = _run(["run", str(finished_run.parent.parent / "small.yaml"), "--out",
                       str(finished_run.parent), "--resume", "--no-progress"], capsys)
    assert code == 0
    caplog.clear()
    code, out, _ = _run(["table", str(finished_run), "--rebuild"], capsys)
    assert code == 0 and "| Breast Cancer" in out
    assert "notes.txt is no trial file" in caplog.text
    assert "nkrls__t1.h5 is no trial file" in caplog.text


# ------------------------------------------------------------------ 10. killed writers
def test_temporaries_of_dead_writers_are_removed(finished_run: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    stale = [finished_run / ".results.h5.4242.0123456789abcdef.tmp",
             finished_run / "trials" / ".nkrls__t000.h5.4242.fedcba9876543210.tmp"]
    for path in stale:
        path.write_bytes(b"half")
    code, _, _ = _run(["table", str(finished_run)], capsys)
    assert code == 0 and not any(p.exists() for p in stale)
    for args in (["table", str(finished_run), "--rebuild"],
                 ["run", str(finished_run.parent.parent / "small.yaml"), "--out",
                  str(finished_run.parent), "--resume", "--no-progress"]):
        for path in stale:
            path.write_bytes(b"half")
        assert _run(args, capsys)[0] == 0 and not any(p.exists() for p in stale)


# ------------------------------------------------------------------ 11. two runs at once
def test_a_second_run_on_a_locked_folder_is_refused(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from kernreg.results.store import RunStore

    out = tmp_path / "out"
    with RunStore(out / "small").lock():  # another process's lock (flock: per open file)
        code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(out),
                             "--no-progress"], capsys)
        assert code == 2 and f"pid {os.getpid()} on host" in err
    assert _written(out) == []  # the lock's folder goes with its only file
    assert _run(["run", str(_config(tmp_path)), "--out", str(out), "--no-progress"],
                capsys)[0] == 0
    with RunStore(out / "small").lock():
        for flags in ([], ["--force"], ["--resume"]):
            code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(out),
                                 "--no-progress", *flags], capsys)
            assert code == 2 and f"{out / 'small'} is in use by another kernreg run" in err
            assert f"pid {os.getpid()} on host" in err
        code, _, err = _run(["table", str(out / "small"), "--rebuild"], capsys)
        assert code == 2 and "is in use" in err
    assert _run(["run", str(_config(tmp_path)), "--out", str(out), "--resume",
                 "--no-progress"], capsys)[0] == 0


KILLABLE = """
import os, sys, time
import kernreg.experiment.runner as runner
real = runner.run_trial
def slow(*args, **kwargs):
    record = real(*args, **kwargs)
    if record.label == "nytro" and record.trial == 1:
        print("stalled", flush=True)
        time.sleep(600)  # a long trial: killed here
    return record
runner.run_trial = slow
from kernreg.cli import main
main(sys.argv[1:])
"""


def test_kill_9_mid_run_then_resume_equals_an_uninterrupted_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path)
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-c", KILLABLE, "run", str(config), "--out",
                              str(out), "--no-progress"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert first.stdout.readline().strip() == "stalled"
        # a concurrent run (another process) is refused, naming the holder
        second = subprocess.run([sys.executable, "-m", "kernreg", "run", str(config), "--out",
                                 str(out), "--force", "--no-progress"], capture_output=True,
                                text=True, timeout=120)
        assert second.returncode == 2 and "Traceback" not in second.stderr
        assert f"in use by another kernreg run (pid {first.pid} on host" in second.stderr
    finally:
        first.kill()  # SIGKILL: no clean-up of any kind
        first.communicate()
    run = out / "small"
    assert 3 <= len(_trial_files(run)) < 6 and not (run / "results.csv").exists()
    code, _, err = _run(["run", str(config), "--out", str(out), "--resume", "--no-progress"],
                        capsys)
    assert code == 0, err
    code, _, _ = _run(["run", str(config), "--out", str(tmp_path / "whole"), "--no-progress"],
                      capsys)
    keys = ["label", "trial"]
    columns = ["seed", "selected", "test_rmse", "test_error", "n_fit", "n_val", "config_hash"]
    resumed = pd.read_csv(run / "results.csv").sort_values(keys)[keys + columns]
    whole = pd.read_csv(tmp_path / "whole" / "small" / "results.csv").sort_values(keys)
    pd.testing.assert_frame_equal(resumed.reset_index(drop=True),
                                  whole[keys + columns].reset_index(drop=True))
    assert not [p for p in run.rglob("*.tmp")]


# ------------------------------------------------------------------ 12. hostile YAML, sizes
def _bomb() -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("extra,message", [
    (_bomb(), "aliases expand to more than 50000 values"),
    ("description: " + "[" * 5000 + "]" * 5000 + "\n", "nested deeper than 20 levels"),
    ("x:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(200)), "nested deeper"),
    ("x: &r [*r]\n", "a recursive alias"),
    ("x: &r {a: *r}\n", "a recursive alias"),
    ("x: &s v\n" + "".join(f"y{i}: *s\n" for i in range(101)), "more than 100 aliases"),
    ("x: [" + ", ".join(["1"] * 10001) + "]\n", "a list or mapping of 10001 items"),
    ("x: " + "1" * 300_000 + "\n", "larger than 256 KiB"),
])
def test_hostile_yaml_is_refused_fast_and_small(
    extra: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import resource
    import time

    config = _config(tmp_path, CONFIG + extra)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    clock = time.process_time()
    code, _, err = _run(["run", str(config), "--out", str(tmp_path / "out")], capsys)
    spent = time.process_time() - clock
    assert code == 2 and message in err
    # bounded work: the limit stops it (a bomb would take minutes and gigabytes)
    assert spent < 10 and resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 2**20
    assert _written(tmp_path / "out") == []


@pytest.mark.parametrize("old,new,message", [
    ("[1e-6, 1e-1, 6]", "[1e-6, 1e-1, 100000000]",
     "algorithms[0].lambdas.logspace: 100000000 points; at most 10000"),
    ("nkrls, m: 20", "nkrls, m: {range: [1, 100000000000, 1]}",
     "algorithms[0].m.range: 100000000000 values; at most 10000"),
])
def test_grids_beyond_any_finishable_run_are_refused(
    old: str, new: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(["run", str(_config(tmp_path, CONFIG.replace(old, new))), "--out",
                         str(tmp_path / "out")], capsys)
    assert code == 2 and message in err and _written(tmp_path / "out") == []


def test_trials_beyond_the_limit_are_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(tmp_path / "out"),
                         "--trials", "10000000000"], capsys)
    assert code == 2 and "protocol.trials: 10000000000; at most 10000" in err
    assert _written(tmp_path / "out") == []


# ------------------------------------------------------------------ 13. Dask addresses
@pytest.mark.parametrize("address,message", [
    ("tcp://nonsense", "expected tcp://host:port"),
    ("inproc://abc", "expected local, local:N or tcp://host:port"),
    ("tcp://h:99999", "the port must be a number in 1-65535"),
    ("tcp://a b:1", "expected tcp://host:port"),
    ("udp://h:1", "expected local"),
    ("local:0", "local:N (a Dask LocalCluster"),
    ("local:100000", "1 <= N <= 1024"),
])
def test_malformed_scheduler_addresses_are_refused(
    address: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(tmp_path / "out"),
                         "--scheduler", address], capsys)
    assert code == 2 and "execution.scheduler" in err and message in err
    assert _written(tmp_path / "out") == []


def test_an_unreachable_scheduler_leaves_nothing(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    import socket

    with socket.socket() as sock:  # a port where nothing listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    out = tmp_path / "out"
    code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(out), "--scheduler",
                         f"tcp://127.0.0.1:{port}"], capsys)
    assert code == 2 and f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in err
    assert _written(out) == []  # no manifest: the next run is not refused
    assert _run(["run", str(_config(tmp_path)), "--out", str(out), "--no-progress"],
                capsys)[0] == 0


# ------------------------------------------------------------------ 14. numeric extremes
@pytest.mark.parametrize("kernel,dtype,message", [
    ("{sigma: 1e-300}", "float64", "kernel.sigma: 1e-300 is outside [1e-150, 1e+150]"),
    ("{sigma: 1e300}", "float64", "kernel.sigma: 1e+300 is outside"),
    ("{sigma: 1e-20}", "float32", "the range a float32 kernel can evaluate"),
    ("{name: laplacian, sigma: 1e-200}", "float64", "kernel.sigma: 1e-200 is outside"),
])
def test_sigma_beyond_what_the_kernel_evaluates_is_refused(
    kernel: str, dtype: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = CONFIG.replace("n_test: 60}", f"n_test: 60, dtype: {dtype}}}")
    config = _config(tmp_path, text + f"kernel: {kernel}\n")
    code, _, err = _run(["run", str(config), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and message in err and _written(tmp_path / "out") == []


def test_sigma_small_for_the_data_is_refused_before_writing(tmp_path: Path) -> None:
    import numpy as np

    from kernreg.config import load_experiment
    from kernreg.errors import ConfigError
    from kernreg.experiment.preflight import check_numerics

    exp = load_experiment(_config(tmp_path, CONFIG.replace(
        "n_test: 60}", "n_test: 60, dtype: float32}") + "kernel: {sigma: 1e-17}\n"))
    X = np.full((5, 3), 1e3, dtype=np.float32)  # ‖x‖²/σ² = 3e40: beyond float32
    with pytest.raises(ConfigError, match=r"kernel.sigma: 1e-17 is too small for these data"):
        check_numerics(exp, exp.algorithms, X, X, 40)
    check_numerics(exp, exp.algorithms, X / 1e6, X / 1e6, 40)  # small data: fine


@pytest.mark.parametrize("n,fraction", [(101, 0.21), (120, 0.2), (7, 0.5), (10, 0.95),
                                        (1000, 1e-9), (33, 1 / 3)])
def test_the_m_check_rounds_as_the_split(n: int, fraction: float) -> None:
    import numpy as np

    from kernreg.config import fit_rows
    from kernreg.solvers import holdout_split

    X = np.zeros((n, 1))
    assert fit_rows(n, fraction) == len(holdout_split(X, np.zeros(n), fraction, 0)[1])


def test_m_that_the_split_leaves_no_rows_for_is_refused_before_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 101 rows, 21% validation: the split keeps 101 - ceil(21.21) = 79 rows, not floor(79.79)
    text = CONFIG.replace("n_train: 120", "n_train: 101").replace("nkrls, m: 20",
                                                                  "nkrls, m: 80")
    config = _config(tmp_path, text.replace("trials: 3", "trials: 1, validation_fraction: "
                                                         "0.21"))
    code, _, err = _run(["run", str(config), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "m: 80 exceeds the 79 rows left for fitting" in err
    assert _written(tmp_path / "out") == []


def test_the_config_check_and_the_preflight_refuse_m_in_the_same_words(tmp_path: Path) -> None:
    # one rule (kernreg.solvers.blocks.holdout.centers_problem): the config check against the
    # rows the config leaves, the preflight against those the data leave
    import numpy as np

    from kernreg.config import load_experiment
    from kernreg.errors import ConfigError
    from kernreg.experiment.preflight import check_numerics

    sentence = "80 exceeds the 79 rows left for fitting after the validation split"
    text = CONFIG.replace("trials: 3", "trials: 1, validation_fraction: 0.21")
    with pytest.raises(ConfigError) as loader:
        load_experiment(_config(tmp_path, text.replace("n_train: 120", "n_train: 101")
                                .replace("nkrls, m: 20", "nkrls, m: 80")))
    assert f"algorithms[0].m: {sentence}" in str(loader.value)
    exp = load_experiment(_config(tmp_path, text.replace("nkrls, m: 20", "nkrls, m: 80")))
    X = np.zeros((5, 3))
    with pytest.raises(ConfigError) as preflight:
        check_numerics(exp, exp.algorithms, X, X, 79)
    assert f"nkrls: m = {sentence}" in str(preflight.value)


def test_non_finite_intermediates_are_degenerate_not_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import numpy as np

    from kernreg.solvers import Nytro

    real_predict = Nytro.predict
    monkeypatch.setattr(Nytro, "predict",
                        lambda self, X: real_predict(self, X) * np.inf)  # overflow
    out = tmp_path / "out"
    code, _, err = _run(["run", str(_config(tmp_path)), "--out", str(out), "--no-progress"],
                        capsys)
    assert code == 2
    assert "this configuration is numerically degenerate: nytro trial 0" in err
    assert not (out / "small" / "results.csv").exists()
    assert all("nytro" not in p.name for p in _trial_files(out / "small"))


STEP_CONFIG = """
name: steps
dataset: {name: breast_cancer, n_train: 120, n_test: 60}
algorithms:
  - ALGORITHM
protocol: {trials: 1}
budget: {blas_threads: 1}
"""


@pytest.mark.parametrize("algorithm,label", [
    ("{name: sgm, etas: [1e300]}", "sgm"),
    ("{name: sigm, step_size: 1e300, max_iter: 3}", "sigm"),
])
def test_an_error_measure_that_overflows_is_degenerate_not_a_result(
    algorithm: str, label: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A step of 1e300 gives finite outputs (~1e298) whose squared error overflows: the trial
    is refused, not stored with test_rmse = inf."""
    config = _config(tmp_path, STEP_CONFIG.replace("ALGORITHM", algorithm))
    out = tmp_path / "out"
    code, _, err = _run(["run", str(config), "--out", str(out), "--no-progress"], capsys)
    assert code == 2, err
    assert f"this configuration is numerically degenerate: {label} trial 0: " in err
    assert "rmse" in err and "not finite" in err
    assert len(err.strip().splitlines()) == 1
    assert not (out / "steps" / "results.csv").exists()
    assert _trial_files(out / "steps") == []
    # nothing left behind (no manifest, no lock): the next run needs no --force
    assert not (out / "steps").exists()
    code, _, err = _run(["run", str(config), "--out", str(out), "--no-progress"], capsys)
    assert code == 2 and "--force" not in err, err


def test_a_run_stopped_in_its_first_trial_leaves_its_folder_as_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Interrupted before any trial was stored: the manifest goes, a folder the run created
    goes; one that existed keeps what was in it. A run with stored trials keeps them."""
    from kernreg.experiment import runner

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_trial", interrupted)
    out = tmp_path / "out"
    args = ["run", str(_config(tmp_path)), "--out", str(out), "--no-progress"]
    assert _run(args, capsys)[0] == 130
    assert not (out / "small").exists()
    (out / "small").mkdir(parents=True)
    (out / "small" / "notes.txt").write_text("mine")
    assert _run(args, capsys)[0] == 130
    assert sorted(p.name for p in (out / "small").iterdir()) == [".lock", "notes.txt"]


def test_the_error_measures_must_be_finite_but_an_absent_class_may_be_nan() -> None:
    import numpy as np

    from kernreg.errors import DegenerateError
    from kernreg.experiment.trial import check_finite_measures

    check_finite_measures("a trial 0", {"rmse": 0.5}, 0.5, float("nan"))  # regression
    check_finite_measures("a trial 0", {"accuracy": 0.9, "accuracy_class_3": np.nan}, 0.4, 0.1,
                          undefined_ok=("accuracy_class_",))  # class 3 not in the test set
    for measures, rmse, error, named in [
        ({"rmse": np.inf}, np.inf, np.nan, "rmse"),
        ({"hinge": 1e298, "error": 0.1}, np.inf, 0.1, "rmse"),  # RMSE of the coded targets
        ({"hinge": np.inf, "error": 0.1}, 1.0, 0.1, "hinge"),
        ({"error": 0.1}, 1.0, np.nan, "error"),
        ({"accuracy": np.nan}, 1.0, 0.1, "accuracy"),
        ({"accuracy_class_3": np.inf}, 1.0, 0.1, "accuracy_class_3"),
    ]:
        with pytest.raises(DegenerateError, match=rf"a trial 0: the test {named} is "):
            check_finite_measures("a trial 0", measures, rmse, error,
                                  undefined_ok=("accuracy_class_",))


def test_a_selected_point_whose_validation_value_is_not_finite_is_degenerate() -> None:
    import numpy as np

    from kernreg.errors import DegenerateError
    from kernreg.experiment.trial import check_finite_result

    pred = np.zeros(3)
    lambdas = np.array([1e-3, 1e-2, 1e-1])
    # unreached or failed points beside a finite selected one: a valid trial
    check_finite_result("a trial 0", 1e-2, np.array([np.nan, 0.5, np.inf]), pred,
                        path_values=lambdas)
    # np.argmin picks a NaN: the selected point has no validation value
    with pytest.raises(DegenerateError, match=r"a trial 0: the validation value at the "
                                              r"selected point 0.001 is nan"):
        check_finite_result("a trial 0", 1e-3, np.array([np.nan, 0.5, 0.7]), pred,
                            path_values=lambdas)
    # a two-parameter path: the (λ*, m*) cell counts, other cells may be unreached
    grid = np.array([[0.4, np.nan], [np.inf, 0.3], [0.5, np.nan]])
    check_finite_result("a trial 0", 1e-2, grid, pred, path_values=lambdas,
                        m_values=np.array([10, 20]), m_selected=20)
    with pytest.raises(DegenerateError, match=r"selected point 0.01 \(m = 10\) is inf"):
        check_finite_result("a trial 0", 1e-2, grid, pred, path_values=lambdas,
                            m_values=np.array([10, 20]), m_selected=10)


@pytest.mark.parametrize("args,message", [
    (["--sigma", "nan"], "--sigma must be > 0 and finite"),
    (["--sigma", "inf"], "--sigma must be > 0 and finite"),
    (["--sigma", "1e-300"], "--sigma must lie in"),
    (["--tolerance", "nan"], "--tolerance must be > 0 and finite"),
    (["--seed", "-1"], "--seed must be an integer in [0, 2^32)"),
])
def test_advise_refuses_non_finite_and_negative_options(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(["advise", "breast_cancer", "--out", str(tmp_path / "a"), *args],
                        capsys)
    assert code == 2 and message in err and not (tmp_path / "a").exists()


# ------------------------------------------------------------------ 15. markdown and HTML
def test_hostile_labels_cannot_break_markdown_or_html(tmp_path: Path) -> None:
    import pandas as pd

    from kernreg.results.tables import md_row, render_frame

    hostile = "a|b <img src=x onerror=alert(1)> & c"
    frame = pd.DataFrame({"label": [hostile], "rmse": ["0.5"]})
    text = render_frame(frame, "md", notes=["<script>x</script>"])
    row = text.splitlines()[2]
    assert row == md_row([hostile, "0.5"])
    assert row.count("|") - row.count("\\|") == 3  # two columns, whatever the label holds
    assert "<img" not in text and "<script>" not in text and "&lt;img" in text


# ------------------------------------------------------------------ 16. any name, label, shape
NAMES = st.one_of(st.text(max_size=12), st.sampled_from(["..", ".", "/", "a/b", "/abs", "~", "a\n",
                                                         "x" * 101, "ok_name", "a.b-c"]))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES, label=NAMES)
def test_any_name_or_label_stays_inside_out_or_is_refused(
    name: str, label: str, tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str]
) -> None:
    data = yaml.safe_load(CONFIG.replace("[1e-6, 1e-1, 6]", "[1.0e-6, 1.0e-1, 6]"))
    data["protocol"]["trials"] = 1
    data["name"] = name
    data["algorithms"] = [{"name": "kols", "label": label}]
    folder = tmp_path_factory.mktemp("names")
    (folder / "config").mkdir()
    config = folder / "config" / "c.yaml"
    config.write_text(yaml.safe_dump(data))
    out = folder / "box" / "out"
    code, _, err = _run(["run", str(config), "--out", str(out), "--no-progress", "--force"],
                        capsys)
    assert code in (0, 2)
    assert _written(folder / "box") in ([], ["out"]) or all(
        p.startswith("out") for p in _written(folder / "box"))
    assert _written(folder / "config") == ["c.yaml"]  # nothing written beside the config
    if code == 2:
        assert err.startswith("error: ") and _written(out) == []
    else:
        assert [p.name for p in out.iterdir()] == [name]
        assert [p.name for p in (out / name / "trials").iterdir()] == [f"{label}__t000.h5"]


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**12), st.floats(),
                    st.text(max_size=5))
SHAPES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=20)
SECTIONS = ["dataset", "kernel", "protocol", "budget", "execution", "algorithms", "name",
            "description", "extra"]


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.sampled_from(SECTIONS), SHAPES), min_size=1, max_size=3),
       nest=st.integers(0, 40))
def test_any_yaml_structure_gives_exit_2_or_a_valid_run(
    changes: list, nest: int, tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str]
) -> None:
    data = yaml.safe_load(CONFIG.replace("[1e-6, 1e-1, 6]", "[1.0e-6, 1.0e-1, 6]"))
    data["protocol"]["trials"] = 1
    for section, value in changes:
        for _ in range(nest % 7 if section == "extra" else 0):
            value = [value]
        data[section] = value
    folder = tmp_path_factory.mktemp("shape")
    config = folder / "c.yaml"
    config.write_text(yaml.safe_dump(data) + ("deep: " + "[" * nest + "]" * nest + "\n"))
    code, _, err = _run(["run", str(config), "--out", str(folder / "out"), "--no-progress"],
                        capsys)
    assert code in (0, 2)
    if code == 2:
        assert err.startswith("error: ") and _written(folder / "out") == []


def test_sigterm_ends_a_run_like_ctrl_c(tmp_path: Path) -> None:
    import signal

    config = _config(tmp_path)
    out = tmp_path / "out"
    run = subprocess.Popen([sys.executable, "-c", KILLABLE, "run", str(config), "--out",
                            str(out), "--no-progress"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    assert run.stdout.readline().strip() == "stalled"
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130 and "Traceback" not in err and "aborted" in err
    assert not [p for p in (out / "small").rglob("*.tmp")]
    assert 3 <= len(_trial_files(out / "small")) < 6


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
