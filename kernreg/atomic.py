"""Safe file writes: names that can be path components, paths that stay inside their folder,
and atomic, durable writes through temporaries nobody else can plant.

A regular file (or a new one) is written to a temporary in the target folder, flushed to disk
(``fsync``), then renamed over the target and the folder flushed: a reader sees either the old
complete file or the new complete file, never a half-written one, even if the process is killed
mid-write or the power fails. The temporary's name is unpredictable
(``.<target>.<pid>.<random>.tmp``) and it is created exclusively without following a symlink
(``O_CREAT | O_EXCL | O_NOFOLLOW``), so a file or link planted in the folder is never written
through. A failed write (read-only folder, full disk) leaves no temporary behind and is reported
as an :class:`~kernreg.errors.OutputError` naming the file; a killed writer's temporaries are
removed by :func:`remove_temporaries` once nobody can be writing them (the run lock is held).

What exists at the target and is not a regular file is never replaced:

- in kernreg's own folders (a write given ``root``: a run's record), a symbolic link is
  replaced by the file (never written through) and anything else (a FIFO, a device, a socket)
  is refused;
- at a path the user named (``--output``, ``--out``…), a symbolic link is followed (the file
  it leads to is written as above), and a FIFO or a device is written through, as
  ``cat > PATH`` would: ``-o /dev/stdout`` prints, ``-o /dev/full`` is a full disk. A folder
  or a socket is refused.

HDF5 files are built in memory and written as one byte string (:func:`write_hdf5`): the HDF5
library never holds a file on disk open, so a full disk is an ``OSError`` like any other, never
a library handle that fails to close and crashes the interpreter at exit.
"""

from __future__ import annotations

import errno
import io
import os
import re
import secrets
import shutil
import stat
import tempfile
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


def _destination(path: Path, rooted: bool) -> Path | None:
    """Where an atomic write of ``path`` lands: ``path`` itself, the file its link leads to, or
    ``None`` for a FIFO or device to write through; an :class:`OutputError` for what must not
    be written (see the module's docstring)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    if stat.S_ISREG(mode) or (rooted and stat.S_ISLNK(mode)):
        return path
    if stat.S_ISLNK(mode):
        real = Path(os.path.realpath(path, strict=False))
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:  # a dangling link: its file is created, as cat > PATH would
            return real
        if stat.S_ISREG(mode):
            return real
    if stat.S_ISDIR(mode):
        raise OutputError(path, "it is a folder", "name a file")
    if rooted:
        raise OutputError(path, "it is not a regular file (a FIFO, device or socket) inside "
                          "kernreg's own folder", "remove it, then run again")
    if stat.S_ISSOCK(mode):
        raise OutputError(path, "it is a socket", "name a file, a FIFO or a device")
    return None


def _fsync(path: Path, folder: bool = False) -> None:
    """Flush ``path`` (a file, or with ``folder`` a folder's entries) to disk. A folder on a
    file system that cannot flush folders (``EINVAL``) is left as it is."""
    fd = os.open(path, os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if folder else 0))
    try:
        os.fsync(fd)
    except OSError as exc:
        if not folder or exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


@contextmanager
def _written_through(path: Path, advice: str | None) -> Iterator[Path]:
    """Yield a private temporary (in the system's temporary folder, never beside a device);
    on success copy it into ``path`` opened for writing, as ``cat > PATH`` would."""
    fd, name = tempfile.mkstemp(prefix="kernreg-", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb") as source, open(path, "wb") as target:
            shutil.copyfileobj(source, target)
    except OSError as exc:
        raise (OutputError(path, exc, advice) if advice else OutputError(path, exc)) from exc
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def atomic_path(path: str | os.PathLike[str], advice: str | None = None,
                root: str | os.PathLike[str] | None = None) -> Iterator[Path]:
    """Yield a freshly created, empty temporary path to write; on success it replaces ``path``
    atomically and durably. With ``root``, ``path`` must resolve inside it
    (:func:`check_inside`) and is one of kernreg's own files.

    A target that exists and is not a regular file is never replaced: a link the user named is
    followed, a FIFO or device is written through, anything else is refused (the module's
    docstring). An ``OSError`` while creating the folder, writing or renaming becomes an
    :class:`~kernreg.errors.OutputError` naming ``path`` (with ``advice``, the next step).
    """
    path = Path(path)
    try:
        target = _destination(path, rooted=root is not None)
    except OSError as exc:
        raise (OutputError(path, exc, advice) if advice else OutputError(path, exc)) from exc
    if target is None:
        with _written_through(path, advice) as tmp:
            yield tmp
        return
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(8)}.tmp")
    created = False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if root is not None:
            check_inside(target.parent, root)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666)
        created = True
        inode = os.fstat(fd).st_ino
        os.close(fd)
        yield tmp
        after = os.lstat(tmp)
        if after.st_ino != inode or not stat.S_ISREG(after.st_mode):
            raise OutputError(path, f"its temporary {tmp.name} was replaced while written",
                              "check who else writes into this folder")
        _fsync(tmp)
        os.replace(tmp, target)
        _fsync(target.parent, folder=True)
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
