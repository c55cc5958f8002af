"""Thesis Table 6.1: the datasets and the Gaussian σ of Chapter 6's experiments, as kernreg runs
them, beside the thesis's.

NYTRO Table 1's renderer (``kernreg table --table table1``) takes σ from the dataset registry
(NYTRO's σ: adult 6.6, ijcnn1 1); Chapter 6 uses other σ (0.4 / 4 / 0.6), set in each run's
config. This script reads the Chapter 6 run configs (the runs of
``configs/thesis_table6.table.yaml`` and ``configs/thesis_fig6_adult_1000.yaml``) and writes one
row per dataset: the registry's sizes and d, the σ the configs use, the training subsets they
draw, and the thesis's n / n_test / d / σ (``thesis_table6_1_paper.csv`` beside this file).
Nothing is fitted; the data are not loaded::

    .venv/bin/python -m reproduce.thesis_ch6.thesis_table6_1 -o results/thesis_table6_1.md
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from kernreg.atomic import write_text
from kernreg.config import load_experiment
from kernreg.datasets import get_spec
from kernreg.results.tables import load_table_config

REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs"
PAPER = Path(__file__).with_name("thesis_table6_1_paper.csv")
#: The Chapter 6 runs: Table 6.2's (its table config) and Figures 6.1–6.2's.
TABLE_CONFIG = CONFIGS / "thesis_table6.table.yaml"
EXTRA_RUNS = ("thesis_fig6_adult_1000.yaml",)


def chapter6_runs() -> list[Path]:
    """The Chapter 6 run configs, Table 6.2's first."""
    return [CONFIGS / r for r in (*load_table_config(TABLE_CONFIG)["runs"], *EXTRA_RUNS)]


def _g(value: float) -> str:
    return f"{float(value):g}"


def table6_1(runs: list[Path], paper: pd.DataFrame) -> str:
    """The Markdown table (and notes) of Table 6.1 from the run configs."""
    by_dataset: dict[str, dict[str, object]] = {}
    for path in runs:
        exp = load_experiment(path)
        name = exp.dataset["name"]
        entry = by_dataset.setdefault(name, {"sigma": set(), "n": {}})
        entry["sigma"].add(float(exp.kernel["sigma"]))
        n = exp.dataset.get("n_train") or get_spec(name).n_train
        entry["n"].setdefault(int(n), []).append(path.stem)
    header = ["dataset", "n", "n_test", "d", "σ (the runs' configs)", "thesis n / n_test / d / σ",
              "training rows the runs draw (configs)"]
    rows, notes = [], []
    paper = paper.set_index("dataset")
    for name in [d for d in paper.index if d in by_dataset] + [
            d for d in by_dataset if d not in paper.index]:
        spec, entry = get_spec(name), by_dataset[name]
        sigmas = sorted(entry["sigma"])
        thesis = ("—" if name not in paper.index else
                  " / ".join([str(int(paper.loc[name, c])) for c in ("n", "n_test", "d")]
                             + [_g(paper.loc[name, "sigma"])]))
        drawn = "; ".join(f"{n} ({', '.join(stems)})" for n, stems in sorted(entry["n"].items()))
        rows.append([spec.title, str(spec.n_train), str(spec.n_test), str(spec.d),
                     " / ".join(_g(s) for s in sigmas), thesis, drawn])
        if name in paper.index:
            p = paper.loc[name]
            differs = [c for c, ours in (("n", spec.n_train), ("n_test", spec.n_test),
                                         ("d", spec.d)) if int(p[c]) != ours]
            if sigmas != [float(p["sigma"])]:
                differs.append("σ")
            if differs:
                notes.append(f"{spec.title}: {', '.join(differs)} differ from the thesis. "
                             f"{spec.notes}")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    if notes:
        lines += ["", *[f"- {n}" for n in notes]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, help="write here (default: print)")
    args = parser.parse_args(argv)
    text = table6_1(chapter6_runs(), pd.read_csv(PAPER, comment="#"))
    if args.output is None:
        print(text, end="")
        return
    args.output.parent.mkdir(parents=True, exist_ok=True)
    write_text(args.output, text)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
