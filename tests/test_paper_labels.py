"""Every committed table beside a published one (NYTRO Table 2, LiM Table 1, LiM Table 1 /
thesis Table 5.1 in full, thesis Tables 6.2 and 7.1) labels each cell more than 2% from the
source: "within noise", "measured reason" or "open after <variants>" — never a bare "open",
never no label. The cells are read back from the rendered Markdown, so a table rendered
without its labels fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parent.parent / "results"
#: The tables print rounded means: a cell read back is taken as beyond 2% only past this
#: (a rounded 2.0x% may be an unrounded 1.9x%), unless the table marks it (†).
READ_BACK_GAP = 0.025
LABELLED = re.compile(r": (within noise|measured reason \(its note\)|open after .+?)(?: — .*)?$")
NUMBER = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"


def _labels(text: str) -> list[str]:
    return [line[2:] for line in text.splitlines() if line.startswith("- ≠ ")]


def _rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines[1:]]


def _mean(cell: str) -> float | None:
    found = re.match(NUMBER, cell.strip())
    return float(found.group(0)) if found else None


def _far(ours: float | None, paper: float | None) -> bool:
    if ours is None or paper is None or (ours == 0 and paper == 0):
        return False
    return paper == 0 or abs(ours - paper) / abs(paper) > READ_BACK_GAP


def _cells_beyond_gap(name: str, text: str) -> list[str]:
    """What each label line must name, for every cell of the rendered table beyond 2%."""
    rows, header = _rows(text), text.splitlines()[0] if text else ""
    if name.startswith("lim_table1_full"):
        titles = [c.strip() for c in header.strip().strip("|").split("|")]
        out = []
        for row in rows:
            for title, cell in zip(titles[2:], row[2:], strict=True):
                paper = re.search(rf"\(paper ({NUMBER})\)", cell)
                if paper and _far(_mean(cell), float(paper.group(1))):
                    out.append(f"{row[0]}, {title}, ")
        return out
    if name.startswith("lim_table1"):
        return [f"{row[0]}, incremental Nyström, RMSE" for row in rows
                if row[4] != "0" and _far(_mean(row[8]), _mean(row[9]))]
    if name.startswith("thesis_table6"):
        # the variant rows (not the thesis's) show their gap in the table only
        return [f"{row[0]}, {row[2]}, {measure}" for row in rows
                if "not in the" not in row[2] and "not the" not in row[0]
                for measure, ours, paper, gap in (("hinge", row[4], row[5], row[6]),
                                                  ("error %", row[7], row[8], row[9]))
                if "†" in gap or _far(_mean(ours), _mean(paper))]
    if name == "thesis_table7":
        table = text.split("| n_imb |", 1)[1].split("\n\n", 1)[0]
        titles = [c.strip() for c in table.splitlines()[0].strip().strip("|").split("|")]
        out = []
        for line in table.splitlines()[2:]:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            for title, cell in zip(titles, cells[1:], strict=True):
                ours, theirs = cell.split(" / ")
                if _far(_mean(ours), _mean(theirs)):
                    metric, method = title.split()
                    out.append(f"{metric.lower()} {method} at n_imb = {cells[0]}, ")
        return out
    raise AssertionError(name)


TABLES = ["table2", "lim_table1", "thesis_table6", "thesis_table7",
          "lim_table1_selected", "lim_table1_full", "thesis_table6_full"]


@pytest.mark.parametrize("name", TABLES)
def test_every_cell_beyond_two_percent_has_one_of_the_three_labels(name: str) -> None:
    text = (RESULTS / f"{name}.md").read_text(encoding="utf-8")
    labels = _labels(text)
    bare = [line for line in labels if not LABELLED.search(line)]
    assert not bare, "labels that are neither noise, a reason nor open after variants:\n" \
        + "\n".join(bare)
    if name == "table2":
        # every cell's line comes from one function (kernreg.results.tables.paper_gap_lines);
        # tests/test_reproduce.py re-renders the table from its committed trials
        return
    missing = [cell for cell in _cells_beyond_gap(name, text)
               if not any(line.startswith("≠ " + cell) for line in labels)]
    assert not missing, "cells more than 2% from the source without a label:\n" \
        + "\n".join(missing)


def test_a_cell_without_a_label_is_caught() -> None:
    """The reader above finds an unlabelled gap (the test can fail)."""
    text = ("| n_imb | Total N | Imbalanced N |\n|---|---|---|\n"
            "| 1 | 70.0 ± 1.0 / 79.2 ± 0.3 | 0.0 ± 0.0 / 0.0 ± 0.0 |\n\n")
    assert _cells_beyond_gap("thesis_table7", text) == ["total N at n_imb = 1, "]
