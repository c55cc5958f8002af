"""Atomic file writes: write to a temporary file in the target folder, then rename over.

A reader therefore sees either the old complete file or the new complete file, never a
half-written one, even if the process is killed mid-write; a failed write (read-only folder,
full disk) leaves no temporary file behind and is reported as an
:class:`~kernreg.errors.OutputError` naming the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kernreg.errors import OutputError


@contextmanager
def atomic_path(path: str | os.PathLike[str], advice: str | None = None) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path`` atomically.

    An ``OSError`` while creating the folder, writing or renaming becomes an
    :class:`~kernreg.errors.OutputError` naming ``path`` (with ``advice``, the next step).
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        yield tmp
        os.replace(tmp, path)
    except OSError as exc:
        raise (OutputError(path, exc, advice) if advice else OutputError(path, exc)) from exc
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # e.g. its folder could not be made: nothing to clean
            pass


def write_text(path: str | os.PathLike[str], text: str, advice: str | None = None) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8); ``advice``: the next step on failure."""
    with atomic_path(path, advice) as tmp:
        tmp.write_text(text, encoding="utf-8")
