"""``kernreg configs``: the paper configs shipped with kernreg, listed or shown."""

from __future__ import annotations

import shutil
import textwrap

import click

from kernreg.backend import MemoryBudget
from kernreg.config import load_experiment
from kernreg.config.experiment import trial_rows
from kernreg.config.library import (
    ConfigEntry,
    config_entries,
    resolve_config,
    shipped_configs_dir,
)
from kernreg.datasets import get_spec
from kernreg.errors import ConfigError, KernregError
from kernreg.experiment.preflight import estimate


def resolve_config_argument(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Click callback of a CONFIG argument: a path, or the name of a shipped config."""
    return str(resolve_config(value))


#: Configs kept for the test suite's fast paper cells, listed with ``--all``.
CI_PREFIXES = ("ci_",)


def _plan(entry: ConfigEntry) -> tuple[str, str]:
    """What a hold-out config will run — ``trials × rows, m`` — and the largest peak-memory
    estimate of its algorithms (the run's own preflight, from the dataset's registered
    sizes); empty for other kinds and where the sizes are not known before the data is read."""
    if entry.kind != "experiment":
        return "", ""
    try:
        exp = load_experiment(entry.path)
        spec = get_spec(exp.dataset["name"]) if "name" in exp.dataset else None
    except (KernregError, OSError):
        return "", ""
    if spec is None:
        return f"{exp.protocol['trials']} × own file", ""
    n_train = min(int(exp.dataset.get("n_train") or spec.n_train), spec.n_train)
    n_test = min(int(exp.dataset.get("n_test") or spec.n_test), spec.n_test)
    _, n_fit, n_val = trial_rows(exp.protocol, n_train)
    ms = sorted({a.params["m"] for a in exp.algorithms if a.params.get("m")})
    size = f"{exp.protocol['trials']} × {n_train} rows" + (f", m ≤ {ms[-1]}" if ms else "")
    block = int(exp.budget["block_mb"] * 2**20)
    budget = MemoryBudget.of_config(exp.budget).host
    peak = max(estimate(a, n_fit, n_val, n_test, spec.d, block, budget,
                        exp.dataset["dtype"]).peak_bytes for a in exp.algorithms)
    return size, f"{peak / 2**30:.1f} GiB"


@click.command()
@click.argument("name", required=False)
@click.option("--path", "show_path", is_flag=True,
              help="Print the file's path instead of its text (to copy it and edit the copy).")
@click.option("--all", "show_all", is_flag=True,
              help="List the configs kept for the test suite (ci_*) too.")
def configs(name: str | None, show_path: bool, show_all: bool) -> None:
    """List the configs shipped with kernreg, or show the one called NAME.

    Every one runs by name from any folder: `kernreg run adult_nytro` (a table config's
    every run: `kernreg run table2`; a streaming one: `kernreg run thesis_table7`).
    """
    if name is None:
        if show_path:
            raise click.UsageError("--path needs a NAME")
        every = config_entries()
        if not every:
            raise ConfigError("no shipped configs found (a broken installation?)")
        entries = [e for e in every if show_all or not e.name.startswith(CI_PREFIXES)]
        plans = [_plan(e) for e in entries]
        width = max(len(e.name) for e in entries)
        size_width = max(len(size) for size, _ in plans)
        columns = shutil.get_terminal_size((100, 24)).columns
        click.echo(f"{'config':<{width}}  {'kind':<10}  {'trials × size':<{size_width}}  "
                   f"{'memory':>8}  about")
        for entry, (size, memory) in zip(entries, plans, strict=True):
            lead = (f"{entry.name:<{width}}  {entry.kind:<10}  {size:<{size_width}}  "
                    f"{memory:>8}  ")
            summary = textwrap.shorten(entry.summary, max(40, columns - len(lead)),
                                       placeholder=" …")
            click.echo(lead + summary)
        hidden = len(every) - len(entries)
        click.echo(f"\n{len(entries)} configs in {shipped_configs_dir()}"
                   + (f" ({hidden} kept for the test suite: --all lists them)" if hidden
                      else "")
                   + "; memory: the largest algorithm's peak estimate (the run's preflight); "
                     "`kernreg configs NAME` shows one, `kernreg run NAME` runs it.")
        return
    path = resolve_config(name)
    if not path.is_file():
        raise ConfigError(f"config file {path} not found")
    if show_path:
        click.echo(str(path))
    else:
        click.echo(path.read_text(encoding="utf-8"), nl=False)
