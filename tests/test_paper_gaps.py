"""Cells against a published table: the 2 % rule, the z-score, and one label per cell beyond
it — in the committed NYTRO Table 2 too."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kernreg.results.paper_gaps import Gap, gap_label, gap_line, note_kind, parse_published

REPO = Path(__file__).resolve().parents[1]


def _gap(**kw: object) -> Gap:
    base = dict(where="Adult, ES", quantity="t*", mean=40.0, std=1.3, n=5, paper=39.2,
                paper_std=1.1, paper_n=5, noted=None)
    return Gap(**{**base, **kw})  # type: ignore[arg-type]


def test_published_values_parse() -> None:
    assert parse_published("97.48±0.77") == (97.48, 0.77)
    assert parse_published("4.04e-05±1.04e-05") == (4.04e-05, 1.04e-05)
    assert parse_published("1.04") == (1.04, None)
    assert parse_published("NA") is None and parse_published(None) is None


def test_z_is_the_difference_in_standard_errors() -> None:
    gap = _gap()
    assert gap.z == pytest.approx(0.8 / math.sqrt(1.3**2 / 5 + 1.1**2 / 5))
    assert gap.needs_label and "within noise" in gap_label(gap)
    far = _gap(mean=45.0)
    assert abs(far.z) > 2 and gap_label(far).endswith(": open")
    assert gap_label(_gap(mean=45.0, noted="reason")).endswith("measured reason (its note)")
    assert gap_label(_gap(mean=45.0, noted="variants")).endswith(
        "open after the variants its note records")
    # a spread near zero on both sides: a huge z, written to three digits
    assert "z = -4.81e+15 (" in gap_label(_gap(mean=2.824, std=1e-15, n=10, paper=4.345,
                                                    paper_std=None))
    # one trial here and no spread in the paper: no z, never "noise"
    lone = _gap(n=1, paper_std=None, mean=45.0)
    assert lone.z is None and gap_label(lone).endswith(": open")


def test_the_two_percent_rule_and_times() -> None:
    assert not _gap(mean=39.9).needs_label  # +1.8 %
    assert not _gap(quantity="time", mean=20.0, paper=100.0).needs_label  # faster
    slow = _gap(quantity="time", mean=1.23, std=0.05, paper=1.04, paper_std=None)
    assert slow.needs_label and gap_label(slow).endswith(": open")  # a time is never noise


def test_a_cell_line_carries_its_label_then_its_note() -> None:
    assert gap_line(_gap(mean=39.9)) is None  # within 2 %: no line
    far = _gap(mean=45.0, noted=note_kind({"note": "why", "open": "2 step sizes"}))
    assert gap_line(far, "the thesis", "why") == "≠ " + gap_label(far, "the thesis") + " — why"
    assert gap_line(far).endswith(": open after 2 step sizes")
    assert note_kind(None) is None and note_kind({"note": "x"}) == "reason"
    assert note_kind({"note": "x", "open": True}) == "variants"
