"""Thesis Figure 8.4 from finished online regression trials: the summary table, the figure and
the tidy curves.

Everything here reads the trials' records and the run's normalised config (a manifest's
``config``: ``kernreg table RUN`` and ``kernreg plot RUN`` rebuild the outputs from a run
folder); nothing is re-fitted. The data are a SIMULATION on the iCub's published URDF standing
in for the thesis's private recordings, and every table and figure says so. matplotlib is
imported only to draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from kernreg.protocols.online_regression.icub_arm_sim import LABEL, OUTPUT_GROUPS
from kernreg.results.numbers import format_number

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["COLOURS", "CSV_FILE", "FIGURE_FILE", "TABLE_FILE", "curve_rows", "curves",
           "draw", "figures", "files", "notes", "render_summary", "selected_text",
           "summary_ranges", "table"]

#: The files a run writes into its folder.
TABLE_FILE, FIGURE_FILE, CSV_FILE = "summary.md", "fig8_4.png", "curves.csv"
#: The thesis's colours of its three estimators; other labels take matplotlib's cycle.
COLOURS = {"SP": "tab:blue", "NP": "tab:red", "P": "tab:green"}
_SYMBOLS = {"lam": "λ", "lam_p": "λ_P", "sigma": "σ", "n_components": "D", "seed": "seed"}
#: The longest title that fits one line of the figure (a run's name before it takes two).
_TITLE_CHARS = 105

Trial = dict[str, Any]


def _labels(trials: Sequence[Trial]) -> list[str]:
    return list(trials[0]["attrs"]["labels"])


def curves(trials: Sequence[Trial]) -> dict[tuple[str, str], np.ndarray]:
    """(label, group) → the windowed RMSE of every trial (part), shape (parts, samples)."""
    return {(label, group): np.stack([t[label][group] for t in trials])
            for label in _labels(trials) for group in OUTPUT_GROUPS}


def curve_rows(trials: Sequence[Trial]) -> list[dict[str, Any]]:
    """The tidy curves, one row per (estimator label, group, part, sample) — the columns of
    ``results/thesis_fig8_4_sim.csv``: ``estimator, group, part, sample, rmse``."""
    rows = []
    for label in _labels(trials):
        for t in trials:
            part = t["attrs"]["trial"]
            for group in OUTPUT_GROUPS:
                rows += [{"estimator": label, "group": group, "part": part, "sample": i + 1,
                          "rmse": float(r)} for i, r in enumerate(t[label][group])]
    return rows


def summary_ranges(n: int, window: int) -> list[tuple[str, int, int]]:
    """The sample ranges the summary averages over, for parts of ``n`` samples: the first
    window (the transient), up to sample 100, the rest, and the last window."""
    ranges = [(f"samples 1–{window}", 1, window)]
    start = window + 1
    if window < 100 < n:
        ranges.append((f"samples {start}–100", start, 100))
        start = 101
    if start <= n:
        ranges.append((f"samples {start}–{n}", start, n))
    ranges.append((f"last {window}", n - window + 1, n))
    return ranges


def selected_text(trials: Sequence[Trial]) -> str:
    """Each label's hyperparameters, selected or set: ``P: λ_P = 1e-06; NP: D = 500, …``."""
    selected = trials[0]["attrs"]["selected"]
    return "; ".join(f"{label}: " + ", ".join(f"{_SYMBOLS.get(k, k)} = {v:g}"
                                              for k, v in selected[label].items()
                                              if k != "seed")
                     for label in _labels(trials))


def render_summary(trials: Sequence[Trial], *, title: str = "", notes: Sequence[str] = ()
                   ) -> str:
    """Markdown: per output group and sample range, each label's windowed RMSE averaged over
    the range, mean ± std (population) over the trials (parts); ``notes`` under the table."""
    labels, data = _labels(trials), curves(trials)
    window = trials[0]["attrs"]["window"]
    n = data[(labels[0], next(iter(OUTPUT_GROUPS)))].shape[1]
    lines = [f"# {title or 'Thesis Figure 8.4'}", "",
             f"Data: {LABEL}.", "",
             f"| window RMSE, mean ± std over {len(trials)} parts | " + " | ".join(labels) + " |",
             "|" + "---|" * (len(labels) + 1)]
    for group, (_, unit) in OUTPUT_GROUPS.items():
        for name, first, last in summary_ranges(n, window):
            cells = []
            for label in labels:
                per_part = data[(label, group)][:, first - 1:last].mean(1)
                cells.append(format_number(float(per_part.mean()), float(per_part.std())))
            lines.append(f"| {group}, {name} ({unit}) | " + " | ".join(cells) + " |")
    lines += ["", f"Hyperparameters: {selected_text(trials)}."]
    cad = trials[0]["attrs"]["cad_rmse"]
    lines.append("The URDF (\"CAD\") model, not learned, over the whole test plane: "
                 + ", ".join(f"{g} {format_number(float(cad[g]))} {OUTPUT_GROUPS[g][1]}"
                             for g in OUTPUT_GROUPS) + ".")
    lines += [*notes, ""]
    return "\n".join(lines)


def notes(config: Mapping[str, Any]) -> list[str]:
    """The protocol and the grids of a normalised config, under the summary table."""
    p, s, sim = config["protocol"], config["selection"], config["simulation"]
    grids = ", ".join(f"{key} {{{', '.join(f'{v:g}' for v in s[key])}}}"
                      for key in ("sigmas", "lambdas", "lambdas_p"))
    part_length = sim["n_samples"] // p["n_parts"]
    return [f"Protocol: {sim['n_samples']} simulated samples per plane (seed {sim['seed']}); "
            f"every estimator learns {p['train_plane'].upper()} sample by sample, then each "
            f"of the {p['n_parts']} sequential parts of {p['test_plane'].upper()} "
            f"({part_length} samples) runs test-then-update from that state; RMSE over a "
            f"trailing {p['window']}-sample window.",
            f"Selection on {p['train_plane'].upper()} alone (batch ridge on its first "
            f"{100 * s['train_fraction']:g} %, scored on the rest): {grids}."]


def table(config: Mapping[str, Any], records: Sequence[Trial]) -> str:
    """The run's summary table (``summary.md``): :func:`render_summary` with :func:`notes`."""
    return render_summary(records, title=f"{config['name']}: thesis Figure 8.4",
                          notes=notes(config))


def draw(trials: Sequence[Trial], *, title: str = "") -> Figure:
    """Figure 8.4's two log-scale panels: force and torque windowed RMSE against the part's
    samples, each label's mean with a ± std band over the parts, the CAD model dashed."""
    import matplotlib  # here: the module's tables and curves load without it

    matplotlib.use("Agg")  # files only
    import matplotlib.pyplot as plt

    labels, data = _labels(trials), curves(trials)
    cad, window = trials[0]["attrs"]["cad_rmse"], trials[0]["attrs"]["window"]
    fig, axes = plt.subplots(2, 1, figsize=(7, 6.5), sharex=True)
    cycle = iter(plt.rcParams["axes.prop_cycle"].by_key()["color"])
    colours = {label: COLOURS.get(label) or next(cycle) for label in labels}
    order = [label for label in COLOURS if label in labels] + \
        [label for label in labels if label not in COLOURS]
    for ax, (group, (_, unit)) in zip(axes, OUTPUT_GROUPS.items(), strict=True):
        for label in order:
            c = data[(label, group)]
            x = np.arange(1, c.shape[1] + 1)
            m, s = c.mean(0), c.std(0)
            ax.plot(x, m, color=colours[label], label=label)
            # log axis: a band below zero is drawn down to the lowest mean's half
            ax.fill_between(x, np.maximum(m - s, 0.5 * m.min()), m + s, color=colours[label],
                            alpha=0.25, linewidth=0)
        ax.axhline(cad[group], color="grey", ls="--", lw=1, label="CAD model, not learned")
        ax.set_ylabel(f"{group} RMSE ({unit})")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
    planes = trials[0]["attrs"]["planes"]
    axes[0].legend(ncol=4, fontsize=8)
    axes[1].set_xlabel(f"samples of the {planes['test'].upper()} part (10 Hz)")
    heading = (title or "Thesis Fig. 8.4") + " — " + LABEL
    two_lines = len(heading) > _TITLE_CHARS
    if two_lines:  # else both ends are cut off
        heading = (title or "Thesis Fig. 8.4") + "\n" + LABEL
    fig.suptitle(heading, fontsize=9)
    fig.text(0.01, 0.005, f"mean ± std over {len(trials)} parts of {planes['test'].upper()} "
             f"after training on {planes['train'].upper()}; {window}-sample window;\n"
             f"{selected_text(trials)}", fontsize=7)
    fig.tight_layout(rect=(0, 0.05, 1, 0.94 if two_lines else 0.96))
    return fig


def figures(config: Mapping[str, Any], records: Sequence[Trial]) -> dict[str, Figure]:
    """The run's figure: ``{"fig8_4.png": Figure 8.4}`` (:func:`draw`)."""
    return {FIGURE_FILE: draw(records, title=f"{config['name']}: thesis Fig. 8.4")}


def files(config: Mapping[str, Any], records: Sequence[Trial]) -> dict[str, str]:
    """The run's data file: ``{"curves.csv": the tidy curves}`` (:func:`curve_rows`, at full
    precision)."""
    return {CSV_FILE: pd.DataFrame(curve_rows(records)).to_csv(index=False)}
