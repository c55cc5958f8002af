"""Paper-style tables from tidy results, one registry of them, and table configs.

The tables (:data:`TABLES`, one name each, the same in table configs and on the command line):
``table1`` (NYTRO Table 1: the datasets), ``table2`` (NYTRO Table 2: per dataset three rows —
model-selection time (s), test RMSE and the selected parameter (λ* or t*) — and one column per
algorithm; cells are mean ± std over trials, the best time and the best RMSE of each dataset in
bold, as in the paper), ``lim_table1`` (LiM Table 1: incremental Nyström),
``lim_table1_full`` (every column of LiM Table 1 / thesis Table 5.1, ours beside the
published cell, :mod:`kernreg.results.published_cells`), ``lim_fig1_points`` (the point values
of LiM Figure 1's text) and ``summary`` (one row per dataset and label). The papers' numbers
are package data (:mod:`kernreg.paper`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kernreg.config import load_experiment, raise_problems, read_yaml, schema_problems
from kernreg.datasets import get_spec
from kernreg.datasets.own import is_file_dataset_name
from kernreg.errors import DataError
from kernreg.losses import Task, get_measure, get_task, measure_names, task_names
from kernreg.registry import Registry
from kernreg.results.numbers import mean_spread
from kernreg.results.paper_gaps import Gap, gap_line, note_kind, parse_published
from kernreg.results.published_cells import (
    COLUMN_TITLES,
    PaperCell,
    build_paper_cells,
    column_title,
    dataset_title,
)
from kernreg.results.thesis_table6 import render_thesis_table6
from kernreg.solvers import algorithm_names, algorithm_title


def table2_quantities(measures: Sequence[str] = ("rmse",)) -> tuple[tuple[str, str, str], ...]:
    """Table 2's rows per dataset as ``(quantity, column, row label)``: the model-selection
    time, one row per measure (``test_<measure>``; the paper's Table 2 shows RMSE), and the
    selected parameter."""
    return (("time", "model_selection_time", "time (s)"),
            *((m, f"test_{m}", get_measure(m).title) for m in measures),
            ("par", "selected", "Par."))


QUANTITIES = table2_quantities()

#: The selected parameter's symbol per ``param_name`` of the results (the stopping iteration
#: t*, the penalty λ*, the number of centers m*, LIBSVM's C*, an SGM step η*).
PARAMETER_SYMBOLS = {"iterations": "t*", "lambda": "λ*", "m": "m*", "C": "C*", "step": "η*"}


def parameter_symbol(param_name: str) -> str:
    """The selected parameter's symbol (:data:`PARAMETER_SYMBOLS`; ``name*`` for another)."""
    return PARAMETER_SYMBOLS.get(param_name, f"{param_name}*")


def parameter_label(results: pd.DataFrame, algorithms: Sequence[str]) -> str:
    """The row label of Table 2's selected parameter: the symbols of the parameters the
    columns select, in column order (``λ* / t*`` for NKRLS beside NYTRO, ``t*`` for NYTRO
    alone); the paper's "Par." when the results do not say."""
    if "param_name" not in results:
        return "Par."
    symbols: list[str] = []
    for algo in algorithms:
        for name in results.loc[results["algorithm"] == algo, "param_name"].dropna().unique():
            symbol = parameter_symbol(str(name))
            if symbol not in symbols:
                symbols.append(symbol)
    return " / ".join(symbols) or "Par."


def paper_file(name: str) -> Any:
    """One of the papers' tables shipped with kernreg (``nytro_table2.csv``,
    ``lim_table1.csv``), as an ``importlib.resources`` traversable (``.open()`` it)."""
    return files("kernreg") / "paper" / name


@dataclass
class Cell:
    """One table cell: the measured mean/std (or None) and, optionally, the paper's value."""

    mean: float | None = None
    std: float | None = None
    n: int = 0
    na_reason: str | None = None
    paper: str | None = None
    bold: bool = False
    #: Trials whose t* is the iteration cap (``stopped_at_cap``): marked ``‡``, with a note.
    capped: int = 0


def _number(value: float, quantity: str, like: float | None = None) -> str:
    """Format ``value``; ``like`` (the mean, for a std) picks the style so both read alike."""
    ref = abs(value if like is None else like)
    if quantity == "par":  # a λ below 1 keeps its digits (0.01 is not "0.0"); t* ≥ 1 reads .1f
        return f"{value:.2e}" if ref < 1 or ref >= 1e4 else f"{value:.1f}"
    if quantity == "time":
        return f"{value:.2f}" if ref < 10 else f"{value:.1f}"
    if ref >= 1e4:
        return f"{value:.3e}"
    return f"{value:.4f}" if ref < 10 else f"{value:.2f}"


def format_cell(cell: Cell, quantity: str) -> str:
    """``mean±std`` (std only with several trials), ``NA`` or empty."""
    if cell.mean is None or np.isnan(cell.mean):
        text = "NA" if cell.na_reason or (quantity == "par" and cell.n) else ""
    else:
        text = _number(cell.mean, quantity)
        if cell.n > 1 and cell.std is not None:
            text += f"±{_number(cell.std, quantity, like=cell.mean)}"
        if cell.capped:
            text += " ‡"
    return text


def paper_table2() -> dict[tuple[str, str, str], str]:
    """The NYTRO paper's Table 2 as ``{(dataset, algorithm, quantity): "mean±std"}``."""
    with paper_file("nytro_table2.csv").open() as f:
        table = pd.read_csv(f, dtype={"mean": str, "std": str}, keep_default_na=False)
    return {(r.dataset, r.algorithm, r.quantity): r.mean + (f"±{r.std}" if r.std else "")
            for r in table.itertuples()}


@dataclass
class Table2:
    """Table 2 content: ``cells[(dataset, algorithm, quantity)]`` plus row labels."""

    datasets: list[str]
    algorithms: list[str]
    row_titles: dict[str, str]
    cells: dict[tuple[str, str, str], Cell]
    notes: list[str]
    #: The rows per dataset (:func:`table2_quantities`).
    quantities: tuple[tuple[str, str, str], ...] = QUANTITIES


def _one_label_per_cell(results: pd.DataFrame) -> pd.DataFrame:
    """The rows of one label per (dataset, algorithm): the algorithm's own name if present."""
    keep = []
    for _, group in results.groupby(["dataset", "algorithm"], sort=False):
        labels = list(dict.fromkeys(group["label"]))
        label = group["algorithm"].iloc[0] if group["algorithm"].iloc[0] in labels else labels[0]
        keep.append(group[group["label"] == label])
    return pd.concat(keep) if keep else results


def cell_notes(notes: Sequence[dict[str, Any]], titles: dict[str, str] | None = None
               ) -> list[str]:
    """The lines of a table config's ``notes`` (``dataset``, ``algorithm``, ``note``); rows
    are named by ``titles`` where given, else by the dataset's short title."""
    lines = []
    for c in notes:
        title = (titles or {}).get(c["dataset"])
        if title is None:
            title = dataset_title(c["dataset"])
        what = algorithm_title(c["algorithm"]) if "algorithm" in c else c.get("label", "")
        lines.append(f"{title}, {what}: {c['note']}")
    return lines


def build_table2(results: pd.DataFrame, not_run: Sequence[dict[str, Any]] = (),
                 compare_paper: bool = False, notes: Sequence[dict[str, Any]] = (),
                 measures: Sequence[str] = ("rmse",)) -> Table2:
    """Aggregate tidy results (rows of several runs) into Table 2.

    ``measures`` are the error rows (the paper's: RMSE; a classification table may show
    ``error`` and ``hinge``); the best value of each, by the measure's own direction, is bold.

    ``not_run`` lists cells shown as NA with their reason (``dataset``, ``algorithm``,
    ``reason``, optionally the configured ``m`` for the row title of a dataset without
    results); ``notes`` adds a line for a cell (``dataset``, ``algorithm``, ``note``). If an
    algorithm appears under several labels for one dataset, the label equal to the algorithm
    name is used, else the first label met (e.g. ``nytro_49`` alone).
    """
    results = _one_label_per_cell(results)
    # entries naming only a column label belong to the label tables (lim_table1_full)
    not_run = [c for c in not_run if "algorithm" in c]
    notes = [c for c in notes if "algorithm" in c]
    datasets = list(dict.fromkeys([*results["dataset"], *(c["dataset"] for c in not_run)]))
    present = set(results["algorithm"]) | {c["algorithm"] for c in not_run}
    # registered ones in table order, then any other (a plugin's, not imported here)
    algorithms = [a for a in algorithm_names() if a in present]
    algorithms += sorted(present - set(algorithms))
    paper = paper_table2() if compare_paper else {}
    cells: dict[tuple[str, str, str], Cell] = {}
    lines: list[str] = []
    reasons: dict[tuple[str, str], str] = {}
    for c in not_run:  # the first reason given for a cell wins
        reasons.setdefault((c["dataset"], c["algorithm"]), c["reason"])
    row_titles = {}
    quantities = tuple((q, column, parameter_label(results, algorithms) if q == "par" else label)
                       for q, column, label in table2_quantities(measures))
    for ds in datasets:
        sub = results[results["dataset"] == ds]
        ms = sorted({int(m) for m in sub.get("m", pd.Series(dtype=float)).dropna()}
                    or {int(c["m"]) for c in not_run if c["dataset"] == ds and c.get("m")})
        title = dataset_title(ds)
        row_titles[ds] = title + (f" m={'/'.join(map(str, ms))}" if ms else "")
        for algo in algorithms:
            rows = sub[sub["algorithm"] == algo]
            for q, column, _ in quantities:
                cell = Cell(paper=paper.get((ds, algo, q)))
                if len(rows) and column in rows:  # earlier results lack the newer measures
                    values = rows[column].astype(float)
                    cell.mean, cell.std = float(values.mean()), float(values.std(ddof=0))
                    cell.n = len(rows)
                    if q == "par" and "stopped_at_cap" in rows:
                        cell.capped = int(rows["stopped_at_cap"].fillna(False).astype(bool)
                                          .sum())
                        if cell.capped:
                            lines.append(f"‡ {row_titles[ds]}, {algorithm_title(algo)}: t* is "
                                         f"max_iter in {cell.capped} of {cell.n} trials (the "
                                         f"stopping rule had not fired; the validation error "
                                         f"was still falling at the cap)")
                elif (ds, algo) in reasons:
                    cell.na_reason = reasons[(ds, algo)]
                cells[(ds, algo, q)] = cell
            if (ds, algo) in reasons and not len(rows):
                lines.append(f"{row_titles[ds]}, {algorithm_title(algo)}: NA — "
                             f"{reasons[(ds, algo)]}")
        for q in ("time", *measures):
            measured = [cells[(ds, a, q)] for a in algorithms
                        if cells[(ds, a, q)].mean is not None
                        and not np.isnan(cells[(ds, a, q)].mean)]
            if len(measured) > 1:
                lower = q == "time" or get_measure(q).lower_is_better
                (min if lower else max)(measured, key=lambda c: c.mean).bold = True
    counts = [c.n for (_, _, q), c in cells.items() if q == "time" and c.n]
    if counts:  # cells averaged over another number of trials than most get a note
        usual = max(set(counts), key=counts.count)
        for ds in datasets:
            for algo in algorithms:
                n = cells[(ds, algo, "time")].n
                if n and n != usual:
                    lines.append(f"{row_titles[ds]}, {algorithm_title(algo)}: "
                                 f"{n} trial{'s' if n > 1 else ''} (most cells: {usual})")
    if "gemm_gflops" in results and results["gemm_gflops"].notna().any():
        lines.append(gemm_note(results))
    if compare_paper:
        noted = {(c["dataset"], c["algorithm"], q): note_kind(c)
                 for c in notes
                 for q in c.get("quantities", [q for q, _, _ in quantities if q != "time"])}
        lines += paper_gap_lines(cells, datasets, algorithms, quantities, row_titles, noted)
    return Table2(datasets, algorithms, row_titles, cells,
                  lines + cell_notes(notes, row_titles), quantities)


#: Trials behind each cell of NYTRO's Table 2 (its protocol: 5 repetitions).
PAPER_TABLE2_TRIALS = 5


def paper_gap_lines(cells: dict[tuple[str, str, str], Cell], datasets: Sequence[str],
                    algorithms: Sequence[str], quantities: Sequence[tuple[str, str, str]],
                    row_titles: dict[str, str], noted: dict[tuple[str, str, str], str]
                    ) -> list[str]:
    """One line for every measured cell more than 2 % from the paper (or slower): within
    noise, measured reason or open after variants (a note of the table config on that row:
    ``noted`` maps (dataset, algorithm, quantity) to "reason" or "variants"), else open
    (:mod:`kernreg.results.paper_gaps`)."""
    out = []
    for ds in datasets:
        for algo in algorithms:
            for q, _, label in quantities:
                cell = cells[(ds, algo, q)]
                published = parse_published(cell.paper)
                if published is None or cell.mean is None or np.isnan(cell.mean):
                    continue
                gap = Gap(f"{row_titles[ds]}, {algorithm_title(algo)}",
                          "time" if q == "time" else label, cell.mean, cell.std or 0.0,
                          cell.n, published[0], published[1], PAPER_TABLE2_TRIALS,
                          noted.get((ds, algo, q)))
                line = gap_line(gap)
                if line is not None:
                    out.append(line)
    return out


def gemm_note(results: pd.DataFrame) -> str:
    """The host's measured GEMM rate over the runs of a table (the yardstick of its times);
    per dataset too when the rates differ by more than 20% (runs made at different times or on
    different hosts, side by side)."""
    timed = results.dropna(subset=["gemm_gflops"])
    g = timed["gemm_gflops"].astype(float)
    text = (f"Host GEMM rate while timing (float64 1024² product, the runs' BLAS threads): "
            f"median {g.median():.0f} GFLOP/s, range {g.min():.0f}–{g.max():.0f}")
    by_dataset = timed.groupby("dataset", sort=False)["gemm_gflops"]
    if by_dataset.ngroups > 1 and g.max() > 1.2 * g.min():
        spans = [f"{dataset_title(str(ds))} "
                 + (f"{v.min():.0f}" if round(v.min()) == round(v.max())
                    else f"{v.min():.0f}–{v.max():.0f}")
                 for ds, v in by_dataset]
        text += "; by dataset: " + ", ".join(spans)
    return text


def _rows(table: Table2, bold: tuple[str, str], with_paper: bool) -> list[list[str]]:
    rows = []
    for ds in table.datasets:
        for i, (q, _, label) in enumerate(table.quantities):
            row = [table.row_titles[ds] if i == 0 else "", label]
            for algo in table.algorithms:
                cell = table.cells[(ds, algo, q)]
                text = format_cell(cell, q)
                if cell.bold and text:
                    text = f"{bold[0]}{text}{bold[1]}"
                if with_paper and cell.paper:
                    text += f" (paper {cell.paper})" if text else f"(paper {cell.paper})"
                row.append(text)
            rows.append(row)
    return rows


def md_text(text: object) -> str:
    """``text`` safe in Markdown that may be rendered as HTML: ``&``, ``<``, ``>`` as entities
    (a label such as ``<img onerror=…>`` stays text), line breaks as spaces."""
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", " ").replace("\n", " "))


def md_row(cells: Sequence[object]) -> str:
    """One Markdown table row; a ``|`` inside a cell is escaped so it cannot add a column."""
    return "| " + " | ".join(md_text(c).replace("|", "\\|") for c in cells) + " |"


def _latex_parameter(label: str) -> str:
    """A row label in LaTeX: the parameter symbols (``λ* / t*``) in math mode."""
    if not label.endswith("*"):
        return label
    letters = {"λ": r"\lambda", "η": r"\eta"}
    return " / ".join(f"${letters.get(s[:-1], s[:-1])}^*$" for s in label.split(" / "))


def render_table2(table: Table2, fmt: str = "md", with_paper: bool = False) -> str:
    """Table 2 as Markdown, LaTeX (booktabs) or CSV text."""
    header = ["dataset", "", *(algorithm_title(a) for a in table.algorithms)]
    if fmt == "csv":
        rows = _rows(table, ("", ""), with_paper)
        return pd.DataFrame(rows, columns=header).to_csv(index=False)
    if fmt == "latex":
        rows = _rows(table, (r"\textbf{", "}"), with_paper)
        lines = [r"\begin{tabular}{ll" + "c" * len(table.algorithms) + "}", r"\toprule",
                 " & ".join(header) + r" \\", r"\midrule"]
        rows = [[row[0], _latex_parameter(row[1]), *row[2:]] for row in rows]
        lines += [" & ".join(r.replace("±", r"$\pm$") for r in row) + r" \\" for row in rows]
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines) + "\n"
    rows = _rows(table, ("**", "**"), with_paper)
    lines = [md_row(header), "|" + "---|" * len(header)]
    lines += [md_row(row) for row in rows]
    if table.notes:
        lines += ["", *[f"- {md_text(n)}" for n in table.notes]]
    return "\n".join(lines) + "\n"


def render_table1(datasets: Sequence[str], ms: dict[str, list[int]], fmt: str = "md",
                  files: dict[str, dict[str, Any]] | None = None) -> str:
    """NYTRO Table 1: the datasets' sizes, dimension, task, σ and the m used. A registered
    dataset's row comes from the registry; a data file's from ``files`` (its runs'
    :func:`file_facts`), else it shows its name alone."""
    rows = []
    for name in datasets:
        facts = dataset_facts(name, files or {})
        rows.append([facts.get("title", dataset_title(name)),
                     *(str(facts.get(key, "—")) for key in ("n_train", "n_test", "d", "task")),
                     "—" if facts.get("sigma") is None else f"{facts['sigma']:g}",
                     "/".join(map(str, ms.get(name, []))) or "—"])
    header = ["dataset", "n_train", "n_test", "d", "task", "σ", "m"]
    return render_frame(pd.DataFrame(rows, columns=header), fmt)


def dataset_facts(name: str, files: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What Table 1 shows of a dataset: the registry's entry, or a data file's facts as its
    run recorded them (``files``); empty for a data file with no run."""
    if is_file_dataset_name(name):
        return files.get(name, {})
    spec = get_spec(name)
    return {"title": spec.title, "n_train": spec.n_train, "n_test": spec.n_test, "d": spec.d,
            "task": spec.task, "sigma": spec.sigma}


def file_facts(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{dataset name: facts}`` of a run on a data file, from its manifest's
    ``dataset_file`` (what Table 1 shows); empty for any other run."""
    about = manifest.get("dataset_file")
    if not isinstance(about, dict) or not isinstance(manifest.get("dataset"), str):
        return {}
    sigma = (about.get("sigma") or {}).get("value")
    return {manifest["dataset"]: {
        "title": dataset_title(manifest["dataset"]), "n_train": about.get("training_rows"),
        "n_test": about.get("test_rows"), "d": about.get("columns"), "task": about.get("task"),
        "sigma": sigma if isinstance(sigma, int | float) else None}}


def summary_measures(table: pd.DataFrame) -> list[str]:
    """The measures a summary shows by default: those of the tasks in ``table``
    (:func:`table_tasks`), then those a config asked for beside them
    (:func:`asked_measures`)."""
    names = ["rmse"]  # every record keeps one
    for task in table_tasks(table):
        names += [m for m in task.table_measures if m not in names]
    return names + [m for m in asked_measures(table) if m not in names]


def table_tasks(table: pd.DataFrame) -> list[Task]:
    """The registered tasks of ``table``'s rows (its ``task`` column; results stored before
    it: binary where a classification error was kept, else regression; a plugin's task not
    registered here is left out)."""
    inferred = pd.Series("regression", index=table.index)
    if "test_error" in table:
        inferred[table["test_error"].notna()] = "binary"
    names = table["task"].fillna(inferred) if "task" in table else inferred
    tasks = []
    for name in dict.fromkeys(names):
        try:
            tasks.append(get_task(str(name)))
        except ValueError:  # results of a task not registered here (a plugin's)
            continue
    return tasks


def asked_measures(table: pd.DataFrame) -> list[str]:
    """The measures recorded in ``table`` that no registered task records of its own (the
    top-k accuracies): those its configs asked for (``measures:``). A task's measure asked
    on another task (the MSE of a binary run) stays in the results only: records of earlier
    versions may hold it unasked."""
    own = {m for name in task_names() for m in get_task(name).measures}
    recorded = [column[len("test_"):] for column in table.columns
                if column.startswith("test_") and table[column].notna().any()]
    return [m for m in recorded if m in measure_names() and m not in own]


def shown_measures(table: pd.DataFrame, layout: str) -> list[str]:
    """The measures a table of ``layout`` (``"table2"`` or ``"summary"``) shows when none are
    named: a multiclass run's accuracy (its ±1-coded RMSE says little of the classes; the
    report has each class's), Table 2's RMSE, a summary's :func:`summary_measures`; then the
    measures its configs asked for."""
    asked = asked_measures(table)
    if "task" in table and set(table["task"]) == {"multiclass"}:
        return ["accuracy", *asked]
    if layout == "table2":
        return ["rmse", *asked]
    return summary_measures(table)


def measure_columns(g: pd.DataFrame, name: str) -> list[tuple[str, str]]:
    """``(column, title)`` of measure ``name`` present in ``g`` with a value (every class of a
    per-class measure)."""
    measure = get_measure(name)
    if measure.per_class:
        prefix = f"test_{measure.per_class}_"
        return [(c, f"test {measure.title} {c.removeprefix(prefix)}") for c in g.columns
                if c.startswith(prefix) and g[c].notna().any()]
    column = f"test_{name}"
    # RMSE is always shown (every record keeps one), the others where the task recorded them
    present = column in g and (name == "rmse" or g[column].notna().any())
    return [(column, f"test {measure.title}")] if present else []


def summary_table(table: pd.DataFrame, measures: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per (dataset, label): algorithm, m, trials, time, the test measures (by default
    those of the results' tasks, :func:`summary_measures`) and the selected parameters (mean ±
    std over trials)."""
    measures = summary_measures(table) if measures is None else measures
    sigma_grid = "sigma_selected" in table and table["sigma_selected"].notna().any()
    rows = []
    for (dataset, label), g in table.groupby(["dataset", "label"], sort=False):
        algo = g["algorithm"].iloc[0]
        row = {"dataset": dataset, "label": label, "algorithm": algorithm_title(algo),
               "m": "" if pd.isna(g["m"].iloc[0]) else int(g["m"].iloc[0]),
               "trials": len(g),
               "time (s)": mean_spread(g["model_selection_time"])}
        for name in measures:
            for column, title in measure_columns(g, name):
                row[title] = mean_spread(g[column])
        param = g["param_name"].iloc[0]
        if isinstance(param, str) and param:
            row["λ* / t* (median)"] = format(float(np.median(g["selected"])), ".3g")
        if "m_selected" in g and g["m_selected"].notna().any():
            row["m* (median)"] = int(np.median(g["m_selected"]))
        if sigma_grid:  # σ selected on some rows: beside them, the σ the others fixed
            selected = g["sigma_selected"].dropna()
            row["σ* (trials)"] = _value_counts(selected) if len(selected) \
                else f"{float(pd.to_numeric(g['sigma']).median()):.4g} (fixed)"
        rows.append(row)
    return pd.DataFrame(rows, dtype=object).fillna("")


def _value_counts(values: pd.Series) -> str:
    """The values a selection picked and how many trials picked each, most picked first
    (``6 ×3, 4 ×2, 50``): a grid parameter's median can fall between grid points."""
    counts = values.astype(float).value_counts(sort=False)
    order = sorted(counts.items(), key=lambda vc: (-vc[1], vc[0]))
    return ", ".join(f"{v:.4g}" + (f" ×{c}" if c > 1 else "") for v, c in order)


def build_lim_table1(results: pd.DataFrame, not_run: Sequence[dict[str, Any]] = ()
                     ) -> pd.DataFrame:
    """LiM Table 1: per dataset, incremental Nyström's selected m* and λ*, model-selection
    time and test RMSE (mean ± std over trials) beside the paper's RMSE; datasets in
    ``not_run`` get NA and the reason."""
    with paper_file("lim_table1.csv").open() as f:
        paper = pd.read_csv(f, keep_default_na=False).set_index("dataset")
    rows = []
    inc = results[results["algorithm"] == "inkrls"]
    for ds, g in inc.groupby("dataset", sort=False):
        spec = get_spec(str(ds))
        rows.append({"dataset": spec.title.split(" (")[0], "n_fit": int(g["n_fit"].iloc[0]),
                     "d": spec.d, "m": int(g["m"].max()), "trials": len(g),
                     "m* (median)": int(np.median(g["m_selected"])),
                     "λ* (median)": f"{np.median(g['selected']):.1e}",
                     "time (s)": mean_spread(g["model_selection_time"]),
                     "test RMSE": mean_spread(g["test_rmse"]),
                     "paper RMSE": _paper_rmse(paper, str(ds))})
    for c in not_run:
        if c.get("algorithm") == "inkrls" and c["dataset"] not in set(inc["dataset"]):
            try:
                title, d = get_spec(c["dataset"]).title.split(" (")[0], get_spec(c["dataset"]).d
            except DataError:  # a dataset kernreg does not provide (yet)
                title, d = c["dataset"], ""
            rows.append({"dataset": title, "n_fit": "", "d": d,
                         "m": c.get("m") or "", "trials": 0, "m* (median)": "",
                         "λ* (median)": "", "time (s)": "NA", "test RMSE": f"NA — {c['reason']}",
                         "paper RMSE": _paper_rmse(paper, c["dataset"])})
    return pd.DataFrame(rows)


#: Trials behind each incremental Nyström cell of LiM Table 1 ("10 trials").
PAPER_LIM_TABLE1_TRIALS = 10


def lim_table1_gaps(results: pd.DataFrame, notes: Sequence[dict[str, Any]] = ()) -> list[str]:
    """A label line for every incremental Nyström RMSE more than 2% from LiM Table 1's
    (:mod:`kernreg.results.paper_gaps`); a note (``dataset``, ``algorithm: inkrls``) explains
    its cell."""
    with paper_file("lim_table1.csv").open() as f:
        paper = pd.read_csv(f, keep_default_na=False).set_index("dataset")
    by_dataset = {c["dataset"]: c for c in notes if c.get("algorithm") == "inkrls"}
    lines = []
    inc = results[results["algorithm"] == "inkrls"] if len(results) else results
    for ds, g in inc.groupby("dataset", sort=False):
        if ds not in paper.index:
            continue
        values = g["test_rmse"].astype(float)
        note = by_dataset.get(str(ds))
        gap = Gap(f"{dataset_title(str(ds))}, incremental Nyström", "RMSE",
                  float(values.mean()), float(values.std(ddof=0)), len(values),
                  float(paper.loc[ds, "rmse_mean"]), float(paper.loc[ds, "rmse_std"]),
                  PAPER_LIM_TABLE1_TRIALS, note_kind(note))
        line = gap_line(gap)
        if line is not None:
            lines.append(line)
    return lines


def _paper_rmse(paper: pd.DataFrame, dataset: str) -> str:
    if dataset not in paper.index:
        return ""
    row = paper.loc[dataset]
    return f"{row['rmse_mean']}±{row['rmse_std']}" + (f" ({row['note']})" if row["note"] else "")


def render_frame(frame: pd.DataFrame, fmt: str = "md", notes: Sequence[str] = ()) -> str:
    """A plain table as Markdown, LaTeX (booktabs) or CSV text; Markdown lists ``notes`` under
    the table."""
    if fmt == "csv":
        return frame.to_csv(index=False)
    cells = [[str(v) for v in row] for row in frame.itertuples(index=False)]
    if fmt == "latex":
        body = [" & ".join(r).replace("±", r"$\pm$") + r" \\" for r in cells]
        return "\n".join([r"\begin{tabular}{" + "l" * len(frame.columns) + "}", r"\toprule",
                          " & ".join(frame.columns) + r" \\", r"\midrule", *body,
                          r"\bottomrule", r"\end{tabular}"]) + "\n"
    lines = [md_row(frame.columns), "|" + "---|" * len(frame.columns),
             *[md_row(r) for r in cells]]
    if notes:
        lines += ["", *[f"- {md_text(n)}" for n in notes]]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- the registry
@dataclass
class Collected:
    """What a table is made of: tidy results, NA cells with reasons, notes on cells, and the
    runs that had no results (warnings)."""

    results: pd.DataFrame
    not_run: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    #: The measures a table config asks for (``measures:``); empty: the table's own.
    measures: list[str] = field(default_factory=list)
    #: What the runs on data files recorded of them, by dataset name (:func:`file_facts`).
    files: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class TableKind:
    """One kind of table: its name (in table configs and ``kernreg table --table``), what it
    shows, and how it is rendered from collected results (``fmt``: md, latex or csv)."""

    name: str
    description: str
    render: Callable[[Collected, str, bool], str]


def _table1(c: Collected, fmt: str, compare_paper: bool) -> str:
    # the datasets and the m of every run named: those with results and those not run yet
    ms: dict[str, set[int]] = {}
    if not c.results.empty:
        for ds, sub in c.results.groupby("dataset", sort=False):
            ms.setdefault(str(ds), set()).update(int(m) for m in sub["m"].dropna())
    for entry in c.not_run:
        m = entry.get("m")
        ms.setdefault(str(entry["dataset"]), set()).update(
            [] if m is None or isinstance(m, list | dict) else [int(m)])
    # by size, as NYTRO's Table 1 lists them (Insurance, Adult, Ijcnn1, YearPrediction, Covertype)
    order = sorted(ms, key=lambda ds: dataset_facts(ds, c.files).get("n_train") or 0)
    return render_table1(order, {ds: sorted(v) for ds, v in ms.items()}, fmt, c.files)


def _table2(c: Collected, fmt: str, compare_paper: bool) -> str:
    return render_table2(build_table2(c.results, c.not_run, compare_paper, c.notes,
                                      c.measures or shown_measures(c.results, "table2")),
                          fmt, compare_paper)


def _lim_table1(c: Collected, fmt: str, compare_paper: bool) -> str:
    return render_frame(build_lim_table1(c.results, c.not_run), fmt,
                        notes=[*lim_table1_gaps(c.results, c.notes), *cell_notes(c.notes)])


def _thesis_table6(c: Collected, fmt: str, compare_paper: bool) -> str:
    return render_thesis_table6(c.results, "csv" if fmt == "csv" else "md", c.notes)
def _gap_text(cell: PaperCell) -> str:
    gap = cell.gap
    return "" if gap is None else f"{100 * gap:+.1f}%"


def _paper_cell_notes(cells: Sequence[PaperCell]) -> list[str]:
    """A line per flagged cell (its label: :mod:`kernreg.results.paper_gaps`, then the table
    config's note) and per group of NA cells sharing a reason; the trial counts when cells
    differ in them."""
    lines = []
    for c in cells:
        gap = c.gap_record()
        line = None if gap is None else gap_line(gap, note=c.note)
        if line is not None:
            lines.append(line)
        elif c.note:
            lines.append(f"{dataset_title(c.dataset)}, {column_title(c.column)}: {c.note}")
    groups: dict[tuple[str, str], list[str]] = {}
    for c in cells:
        if c.n == 0:
            groups.setdefault((c.dataset, str(c.na_reason)), []).append(column_title(c.column))
    for (ds, reason), columns in groups.items():
        lines.append(f"{dataset_title(ds)}, {', '.join(columns)}: NA here — {reason}")
    counts = sorted({c.n for c in cells if c.n})
    if len(counts) > 1:
        per = ", ".join(f"{dataset_title(c.dataset)} {column_title(c.column)} {c.n}"
                        for c in cells if c.n and c.n != max(counts))
        lines.append(f"Trials per cell: {max(counts)}; except {per}")
    elif counts:
        lines.append(f"Trials per cell: {counts[0]} (mean ± std over trials)")
    return lines


def render_paper_table(cells: Sequence[PaperCell], fmt: str = "md") -> str:
    """Published cells as a wide table: one row per dataset (with our σ), one column per
    label; each cell ``ours (paper P)``, ``†`` when it needs a label (more than 2% away),
    the labels and notes below."""
    datasets = list(dict.fromkeys(c.dataset for c in cells))
    order = list(COLUMN_TITLES)  # the thesis's column order, then any other label
    columns = sorted(dict.fromkeys(c.column for c in cells),
                     key=lambda col: order.index(col) if col in order else len(order))
    by_key = {(c.dataset, c.column): c for c in cells}
    rows = []
    for ds in datasets:
        sigmas = {c.sigma for c in cells if c.dataset == ds and c.sigma is not None}
        row = [dataset_title(ds), "/".join(f"{s:g}" for s in sorted(sigmas)) or "—"]
        for col in columns:
            c = by_key.get((ds, col))
            if c is None:
                row.append("")
                continue
            text = c.ours_text() if c.n else "NA"
            row.append(f"{text}{' †' if c.flagged else ''} (paper {c.paper_text})")
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["dataset", "σ (ours)", *map(column_title, columns)])
    text = render_frame(frame, fmt, notes=_paper_cell_notes(cells))
    if fmt != "md" or not any(c.seconds is not None for c in cells):
        return text
    return text + "\n" + _paper_cell_times(cells, datasets, columns)


def _span(values: Sequence[float]) -> str:
    """``low–high`` of whole numbers, one number where they round alike, ``—`` for none."""
    if not values:
        return "—"
    low, high = f"{min(values):.0f}", f"{max(values):.0f}"
    return low if low == high else f"{low}–{high}"


def _paper_cell_times(cells: Sequence[PaperCell], datasets: Sequence[str],
                      columns: Sequence[str]) -> str:
    """The measured cells' median seconds per trial (model selection, refit included), with
    the host GEMM rates measured beside each dataset's trials: the yardstick of those times."""
    by_key = {(c.dataset, c.column): c for c in cells}
    rows = []
    for ds in datasets:
        timed = [c for c in cells if c.dataset == ds and c.seconds is not None]
        if not timed:
            continue
        rates = [g for c in timed if c.gflops for g in c.gflops]
        row = [dataset_title(ds), _span(rates)]
        for col in columns:
            c = by_key.get((ds, col))
            row.append("" if c is None or c.seconds is None else f"{c.seconds:.3g}")
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["dataset", "host GEMM GF/s",
                                        *map(column_title, columns)])
    return ("Seconds per trial (median over the trials above: model selection on the hold-out "
            "and the refit, data loading excluded; BLAS threads as each config sets them):\n\n"
            + render_frame(frame, "md"))


def render_paper_points(cells: Sequence[PaperCell], fmt: str = "md") -> str:
    """Published cells as a long table: one row per cell (what it is from the papers' note,
    ours, the paper's, the gap), notes below."""
    rows = []
    for c in cells:
        measure = get_measure(c.measure)
        unit = " (%)" if measure.paper_scale == 100 else ""
        rows.append([dataset_title(c.dataset), c.paper_note or column_title(c.column),
                     f"test {measure.title}{unit}", str(c.n),
                     (c.ours_text() if c.n else "NA") + (" †" if c.flagged else ""),
                     c.paper_text, _gap_text(c)])
    frame = pd.DataFrame(rows, columns=["dataset", "cell", "measure", "trials", "ours",
                                        "paper", "gap"])
    notes = [n for n in _paper_cell_notes(cells) if not n.startswith("Trials per cell")]
    return render_frame(frame, fmt, notes=notes)


def _lim_table1_full(c: Collected, fmt: str, compare_paper: bool) -> str:
    return render_paper_table(build_paper_cells(c.results, "lim_table1_full.csv", c.not_run,
                                                c.notes), fmt)


def _lim_fig1_points(c: Collected, fmt: str, compare_paper: bool) -> str:
    return render_paper_points(build_paper_cells(c.results, "lim_fig1_points.csv", c.not_run,
                                                 c.notes), fmt)


def _summary(c: Collected, fmt: str, compare_paper: bool) -> str:
    return render_frame(summary_table(c.results, c.measures or shown_measures(c.results,
                                                                              "summary")),
                        fmt)


_TABLES: Registry[TableKind] = Registry("table", lambda kind: kind.name, KeyError)
for _kind in (
    TableKind("table2", "NYTRO Table 2: time / RMSE / the selected λ* or t* per dataset and "
                        "algorithm", _table2),
    TableKind("table1", "NYTRO Table 1: the datasets (sizes, d, task, σ, m)", _table1),
    TableKind("lim_table1", "LiM Table 1: incremental Nyström, the paper's RMSE beside ours",
              _lim_table1),
    TableKind("thesis_table6", "thesis Table 6.2: SGM / SIGM / LIBSVM hinge, error, time beside "
              "the paper's", _thesis_table6),
    TableKind("lim_table1_full", "LiM Table 1 / thesis Table 5.1, every column: ours beside "
              "the published cell, † more than 2% away (labelled below), NA with reasons",
              _lim_table1_full),
    TableKind("lim_fig1_points", "the point values of LiM Figure 1's text: ours beside the "
              "paper's, one row per cell", _lim_fig1_points),
    TableKind("summary", "one row per dataset and label: any runs side by side", _summary),
):
    _TABLES.register(_kind)

#: The tables by name, in the order ``kernreg table --help`` lists them (a live, read-only
#: view of the registry).
TABLES: Mapping[str, TableKind] = _TABLES.as_mapping()


def render_table(name: str, collected: Collected, fmt: str = "md",
                 compare_paper: bool = False) -> str:
    """Table ``name`` (one of :data:`TABLES`) of the collected results as text."""
    return _TABLES.get(name).render(collected, fmt, compare_paper)


# ----------------------------------------------------------------------------- table configs
def table_schema() -> dict[str, Any]:
    """The JSON schema of a table config (``table``, ``runs``, ``labels``, ``not_run``,
    ``notes``)."""
    cell = {"dataset": {"type": "string"}, "algorithm": {"enum": algorithm_names()},
            # a column of a table whose columns are labels (lim_table1_full, lim_fig1_points)
            "label": {"type": "string", "minLength": 1}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "required": ["table", "runs"],
        "properties": {
            "table": {"description": "which table `kernreg run` prints", "enum": list(TABLES)},
            "title": {"type": "string"},
            "description": {"type": "string"},
            "runs": {"type": "array", "minItems": 1,
                     "items": {"type": "string", "minLength": 1}},
            "labels": {
                "description": "only these algorithm labels of the runs (default: all)",
                "type": "array", "minItems": 1, "uniqueItems": True,
                "items": {"type": "string", "minLength": 1},
            },
            "measures": {
                "description": "the test measures shown (table2: its error rows, default "
                               "[rmse] as the paper; summary: default the tasks' own)",
                "type": "array", "minItems": 1, "uniqueItems": True,
                "items": {"enum": measure_names()},
            },
            "notes": {
                "description": "one line under the table for a cell, e.g. why it differs from "
                               "the paper (a measured reason)",
                "type": "array",
                "items": {"type": "object", "additionalProperties": False,
                          "required": ["dataset", "note"],
                          "properties": {
                              **cell, "note": {"type": "string", "minLength": 1},
                              "quantities": {
                                  "description": "the rows the note explains (default: the "
                                                 "error and parameter rows; a time is "
                                                 "explained only where named)",
                                  "type": "array", "minItems": 1, "uniqueItems": True,
                                  "items": {"enum": ["time", "rmse", "error", "hinge",
                                                     "par"]}},
                              "open": {
                                  "description": "the note records variants tried without "
                                                 "finding the cause (the cell is labelled "
                                                 "open after variants): true, or what they "
                                                 "are and where they are kept, e.g. \"25 "
                                                 "variants (results/x.csv)\"",
                                  "oneOf": [{"const": True},
                                            {"type": "string", "minLength": 1}]}}},
            },
            "not_run": {
                "description": "cells shown as NA, with the reason",
                "type": "array",
                "items": {"type": "object", "additionalProperties": False,
                          "required": ["dataset", "reason"],
                          "properties": {**cell, "reason": {"type": "string", "minLength": 1},
                                         "m": {"type": "integer", "minimum": 1}}},
            },
        },
    }


def load_table_config(path: str | Path) -> dict[str, Any]:
    """Read and validate a table config (``table:``, ``runs:``, optional ``labels:``,
    ``not_run:``, ``notes:``); every label ``labels:`` names must be an algorithm label of
    one of the runs (their configs are read for it).

    Raises
    ------
    ConfigError
        Naming the key and, for ``labels:``, the unknown label and the runs' labels.
    """
    path = Path(path)
    data = read_yaml(path)
    raise_problems(path, schema_problems(data, table_schema(), []))
    if "labels" in data:
        known = {a.label for run in data["runs"]
                 for a in load_experiment(path.parent / run).algorithms}
        raise_problems(path, [f"labels[{i}]: {label!r} is no algorithm label of the runs "
                              f"({', '.join(sorted(known))})"
                              for i, label in enumerate(data["labels"]) if label not in known])
    return data


def is_table_config(path: str | Path) -> bool:
    """Whether a YAML file is a table config (has a top-level ``table`` key)."""
    return "table" in read_yaml(path)
