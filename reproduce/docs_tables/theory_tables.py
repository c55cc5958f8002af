"""The measured tables of the theory figures: Bach 2013 Figures 2 and 3 (docs/bach.md), thesis
Figure 5.2 (docs/thesis_ch5.md), the samplers (docs/beyond.md), NYTRO Figure 1 (docs/nytro.md).

The figures' tables read the JSON their scripts write next to the plots
(``results/figures/*.json``: reproduce/bach/bach_fig2.py, bach_fig3.py, thesis_fig5_2.py); the
samplers' table reads ``results/sampler_ranks.md`` (reproduce/beyond/sampler_ranks.py), NYTRO
Figure 1's datasets ``results/advise_table2.md`` (reproduce/beyond/advise_table2.py: ``kernreg
advise``'s numbers and the map's verdicts, computed there since kernreg.advise sits above this
floor).
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from kernreg.errors import ResultsError
from kernreg.theory.spline_rf import THESIS_FIG5_2_SETTINGS, SplineRFModel
from reproduce.docs_tables.read import column, md_table, rows_md
from reproduce.docs_tables.registry import DocTable, register_doc_table


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultsError(f"{path}: not readable JSON ({exc}); re-run its script") from exc


def _field(record: dict, key: str, path: Path) -> Any:
    if not isinstance(record, dict) or key not in record:
        raise ResultsError(f"{path}: a record has no {key!r}; re-run its script")
    return record[key]


def _mean_rank(ranks: list) -> float:
    """The mean rank over draws (a draw that never reached 1% is left out, as the plots do)."""
    found = [r for r in ranks if r is not None]
    return sum(found) / len(found) if found else math.nan


def _span(values: list[float], digits: int = 2) -> str:
    """``min–max`` of ``values`` (one number when they agree at ``digits``)."""
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if low == high else f"{low}–{high}"


def _ratio_columns(rows: list[dict], path: Path) -> list[list[float]]:
    """p_random/d, p_random/d_ave, p_greedy/d, p_RPCholesky/d, d/d_ave, p_random/p_greedy."""
    out = []
    for r in rows:
        d, d_ave = _field(r, "d", path), _field(r, "d_ave", path)
        rand = _mean_rank(_field(r, "rank_random", path))
        greedy = _field(r, "rank_greedy", path)
        greedy = math.nan if greedy is None else greedy
        rp = _mean_rank(r.get("rank_rpcholesky", []))
        out.append([rand / d, rand / d_ave, greedy / d, rp / d, d / d_ave, rand / greedy])
    return [list(col) for col in zip(*out, strict=True)]


def render_bach_fig2(*paths: Path) -> str:
    """The sufficient rank over d and d_ave, min–max over n, per noise σ and smoothness β."""
    rows = []
    for path in paths:
        data = _json(path)
        sigma = _field(data, "noise", path)
        ratios = _field(data, "ratios", path)
        for beta in sorted({_field(r, "beta", path) for r in ratios}):
            cols = _ratio_columns([r for r in ratios if r["beta"] == beta], path)
            rows.append([f"{sigma:g}", str(beta), *(_span(c) for c in cols)])
    return rows_md(["σ", "β", "p_random / d", "p_random / d_ave", "p_greedy / d",
                    "p_RPCholesky / d", "d / d_ave", "p_random / p_greedy"], rows)


def render_bach_fig3(path: Path) -> str:
    """pumadyn: each ratio at the smallest → the largest n (p_random / p_greedy: min–max)."""
    data = _json(path)
    rows = []
    for name, entry in data.items():
        runs = _field(entry, "rows", path)
        if not runs:
            raise ResultsError(f"{path}: {name} has no rows; re-run reproduce/bach/bach_fig3.py")
        n = [_field(r, "n", path) for r in runs]
        d = [_field(r, "d", path) for r in runs]
        d_ave = [_field(r, "d_ave", path) for r in runs]
        rand_d, rand_ave, _, _, d_over, rand_greedy = _ratio_columns(runs, path)
        greedy_ave = [_field(r, "rank_greedy", path) / a for r, a in zip(runs, d_ave,
                                                                          strict=True)]

        def ends(values: list[float], fmt: str) -> str:
            return f"{values[0]:{fmt}} → {values[-1]:{fmt}}"

        rows.append([name.removeprefix("pumadyn"), ends(n, "d"), ends(d, ".0f"),
                     ends(d_ave, ".0f"), ends(d_over, ".1f"), ends(rand_d, ".2f"),
                     ends(rand_ave, ".2f"), ends(greedy_ave, ".2f"), _span(rand_greedy)])
    return rows_md(["dataset", "n", "d", "d_ave", "d / d_ave", "p_random / d",
                    "p_random / d_ave", "p_greedy / d_ave", "p_random / p_greedy"], rows)


def _fraction(value: float) -> str:
    frac = Fraction(value).limit_denominator(64)
    sign = "−" if frac < 0 else "+"
    return f"{sign}{abs(frac)}"


def _theory(predicted: dict, key: str) -> str:
    value = predicted[key]
    return f"{_fraction(value)} = {value:+.3f}".replace("-", "−")


def _slope_cell(run: dict, slopes: str, intervals: str, key: str) -> str:
    value = run.get(slopes, {}).get(key)
    if value is None:
        return "—"
    cell = f"{value:+.3f}"
    interval = run.get(intervals, {}).get(key)
    if interval:
        cell += f" [{interval[0]:+.3f}, {interval[1]:+.3f}]"
    return cell.replace("-", "−")


def render_thesis_fig5_2(path: Path) -> str:
    """Measured slopes of the excess risk, λ_n and m_n against Theorem 11's exponents: of the
    means over repetitions (the thesis's statistic) and of the medians, with 95% bootstrap
    intervals over the repetitions; whether the means' slope is within ±0.1 of the theory.
    The thesis's settings the file has no run of are listed as not measured."""
    runs = _json(path)
    if not isinstance(runs, list):
        raise ResultsError(f"{path}: expected a list of settings; re-run its script")
    rows = []
    done = set()
    names = (("risk", "excess risk"), ("lambda", "λ_n"), ("m", "m_n"))
    for run in runs:
        r, gamma = _field(run, "r", path), _field(run, "gamma", path)
        done.add((round(r, 9), round(gamma, 9)))
        slope, pred = _field(run, "measured_slope", path), _field(run, "predicted", path)
        m_over = [s[2] / m[2] for m, s in zip(_field(run, "mean", path),
                                              _field(run, "std", path), strict=True)]
        setting = f"({Fraction(r).limit_denominator(64)}, {Fraction(gamma).limit_denominator(64)})"
        for i, (key, label) in enumerate(names):
            if key == "m":
                label += f" (std {min(m_over):.2f}–{max(m_over):.2f} × mean)"
            gap = abs(slope[key] - pred[key])
            rows.append([setting if i == 0 else "", label,
                         _slope_cell(run, "measured_slope", "slope_interval", key),
                         _slope_cell(run, "median_slope", "median_slope_interval", key),
                         _theory(pred, key), f"{'yes' if gap <= 0.1 else 'no'} ({gap:.3f})",
                         str(run.get("reps", "?")) if i == 0 else ""])
    for row, (r, gamma) in enumerate(THESIS_FIG5_2_SETTINGS):
        if (round(r, 9), round(gamma, 9)) in done:
            continue
        pred = SplineRFModel(r, gamma).predicted_exponents()
        rows.append([f"({Fraction(r).limit_denominator(64)}, "
                     f"{Fraction(gamma).limit_denominator(64)})",
                     "excess risk / λ_n / m_n",
                     "not measured: `python -m reproduce.thesis_ch5.thesis_fig5_2 --rows "
                     f"{row}` draws it",
                     "—", ", ".join(_fraction(pred[k]) for k in ("risk", "lambda", "m")), "—",
                     "—"])
    return rows_md(["(r, γ)", "quantity", "slope of the means [95%]",
                    "slope of the medians [95%]", "Theorem 11 (α = γ)",
                    "means within ±0.1 (gap)", "reps"], rows)


_SAMPLERS = {"uniform": "uniform", "leverage": "leverage scores",
             "pivoted_cholesky": "greedy pivoted Cholesky", "rpcholesky": "RPCholesky"}


def render_sampler_ranks(path: Path) -> str:
    """The rank each center sampler needs, per dataset: mean (min–max) over seeds (one number
    where the seeds agree: greedy pivoting is deterministic)."""
    header, table = md_table(path)
    at = {name: column(header, name, path) for name in ("dataset", "σ", "sampler", "rank")}
    by: dict[tuple[str, str], dict[str, str]] = {}
    for row in table:
        key = (row[at["dataset"]], row[at["σ"]])
        rank = row[at["rank"]]
        mean, _, spread = rank.partition(" (")
        low, _, high = spread.rstrip(")").partition("–")
        by.setdefault(key, {})[row[at["sampler"]]] = mean if low == high == mean else rank
    samplers = [s for s in _SAMPLERS if any(s in v for v in by.values())]
    return rows_md(["dataset (σ)", *(_SAMPLERS[s] for s in samplers)],
                   [[f"{name} ({sigma})", *(v.get(s, "—") for s in samplers)]
                    for (name, sigma), v in by.items()])


_MAP_TITLES = {"insurance": "Insurance", "adult": "Adult", "ijcnn1": "Ijcnn1",
               "covtype_binary": "CovertypeBinary", "yearprediction": "YearPrediction"}


def _winners(cell: str) -> str:
    """``**ES** / **NKRLS** (times...)`` → ``ES / NKRLS``."""
    names = re.findall(r"\*\*([A-Z]+)\*\*", cell)
    return " / ".join(names[:2]) if names else "—"


def render_nytro_fig1_datasets(path: Path) -> str:
    """The Table 2 datasets on NYTRO Figure 1's map (results/advise_table2.md, written by
    reproduce/beyond/advise_table2.py): our SNR = 1/λ*, d_eff and d̃, the map's verdicts at them
    and at the paper's λ*, and the paper's measured winners."""
    header, table = md_table(path)
    at = {name: column(header, name, path) for name in (
        "dataset", "n", "SNR", "d_eff", "d̃", "predicted: (SNR, d_eff) / (SNR, d̃) / (t, d_eff)",
        "paper: fastest / at equal accuracy", "paper's λ* (SNR): map at d_eff / d̃")}
    rows = []
    for row in table:
        name = row[at["dataset"]]
        title = _MAP_TITLES.get(name, name)
        paper = _winners(row[at["paper: fastest / at equal accuracy"]])
        if row[at["n"]].startswith("NA"):
            rows.append([title, "— (no advice: data not in the mirror)", "—", "—", "—", paper])
            continue
        predicted = row[at["predicted: (SNR, d_eff) / (SNR, d̃) / (t, d_eff)"]].split(" / ")
        lam, _, verdict = row[at["paper's λ* (SNR): map at d_eff / d̃"]].partition(": ")
        snr_paper = lam.partition(" (")[2].rstrip(")")
        rows.append([f"{title} ({row[at['n']]})", row[at["SNR"]],
                     f"{row[at['d_eff']]} / {row[at['d̃']]}", " / ".join(predicted[:2]),
                     f"{snr_paper}: {verdict}", paper])
    return rows_md(["dataset (n)", "SNR = 1/λ*", "d_eff / d̃", "map at d_eff / d̃",
                    "paper's SNR: map at d_eff / d̃", "paper's fastest / at equal accuracy"],
                   rows)


register_doc_table(DocTable(
    "bach_fig2_ratios", ("figures/bach_fig2.json", "figures/bach_fig2_sigma1.json"),
    render_bach_fig2, "docs/bach.md: Bach 2013 Figure 2, sufficient rank over d and d_ave"))
register_doc_table(DocTable(
    "bach_fig3", ("figures/bach_fig3.json",), render_bach_fig3,
    "docs/bach.md: Bach 2013 Figure 3, pumadyn"))
register_doc_table(DocTable(
    "thesis_fig5_2", ("figures/thesis_fig5_2.json",), render_thesis_fig5_2,
    "docs/thesis_ch5.md: thesis Figure 5.2, measured slopes against Theorem 11"))
register_doc_table(DocTable(
    "sampler_ranks", ("sampler_ranks.md",), render_sampler_ranks,
    "docs/beyond.md: the rank each center sampler needs"))
register_doc_table(DocTable(
    "nytro_fig1_datasets", ("advise_table2.md",), render_nytro_fig1_datasets,
    "docs/nytro.md: NYTRO Figure 1, the Table 2 datasets on the map (kernreg advise)"))
