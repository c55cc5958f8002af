"""``kernreg plot`` and ``kernreg report``: figures and a self-contained HTML report of runs."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import click

from kernreg.experiment.protocol import read_protocol_run, report_items, save_protocol_figures
from kernreg.results.run_folder import check_output_file, check_output_folder
from kernreg.results.store import RunStore


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--format", "formats", multiple=True, type=click.Choice(["png", "pdf", "svg"]),
              default=("png", "pdf"), show_default=True, help="File formats (repeatable).")
@click.option("--out-dir", type=click.Path(file_okay=False),
              help="Write here instead of <run>/figures (one run only).")
@click.option("--figure", "stem", metavar="NAME",
              help="Draw only this figure (its file name without the suffix, e.g. fig7_3 or "
                   "path_nytro); with --output, into that file.")
@click.option("--output", "-o", type=click.Path(dir_okay=False),
              help="With --figure: the file to write (its suffix names the format).")
def plot(runs: tuple[str, ...], formats: tuple[str, ...], out_dir: str | None,
         stem: str | None, output: str | None) -> None:
    """Draw the figures of finished runs (paths, (m, λ) heat maps, time against m; a
    protocol's run: its protocol's figures).

    RUNS are run folders written by `kernreg run` (e.g. results/cpusmall_lim_fig1).
    """
    from kernreg.errors import ConfigError

    if output and not stem:
        raise ConfigError("--output names the file of one figure: give --figure NAME")
    if (out_dir or output) and len(runs) > 1:
        raise ConfigError("--out-dir and --output take one run; each run's figures go to "
                          "<run>/figures")
    if out_dir:
        check_output_folder(out_dir, "--out-dir")
    if output:
        check_output_file(output, "--output")
        if Path(output).suffix.lstrip(".") not in ("png", "pdf", "svg"):
            raise ConfigError(f"--output: {output}: name a .png, .pdf or .svg file")
    for run in runs:
        # into the run's own folder: as a writer of it, holding its lock
        holding = nullcontext() if (out_dir or output) else RunStore(run).lock(
            advice="make the run folder writable, or use --out-dir")
        with holding:
            written, skipped = _draw(Path(run), formats, out_dir, stem, output)
        for path in written:
            click.echo(str(path))
        for name, why in skipped.items():
            click.echo(f"{run}: not drawn: {name}: {why}", err=True)
        if not written:
            click.echo(f"{run}: nothing to draw", err=True)


def _draw(run: Path, formats: tuple[str, ...], out_dir: str | None, stem: str | None,
          output: str | None) -> tuple[list[Path], dict[str, str]]:
    """Draw the figures of ``run`` (only ``stem``, into ``output``, when given); the files
    written and, per figure not drawn, why."""
    from kernreg.errors import ConfigError
    from kernreg.results.figures import plan_figures, save_figure, save_figures
    from kernreg.results.store import load_run

    stored = read_protocol_run(run)
    if stem is None:
        if stored is not None:
            return save_protocol_figures(stored, out_dir or run / "figures", formats), {}
        return save_figures(run, out_dir, formats)
    if stored is not None:
        figures = {Path(name).stem: fig
                   for name, fig in stored.spec.figures(stored.config, stored.records).items()}
        skipped: dict[str, str] = {}
    else:
        figures, skipped = plan_figures(load_run(run))
    import matplotlib.pyplot as plt

    for name, fig in figures.items():
        if name != stem:
            plt.close(fig)
    if stem not in figures:
        why = f" ({skipped[stem]})" if stem in skipped else ""
        raise ConfigError(f"--figure: {run} has no figure {stem!r}{why}; it has: "
                          f"{', '.join(sorted(figures)) or 'none'}")
    folder = Path(out_dir) if out_dir else run / "figures"
    paths = [Path(output)] if output else [folder / f"{stem}.{fmt}" for fmt in formats]
    return save_figure(figures[stem], paths), {}


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

    check_output_file(out, "--out")  # before any run is read
    write_report(report_items([Path(r) for r in runs]), out, title, option="--out")
    click.echo(out)
