"""Errors that reach the user as one clear message (the CLI prints them without a traceback).

Exit statuses of the ``kernreg`` command:

====  ==============================================================================
0     success
2     bad input, or the run cannot run here: an invalid config or option, missing or
      corrupt data files, a memory budget too small, an output folder that cannot be
      written, damaged result files (every :class:`KernregError`)
130   interrupted (Ctrl-C); finished trials are kept, ``--resume`` continues
1     a bug: Python's traceback is printed
====  ==============================================================================
"""

from __future__ import annotations

import os

__all__ = ["ConfigError", "DataError", "DegenerateError", "KernregError",
           "MissingDependencyError", "OutputError", "ResultsError", "RunLockedError"]


class KernregError(Exception):
    """Base class of every error caused by the user's input, files or environment."""

    #: Process exit status used by the command-line interface.
    exit_code: int = 2


class DataError(KernregError):
    """A dataset file is missing, corrupt, or does not match its registry entry."""


class ConfigError(KernregError):
    """A configuration value is invalid."""


class MissingDependencyError(KernregError):
    """An optional dependency that this use of kernreg needs is not installed (or fails to
    import); the message names the extra that installs it, ``pip install 'kernreg[EXTRA]'``.

    Parameters
    ----------
    what : str
        What needs it, as the user asked for it (``--scheduler local:2``, ``reading x.rda``).
    package : str
        The dependency (``Dask``, ``rdata``).
    extra : str
        kernreg's extra that installs it (``dask``, ``rdata``).
    reason : str, optional
        Why an installed package failed to import (a dependency of its own missing, say).
    """

    def __init__(self, what: str, package: str, extra: str, reason: str | None = None):
        state = f"which failed to import ({reason})" if reason else "which is not installed"
        super().__init__(f"{what} needs {package}, {state}: pip install 'kernreg[{extra}]'")
        self.package = package
        self.extra = extra


class DegenerateError(KernregError):
    """A computation met non-finite values (overflow, a singular system): the numbers would be
    meaningless, so nothing of that trial is stored."""

    def __init__(self, what: str):
        super().__init__(f"this configuration is numerically degenerate: {what}")


class RunLockedError(KernregError):
    """Another kernreg process holds the lock of a run folder."""


class ResultsError(KernregError):
    """A result file (``results.csv``, ``results.h5``, a trial file) is damaged or is not
    one; the message names it and what to do."""


class OutputError(KernregError):
    """A file cannot be written (read-only folder, a path through a file, a full disk)."""

    def __init__(self, path: str | os.PathLike[str], reason: BaseException | str,
                 advice: str = "choose another output folder, or free space, and try again"):
        why = reason.strerror if isinstance(reason, OSError) and reason.strerror else reason
        super().__init__(f"cannot write {path}: {why}; {advice}")
        self.path = path
