"""A paper figure from its run: ``kernreg run`` (resuming), ``kernreg plot``, and the PNGs
copied to ``results/figures/<run>__<figure>.png`` (the run's own ``figures/`` keeps the PDFs).

    python -m reproduce.run_figures lim_fig1_cpusmall [more runs]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from reproduce.registry import executable

ROOT = Path(__file__).resolve().parents[1]
KERNREG = executable("kernreg")


def figures_of(run: str) -> list[Path]:
    """Run ``configs/<run>.yaml`` (finished trials resumed), plot it, gather its PNGs."""
    subprocess.run([KERNREG, "run", f"configs/{run}.yaml", "--resume", "--no-progress"],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    plotted = subprocess.run([KERNREG, "plot", f"results/{run}"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.split()
    out = ROOT / "results" / "figures"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob(f"{run}__*.png"):
        old.unlink()
    copied = []
    for path in map(Path, plotted):
        if path.suffix == ".png":
            target = out / f"{run}__{path.name}"
            shutil.copyfile(ROOT / path if not path.is_absolute() else path, target)
            copied.append(target)
    return copied


def main(runs: list[str]) -> int:
    for run in runs:
        try:
            for path in figures_of(run):
                print(path.relative_to(ROOT))
        except subprocess.CalledProcessError as err:
            print(f"{run}: {err}", file=sys.stderr)
            return err.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
