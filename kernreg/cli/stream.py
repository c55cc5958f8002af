"""``kernreg stream``: the streaming protocols — thesis Section 7.6's classification stream
(Table 7.1, Figure 7.3; ``protocol: {kind: streaming}``) and Section 8.3's streaming
regression (Figure 8.4 on a simulated iCub arm; ``protocol: {kind: online_regression}``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from kernreg.atomic import write_text
from kernreg.cli.data import data_options
from kernreg.cli.output import quiet_mode, verbosity_options
from kernreg.cli.run import (
    experiment_options,
    export_data_settings,
    out_folder,
    show_progress,
)
from kernreg.config.online_stream import OnlineStreamConfig
from kernreg.config.streaming import StreamConfig, load_stream_config
from kernreg.errors import ConfigError
from kernreg.experiment.online_stream import run_online_stream
from kernreg.experiment.streaming import run_stream
from kernreg.results.online_stream_store import OUTPUT_CSV, OUTPUT_FIGURE, OUTPUT_TABLE
from kernreg.results.run_folder import check_output_file

#: Figure formats matplotlib writes without outside programs (pgf needs LaTeX).
_NEEDS_LATEX = {"pgf"}


def _check_figure_path(path: str) -> None:
    """Refuse a ``--figure`` format matplotlib cannot write, before the run starts."""
    from matplotlib.backend_bases import FigureCanvasBase  # matplotlib loads only here

    formats = sorted(set(FigureCanvasBase.get_supported_filetypes()) - _NEEDS_LATEX)
    suffix = Path(path).suffix.lstrip(".").lower() or "png"
    if suffix not in formats:
        raise ConfigError(f"--figure: {path!r}: cannot write a .{suffix} figure; use one of "
                          f"{', '.join('.' + f for f in formats)}")
    check_output_file(path, "--figure")


@click.command()
@experiment_options
@click.option("--force", is_flag=True, help="Delete earlier results of this run first.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option("--table", "table_path", type=click.Path(dir_okay=False),
              help="Write Table 7.1 (ours beside the thesis's) here "
                   "(default: OUT/<name>/table7_1.md); for online_regression, the summary "
                   f"table (default: OUT/<name>/{OUTPUT_TABLE}).")
@click.option("--figure", "figure_path", type=click.Path(dir_okay=False),
              help="Write the Figure 7.3 panel here (default: OUT/<name>/fig7_3.png); for "
                   f"online_regression, Figure 8.4 (default: OUT/<name>/{OUTPUT_FIGURE}).")
@data_options
@verbosity_options
@click.pass_context
def stream(ctx: click.Context, config: str, trials: int | None, seed: int | None,
           out: str | None, resume: bool, smoke: bool, force: bool, no_progress: bool,
           table_path: str | None, figure_path: str | None, mirror: str | None,
           cache_dir: str | None, offline: bool | None) -> None:
    """Run the streaming experiment of CONFIG; finished trials are kept, --resume continues.

    protocol.kind streaming (thesis Ch. 7): balanced classes first, then a new class one
    example at a time (naive incremental RLSC, rebalanced batch RLS, recoding); prints and
    writes Table 7.1 and Figure 7.3.

    protocol.kind online_regression (thesis Ch. 8, on a SIMULATED iCub arm): the online
    estimators learn one plane sample by sample, then each part of the other plane (a trial;
    --trials: how many) runs test-then-update; prints and writes the force/torque RMSE summary
    and Figure 8.4. --seed sets simulation.seed."""
    if resume and force:
        raise click.UsageError("--resume and --force exclude each other")
    out = out_folder(out, smoke)
    cfg = load_stream_config(config, {"trials": trials, "seed": seed}, smoke)
    if table_path:
        check_output_file(table_path, "--table")
    if figure_path:
        _check_figure_path(figure_path)
    export_data_settings(mirror, cache_dir, offline)
    quiet = quiet_mode(ctx)
    if isinstance(cfg, OnlineStreamConfig):
        _online(cfg, out, resume=resume, force=force, progress=show_progress(no_progress, quiet),
                quiet=quiet, table_path=table_path, figure_path=figure_path)
        return

    def report(done: list[dict[str, Any]], run_dir: Path) -> None:
        table_file = Path(table_path) if table_path else run_dir / "table7_1.md"
        text = _table_text(cfg, done)
        write_text(table_file, text)
        # imported here: matplotlib's start-up would otherwise slow every `kernreg` command
        from kernreg.results.stream_report import plot_stream_accuracy

        figure = plot_stream_accuracy(done, figure_path or run_dir / "fig7_3.png",
                                      title=cfg.dataset.upper())
        click.echo(text, nl=False)
        if not quiet:
            click.echo(f"wrote {table_file}, {figure}")

    run_stream(cfg, out, resume=resume, force=force,
               progress=show_progress(no_progress, quiet), report=report)


def _table_text(cfg: StreamConfig, done: list[dict[str, Any]]) -> str:
    """Table 7.1 of the finished trials, with the protocol and grids beneath."""
    from kernreg.results.stream_report import render_table7

    p, features = cfg.protocol, cfg.model["features"]
    notes = [f"n_bal = {p['n_bal']}, n_test = {p['n_test']} per class, every "
             f"{p['holdout_every']}th draw held out for validation; a class counts in the "
             f"validation accuracy once it has {p['validation_min_examples']} training examples",
             f"λ grid: {cfg.lambdas.size} values in [{cfg.lambdas[0]:g}, {cfg.lambdas[-1]:g}]; "
             f"α grid: {', '.join(f'{a:g}' for a in cfg.model['alphas'])}; inputs: "
             + (features["kind"] if features["kind"] == "linear" else
                f"{features['kind']} features, size {features['size']}, σ = {features['sigma']:g}")]
    return render_table7(done, title=f"{cfg.name}: thesis Table 7.1 (MNIST rows)", notes=notes)


def _online(cfg: OnlineStreamConfig, out: str, *, resume: bool, force: bool, progress: bool,
            quiet: bool, table_path: str | None, figure_path: str | None) -> None:
    """Run an online regression config; print and write its summary and Figure 8.4."""

    def report(done: list[dict[str, Any]], run_dir: Path) -> None:
        from kernreg.results.online_stream_report import plot_online_stream, render_summary

        table_file = Path(table_path) if table_path else run_dir / OUTPUT_TABLE
        text = render_summary(done, title=f"{cfg.name}: thesis Figure 8.4", notes=_notes(cfg))
        write_text(table_file, text)
        figure = plot_online_stream(done, figure_path or run_dir / OUTPUT_FIGURE,
                                    title=f"{cfg.name}: thesis Fig. 8.4")
        click.echo(text, nl=False)
        if not quiet:
            click.echo(f"wrote {table_file}, {figure}, {run_dir / OUTPUT_CSV}")

    run_online_stream(cfg, out, resume=resume, force=force, progress=progress, report=report)


def _notes(cfg: OnlineStreamConfig) -> list[str]:
    """The protocol and the grids, under the summary table."""
    p, s, sim = cfg.protocol, cfg.selection, cfg.simulation
    grids = ", ".join(f"{key} {{{', '.join(f'{v:g}' for v in s[key])}}}"
                      for key in ("sigmas", "lambdas", "lambdas_p"))
    return [f"Protocol: {sim['n_samples']} simulated samples per plane (seed {sim['seed']}); "
            f"every estimator learns {p['train_plane'].upper()} sample by sample, then each "
            f"of the {p['n_parts']} sequential parts of {p['test_plane'].upper()} "
            f"({cfg.part_length} samples) runs test-then-update from that state; RMSE over a "
            f"trailing {p['window']}-sample window.",
            f"Selection on {p['train_plane'].upper()} alone (batch ridge on its first "
            f"{100 * s['train_fraction']:g} %, scored on the rest): {grids}."]
