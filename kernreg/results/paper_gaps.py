"""Cells that differ from a published table: by how much, whether the difference is noise,
and the label a reader needs beside each.

A cell more than :data:`GAP` from the published value (relative), or a time slower than it,
gets one label: ``within noise`` when the difference of the means is within two standard
errors (``z = (ours − paper) / √(s²/n + s_p²/n_p)``, the paper's spread where it gives one),
``measured reason`` when a note of the table config explains it, ``open after variants`` when
its note records what was tried without finding the cause (``open:`` names the variants and
where they are kept), else ``open``. Times are never "noise" (the hardware differs): a slower
time needs a note.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["GAP", "NOISE_Z", "Gap", "gap_label", "gap_line", "note_kind", "parse_published"]

#: Relative difference beyond which a cell needs a label.
GAP = 0.02
#: |z| below which a difference is called noise.
NOISE_Z = 2.0

_PUBLISHED = re.compile(r"^\s*([-+0-9.eE]+)\s*(?:±\s*([-+0-9.eE]+))?\s*$")


def parse_published(text: str | None) -> tuple[float, float | None] | None:
    """``"97.48±0.77"`` → ``(97.48, 0.77)``, ``"1.04"`` → ``(1.04, None)``; None for text
    that is not a number (an NA)."""
    if not text:
        return None
    match = _PUBLISHED.match(text)
    if match is None:
        return None
    try:
        return float(match.group(1)), (float(match.group(2)) if match.group(2) else None)
    except ValueError:
        return None


@dataclass(frozen=True)
class Gap:
    """One cell against its published value."""

    where: str
    quantity: str
    mean: float
    std: float
    n: int
    paper: float
    paper_std: float | None
    paper_n: int
    #: What the table config's note on this cell says: "reason", "variants" (or the text of
    #: its ``open:``, the variants tried: "25 variants, results/x.csv") or None (no note).
    noted: str | None

    @property
    def relative(self) -> float:
        return (self.mean - self.paper) / abs(self.paper) if self.paper else math.inf

    @property
    def needs_label(self) -> bool:
        if self.quantity == "time":
            return self.relative > GAP  # faster is the hardware's; slower needs a reason
        return abs(self.relative) > GAP

    @property
    def z(self) -> float | None:
        """The difference in standard errors (None: no spread on either side)."""
        var = (self.std**2 / self.n if self.n > 1 else 0.0) \
            + ((self.paper_std or 0.0) ** 2 / self.paper_n)
        if var <= 0:
            return None
        return (self.mean - self.paper) / math.sqrt(var)


_NOTED = {"reason": ": measured reason (its note)",
          "variants": ": open after the variants its note records", None: ": open"}


def note_kind(note: Mapping[str, Any] | None) -> str | None:
    """What a table config's note says of its cell: ``"reason"``, or the variants it records
    as tried without finding the cause (``open: true`` → ``"variants"``, ``open: TEXT`` →
    TEXT); None without a note."""
    if note is None:
        return None
    open_ = note.get("open")
    if not open_:
        return "reason"
    return "variants" if open_ is True else str(open_)


def _noted_text(noted: str | None) -> str:
    return _NOTED[noted] if noted in _NOTED else f": open after {noted}"


def _z_text(z: float) -> str:
    """Two decimals; three significant digits from 1000 on (a spread near zero on both sides
    makes z huge, and its digits say nothing)."""
    return f"{z:+.2f}" if abs(z) < 1000 else f"{z:+.3g}"


def gap_label(gap: Gap, source: str = "the paper") -> str:
    """``"Adult, ES, t*: 40.0 vs 39.2 (+2.0%), z = +1.05 …: within noise"``; ``source`` names
    the published side (the paper, the thesis)."""
    head = f"{gap.where}, {gap.quantity}: {gap.mean:.4g} vs {gap.paper:.4g} ({gap.relative:+.1%})"
    if gap.quantity == "time":
        return head + _noted_text(gap.noted)
    z = gap.z
    spread = ("" if gap.paper_std is not None else f", {source} gives no spread")
    if z is None:
        head += f" (no spread on either side{spread})"
    else:
        trials = "" if gap.paper_std is None else f", {gap.paper_n} in {source}"
        here = f"{gap.n} trial{'' if gap.n == 1 else 's'} here"
        head += f", z = {_z_text(z)} ({here}{trials}{spread})"
    if z is not None and abs(z) < NOISE_Z:
        return head + ": within noise"
    return head + _noted_text(gap.noted)


def gap_line(gap: Gap, source: str = "the paper", note: str | None = None) -> str | None:
    """The line under a table for a cell that needs a label: ``"≠ "``, its
    :func:`gap_label`, then `` — note`` where the table config explains it; None for a cell
    close enough to the source."""
    if not gap.needs_label:
        return None
    return "≠ " + gap_label(gap, source) + (f" — {note}" if note else "")
