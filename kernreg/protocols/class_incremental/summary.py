"""The summary of a class-incremental stream's finished trials: thesis Table 7.1 (ours beside
the thesis's) and the Figure 7.3 panel.

Everything here reads what a run stored (its trial records and normalised config); nothing is
re-fitted.
"""

from __future__ import annotations

import io
from collections.abc import Container, Mapping, Sequence
from importlib.resources import files
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from kernreg.protocols.class_incremental.config import SIZE_KEYS, current_features, lambda_grid
from kernreg.protocols.class_incremental.methods import get_method, method_names
from kernreg.results.paper_gaps import Gap, gap_line, note_kind

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["TABLE_ROWS", "figures", "render_table7", "summarize", "table", "thesis_table7"]

#: The n_imb rows of Table 7.1.
TABLE_ROWS = (1, 5, 10, 50, 100, 500)
#: Trials behind each of the thesis's cells (§7.6: 10 trials).
THESIS_TRIALS = 10
_NOT_HERE = ("iCubWorld28 (n_bal = 700) and RGB-D (n_bal = 500): NA — their CaffeNet fc7 "
             "features are not obtainable here (no copy in the offline mirror, no network).")


def _methods(present: Container[str]) -> list[str]:
    """The registered methods among ``present`` (a trial record's keys, a summary's methods),
    in registration order."""
    return [m for m in method_names() if m in present]


def summarize(trials: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Tidy table: one row per (method, n_imb, metric) with mean and std (%) over trials.

    Metrics: ``total``, ``imbalanced`` (the new class), ``balanced`` (the other classes),
    ``lambda`` and ``alpha`` (selected; not in %). Std is the population std, as 10 trials
    give it in the thesis (``ddof = 0``).
    """
    rows = []
    record_at = trials[0]["record_at"]
    for method in _methods(trials[0]):
        for metric in ("total", "imbalanced", "balanced", "lambda", "alpha"):
            values = np.stack([t[method][metric] for t in trials])
            scale = 100.0 if metric in ("total", "imbalanced", "balanced") else 1.0
            for j, n_imb in enumerate(record_at):
                column = values[:, j] * scale
                rows.append({"method": method, "n_imb": int(n_imb), "metric": metric,
                             "mean": float(np.mean(column)), "std": float(np.std(column)),
                             "median": float(np.median(column)), "trials": len(trials)})
    return pd.DataFrame(rows)


def thesis_table7() -> pd.DataFrame:
    """The MNIST rows of thesis Table 7.1 (package data)."""
    text = files("kernreg.paper").joinpath("thesis_table7_1.csv").read_text()
    return pd.read_csv(io.StringIO(text))


def _cell(summary: pd.DataFrame, method: str, n_imb: int, metric: str) -> str:
    hit = summary[(summary.method == method) & (summary.n_imb == n_imb)
                  & (summary.metric == metric)]
    if hit.empty:
        return "NA"
    return f"{hit['mean'].iloc[0]:.1f} ± {hit['std'].iloc[0]:.1f}"


def table7_gaps(summary: pd.DataFrame, n_trials: int,
                cell_notes: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """A label line (:func:`~kernreg.results.paper_gaps.gap_line`) for every
    accuracy cell of Table 7.1 more than 2% (relative) from the thesis's; ``cell_notes`` are
    the config's ``notes:`` (``n_imb``, ``method``, ``metric``, ``note``, optional ``open``)."""
    paper = thesis_table7()
    by_cell = {(int(n["n_imb"]), n["method"], n["metric"]): n for n in cell_notes}
    lines = []
    for metric in ("total", "imbalanced"):
        for method in _methods(set(summary["method"])):
            for n_imb in TABLE_ROWS:
                ref = paper[(paper.method == method) & (paper.n_imb == n_imb)]
                hit = summary[(summary.method == method) & (summary.n_imb == n_imb)
                              & (summary.metric == metric)]
                if ref.empty or hit.empty:
                    continue
                note = by_cell.get((n_imb, method, metric))
                gap = Gap(f"{metric} {method} at n_imb = {n_imb}", "accuracy %",
                          float(hit["mean"].iloc[0]), float(hit["std"].iloc[0]), n_trials,
                          float(ref[f"{metric}_mean"].iloc[0]),
                          float(ref[f"{metric}_std"].iloc[0]), THESIS_TRIALS,
                          note_kind(note))
                if gap.paper == 0 and gap.mean == 0:
                    continue  # both exactly 0: no difference (the relative gap is undefined)
                line = gap_line(gap, "the thesis", None if note is None else note["note"])
                if line is not None:
                    lines.append(line)
    return lines


def render_table7(trials: Sequence[dict[str, Any]], *, title: str = "",
                  notes: Sequence[str] = (),
                  cell_notes: Sequence[Mapping[str, Any]] = ()) -> str:
    """Markdown: Table 7.1's MNIST rows, ours / the thesis's, and a label for every cell more
    than 2% from the thesis (:func:`table7_gaps`); ``notes``: lines on the run's settings,
    shown under the table; ``cell_notes``: the config's notes on cells."""
    summary = summarize(trials)
    paper = thesis_table7()
    methods = _methods(trials[0])
    lines = [f"# {title or 'Thesis Table 7.1 (MNIST rows)'}", "",
             f"Test accuracy (%), mean ± std over {len(trials)} trials, ours / thesis. "
             "Total = all 10 digits (200 test examples each); Imbalanced = the streamed digit.",
             "", "| n_imb | " + " | ".join(f"Total {m}" for m in methods) + " | "
             + " | ".join(f"Imbalanced {m}" for m in methods) + " |",
             "|---" * (1 + 2 * len(methods)) + "|"]
    for n_imb in TABLE_ROWS:
        cells = []
        for metric in ("total", "imbalanced"):
            for method in methods:
                ours = _cell(summary, method, n_imb, metric)
                ref = paper[(paper.method == method) & (paper.n_imb == n_imb)]
                theirs = (f"{ref[f'{metric}_mean'].iloc[0]:.1f} ± "
                          f"{ref[f'{metric}_std'].iloc[0]:.1f}") if not ref.empty else "NA"
                cells.append(f"{ours} / {theirs}")
        lines.append(f"| {n_imb} | " + " | ".join(cells) + " |")
    labels = table7_gaps(summary, len(trials), cell_notes)
    lines += ["", *(f"- {note}" for note in notes), f"- {_NOT_HERE}",
              "", "Cells more than 2% from the thesis (relative):"
              + ("" if labels else " none"), "", *(f"- {line}" for line in labels),
              "", "Selected parameters (median over trials):", "",
              "| n_imb | " + " | ".join(f"λ {m}" for m in methods) + " | α RC |",
              "|---" * (2 + len(methods)) + "|"]
    for n_imb in TABLE_ROWS:
        lam = [summary[(summary.method == m) & (summary.n_imb == n_imb)
                       & (summary.metric == "lambda")]["median"] for m in methods]
        alpha = summary[(summary.method == "RC") & (summary.n_imb == n_imb)
                        & (summary.metric == "alpha")]["median"]
        alpha_cell = f"{alpha.iloc[0]:.2g}" if not alpha.empty else "NA"
        lines.append(f"| {n_imb} | " + " | ".join(f"{v.iloc[0]:.3g}" if not v.empty else "NA"
                                                 for v in lam) + f" | {alpha_cell} |")
    imb = [t["attrs"]["imbalanced_class"] for t in trials]
    lines += ["", "Imbalanced digit per trial: " + ", ".join(f"{c:g}" for c in imb) + "."]
    return "\n".join(lines) + "\n"


def _alpha_text(alphas: Sequence[float]) -> str:
    """The α grid in a line: its values, or for a long grid its size, range and step."""
    if len(alphas) <= 12:
        return ", ".join(f"{a:g}" for a in alphas)
    return f"{len(alphas)} values in [{min(alphas):g}, {max(alphas):g}]"


def table(config: Mapping[str, Any], trials: Sequence[dict[str, Any]]) -> str:
    """Table 7.1 of the finished trials of the run of ``config`` (its normalised config), with
    the protocol and the grids beneath."""
    p, model = config["protocol"], config["model"]
    # a manifest written before the rename says size
    features, lambdas = current_features(model["features"]), lambda_grid(model)
    notes = [f"n_bal = {p['n_bal']}, n_test = {p['n_test']} per class, every "
             f"{p['holdout_every']}th draw held out for validation; a class counts in the "
             f"validation accuracy once it has {p['validation_min_examples']} training examples",
             f"λ grid: {lambdas.size} values in [{lambdas[0]:g}, {lambdas[-1]:g}]; "
             f"α grid: {_alpha_text(model['alphas'])}; inputs: "
             + (features["kind"] if features["kind"] == "linear" else
                f"{features['kind']} features, {SIZE_KEYS[features['kind']]} = "
                f"{features[SIZE_KEYS[features['kind']]]}, σ = {features['sigma']:g}")]
    return render_table7(trials, title=f"{config['name']}: thesis Table 7.1 (MNIST rows)",
                         notes=notes, cell_notes=config.get("notes", ()))


def figures(config: Mapping[str, Any], trials: Sequence[dict[str, Any]]) -> dict[str, Figure]:
    """Figure 7.3's panel (``fig7_3.png``): mean test accuracy (± std band) against n_imb of
    every method, on the imbalanced class (top) and the balanced ones (bottom)."""
    import matplotlib

    matplotlib.use("Agg")  # files only
    import matplotlib.pyplot as plt

    summary = summarize(trials)
    fig, axes = plt.subplots(2, 1, figsize=(5.0, 6.4), sharex=True)
    for ax, metric, label in ((axes[0], "imbalanced", "imbalanced class"),
                              (axes[1], "balanced", "balanced classes")):
        for method in _methods(trials[0]):
            spec = get_method(method)
            rows = summary[(summary.method == method) & (summary.metric == metric)]
            x, mean, std = rows.n_imb.to_numpy(), rows["mean"].to_numpy(), rows["std"].to_numpy()
            ax.plot(x, mean, spec.line, color=spec.colour, marker="o", ms=3, label=spec.legend)
            ax.fill_between(x, mean - std, mean + std, color=spec.colour, alpha=0.15, lw=0)
        ax.set_xscale("log")
        ax.set_ylabel(f"test accuracy, {label} (%)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_title(f"{config['dataset']['name'].upper()}: {len(trials)} trials")
    axes[0].legend(loc="upper left", fontsize=8)
    axes[1].set_xlabel("n_imb (training examples of the new class)")
    fig.tight_layout()
    return {"fig7_3.png": fig}
