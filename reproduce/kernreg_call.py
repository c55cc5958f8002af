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

__all__ = ["KernregFailed", "kernreg"]


class KernregFailed(RuntimeError):
    """A ``kernreg`` command ended with a non-zero exit status (its message went to stderr)."""

    def __init__(self, args: tuple[str, ...], status: int, why: str = "") -> None:
        super().__init__(f"kernreg {' '.join(args)}: {why or f'exit status {status}'}")
        self.status = status


def kernreg(*args: str, quiet: bool = False) -> str:
    """Run ``kernreg ARGS``; what it printed (also echoed unless ``quiet``).

    Raises
    ------
    KernregFailed
        The command's exit status was not 0.
    """
    printed = io.StringIO()
    status = 0
    with contextlib.redirect_stdout(printed):
        try:
            main(list(args))
        except SystemExit as stop:
            code = stop.code
            status = 0 if code is None else code if isinstance(code, int) else 1
    if not quiet:
        print(printed.getvalue(), end="")
    if status:
        raise KernregFailed(args, status)
    return printed.getvalue()
