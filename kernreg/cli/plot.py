"""``kernreg plot`` and ``kernreg report``: figures and a self-contained HTML report of runs."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import click

from kernreg.results.run_folder import check_output_folder
from kernreg.results.store import RunStore


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--format", "formats", multiple=True, type=click.Choice(["png", "pdf", "svg"]),
              default=("png", "pdf"), show_default=True, help="File formats (repeatable).")
@click.option("--out-dir", type=click.Path(file_okay=False),
              help="Write here instead of <run>/figures (one run only).")
def plot(runs: tuple[str, ...], formats: tuple[str, ...], out_dir: str | None) -> None:
    """Draw the figures of finished runs (paths, (m, λ) heat maps, time against m).

    RUNS are run folders written by `kernreg run` (e.g. results/cpusmall_lim_fig1).
    """
    from kernreg.errors import ConfigError
    from kernreg.results.figures import save_figures  # matplotlib loads only here

    if out_dir and len(runs) > 1:
        raise ConfigError("--out-dir takes one run; each run's figures go to <run>/figures")
    if out_dir:
        check_output_folder(out_dir, "--out-dir")
    for run in runs:
        # into the run's own folder: as a writer of it, holding its lock
        holding = nullcontext() if out_dir else RunStore(run).lock(
            advice="make the run folder writable, or use --out-dir")
        with holding:
            written, skipped = save_figures(run, out_dir, formats)
        for path in written:
            click.echo(str(path))
        for stem, why in skipped.items():
            click.echo(f"{run}: not drawn: {stem}: {why}", err=True)
        if not written:
            click.echo(f"{run}: nothing to draw", err=True)


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write.")
@click.option("--title", default="kernreg report", show_default=True)
def report(runs: tuple[str, ...], out: str, title: str) -> None:
    """Write one HTML file of RUNS: each run's provenance (config hash, git commit, versions,
    BLAS threads, host GEMM rate), its results beside the papers' values where published, and
    its captioned figures (images inline)."""
    from kernreg.results.report import write_report  # matplotlib loads only here

    write_report([Path(r) for r in runs], out, title, option="--out")
    click.echo(out)
