"""Validation and test RMSE of NKRLS against λ, on the trials of a Table 2 config.

Why: on Ijcnn1 NKRLS's test RMSE (0.54) is far from the paper's (0.469) although the solver is
sound. This script shows the whole λ path of each trial — the validation RMSE that selects λ*
and the test RMSE that Table 2 reports — on exactly the runner's splits and centers (same
config, same trial seeds), so the gap can be read off the curves instead of tuned away.

Writes ``<out>/<name>.csv`` (trial, λ, validation RMSE, test RMSE, test error), a figure
``<out>/<name>.png`` (mean over trials, every trial thin) and prints a Markdown table of the
mean curves around the selected λ*::

    .venv/bin/python -m reproduce.nytro.nkrls_lambda_curve configs/ijcnn1_nkrls.yaml \\
        --out results/figures --name ijcnn1_nkrls_lambda_curve
    .venv/bin/python -m reproduce.nytro.nkrls_lambda_curve configs/ijcnn1_nkrls.yaml --smoke \\
        --out DIR --name ijcnn1_nkrls_lambda_curve   # the config at smoke size: seconds

At smoke size (``--smoke``: ``kernreg run --smoke``'s config, 400 rows, 1 trial, 3 λ) the
curves mean nothing; the files have the full run's layout.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from kernreg.config import load_experiment
from kernreg.experiment import make_estimator, prepare_data, resolve_blas_threads, trial_split
from kernreg.solvers import misclassification_rate, rmse


def lambda_curves(config: Path, trials: int | None, smoke: bool = False) -> pd.DataFrame:
    """One row per (trial, λ): validation RMSE, test RMSE and test error of NKRLS (``smoke``:
    the config at smoke size)."""
    exp = load_experiment(config, smoke=smoke)
    (algo,) = [a for a in exp.algorithms if a.name == "nkrls"]
    data = prepare_data(exp)
    rows = []
    with threadpool_limits(limits=resolve_blas_threads(exp.budget["blas_threads"])):
        for trial in range(trials or exp.protocol["trials"]):
            # the runner's split and centers
            seed, (X_fit, y_fit, X_val, y_val) = trial_split(exp, data, trial)
            est = make_estimator(algo, exp, random_state=seed).fit(X_fit, y_fit, X_val, y_val)
            test = est.predict_path(data.X_test)
            frame = pd.DataFrame({
                "trial": trial, "lambda": est.path_["lambdas"], "val_rmse": est.path_["val_rmse"],
                "test_rmse": rmse(data.y_test, test),
                "test_error": misclassification_rate(data.y_test, test, data.codes),
                "selected": est.path_["lambdas"] == est.best_lambda_})
            rows.append(frame)
            print(f"trial {trial}: λ* = {est.best_lambda_:.3g}, test RMSE "
                  f"{frame.loc[frame.selected, 'test_rmse'].iloc[0]:.4f}", flush=True)
    return pd.concat(rows, ignore_index=True)


def figure(curves: pd.DataFrame, title: str) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(7, 4.2), constrained_layout=True)
    for _, g in curves.groupby("trial"):
        ax.plot(g["lambda"], g["val_rmse"], color="C0", lw=0.5, alpha=0.5)
        ax.plot(g["lambda"], g["test_rmse"], color="C1", lw=0.5, alpha=0.5)
    mean = curves.groupby("lambda")[["val_rmse", "test_rmse"]].mean()
    ax.plot(mean.index, mean["val_rmse"], color="C0", lw=2, label="validation RMSE (selects λ)")
    ax.plot(mean.index, mean["test_rmse"], color="C1", lw=2, label="test RMSE (reported)")
    chosen = curves[curves["selected"]]
    ax.scatter(chosen["lambda"], chosen["test_rmse"], color="C3", zorder=3, label="λ* per trial")
    ax.set(xscale="log", xlabel="λ", ylabel="RMSE", title=title)
    ax.set_ylim(0, min(1.2, float(mean.to_numpy().max()) * 1.1))
    ax.legend()
    return fig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path, help="experiment config with an nkrls entry")
    parser.add_argument("--trials", type=int, help="default: the config's")
    parser.add_argument("--out", type=Path, default=Path("results/figures"))
    parser.add_argument("--name", help="file stem (default: <config stem>_lambda_curve)")
    parser.add_argument("--smoke", action="store_true",
                        help="the config at smoke size (tiny data, seconds; numbers mean nothing)")
    args = parser.parse_args(argv)
    name = args.name or f"{args.config.stem}_lambda_curve"
    curves = lambda_curves(args.config, args.trials, args.smoke)
    args.out.mkdir(parents=True, exist_ok=True)
    curves.to_csv(args.out / f"{name}.csv", index=False)
    fig = figure(curves, f"NKRLS λ path, {load_experiment(args.config).dataset['name']}, "
                         f"{curves['trial'].nunique()} trials")
    fig.savefig(args.out / f"{name}.png", dpi=120)
    plt.close(fig)  # run repeatedly in one interpreter (the smoke tests): no figure left open
    mean = curves.groupby("lambda")[["val_rmse", "test_rmse", "test_error"]].mean()
    selected = curves.loc[curves["selected"], "lambda"]
    centre = int(np.searchsorted(mean.index, np.median(selected)))
    window = mean.iloc[max(0, centre - 8):centre + 9]
    print("| λ | validation RMSE | test RMSE | test error |\n|---|---|---|---|")
    for lam, row in window.iterrows():
        mark = " (median λ*)" if np.isclose(lam, mean.index[centre]) else ""
        print(f"| {lam:.2g}{mark} | {row.val_rmse:.4f} | {row.test_rmse:.4f} | "
              f"{row.test_error:.4f} |")
    print(f"wrote {args.out / name}.csv, .png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
