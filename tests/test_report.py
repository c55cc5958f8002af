"""The HTML report: one rounding rule, the papers' values beside ours, provenance (with what an
older run did not record) and one caption per figure (breast cancer ships with scikit-learn,
so the run here needs no dataset mirror)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kernreg.cli import main
from kernreg.errors import ConfigError
from kernreg.results.report import build_report, format_number, results_table, write_report
from tests.cli_runner import run_kernreg

# LiM §4.2 publishes the test error of this cell (m = 67, λ = 1e-12: 1.86%); NYTRO adds a path
CONFIG = """
name: tiny_report
dataset: {name: breast_cancer}
kernel: {sigma: 0.9}
algorithms:
  - {name: nkrls, label: m67_lam1e-12, m: 67, lambdas: [1.0e-12]}
  - {name: nytro, m: 40, max_iter: 30}
protocol: {trials: 2, seed: 0, refit: true}
budget: {blas_threads: 1}
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report")
    config = root / "tiny_report.yaml"
    config.write_text(CONFIG)
    main(["run", str(config), "--out", str(root / "results"), "--no-progress"])
    return root / "results" / "tiny_report"


def _as_older_run(run_dir: Path, tmp_path: Path) -> Path:
    """A copy of the run whose manifest lacks what runs record since (git commit, times)."""
    import shutil

    old = tmp_path / "old_run"
    shutil.copytree(run_dir, old)
    manifest = json.loads((old / "manifest.json").read_text())
    for key in ("git_commit", "started_at", "finished_at"):
        manifest.pop(key, None)
    (old / "manifest.json").write_text(json.dumps(manifest))
    return old


@pytest.mark.parametrize(("mean", "spread", "text"), [
    (0.688336, 0.0004046, "0.68834 ± 0.00040"),  # the std to 2 digits, the mean to its place
    (0.6499, 0.0014, "0.6499 ± 0.0014"),
    (0.5, 0.0996, "0.50 ± 0.10"),  # the std rounds up a decade: still 2 digits
    (4360.2, 93.4, "4360 ± 93"),
    (12346.0, 234.0, "12350 ± 230"),  # the std's second digit is the tens
    (4.93e-4, 1.66e-4, "(4.9 ± 1.7)e-04"),  # below 0.001: a power of ten factored out
    (-0.0001, 0.3, "0.00 ± 0.30"),
    (200.0, 0.0, "200 ± 0"),
    (0.649213, None, "0.649"),  # alone: 3 significant digits
    (0.99961, None, "1.00"),
    (44.7, None, "44.7"),
    (4357.8, None, "4360"),
    (200.0, None, "200"),  # a whole number whole
    (6.58e-4, None, "6.58e-04"),
    (123456.7, None, "1.23e+05"),
    (float("nan"), None, "NA"),
])
def test_one_rounding_rule(mean: float, spread: float | None, text: str) -> None:
    assert format_number(mean, spread) == text


def _rows(dataset: str, algorithm: str, label: str, rmse: list[float], seconds: list[float],
          experiment: str = "run", **columns: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"experiment": experiment, "dataset": dataset, "algorithm": algorithm,
                         "label": label, "m": 1000, "n_fit": 26048, "task": "binary",
                         "trial": range(len(rmse)), "param_name": "iterations",
                         "selected": 44.0, "model_selection_time": seconds,
                         "test_rmse": rmse, **columns})


def test_the_papers_values_stand_beside_ours_with_their_source() -> None:
    results = pd.concat([
        _rows("adult", "nytro", "nytro", [0.6880, 0.6886], [0.60, 0.68]),
        _rows("breast_cancer", "nkrls", "m67_lam1e-12", [0.3, 0.3], [0.1, 0.1],
              test_error=[0.02, 0.03]),
        _rows("breast_cancer", "sgm", "SGM_C", [0.3, 0.3], [1.0, 1.2],
              experiment="thesis_table6_breast_cancer", test_error=[0.03, 0.03],
              test_hinge=[0.12, 0.13]),
        _rows("breast_cancer", "nkrls", "nkrls", [0.3, 0.31], [0.1, 0.1],
              test_error=[0.02, 0.02]),
    ], ignore_index=True)
    table, notes = results_table(results)
    by_label = table.set_index("label")
    nytro = by_label.loc["nytro"]
    assert nytro["test RMSE"] == "0.68830 ± 0.00030" and nytro["time (s)"] == "0.640 ± 0.040"
    assert nytro["test RMSE, paper"] == "0.6873 ± 0.003 (NYTRO Table 2)"
    assert nytro["time (s), paper"] == "0.85 ± 0.05 (NYTRO Table 2)"
    # the selected t* as the table's other cells (mean ± std), the paper's beside it
    assert nytro["λ* / t*"] == "44 ± 0" and nytro["λ* / t*, paper"] == "44.9 ± 0.3 (NYTRO Table 2)"
    assert by_label.loc["m67_lam1e-12", "test error, paper"] == \
        "0.0186 (LiM §4.2 (= thesis §4.2) text)"
    sgm = by_label.loc["SGM_C"]
    assert sgm["test hinge loss, paper"] == "0.127 ± 0.022 (thesis Table 6.2)"
    assert sgm["test error, paper"] == "3.1 ± 1.1 % (thesis Table 6.2)"
    assert by_label.loc["nkrls", "test RMSE, paper"] == ""  # no published breast-cancer NKRLS
    assert list(table.columns).index("test RMSE, paper") == \
        list(table.columns).index("test RMSE") + 1
    assert any(n.startswith("paper values from NYTRO Table 2 — Camoriano") for n in notes)
    assert any("26048 fitting rows" in n for n in notes)


def test_no_paper_column_where_nothing_is_published() -> None:
    table, notes = results_table(_rows("breast_cancer", "nytro", "nytro", [0.3], [0.1]))
    assert not [c for c in table.columns if c.endswith(", paper")] and notes == []
    assert table.loc[0, "test RMSE"] == "0.300" and table.loc[0, "λ* / t*"] == "44"


def test_the_report_of_a_run(run_dir: Path, tmp_path: Path) -> None:
    text = build_report([_as_older_run(run_dir, tmp_path)], "tiny")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["config_hash"] in text
    assert f"numpy {np.__version__}" in text and f"kernreg {manifest['environment']['kernreg']}" \
        in text
    for what in ("git commit", "started (UTC)", "finished (UTC)"):
        assert f"<th>{what}</th><td>not recorded</td>" in text
    assert "<th>BLAS threads</th><td>1 (all 4 trials)</td>" in text
    assert "0.0186 (LiM §4.2 (= thesis §4.2) text)" in text
    table = pd.read_csv(run_dir / "results.csv")
    errors = table.loc[table["label"] == "m67_lam1e-12", "test_error"]
    assert f"<td>{format_number(errors.mean(), errors.std(ddof=0))}</td>" in text
    images = text.count("data:image/png;base64,")
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", text)
    assert images == len(captions) == 2  # NYTRO's path and error against time; one λ: no path
    assert captions[0].startswith("Validation RMSE of NYTRO (label nytro) against iteration t")
    assert "2 trials" in captions[0]
    assert "not drawn: path_m67_lam1e-12 — m67_lam1e-12 has no path to draw" in text


def test_a_recorded_commit_and_times_are_shown(run_dir: Path, tmp_path: Path) -> None:
    old = _as_older_run(run_dir, tmp_path)
    manifest = json.loads((old / "manifest.json").read_text())
    manifest.update(git_commit="0123abcd+dirty", started_at="2025-01-02T03:04:05Z")
    (old / "manifest.json").write_text(json.dumps(manifest))
    text = build_report([old])
    assert "<th>git commit</th><td>0123abcd+dirty</td>" in text
    assert "<th>started (UTC)</th><td>2025-01-02T03:04:05Z</td>" in text
    assert "<th>finished (UTC)</th><td>not recorded</td>" in text


def test_write_report_writes_one_file_and_never_a_runs_record(run_dir: Path,
                                                              tmp_path: Path) -> None:
    out = write_report([run_dir], tmp_path / "report.html", title="tiny")
    assert out == tmp_path / "report.html" and "<title>tiny</title>" in out.read_text()
    before = (run_dir / "manifest.json").read_text()
    with pytest.raises(ConfigError, match="is part of the record of the run"):
        write_report([run_dir], run_dir / "manifest.json")
    assert (run_dir / "manifest.json").read_text() == before


def test_kernreg_report_of_no_run_folder_fails_cleanly(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    code, _, err = run_kernreg(["report", str(tmp_path), "-o", str(tmp_path / "r.html")],
                               capsys)
    assert code == 2 and "is not a run folder" in err
    assert not (tmp_path / "r.html").exists()


def test_the_report_of_an_old_run_stored_before_any_of_this_was_recorded(tmp_path: Path) -> None:
    import shutil

    from kernreg.results.store import RunStore

    run = tmp_path / "ci_cpusmall"
    shutil.copytree(Path(__file__).parent / "reference" / "old_format" / "run", run)
    RunStore(run).finalize()  # its results.h5 and results.csv, from the old trial files
    text = build_report([run])
    assert "4cc7c967ddd70f3a13326e32a5f638897c6ffe040d79709d84b59444af946dd3" in text
    assert "<th>git commit</th><td>not recorded</td>" in text
    assert "<th>finished (UTC)</th><td>not recorded</td>" in text
    # trials stored before their device and kernel loops were recorded: numpy on the CPU
    assert "<th>device of the trials</th><td>cpu (all 2 trials)</td>" in text
    assert "<th>kernel loops of the trials</th><td>not recorded (all 2 trials)</td>" in text
    assert "kernreg 0.1.0, python 3.11.7, numpy 2.4.6" in text  # the versions it recorded
    assert text.count("<figcaption>") == text.count("data:image/png;base64,") >= 1


def test_per_class_measures_have_a_table_of_their_own() -> None:
    """A multiclass run's accuracy of each class: one column per class would not fit beside
    the results; its own table, one row per label."""
    from kernreg.results.report import per_class_table

    rows = _rows("mnist", "nkrls", "nkrls", [0.3, 0.3], [1.0, 1.2], task="multiclass",
                 test_accuracy=[0.97, 0.96], test_accuracy_class_0=[0.99, 0.98],
                 test_accuracy_class_1=[0.95, 0.97])
    table, _ = results_table(rows)
    assert "test accuracy" in table.columns
    assert not [c for c in table.columns if "of class" in c]
    per_class = per_class_table(rows)
    assert list(per_class.columns) == ["dataset", "label", "test accuracy of class 0",
                                       "test accuracy of class 1"]
    assert per_class.loc[0, "test accuracy of class 1"] == "0.960 ± 0.010"
    assert per_class_table(_rows("adult", "nytro", "nytro", [0.3], [0.1])) is None


def test_one_mean_spread_rule_for_tables_and_report() -> None:
    """A trial without the quantity (NaN) neither counts nor turns the cell into NaN, in the
    tables and the report alike (one function)."""
    from kernreg.results import report, tables
    from kernreg.results.numbers import format_number, mean_spread

    assert tables.mean_spread is report.mean_spread is mean_spread
    assert mean_spread([1.0, float("nan"), 3.0]) == format_number(2.0, 1.0)
    assert mean_spread([float("nan")]) == "" and mean_spread([]) == ""
    assert mean_spread([0.5]) == format_number(0.5)
    assert mean_spread(["", "2"]) == format_number(2.0)
