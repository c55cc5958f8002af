"""What the ``kernreg`` command prints besides results: its log (``-v``, ``-q``)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

import click

__all__ = ["configure_logging", "quiet_mode", "verbosity_options"]


class _LogFormat(logging.Formatter):
    """``-v`` lines with the time of day; warnings and errors as ``warning: …``."""

    def format(self, record: logging.LogRecord) -> str:
        if record.levelno <= logging.INFO:
            return f"{self.formatTime(record, '%H:%M:%S')} {record.getMessage()}"
        return f"{record.levelname.lower()}: {record.getMessage()}"


def configure_logging(verbose: bool, quiet: bool) -> None:
    """kernreg's own log on stderr: its phases at ``-v``, warnings by default, errors only at
    ``-q``; other libraries' (Dask's) stay at warnings."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LogFormat())
    logger = logging.getLogger("kernreg")
    for old in [h for h in logger.handlers if getattr(h, "_kernreg_cli", False)]:
        logger.removeHandler(old)  # one handler however often main() runs in a process
    handler._kernreg_cli = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(logging.INFO if verbose else logging.ERROR if quiet else logging.WARNING)


def _state(ctx: click.Context) -> dict[str, bool]:
    root = ctx.find_root()
    if root.obj is None:
        root.obj = {}
    return root.obj


def _verbosity(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """``-v``/``-q`` after the sub-command, as before it (``kernreg run X -v``)."""
    if not value:
        return
    state = _state(ctx)
    state[param.name or ""] = True
    if state.get("verbose") and state.get("quiet"):
        raise click.UsageError("-v and -q exclude each other")
    configure_logging(bool(state.get("verbose")), bool(state.get("quiet")))


def verbosity_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``-v``/``--verbose`` and ``-q``/``--quiet`` on a sub-command too."""
    func = click.option("-q", "--quiet", is_flag=True, expose_value=False,
                        callback=_verbosity, help="Print only the result.")(func)
    return click.option("-v", "--verbose", is_flag=True, expose_value=False,
                        callback=_verbosity, help="Log each phase on stderr.")(func)


def quiet_mode(ctx: click.Context) -> bool:
    """Whether ``-q`` asked for the result alone (before or after the sub-command)."""
    return bool(_state(ctx).get("quiet"))
