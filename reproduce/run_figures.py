"""A paper figure from its run: ``kernreg run`` (resuming), ``kernreg plot``, and the PNGs
asked for copied to ``<results>/figures/<run>__<figure>.png`` (the run's own ``figures/``
keeps every plot).

    python -m reproduce.run_figures lim_fig1_cpusmall [more runs] --figure heatmap_inkrls
    python -m reproduce.run_figures lim_fig2_cpusmall --figure heatmap_inkrls_largest_m
    python -m reproduce.run_figures RUN --figure F --smoke --results DIR --work SCRATCH

A figure ``<stem>_largest_m`` is the plot ``<stem>_m<m>`` of the largest m the run swept
(at smoke size the sizes shrink; the name stays).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from reproduce.kernreg_call import KernregFailed, kernreg

ROOT = Path(__file__).resolve().parents[1]


LARGEST_M = "_largest_m"


def figures_of(run: str, figures: list[str], results: Path, runs_dir: Path,
               smoke: bool = False) -> list[Path]:
    """Run ``configs/<run>.yaml`` into ``runs_dir`` (finished trials resumed; ``smoke``: at
    smoke size), plot it, copy the PNGs named ``figures`` into ``results/figures``."""
    kernreg("run", f"configs/{run}.yaml", "--resume", "--no-progress", "--out", str(runs_dir),
            *(["--smoke"] if smoke else []), quiet=True)
    plotted = {Path(p).stem: Path(p) for p in
               kernreg("plot", str(runs_dir / run), "--format", "png", quiet=True).split()}
    out = results / "figures"
    out.mkdir(parents=True, exist_ok=True)
    copied = []
    for figure in figures:
        source = plotted.get(chosen(figure, plotted))
        if source is None:
            raise KernregFailed(("plot", str(runs_dir / run)), 1,
                                f"drew no {figure} (drew: {', '.join(sorted(plotted))})")
        target = out / f"{run}__{figure}.png"
        shutil.copyfile(source if source.is_absolute() else ROOT / source, target)
        copied.append(target)
    return copied


def chosen(figure: str, plotted: dict[str, Path]) -> str:
    """The plot's stem that ``figure`` names (``<stem>_largest_m``: the largest m's)."""
    if not figure.endswith(LARGEST_M):
        return figure
    stem = figure[:-len(LARGEST_M)] + "_m"
    sizes = [name[len(stem):] for name in plotted if name.startswith(stem)]
    return stem + max((s for s in sizes if s.isdigit()), key=int, default="")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reproduce.run_figures",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="config names under configs/")
    parser.add_argument("--figure", action="append", required=True,
                        help="a plot of each run to keep (repeatable): its file stem")
    parser.add_argument("--results", type=Path, default=ROOT / "results",
                        help="the results folder (runs in it, PNGs in its figures/)")
    parser.add_argument("--smoke", action="store_true",
                        help="the runs at smoke size (kernreg run --smoke), into --work")
    parser.add_argument("--work", type=Path, help="where the runs go (default: --results)")
    args = parser.parse_args(argv)
    for run in args.runs:
        try:
            for path in figures_of(run, args.figure, args.results,
                                   args.work or args.results, args.smoke):
                print(path)
        except KernregFailed as err:
            print(f"{run}: {err}", file=sys.stderr)
            return err.status
    return 0


if __name__ == "__main__":
    sys.exit(main())
