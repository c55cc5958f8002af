"""On-disk record of a registered protocol's run: one HDF5 file per finished trial.

Layout of ``<out>/<experiment>/``::

    .lock                  the run lock (:mod:`kernreg.results.run_folder`)
    manifest.json          normalised config (its ``protocol.kind`` names the protocol), its
                           hash, the data's provenance, the environment
    trials/t003.h5         one finished trial, written atomically when it ends
    <outputs>              the protocol's table, figures and data files of the finished trials

A record is a mapping: ``"attrs"`` (JSON: the trial number, the config hash, facts of the
trial), every other key an array or a mapping of arrays (one group of the file). A trial file
exists only once its trial has finished, so ``--resume`` redoes none and loses none; a damaged
one is named with the way to redo it. The folder follows the discipline every run folder
shares: its lock, trial files checked against their names and the manifest's config hash,
``--force`` that deletes only a run of the same experiment and protocol.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from kernreg.atomic import write_hdf5
from kernreg.errors import ConfigError, ResultsError
from kernreg.results.run_folder import UNREADABLE, RunFolder, manifest_hashes

__all__ = ["TRIAL_FILE", "Record", "TrialStore"]

#: ``"attrs"``: a JSON mapping; every other key: an array, or a mapping of arrays.
Record = dict[str, Any]
#: A trial file's name: ``t<trial>.h5``.
TRIAL_FILE = re.compile(r"t([0-9]{3,})\.h5")


def _write_record(f: h5py.File, record: Record) -> None:
    for key, value in record.items():
        if key == "attrs":
            f.attrs["attrs"] = json.dumps(value, allow_nan=False)
        elif isinstance(value, dict):
            group = f.create_group(key)
            for name, array in value.items():
                group.create_dataset(name, data=np.asarray(array))
        else:
            f.create_dataset(key, data=np.asarray(value))


def _read_record(f: h5py.File) -> Record:
    record: Record = {"attrs": json.loads(f.attrs["attrs"])}
    for key, item in f.items():
        if isinstance(item, h5py.Group):
            record[key] = {name: item[name][()] for name in item}
        else:
            record[key] = item[()]
    if not isinstance(record["attrs"], dict):
        raise ValueError("its attributes are not a mapping")
    return record


class TrialStore(RunFolder):
    """The folder of one run of a registered protocol.

    Parameters
    ----------
    run_dir
        ``<out>/<experiment>``.
    outputs
        The files the protocol writes at the top of the folder from its finished trials
        (``--force`` deletes them with the trials).
    """

    TRIAL_FILE = TRIAL_FILE

    def __init__(self, run_dir: str | Path, outputs: Sequence[str] = ()) -> None:
        super().__init__(run_dir)
        self.OUTPUT_FILES = tuple(outputs)

    def trial_path(self, trial: int) -> Path:
        return self.trials_dir / f"t{trial:03d}.h5"

    def open(self, manifest: dict[str, Any], *, resume: bool, force: bool) -> None:
        """Start, or with ``resume`` continue, the run of ``manifest`` (``config_hash``); call
        with the lock held.

        Raises
        ------
        ConfigError
            Results exist and neither flag was given, they come from another config or another
            kind of run, or ``force`` names a folder that is not a run of this experiment and
            protocol.
        ResultsError
            ``resume`` finds a trial file another config wrote, or one holding another trial
            than its name says: nothing is written.
        """
        if self.has_results():
            if force:
                self.check_deletable(manifest)
                self.delete_results()
            elif not resume:
                raise ConfigError(f"results already exist in {self.run_dir}; use --resume to "
                                  "continue them or --force to delete them and start again")
            else:
                self.check_kind(manifest)
                if self.manifest_path.exists() and \
                        self.manifest()["config_hash"] != manifest["config_hash"]:
                    raise ConfigError(f"cannot resume {self.run_dir}: its results come from a "
                                      "different config; use --force to start again or --out "
                                      "for another folder")
                self.check_trials_before_resume(manifest_hashes(manifest))
        self.start(manifest)

    def completed(self, trial: int) -> bool:
        """Whether a readable file of ``trial`` exists (an unreadable one is removed).

        Raises
        ------
        ResultsError
            The file holds another trial or comes from another config than the manifest's.
        """
        return self.completed_file(self.trial_path(trial))

    def save_trial(self, trial: int, record: Record) -> None:
        """Write one finished trial atomically (nothing left behind on failure)."""
        if record["attrs"].get("trial") != trial:
            raise ValueError(f"record of trial {record['attrs'].get('trial')} saved as {trial}")
        advice = (f"the trials finished before it are kept in {self.trials_dir}; free space "
                  "and continue with --resume")
        write_hdf5(self.trial_path(trial), lambda f: _write_record(f, record), advice,
                   root=self.run_dir)

    def read_trial(self, path: Path) -> Record:
        with h5py.File(path, "r") as f:
            return _read_record(f)

    def trial_problem(self, path: Path, record: Record, config_hashes: list[str]
                      ) -> str | None:
        match = TRIAL_FILE.fullmatch(path.name)
        assert match is not None  # trial_files() lists only matching names
        attrs = record["attrs"]
        return self.mismatch(path, int(match[1]), attrs.get("trial"),
                             str(attrs.get("config_hash", "")), config_hashes)

    def load_trials(self) -> list[Record]:
        """Every finished trial, in trial order, each checked against its file name and the
        manifest's config hash.

        Raises
        ------
        ResultsError
            No trial has finished, a trial file is damaged (named, with how to redo it), or it
            holds another trial or config than its name and the manifest say.
        """
        config_hashes = self.config_hashes()
        records = []
        for path in sorted(self.trial_files(),  # t1000 after t999, not after t100
                           key=lambda p: int(TRIAL_FILE.fullmatch(p.name)[1])):
            try:
                record = self.read_trial(path)
            except UNREADABLE as exc:
                raise ResultsError(f"damaged trial file {path} ({type(exc).__name__}: {exc}); "
                                   "delete it and run again with --resume to redo that "
                                   "trial") from None
            self.check_record(path, record, config_hashes)
            records.append(record)
        if not records:
            raise ResultsError(f"no finished trial in {self.trials_dir}")
        return records
