"""Our cells beside the papers' published cells, one cell per (dataset, column label).

A papers' file (package data, :mod:`kernreg.paper`) lists published cells as rows
``dataset, column`` plus either ``rmse`` (LiM Table 1) or ``measure, value`` (the point values
of LiM Figure 1's text). A cell of ours is every trial of the results with that dataset and
that algorithm label; its mean is compared with the published value in the paper's unit
(:meth:`~kernreg.losses.Measure.relative_gap`), and a cell more than
:data:`~kernreg.results.paper_gaps.GAP` away is flagged and labelled as every published table's
cells are (:mod:`kernreg.results.paper_gaps`: within noise, measured reason from the table
config's note for that cell, open after variants, open). Cells the paper publishes but we did
not measure show the config's ``not_run`` reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

import numpy as np
import pandas as pd

from kernreg.datasets import get_spec
from kernreg.datasets.own import FILE_PREFIX, is_file_dataset_name
from kernreg.errors import DataError
from kernreg.losses import get_measure
from kernreg.results.paper_gaps import Gap, gap_label, note_kind

__all__ = ["COLUMN_TITLES", "PaperCell", "build_paper_cells", "read_paper_cells"]

#: Titles of the column labels of LiM Table 1 / thesis Table 5.1 (thesis order first).
COLUMN_TITLES = {
    "incremental_rf_rbf": "Incremental RF RBF",
    "incremental_nystrom_rbf": "Incremental Nyström RBF",
    "krls_rbf": "KRLS RBF",
    "batch_nystrom_rbf": "Batch Nyström RBF",
    "rf_rbf": "RF RBF",
    "fastfood_rbf": "Fastfood RBF",
    "fastfood_fft": "Fastfood FFT",
    "krls_matern": "KRLS Matérn",
    "fastfood_matern": "Fastfood Matérn",
}


@dataclass
class PaperCell:
    """One published cell and ours.

    ``paper`` is ``None`` where the paper prints NA; ``mean``/``std``/``n`` are ours over the
    trials (``n = 0``: not measured, then ``na_reason`` says why); ``seconds`` the median model
    selection time of a trial (refit included) and ``gflops`` the lowest and highest host GEMM
    rate measured beside those trials; ``gap`` is ``(ours − paper)/|paper|`` in the paper's
    unit; ``flagged`` when it needs a label (:mod:`kernreg.results.paper_gaps`);
    ``paper_std``/``paper_n`` the published spread and trials (``None`` where not given);
    ``noted`` what the table config's note says of the cell
    (:func:`~kernreg.results.paper_gaps.note_kind`).
    """

    dataset: str
    column: str
    measure: str
    paper: float | None
    paper_text: str
    source: str
    paper_note: str
    mean: float | None = None
    std: float | None = None
    n: int = 0
    seconds: float | None = None
    gflops: tuple[float, float] | None = None
    sigma: float | None = None
    na_reason: str | None = None
    note: str | None = None
    paper_std: float | None = None
    paper_n: int | None = None
    noted: str | None = None

    @property
    def gap(self) -> float | None:
        if self.paper is None or self.mean is None or not np.isfinite(self.mean):
            return None
        return get_measure(self.measure).relative_gap(self.mean, self.paper)

    def gap_record(self) -> Gap | None:
        """The cell against the published value, both in the paper's unit (None: nothing to
        compare)."""
        if self.gap is None or self.mean is None:
            return None
        measure = get_measure(self.measure)
        return Gap(f"{dataset_title(self.dataset)}, {column_title(self.column)}",
                   f"test {measure.title}", measure.to_paper(self.mean),
                   abs(measure.to_paper(self.std or 0.0)), self.n, self.paper, self.paper_std,
                   self.paper_n or 1, self.noted)

    @property
    def flagged(self) -> bool:
        gap = self.gap_record()
        return gap is not None and gap.needs_label

    def label(self) -> str | None:
        """The flagged cell's label (:func:`~kernreg.results.paper_gaps.gap_label`)."""
        gap = self.gap_record()
        return gap_label(gap) if gap is not None and gap.needs_label else None

    def ours_text(self, digits: int = 4) -> str:
        """Ours in the paper's unit, ``mean ± std`` (std with several trials), or ``NA``."""
        if self.mean is None:
            return "NA"
        measure = get_measure(self.measure)
        mean = measure.to_paper(self.mean)
        text = _fmt(mean, digits)
        if self.n > 1 and self.std is not None:
            text += f" ± {_fmt(measure.to_paper(self.std), digits, like=mean)}"
        return text


def _fmt(value: float, digits: int, like: float | None = None) -> str:
    """``digits`` significant figures of the mean's scale (a std follows its mean's decimals)."""
    ref = abs(value if like is None else like)
    if ref == 0 or not np.isfinite(ref):
        return f"{value:.{digits}g}"
    decimals = max(0, digits - 1 - int(np.floor(np.log10(ref))))
    return f"{value:.{decimals}f}"


def read_paper_cells(name: str) -> pd.DataFrame:
    """The papers' file ``name`` (in ``kernreg/paper``) as rows ``dataset, column, measure,
    value (str; "NA" where the paper prints none), source, note``."""
    with (files("kernreg") / "paper" / name).open() as f:
        table = pd.read_csv(f, dtype=str, keep_default_na=False)
    if "measure" not in table:  # LiM Table 1: every cell is a test RMSE
        table = table.rename(columns={"rmse": "value"}).assign(measure="rmse")
    for optional in ("std", "trials"):  # the published spread and trials, where given
        if optional not in table:
            table[optional] = ""
    return table[["dataset", "column", "measure", "value", "std", "trials", "source", "note"]]


def _entry(entries: Sequence[dict[str, Any]], dataset: str, column: str
           ) -> dict[str, Any] | None:
    """The table config's entry for a cell: one naming its ``label`` wins over one naming the
    dataset only (which applies to every column of the dataset)."""
    for want_label in (True, False):
        for e in entries:
            if e["dataset"] != dataset:
                continue
            if (e.get("label") == column) if want_label else ("label" not in e):
                return e
    return None


def build_paper_cells(results: pd.DataFrame, paper_name: str,
                      not_run: Sequence[dict[str, Any]] = (),
                      notes: Sequence[dict[str, Any]] = ()) -> list[PaperCell]:
    """Every published cell of ``paper_name`` with ours from ``results`` (tidy rows: dataset,
    label, ``test_<measure>``, sigma), the config's ``not_run`` reasons (``dataset``,
    optional ``label``, ``reason``) and ``notes`` (``dataset``, ``label``, ``note``)."""
    cells = []
    for row in read_paper_cells(paper_name).itertuples(index=False):
        paper = None if row.value in ("", "NA") else float(row.value)
        cell = PaperCell(row.dataset, row.column, row.measure, paper, row.value, row.source,
                         row.note, paper_std=float(row.std) if row.std else None,
                         paper_n=int(row.trials) if row.trials else None)
        ours = results[(results["dataset"] == row.dataset) & (results["label"] == row.column)] \
            if len(results) else results
        column = f"test_{row.measure}"
        if len(ours) and column in ours and ours[column].notna().any():
            values = ours[column].dropna().astype(float)
            cell.mean, cell.std, cell.n = float(values.mean()), float(values.std(ddof=0)), \
                len(values)
            cell.seconds, cell.gflops = _timing(ours)
            if "sigma" in ours and pd.notna(ours["sigma"].iloc[0]):
                try:
                    cell.sigma = float(ours["sigma"].iloc[0])
                except (TypeError, ValueError):  # a σ grid: the selected σ is per trial
                    cell.sigma = None
        else:
            entry = _entry(not_run, row.dataset, row.column)
            cell.na_reason = str(entry["reason"]) if entry else \
                "not run (no results and no reason in the table config)"
        note = _entry(notes, row.dataset, row.column)
        if note is not None:
            cell.note, cell.noted = str(note["note"]), note_kind(note)
        cells.append(cell)
    return cells


def _timing(trials: pd.DataFrame) -> tuple[float | None, tuple[float, float] | None]:
    """The median model-selection seconds of a cell's trials and the range of the host GEMM
    rates measured beside them (either ``None`` where the results do not carry it)."""
    seconds = None
    if "model_selection_time" in trials and trials["model_selection_time"].notna().any():
        seconds = float(trials["model_selection_time"].dropna().astype(float).median())
    gflops = None
    if "gemm_gflops" in trials and trials["gemm_gflops"].notna().any():
        g = trials["gemm_gflops"].dropna().astype(float)
        gflops = (float(g.min()), float(g.max()))
    return seconds, gflops


def dataset_title(name: str) -> str:
    """A dataset's short title: its registered title before any parenthesis, a data file's
    name (``file:train.csv`` → ``train.csv``: never looked up in the registry)."""
    if is_file_dataset_name(name):
        return name[len(FILE_PREFIX):]
    try:
        return get_spec(name).title.split(" (")[0]
    except DataError:  # a dataset kernreg does not provide (yet)
        return name


def column_title(column: str) -> str:
    """The title of a column label (:data:`COLUMN_TITLES`, else the label itself)."""
    return COLUMN_TITLES.get(column, column)
