"""The thesis' Table 6.2: SGM / SIGM (constant and decaying steps) and LIBSVM, test hinge loss,
test classification error and training time, ours beside the paper's.

Rows come from the runs of ``configs/thesis_table6_<row>.yaml`` (experiment
``thesis_table6_<row>``; ``<row>`` is ``breast_cancer``, ``adult_1000``, ``adult``,
``ijcnn1_1000`` or ``ijcnn1``), labels ``SGM_C``, ``SGM_D``, ``SIGM_C``, ``SIGM_D``, ``LIBSVM``.
Every hinge or error cell more than 2% from the thesis carries a label under the table
(:mod:`kernreg.results.paper_gaps`); a table config's note names the cell by ``dataset:`` (the
row key), ``label:`` and ``quantities:`` (``hinge``, ``error``).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from typing import Any

import numpy as np
import pandas as pd

from kernreg.results.paper_gaps import GAP, Gap, gap_line, note_kind

__all__ = ["ROWS", "build_thesis_table6", "paper_table6", "render_thesis_table6",
           "thesis_table6_gaps"]

#: Table rows in the paper's order: (row key, title).
ROWS = (("breast_cancer", "breastCancer n = 400"),
        ("breast_cancer_per_trial", "breastCancer n = 400, split per trial (not the thesis's)"),
        ("adult_1000", "adult n = 1000"), ("adult", "adult n = 32562"),
        ("ijcnn1_1000", "ijcnn1 n = 1000"), ("ijcnn1", "ijcnn1 n = 49990"))
#: Rows that are not the paper's own, compared with the paper's row of the same dataset.
PAPER_ROW = {"breast_cancer_per_trial": "breast_cancer"}
LABELS = ("SGM_C", "SGM_D", "SIGM_C", "SIGM_D", "LIBSVM", "SGM_C_P5", "SGM_D_P5", "SGM_C_RF")
#: Rows that are not the paper's own, compared with the paper's row of the same method.
PAPER_LABEL = {"SGM_C_P5": "SGM_C", "SGM_D_P5": "SGM_D", "SGM_C_RF": "SGM_C"}
METHOD = {"SGM_C_P5": "SGM C, ≤ 5 passes (not in the paper)",
          "SGM_D_P5": "SGM D, ≤ 5 passes (not in the paper)",
          "SGM_C_RF": "SGM C, 1000 random features (not in the paper)"}
PREFIX = "thesis_table6_"
#: Runs behind each of the thesis's cells (§6.4: "each experiment 10 times").
PAPER_TRIALS = 10
#: The measures compared: (results column, title, scale to the thesis's unit, paper column).
MEASURES = (("test_hinge", "hinge", 1.0, "hinge"), ("test_error", "error %", 100.0, "error_pct"))


def paper_table6() -> pd.DataFrame:
    """The paper's Table 6.2 (package data ``kernreg/paper/thesis_table6.csv``)."""
    with (files("kernreg") / "paper" / "thesis_table6.csv").open() as f:
        return pd.read_csv(f).set_index(["row", "label"])


def _ms(values: pd.Series, fmt: str, scale: float = 1.0) -> str:
    v = values.astype(float) * scale
    return format(v.mean(), fmt) + (f" ± {format(v.std(ddof=0), fmt)}" if len(v) > 1 else "")


def _paper(mean: float, std: float, fmt: str, suffix: str = "") -> str:
    if pd.isna(mean):
        return "—"
    return f"{format(mean, fmt)} ± {format(std, fmt)}{suffix}"


def _gap(ours: float, paper: float) -> str:
    if pd.isna(paper) or pd.isna(ours) or paper == 0:
        return ""
    gap = (ours - paper) / abs(paper)
    return f"{gap:+.0%}" + (" †" if abs(gap) > GAP else "")


def build_thesis_table6(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset row, label) that has results: trials, our hinge / error (%) / time
    (mean ± std), the paper's, and the relative gaps of the hinge loss and the error."""
    paper = paper_table6()
    out = []
    experiments = results["experiment"].astype(str)
    for key, title in ROWS:
        sub = results[experiments == PREFIX + key]
        if sub.empty:
            continue
        for label in LABELS:
            g = sub[sub["label"] == label]
            if g.empty:
                continue
            plabel, prow = PAPER_LABEL.get(label, label), PAPER_ROW.get(key, key)
            ref = (paper.loc[(prow, plabel)] if (prow, plabel) in paper.index
                   else pd.Series(np.nan, index=paper.columns))
            p = ref.get
            hinge, err = g["test_hinge"].astype(float), g["test_error"].astype(float) * 100
            out.append({
                "dataset": title, "n_fit": int(g["n_fit"].iloc[0]),
                "method": METHOD.get(label, label.replace("_", " ")),
                "trials": len(g),
                "hinge (ours)": _ms(hinge, ".3f"),
                "hinge (paper)": _paper(p("hinge"), p("hinge_std"), ".3f"),
                "hinge gap": _gap(hinge.mean(), p("hinge")),
                "error % (ours)": _ms(err, ".1f"),
                "error % (paper)": _paper(p("error_pct"), p("error_pct_std"), ".1f"),
                "error gap": _gap(err.mean(), p("error_pct")),
                "time s (ours)": _ms(g["model_selection_time"], ".2f"),
                "time s (paper)": _paper(p("time"), p("time_std"), ".1f"),
                "selected (median)": format(float(np.median(g["selected"])), ".3g"),
            })
    return pd.DataFrame(out)


def thesis_table6_gaps(results: pd.DataFrame, notes: Sequence[dict[str, Any]] = ()
                       ) -> list[str]:
    """A label line (:func:`~kernreg.results.paper_gaps.gap_line`) for every
    hinge or error cell of the thesis's own rows and methods more than 2% from its value
    (the variant rows show their gap in the table); ``notes`` are a table config's
    (``dataset``: the row key, ``label``, optional ``quantities``, ``note``, ``open``)."""
    paper = paper_table6()
    experiments = results["experiment"].astype(str)
    by_cell = {(n["dataset"], n.get("label"), q): n for n in notes
               for q in n.get("quantities", ["hinge", "error"])}
    lines = []
    for key, title in ROWS:
        sub = results[experiments == PREFIX + key]
        for label in LABELS:
            g = sub[sub["label"] == label]
            # the thesis's own cells; the variant rows (not in the thesis) show their gap only
            if g.empty or (key, label) not in paper.index:
                continue
            ref = paper.loc[(key, label)]
            for column, name, scale, pcol in MEASURES:
                ours = g[column].astype(float) * scale
                if pd.isna(ref[pcol]) or ours.isna().all():
                    continue
                note = by_cell.get((key, label, name.split()[0]))
                gap = Gap(f"{title}, {METHOD.get(label, label.replace('_', ' '))}", name,
                          float(ours.mean()), float(ours.std(ddof=0)), len(ours),
                          float(ref[pcol]), float(ref[f"{pcol}_std"]), PAPER_TRIALS,
                          note_kind(note))
                line = gap_line(gap, "the thesis", None if note is None else note["note"])
                if line is not None:
                    lines.append(line)
    return lines


def render_thesis_table6(results: pd.DataFrame, fmt: str = "md",
                         notes: Sequence[dict[str, Any]] = ()) -> str:
    """The table as Markdown, each cell more than 2% from the thesis labelled under it (or
    the table alone as CSV with ``fmt="csv"``); ``notes`` as :func:`thesis_table6_gaps`."""
    table = build_thesis_table6(results)
    if fmt == "csv":
        return table.to_csv(index=False)
    if table.empty:
        return "(no results of configs/thesis_table6_*.yaml)\n"
    header = "| " + " | ".join(table.columns) + " |"
    rule = "|" + "|".join("---" for _ in table.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in table.itertuples(index=False)]
    labels = thesis_table6_gaps(results, notes)
    below = ["", "† more than 2% from the thesis (hinge and error; times differ with the "
                 "hardware):", "", *(f"- {line}" for line in labels)] if labels else []
    return "\n".join([header, rule, *body, *below]) + "\n"
