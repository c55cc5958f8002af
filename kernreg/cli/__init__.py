"""The ``kernreg`` command line: one group, one module per sub-command group. Importing it
registers the protocols beyond the hold-out core (:mod:`kernreg.protocols`)."""

from __future__ import annotations

import _thread
import functools
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

import click

from kernreg import __version__
from kernreg.cli.advise import advise
from kernreg.cli.configs import configs
from kernreg.cli.data import data
from kernreg.cli.output import configure_logging
from kernreg.cli.plot import plot, report
from kernreg.cli.run import run
from kernreg.cli.stream import stream
from kernreg.cli.table import table
from kernreg.errors import KernregError
from kernreg.plugins import load_installed_plugins
from kernreg.protocols import class_incremental, online_regression  # noqa: F401  (registered)
from kernreg.switches import check_environment


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kernreg")
@click.option("-v", "--verbose", is_flag=True,
              help="Log each phase on stderr: the data, the memory plan and the strategy "
                   "chosen (and why), where each trial is (kernel blocks, iterations, λ) with "
                   "times, and each trial's result.")
@click.option("-q", "--quiet", is_flag=True,
              help="Print only the result (no progress bar, no summary lines, no warnings).")
@click.pass_context
def cli(ctx: click.Context, verbose: bool, quiet: bool) -> None:
    """Large-scale kernel least squares: KRLS, Landweber, Nyström KRLS, NYTRO."""
    if verbose and quiet:
        raise click.UsageError("-v and -q exclude each other")
    configure_logging(verbose, quiet)
    ctx.obj = {"verbose": verbose, "quiet": quiet}
    # before any sub-command reads data or writes: a misspelt KERNREG_* switch is refused
    # (exit 2) rather than read as on or off
    check_environment()
    # installed plugins register their algorithms, kernels, feature maps and datasets before
    # any command lists, validates or tabulates them
    load_installed_plugins()


cli.add_command(data)
cli.add_command(configs)
cli.add_command(run)
cli.add_command(table)
cli.add_command(plot)
cli.add_command(report)
cli.add_command(advise)
cli.add_command(stream)


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _interrupt_again(hook: Callable[[Any], object], unraisable: Any) -> None:
    """``sys.unraisablehook``: a Ctrl-C that Python cannot raise where it landed (in a
    finalizer or a weakref callback: a Dask run's main thread runs many) would be printed as
    "Exception ignored in" and lost, the run going on; it is raised again in the main thread.
    Anything else goes to ``hook``."""
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        # from another thread, a moment later: raised from here it would be lost again
        again = threading.Timer(0.01, _thread.interrupt_main)
        again.daemon = True
        again.start()
    else:
        hook(unraisable)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: user errors become one message on stderr and a non-zero exit status.

    SIGTERM is handled as Ctrl-C: the write under way is abandoned through its clean-up (no
    temporary left), finished trials stay, exit status 130."""
    previous = signal.getsignal(signal.SIGTERM)
    if previous is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _terminated)
    unraisable_hook = sys.unraisablehook
    sys.unraisablehook = functools.partial(_interrupt_again, unraisable_hook)
    try:
        _main(argv)
    finally:
        sys.unraisablehook = unraisable_hook
        if previous is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, previous)


def _main(argv: Sequence[str] | None) -> None:
    try:
        status = cli.main(args=argv, prog_name="kernreg", standalone_mode=False)
    except KernregError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    if isinstance(status, int) and status != 0:
        sys.exit(status)
