"""``kernreg table``: render the tables of runs — the papers' layouts of hold-out results, or
a registered protocol's own table of its run."""

from __future__ import annotations

from pathlib import Path

import click

from kernreg.atomic import write_text
from kernreg.cli.run import DEFAULT_OUT, config_kind
from kernreg.config import HOLDOUT
from kernreg.config.library import config_reference, resolve_config
from kernreg.errors import ConfigError, ResultsError
from kernreg.experiment.protocol import (
    StoredRun,
    get_protocol,
    load_protocol_config,
    read_protocol_run,
)
from kernreg.results.collect import collect_results
from kernreg.results.run_folder import check_output_file
from kernreg.results.tables import TABLES, is_table_config, load_table_config, render_table


@click.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--table", "which", type=click.Choice(list(TABLES)),
              help="; ".join(f"{t.name}: {t.description}" for t in TABLES.values())
              + ". Default: the table config's own `table:`, else table2.")
@click.option("--format", "fmt", type=click.Choice(["md", "latex", "csv"]), default="md",
              show_default=True)
@click.option("--compare-paper", is_flag=True, help="Show the paper's value beside each cell.")
@click.option("--results-dir", default=DEFAULT_OUT, show_default=True,
              type=click.Path(file_okay=False), help="Where runs of config inputs are found.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to a file.")
@click.option("--rebuild", is_flag=True,
              help="First rewrite each run's results.csv and results.h5 from its trial files "
                   "(after a damaged or interrupted write).")
@click.option("--fallback", type=click.Path(dir_okay=False),
              help="A results CSV (e.g. results/table2_trials.csv) whose rows stand in for the "
                   "(experiment, label) pairs that no input has results for: a table "
                   "refreshed run by run.")
@click.option("--trials-out", type=click.Path(dir_okay=False),
              help="Also write the tidy rows behind the table (one per trial) to this CSV.")
def table(inputs: tuple[str, ...], which: str | None, fmt: str, compare_paper: bool,
          results_dir: str, output: str | None, rebuild: bool, fallback: str | None,
          trials_out: str | None) -> None:
    """Render a table (NYTRO Table 1 or 2, LiM Table 1, a summary) from INPUTS: table configs,
    experiment configs (a path or a shipped config's name), run folders or results.csv
    files. The run of a registered protocol (a class-incremental stream, an online
    regression) prints its protocol's own table."""
    inputs = tuple(str(resolve_config(i)) for i in inputs)
    for option, path in (("--output", output), ("--trials-out", trials_out)):
        if path:
            check_output_file(path, option)
    stored = [run for run in (_protocol_run(i, results_dir) for i in inputs) if run]
    if stored:
        text = _protocol_tables(stored, len(inputs), which, fmt, rebuild, fallback, trials_out)
        if output:
            write_text(output, text)
            click.echo(f"wrote {output}")
        else:
            click.echo(text, nl=False)
        return
    if which is None:
        kinds = {load_table_config(i)["table"] for i in inputs
                 if Path(i).suffix in (".yaml", ".yml") and is_table_config(i)}
        which = kinds.pop() if len(kinds) == 1 else "table2"
    # Table 1 (the datasets and the m of each run) needs the configs, not their results
    collected = collect_results(inputs, results_dir, rebuild, fallback,
                                allow_empty=which == "table1", default_out=DEFAULT_OUT)
    text = render_table(which, collected, fmt, compare_paper)  # before anything is written
    for line in collected.missing:
        click.echo(f"warning: {line}", err=True)
    if trials_out:
        write_text(trials_out, collected.results.to_csv(index=False))
        click.echo(f"wrote {trials_out}")
    if output:
        write_text(output, text)
        click.echo(f"wrote {output}")
    else:
        click.echo(text, nl=False)


def _protocol_run(item: str, results_dir: str) -> StoredRun | None:
    """The stored run an input names when it is a registered protocol's: its run folder, or
    its config (the run in ``results_dir``)."""
    path = Path(item)
    if path.is_dir():
        return read_protocol_run(path)
    kind = config_kind(item) if path.suffix in (".yaml", ".yml") else HOLDOUT
    if kind in (HOLDOUT, "table"):
        return None
    config = load_protocol_config(get_protocol(kind), path)
    run_dir = Path(results_dir) / config.name
    found = read_protocol_run(run_dir) if run_dir.is_dir() else None
    if found is None:
        out = "" if results_dir == DEFAULT_OUT else f" --out {results_dir}"
        raise ResultsError(f"no results to tabulate:\n  {run_dir.name}: no results in {run_dir} "
                           f"(made by: kernreg run {config_reference(item)}{out})")
    current = config.as_dict()
    if "notes" in current:  # the notes explain results: the config's own, not the run's copy
        found.manifest["config"]["notes"] = current["notes"]
    return found


def _protocol_tables(stored: list[StoredRun], n_inputs: int, which: str | None, fmt: str,
                     rebuild: bool, fallback: str | None, trials_out: str | None) -> str:
    """The tables of protocol runs, one after another; the options that tabulate hold-out
    results are refused."""
    if len(stored) != n_inputs:
        raise ConfigError("a protocol's run (a stream, an online regression) is tabulated on "
                          "its own: name it without hold-out inputs")
    for option, given in (("--table", which), ("--format", fmt != "md"), ("--rebuild", rebuild),
                          ("--fallback", fallback), ("--trials-out", trials_out)):
        if given:
            raise ConfigError(f"{option}: applies to hold-out results; a protocol's run has "
                              f"its own markdown table")
    return "\n".join(run.spec.table(run.config, run.records) for run in stored)
