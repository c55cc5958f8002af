"""Table 2 aggregation and rendering on hand-made tidy results."""

from __future__ import annotations

import numpy as np
import pandas as pd

from kernreg.results.tables import (
    build_table2,
    cell_notes,
    gemm_note,
    paper_table2,
    render_frame,
    render_table2,
    summary_table,
)


def _results() -> pd.DataFrame:
    rows = []
    for algo, times, rmses, pars in (("nkrls", [2.0, 4.0], [0.50, 0.52], [1e-6, 3e-6]),
                                     ("nytro", [1.0, 1.0], [0.55, 0.55], [40, 50])):
        for t in range(2):
            rows.append({"dataset": "adult", "algorithm": algo, "label": algo, "trial": t,
                         "m": 1000, "model_selection_time": times[t], "test_rmse": rmses[t],
                         "selected": pars[t]})
    return pd.DataFrame(rows)


def test_mean_std_bold_and_na() -> None:
    table = build_table2(_results(), not_run=[{"dataset": "adult", "algorithm": "krls",
                                               "reason": "too slow"}])
    assert table.algorithms == ["krls", "nkrls", "nytro"]
    nkrls_rmse = table.cells[("adult", "nkrls", "rmse")]
    assert nkrls_rmse.mean == 0.51 and abs(nkrls_rmse.std - 0.01) < 1e-12 and nkrls_rmse.bold
    assert table.cells[("adult", "nytro", "time")].bold
    text = render_table2(table, "md")
    assert "| Adult m=1000 | time (s) | NA | 3.00±1.00 | **1.00±0.00** |" in text
    assert "|  | RMSE | NA | **0.5100±0.0100** | 0.5500±0.0000 |" in text
    # results that do not name their parameter keep the paper's row label
    assert "|  | Par. | NA | 2.00e-06±1.00e-06 | 45.0±5.0 |" in text
    named = _results().assign(param_name=lambda r: r["algorithm"].map(
        {"nkrls": "lambda", "nytro": "iterations"}))
    assert "|  | λ* / t* | NA | 2.00e-06±1.00e-06 | 45.0±5.0 |" in render_table2(
        build_table2(named, not_run=[{"dataset": "adult", "algorithm": "krls",
                                      "reason": "too slow"}]), "md")
    nytro_alone = build_table2(named[named["algorithm"] == "nytro"], not_run=[])
    assert "|  | t* | 45.0±5.0 |" in render_table2(nytro_alone, "md")
    assert r"& $t^*$ &" in render_table2(nytro_alone, "latex")
    assert "- Adult m=1000, KRLS: NA — too slow" in text


def test_cell_notes_are_listed_under_the_table() -> None:
    notes = [{"dataset": "adult", "algorithm": "nytro", "note": "t* 42.8 against 44.9"},
             {"dataset": "not_a_dataset", "algorithm": "inkrls", "note": "not registered"}]
    text = render_table2(build_table2(_results(), notes=notes[:1]), "md")
    assert text.endswith("- Adult m=1000, NYTRO: t* 42.8 against 44.9\n")
    frame = render_frame(pd.DataFrame({"dataset": ["Adult"]}), "md", notes=cell_notes(notes))
    assert "- Adult, NYTRO: t* 42.8 against 44.9" in frame
    assert "- not_a_dataset, Incremental NKRLS: not registered" in frame  # not in the registry


def test_datasets_without_results_get_one_row_each() -> None:
    not_run = [{"dataset": "covtype_binary", "algorithm": a, "reason": "later", "m": 10000}
               for a in ("nkrls", "nytro")]
    not_run.append({"dataset": "covtype_binary", "algorithm": "kols", "reason": "NA"})
    text = render_table2(build_table2(_results(), not_run=not_run), "md")
    assert text.count("| Covertype binary m=10000 | time (s) |") == 1
    assert text.count("| Adult m=1000 | time (s) |") == 1


def test_compare_paper_and_latex() -> None:
    paper = paper_table2()
    assert paper[("adult", "nytro", "time")] == "0.85±0.05"
    assert paper[("insurance", "kols", "time")] == "1.04"
    text = render_table2(build_table2(_results(), compare_paper=True), "latex", with_paper=True)
    assert r"\textbf{1.00$\pm$0.00} (paper 0.85$\pm$0.05)" in text
    assert r"\begin{tabular}{llcc}" in text


def test_a_variant_label_is_used_only_without_the_algorithms_own() -> None:
    variant = _results().query("algorithm == 'nytro'").assign(label="nytro_49",
                                                              model_selection_time=9.0)
    both = pd.concat([_results(), variant])
    assert build_table2(both).cells[("adult", "nytro", "time")].mean == 1.0
    alone = build_table2(variant)  # e.g. a run whose only algorithm carries a label
    assert alone.algorithms == ["nytro"]
    assert alone.cells[("adult", "nytro", "time")].mean == 9.0


def test_measure_rows_follow_the_table_config_with_their_own_direction() -> None:
    results = _results().assign(test_accuracy=[0.9, 0.8, 0.95, 0.95],
                                test_error=[0.1, 0.2, 0.05, 0.05])
    table = build_table2(results, measures=["error", "accuracy", "hinge"])
    assert [q for q, _, _ in table.quantities] == ["time", "error", "accuracy", "hinge", "par"]
    assert table.cells[("adult", "nytro", "error")].bold  # lower is better
    assert table.cells[("adult", "nytro", "accuracy")].bold  # higher is better
    assert not table.cells[("adult", "nkrls", "accuracy")].bold
    text = render_table2(table, "md")
    assert "|  | accuracy | 0.8500±0.0500 | **0.9500±0.0000** |" in text
    assert "|  | hinge loss |  |  |" in text  # results without the measure: empty cells
    assert "RMSE" not in text


def test_summary_shows_the_measures_of_the_results_tasks() -> None:
    results = _results().assign(task=["binary"] * 2 + ["regression"] * 2,
                                test_error=[0.1, 0.2, np.nan, np.nan], test_hinge=0.3,
                                test_mse=0.25, param_name="lambda")
    frame = summary_table(results)
    assert list(frame.columns[6:9]) == ["test RMSE", "test error", "test hinge loss"]
    assert "test MSE" not in frame  # regression's summary shows RMSE only
    assert frame.loc[1, "test error"] == ""  # the regression rows have none
    assert list(summary_table(results, ["mse"]).columns[6:7]) == ["test MSE"]
    old_and_new = results.assign(task=[np.nan, np.nan, "regression", "regression"])
    assert "test error" in summary_table(old_and_new)  # old rows with an error: binary
    unknown = summary_table(results.assign(task="a_plugins_task"))
    assert "test RMSE" in unknown and "test error" not in unknown


def test_summary_lists_the_sigmas_a_grid_picked_beside_a_fixed_sigma() -> None:
    rows = []
    for label, picked in (("fixed", [np.nan] * 4), ("grid", [6.0, 4.0, 6.0, 50.0])):
        for trial, s in enumerate(picked):
            rows.append({"dataset": "insurance", "label": label, "algorithm": "inkrls",
                         "m": 64, "trial": trial, "model_selection_time": 1.0,
                         "test_rmse": 0.23, "param_name": "lambda", "selected": 1e-3,
                         "sigma": 6.0 if np.isnan(s) else s, "sigma_selected": s})
    frame = summary_table(pd.DataFrame(rows)).set_index("label")
    assert frame.loc["grid", "σ* (trials)"] == "6 ×2, 4, 50"  # most picked first, not a median
    assert frame.loc["fixed", "σ* (trials)"] == "6 (fixed)"
    assert "σ* (trials)" not in summary_table(pd.DataFrame(rows[:4]).drop(
        columns="sigma_selected"))  # no grid in the table: no column


def test_gemm_note_names_each_datasets_rates_when_they_differ() -> None:
    """Runs of different sessions sit side by side in one table: the GEMM rate behind each
    dataset's times is named when the rates differ by more than 20%."""
    adult = _results().assign(gemm_gflops=[56.0, 56.0, 92.0, 56.0])
    insurance = _results().assign(dataset="insurance", gemm_gflops=71.0)
    note = gemm_note(pd.concat([adult, insurance]))
    assert note.endswith("median 71 GFLOP/s, range 56–92; by dataset: Adult 56–92, "
                         "Insurance Company Benchmark 71")
    close = pd.concat([adult.assign(gemm_gflops=60.0), insurance.assign(gemm_gflops=70.0)])
    assert gemm_note(close).endswith("median 65 GFLOP/s, range 60–70")
    # one dataset: nothing to split
    assert gemm_note(adult).endswith("median 56 GFLOP/s, range 56–92")


def test_a_table_of_a_path_that_does_not_exist_says_so(tmp_path, kernreg_cli) -> None:
    code, _, err = kernreg_cli(["table", str(tmp_path / "nope")])
    assert code == 2
    assert f"no results at {tmp_path / 'nope'}: it does not exist" in err
