"""Benchmark measurements kept as committed CSV files under results/ (``bench_*.csv``).

A benchmark script writes one row per measured cell with :func:`record_row`: the row of the
same key is replaced in place, other rows and the file's ``#`` comment lines are kept as
written (numbers are not re-formatted), and the file is rewritten atomically. The docs tables
are rendered from these files (:mod:`reproduce.docs_tables`, ``make docs``).
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import yaml

from kernreg.atomic import write_text

#: A comment line naming the source of some rows: ``# Rows with source "S" ...``; it is
#: dropped once no row carries that source any more.
SOURCE_NOTE = '# Rows with source "'


def record_row(path: str | Path, row: Mapping[str, object], key: Sequence[str],
               columns: Sequence[str]) -> None:
    """Write ``row`` (``columns``; None → empty) into the CSV at ``path`` in place of the row
    with the same ``key`` values, or append it; create the file if needed."""
    path = Path(path)
    missing = [c for c in (*key, "source") if c not in columns]
    if missing:
        raise ValueError(f"columns must include the key and 'source': missing {missing}")
    comments, table = [], pd.DataFrame(columns=list(columns))
    if path.is_file():
        text = path.read_text(encoding="utf-8")
        comments = [line for line in text.splitlines() if line.startswith("#")]
        table = pd.read_csv(io.StringIO(text), comment="#", dtype=str, keep_default_na=False)
        for c in columns:  # a column added since the file was written
            if c not in table:
                table[c] = ""
    new = {c: "" if row.get(c) is None else str(row[c]) for c in columns}
    same = (table[list(key)] == pd.Series({k: new[k] for k in key})).all(axis=1)
    if same.any():
        table.loc[same.idxmax(), list(columns)] = [new[c] for c in columns]
        table = table.drop(index=same[same].index[1:])
    else:
        table = pd.concat([table, pd.DataFrame([new])], ignore_index=True)
    sources = set(table["source"])
    comments = [c for c in comments
                if not c.startswith(SOURCE_NOTE) or c[len(SOURCE_NOTE):].split('"')[0] in sources]
    body = table[list(columns)].to_csv(index=False, lineterminator="\n")
    write_text(path, "".join(f"{c}\n" for c in comments) + body)


def parse_assignments(items: Sequence[str]) -> dict[str, object]:
    """``{KEY: value}`` from a benchmark's ``--param KEY=VALUE`` options (values read as YAML:
    ``strategy=memory``, ``max_iter=60``, ``merge_duplicates=false``, ``sigma=1e-1``).

    Raises
    ------
    ValueError
        An item without ``=`` or without a key.
    """
    params: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--param takes KEY=VALUE, got {item!r}")
        parsed = yaml.safe_load(value)
        if isinstance(parsed, str):  # YAML 1.1 reads 1e-1 (no dot) as a string
            try:
                parsed = float(parsed)
            except ValueError:
                pass
        params[key] = parsed
    return params


def add_csv_options(parser: argparse.ArgumentParser, default: Path) -> None:
    """A benchmark's ``--csv FILE`` (where its rows go: ``default``) and ``--no-csv`` (print
    only) options; ``args.csv`` is the path or None."""
    parser.add_argument("--csv", type=Path, default=default,
                        help="where the measured rows go (default: %(default)s)")
    parser.add_argument("--no-csv", dest="csv", action="store_const", const=None,
                        help="print only")


def add_param_option(parser: argparse.ArgumentParser, what: str) -> None:
    """A benchmark's repeatable ``--param KEY=VALUE`` option (:func:`params_of` reads it)."""
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help=f"set {what} (YAML value)")


def params_of(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, object]:
    """The ``--param`` values of ``args`` (:func:`parse_assignments`); a malformed one is the
    parser's usage error (exit 2)."""
    try:
        return parse_assignments(args.param)
    except ValueError as err:
        parser.error(str(err))


def today_source(script: str) -> str:
    """The ``source`` of a row measured now by ``script``: ``reproduce/<source>/x.py
    YYYY-MM-DD``."""
    return f"{script} {datetime.now(timezone.utc):%Y-%m-%d}"
