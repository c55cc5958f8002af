"""Results of a run on disk: one HDF5 file per finished trial, merged HDF5 + tidy CSV per run.

Layout of ``<out>/<experiment>/``::

    manifest.json            normalised config, its hash, dataset sha256, environment
    trials/<label>__t003.h5  one finished trial (written atomically when the trial ends)
    results.h5               all trials: /<label>/trial_003/{path_values, val_rmse} + attributes
    results.csv              one row per (algorithm, trial): the tidy table

A trial file exists only once its trial has finished, so resuming an interrupted run redoes no
finished trial and loses none; ``results.h5`` and ``results.csv`` are rebuilt from the trial
files, so a trial is never counted twice.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pandas as pd

from kernreg.atomic import atomic_path, write_text
from kernreg.config import results_relevant
from kernreg.errors import ConfigError, KernregError
from kernreg.results.record import TrialRecord

_ARRAYS = ("path_values", "val_rmse", "m_values")
_JSON = ("blas", "info")


def _write_record(group: h5py.Group, record: TrialRecord) -> None:
    for field in fields(record):
        value = getattr(record, field.name)
        if field.name in _ARRAYS:
            group.create_dataset(field.name, data=value)
        elif field.name in _JSON:
            group.attrs[field.name] = json.dumps(value)
        else:
            group.attrs[field.name] = "" if value is None else value


def _read_record(group: h5py.Group) -> TrialRecord:
    values: dict[str, Any] = {}
    for field in fields(TrialRecord):
        if field.name in _ARRAYS:
            if field.name in group:  # m_values is absent from trials stored before it existed
                values[field.name] = group[field.name][()]
        elif field.name in _JSON:
            values[field.name] = json.loads(group.attrs[field.name])
        else:
            value = group.attrs[field.name]
            values[field.name] = value.item() if isinstance(value, np.generic) else value
    values["param_name"] = values["param_name"] or None
    return TrialRecord(**values)


def tidy_row(record: TrialRecord, context: dict[str, Any]) -> dict[str, Any]:
    """One CSV row: the run's context columns, then the trial's scalar measurements."""
    row = dict(context)
    row.update({k: v for k, v in asdict(record).items() if k not in (*_ARRAYS, *_JSON)})
    row["n_path_points"] = record.val_rmse.size
    row["m_selected"] = record.info.get("m_selected", np.nan)
    row["blas_threads"] = max(record.blas.values(), default=0)
    row["gemm_gflops"] = record.info.get("gemm_gflops", np.nan)
    row["peak_rss_mb"] = record.peak_rss / 2**20
    row["strategy"] = record.info.get("strategy", "")
    row["validation_strategy"] = record.info.get("validation_strategy", "")
    del row["peak_rss"]
    return row


class RunStore:
    """The folder of one experiment run."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.trials_dir = self.run_dir / "trials"
        self.manifest_path = self.run_dir / "manifest.json"
        self.h5_path = self.run_dir / "results.h5"
        self.csv_path = self.run_dir / "results.csv"

    def trial_path(self, label: str, trial: int) -> Path:
        return self.trials_dir / f"{label}__t{trial:03d}.h5"

    def has_results(self) -> bool:
        return self.manifest_path.exists() or self.trials_dir.exists()

    def manifest(self) -> dict[str, Any]:
        try:
            return json.loads(self.manifest_path.read_text())
        except (OSError, ValueError) as exc:
            raise KernregError(f"cannot read {self.manifest_path}: {exc}") from None

    def open(self, manifest: dict[str, Any], *, resume: bool, force: bool,
             redo: tuple[str, ...] = ()) -> None:
        """Start (or, with ``resume``, continue) the run described by ``manifest``.

        ``force`` deletes earlier results; with ``redo`` labels and an unchanged config it
        deletes only those algorithms' trials and keeps the others.

        Raises
        ------
        ConfigError
            Results exist and neither ``resume`` nor ``force`` was given, or ``resume`` was
            given for results of a different config.
        """
        if self.has_results():
            if force and redo and self._same_config(manifest):
                for label in redo:
                    for path in self.trials_dir.glob(f"{label}__t*.h5"):
                        path.unlink()
            elif force:
                shutil.rmtree(self.run_dir)
            elif not resume:
                raise ConfigError(
                    f"results already exist in {self.run_dir}; use --resume to continue them "
                    "or --force to delete them and start again"
                )
            elif self.manifest_path.exists():
                old = self.manifest()
                if not self._same_config(manifest):
                    raise ConfigError(
                        f"cannot resume {self.run_dir}: its results come from a different config "
                        f"(hash {old.get('config_hash', '?')[:12]}…, now "
                        f"{manifest['config_hash'][:12]}…); use --force to start again or "
                        "--out for another folder"
                    )
        self.trials_dir.mkdir(parents=True, exist_ok=True)
        write_text(self.manifest_path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")

    def _same_config(self, manifest: dict[str, Any]) -> bool:
        """Whether stored results come from a config with the same results-relevant fields."""
        if not self.manifest_path.exists():
            return False
        old = self.manifest()
        return results_relevant(old["config"]) == results_relevant(manifest["config"])

    def completed(self, label: str, trial: int) -> bool:
        """Whether a readable trial file exists (an unreadable one is redone)."""
        path = self.trial_path(label, trial)
        if not path.is_file():
            return False
        try:
            with h5py.File(path, "r") as f:
                _read_record(f)
        except (OSError, KeyError, ValueError):
            path.unlink()
            return False
        return True

    def save_trial(self, record: TrialRecord) -> None:
        with atomic_path(self.trial_path(record.label, record.trial)) as tmp, \
                h5py.File(tmp, "w") as f:
            _write_record(f, record)

    def load_trials(self) -> list[TrialRecord]:
        records = []
        for path in sorted(self.trials_dir.glob("*.h5")):
            with h5py.File(path, "r") as f:
                records.append(_read_record(f))
        return records

    def finalize(self, context: dict[str, Any],
                 per_label: dict[str, dict[str, Any]] | None = None) -> pd.DataFrame:
        """Write ``results.h5`` and ``results.csv`` from the trial files; return the table.

        ``context`` adds the same columns to every row, ``per_label`` columns per algorithm.
        """
        records = self.load_trials()
        manifest = self.manifest()
        with atomic_path(self.h5_path) as tmp, h5py.File(tmp, "w") as f:
            for key in ("experiment", "config_hash", "dataset", "dataset_sha256"):
                f.attrs[key] = manifest[key]
            f.attrs["config"] = json.dumps(manifest["config"])
            f.attrs["environment"] = json.dumps(manifest["environment"])
            for record in records:
                _write_record(f.create_group(f"{record.label}/trial_{record.trial:03d}"),
                              record)
        per_label = per_label or {}
        table = pd.DataFrame([tidy_row(r, {**context, **per_label.get(r.label, {})})
                              for r in records])
        with atomic_path(self.csv_path) as tmp:
            table.to_csv(tmp, index=False)
        return table


def read_results_csv(path: str | Path) -> pd.DataFrame:
    """Read a run's tidy CSV (``path`` may be the run folder or the CSV itself)."""
    path = Path(path)
    csv = path / "results.csv" if path.is_dir() else path
    if not csv.is_file():
        raise KernregError(f"no results found at {path} (expected {csv})")
    return pd.read_csv(csv)


@dataclass
class RunData:
    """What one run stored: its name, dataset, trial records and tidy table."""

    name: str
    dataset: str
    records: list[TrialRecord]
    table: pd.DataFrame
    run_dir: Path


def load_run(run_dir: str | Path) -> RunData:
    """Read a finished run folder (``kernreg run`` output)."""
    run_dir = Path(run_dir)
    store = RunStore(run_dir)
    if not store.manifest_path.is_file():
        raise KernregError(f"{run_dir} is not a run folder (no manifest.json)")
    records = store.load_trials()
    if not records:
        raise KernregError(f"{run_dir} has no finished trials to plot")
    manifest = store.manifest()
    return RunData(manifest["experiment"], manifest["dataset"], records,
                   read_results_csv(run_dir), run_dir)
