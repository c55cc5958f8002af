"""Reading the results files the docs tables come from, and the numbers' formats."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from kernreg.errors import ResultsError


def split_row(line: str) -> list[str]:
    r"""The cells of one Markdown table row (``\|`` is a literal bar inside a cell)."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith(r"\|") else inner
    cells = re.split(r"(?<!\\)\|", inner)
    return [c.strip().replace(r"\|", "|") for c in cells]


def read_md_tables(path: Path) -> list[tuple[list[str], list[list[str]]]]:
    """Every Markdown table of ``path`` as (header, rows), in file order."""
    tables: list[tuple[list[str], list[list[str]]]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        if (lines[i].lstrip().startswith("|") and i + 1 < len(lines)
                and re.fullmatch(r"\s*\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*", lines[i + 1])):
            header, rows, i = split_row(lines[i]), [], i + 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(split_row(lines[i]))
                i += 1
            tables.append((header, rows))
        else:
            i += 1
    return tables


def md_table(path: Path, index: int = 0) -> tuple[list[str], list[list[str]]]:
    """Table ``index`` of a results Markdown file, or an error naming the file."""
    tables = read_md_tables(path)
    if len(tables) <= index:
        raise ResultsError(f"{path}: expected at least {index + 1} Markdown table(s), found "
                           f"{len(tables)}; re-render it with its make target")
    return tables[index]


def column(header: list[str], name: str, path: Path) -> int:
    """The index of column ``name``, or an error naming the file and its columns."""
    if name not in header:
        raise ResultsError(f"{path}: no column {name!r} in its table (columns: "
                           f"{', '.join(h for h in header if h)}); re-render it")
    return header.index(name)


def read_csv(path: Path) -> pd.DataFrame:
    """A results CSV (``#`` lines are comments), or an error naming the file."""
    try:
        return pd.read_csv(path, comment="#", keep_default_na=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ResultsError(f"{path}: not a readable CSV ({exc})") from exc


# ---------------------------------------------------------------------------------------------
# Formatting


def sig(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits, scientific (``6.2e-4``) below 1e-3."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if value == 0:
        return "0"
    if abs(value) < 1e-3:
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    places = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{places}f}"


def leading_number(text: str) -> float | None:
    """The leading number of a results cell (``0.4651±0.0003``, ``**1.69±0.20**``), or None."""
    m = re.match(r"\s*\**\s*([-+]?\d[\d.]*(?:e[-+]?\d+)?)", text)
    return float(m.group(1)) if m else None


def rows_md(header: list[str], rows: Iterable[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r).rstrip() + " |" for r in rows]
    return "\n".join(lines)


#: The docs' short names of the datasets.
SHORT_TITLES = {"insurance": "Insurance", "adult": "Adult", "ijcnn1": "Ijcnn1",
                "covtype_binary": "Covertype", "yearprediction": "YearPredictionMSD",
                "cpusmall": "cpuSmall"}
