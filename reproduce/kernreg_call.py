"""``kernreg`` commands from the reproduction scripts, in their own interpreter.

A script that chains ``kernreg run`` and ``kernreg plot`` (:mod:`reproduce.run_figures`,
:mod:`reproduce.advise_all`) calls the command's entry point here rather than a subprocess:
the same argument parsing, messages and exit statuses, without a second interpreter's start
and imports (2 s a call, most of a smoke run).
"""

from __future__ import annotations

import contextlib
import io

from kernreg.cli import main

__all__ = ["KernregFailed", "exit_status", "kernreg", "kernreg_status"]


class KernregFailed(RuntimeError):
    """A ``kernreg`` command ended with a non-zero exit status (its message went to stderr)."""

    def __init__(self, args: tuple[str, ...], status: int, why: str = "") -> None:
        super().__init__(f"kernreg {' '.join(args)}: {why or f'exit status {status}'}")
        self.status = status


def exit_status(stop: SystemExit) -> int:
    """The exit status a process ending with ``stop`` would have (``sys.exit``'s rules)."""
    code = stop.code
    return 0 if code is None else code if isinstance(code, int) else 1


def kernreg_status(*args: str) -> int:
    """Run ``kernreg ARGS`` (its output where this process's goes); its exit status."""
    try:
        main(list(args))
    except SystemExit as stop:
        return exit_status(stop)
    return 0


def kernreg(*args: str, quiet: bool = False) -> str:
    """Run ``kernreg ARGS``; what it printed (also echoed unless ``quiet``).

    Raises
    ------
    KernregFailed
        The command's exit status was not 0.
    """
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = kernreg_status(*args)
    if not quiet:
        print(printed.getvalue(), end="")
    if status:
        raise KernregFailed(args, status)
    return printed.getvalue()
