"""``kernreg run``: run the experiment of a config, whatever its protocol, or every run of a
table config."""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
import yaml

from kernreg.cli.configs import resolve_config_argument
from kernreg.cli.data import data_options
from kernreg.cli.output import quiet_mode, verbosity_options
from kernreg.config import HOLDOUT, Experiment, load_experiment, protocol_kind, read_yaml
from kernreg.config.smoke import (
    SMOKE_CENTERS,
    SMOKE_GRID_POINTS,
    SMOKE_ITERATIONS,
    SMOKE_ROWS,
    SMOKE_TEST_ROWS,
)
from kernreg.datasets.fetch import ENV_CACHE, ENV_MIRROR, ENV_OFFLINE
from kernreg.errors import ConfigError, KernregError
from kernreg.experiment import run_dir_for, run_experiment
from kernreg.experiment.protocol import (
    ProtocolConfig,
    ProtocolSpec,
    get_protocol,
    load_protocol_config,
    report_items,
    run_protocol,
)
from kernreg.results.collect import collect_results
from kernreg.results.run_folder import kind_words
from kernreg.results.store import RunStore
from kernreg.results.tables import (
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
    """CONFIG and the options of every config kind: ``--trials``, ``--seed``, ``--out``,
    ``--resume``, ``--smoke`` (in that order in ``--help``)."""
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
    func = click.option("--seed", type=int,
                        help="Override protocol.seed (a simulation's seed where the protocol "
                             "draws its data).")(func)
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
@click.option("--print-config", is_flag=True,
              help="Print the config as the run would use it (defaults filled in, --set and "
                   "the other options applied, its hash) and exit without running.")
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
        device: str | None, settings: tuple[str, ...], print_config: bool, with_report: bool,
        mirror: str | None, cache_dir: str | None, offline: bool | None) -> None:
    """Run the experiment of CONFIG (a YAML file, or the name of a shipped config: `kernreg
    configs` lists them): every algorithm, every trial. A config of a registered protocol
    (`protocol: {kind: streaming}`, `online_regression`) runs that protocol's trials and
    writes its table and figures into the run folder.

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
    kind = config_kind(config)
    if print_config and kind != HOLDOUT:
        raise click.UsageError(f"--print-config applies to hold-out configs; {config} is a "
                               f"{kind_words(kind) if kind != 'table' else 'table'} config")
    if kind not in (HOLDOUT, "table"):
        for option, given in (("--only", only), ("--scheduler", scheduler or scheduler_file),
                              ("--device", device not in (None, "cpu"))):
            if given:
                raise ConfigError(f"{option}: a {kind_words(kind)} run ({config}) runs its "
                                  f"trials in this process on the CPU, all its methods in "
                                  f"each; {option} applies to hold-out configs")
        spec = get_protocol(kind)
        export_data_settings(mirror, cache_dir, offline)
        cfg = load_protocol_config(spec, config, trials=trials, seed=seed, smoke=smoke,
                                   settings=settings)
        _run_protocol(spec, cfg, out, resume=resume, force=force, progress=progress,
                      settings=settings, quiet=quiet, with_report=with_report)
        return
    overrides: dict[str, Any] = {}
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
    if kind == "table":
        if only:
            raise click.UsageError("--only applies to one experiment, not to a table config")
        # the data settings first: a config's data paths may name $KERNREG_MIRROR
        export_data_settings(mirror, cache_dir, offline)
        experiments = [load_experiment(Path(config).parent / r, overrides, smoke, settings)
                       for r in load_table_config(config)["runs"]]
        _run_table(config, experiments, out, force=force, progress=progress, quiet=quiet,
                   with_report=with_report)
        return
    export_data_settings(mirror, cache_dir, offline)
    exp = load_experiment(config, overrides, smoke, settings)
    if print_config:
        click.echo(f"# {exp.path}: as `kernreg run` would use it (config hash "
                   f"{exp.config_hash()[:12]}…)")
        click.echo(yaml.safe_dump(exp.as_dict(), sort_keys=False, allow_unicode=True), nl=False)
        return
    run_dir = run_dir_for(exp, out)
    kept = len(RunStore(run_dir).trial_files()) if resume else 0  # what --resume keeps
    started = time.perf_counter()
    results = run_experiment(exp, out, resume=resume, force=force, progress=progress,
                             only=only)
    seconds = time.perf_counter() - started
    one_label_each = results.groupby("algorithm")["label"].nunique().max() == 1
    two_parameter_paths = results["m_selected"].notna().any()
    # m sweeps and (λ, m) paths: one row per label
    table = "table2" if one_label_each and not two_parameter_paths else "summary"
    click.echo(render_table(table, Collected(results), "md"))
    report = _write_report([run_dir], run_dir / "report.html",
                           f"kernreg: {exp.name}") if with_report else None
    if not quiet:
        click.echo(finished_line(len(results), min(kept, len(results)), seconds))
        click.echo(next_steps(run_dir, report))


def _run_protocol(spec: ProtocolSpec, cfg: ProtocolConfig, out: str, *, resume: bool,
                  force: bool, progress: bool, settings: Sequence[str], quiet: bool,
                  with_report: bool) -> None:
    """Run a registered protocol's config; print its table and what was done."""
    done = run_protocol(spec, cfg, out, resume=resume, force=force, progress=progress,
                        settings=settings)
    click.echo(spec.table(cfg.as_dict(), done.records), nl=False)
    report = _write_report([done.run_dir], done.run_dir / "report.html",
                           f"kernreg: {cfg.name}") if with_report else None
    if not quiet:
        click.echo(finished_line(len(done.records), done.resumed, done.seconds))
        click.echo(next_steps(done.run_dir, report, written=done.written))


def _run_table(config: str, experiments: list[Experiment], out: str, *, force: bool,
               progress: bool, quiet: bool, with_report: bool) -> None:
    """Run every experiment of a table config in turn (resuming what is done; one that cannot
    run here is reported and skipped), then print the table."""
    table = load_table_config(config)
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
    collected = collect_results((config,), out, default_out=DEFAULT_OUT)
    if any(exp.smoke for exp in experiments):  # the notes explain the full-size runs' cells
        collected = dataclasses.replace(collected, notes=[])
    click.echo(render_table(table["table"], collected, "md"))
    if with_report:
        done = [d for d in dict.fromkeys(run_dir_for(e, out) for e in experiments)
                if (d / "results.csv").is_file()]
        path = _write_report(done, Path(out) / f"{Path(config).stem}_report.html",
                             f"kernreg: {Path(config).stem}")
        if not quiet:
            click.echo(f"report: {path}")


def config_kind(path: str) -> str:
    """``"table"`` for a table config, else the protocol its config names (``holdout`` when
    it names none)."""
    if is_table_config(path):
        return "table"
    return protocol_kind(read_yaml(path))


def finished_line(trials: int, resumed: int, seconds: float) -> str:
    """``5 trials in 12.3 s (2 resumed)``: what a run did, after its table."""
    kept = f" ({resumed} resumed)" if resumed else ""
    return f"{trials} trial{'s' if trials != 1 else ''} in {seconds:.3g} s{kept}"


def _write_report(run_dirs: list[Path], path: Path, title: str) -> Path:
    from kernreg.results.report import write_report  # matplotlib loads only here

    return write_report(report_items(run_dirs), path, title, option="--report")


def show_progress(no_progress: bool, quiet: bool) -> bool:
    """A progress bar only on a terminal: in a redirected log it would write a line per
    update (``-v`` logs where the run is instead)."""
    return not (no_progress or quiet) and sys.stderr.isatty()


def next_steps(run_dir: Path, report: Path | None = None,
               written: Sequence[Path] | None = None) -> str:
    """The lines after a run's table: where its results (and its report) are and what to do
    with them; ``written``: the outputs a protocol's run wrote (a hold-out run's are its
    merged results)."""
    if written is None:
        lines = [f"results: {run_dir}/results.h5, results.csv (one file per trial in "
                 f"{run_dir}/trials)"]
    else:
        lines = [f"results: {', '.join(str(p) for p in written)} (one file per trial in "
                 f"{run_dir}/trials)"]
    if report is not None:
        lines.append(f"report: {report} (tables beside the papers' values, figures, "
                     f"provenance)")
    lines.append("next:")
    if written is None:
        lines.append(f"  kernreg table {run_dir} --compare-paper   # beside the paper's "
                     f"numbers, where published")
    else:
        lines.append(f"  kernreg table {run_dir} -o FILE   # its table, elsewhere")
    lines.append(f"  kernreg plot {run_dir}                    # its figures, into "
                 f"{run_dir}/figures")
    if report is None:
        lines.append(f"  kernreg report {run_dir} -o {run_dir}/report.html   # tables, "
                     f"figures, provenance")
    return "\n".join(lines)
