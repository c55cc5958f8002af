"""Errors that reach the user as one clear message (the CLI prints them without a traceback)."""

from __future__ import annotations


class KernregError(Exception):
    """Base class of every error caused by the user's input, files or environment."""

    #: Process exit status used by the command-line interface.
    exit_code: int = 1


class DataError(KernregError):
    """A dataset file is missing, corrupt, or does not match its registry entry."""


class ConfigError(KernregError):
    """A configuration value is invalid."""

    exit_code = 2
