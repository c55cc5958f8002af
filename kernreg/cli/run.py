"""``kernreg run`` and ``kernreg table``: run experiments, render paper-style tables."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pandas as pd

from kernreg.atomic import write_text
from kernreg.cli.configs import resolve_config_argument
from kernreg.cli.data import data_options
from kernreg.cli.output import quiet_mode, verbosity_options
from kernreg.config import load_experiment
from kernreg.config.library import config_reference, resolve_config
from kernreg.config.smoke import (
    SMOKE_CENTERS,
    SMOKE_GRID_POINTS,
    SMOKE_ITERATIONS,
    SMOKE_ROWS,
    SMOKE_TEST_ROWS,
)
from kernreg.datasets.fetch import ENV_CACHE, ENV_MIRROR, ENV_OFFLINE
from kernreg.errors import KernregError, ResultsError
from kernreg.experiment import run_dir_for, run_experiment
from kernreg.results.run_folder import check_output_file
from kernreg.results.store import RunStore, fill_missing_runs, read_results_csv
from kernreg.results.tables import (
    TABLES,
    Collected,
    is_table_config,
    load_table_config,
    render_table,
)

DEFAULT_OUT = "results"
#: Where ``--smoke`` runs go unless ``--out`` says: never beside (or over) the full runs.
SMOKE_OUT = f"{DEFAULT_OUT}/smoke"


def out_folder(out: str | None, smoke: bool) -> str:
    """The results folder of an experiment command: ``--out``, else the default (a smoke
    run's own)."""
    return out if out is not None else SMOKE_OUT if smoke else DEFAULT_OUT


_DEVICE = re.compile(r"cpu|torch|cuda(:[0-9]+)?")


def _device_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--device``: a device name (whether this machine has it is the run's preflight)."""
    if value is not None and not _DEVICE.fullmatch(value):
        raise click.BadParameter(f"{value!r} is not a device; expected cpu (numpy), torch "
                                 f"(PyTorch on the CPU), cuda or cuda:N (GPU N)")
    return value


def export_data_settings(mirror: str | None, cache_dir: str | None, offline: bool | None
                         ) -> None:
    # The data layer reads these variables; setting them here keeps one code path.
    for var, value in ((ENV_MIRROR, mirror), (ENV_CACHE, cache_dir)):
        if value:
            os.environ[var] = str(Path(value).resolve())
    if offline:
        os.environ[ENV_OFFLINE] = "1"


def experiment_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The argument and options every experiment command (``run``, ``stream``) shares: CONFIG,
    ``--trials``, ``--seed``, ``--out``, ``--resume``, ``--smoke`` (in that order in
    ``--help``)."""
    func = click.option("--smoke", is_flag=True,
                        help=f"The config at smoke size, to check it runs end to end in "
                             f"seconds: {SMOKE_ROWS} training and {SMOKE_TEST_ROWS} test rows, "
                             f"1 trial, m and the random features ≤ {SMOKE_CENTERS}, ≤ "
                             f"{SMOKE_ITERATIONS} iterations, grids of ≤ {SMOKE_GRID_POINTS} "
                             f"points; --trials and --seed still apply. Its numbers mean "
                             f"nothing; the run goes to {SMOKE_OUT}/ unless --out says.")(func)
    func = click.option("--resume", is_flag=True,
                        help="Continue an interrupted run (same config).")(func)
    func = click.option("--out", default=None, type=click.Path(file_okay=False),
                        help=f"Folder of results; the run goes to OUT/<experiment name>. "
                             f"[default: {DEFAULT_OUT}]")(func)
    func = click.option("--seed", type=int, help="Override protocol.seed.")(func)
    func = click.option("--trials", type=int, help="Override protocol.trials.")(func)
    return click.argument("config", type=click.Path(dir_okay=False),
                          callback=resolve_config_argument)(func)


@click.command()
@experiment_options
@click.option("--force", is_flag=True,
              help="Delete earlier results of this run first (with --only and an unchanged "
                   "config: only those algorithms' trials).")
@click.option("--only", multiple=True, metavar="LABEL",
              help="Run only these algorithms (repeatable); --resume adds the others later.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option("--scheduler", metavar="WHERE",
              help="Run the trials as Dask tasks: local:N (a LocalCluster of N worker "
                   "processes on this machine), a scheduler's address (tcp://host:8786) or "
                   "dask (the scheduler Dask's configuration names: DASK_SCHEDULER_ADDRESS); "
                   "overrides the config's execution.scheduler (default: local, this "
                   "process).")
@click.option("--scheduler-file", metavar="PATH",
              help="Run the trials on the Dask scheduler whose address this file holds (the "
                   "file `dask scheduler --scheduler-file PATH` writes).")
@click.option("--device", metavar="NAME", callback=_device_name,
              help="Where the algorithms that take a device run: cpu (numpy), torch (PyTorch "
                   "on the CPU), cuda or cuda:N; overrides the config's device (default: "
                   "cpu). The others are refused on any device but cpu.")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="Change one value of the config (repeatable), checked like the file's own "
                   "and recorded in the run's manifest: a dotted key, an algorithm by its "
                   "label (protocol.trials=3, kernel.sigma=4, algorithms.nytro.max_iter=200); "
                   "the value is YAML. `--set name=NEW` keeps the run beside the original.")
@click.option("--report", "with_report", is_flag=True,
              help="At the end, write the HTML report of the run (tables beside the papers' "
                   "values, every figure, provenance) to OUT/<name>/report.html; of a table "
                   "config's runs, to OUT/<table config>_report.html.")
@data_options
@verbosity_options
@click.pass_context
def run(ctx: click.Context, config: str, trials: int | None, seed: int | None,
        out: str | None, resume: bool, smoke: bool, force: bool, only: tuple[str, ...],
        no_progress: bool, scheduler: str | None, scheduler_file: str | None,
        device: str | None, settings: tuple[str, ...], with_report: bool, mirror: str | None,
        cache_dir: str | None, offline: bool | None) -> None:
    """Run the experiment of CONFIG (a YAML file, or the name of a shipped config: `kernreg
    configs` lists them): every algorithm, every trial.

    CONFIG may also be a table config (`table:` and `runs:`): each listed experiment is then
    run in turn (only the algorithms its `labels:` names, if it names any), resuming its
    finished trials; one that cannot run here (memory budget, missing data) is reported and
    skipped, and the table is printed at the end.
    """
    if resume and force:
        raise click.UsageError("--resume and --force exclude each other")
    quiet = quiet_mode(ctx)
    progress = show_progress(no_progress, quiet)
    out = out_folder(out, smoke)
    overrides: dict[str, dict] = {}
    protocol = {k: v for k, v in (("trials", trials), ("seed", seed)) if v is not None}
    if protocol:
        overrides["protocol"] = protocol
    if scheduler or scheduler_file:
        from kernreg.experiment.distributed import resolve_scheduler  # lazy: loads Dask

        address = resolve_scheduler(scheduler, scheduler_file)
        if address:
            overrides["execution"] = {"scheduler": address}
    if device:
        overrides["device"] = device
    if is_table_config(config):
        if only:
            raise click.UsageError("--only applies to one experiment, not to a table config")
        table = load_table_config(config)
        experiments = [load_experiment(Path(config).parent / r, overrides, smoke, settings)
                       for r in table["runs"]]
        export_data_settings(mirror, cache_dir, offline)
        wanted = table.get("labels")  # a table of some labels runs only those algorithms
        for exp in experiments:
            labels = tuple(a.label for a in exp.algorithms if wanted is None or a.label in wanted)
            if not labels:
                continue
            try:
                run_experiment(exp, out, resume=not force, force=force,
                               progress=progress, only=() if wanted is None else labels)
            except KernregError as exc:
                click.echo(f"{exp.name}: not run: {exc}", err=True)
        click.echo(render_table(table["table"], _collect((config,), out), "md"))
        if with_report:
            done = [d for d in dict.fromkeys(run_dir_for(e, out) for e in experiments)
                    if (d / "results.csv").is_file()]
            path = _write_report(done, Path(out) / f"{Path(config).stem}_report.html",
                                 f"kernreg: {Path(config).stem}")
            if not quiet:
                click.echo(f"report: {path}")
        return
    exp = load_experiment(config, overrides, smoke, settings)
    export_data_settings(mirror, cache_dir, offline)
    results = run_experiment(exp, out, resume=resume, force=force, progress=progress,
                             only=only)
    one_label_each = results.groupby("algorithm")["label"].nunique().max() == 1
    two_parameter_paths = results["m_selected"].notna().any()
    # m sweeps and (λ, m) paths: one row per label
    kind = "table2" if one_label_each and not two_parameter_paths else "summary"
    click.echo(render_table(kind, Collected(results), "md"))
    run_dir = run_dir_for(exp, out)
    report = _write_report([run_dir], run_dir / "report.html",
                           f"kernreg: {exp.name}") if with_report else None
    if not quiet:
        click.echo(next_steps(run_dir, report))


def _write_report(run_dirs: list[Path], path: Path, title: str) -> Path:
    from kernreg.results.report import write_report  # matplotlib loads only here

    return write_report(run_dirs, path, title, option="--report")


def show_progress(no_progress: bool, quiet: bool) -> bool:
    """A progress bar only on a terminal: in a redirected log it would write a line per
    update (``-v`` logs where the run is instead)."""
    return not (no_progress or quiet) and sys.stderr.isatty()


def next_steps(run_dir: Path, report: Path | None = None) -> str:
    """The lines after a run's table: where its results (and its report) are and what to do
    with them."""
    lines = [f"results: {run_dir}/results.h5, results.csv (one file per trial in "
             f"{run_dir}/trials)"]
    if report is not None:
        lines.append(f"report: {report} (tables beside the papers' values, figures, "
                     f"provenance)")
    lines += ["next:",
              f"  kernreg table {run_dir} --compare-paper   # beside the paper's numbers, "
              f"where published",
              f"  kernreg plot {run_dir}                    # its figures, into "
              f"{run_dir}/figures"]
    if report is None:
        lines.append(f"  kernreg report {run_dir} -o {run_dir}/report.html   # tables, "
                     f"figures, provenance")
    return "\n".join(lines)


def _collect(inputs: tuple[str, ...], results_dir: str, rebuild: bool = False,
             fallback: str | None = None, allow_empty: bool = False) -> Collected:
    """Tidy results of every input (table config, experiment config, run folder or CSV);
    ``rebuild`` first rewrites each run folder's results.csv/results.h5 from its trial
    files; ``fallback`` (a results CSV) fills in the (experiment, label) pairs that no input
    has results for; ``allow_empty``: no results at all is no error (a table of the configs
    alone, NYTRO Table 1)."""

    def read(run_dir: Path) -> pd.DataFrame:
        store = RunStore(run_dir)
        if rebuild and (run_dir / "trials").is_dir():
            # a writer: holds the run's lock (refused while a run writes there)
            with store.lock(advice="make the run folder writable"):
                store.finalize()
            click.echo(f"rebuilt {run_dir}/results.csv and results.h5 from "
                       f"{len(store.trial_files())} trial files", err=True)
        else:
            store.remove_temporaries_if_idle()
            store.load_trials()  # each trial file checked against its name and the manifest
        return read_results_csv(run_dir)

    out_option = "" if results_dir == DEFAULT_OUT else f" --out {results_dir}"
    frames: list[pd.DataFrame] = []
    sources: list[str] = []  # where each frame's rows come from, to name a repeated trial
    not_run, notes, missing, measures = [], [], [], []
    pending: list[tuple[tuple[str, str], dict[str, Any], str]] = []  # not run: (pair, NA, warning)
    for item in inputs:
        path = Path(item)
        labels = None  # a table config's `labels:` keeps only those rows of its runs
        if path.suffix in (".yaml", ".yml") and is_table_config(path):
            table = load_table_config(path)
            not_run += table.get("not_run", [])
            notes += table.get("notes", [])
            measures += [m for m in table.get("measures", []) if m not in measures]
            runs = [path.parent / r for r in table["runs"]]
            labels = table.get("labels")
        elif path.suffix in (".yaml", ".yml"):
            runs = [path]
        else:
            frames.append(read(path) if path.is_dir() else read_results_csv(path))
            sources.append(str(path))
            continue
        for run_config in runs:
            exp = load_experiment(run_config)
            run_dir = run_dir_for(exp, results_dir)
            done: set[str] = set()
            if (run_dir / "results.csv").is_file() or (rebuild and (run_dir / "trials").is_dir()):
                frame = read(run_dir)
                if labels is not None:
                    frame = frame[frame["label"].isin(labels)]
                frames.append(frame)
                sources.append(str(run_dir))
                done = set(frame["label"])
            for algo in exp.algorithms:
                if labels is not None and algo.label not in labels:
                    continue
                if algo.label not in done:
                    command = f"kernreg run {config_reference(run_config)}{out_option} --resume"
                    pending.append(((exp.name, algo.label),
                                    {"dataset": exp.dataset["name"], "algorithm": algo.name,
                                     "label": algo.label, "reason": f"not run yet ({command})",
                                     "m": algo.params.get("m")},
                                    f"{exp.name}/{algo.label}: no results in {run_dir} "
                                    f"(made by: {command})"))
    if fallback is not None:
        filled = fill_missing_runs(frames, read_results_csv(fallback))
        frames.append(filled)
        sources.append(fallback)
        covered = set(zip(filled["experiment"], filled["label"], strict=True))
        missing += [f"{line} (rows from {fallback})" for pair, _, line in pending
                    if pair in covered]
        pending = [item for item in pending if item[0] not in covered]
    not_run += [entry for _, entry, _ in pending]
    missing += [line for _, _, line in pending]
    if not frames:
        if allow_empty:
            return Collected(pd.DataFrame(), not_run, notes, [], measures)
        tables = [config_reference(i) for i in inputs
                  if Path(i).suffix in (".yaml", ".yml") and is_table_config(i)]
        hint = (f"\n`kernreg run {tables[0]}{out_option}` runs all of them (resuming what is done)"
                if tables else "")
        raise ResultsError("no results to tabulate:\n  " + "\n  ".join(missing) + hint
                           + "\nor take their rows from a results CSV (a committed one: "
                             "results/*_trials.csv) with --fallback CSV")
    return Collected(_merge_frames(frames, sources), not_run, notes, missing, measures)


def _merge_frames(frames: list[pd.DataFrame], sources: list[str]) -> pd.DataFrame:
    """The rows of every input, each trial (experiment, label, trial) once: a run named by two
    inputs (two table configs) counts once; the same trial from two different sources (two
    copies of a run) is refused, as averaging them would count it twice."""
    tagged = pd.concat([frame.assign(_source=source)
                        for frame, source in zip(frames, sources, strict=True)],
                       ignore_index=True)
    key = ["experiment", "label", "trial"]
    tagged = tagged.drop_duplicates([*key, "_source"]).reset_index(drop=True)
    repeated = tagged[tagged.duplicated(key, keep=False)]
    if not repeated.empty:
        first = repeated.iloc[0]
        where = repeated[(repeated[key] == first[key]).all(axis=1)]["_source"]
        raise ResultsError(f"trial {int(first['trial'])} of {first['experiment']}/"
                           f"{first['label']} is in both {' and '.join(where)}; name each run "
                           f"once")
    return tagged.drop(columns="_source")


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
    files."""
    inputs = tuple(str(resolve_config(i)) for i in inputs)
    for option, path in (("--output", output), ("--trials-out", trials_out)):
        if path:
            check_output_file(path, option)
    if which is None:
        kinds = {load_table_config(i)["table"] for i in inputs
                 if Path(i).suffix in (".yaml", ".yml") and is_table_config(i)}
        which = kinds.pop() if len(kinds) == 1 else "table2"
    # Table 1 (the datasets and the m of each run) needs the configs, not their results
    collected = _collect(inputs, results_dir, rebuild, fallback, allow_empty=which == "table1")
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
