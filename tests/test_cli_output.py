"""What ``kernreg run`` tells a person: ``-v`` logs each phase, ``-q`` prints the result alone,
no progress bar off a terminal, the last lines name the results and the next commands;
``--set`` overrides recorded in the manifest with the source commit and the run's times.
(Breast cancer comes with scikit-learn: no dataset mirror needed.)"""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest

from kernreg import progress
from kernreg.experiment.provenance import source_commit

CONFIG = """\
name: tiny
dataset: {name: breast_cancer}
algorithms:
  - {name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1, 5]}}
  - {name: nytro, m: 20, max_iter: 30}
protocol: {trials: 2, seed: 0}
budget: {blas_threads: 1}
"""

NEXT_LINES = ["next:", "  kernreg table ", "  kernreg plot ", "  kernreg report "]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(CONFIG)
    return path


def _run(kernreg_cli, config: Path, out: Path, *options: str) -> tuple[int, str, str]:
    return kernreg_cli([*options, "run", str(config), "--out", str(out)])


def test_default_output_is_the_table_then_where_and_what_next(kernreg_cli, config: Path,
                                                              tmp_path: Path) -> None:
    code, out, err = _run(kernreg_cli, config, tmp_path / "r")
    assert code == 0, err
    assert "|  | λ* / t* |" in out  # the row names the parameters it shows
    lines = out.splitlines()
    run_dir = tmp_path / "r" / "tiny"
    results_line = next(i for i, line in enumerate(lines) if line.startswith("results: "))
    assert lines[results_line] == (f"results: {run_dir}/results.h5, results.csv (one file per "
                                   f"trial in {run_dir}/trials)")
    for expected, line in zip(NEXT_LINES, lines[results_line + 1:], strict=True):
        assert line.startswith(expected)
    assert f"kernreg report {run_dir} -o {run_dir}/report.html" in out
    assert re.fullmatch(r"4 trials in [0-9.e+-]+ s", lines[results_line - 1])
    code, out, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "r"),
                                  "--resume", "--trials", "3"])
    assert code == 0, err
    assert re.search(r"^6 trials in [0-9.e+-]+ s \(4 resumed\)$", out, re.MULTILINE)
    # stderr is no terminal here: no progress bar (tqdm would write "\r" and "trial/s")
    assert "\r" not in err and "trial" not in err


def test_quiet_prints_the_result_alone(kernreg_cli, config: Path, tmp_path: Path) -> None:
    code, out, err = _run(kernreg_cli, config, tmp_path / "r", "-q")
    assert code == 0 and err == ""
    assert out.startswith("| dataset |")
    assert "results:" not in out and "next:" not in out


def test_verbose_logs_each_phase_with_times(kernreg_cli, config: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # every progress report logged, not one per 5 s
    monkeypatch.setattr("kernreg.experiment.runner.LOG_INTERVAL", 0.0)
    monkeypatch.setattr("kernreg.experiment.runner.BAR_INTERVAL", 0.0)
    code, _, err = _run(kernreg_cli, config, tmp_path / "r", "-v")
    assert code == 0, err
    stamp = r"\d\d:\d\d:\d\d "
    assert re.search(stamp + r"data: breast_cancer, \d+ training rows \(\d+ fit \+ \d+ "
                     r"validation per trial\), \d+ test rows, d = 30, ", err)
    assert re.search(stamp + r"memory plan: nkrls: ~", err)
    assert re.search(stamp + r"NYTRO strategy \S+ \(training/validation rows\): ≈ .* s, "
                     r"peak .* GiB — ", err)
    assert re.search(stamp + r"nytro trial 0: kernel rows \d+/\d+ .*\(\d+\.\d s\)", err)
    assert re.search(stamp + r"nytro trial 1: iteration \d+/30, validation ", err)
    assert re.search(stamp + r"nkrls trial 0: λ\* = \S+ in \S+ s \(fit and selection\), "
                     r"test RMSE ", err)
    assert re.search(stamp + r"nytro trial 1: t\* = \d+ in \S+ s", err)


def test_verbose_and_quiet_exclude_each_other(kernreg_cli, config: Path,
                                              tmp_path: Path) -> None:
    code, _, err = _run(kernreg_cli, config, tmp_path / "r", "-v", "-q")
    assert code == 2 and "-v and -q exclude each other" in err
    assert not (tmp_path / "r").exists()


def test_set_overrides_are_validated_recorded_and_change_the_run(kernreg_cli, config: Path,
                                                                 tmp_path: Path) -> None:
    code, _, err = _run(kernreg_cli, config, tmp_path / "r", "-q")
    assert code == 0, err
    settings = ["protocol.trials=1", "algorithms.nytro.max_iter=7", "name=tiny_short"]
    code, _, err = kernreg_cli(["-q", "run", str(config), "--out", str(tmp_path / "r"),
                                  *(f"--set={s}" for s in settings)])
    assert code == 0, err
    manifest = json.loads((tmp_path / "r" / "tiny_short" / "manifest.json").read_text())
    assert manifest["settings"] == settings
    assert manifest["config"]["protocol"]["trials"] == 1
    nytro = next(a for a in manifest["config"]["algorithms"] if a["label"] == "nytro")
    assert nytro["max_iter"] == 7
    # the original run is untouched beside it
    original = json.loads((tmp_path / "r" / "tiny" / "manifest.json").read_text())
    assert original["settings"] == [] and original["config"]["protocol"]["trials"] == 2


@pytest.mark.parametrize(("setting", "message"), [
    ("protocol.trials", "--set 'protocol.trials': expected KEY=VALUE"),
    ("protocol.trials=", "--set protocol.trials: no value"),
    ("algorithms.svm.m=3", "--set algorithms.svm.m: no entry 'svm' (entries: nkrls, nytro)"),
    ("algorithms.5.m=3", "--set algorithms.5.m: no entry 5 (there are 2)"),
    ("name.x=1", "--set name.x: name is a single value ('tiny'), not a section"),
    ("protocol.trials=[1", "--set protocol.trials: the value is not YAML"),
    ("protocol.trials=-3", "protocol.trials"),  # the schema's own words, then the --set
])
def test_bad_set_is_one_message_and_nothing_written(kernreg_cli, config: Path, tmp_path: Path,
                                                    setting: str, message: str) -> None:
    code, out, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "r"),
                                  "--set", setting])
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err
    if setting == "protocol.trials=-3":
        assert err.rstrip().endswith("(the config with --set protocol.trials=-3)")
    assert not (tmp_path / "r").exists()


def test_manifest_records_the_source_commit_and_the_run_times(kernreg_cli, config: Path,
                                                              tmp_path: Path) -> None:
    before = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1))
    code, _, err = _run(kernreg_cli, config, tmp_path / "r", "-q")
    assert code == 0, err
    manifest = json.loads((tmp_path / "r" / "tiny" / "manifest.json").read_text())
    after = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 1))
    assert before <= manifest["started_at"] <= manifest["finished_at"] <= after
    assert manifest["git_commit"] == source_commit()
    if (Path(__file__).resolve().parents[1] / ".git").exists():  # a checkout: a real commit
        assert re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", manifest["git_commit"])


def test_progress_reports_are_throttled_and_formatted_only_when_shown() -> None:
    shown: list[str] = []

    class Loud:
        def __format__(self, spec: str) -> str:
            raise AssertionError("formatted although not shown")

    progress.report("nobody listens {}", Loud())  # no sink: nothing at all
    with progress.progress_sink(shown.append, interval=3600):
        progress.report("step {}/{}", 1, 10)
        progress.report("step {}", Loud())  # within the interval: dropped unformatted
    assert shown == ["step 1/10"]
    with progress.progress_sink(shown.append, interval=0):
        for k in range(3):
            progress.report("k = {}", k)
    assert shown == ["step 1/10", "k = 0", "k = 1", "k = 2"]


def test_a_sink_belongs_to_its_thread() -> None:
    shown: list[str] = []
    other = threading.Thread(target=progress.report, args=("elsewhere",))
    with progress.progress_sink(shown.append, interval=0):
        other.start()
        other.join()
        progress.report("here")
    assert shown == ["here"]


def test_a_bad_scheduler_file_is_named_before_anything_is_written(kernreg_cli, config: Path,
                                                                  tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    missing = tmp_path / "nowhere.json"
    code, out, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "r"),
                                  "--scheduler-file", str(missing)])
    assert code == 2 and out == ""
    assert err.startswith("error: ") and str(missing) in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_and_verbose_work_after_the_sub_command_too(kernreg_cli, config: Path,
                                                          tmp_path: Path, where: str) -> None:
    args = ["run", str(config), "--out", str(tmp_path / "q")]
    code, out, err = kernreg_cli(["-q", *args] if where == "before" else [*args, "-q"])
    assert code == 0 and err == "" and "results:" not in out
    args = ["run", str(config), "--out", str(tmp_path / "v"), "--force"]
    code, _, err = kernreg_cli(["-v", *args] if where == "before" else [*args, "-v"])
    assert code == 0 and re.search(r"\d\d:\d\d:\d\d data: breast_cancer", err)
    code, _, err = kernreg_cli([*args, "-v", "-q"])
    assert code == 2 and "-v and -q exclude each other" in err


def test_progress_from_python_draws_on_a_terminal_only(config: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """``run_experiment(progress=True)`` into a non-terminal stderr (a notebook's log, a
    pipe): no progress-bar frames."""
    from kernreg.config import load_experiment
    from kernreg.experiment import run_experiment

    run_experiment(load_experiment(config), tmp_path / "r", progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err and "trial/s" not in err


def test_a_number_that_is_a_label_and_a_position_is_refused(kernreg_cli, tmp_path: Path
                                                            ) -> None:
    """Entries labelled "1" and "0": ``algorithms.1`` could be either; refused, not guessed.
    A number that is only a position, or only a label, still names its entry."""
    path = tmp_path / "labels.yaml"
    path.write_text(CONFIG.replace("{name: nkrls, m: 20,", "{name: nkrls, label: '1', m: 20,")
                    .replace("{name: nytro, m: 20,", "{name: nytro, label: '0', m: 20,"))
    code, _, err = kernreg_cli(["run", str(path), "--out", str(tmp_path / "r"),
                                "--set", "algorithms.1.m=30"])
    assert code == 2
    assert "--set algorithms.1.m: '1' is the label of entry 0 and the position of entry 1" in err
    assert not (tmp_path / "r").exists()
    path.write_text(CONFIG)  # labels nkrls and nytro: the position
    code, printed, err = kernreg_cli(["run", str(path), "--print-config",
                                      "--set", "algorithms.1.m=30"])
    assert code == 0 and "m: 30" in printed, err
