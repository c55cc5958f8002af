"""Where a run's numbers came from and when: the source commit and UTC time stamps that the
manifest records beside the config and the environment."""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone
from pathlib import Path

import kernreg

__all__ = ["source_commit", "utc_now"]

#: Seconds git may take before the commit is left unrecorded (a slow network file system).
GIT_TIMEOUT = 5.0


def utc_now() -> str:
    """The time now, ISO 8601 in UTC to the second (``2026-11-27T21:40:05Z``)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _git(source: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(source), *args], capture_output=True,
                              text=True, timeout=GIT_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):  # no git, or it hung
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def source_commit() -> str | None:
    """The git commit of the kernreg source that runs, ``+dirty`` appended when its files
    differ from it (or it has new ones); None for an installed wheel (no repository around
    the package) or without git."""
    package = Path(kernreg.__file__).resolve().parent
    checkout = package.parent
    if not (checkout / ".git").exists():  # a site-packages folder is nobody's checkout
        return None
    commit = _git(checkout, "rev-parse", "HEAD")
    if not commit:
        return None
    changes = _git(checkout, "status", "--porcelain", "--", "kernreg")
    return f"{commit}+dirty" if changes else commit
