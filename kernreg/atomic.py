"""Safe file writes: names that can be path components, paths that stay inside their folder,
and atomic writes through temporaries nobody else can plant.

Every file is written to a temporary in the target folder, then renamed over the target: a
reader sees either the old complete file or the new complete file, never a half-written one,
even if the process is killed mid-write. The temporary's name is unpredictable
(``.<target>.<pid>.<random>.tmp``) and it is created exclusively without following a symlink
(``O_CREAT | O_EXCL | O_NOFOLLOW``), so a file or link planted in the folder is never written
through; the rename replaces a link at the target itself, not what it points to. A failed write
(read-only folder, full disk) leaves no temporary behind and is reported as an
:class:`~kernreg.errors.OutputError` naming the file; a killed writer's temporaries are removed
by :func:`remove_temporaries` once nobody can be writing them (the run lock is held).

HDF5 files are built in memory and written as one byte string (:func:`write_hdf5`): the HDF5
library never holds a file on disk open, so a full disk is an ``OSError`` like any other, never
a library handle that fails to close and crashes the interpreter at exit.
"""

from __future__ import annotations

import io
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import h5py

from kernreg.errors import ConfigError, OutputError

__all__ = ["COMPONENT_CHARS", "MAX_COMPONENT", "atomic_path", "check_inside", "path_component",
           "remove_temporaries", "write_hdf5", "write_text"]

#: Characters a name or label that becomes a file or folder name may contain; the first one
#: must be a letter or digit (so no ``.``, ``..``, hidden names or option-like ``-x``).
COMPONENT_CHARS = "A-Z a-z 0-9 _ . -"
#: Longest such name (file systems allow 255 bytes; trial files add ``__t000.h5``).
MAX_COMPONENT = 100
_COMPONENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_TEMPORARY = re.compile(r"\..+\.(\d+)\.[0-9a-f]{16}\.tmp")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def path_component(value: object, key: str) -> str:
    """Return ``value`` if it can be one file or folder name; else a :class:`ConfigError`
    naming ``key`` (the config key or option it came from) and the allowed characters."""
    if not isinstance(value, str) or not _COMPONENT.fullmatch(value):
        raise ConfigError(f"{key}: {value!r} cannot be a file name; use {COMPONENT_CHARS} "
                          f"(starting with a letter or digit), at most {MAX_COMPONENT} "
                          f"characters")
    if len(value) > MAX_COMPONENT:
        raise ConfigError(f"{key}: {value[:20]!r}… has {len(value)} characters; at most "
                          f"{MAX_COMPONENT}")
    return value


def check_inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> Path:
    """Return ``path`` after checking that it resolves inside ``root`` (symlinks followed in
    the check) and is not itself a symlink; else an :class:`OutputError` naming it."""
    path, base = Path(path), Path(root).resolve()
    if path.is_symlink():
        raise OutputError(path, "it is a symbolic link; kernreg neither writes nor deletes "
                          "through links", f"remove the link from {root}")
    resolved = path.resolve()
    if resolved != base and base not in resolved.parents:
        raise OutputError(path, f"it resolves to {resolved}, outside {base}",
                          f"remove the link that leads out of {root}")
    return path


@contextmanager
def atomic_path(path: str | os.PathLike[str], advice: str | None = None,
                root: str | os.PathLike[str] | None = None) -> Iterator[Path]:
    """Yield a freshly created, empty temporary path to write; on success it replaces ``path``
    atomically. With ``root``, ``path`` must resolve inside it (:func:`check_inside`).

    An ``OSError`` while creating the folder, writing or renaming becomes an
    :class:`~kernreg.errors.OutputError` naming ``path`` (with ``advice``, the next step).
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(8)}.tmp")
    created = False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if root is not None:
            check_inside(path.parent, root)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666)
        created = True
        inode = os.fstat(fd).st_ino
        os.close(fd)
        yield tmp
        after = os.lstat(tmp)
        if after.st_ino != inode or not stat.S_ISREG(after.st_mode):
            raise OutputError(path, f"its temporary {tmp.name} was replaced while written",
                              "check who else writes into this folder")
        os.replace(tmp, path)
    except OSError as exc:
        raise (OutputError(path, exc, advice) if advice else OutputError(path, exc)) from exc
    finally:
        if created:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass


def write_text(path: str | os.PathLike[str], text: str, advice: str | None = None,
               root: str | os.PathLike[str] | None = None) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8); ``advice``: the next step on failure."""
    with atomic_path(path, advice, root) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_hdf5(path: str | os.PathLike[str], fill: Callable[[h5py.File], None],
               advice: str | None = None, root: str | os.PathLike[str] | None = None) -> None:
    """Write the HDF5 file that ``fill`` builds to ``path`` atomically.

    The file is built in memory (h5py on a ``BytesIO``) and written as bytes through
    :func:`atomic_path`: on a full disk or a read-only folder nothing is left behind and the
    failure is the :class:`~kernreg.errors.OutputError` naming ``path`` (with ``advice``).
    """
    import h5py  # here: the commands that write no HDF5 start without it

    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        fill(f)
    with atomic_path(path, advice, root) as tmp, open(tmp, "wb") as out:
        out.write(buffer.getbuffer())


def remove_temporaries(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporaries :func:`atomic_path` left in ``folder`` when its writer was killed
    (call only while no writer can be active: the run lock held); return them."""
    removed = []
    folder = Path(folder)
    if not folder.is_dir() or folder.is_symlink():
        return removed
    for entry in folder.iterdir():
        if _TEMPORARY.fullmatch(entry.name) and not entry.is_dir():
            try:
                entry.unlink()
                removed.append(entry)
            except FileNotFoundError:
                pass
    return removed
