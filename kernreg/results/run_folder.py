"""The discipline of a run folder, shared by every kind of run kernreg writes (hold-out runs and
the runs of every registered protocol).

A run folder ``<out>/<experiment>/`` holds

* ``.lock`` — the run lock: an advisory ``flock``, its file naming the pid, host and start of
  the process holding it. Whatever writes into the folder holds it: a second writer is refused
  with the holder's words, and the lock of a killed process is free again (the kernel releases
  it), so the next run takes it over. With the lock held, temporaries of killed writers are
  removed.
* ``manifest.json`` — the normalised config, its hash and the environment; its ``experiment``
  and the config's protocol kind mark the folder as a run of that experiment and kind;
* ``trials/`` — one file per finished trial, each recording its trial number and the hash of
  the config that produced it (checked against its name and the manifest on resume and on
  reading);
* the run's own outputs (merged results, tables, figures), which each kind names.

``--force`` deletes only a folder whose manifest marks it as a run of the same experiment and
kind, and in it only the files kernreg writes there: files it does not know stay.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import shutil
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from kernreg.atomic import check_inside, remove_temporaries, write_text
from kernreg.config.experiment import HOLDOUT, protocol_kind
from kernreg.errors import ConfigError, OutputError, ResultsError, RunLockedError

__all__ = ["LOCK_FILE", "RunFolder", "check_output_file", "check_output_folder",
           "is_run_folder", "kind_words", "run_kind"]

LOCK_FILE = ".lock"
MANIFEST = "manifest.json"
#: What reading a damaged or foreign trial file raises.
UNREADABLE = (OSError, KeyError, ValueError, TypeError)
#: The record of a run: files no other command may write over.
RECORD_FILES = (LOCK_FILE, MANIFEST, "results.h5", "results.csv")
log = logging.getLogger("kernreg.results")


def run_kind(manifest: dict[str, Any]) -> str:
    """The protocol a manifest records (its config's ``protocol.kind``;
    :data:`~kernreg.config.experiment.HOLDOUT` when it names none)."""
    return protocol_kind(manifest.get("config"))


def kind_words(kind: str) -> str:
    """A protocol kind in a sentence's words (``"hold-out"``, ``"online regression"``)."""
    return "hold-out" if kind == HOLDOUT else kind.replace("_", " ")


def _kind_words(manifest: dict[str, Any]) -> str:
    return kind_words(run_kind(manifest))


def is_run_folder(folder: Path) -> bool:
    """Whether ``folder`` is a run folder kernreg wrote (it has a manifest or a run lock)."""
    return (folder / MANIFEST).is_file() or (folder / LOCK_FILE).is_file()


def check_output_file(path: str | os.PathLike[str], option: str) -> Path:
    """Return ``path``, an output file named by ``option`` (``--output``, ``--trials-out``,
    ``--table``…), after checking it is no part of a run's record: a run's manifest, lock,
    merged results or trial files (links followed) are written only by the run itself.

    Raises
    ------
    ConfigError
        Naming the option, the file and the run folder it belongs to; or ``path`` is a folder.
    """
    path = Path(path)
    resolved = path.resolve()
    folder = resolved.parent
    if path.is_dir():
        raise ConfigError(f"{option}: {path} is a folder; name a file")
    if (resolved.name in RECORD_FILES and is_run_folder(folder)) or \
            (folder.name == "trials" and is_run_folder(folder.parent)):
        run = folder if resolved.name in RECORD_FILES else folder.parent
        raise ConfigError(f"{option}: {path} is part of the record of the run in {run}, which "
                          f"only that run writes; choose a file outside it")
    return path


def check_output_folder(path: str | os.PathLike[str], option: str) -> Path:
    """Return ``path``, an output folder named by ``option``, after checking it is not the
    trial folder of a run (which only that run writes).

    Raises
    ------
    ConfigError
        Naming the option, the folder and the run.
    """
    path = Path(path)
    resolved = path.resolve()
    if resolved.name == "trials" and is_run_folder(resolved.parent):
        raise ConfigError(f"{option}: {path} holds the trial files of the run in "
                          f"{resolved.parent}, which only that run writes; choose another "
                          f"folder")
    return path


def _holder(text: str) -> str:
    """The lock holder's words: "pid 123 on host h since …" (or what the file holds)."""
    try:
        info = json.loads(text)
        return f"pid {info['pid']} on host {info['host']}, since {info['since']}"
    except (ValueError, KeyError, TypeError):
        return "holder unknown"


class RunFolder:
    """The folder of one run: its lock, manifest, trial files and what ``--force`` may delete.

    Subclasses name their trial files (:attr:`TRIAL_FILE`, whose last group is the trial
    number) and the files and folders kernreg writes at the top of the folder
    (:attr:`OUTPUT_FILES`, :attr:`OUTPUT_FOLDERS`).
    """

    #: A trial file's name; its last group is the trial number.
    TRIAL_FILE: ClassVar[re.Pattern[str]]
    #: Files at the top of the folder that the run writes (besides the manifest).
    OUTPUT_FILES: ClassVar[tuple[str, ...]] = ()
    #: Folders at the top of the folder whose whole content the run writes.
    OUTPUT_FOLDERS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.trials_dir = self.run_dir / "trials"
        self.manifest_path = self.run_dir / MANIFEST
        self.lock_path = self.run_dir / LOCK_FILE

    def has_results(self) -> bool:
        return self.manifest_path.exists() or self.trials_dir.exists()

    def manifest(self) -> dict[str, Any]:
        """The folder's manifest.

        Raises
        ------
        ResultsError
            It is unreadable or not a kernreg manifest.
        """
        try:
            manifest = json.loads(self.manifest_path.read_text())
            if not isinstance(manifest, dict) or "config_hash" not in manifest:
                raise ValueError("not a kernreg manifest")
            return manifest
        except (OSError, ValueError) as exc:
            raise ResultsError(f"cannot read {self.manifest_path} ({exc}); the run folder is "
                               f"damaged: start it again with --force") from None

    def update_manifest(self, **fields: Any) -> None:
        """Add ``fields`` to the manifest (e.g. ``finished_at`` once the trials are done),
        rewriting it atomically."""
        manifest = {**self.manifest(), **fields}
        write_text(self.manifest_path, json.dumps(manifest, indent=2, sort_keys=True,
                                                  allow_nan=False) + "\n",
                   advice="make the run folder writable", root=self.run_dir)

    def start(self, manifest: dict[str, Any], advice: str = "choose another --out folder"
              ) -> None:
        """Write the manifest and make ``trials/`` (the last step of opening a run, once the
        folder's results have been checked, kept or deleted)."""
        write_text(self.manifest_path, json.dumps(manifest, indent=2, sort_keys=True,
                                                  allow_nan=False) + "\n",
                   advice=advice, root=self.run_dir)
        try:
            self.trials_dir.mkdir(exist_ok=True)
            check_inside(self.trials_dir, self.run_dir)
        except OSError as exc:
            raise OutputError(self.trials_dir, exc, advice) from exc

    # ------------------------------------------------------------------------- the run lock
    @contextmanager
    def lock(self, advice: str = "choose another --out folder") -> Iterator[None]:
        """Hold the run folder's lock (creating the folder); refuse with
        :class:`~kernreg.errors.RunLockedError` naming the holder when another process has it.

        A folder this call created and nothing else wrote into is removed again on exit, so a
        run refused before writing leaves nothing behind. Temporaries of killed writers are
        removed once the lock is held.
        """
        created = self._make_dirs(advice)
        fd = self._acquire(advice)
        try:
            host = socket.gethostname()
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps({"pid": os.getpid(), "host": host,
                                      "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
                                     ).encode() + b"\n", 0)
            self.remove_temporaries()
            yield
        finally:
            try:
                if created and [p.name for p in self.run_dir.iterdir()] == [LOCK_FILE]:
                    self.lock_path.unlink()  # still locked: a waiting process retries
                    for folder in created:
                        folder.rmdir()
            except OSError:
                pass
            os.close(fd)  # releases the lock

    def _make_dirs(self, advice: str) -> list[Path]:
        """Create the run folder and missing parents; return the created ones, deepest first."""
        created = []
        folder = self.run_dir
        while not folder.exists() and folder != folder.parent:
            created.append(folder)
            folder = folder.parent
        try:
            for path in reversed(created):
                path.mkdir()
        except FileExistsError:
            pass  # made by a concurrent run: the lock decides
        except OSError as exc:
            raise OutputError(self.run_dir, exc, advice) from exc
        if self.run_dir.is_symlink() or not self.run_dir.is_dir():
            raise OutputError(self.run_dir, "it is not a folder (a link or a file)", advice)
        return created

    def _acquire(self, advice: str) -> int:
        for _ in range(10):
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            except OSError as exc:
                raise OutputError(self.lock_path, exc, advice) from exc
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 4096, 0).decode(errors="replace")
                os.close(fd)
                raise RunLockedError(
                    f"{self.run_dir} is in use by another kernreg run ({_holder(holder)}); "
                    f"wait for it to end, or stop it and continue with --resume") from None
            try:  # the file we locked is still the folder's lock (not unlinked meanwhile)
                if os.fstat(fd).st_ino == os.stat(self.lock_path, follow_symlinks=False).st_ino:
                    return fd
            except FileNotFoundError:
                pass
            os.close(fd)
        raise RunLockedError(f"cannot take the lock of {self.run_dir}: it keeps changing")

    def remove_temporaries(self) -> None:
        """Remove temporaries of killed writers (call with the lock held)."""
        for path in remove_temporaries(self.run_dir) + remove_temporaries(self.trials_dir):
            log.info("removed %s, left by a killed writer", path)

    def remove_temporaries_if_idle(self) -> None:
        """Remove killed writers' temporaries when no process holds the lock (readers such as
        ``table``); a folder that cannot be locked here (read-only) is left as it is."""
        if not self.lock_path.is_file() and not self.trials_dir.is_dir():
            return
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.remove_temporaries()
        except OSError:
            pass  # a run is writing: its temporaries are live
        finally:
            os.close(fd)

    # ------------------------------------------------------------------------- trial files
    def unstart(self) -> None:
        """Undo :meth:`start` of a run that ended before its first trial (a refusal that comes
        only once trials run): the manifest and the empty ``trials/`` go, so the folder is as
        the run found it and the next run needs no ``--force`` (call with the lock held)."""
        if self.trial_files():
            return
        for path in (self.manifest_path,):
            if path.is_file() and not path.is_symlink():
                path.unlink()
        if self.trials_dir.is_dir() and not self.trials_dir.is_symlink():
            try:
                self.trials_dir.rmdir()  # only when empty: nothing of anyone else's goes
            except OSError:
                pass

    def trial_files(self) -> list[Path]:
        """The trial files of the run (names matching :attr:`TRIAL_FILE`), sorted."""
        if not self.trials_dir.is_dir():
            return []
        return sorted(p for p in self.trials_dir.iterdir()
                      if self.TRIAL_FILE.fullmatch(p.name) and p.is_file()
                      and not p.is_symlink())

    def unknown_files(self) -> list[Path]:
        """Entries of ``trials/`` that are no trial file (nor a temporary being written)."""
        if not self.trials_dir.is_dir():
            return []
        known = set(self.trial_files())
        return sorted(p for p in self.trials_dir.iterdir()
                      if p not in known and not (p.name.startswith(".") and
                                                 p.name.endswith(".tmp")))

    def config_hashes(self) -> list[str]:
        """The run's config hash, then those of the earlier configs it was resumed from (their
        trials compute as this config's); empty: no manifest."""
        if not self.manifest_path.is_file():
            return []
        return manifest_hashes(self.manifest())

    @staticmethod
    def mismatch(path: Path, trial: int, stored_trial: Any, stored_hash: str,
                 config_hashes: list[str], what: str = "") -> str | None:
        """Why a trial file does not belong to the run (None: it does). A file without a
        recorded hash (written before files recorded it) passes that check."""
        problems = []
        if stored_trial != trial:
            problems.append(f"it holds trial {stored_trial}{what}, not trial {trial}{what}")
        if stored_hash and config_hashes and stored_hash not in config_hashes:
            problems.append(f"it comes from another config (hash {stored_hash[:12]}…, the "
                            f"run's {config_hashes[0][:12]}…)")
        if not problems:
            return None
        return (f"trial file {path} does not belong to this run: {'; '.join(problems)}; "
                f"kernreg never merges such files: move it out of {path.parent} (then --resume "
                f"redoes that trial)")

    # ------------------------------------------------------------------------- --force, resume
    def check_kind(self, manifest: dict[str, Any]) -> None:
        """Refuse to continue or overwrite a folder holding another kind of run (a hold-out
        run and a protocol's run of the same name in one ``--out``)."""
        if not self.manifest_path.is_file():
            return
        try:
            old = self.manifest()
        except ResultsError:
            return  # the callers report an unreadable manifest in their own words
        if run_kind(old) != run_kind(manifest):
            raise ConfigError(
                f"{self.run_dir} holds a {_kind_words(old)} run of {old.get('experiment')!r}, "
                f"not a {_kind_words(manifest)} run; kernreg neither continues nor deletes it: "
                f"use --out for another folder, or give the config another name")

    def check_deletable(self, manifest: dict[str, Any]) -> None:
        """``--force`` deletes only a run folder of this experiment and kind, as its manifest
        says.

        Raises
        ------
        ConfigError
            The folder has no readable manifest, or it marks another experiment or kind.
        """
        why = None
        if not self.manifest_path.is_file() or self.manifest_path.is_symlink():
            why = "it has no manifest.json of kernreg's"
        else:
            try:
                old = self.manifest()
            except ResultsError:
                why = "its manifest.json is unreadable"
            else:
                if old.get("experiment") != manifest["experiment"]:
                    why = (f"its manifest.json is of experiment {old.get('experiment')!r}, "
                           f"not {manifest['experiment']!r}")
                elif run_kind(old) != run_kind(manifest):
                    why = (f"its manifest.json is of a {_kind_words(old)} run, not a "
                           f"{_kind_words(manifest)} run")
        if why:
            raise ConfigError(f"--force: {self.run_dir} is not marked as a "
                              f"{_kind_words(manifest)} run of {manifest['experiment']} ({why}); "
                              f"kernreg deletes only its own runs: move it away or use --out "
                              f"for another folder")

    def delete_results(self) -> None:
        """Delete what kernreg wrote into the run folder: the manifest, the run's outputs, the
        trial files and temporaries (never through a link; the lock and files kernreg does not
        know stay, and so does ``trials/`` when such a file is in it)."""
        for name in (MANIFEST, *self.OUTPUT_FILES):
            path = self.run_dir / name
            if path.is_symlink() or path.is_file():
                path.unlink()
        for name in self.OUTPUT_FOLDERS:
            folder = self.run_dir / name
            if folder.is_symlink():
                folder.unlink()
            elif folder.is_dir():
                check_inside(folder, self.run_dir)
                shutil.rmtree(folder)  # removes links inside, never follows them
        if self.trials_dir.is_symlink():
            self.trials_dir.unlink()
        elif self.trials_dir.is_dir():
            check_inside(self.trials_dir, self.run_dir)
            for path in self.trial_files():
                path.unlink()
            remove_temporaries(self.trials_dir)
            kept = self.unknown_files()
            if kept:
                log.warning("--force kept %d file(s) kernreg did not write in %s: %s",
                            len(kept), self.trials_dir, ", ".join(p.name for p in kept[:5]))
            else:
                self.trials_dir.rmdir()

    def check_trials_before_resume(self, config_hashes: list[str]) -> None:
        """Before a resumed run writes its manifest: every trial file already in the folder
        must hold what its name says and come from one of ``config_hashes`` (the manifest may
        have been lost, or replaced by hand); else the :class:`ResultsError` naming the file."""
        for path in self.trial_files():
            problem = self.check_file(path, config_hashes)
            if problem:
                raise ResultsError(problem)

    def check_file(self, path: Path, config_hashes: list[str]) -> str | None:
        """Why the trial file ``path`` does not belong to a run of ``config_hashes`` (None:
        it does, or it is unreadable — then it is redone)."""
        try:
            record = self.read_trial(path)
        except UNREADABLE:
            return None
        return self.trial_problem(path, record, config_hashes)

    def check_record(self, path: Path, record: Any, config_hashes: list[str]) -> None:
        """Raise the :class:`ResultsError` of :meth:`trial_problem`, if any."""
        problem = self.trial_problem(path, record, config_hashes)
        if problem:
            raise ResultsError(problem)

    def completed_file(self, path: Path) -> bool:
        """Whether the trial file ``path`` exists and is readable (an unreadable one is removed,
        so its trial is redone).

        Raises
        ------
        ResultsError
            It holds another trial, or comes from another config, than its name and the
            manifest say.
        """
        if not path.is_file():
            return False
        try:
            record = self.read_trial(path)
        except UNREADABLE:
            check_inside(path, self.run_dir).unlink()
            return False
        self.check_record(path, record, self.config_hashes())
        return True

    # each kind of run: its trial files' format
    def read_trial(self, path: Path) -> Any:
        """The record of the trial file ``path`` (raises one of :data:`UNREADABLE`)."""
        raise NotImplementedError

    def trial_problem(self, path: Path, record: Any, config_hashes: list[str]) -> str | None:
        """Why ``record``, read from ``path``, does not belong to a run of
        ``config_hashes`` (None: it does; see :meth:`mismatch`)."""
        raise NotImplementedError


def manifest_hashes(manifest: dict[str, Any]) -> list[str]:
    """A manifest's config hash, then those it was resumed from."""
    hashes = [manifest.get("config_hash", ""), *manifest.get("compatible_hashes", [])]
    return [h for h in hashes if isinstance(h, str) and h]
