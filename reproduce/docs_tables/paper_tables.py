"""Docs tables of the papers' reproductions: NYTRO Table 2 (results/table2.md), LiM Table 1
(results/lim_table1.md, lim_table1_selected.md) and thesis Table 7.1 (results/thesis_table7*.md,
written by ``kernreg run``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from kernreg.datasets import dataset_names, get_spec
from kernreg.errors import ResultsError
from reproduce.docs_tables.read import (
    SHORT_TITLES,
    column,
    md_table,
    read_csv,
    rows_md,
)
from reproduce.docs_tables.registry import DocTable, register_doc_table


@dataclass
class _T2Cell:
    ours: str  # the mean as written in results/table2.md, "" when NA
    paper: str  # the paper's mean, "" when none


def _short_title(title: str) -> str:
    """The docs' short name of a dataset from its registry title ("IJCNN 2001 challenge
    m=5000" → "Ijcnn1"); the first word for a dataset kernreg does not register."""
    for name in dataset_names():
        if title.startswith(get_spec(name).title.split(" (")[0]):
            return SHORT_TITLES.get(name, title.split()[0])
    return title.split()[0]


def _table2_cells(path: Path) -> tuple[list[tuple[str, str]], list[str],
                                         dict[tuple[str, str, str], _T2Cell], list[str]]:
    """(datasets as (short name, m), algorithms, cells[(row, algorithm, quantity)], notes)."""
    header, rows = md_table(path)
    algorithms = header[2:]
    datasets: list[tuple[str, str]] = []
    cells: dict[tuple[str, str, str], _T2Cell] = {}
    # the parameter row is labelled by its symbols (λ* / t*); "Par." in older renderings
    quantity = {"time (s)": "time", "RMSE": "rmse", "Par.": "par"}
    for row in rows:
        if row[0]:
            title = row[0]
            m = re.search(r"m=(\d+)", title)
            datasets.append((_short_title(title), m.group(1) if m else ""))
        q = quantity.get(row[1]) or ("par" if row[1].endswith("*") else None)
        if q is None or not datasets:
            raise ResultsError(f"{path}: unexpected row {row[:2]}; re-render it (make table2)")
        for algo, text in zip(algorithms, row[2:], strict=False):
            paper = re.search(r"\(paper ([^)±]+)", text)
            ours = text.split("(paper")[0].strip().strip("*")
            ours = "" if ours.startswith("NA") else ours.split("±")[0]
            cells[(datasets[-1][0], algo, q)] = _T2Cell(ours, paper.group(1) if paper else "")
    notes = [line[2:] for line in path.read_text(encoding="utf-8").splitlines()
             if line.startswith("- ")]
    return datasets, algorithms, cells, notes


def _t2_pair(cell: _T2Cell | None) -> str:
    """``ours / paper``: both means as results/table2.md writes them."""
    if cell is None or not cell.ours:
        return "NA"
    ours, paper = _exponent(cell.ours), _exponent(cell.paper)
    return f"{ours} / {paper}" if paper else ours


def _exponent(text: str) -> str:
    """``6.19e-04`` → ``6.19e-4`` (the docs' style; the digits are the source's)."""
    return re.sub(r"e([-+]?)0*(\d)", lambda m: f"e{m.group(1).replace('+', '')}{m.group(2)}",
                  text)


def render_table2_summary(table2: Path) -> str:
    """README: test RMSE and λ*/t* of NKRLS, NYTRO and ES, ours / the paper's."""
    datasets, _, cells, _ = _table2_cells(table2)
    header = ["dataset", "NKRLS RMSE", "NKRLS λ*", "NYTRO RMSE", "NYTRO t*", "ES RMSE", "ES t*"]
    rows = []
    for name, m in datasets:
        if not any(cells.get((name, a, "rmse"), _T2Cell("", "")).ours
                   for a in ("NKRLS", "NYTRO", "ES")):
            continue  # nothing measured (not in the offline mirror)
        row = [f"{name}, m = {m}"]
        for algo in ("NKRLS", "NYTRO", "ES"):
            row += [_t2_pair(cells.get((name, algo, "rmse"))),
                    _t2_pair(cells.get((name, algo, "par")))]
        rows.append(row)
    return rows_md(header, rows)


def render_table2_cells(table2: Path) -> str:
    """docs/nytro.md: every measured cell, time / RMSE / λ* or t*, ours / the paper's."""
    datasets, algorithms, cells, notes = _table2_cells(table2)
    trials: dict[tuple[str, str], str] = {}
    for note in notes:  # "Adult m=1000, KOLS: 1 trial (most cells: 5)"
        m = re.match(r"(\S+).*?, (\w+): (\d+) trials? \(", note)
        if m:
            trials[(m.group(1), m.group(2))] = m.group(3)
    header = ["dataset", "algorithm", "time (s) ours / paper", "test RMSE ours / paper",
              "λ* or t* ours / paper"]
    rows = []
    for name, m in datasets:
        first = True
        for algo in algorithms:
            if not cells[(name, algo, "rmse")].ours:
                continue
            label = algo
            if (name, algo) in trials:
                n = trials[(name, algo)]
                label += f" ({n} trial{'s' if n != '1' else ''})"
            par = cells[(name, algo, "par")]
            rows.append([f"{name}, m = {m}" if first else "", label,
                         _t2_pair(cells[(name, algo, "time")]),
                         _t2_pair(cells[(name, algo, "rmse")]),
                         _t2_pair(par) if par.ours else "—"])
            first = False
    return rows_md(header, rows)


# ---------------------------------------------------------------------------------------------
# LiM Table 1 (results/lim_table1.md, results/lim_table1_selected.md)


def _spaced_pm(text: str) -> str:
    return re.sub(r"\s*±\s*", " ± ", text)


def render_lim_table1(path: Path) -> str:
    """docs/lim.md: a LiM Table 1 results file, NA reasons in the row."""
    header, rows = md_table(path)
    col = {name: column(header, name, path) for name in
           ("dataset", "n_fit", "trials", "m* (median)", "λ* (median)", "time (s)",
            "test RMSE", "paper RMSE")}
    out_header = ["dataset", "n_fit", "trials", "m* (median)", "λ* (median)", "time (s)",
                  "test RMSE", "LiM"]
    out = []
    for row in rows:
        def cell(name: str, row: list[str] = row) -> str:
            return row[col[name]]
        paper = _spaced_pm(cell("paper RMSE"))
        if cell("trials") in ("", "0"):
            reason = cell("test RMSE").removeprefix("NA — ").removeprefix("NA")
            out.append([cell("dataset"), f"NA: {reason}", "", "", "", "", "", paper])
            continue
        out.append([cell("dataset"), cell("n_fit"), cell("trials"), cell("m* (median)"),
                    cell("λ* (median)"), _spaced_pm(cell("time (s)")),
                    _spaced_pm(cell("test RMSE")), paper])
    return rows_md(out_header, out)


# ---------------------------------------------------------------------------------------------
# Thesis Table 7.1 (results/thesis_table7.md, thesis_table7_threshold10.md,
# thesis_table7_nystrom.md, thesis_table7_trials3.md; kernreg.protocols.class_incremental)

_T7_COLUMNS = ("Total N", "Total RB", "Total RC", "Imbalanced N", "Imbalanced RB",
               "Imbalanced RC")


def _t7_trials(path: Path) -> str:
    """The number of trials a Table 7.1 results file averages ("mean ± std over 10 trials")."""
    m = re.search(r"mean ± std over (\d+) trials", path.read_text(encoding="utf-8"))
    if not m:
        raise ResultsError(f"{path}: no 'mean ± std over N trials' line; re-run kernreg run on "
                           "its config, then kernreg table RUN -o FILE")
    return m.group(1)


def _t7_rows(path: Path) -> dict[str, dict[str, str]]:
    """Table 7.1's cells by n_imb and column: ``"78.3 ± 1.2 / 79.2 ± 0.3"`` (ours / thesis);
    a run of some methods only (RC alone) has their columns."""
    header, rows = md_table(path)
    names = [name for name in _T7_COLUMNS if name in header] or list(_T7_COLUMNS)
    cols = {name: column(header, name, path) for name in ("n_imb", *names)}
    return {row[cols["n_imb"]]: {name: row[cols[name]] for name in names} for row in rows}


def _t7_mean(cell: str, side: int = 0) -> str:
    """The mean of ours (``side`` 0) or of the thesis (1) in a ``"m ± s / m ± s"`` cell."""
    return cell.split("/")[side].split("±")[0].strip()


def render_thesis_table7(path: Path) -> str:
    """docs/thesis_ch7.md: Table 7.1 (MNIST rows), ours / thesis, and the label of each cell
    more than 2% from the thesis."""
    header, rows = md_table(path)
    for name in ("n_imb", *_T7_COLUMNS):
        column(header, name, path)
    caption = f"Test accuracy (%), mean ± std over {_t7_trials(path)} trials, ours / thesis:"
    labels = [line for line in path.read_text(encoding="utf-8").splitlines()
              if line.startswith("- ≠ ")]
    below = ("\n\nCells more than 2% from the thesis (relative):\n\n" + "\n".join(labels)
             if labels else "")
    return f"{caption}\n\n{rows_md(header, rows)}{below}"


def render_thesis_table7_rc(path: Path) -> str:
    """docs/thesis_ch7.md: RC's means of a Table 7.1 variant beside the
    thesis's, with the median α selected."""
    cells = _t7_rows(path)
    header, rows = md_table(path, 1)  # the selected parameters
    alpha = {row[column(header, "n_imb", path)]: row[column(header, "α RC", path)]
             for row in rows}
    n_imb = list(cells)
    return rows_md(["n_imb", *n_imb], [
        ["Total RC, ours / thesis",
         *(f"{_t7_mean(cells[n]['Total RC'])} / {_t7_mean(cells[n]['Total RC'], 1)}"
           for n in n_imb)],
        ["Imbalanced RC",
         *(f"{_t7_mean(cells[n]['Imbalanced RC'])} / {_t7_mean(cells[n]['Imbalanced RC'], 1)}"
           for n in n_imb)],
        ["median α", *(alpha.get(n, "—") for n in n_imb)]])


def render_thesis_table7_kernel(kernel: Path, linear: Path) -> str:
    """docs/thesis_ch7.md: Table 7.1's means on Nyström features, the linear
    model on the same trials in brackets (the rows both files have)."""
    ours, base = _t7_rows(kernel), _t7_rows(linear)
    if _t7_trials(kernel) != _t7_trials(linear):
        raise ResultsError(f"{kernel} and {linear} average different numbers of trials")
    rows = [[n, *(f"{_t7_mean(ours[n][c])} ({_t7_mean(base[n][c])})" for c in _T7_COLUMNS)]
            for n in ours if n in base]
    return rows_md(["n_imb", *_T7_COLUMNS], rows)
def _pct(mean: float, std: float) -> str:
    """An accuracy cell of the Table 7.1 studies, as Table 7.1 writes them: ``"84.7 ± 8.9"``."""
    return f"{mean:.1f} ± {std:.1f}"


#: The cells of the per-digit table: (method, n_imb) of the imbalanced accuracy.
_T7_DIGIT_CELLS = (("N", 500), ("RB", 50), ("RB", 100), ("RB", 500), ("RC", 100), ("RC", 500))


def render_thesis_table7_per_digit(path: Path) -> str:
    """docs/thesis_ch7.md: Table 7.1's imbalanced accuracy with each digit as
    the new class (results/thesis_table7_per_digit.csv), the thesis's row under them, and each
    digit's RMS distance to the thesis over every imbalanced cell of the table."""
    from kernreg.protocols.class_incremental.summary import thesis_table7

    table = read_csv(path)
    missing = {"digit", "trial", "method", "n_imb", "total", "imbalanced"} - set(table.columns)
    if missing:
        raise ResultsError(f"{path}: no column {sorted(missing)}; re-run "
                           "python -m reproduce.thesis_ch7.table7_per_digit")
    paper = thesis_table7().set_index(["method", "n_imb"])
    spread = {"mean": "mean", "std": lambda v: float(np.std(v))}  # ddof 0, as kernreg's tables
    cells = table.groupby(["digit", "method", "n_imb"])["imbalanced"].agg(**spread)
    pooled = table.groupby(["method", "n_imb"])["imbalanced"].agg(**spread)
    shared = [key for key in paper.index if key in pooled.index]

    def cell(stats: pd.DataFrame, key: tuple) -> str:
        if key not in stats.index:
            return "NA"
        return _pct(stats.loc[key, "mean"], stats.loc[key, "std"])

    def distance(stats: pd.DataFrame, prefix: tuple) -> str:
        gaps = [stats.loc[(*prefix, *key), "mean"] - paper.loc[key, "imbalanced_mean"]
                for key in shared]
        return f"{float(np.sqrt(np.mean(np.square(gaps)))):.1f}"

    rows = []
    for digit in sorted(table.digit.unique()):
        n = table[table.digit == digit].trial.nunique()
        rows.append([f"{digit:g}", str(n),
                     *(cell(cells, (digit, *key)) for key in _T7_DIGIT_CELLS),
                     distance(cells, (digit,))])
    rows.append(["every digit, pooled", str(table.groupby("digit").trial.nunique().sum()),
                 *(cell(pooled, key) for key in _T7_DIGIT_CELLS), distance(pooled, ())])
    rows.append(["thesis (10 trials, a digit drawn per trial)", "10",
                 *(_pct(paper.loc[key, "imbalanced_mean"], paper.loc[key, "imbalanced_std"])
                   for key in _T7_DIGIT_CELLS), ""])
    header = ["new digit", "trials", *(f"{m} at {n}" for m, n in _T7_DIGIT_CELLS),
              f"RMS gap to the thesis ({len(shared)} cells)"]
    return rows_md(header, rows) + "\n"


def render_thesis_table7_rb_weights(path: Path) -> str:
    """docs/thesis_ch7.md: RB's imbalanced and total accuracy with the weights
    ``(n/n_y)^β`` (results/thesis_table7_rb_weights.csv), pooled over every new digit, the
    thesis's RB under them."""
    from kernreg.protocols.class_incremental.summary import thesis_table7

    table = read_csv(path)
    missing = {"digit", "trial", "n_imb", "power", "lambda", "total", "imbalanced"} \
        - set(table.columns)
    if missing:
        raise ResultsError(f"{path}: no column {sorted(missing)}; re-run "
                           "python -m reproduce.thesis_ch7.table7_per_digit --weights")
    paper = thesis_table7().set_index(["method", "n_imb"])
    n_imb = sorted(table.n_imb.unique())

    def cell(values: pd.Series) -> str:
        return _pct(values.mean(), float(np.std(values)))  # ddof 0, as kernreg's tables

    rows = []
    for power, part in table.groupby("power"):
        last = part[part.n_imb == n_imb[-1]]
        rows.append([f"{power:g}", str(len(last)),
                     *(cell(part.loc[part.n_imb == n, "imbalanced"]) for n in n_imb),
                     cell(last["total"]), f"{last['lambda'].median():.3g}"])
    thesis = [paper.loc[("RB", n)] if ("RB", n) in paper.index else None for n in n_imb]
    rows.append(["thesis's RB", "10",
                 *(_pct(t["imbalanced_mean"], t["imbalanced_std"]) if t is not None
                   else "NA" for t in thesis),
                 _pct(thesis[-1]["total_mean"], thesis[-1]["total_std"])
                 if thesis[-1] is not None else "NA", ""])
    header = ["β", "trials", *(f"imbalanced at {n}" for n in n_imb),
              f"total at {n_imb[-1]}", f"median λ at {n_imb[-1]}"]
    return rows_md(header, rows) + "\n"


# Ours beside the published cells (results/lim_table1_full.md, lim_fig1_points.md,
# lim_table1_sigma.md: `kernreg table` writes the table and its notes, † and NA reasons)


def render_with_notes(path: Path) -> str:
    """docs/lim.md: a results table as `kernreg table` wrote it, with the notes under
    it (each flagged cell's measured reason, each NA cell's)."""
    md_table(path)  # a damaged source is named
    return path.read_text(encoding="utf-8").strip() + "\n"


register_doc_table(DocTable(
    "table2_summary", ("table2.md",), render_table2_summary,
    "README: NYTRO Table 2, RMSE and λ*/t* of NKRLS, NYTRO, ES against the paper"))
register_doc_table(DocTable(
    "table2_cells", ("table2.md",), render_table2_cells,
    "docs/nytro.md: every measured NYTRO Table 2 cell against the paper"))
register_doc_table(DocTable(
    "lim_table1", ("lim_table1.md",), render_lim_table1,
    "docs/lim.md: LiM Table 1 as the authors' code ran it"))
register_doc_table(DocTable(
    "lim_table1_selected", ("lim_table1_selected.md",), render_lim_table1,
    "docs/lim.md: LiM Table 1, the paper's reading (selected (λ, m))"))
register_doc_table(DocTable(
    "thesis_table7", ("thesis_table7.md",), render_thesis_table7,
    "docs/thesis_ch7.md: thesis Table 7.1, MNIST rows, ours / thesis"))
register_doc_table(DocTable(
    "thesis_table7_threshold10", ("thesis_table7_threshold10.md",), render_thesis_table7_rc,
    "docs/thesis_ch7.md: RC with the threshold-10 selection, median α"))
register_doc_table(DocTable(
    "thesis_table7_alpha01", ("thesis_table7_alpha01.md",), render_thesis_table7_rc,
    "docs/thesis_ch7.md: RC with α on a 0.1 grid, median α"))
register_doc_table(DocTable(
    "thesis_table7_alpha001", ("thesis_table7_alpha001.md",), render_thesis_table7_rc,
    "docs/thesis_ch7.md: RC with α on a 0.01 grid, median α"))
register_doc_table(DocTable(
    "thesis_table7_per_digit", ("thesis_table7_per_digit.csv",), render_thesis_table7_per_digit,
    "docs/thesis_ch7.md: Table 7.1's imbalanced accuracy per new digit"))
register_doc_table(DocTable(
    "thesis_table7_rb_weights", ("thesis_table7_rb_weights.csv",),
    render_thesis_table7_rb_weights,
    "docs/thesis_ch7.md: RB with partial rebalancing weights (n/n_y)^β"))
register_doc_table(DocTable(
    "thesis_table7_nystrom", ("thesis_table7_nystrom.md", "thesis_table7_trials3.md"),
    render_thesis_table7_kernel,
    "docs/thesis_ch7.md: Table 7.1 on Nyström features, linear in brackets"))


# ---------------------------------------------------------------------------------------------
# Thesis Table 6.2 (results/thesis_table6.md)


def render_thesis_table6(path: Path) -> str:
    """docs/thesis_ch6.md: the rendered Table 6.2, ours beside the paper's."""
    md_table(path)  # refuses a damaged file, naming it
    return path.read_text(encoding="utf-8").rstrip("\n")


register_doc_table(DocTable(
    "thesis_table6", ("thesis_table6.md",), render_thesis_table6,
    "docs/thesis_ch6.md: thesis Table 6.2 (SGM / SIGM / LIBSVM), ours beside the paper's"))
register_doc_table(DocTable(
    "thesis_table6_full", ("thesis_table6_full.md",), render_thesis_table6,
    "docs/thesis_ch6.md: Table 6.2's full adult and ijcnn1 rows, the trials that ran"))
register_doc_table(DocTable(
    "thesis_table6_adult_libsvm", ("thesis_table6_adult_libsvm.md",), render_thesis_table6,
    "docs/thesis_ch6.md: Table 6.2's adult LIBSVM cell at the protocol's 10 trials"))


def render_thesis_table6_costs(path: Path) -> str:
    """docs/thesis_ch6.md: the parts of a full-row trial measured where the whole trial
    did not fit the session (LIBSVM per C, SIGM per epoch), wall and CPU seconds."""
    costs = read_csv(path)
    rows = []
    for _, r in costs.iterrows():
        parts = []  # a fit on all rows has no validation error; a SIGM part, nothing found
        if not pd.isna(r.get("val_error")):
            parts.append(f"validation error {100 * r['val_error']:.2f} %")
        if not pd.isna(r.get("n_support")):
            parts.append(f"{int(r['n_support'])} SVs")
        found = ", ".join(parts)
        if not pd.isna(r.get("test_error", float("nan"))):
            found += f"; test error {100 * r['test_error']:.2f} %"
        rows.append([f"{r['row']} ({int(r['n_fit'])} fit rows)", r["part"],
                     f"{r['wall_s']:.1f}", f"{r['cpu_s']:.1f}", found,
                     f"{r['host_gemm_gflops']:.0f}"])
    return rows_md(["row", "part of one trial", "wall s", "CPU s", "found",
                    "host GEMM GF/s"], rows)


register_doc_table(DocTable(
    "thesis_table6_full_costs", ("thesis_table6_full_costs.csv",), render_thesis_table6_costs,
    "docs/thesis_ch6.md: LIBSVM per C and SIGM per epoch on the full rows"))
register_doc_table(DocTable(
    "lim_table1_full", ("lim_table1_full.md",), render_with_notes,
    "docs/lim.md: LiM Table 1 / thesis Table 5.1, every column, ours beside the paper"))
register_doc_table(DocTable(
    "lim_table1_sigma", ("lim_table1_sigma.md",), render_with_notes,
    "docs/lim.md: the thesis's σ against the σ a hold-out picks (Incremental Nyström)"))
register_doc_table(DocTable(
    "lim_fig1_points", ("lim_fig1_points.md",), render_with_notes,
    "docs/lim.md: the point values of LiM Figure 1's text, ours beside the paper's"))


#: The sample ranges of thesis Figure 8.4's simulated stand-in that the docs summarise: the
#: transient, the approach, the steady state and the end of each 1000-sample part.
FIG8_4_RANGES = (("samples 1–30", 1, 30), ("samples 31–100", 31, 100),
                 ("samples 101–1000", 101, 1000), ("last 30", 971, 1000))
FIG8_4_UNITS = {"force": "N", "torque": "N·m"}


def render_thesis_fig8_4_sim(path: Path) -> str:
    """The simulated Figure 8.4 (results/thesis_fig8_4_sim.csv): per output group and sample
    range, each estimator's windowed RMSE averaged over the range, mean ± std over the parts."""
    from kernreg.results.numbers import format_number

    table = read_csv(path)
    estimators = [e for e in ("P", "NP", "SP") if e in set(table["estimator"])]
    rows = []
    for group, unit in FIG8_4_UNITS.items():
        for title, first, last in FIG8_4_RANGES:
            cells = [f"{group}, {title} ({unit})"]
            for est in estimators:
                part = table[(table["estimator"] == est) & (table["group"] == group)
                             & table["sample"].between(first, last)]
                per_part = part.groupby("part")["rmse"].mean()
                cells.append(format_number(float(per_part.mean()), float(per_part.std(ddof=0))))
            rows.append(cells)
    return rows_md(["window RMSE, mean ± std over the parts", *estimators], rows)


register_doc_table(DocTable(
    "thesis_fig8_4_sim", ("thesis_fig8_4_sim.csv",), render_thesis_fig8_4_sim,
    "docs/thesis_ch8.md: the simulated Figure 8.4, P / NP / SP by sample range"))


#: LiM §4.2's test classification error at m = 300, λ = 4.28e-6 on breast cancer (1.24%).
LIM_FIG1_M300_PAPER = 0.0124
#: Trials in the paper's mean (LiM §4.2: "over 20 trials"): the block size of trials_1000.
LIM_FIG1_M300_BLOCK = 20


def render_lim_fig1_m300(path: Path) -> str:
    """LiM Figure 1's breast-cancer cell m = 300, λ = 4.28e-6 one factor at a time
    (results/lim_fig1_m300.csv, reproduce/lim/lim_fig1_m300.py): per variant the test
    classification error, mean ± std over its trials, the mean number of test errors, the gap
    to the paper's 1.24%; under the table, the means of the disjoint 20-trial blocks of the
    1000-trial base."""
    import numpy as np

    from kernreg.results.numbers import format_number
    from reproduce.lim.lim_fig1_m300 import VARIANTS

    table = read_csv(path)
    missing = {"variant", "trial", "test_error", "test_errors", "n_test"} - set(table.columns)
    if missing:
        raise ResultsError(f"{path}: no column {sorted(missing)}; re-run "
                           f"python -m reproduce.lim.lim_fig1_m300")
    rows = []
    for name, what in VARIANTS.items():
        part = table[table["variant"] == name]
        if part.empty:
            continue
        errors = part["test_error"].to_numpy(dtype=float)
        mean = float(errors.mean())
        rows.append([name, what, str(len(errors)),
                     format_number(mean, float(errors.std(ddof=0)) if len(errors) > 1 else None),
                     f"{part['test_errors'].mean():.2f} of {int(part['n_test'].iloc[0])}",
                     f"{LIM_FIG1_M300_PAPER:g}",
                     f"{(mean - LIM_FIG1_M300_PAPER) / LIM_FIG1_M300_PAPER:+.1%}"])
    out = rows_md(["variant", "what changes (from the base)", "trials", "test error",
                   "test errors (mean)", "paper", "gap"], rows)
    many = table[table["variant"] == "trials_1000"].sort_values("trial")
    blocks = len(many) // LIM_FIG1_M300_BLOCK
    if blocks > 1:
        means = many["test_error"].to_numpy(dtype=float)[:blocks * LIM_FIG1_M300_BLOCK]
        means = means.reshape(blocks, LIM_FIG1_M300_BLOCK).mean(axis=1)
        below = int((means <= LIM_FIG1_M300_PAPER + 1e-12).sum())
        sem = float(many["test_error"].std(ddof=1)) / np.sqrt(LIM_FIG1_M300_BLOCK)
        out += (f"\n\nThe base over {len(many)} trials, in {blocks} disjoint blocks of "
                f"{LIM_FIG1_M300_BLOCK} (the paper's trial count): block means "
                f"{means.min():.5f} … {means.max():.5f} (std {means.std(ddof=0):.5f}; the "
                f"per-trial std / √{LIM_FIG1_M300_BLOCK} is {sem:.5f}); {below} of {blocks} "
                f"blocks at or below the paper's {LIM_FIG1_M300_PAPER:g}.")
    return out + "\n"


register_doc_table(DocTable(
    "lim_fig1_m300", ("lim_fig1_m300.csv",), render_lim_fig1_m300,
    "docs/lim.md: LiM Figure 1's breast-cancer m = 300 cell, one factor at a time"))


# ---------------------------------------------------------------------------------------------
# Adult's KRLS λ* and NYTRO t* against NYTRO Table 2 (results/adult_differences.md, written by
# reproduce/nytro/adult_differences.py)


def _adult_differences(path: Path, index: int) -> str:
    header, rows = md_table(path, index)  # a damaged source is named
    return rows_md(header, rows)


def render_adult_krls_lambda(path: Path) -> str:
    """docs/nytro.md: NKRLS (all of Adult) and exact KRLS (a subsample) validation RMSE at
    the grid points around the paper's λ* and ours."""
    return _adult_differences(path, 0)


def render_adult_nytro_tstar(path: Path) -> str:
    """docs/nytro.md: where the window-slope rule fires on Adult's NYTRO paths: trials
    0–4 and 0–19, θ ± 5%, the step over all or the fit rows."""
    return _adult_differences(path, 1)


register_doc_table(DocTable(
    "adult_krls_lambda", ("adult_differences.md",), render_adult_krls_lambda,
    "docs/nytro.md: Adult's validation RMSE at the two adjacent λ* (ours, the paper's)"))
register_doc_table(DocTable(
    "adult_nytro_tstar", ("adult_differences.md",), render_adult_nytro_tstar,
    "docs/nytro.md: Adult's NYTRO t* over 20 splits, θ ± 5%, the step's rows"))


def render_lim_fig1_ranges(path: Path) -> str:
    """LiM Figure 1's panels (results/lim_fig1_ranges.csv, reproduce/lim/lim_fig1_heatmaps.py
    ranges): per heat map the penalty, the measure coloured, the range of its colours (the mean
    grid's min and max) beside the ticks at the ends of the paper's colour bar, each trial's
    selection and the test measure of the selected models."""
    from kernreg.results.numbers import format_number

    table = read_csv(path)
    rows = []
    for r in table.itertuples(index=False):
        rows.append([r.panel, r.penalty, f"{r.coloured_by} ({r.source.split(':')[0]})",
                     str(r.trials), f"{r.colour_min:.4g} … {r.colour_max:.4g}",
                     f"{r.paper_low:g} … {r.paper_high:g}",
                     f"{r.m_star_min}–{r.m_star_max}" if r.m_star_min != r.m_star_max
                     else f"{r.m_star_min}",
                     f"{r.lambda_star_min:.3g}–{r.lambda_star_max:.3g}"
                     if r.lambda_star_min != r.lambda_star_max else f"{r.lambda_star_min:.3g}",
                     f"{'RMSE' if r.test_measure == 'rmse' else 'classification error'} "
                     f"{format_number(r.test_mean, r.test_std)}"])
    return rows_md(["panel", "penalty", "colour (run)", "trials", "colours span",
                    "paper's colour bar", "m*", "λ*", "test, selected models"], rows) + "\n"


register_doc_table(DocTable(
    "lim_fig1_ranges", ("lim_fig1_ranges.csv",), render_lim_fig1_ranges,
    "docs/lim.md: LiM Figure 1, each heat map's colour range beside the paper's"))


def render_lim_fig1_costs(path: Path) -> str:
    """LiM Figure 1's cost claims (results/lim_fig1_costs.csv, reproduce/lim/lim_fig1_costs.py):
    per pair of cells the model-selection time and the fit's peak-memory increment of each
    (mean ± std over trials, each fit in a process of its own) and the ratio of the means,
    beside the text's claim."""
    from kernreg.results.numbers import format_number

    table = read_csv(path)
    missing = {"dataset", "pair", "role", "label", "seconds", "peak_rss", "rss_before"} \
        - set(table.columns)
    if missing:
        raise ResultsError(f"{path}: no column {sorted(missing)}; re-run "
                           f"python -m reproduce.lim.lim_fig1_costs")
    table = table.assign(grown=(table["peak_rss"] - table["rss_before"]) / 2**20)
    rows = []
    for (dataset, claim), part in table.groupby(["dataset", "pair"], sort=False):
        cells = {role: part[part["role"] == role] for role in ("small", "large")}
        if any(c.empty for c in cells.values()):
            continue

        def stat(c: pd.DataFrame, col: str) -> str:
            v = c[col].to_numpy(dtype=float)
            return format_number(float(v.mean()), float(v.std(ddof=0)) if len(v) > 1 else None)

        def ratio(small: pd.DataFrame, large: pd.DataFrame, col: str) -> str:
            low, high = small[col].mean(), large[col].mean()
            return f"{low / high:.2f}" if high > 0 else "NA"

        small, large = cells["small"], cells["large"]
        rows.append([
            {"pumadyn32nh": "pumadyn-32nh"}.get(dataset, SHORT_TITLES.get(dataset, dataset)),
            claim,
            f"{small['label'].iloc[0]} / {large['label'].iloc[0]}", str(len(small)),
            f"{stat(small, 'seconds')} / {stat(large, 'seconds')}",
            ratio(small, large, "seconds"),
            f"{stat(small, 'grown')} / {stat(large, 'grown')}",
            ratio(small, large, "grown")])
    return rows_md(["dataset", "the text", "cells (small / large)", "trials",
                    "time (s)", "time ratio", "fit's memory (MiB above the loaded data)",
                    "memory ratio"], rows) + "\n"


register_doc_table(DocTable(
    "lim_fig1_costs", ("lim_fig1_costs.csv",), render_lim_fig1_costs,
    "docs/lim.md: LiM Figure 1's time and memory claims, the two cells side by side"))


def render_thesis_table6_ijcnn1_sigm(path: Path) -> str:
    """ijcnn1 n = 1000, SIGM C (results/thesis_table6_ijcnn1_sigm.csv,
    reproduce/thesis_ch6/ijcnn1_1000_sigm.py): the cell's set-up with one factor changed per
    row, mean ± std over the trials of the test hinge loss and error, the mean selected epoch
    and the share of test rows predicted positive."""
    from kernreg.results.numbers import format_number

    table = read_csv(path)
    rows = []
    for r in table.itertuples(index=False):
        fitted = r.factor != "constant f = −1 (no fit)"
        rows.append([r.factor, "" if pd.isna(r.setting) else str(r.setting), str(r.trials),
                     format_number(r.hinge_mean, r.hinge_std if fitted else None),
                     format_number(r.error_pct_mean, r.error_pct_std if fitted else None),
                     f"{r.epoch_mean:.1f}" if fitted else "—",
                     f"{r.positive_pct_mean:.2f}"])
    return rows_md(["factor changed", "setting", "trials", "test hinge", "test error %",
                    "selected epoch (mean)", "predicted positive %"], rows) + "\n"


register_doc_table(DocTable(
    "thesis_table6_ijcnn1_sigm", ("thesis_table6_ijcnn1_sigm.csv",),
    render_thesis_table6_ijcnn1_sigm,
    "docs/thesis_ch6.md: ijcnn1 n = 1000 SIGM C, one factor of the set-up at a time"))


#: The λ columns of the cpuAct RF grid shown in the docs (the CSV holds 14).
_RF_LAMBDAS = (1e-12, 1e-9, 1e-6, 1e-3, 1e-2, 1e-1, 1.0)


def render_thesis_table5_1_rf(path: Path) -> str:
    """Thesis Table 5.1's Incremental RF RBF on cpuAct or Forest
    (results/thesis_table5_1_rf.csv, results/thesis_table5_1_rf_forest.csv;
    reproduce/thesis_ch5/table5_1_rf.py): test RMSE (mean ± std over trials) per number of
    features D at fixed λ (raw targets), with λ selected on the hold-out (raw and centred
    targets), and the joint (D, λ) selection."""
    from kernreg.results.numbers import format_number

    table = read_csv(path)
    missing = {"targets", "selection", "D", "lam", "trials", "rmse_mean", "rmse_std"} \
        - set(table.columns)
    if missing:
        raise ResultsError(f"{path}: no column {sorted(missing)}; re-run "
                           f"python -m reproduce.thesis_ch5.table5_1_rf")

    def cell(part: pd.DataFrame) -> str:
        if part.empty:
            return "NA"
        return format_number(float(part["rmse_mean"].iloc[0]), float(part["rmse_std"].iloc[0]))

    fixed = table[(table.selection == "fixed") & (table.targets == "raw")]
    held = table[table.selection == "holdout"]
    rows = []
    for D in sorted(table.loc[table.selection == "fixed", "D"].unique()):
        row = [str(int(D)), str(int(fixed.loc[fixed.D == D, "trials"].max()))]
        for lam in _RF_LAMBDAS:
            row.append(cell(fixed[(fixed.D == D) & (abs(fixed.lam / lam - 1) < 1e-6)]))
        for targets in ("raw", "centred"):
            part = held[(held.D == D) & (held.targets == targets)]
            row.append(f"{cell(part)} (λ {part['lam'].iloc[0]:.0e})" if len(part) else "NA")
        rows.append(row)
    for targets in ("raw", "centred"):
        part = table[(table.selection == "joint") & (table.targets == targets)]
        if len(part):
            rows.append([f"(D, λ) by hold-out, {targets} targets (median D "
                         f"{int(part['D'].iloc[0])}, λ {part['lam'].iloc[0]:.0e})",
                         str(int(part['trials'].iloc[0]))] + [""] * len(_RF_LAMBDAS)
                        + ([cell(part), ""] if targets == "raw" else ["", cell(part)]))
    header = (["D", "trials"] + [f"λ = {lam:.0e}" for lam in _RF_LAMBDAS]
              + ["λ by hold-out (median λ)", "centred targets, λ by hold-out"])
    return rows_md(header, rows) + "\n"


register_doc_table(DocTable(
    "thesis_table5_1_rf", ("thesis_table5_1_rf.csv",), render_thesis_table5_1_rf,
    "docs/thesis_ch5.md: thesis Table 5.1 Incremental RF on cpuAct, test RMSE against D and λ"))
register_doc_table(DocTable(
    "thesis_table5_1_rf_forest", ("thesis_table5_1_rf_forest.csv",), render_thesis_table5_1_rf,
    "docs/thesis_ch5.md: thesis Table 5.1 Incremental RF on Forest, test RMSE against D "
    "(up to 8192) and λ"))
