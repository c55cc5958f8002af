"""Results stored before tasks and measures existed still load, and every table renders them
byte for byte as before (the files under tests/reference/old_format/ were written, and their
tables rendered, by kernreg at 41ab70e; since 2026-11-27 Table 2's GEMM note also names each
dataset's rates when they differ, and table2_trials.table2.md has that line; since 2026-11-27 too
the selected parameter's row is labelled by its symbols, "λ* / t*", not "Par."; since
2026-12-06 the summary table rounds by kernreg's one rule, as the report does, and Table 2
with --compare-paper lists each cell more than 2 % from the paper with its label)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from kernreg.cli import main
from kernreg.results.store import load_run, read_results_csv

OLD = Path(__file__).resolve().parent / "reference" / "old_format"


@pytest.mark.parametrize("results", ["table2_trials", "ci_cpusmall"])
@pytest.mark.parametrize("table", ["table2", "summary"])
@pytest.mark.parametrize("fmt", ["md", "latex", "csv"])
def test_old_results_render_byte_identical(results: str, table: str, fmt: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    paper = ["--compare-paper"] if results == "table2_trials" else []
    main(["table", "--table", table, "--format", fmt, *paper, str(OLD / f"{results}.csv")])
    assert capsys.readouterr().out == (OLD / f"{results}.{table}.{fmt}").read_text()


def test_old_csv_reads_with_its_rmse_columns() -> None:
    table = read_results_csv(OLD / "table2_trials.csv")
    assert "task" not in table and table["test_rmse"].notna().all()
    assert table["test_error"].notna().all()  # Insurance, Adult, ... are classification


def test_old_trial_files_load_with_their_measures_filled_in(tmp_path: Path) -> None:
    run = tmp_path / "ci_cpusmall"
    shutil.copytree(OLD / "run", run)
    from kernreg.results.store import RunStore

    RunStore(run).finalize()  # results.h5 and results.csv rebuilt from the old trial files
    data = load_run(run)
    assert len(data.records) == 2
    for record in data.records:
        assert record.task == "regression" and record.val_measure == "rmse"
        assert record.measures == {"rmse": record.test_rmse}
        assert record.test_path == {}  # none recorded before it could be
        assert np.isnan(record.test_error) and record.val_rmse.size > 0
    assert data.table["test_rmse"].tolist() == [r.test_rmse for r in data.records]
    assert set(data.table["task"]) == {"regression"}
