"""Thesis Figure 5.2: random-feature KRLS on the spline model of §5.4 — excess risk, λ_n and m_n
against n, simulated (exact risks) beside Theorem 11's rates.

Model (kernreg.theory.spline_rf.SplineRFModel): inputs and features uniform on [0, 1], features
``ψ(ω, x) = Λ_{1/(2γ)}(ω, x)`` (kernel ``Λ_{1/γ}``), target ``f_ρ = Λ_{r/γ+1/2+ε}(·, x₀)``,
Gaussian noise. Per repetition: ``n`` inputs; λ_n = the λ minimizing KRLS's excess risk
(exact, averaged over the noise, on a grid of 0.025 decades); m_n = the smallest number of random
features from which on RF-KRLS's excess risk at λ_n (averaged over ``--feature-draws`` draws of
the features; prefixes of each draw, on a grid growing by 8%) stays within 5% of KRLS's, up to
twice that number; NaN (left out of the statistics, counted in ``m_not_found``) when no m ≤ 2n
qualifies. (The first m within 5% is unstable: RF risk curves are not monotone in m, and a
lucky small draw can dip under the threshold; the thesis does not say how it handled this.)
Mean ± standard deviation over ``--reps`` repetitions (the thesis's 100), medians, and the
log-log slopes of both with 95% bootstrap intervals over the repetitions. Dotted: the
predicted rates of Theorem 11 with α = γ (λ ∝ n^(−1/(2r+γ)), m ∝ n^(c/(2r+γ)) with
c = 2r − 1 + γ, risk ∝ n^(−2r/(2r+γ))), through the measured means (least squares, slope fixed).

RF-KRLS's risks are computed with each feature truncated to its first ``--feature-modes``
frequencies (96; KRLS's kernel keeps the frequencies with eigenvalues above 1e-9):
``SplineRFModel.rf_risk_prefixes`` then costs a (2·96 + 1)-square solve per m whatever m and n,
where the exact features need an m × m eigendecomposition per m (m_n reaches thousands at
n = 10⁴ in the second row). ``--check-truncation`` measures the relative gap to the exact
features along m at KRLS's λ_n: at most 6e-8 (first row) and 4.2e-4 (second row) at n = 10³
and 3162 — against the 5% threshold.

Left open by the thesis: the noise level (σ = ``--noise``, default 0.5), ε (``--eps``, 0.05),
x₀ (0: the risks do not depend on it, inputs being uniform on the circle). Both panels' rows are
the thesis's (r, γ) = (11/16, 1/8) and (7/8, 1/4).

    python -m reproduce.thesis_ch5.thesis_fig5_2 -o results/figures/thesis_fig5_2.png

Smoke sizes (the figure and its JSON in seconds, numbers meaningless): fewer repetitions, n from
``--n-min`` to ``--n-max`` (default 10³ to 10⁴), fewer feature modes, fewer bootstrap resamples:

    python -m reproduce.thesis_ch5.thesis_fig5_2 -o OUT.png --reps 2 --n-min 100 --n-max 300 \\
        --feature-modes 16 --bootstrap 50
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from kernreg.theory.column_sampling import rank_grid
from kernreg.theory.spline_rf import THESIS_FIG5_2_SETTINGS, SplineRFModel

LAMBDAS = np.logspace(-7, 0, 281)


def repetition(model: SplineRFModel, n: int, rng: np.random.Generator, draws: int,
               modes: int) -> tuple[float, ...]:
    x = rng.uniform(size=n)
    risks = model.krls_risk(x, LAMBDAS)
    j = int(np.argmin(risks))
    lam, best = float(LAMBDAS[j]), float(risks[j])
    ms = rank_grid(4 * n, 1.08)
    paths = [model.rf_risk_prefixes(x, rng.uniform(size=4 * n), lam, ms, modes)
             for _ in range(draws)]
    start = None  # grid index from which on the mean risk has stayed within 5%
    for i, risks_m in enumerate(zip(*paths, strict=True)):
        if np.mean(risks_m) > 1.05 * best:
            start = None
        elif start is None:
            start = i
        if start is not None and ms[i] >= 2 * ms[start]:  # within 5% from m up to 2m
            return lam, best, float(ms[start])
    return lam, best, float("nan")


def check_truncation(model: SplineRFModel, n: int, modes: int, rng: np.random.Generator
                     ) -> float:
    """Largest relative gap between the risks of truncated and exact features along a grid
    of m up to 3000, at KRLS's λ_n."""
    x, omegas = rng.uniform(size=n), rng.uniform(size=3000)
    lam = float(LAMBDAS[int(np.argmin(model.krls_risk(x, LAMBDAS)))])
    ms = rank_grid(3000, 1.25)
    exact = model.rf_risk(x, omegas, lam, ms)
    return float(np.max(np.abs(model.rf_risk_truncated(x, omegas, lam, ms, modes) / exact - 1)))


def fitted_line(n: np.ndarray, values: np.ndarray, slope: float) -> np.ndarray:
    intercept = np.mean(np.log(values) - slope * np.log(n))
    return np.exp(intercept) * n ** slope


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path,
                        default=Path("results/figures/thesis_fig5_2.png"))
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--feature-draws", type=int, default=2)
    parser.add_argument("--feature-modes", type=int, default=96,
                        help="frequencies kept in each random feature (see --check-truncation)")
    parser.add_argument("--check-truncation", action="store_true",
                        help="print the risk gap between truncated and exact features and exit")
    parser.add_argument("--noise", type=float, default=0.5)
    parser.add_argument("--eps", type=float, default=0.05)
    parser.add_argument("--n-min", type=float, default=1e3)
    parser.add_argument("--n-max", type=float, default=1e4)
    parser.add_argument("--bootstrap", type=int, default=2000,
                        help="resamples of the repetitions behind each slope's interval")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", type=int, nargs="+", default=[0, 1],
                        help="which settings to simulate (0: r = 11/16, γ = 1/8; 1: r = 7/8, "
                             "γ = 1/4)")
    parser.add_argument("--from-json", type=Path, nargs="+",
                        help="redraw from previous runs' JSON lines (one setting each)")
    args = parser.parse_args()
    if args.from_json:
        summary = [json.loads(line) for path in args.from_json
                   for line in path.read_text().splitlines() if line.startswith("{")]
        draw(summary, args.out, args.bootstrap)
        return
    if args.check_truncation:
        for row in args.rows:
            model = SplineRFModel(*THESIS_FIG5_2_SETTINGS[row], eps=args.eps, noise=args.noise)
            rng = np.random.default_rng(args.seed)
            for n in (1000, 3162):
                for _ in range(2):
                    gap = check_truncation(model, n, args.feature_modes, rng)
                    print(f"row {row} n = {n} modes = {args.feature_modes}: largest relative "
                          f"risk gap {gap:.1e}", flush=True)
        return
    ns = np.unique(np.round(np.logspace(np.log10(args.n_min), np.log10(args.n_max), 5))
                   .astype(int))
    summary = []
    for row in args.rows:
        r, gamma = THESIS_FIG5_2_SETTINGS[row]
        model = SplineRFModel(r, gamma, eps=args.eps, noise=args.noise)
        rng = np.random.default_rng(args.seed + row)
        runs = np.array([[repetition(model, int(n), rng, args.feature_draws, args.feature_modes)
                          for _ in range(args.reps)]
                         for n in ns])  # (n, reps, 3): λ, risk, m
        means, stds = np.nanmean(runs, axis=1), np.nanstd(runs, axis=1)
        summary.append({"r": r, "gamma": gamma, "n": ns.tolist(), "reps": args.reps,
                        "feature_draws": args.feature_draws, "noise": args.noise,
                        "feature_modes": args.feature_modes, "seed": args.seed,
                        "eps": args.eps, "predicted": model.predicted_exponents(),
                        "mean": means.tolist(), "std": stds.tolist(),
                        "runs": runs.tolist()})
        print(json.dumps(summary[-1]), flush=True)
    draw(summary, args.out, args.bootstrap)


def slope(ns: np.ndarray, values: np.ndarray) -> float:
    return float(np.polyfit(np.log(ns), np.log(values), 1)[0])


def bootstrap_slopes(ns: np.ndarray, runs: np.ndarray, statistic: str, resamples: int = 2000,
                     seed: int = 0) -> np.ndarray:
    """Slopes of ``statistic`` (``nanmean`` or ``nanmedian`` over repetitions) against n for
    ``resamples`` resamplings of the repetitions at each n: (resamples, 3) for λ, risk, m."""
    rng = np.random.default_rng(seed)
    reduce = getattr(np, statistic)
    reps = runs.shape[1]
    out = np.empty((resamples, 3))
    for b in range(resamples):
        picked = np.stack([runs[i, rng.integers(0, reps, reps)] for i in range(len(ns))])
        with warnings.catch_warnings():
            # a resample whose every repetition is NaN (at smoke size) is NaN, as it should be
            warnings.simplefilter("ignore", RuntimeWarning)
            values = reduce(picked, axis=1)
        out[b] = [slope(ns, values[:, k]) for k in range(3)]
    return out


def draw(summary: list[dict], out: Path, resamples: int = 2000) -> None:
    """One row per setting: excess risk, λ_n, m_n against n, measured and predicted; the
    slopes of the means (the thesis's statistic) and of the medians, with 95% bootstrap
    intervals (``resamples`` resamplings) over the repetitions when the runs are recorded."""
    fig, axes = plt.subplots(len(summary), 3, figsize=(15, 4 * len(summary)), squeeze=False)
    for row, res in enumerate(summary):
        ns, pred = np.array(res["n"]), res["predicted"]
        means, stds = np.array(res["mean"]), np.array(res["std"])
        runs = np.array(res["runs"], dtype=float) if "runs" in res else None
        res["measured_slope"], res["slope_interval"] = {}, {}
        res["median_slope"], res["median_slope_interval"] = {}, {}
        boot = ({stat: bootstrap_slopes(ns, runs, stat, resamples)
                 for stat in ("nanmean", "nanmedian")}
                if runs is not None else {})
        for ax, k, key, label in ((axes[row, 0], 1, "risk", "excess risk"),
                                  (axes[row, 1], 0, "lambda", "λ_n"),
                                  (axes[row, 2], 2, "m", "m_n (5% of KRLS)")):
            ax.errorbar(ns, means[:, k], yerr=stds[:, k], fmt="o-", capsize=3,
                        label=f"simulated (mean ± std, {res.get('reps', '?')} reps)")
            ax.loglog(ns, fitted_line(ns, means[:, k], pred[key]), "k:",
                      label=f"theory: n^({pred[key]:+.3f})")
            res["measured_slope"][key] = slope(ns, means[:, k])
            title = f"slope {res['measured_slope'][key]:+.3f}"
            if runs is not None:
                res["m_not_found"] = np.isnan(runs[:, :, 2]).sum(axis=1).tolist()
                medians = np.nanmedian(runs[:, :, k], axis=1)
                ax.plot(ns, medians, "s--", ms=4, color="tab:green", label="median")
                res["median_slope"][key] = slope(ns, medians)
                res["slope_interval"][key] = np.percentile(boot["nanmean"][:, k],
                                                           [2.5, 97.5]).tolist()
                res["median_slope_interval"][key] = np.percentile(boot["nanmedian"][:, k],
                                                                  [2.5, 97.5]).tolist()
                low, high = res["slope_interval"][key]
                title += f" [{low:+.2f}, {high:+.2f}]"
            ax.set(xscale="log", yscale="log", xlabel="n", ylabel=label)
            ax.set_title(f"r = {res['r']:g}, γ = {res['gamma']:g}: {label}\nmeans' {title} "
                         f"(theory {pred[key]:+.3f})", fontsize=10)
            ax.legend(fontsize=8)
    fig.suptitle(f"Thesis Figure 5.2: RF-KRLS on the spline model (noise σ = "
                 f"{summary[0].get('noise', 0.5):g}, ε = {summary[0].get('eps', 0.05):g}; "
                 f"[95% bootstrap interval of the slope over repetitions])")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)  # smoke runs call main() repeatedly in one process
    out.with_suffix(".json").write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
