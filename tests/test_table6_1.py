"""Thesis Table 6.1 (reproduce/thesis_ch6/thesis_table6_1.py) and the helpers of
reproduce/nytro/adult_differences.py (the window-slope rule applied to a stored path)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reproduce.nytro.adult_differences import fires_at, theta_for
from reproduce.thesis_ch6.thesis_table6_1 import PAPER, chapter6_runs, table6_1

REPO = Path(__file__).resolve().parents[1]


def _rows(text: str) -> dict[str, list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("| ")][1:]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    return {c[0]: c for c in cells}


def test_table6_1_takes_sigma_from_the_chapter6_configs_not_the_registry() -> None:
    rows = _rows(table6_1(chapter6_runs(), pd.read_csv(PAPER, comment="#")))
    sigma = {title.split(" (")[0]: row[4] for title, row in rows.items()}
    # Table 6.1's σ; the registry holds NYTRO's (adult 6.6, ijcnn1 1)
    assert sigma == {"Breast Cancer Wisconsin": "0.4", "Adult": "4",
                     "IJCNN 2001 challenge": "0.6"}
    adult = next(row for title, row in rows.items() if title.startswith("Adult"))
    assert adult[5] == "32562 / 16282 / 123 / 4"
    assert "1000 (thesis_table6_adult_1000, thesis_fig6_adult_1000)" in adult[6]


def test_committed_table6_1_is_what_the_configs_render() -> None:
    committed = (REPO / "results" / "thesis_table6_1.md").read_text(encoding="utf-8")
    assert committed == table6_1(chapter6_runs(), pd.read_csv(PAPER, comment="#"))


def test_window_slope_on_a_stored_path_and_the_threshold_that_delays_it() -> None:
    t = np.arange(1, 121, dtype=float)
    path = 0.6 + 0.5 * np.exp(-t / 12.0)  # a falling, flattening validation curve
    theta = 0.0069
    fired = fires_at(path, theta, 10)
    assert 10 <= fired < 120
    # a larger θ fires no later, a smaller one no earlier
    assert fires_at(path, 1.05 * theta, 10) <= fired <= fires_at(path, 0.95 * theta, 10)
    # just below theta_for(t) the rule has not fired before t; at it, it fires before t
    need = theta_for(path, fired + 3, 10)
    assert fires_at(path, 0.999 * need, 10) >= fired + 3
    assert fires_at(path, 1.001 * need, 10) < fired + 3
