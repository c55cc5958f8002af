"""What tables and reports accept: finite numbers, each trial once, labels that exist, and no
output written over a run's record.

Data: the committed trials behind Table 2 (results/table2_trials.csv) and a small real run on
scikit-learn's bundled breast cancer table (no mirror needed).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernreg.cli import main
from kernreg.errors import ResultsError
from kernreg.results.store import RunStore, read_results_csv

REPO = Path(__file__).resolve().parents[1]
TRIALS = REPO / "results" / "table2_trials.csv"
TABLE2 = REPO / "configs" / "table2.yaml"
CONFIG = """
name: small
dataset: {name: breast_cancer, n_train: 120, n_test: 60}
algorithms:
  - {name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1e-1, 6]}}
protocol: {trials: 2}
budget: {blas_threads: 1}
"""


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run folder (2 trials of NKRLS)."""
    folder = tmp_path_factory.mktemp("run")
    config = folder / "small.yaml"
    config.write_text(textwrap.dedent(CONFIG))
    main(["run", str(config), "--out", str(folder / "out"), "--no-progress"])
    return folder / "out" / "small"


def _table2_with(tmp_path: Path, change) -> tuple[list[str], Path]:
    """``kernreg table`` of Table 2 from a changed copy of its committed trials."""
    rows = pd.read_csv(TRIALS)
    fallback = tmp_path / "trials.csv"
    change(rows).to_csv(fallback, index=False)
    return ["table", str(TABLE2), "--results-dir", str(tmp_path / "none"), "--fallback",
            str(fallback)], fallback


def test_the_committed_trials_render_table_2(tmp_path: Path, kernreg_cli) -> None:
    args, _ = _table2_with(tmp_path, lambda rows: rows)
    code, out, _ = kernreg_cli(args)
    assert code == 0 and "| time (s) |" in out


@pytest.mark.parametrize("value", [float("inf"), float("-inf")])
def test_a_non_finite_result_is_refused_naming_file_and_line(tmp_path: Path, kernreg_cli,
                                                             value: float) -> None:
    def spoil(rows: pd.DataFrame) -> pd.DataFrame:
        rows.loc[4, "test_rmse"] = value
        return rows

    args, fallback = _table2_with(tmp_path, spoil)
    code, _, err = kernreg_cli([*args, "-o", str(tmp_path / "t.md")])
    assert code == 2 and f"{fallback}: column test_rmse holds {value}" in err
    assert "line 6" in err and not (tmp_path / "t.md").exists()


def test_a_trial_listed_twice_is_refused_not_averaged(tmp_path: Path, kernreg_cli) -> None:
    args, fallback = _table2_with(tmp_path, lambda rows: pd.concat([rows, rows.iloc[[3]]],
                                                                   ignore_index=True))
    code, _, err = kernreg_cli(args)
    rows = pd.read_csv(TRIALS)
    assert code == 2 and str(fallback) in err and "more than once" in err
    assert f"lines 5, {len(rows) + 2}" in err
    assert f"trial {rows.loc[3, 'trial']} of {rows.loc[3, 'experiment']}" in err


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_read_results_csv_accepts_only_finite_single_trials(tmp_path_factory, data) -> None:
    """Property: a CSV with any one cell made infinite, or any one row repeated, is refused;
    the committed CSV itself is read."""
    rows = pd.read_csv(TRIALS)
    numeric = [c for c in rows.select_dtypes("number").columns]
    folder = tmp_path_factory.mktemp("csv")
    if data.draw(st.booleans()):
        row = data.draw(st.integers(0, len(rows) - 1))
        column = data.draw(st.sampled_from(numeric))
        rows[column] = rows[column].astype(float)
        rows.loc[row, column] = data.draw(st.sampled_from([float("inf"), float("-inf")]))
        expected = f"column {column} holds"
    else:
        row = data.draw(st.integers(0, len(rows) - 1))
        rows = pd.concat([rows, rows.iloc[[row]]], ignore_index=True)
        expected = "more than once"
    path = folder / "bad.csv"
    rows.to_csv(path, index=False)
    with pytest.raises(ResultsError, match=expected):
        read_results_csv(path)
    assert len(read_results_csv(TRIALS)) == len(pd.read_csv(TRIALS))


def test_a_run_whose_results_csv_repeats_a_trial_is_refused(small_run: Path, tmp_path: Path,
                                                            kernreg_cli) -> None:
    copy = tmp_path / "small"
    copy.mkdir()
    for name in ("manifest.json", "results.h5"):
        (copy / name).write_bytes((small_run / name).read_bytes())
    (copy / "trials").mkdir()
    for path in (small_run / "trials").iterdir():
        (copy / "trials" / path.name).write_bytes(path.read_bytes())
    rows = pd.read_csv(small_run / "results.csv")
    pd.concat([rows, rows.iloc[[0]]]).to_csv(copy / "results.csv", index=False)
    code, _, err = kernreg_cli(["table", str(copy)])
    assert code == 2 and "more than once" in err and "--rebuild" in err
    # the same run named twice is one run; a copy of it beside the original is refused
    code, _, _ = kernreg_cli(["table", str(small_run), str(small_run), "--table", "summary"])
    assert code == 0
    rows.to_csv(copy / "results.csv", index=False)
    code, _, err = kernreg_cli(["table", str(small_run), str(copy), "--table", "summary"])
    assert code == 2 and "is in both" in err and str(copy) in err


def test_labels_of_a_table_config_must_exist(tmp_path: Path, kernreg_cli) -> None:
    table = {"table": "table2", "runs": [str(REPO / "configs" / "adult_all.yaml")],
             "labels": ["nkrls", "nystrom_krls"]}
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(table))
    for command in (["table", str(path), "--results-dir", str(tmp_path)],
                    ["run", str(path), "--out", str(tmp_path / "out")]):
        code, _, err = kernreg_cli(command)
        assert code == 2 and "labels[1]: 'nystrom_krls' is no algorithm label" in err
        assert "nkrls" in err
    assert not (tmp_path / "out").exists()


def test_outputs_are_never_written_over_a_runs_record(small_run: Path, tmp_path: Path,
                                                      kernreg_cli) -> None:
    record = {p: p.read_bytes() for p in small_run.rglob("*") if p.is_file()}
    for args in (["table", str(small_run), "-o", str(small_run / "results.csv")],
                 ["table", str(small_run), "--trials-out", str(small_run / "manifest.json")],
                 ["table", str(small_run), "--trials-out",
                  str(small_run / "trials" / "x.csv")],
                 ["report", str(small_run), "-o", str(small_run / "results.h5")],
                 ["plot", str(small_run), "--out-dir", str(small_run / "trials")]):
        code, _, err = kernreg_cli(args)
        assert code == 2 and "which only that run writes" in err, args
    # a link to a run's results is followed
    link = tmp_path / "link.csv"
    link.symlink_to(small_run / "results.csv")
    code, _, err = kernreg_cli(["table", str(small_run), "-o", str(link)])
    assert code == 2 and "part of the record" in err
    assert {p: p.read_bytes() for p in small_run.rglob("*") if p.is_file()} == record


def test_plot_into_a_run_folder_waits_for_no_writer(small_run: Path, kernreg_cli) -> None:
    """`kernreg plot` writes <run>/figures as a writer of the run: refused while another
    process holds the run's lock."""
    with RunStore(small_run).lock():
        code, _, err = kernreg_cli(["plot", str(small_run), "--format", "png"])
    assert code == 2 and "is in use by another kernreg run" in err
    assert not (small_run / "figures").exists()
    code, out, _ = kernreg_cli(["plot", str(small_run), "--format", "png"])
    assert code == 0 and "figures" in out
