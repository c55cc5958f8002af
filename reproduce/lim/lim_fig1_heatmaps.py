"""LiM Figure 1 as the authors drew it: the breast-cancer panel in validation classification
error, and the colour range of every panel beside the paper's.

``val_error``  re-fits the trials of an incremental-Nyström config (configs/<stem>.yaml: the
    same splits, seeds and centers as ``kernreg run``) and scores every (λ, m') model of the
    grid on the trial's validation rows by the classification error, the measure the authors'
    Figure 1 script colours (Enitor scripts/scriptone_nips/prova_sigma_forzato_breastCancer.m,
    2015-06-05: ``pcolor`` of the mean validation performance, colour bar "Classification
    Error"); the run itself selects and stores by validation RMSE. The trial records carry the
    classification error as their validation measure, and kernreg's heat map
    (:func:`kernreg.results.figures.heatmap_figure`) draws them:
    ``<results>/figures/<stem>__heatmap_val_error.png``. Each trial's (m*, λ*) is the authors'
    selection: the first minimum of the validation error with m ascending and λ from the
    largest down (their loop order).
``ranges``  the colour range of each panel (min and max of the mean grid the heat map draws),
    each trial's selected (m*, λ*) and the test measure of the selected models, beside the
    ticks of the paper's colour bars: ``<results>/lim_fig1_ranges.csv`` (docs/lim.md
    renders it). It reads the kernreg runs of the panels (``--runs``, default the results
    folder: ``python -m reproduce.run_figures`` / ``kernreg run`` write them there) and
    recomputes the validation-error grid of ``val_error``.

    python -m reproduce.lim.lim_fig1_heatmaps val_error lim_fig1_breast_cancer_identity
    python -m reproduce.lim.lim_fig1_heatmaps ranges
    python -m reproduce.lim.lim_fig1_heatmaps val_error lim_fig1_breast_cancer_identity \\
        --smoke --results {out}
    python -m reproduce.lim.lim_fig1_heatmaps ranges --smoke --runs {work} --results {out}
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kernreg.config import experiment_task, load_experiment, make_estimator
from kernreg.experiment.trial import prepare_data, trial_split
from kernreg.losses import get_measure
from kernreg.results.figures import heatmap_figure, save_figure
from kernreg.results.record import TrialRecord
from kernreg.results.store import RunData, load_run, tidy_row
from reproduce.results_csv import write_results_csv

ROOT = Path(__file__).resolve().parents[2]
VAL_ERROR_STEM = "lim_fig1_breast_cancer_identity"
FIGURE = "heatmap_val_error"

#: The panels of LiM Figure 1 (kernreg runs, and the validation-error grid of ``val_error``),
#: the ticks at the ends of the paper's colour bars (LiM Figure 1, from the extracted axis
#: text) and the penalty and measure of each.
PANELS: tuple[dict[str, Any], ...] = (
    {"panel": "pumadyn-32nh", "source": "lim_fig1_pumadyn32nh", "penalty": "λn·K_mm",
     "paper_low": 0.032, "paper_high": 0.035},
    {"panel": "breast cancer", "source": "lim_fig1_breast_cancer", "penalty": "λn·K_mm",
     "paper_low": 0.04, "paper_high": 0.1},
    {"panel": "breast cancer", "source": f"{VAL_ERROR_STEM}:val_error",
     "penalty": "λn·I, {0, 1} targets", "paper_low": 0.04, "paper_high": 0.1},
    {"panel": "cpuSmall", "source": "lim_fig1_cpusmall", "penalty": "λn·K_mm",
     "paper_low": 15.0, "paper_high": 25.0},
    {"panel": "cpuSmall", "source": "lim_fig1_cpusmall_identity", "penalty": "λn·I, no refit",
     "paper_low": 15.0, "paper_high": 25.0},
)


def authors_pick(val: np.ndarray) -> tuple[int, int]:
    """(λ index, m index) of the first minimum of ``val`` (L, M) with m ascending and λ from the
    largest down, strict ``<``: the loop order of the authors' model selection."""
    best, pick = np.inf, (0, 0)
    for k in range(val.shape[1]):
        for j in reversed(range(val.shape[0])):
            if val[j, k] < best:
                best, pick = val[j, k], (j, k)
    return pick


def val_error_run(stem: str, smoke: bool = False) -> RunData:
    """The trials of ``configs/<stem>.yaml`` re-fitted and scored on their validation rows by
    the classification error: trial records whose validation path is that error."""
    exp = load_experiment(ROOT / "configs" / f"{stem}.yaml", smoke=smoke)
    (algo,) = exp.algorithms
    data = prepare_data(exp)
    task = experiment_task(exp.task, exp.dataset["name"])
    records = []
    for t in range(exp.protocol["trials"]):
        seed, (X_fit, y_fit, X_val, y_val) = trial_split(exp, data, t)
        est = make_estimator(algo, exp, random_state=seed)
        start = time.perf_counter()
        est.fit(X_fit, y_fit, X_val, y_val, X_eval=np.vstack([X_val, data.X_test]))
        seconds = time.perf_counter() - start
        chosen = est.selection()
        outputs = est.eval_outputs_  # (L, M, n_val + n_test)
        L, M = outputs.shape[:2]
        val, test = np.full((L, M), np.nan), {}
        for j in range(L):
            for k in range(M):
                if not np.all(np.isfinite(outputs[j, k])):
                    continue
                val[j, k] = task.evaluate(y_val, outputs[j, k, :len(y_val)], data.codes)["error"]
                for name, value in task.evaluate(data.y_test, outputs[j, k, len(y_val):],
                                                 data.codes).items():
                    test.setdefault(name, np.full((L, M), np.nan))[j, k] = value
        j, k = authors_pick(val)
        measures = {name: float(grid[j, k]) for name, grid in test.items()}
        records.append(TrialRecord(
            algorithm=algo.name, label=algo.label, trial=t, seed=seed, param_name="lambda",
            selected=float(chosen.path_values[j]), path_values=chosen.path_values,
            val_rmse=val, model_selection_time=seconds, predict_time=0.0,
            test_rmse=measures.get("rmse", float("nan")),
            test_error=measures.get("error", float("nan")), peak_rss=0, n_fit=len(y_fit),
            n_val=len(y_val), n_test=len(data.y_test),
            info={"m_selected": int(chosen.m_values[k])}, m_values=chosen.m_values,
            task=task.name, val_measure="error", measures=measures, test_path=test))
    context = {"experiment": exp.name, "dataset": exp.dataset["name"], "m": algo.params["m"]}
    return RunData(exp.name, exp.dataset["name"], records,
                   pd.DataFrame([tidy_row(r, context) for r in records]),
                   ROOT / "results" / exp.name)


def draw_val_error(stem: str, results: Path, smoke: bool = False) -> Path:
    """``<results>/figures/<stem>__heatmap_val_error.png``."""
    run = val_error_run(stem, smoke)
    fig = heatmap_figure(run, run.records[0].label)
    assert fig is not None  # an incremental config: trials over (λ, m')
    (path,) = save_figure(fig, [results / "figures" / f"{stem}__{FIGURE}.png"])
    return path


def panel_row(panel: dict[str, Any], run: RunData) -> dict[str, Any]:
    """The colour range of ``run``'s heat map (the mean grid over its trials), its selections
    and the test measure of the selected models."""
    recs = [r for r in run.records if r.m_values.size and r.path_values.size > 1]
    grids = np.stack([r.val_rmse for r in recs])  # one grid for every trial of these configs
    mean = np.nanmean(grids, axis=0)
    measure = recs[0].val_measure
    test_name = "error" if measure == "error" else "rmse"
    test = np.array([r.measures.get(test_name, r.test_rmse) for r in recs], dtype=float)
    m_star = [int(r.info["m_selected"]) for r in recs]
    lam_star = [float(r.selected) for r in recs]
    words = "classification error" if measure == "error" else get_measure(measure).title
    return {**panel, "coloured_by": f"validation {words}", "trials": len(recs),
            "colour_min": float(np.nanmin(mean)), "colour_max": float(np.nanmax(mean)),
            "m_star_min": min(m_star), "m_star_max": max(m_star),
            "lambda_star_min": min(lam_star), "lambda_star_max": max(lam_star),
            "test_measure": test_name, "test_mean": float(test.mean()),
            "test_std": float(test.std(ddof=0))}


def ranges(runs: Path, results: Path, smoke: bool = False) -> Path:
    """``<results>/lim_fig1_ranges.csv``: one row per panel of :data:`PANELS`."""
    rows = []
    for panel in PANELS:
        source = panel["source"]
        run = (val_error_run(source.split(":")[0], smoke) if source.endswith(":val_error")
               else load_run(runs / source))
        rows.append(panel_row(panel, run))
    path = results / "lim_fig1_ranges.csv"
    write_results_csv(path, rows, "LiM Figure 1: the colour range of each heat map beside the "
                                  "ticks at the ends of the paper's colour bar: python -m "
                                  "reproduce.lim.lim_fig1_heatmaps ranges")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reproduce.lim.lim_fig1_heatmaps",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["val_error", "ranges"])
    parser.add_argument("stem", nargs="?", default=VAL_ERROR_STEM,
                        help=f"val_error: the config under configs/ ({VAL_ERROR_STEM})")
    parser.add_argument("--smoke", action="store_true", help="the configs at smoke size")
    parser.add_argument("--results", type=Path, default=ROOT / "results",
                        help="where the PNG (figures/) and the CSV go")
    parser.add_argument("--runs", type=Path, help="ranges: the kernreg runs (default --results)")
    args = parser.parse_args(argv)
    if args.what == "val_error":
        print(draw_val_error(args.stem, args.results, args.smoke))
    else:
        print(ranges(args.runs or args.results, args.results, args.smoke))
    return 0


if __name__ == "__main__":
    sys.exit(main())
