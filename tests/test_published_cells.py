"""The tables that put our cells beside the papers' published cells (lim_table1_full,
lim_fig1_points): values, the 2% flag and its label, NA reasons, the table configs that use
them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from kernreg.results.published_cells import build_paper_cells, read_paper_cells
from kernreg.results.tables import Collected, load_table_config, render_table

ROOT = Path(__file__).resolve().parent.parent


def _rows(dataset: str, label: str, values: list[float], measure: str = "rmse",
          sigma: float = 6.0) -> pd.DataFrame:
    return pd.DataFrame({"dataset": dataset, "label": label, "algorithm": "krls",
                         f"test_{measure}": values, "sigma": sigma,
                         "trial": range(len(values))})


def test_cells_compare_in_the_papers_unit_and_flag_beyond_two_percent() -> None:
    results = pd.concat([_rows("insurance", "krls_rbf", [0.230, 0.232]),  # paper 0.231
                         _rows("insurance", "rf_rbf", [0.2320, 0.2322])])  # paper 0.266
    cells = {(c.dataset, c.column): c for c in build_paper_cells(results, "lim_table1_full.csv")}
    krls, rf = cells[("insurance", "krls_rbf")], cells[("insurance", "rf_rbf")]
    assert krls.mean == pytest.approx(0.231) and krls.n == 2 and not krls.flagged
    assert krls.gap == pytest.approx(0.0)
    assert rf.gap == pytest.approx((0.2321 - 0.266) / 0.266) and rf.flagged
    # every published cell is listed, measured or not
    assert len(cells) == len(read_paper_cells("lim_table1_full.csv"))
    assert cells[("cpu_act", "krls_rbf")].n == 0


def test_na_reasons_label_entries_win_over_dataset_entries() -> None:
    not_run = [{"dataset": "ct_slices", "reason": "no data"},
               {"dataset": "ct_slices", "label": "rf_rbf", "reason": "rf reason"}]
    cells = {(c.dataset, c.column): c for c in
             build_paper_cells(_rows("insurance", "krls_rbf", [0.231]), "lim_table1_full.csv",
                               not_run)}
    assert cells[("ct_slices", "rf_rbf")].na_reason == "rf reason"
    assert cells[("ct_slices", "krls_rbf")].na_reason == "no data"
    assert "no reason" in cells[("cpu_act", "krls_rbf")].na_reason


def test_rendered_table_marks_flags_with_their_notes() -> None:
    results = pd.concat([_rows("insurance", "krls_rbf", [0.231]),
                         _rows("insurance", "rf_rbf", [0.2320])])
    notes = [{"dataset": "insurance", "label": "rf_rbf", "note": "Le et al.'s features differ"}]
    text = render_table("lim_table1_full", Collected(results, [], notes))
    header, _, insurance = text.splitlines()[:3]
    assert "Incremental RF RBF" in header and "Fastfood Matérn" in header
    assert "0.2310 (paper 0.231)" in insurance and "0.2320 † (paper 0.266)" in insurance
    assert ("≠ Insurance Company Benchmark, RF RBF, test RMSE: 0.232 vs 0.266 (-12.8%) (no "
            "spread on either side, the paper gives no spread): measured reason (its note) — "
            "Le et al.'s features differ") in text
    assert "cpuAct" in text and "NA here — not run" in text


def test_published_spread_makes_a_small_gap_noise_and_open_notes_say_what_was_tried() -> None:
    # cpuAct's Incremental Nyström: 2.8466 ± 0.0497 over 10 trials in LiM
    results = pd.concat([_rows("cpu_act", "incremental_nystrom_rbf", [2.92, 2.94, 2.96]),
                         _rows("cpu_act", "krls_rbf", [2.80, 2.84])])
    notes = [{"dataset": "cpu_act", "label": "krls_rbf", "note": "their set-up differs",
              "open": "3 variants (results/x.csv)"}]
    cells = {c.column: c for c in build_paper_cells(results, "lim_table1_full.csv", (), notes)
             if c.dataset == "cpu_act"}
    nystrom = cells["incremental_nystrom_rbf"]
    assert nystrom.paper_std == pytest.approx(0.0497) and nystrom.paper_n == 10
    assert nystrom.flagged  # +3.2%, but z = +4.5 with both spreads: not noise
    assert nystrom.label().endswith(": open")
    assert nystrom.label().startswith("cpuAct, Incremental Nyström RBF, test RMSE: 2.94 vs 2.847")
    assert cells["krls_rbf"].label().endswith(": open after 3 variants (results/x.csv)")
    near = build_paper_cells(_rows("cpu_act", "incremental_nystrom_rbf", [2.80, 3.10]),
                             "lim_table1_full.csv")
    noisy = next(c for c in near if c.column == "incremental_nystrom_rbf"
                 and c.dataset == "cpu_act")
    assert noisy.flagged and noisy.label().endswith("within noise")


def test_point_values_compare_each_cell_in_its_measure() -> None:
    results = pd.concat([_rows("breast_cancer", "m300_lam4.28e-6", [0.0118, 0.0130], "error"),
                         _rows("cpusmall", "m5000_lam1e-12", [15.0], "rmse")])
    cells = {c.column: c for c in build_paper_cells(results, "lim_fig1_points.csv")}
    bc = cells["m300_lam4.28e-6"]
    assert bc.measure == "error" and bc.ours_text() == "0.01240 ± 0.00060" and not bc.flagged
    assert cells["m5000_lam1e-12"].flagged and cells["m5000_lam1e-12"].paper == 12.2
    text = render_table("lim_fig1_points", Collected(results))
    assert "| Breast Cancer Wisconsin | m = 300, λ = 4.28e-6" in text and "0.0124" in text


@pytest.mark.parametrize("name", ["lim_table1_full.yaml", "lim_fig1_points.yaml"])
def test_table_configs_load(name: str) -> None:
    table = load_table_config(ROOT / "configs" / name)
    assert table["table"] == name.removesuffix(".yaml")
    for run in table["runs"]:
        assert (ROOT / "configs" / run).is_file()


def test_rendered_table_lists_each_cells_median_seconds_with_the_host_gemm_rate() -> None:
    timed = _rows("insurance", "krls_rbf", [0.231, 0.232, 0.230]).assign(
        model_selection_time=[9.0, 11.0, 10.5], gemm_gflops=[90.0, 101.0, 95.0])
    untimed = _rows("insurance", "rf_rbf", [0.2320])  # results without a time column
    text = render_table("lim_table1_full", Collected(pd.concat([timed, untimed]), []))
    times = text.split("Seconds per trial")[1]
    header, _, insurance = [line for line in times.splitlines() if line.startswith("|")][:3]
    cells = dict(zip(header.split("|"), insurance.split("|"), strict=True))
    assert cells[" KRLS RBF "].strip() == "10.5"  # the median, not the mean (10.17)
    assert cells[" host GEMM GF/s "].strip() == "90–101"
    assert cells[" RF RBF "].strip() == ""
    assert "cpuAct" not in times  # no timed cell, no row
    # without any time the table is the comparison alone
    assert "Seconds per trial" not in render_table("lim_table1_full", Collected(untimed, []))


def test_lim_table1_labels_incremental_nystrom_cells_beyond_two_percent() -> None:
    # LiM: cpuAct 2.8466 ± 0.0497, Forest 0.9638 ± 0.0186, 10 trials each
    rows = [{"dataset": ds, "algorithm": "inkrls", "label": "inkrls", "n_fit": 100, "m": 2048,
             "m_selected": 2048, "selected": 1e-8, "model_selection_time": 1.0,
             "test_rmse": v, "trial": i}
            for ds, values in (("cpu_act", [2.85, 2.86]), ("covtype_binary", [1.00, 1.01]))
            for i, v in enumerate(values)]
    notes = [{"dataset": "covtype_binary", "algorithm": "inkrls", "note": "σ differs"}]
    text = render_table("lim_table1", Collected(pd.DataFrame(rows), [], notes))
    labels = [line[2:] for line in text.splitlines() if line.startswith("- ≠ ")]
    assert len(labels) == 1  # cpuAct is 0.3% away
    assert labels[0].startswith("≠ Covertype binary, incremental Nyström, RMSE: 1.005 vs 0.9638 "
                                "(+4.3%), z = +6.00 (2 trials here, 10 in the paper)")
    assert labels[0].endswith(": measured reason (its note)")
    assert "- Covertype binary, Incremental NKRLS: σ differs" in text
