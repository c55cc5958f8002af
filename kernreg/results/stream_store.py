"""On-disk record of a streaming run (thesis Section 7.6): one HDF5 file per finished trial.

Layout of ``<out>/<experiment>/``::

    .lock                  the run lock (:mod:`kernreg.results.run_folder`)
    manifest.json          normalised config, its hash, dataset sha256, environment
    trials/t003.h5         one finished trial, written atomically when it ends:
                           /record_at, /<method>/{total, imbalanced, balanced, per_class,
                           lambda, alpha}, timing arrays, attributes (trial, config hash,
                           imbalanced class, seed)
    table7_1.md, fig7_3.png  the table and figure of the finished trials

A trial file exists only once its trial has finished, so ``--resume`` redoes none and loses
none; a damaged one is named with the way to redo it. The folder follows the discipline every
run folder shares: its lock, trial files checked against their names and the manifest's config
hash, ``--force`` that deletes only a streaming run of the same experiment.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from kernreg.atomic import write_hdf5
from kernreg.errors import ConfigError, ResultsError
from kernreg.results.run_folder import UNREADABLE, RunFolder, manifest_hashes

__all__ = ["StreamStore"]

Trial = dict[str, Any]  # "attrs": dict, every other key: array, or dict of arrays (a method)
#: A trial file's name: ``t<trial>.h5``.
STREAM_TRIAL_FILE = re.compile(r"t([0-9]{3,})\.h5")


class StreamStore(RunFolder):
    """The folder of one streaming run."""

    TRIAL_FILE = STREAM_TRIAL_FILE
    OUTPUT_FILES = ("table7_1.md", "fig7_3.png")

    def trial_path(self, trial: int) -> Path:
        return self.trials_dir / f"t{trial:03d}.h5"

    def open(self, manifest: dict[str, Any], *, resume: bool, force: bool) -> None:
        """Start, or with ``resume`` continue, the run of ``manifest`` (``config_hash``); call
        with the lock held.

        Raises
        ------
        ConfigError
            Results exist and neither flag was given, they come from another config or another
            kind of run, or ``force`` names a folder that is not a streaming run of this
            experiment.
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

    def save_trial(self, trial: int, record: Trial) -> None:
        """Write one finished trial atomically (nothing left behind on failure)."""
        if record["attrs"].get("trial") != trial:
            raise ValueError(f"record of trial {record['attrs'].get('trial')} saved as {trial}")
        advice = (f"the trials finished before it are kept in {self.trials_dir}; free space "
                  "and continue with --resume")

        def fill(f: h5py.File) -> None:
            for key, value in record.items():
                if key == "attrs":
                    f.attrs["attrs"] = json.dumps(value, allow_nan=False)
                elif isinstance(value, dict):
                    group = f.create_group(key)
                    for name, array in value.items():
                        group.create_dataset(name, data=np.asarray(array))
                else:
                    f.create_dataset(key, data=np.asarray(value))

        write_hdf5(self.trial_path(trial), fill, advice, root=self.run_dir)

    def read_trial(self, path: Path) -> Trial:
        record: Trial = {}
        with h5py.File(path, "r") as f:
            record["attrs"] = json.loads(f.attrs["attrs"])
            for key, item in f.items():
                if isinstance(item, h5py.Group):
                    record[key] = {name: item[name][()] for name in item}
                else:
                    record[key] = item[()]
        if not isinstance(record["attrs"], dict):
            raise ValueError("its attributes are not a mapping")
        return record

    def trial_problem(self, path: Path, record: Trial, config_hashes: list[str]
                      ) -> str | None:
        match = STREAM_TRIAL_FILE.fullmatch(path.name)
        assert match is not None  # trial_files() lists only matching names
        attrs = record["attrs"]
        return self.mismatch(path, int(match[1]), attrs.get("trial"),
                             str(attrs.get("config_hash", "")), config_hashes)

    def load_trials(self) -> list[Trial]:
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
                           key=lambda p: int(STREAM_TRIAL_FILE.fullmatch(p.name)[1])):
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
