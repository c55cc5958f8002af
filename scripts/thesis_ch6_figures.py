"""Thesis Figures 6.1 and 6.2 (adult, n = 1000): the regularization paths of SIGM (test hinge
loss per epoch, fixed and decaying step) and of one-pass SGM (test error against η and θ).

One run each, on trial 0 of ``configs/thesis_table6_adult_1000.yaml`` (the runner's subsample
and its 80 % fit rows, σ = 4): the test set is scored along the path (the estimators' validation
scoring pointed at the test rows, nothing selected). Writes ``<out>/thesis_fig6_1.png``,
``<out>/thesis_fig6_2.png`` and the curves as ``<out>/thesis_fig6_curves.csv``::

    .venv/bin/python scripts/thesis_ch6_figures.py --out results/figures
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kernreg.config import load_experiment
from kernreg.experiment import prepare_data, trial_split
from kernreg.kernels import make_kernel
from kernreg.solvers import MultiPassSGM, OnePassSGM

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "thesis_table6_adult_1000.yaml"
EPOCHS = 100


def curves(config: Path) -> pd.DataFrame:
    """Rows (figure, panel, x, test_hinge, test_error)."""
    exp = load_experiment(config)
    sigma = float(exp.kernel["sigma"])
    data = prepare_data(exp)
    seed, (X, y, _, _) = trial_split(exp, data, 0)
    Xt, yt = data.X_test, data.y_test
    K_test = make_kernel("gaussian", sigma)(Xt, X)

    def measures(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        F = K_test @ A
        return (np.maximum(0.0, 1.0 - yt[:, None] * F).mean(axis=0),
                (np.where(F >= 0, 1.0, -1.0) != yt[:, None]).mean(axis=0))

    rows = []
    n = X.shape[0]
    for panel, eta, theta in (("a: η = 1/√n, θ = 0", 1.0 / np.sqrt(n), 0.0),
                              ("b: η = 1/4, θ = 1/2", 0.25, 0.5)):
        for measure in ("hinge", "error"):
            est = MultiPassSGM(sigma=sigma, step_size=eta, theta=theta, max_iter=EPOCHS,
                               stopping_rule="none", validation_measure=measure,
                               random_state=seed).fit(X, y, Xt, yt)
            path = est.path_["val_rmse"]
            if measure == "hinge":
                hinge = path
            else:
                error = path
        rows.append(pd.DataFrame({"figure": "6.1", "panel": panel, "x": np.arange(1, EPOCHS + 1),
                                  "test_hinge": hinge, "test_error": error}))
    for panel, kwargs in (("a: θ = 0, η", {"schedule": "constant"}),
                          ("b: η = 1/4, θ", {"schedule": "decaying", "eta": 0.25})):
        est = OnePassSGM(sigma=sigma, random_state=seed, **kwargs).fit(X, y, Xt, yt)
        hinge, error = measures(est.coef_path_)
        rows.append(pd.DataFrame({"figure": "6.2", "panel": panel, "x": est.path_["values"],
                                  "test_hinge": hinge, "test_error": error}))
    return pd.concat(rows, ignore_index=True)


def draw(table: pd.DataFrame, figure: str, xlabel: dict[str, str], logx: bool) -> plt.Figure:
    panels = list(dict.fromkeys(table.loc[table.figure == figure, "panel"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(10, 3.8), constrained_layout=True)
    for ax, panel in zip(axes, panels, strict=True):
        g = table[(table.figure == figure) & (table.panel == panel)]
        ax.plot(g["x"], g["test_hinge"], "o-" if figure == "6.2" else "-", ms=3, color="C0",
                label="test hinge loss")
        ax.plot(g["x"], g["test_error"], "s--" if figure == "6.2" else "--", ms=3, color="C3",
                label="test classification error")
        best = g["test_hinge"].idxmin()
        ax.axvline(g.loc[best, "x"], color="0.6", lw=0.8)
        if figure == "6.2" and panel.startswith("a"):
            ax.set_xscale("log")
        ax.set_xlabel(xlabel[panel[0]])
        ax.set_title(f"({panel})")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    what = "SIGM, test error per epoch" if figure == "6.1" else "one-pass SGM, test error"
    fig.suptitle(f"Thesis Figure {figure}: {what} (adult, 800 fit rows of a 1000 subset, σ = 4)")
    return fig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--out", type=Path, default=Path("results/figures"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    table = curves(args.config)
    table.to_csv(args.out / "thesis_fig6_curves.csv", index=False, float_format="%.6g")
    draw(table, "6.1", {"a": "epoch", "b": "epoch"}, False).savefig(
        args.out / "thesis_fig6_1.png", dpi=110)
    draw(table, "6.2", {"a": "η (θ = 0)", "b": "θ (η = 1/4)"}, True).savefig(
        args.out / "thesis_fig6_2.png", dpi=110)
    for (fig, panel), g in table.groupby(["figure", "panel"], sort=False):
        best = g.loc[g["test_hinge"].idxmin()]
        last = g.iloc[-1]
        print(f"Figure {fig} ({panel}): min test hinge {best.test_hinge:.4f} at x = {best.x:.3g}"
              f" (error {best.test_error:.4f}); last x = {last.x:.3g}: hinge "
              f"{last.test_hinge:.4f}, error {last.test_error:.4f}; first: hinge "
              f"{g.iloc[0].test_hinge:.4f}")


if __name__ == "__main__":
    main()
