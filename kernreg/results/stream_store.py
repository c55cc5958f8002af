"""On-disk record of a streaming run (thesis Section 7.6): one HDF5 file per finished trial.

Layout of ``<out>/<experiment>/``::

    manifest.json          normalised config, its hash, dataset sha256, environment
    trials/t003.h5         one finished trial, written atomically when it ends:
                           /record_at, /<method>/{total, imbalanced, balanced, per_class,
                           lambda, alpha}, timing arrays, attributes (imbalanced class, seed)

A trial file exists only once its trial has finished, so ``--resume`` redoes none and loses
none; a damaged one is named with the way to redo it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from kernreg.atomic import atomic_path, write_text
from kernreg.errors import ConfigError, OutputError, ResultsError

__all__ = ["StreamStore"]

Trial = dict[str, Any]  # "attrs": dict, every other key: array, or dict of arrays (a method)


class StreamStore:
    """The folder of one streaming run."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.trials_dir = self.run_dir / "trials"
        self.manifest_path = self.run_dir / "manifest.json"

    def trial_path(self, trial: int) -> Path:
        return self.trials_dir / f"t{trial:03d}.h5"

    def manifest(self) -> dict[str, Any]:
        try:
            return json.loads(self.manifest_path.read_text())
        except (OSError, ValueError) as exc:
            raise ResultsError(f"cannot read {self.manifest_path} ({exc}); the run folder is "
                               "damaged: start it again with --force") from None

    def open(self, manifest: dict[str, Any], *, resume: bool, force: bool) -> None:
        """Start, or with ``resume`` continue, the run of ``manifest`` (``config_hash``).

        Raises
        ------
        ConfigError
            Results exist and neither flag was given, or they come from another config.
        """
        if self.manifest_path.exists() or self.trials_dir.exists():
            if force:
                shutil.rmtree(self.run_dir)
            elif not resume:
                raise ConfigError(f"results already exist in {self.run_dir}; use --resume to "
                                  "continue them or --force to delete them and start again")
            elif self.manifest_path.exists() and \
                    self.manifest()["config_hash"] != manifest["config_hash"]:
                raise ConfigError(f"cannot resume {self.run_dir}: its results come from a "
                                  "different config; use --force to start again or --out for "
                                  "another folder")
        try:
            self.trials_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(self.trials_dir, exc, "choose another --out folder") from exc
        write_text(self.manifest_path, json.dumps(manifest, indent=2, sort_keys=True) + "\n",
                   advice="choose another --out folder")

    def completed(self, trial: int) -> bool:
        """Whether a readable file of ``trial`` exists (an unreadable one is removed)."""
        path = self.trial_path(trial)
        if not path.is_file():
            return False
        try:
            self._read(path)
        except (OSError, KeyError, ValueError):
            path.unlink()
            return False
        return True

    def save_trial(self, trial: int, record: Trial) -> None:
        """Write one finished trial atomically."""
        path = self.trial_path(trial)
        advice = (f"the trials finished before it are kept in {self.trials_dir}; free space "
                  "and continue with --resume")
        with atomic_path(path, advice) as tmp:
            with h5py.File(tmp, "w") as f:
                for key, value in record.items():
                    if key == "attrs":
                        f.attrs["attrs"] = json.dumps(value)
                    elif isinstance(value, dict):
                        group = f.create_group(key)
                        for name, array in value.items():
                            group.create_dataset(name, data=np.asarray(array))
                    else:
                        f.create_dataset(key, data=np.asarray(value))

    @staticmethod
    def _read(path: Path) -> Trial:
        record: Trial = {}
        with h5py.File(path, "r") as f:
            record["attrs"] = json.loads(f.attrs["attrs"])
            for key, item in f.items():
                if isinstance(item, h5py.Group):
                    record[key] = {name: item[name][()] for name in item}
                else:
                    record[key] = item[()]
        return record

    def load_trials(self) -> list[Trial]:
        """Every finished trial, in trial order.

        Raises
        ------
        ResultsError
            No trial has finished, or a trial file is damaged (named, with how to redo it).
        """
        records = []
        for path in sorted(self.trials_dir.glob("t*.h5")):
            try:
                records.append(self._read(path))
            except (OSError, KeyError, ValueError, TypeError) as exc:
                raise ResultsError(f"damaged trial file {path} ({type(exc).__name__}: {exc}); "
                                   "delete it and run again with --resume to redo that "
                                   "trial") from None
        if not records:
            raise ResultsError(f"no finished trial in {self.trials_dir}")
        return records
