"""Thesis Figure 8.4, SIMULATED on the iCub URDF (not the thesis's recordings): force and torque
RMSE of the incremental P, NP and SP estimators on the sagittal circles after training on the
transverse ones.

    python -m reproduce.thesis_ch8.thesis_fig8_4 --csv results/thesis_fig8_4_sim.csv \\
        -o results/figures/thesis_fig8_4_sim.png

The settings are ``configs/thesis_fig8_4_sim.yaml``'s (``--config``; the size options override
them) and the computation is kernreg's online regression protocol
(:mod:`kernreg.protocols.online_regression`: the simulation, the selection on XY, the
estimators of the online registry, test-then-update on each part of XZ), the one ``kernreg run
configs/thesis_fig8_4_sim.yaml`` runs; this script writes the artifact's CSV and figure.

Protocol (thesis Section 8.3): every model starts at zero (inertial parameters too), learns the
whole XY set sample by sample, then each of the 10 sequential parts of XZ (1000 samples) is
run test-then-update from the XY-trained state; the curves are the RMSE over a trailing
30-sample window, mean ± std over the parts. D is fixed (``--n-components``); σ and λ are
chosen on XY alone: batch ridge (equal to the recursion's final state) on its first 90 %,
validated on its last 10 % by the RMSE of the outputs divided by their training std, over
the config's grids of σ, λ (and λ_P for the parametric part). The smoke run (``--smoke``) is
the config at smoke size: 300 samples, 3 parts, a 10-sample window and D = 40.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from kernreg.atomic import atomic_path
from kernreg.config.loader import read_yaml
from kernreg.protocols.online_regression import config
from kernreg.protocols.online_regression.config import OnlineRegressionConfig
from kernreg.protocols.online_regression.icub_arm_sim import LABEL
from kernreg.protocols.online_regression.summary import curve_rows, curves, draw, selected_text
from kernreg.protocols.online_regression.trial import online_trials
from reproduce.results_csv import write_results_csv

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "configs" / "thesis_fig8_4_sim.yaml"


def load_config(path: str | Path = CONFIG, *, n_samples: int | None = None,
                parts: int | None = None, window: int | None = None,
                n_components: int | None = None, seed: int | None = None,
                smoke: bool = False) -> OnlineRegressionConfig:
    """The config of ``path`` with the command line's sizes in place of its own."""
    path = Path(path)
    data = read_yaml(path)
    if n_samples is not None:
        data.setdefault("simulation", {})["n_samples"] = n_samples
    for key, value in (("n_parts", parts), ("window", window)):
        if value is not None:
            data["protocol"][key] = value
    if n_components is not None:
        for algo in data["algorithms"]:
            if algo.get("name") in ("random_features", "semiparametric"):
                algo["n_components"] = n_components
    if smoke:
        data = config.smoke(data)
    if seed is not None:
        data.setdefault("simulation", {})["seed"] = seed
    return config.load(data, path)


def run(cfg: OnlineRegressionConfig) -> list[dict[str, Any]]:
    """Every part's record (kernreg's runner, without a run folder)."""
    return list(online_trials(cfg))


def save_figure(trials: list[dict[str, Any]], path: Path) -> Path:
    """Figure 8.4 of ``trials`` written (atomically) to ``path``."""
    import matplotlib.pyplot as plt

    fig = draw(trials, title="Thesis Fig. 8.4")
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".") or "png", dpi=120)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(CONFIG))
    parser.add_argument("--csv", default="results/thesis_fig8_4_sim.csv")
    parser.add_argument("-o", "--output", default="results/figures/thesis_fig8_4_sim.png")
    parser.add_argument("--n-samples", type=int, help="simulation.n_samples of the config")
    parser.add_argument("--parts", type=int, help="protocol.n_parts of the config")
    parser.add_argument("--window", type=int, help="protocol.window of the config")
    parser.add_argument("--n-components", type=int, help="D of NP and SP")
    parser.add_argument("--seed", type=int, help="simulation.seed of the config")
    parser.add_argument("--smoke", action="store_true",
                        help="the config at smoke size: 300 samples, 3 parts, D = 40")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    cfg = load_config(args.config, n_samples=args.n_samples, parts=args.parts,
                      window=args.window, n_components=args.n_components, seed=args.seed,
                      smoke=args.smoke)
    trials = run(cfg)
    write_results_csv(args.csv, curve_rows(trials))
    save_figure(trials, Path(args.output))
    window = cfg.protocol["window"]
    for (name, group), c in sorted(curves(trials).items()):
        first, last = c[:, :window].mean(1), c[:, -window:].mean(1)
        print(f"{name:2s} {group:6s} first window {first.mean():.4g} ± {first.std():.2g}  "
              f"last window {last.mean():.4g} ± {last.std():.2g}")
    attrs = trials[0]["attrs"]
    print(f"data: {LABEL}")
    print(f"chosen: {selected_text(trials)}; CAD model RMSE {attrs['cad_rmse']}; "
          f"trajectories {attrs['trajectories']}")
    print(f"wrote {args.csv} and {args.output} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
