"""A results CSV as the reproduction scripts write it: an optional ``#`` line saying what the
file is and which command made it, then the table (floats to 6 significant digits), written
atomically into a folder made if needed (``reproduce.docs_tables.read.read_csv`` reads it)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kernreg.atomic import write_text

__all__ = ["write_results_csv"]


def write_results_csv(path: str | Path, table: pd.DataFrame | list[dict], comment: str = ""
                      ) -> Path:
    """Write ``table`` (a frame or its rows) to ``path``, ``comment`` as a first ``#`` line."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = f"# {comment}\n" if comment else ""
    write_text(path, header + pd.DataFrame(table).to_csv(index=False, float_format="%.6g"))
    return path
