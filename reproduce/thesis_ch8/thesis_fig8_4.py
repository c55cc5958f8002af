"""Thesis Figure 8.4, SIMULATED on the iCub URDF (not the thesis's recordings): force and torque
RMSE of the incremental P, NP and SP estimators on the sagittal circles after training on the
transverse ones.

    python -m reproduce.thesis_ch8.thesis_fig8_4 --csv results/thesis_fig8_4_sim.csv \\
        -o results/figures/thesis_fig8_4_sim.png

Protocol (thesis Section 8.3): every model starts at zero (inertial parameters too), learns the
whole XY set sample by sample, then each of the 10 sequential parts of XZ (1000 samples) is
run test-then-update from the XY-trained state; the curves are the RMSE over a trailing
30-sample window, mean ± std over the parts. D is fixed (``--n-components``); σ and λ are
chosen on XY alone: batch ridge (equal to the recursion's final state) on its first 90 %,
validated on its last 10 % by the RMSE of the outputs divided by their training std, over
the grids :data:`SIGMAS` × :data:`LAMBDAS` (and :data:`LAMBDAS_P` for the parametric part).
The smoke run (``--smoke``) uses 300 samples, 3 parts and D = 40.
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path

import numpy as np

from kernreg.features import RandomFourierFeatures
from kernreg.solvers.blocks.recursive_rls import batch_ridge
from kernreg.solvers.online import ParametricRLS, RandomFeaturesRLS, SemiparametricRLS
from reproduce.results_csv import write_results_csv
from reproduce.thesis_ch8.simulate import simulate

SIGMAS = (1.0, 2.0, 4.0, 8.0, 16.0)  # on standardized inputs (12 dimensions)
LAMBDAS = (1e-7, 1e-5, 1e-3, 1e-1, 1e1)
#: λ_P below 1e-6 leaves ``AᵀA + λI`` of the 50 partly unidentifiable inertial parameters
#: numerically singular (rcond ~ 1e-16) and the inverse-form recursion inexact.
LAMBDAS_P = (1e-6, 1e-4, 1e-2, 1.0, 1e2)
GROUPS = {"force": slice(0, 3), "torque": slice(3, 6)}
LABEL = "SIMULATED on the iCub URDF (icub-models + idyntree), not the thesis's recordings"


def _score(pred: np.ndarray, y: np.ndarray, scale: np.ndarray) -> float:
    return float(np.sqrt(np.mean(((pred - y) / scale) ** 2)))


def select(Z: np.ndarray, Y: np.ndarray, y: np.ndarray, n_components: int, seed: int
           ) -> dict[str, float]:
    """σ, λ (and λ_P) on XY: batch fits on its first 90 %, scored on its last 10 %."""
    n = int(0.9 * len(y))
    scale = y[:n].std(0)
    A = Y.reshape(len(y) * 6, -1)
    scores = {lp: _score(Y[n:] @ batch_ridge(A[:6 * n], y[:n].reshape(-1), lp)[:, 0], y[n:],
                         scale) for lp in LAMBDAS_P}
    lam_p = min(scores, key=scores.get)
    parametric = Y @ batch_ridge(A[:6 * n], y[:n].reshape(-1), lam_p)[:, 0]
    best: dict[str, tuple[float, float, float]] = {}
    for sigma in SIGMAS:
        fmap = RandomFourierFeatures(n_components, sigma, random_state=seed).draw(Z.shape[1])
        F = fmap.transform(Z) * fmap.scale  # the features RandomFeaturesRLS draws from `seed`
        for lam in LAMBDAS:
            for name, target, base in (("np", y, 0.0), ("sp", y - parametric, parametric)):
                W = batch_ridge(F[:n], target[:n], lam)
                s = _score(base[n:] + F[n:] @ W if name == "sp" else F[n:] @ W, y[n:], scale)
                if name not in best or s < best[name][0]:
                    best[name] = (s, sigma, lam)
    return {"lam_p": lam_p, "sigma_np": best["np"][1], "lam_np": best["np"][2],
            "sigma_sp": best["sp"][1], "lam_sp": best["sp"][2]}


def windowed_rmse(errors: np.ndarray, window: int) -> np.ndarray:
    """RMSE over the trailing ``window`` samples (fewer at the start) of (n, c) errors."""
    sq = np.cumsum(np.mean(errors**2, axis=1))
    n = np.arange(1, len(sq) + 1)
    lower = np.concatenate([np.zeros(window), sq[:-window]])[: len(sq)]
    return np.sqrt((sq - lower) / np.minimum(n, window))


def run(n_samples: int, n_parts: int, window: int, n_components: int, seed: int
        ) -> tuple[list[dict], dict]:
    model, _, data = simulate(n_samples, seed)
    xy, xz = data["xy"], data["xz"]
    mean, std = xy.inputs.mean(0), xy.inputs.std(0)
    Zxy, Zxz = (xy.inputs - mean) / std, (xz.inputs - mean) / std

    def regressor(Z: np.ndarray) -> np.ndarray:  # the estimators see standardized inputs
        return model.regressor(np.atleast_2d(Z) * std + mean)

    Yxy = model.regressor(xy.inputs)
    chosen = select(Zxy, Yxy, xy.wrench, n_components, seed)
    estimators = {
        "P": ParametricRLS(regressor, chosen["lam_p"]),
        "NP": RandomFeaturesRLS(n_components, chosen["sigma_np"], chosen["lam_np"],
                                random_state=seed),
        "SP": SemiparametricRLS(regressor, n_components, chosen["sigma_sp"], chosen["lam_p"],
                                chosen["lam_sp"], random_state=seed),
    }
    rows: list[dict] = []
    part = len(Zxz) // n_parts
    for name, est in estimators.items():
        est.partial_fit(Zxy, xy.wrench)
        for j in range(n_parts):
            rows_j = slice(j * part, (j + 1) * part)
            pred = copy.deepcopy(est).predict_update(Zxz[rows_j], xz.wrench[rows_j])
            for group, cols in GROUPS.items():
                curve = windowed_rmse(pred[:, cols] - xz.wrench[rows_j, cols], window)
                rows += [{"estimator": name, "group": group, "part": j, "sample": i + 1,
                          "rmse": float(r)} for i, r in enumerate(curve)]
    cad = {g: float(np.sqrt(np.mean((xz.cad_wrench[:, c] - xz.wrench[:, c]) ** 2)))
           for g, c in GROUPS.items()}
    return rows, {**chosen, "cad_rmse": cad, "trajectory_xy": xy.info, "trajectory_xz": xz.info}


def curves(rows: list[dict]) -> dict[tuple[str, str], np.ndarray]:
    """(estimator, group) → array (parts, samples)."""
    out: dict[tuple[str, str], dict[int, list[float]]] = {}
    for r in rows:
        out.setdefault((r["estimator"], r["group"]), {}).setdefault(r["part"], []).append(
            r["rmse"])
    return {k: np.array([v[p] for p in sorted(v)]) for k, v in out.items()}


def plot(rows: list[dict], info: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = curves(rows)
    fig, axes = plt.subplots(2, 1, figsize=(7, 6.5), sharex=True)
    colours = {"SP": "tab:blue", "NP": "tab:red", "P": "tab:green"}
    for ax, (group, unit) in zip(axes, (("force", "N"), ("torque", "N·m")), strict=True):
        for name, colour in colours.items():
            c = data[(name, group)]
            x = np.arange(1, c.shape[1] + 1)
            m, s = c.mean(0), c.std(0)
            ax.plot(x, m, color=colour, label=name)
            # log axis: a band below zero is drawn down to the lowest mean's half
            ax.fill_between(x, np.maximum(m - s, 0.5 * m.min()), m + s, color=colour,
                            alpha=0.25, linewidth=0)
        ax.axhline(info["cad_rmse"][group], color="grey", ls="--", lw=1,
                   label="CAD model, not learned")
        ax.set_ylabel(f"{group} RMSE ({unit})")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
    axes[0].legend(ncol=4, fontsize=8)
    axes[1].set_xlabel("samples of the XZ part (10 Hz)")
    fig.suptitle("Thesis Fig. 8.4 — " + LABEL, fontsize=9)
    fig.text(0.01, 0.005, f"mean ± std over {data[('P', 'force')].shape[0]} parts of XZ after "
             f"training on XY; {info['window']}-sample window;\nD={info['n_components']}, "
             f"σ_NP={info['sigma_np']}, λ_NP={info['lam_np']}, σ_SP={info['sigma_sp']}, "
             f"λ_SP={info['lam_sp']}, λ_P={info['lam_p']}", fontsize=7)
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", default="results/thesis_fig8_4_sim.csv")
    parser.add_argument("-o", "--output", default="results/figures/thesis_fig8_4_sim.png")
    parser.add_argument("--n-samples", type=int, default=10_000)
    parser.add_argument("--parts", type=int, default=10)
    parser.add_argument("--window", type=int, default=30)
    parser.add_argument("--n-components", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="300 samples, 3 parts, D = 40")
    args = parser.parse_args(argv)
    if args.smoke:
        args.n_samples, args.parts, args.window, args.n_components = 300, 3, 10, 40
    start = time.perf_counter()
    rows, info = run(args.n_samples, args.parts, args.window, args.n_components, args.seed)
    info.update(window=args.window, n_components=args.n_components)
    write_results_csv(args.csv, rows)
    plot(rows, info, Path(args.output))
    data = curves(rows)
    for (name, group), c in sorted(data.items()):
        first, last = c[:, : args.window].mean(1), c[:, -args.window:].mean(1)
        print(f"{name:2s} {group:6s} first window {first.mean():.4g} ± {first.std():.2g}  "
              f"last window {last.mean():.4g} ± {last.std():.2g}")
    print(f"chosen: {info}")
    print(f"wrote {args.csv} and {args.output} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
