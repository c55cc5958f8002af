"""Results of a run on disk: one HDF5 file per finished trial, merged HDF5 + tidy CSV per run.

Layout of ``<out>/<experiment>/``::

    .lock                    the run lock: pid, host and start of the process holding it
    manifest.json            normalised config, its hash, dataset sha256, environment
    trials/<label>__t003.h5  one finished trial (written atomically when the trial ends)
    results.h5               all trials: /<label>/trial_003/{path_values, val_rmse,
                             path_seconds, ...} + attributes
    results.csv              one row per (algorithm, trial): the tidy table

A trial file exists only once its trial has finished, so resuming an interrupted run redoes no
finished trial and loses none; ``results.h5`` and ``results.csv`` are rebuilt from the trial
files, so a trial is never counted twice. Each trial file records its label, trial number and
the hash of the config that produced it; a file that disagrees with its name or the run's
manifest is reported, never merged.

Whatever writes to a run folder (``kernreg run``, ``kernreg table --rebuild``, ``kernreg
plot``) holds its lock; the lock, ``--force`` and the checks on resume are the discipline every
run folder shares (:mod:`kernreg.results.run_folder`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pandas as pd

from kernreg.atomic import atomic_path, check_inside, write_hdf5
from kernreg.config import algorithm_hashes, current_keys, results_relevant
from kernreg.errors import ConfigError, ResultsError
from kernreg.grid import is_grid
from kernreg.results.record import ADDED_FIELDS, TrialRecord
from kernreg.results.run_folder import UNREADABLE, RunFolder, manifest_hashes
from kernreg.solvers.blocks.iterative import ended_at_cap

_ARRAYS = ("path_values", "val_rmse", "m_values", "sigma_values", "sigma_val_rmse",
           "path_seconds")
_JSON = ("blas", "info", "measures")
#: The test measures along the path: a group of arrays, present when recorded.
_PATHS = "test_path"
#: A trial file's name: ``<label>__t<trial>.h5`` (labels are checked path components).
TRIAL_FILE = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*)__t([0-9]{3,})\.h5")
log = logging.getLogger("kernreg.results")


def _write_record(group: h5py.Group, record: TrialRecord) -> None:
    for field in fields(record):
        value = getattr(record, field.name)
        if field.name == _PATHS:  # one array per measure: a group (attributes are small)
            if value:
                paths = group.create_group(_PATHS)
                for name, array in value.items():
                    paths.create_dataset(name, data=np.asarray(array, dtype=np.float64))
        elif field.name in _ARRAYS:
            group.create_dataset(field.name, data=value)
        elif field.name in _JSON:
            group.attrs[field.name] = json.dumps(value)
        else:
            group.attrs[field.name] = "" if value is None else value


def _read_record(group: h5py.Group) -> TrialRecord:
    values: dict[str, Any] = {}
    for field in fields(TrialRecord):
        if field.name == _PATHS:
            if _PATHS in group:
                values[_PATHS] = {name: group[_PATHS][name][()] for name in group[_PATHS]}
            continue  # absent: none recorded (or a trial stored before it could be)
        if field.name in ADDED_FIELDS and field.name not in group and \
                field.name not in group.attrs:
            continue  # a trial stored before the field existed: the record fills it in
        if field.name in _ARRAYS:
            values[field.name] = group[field.name][()]
        elif field.name in _JSON:
            values[field.name] = json.loads(group.attrs[field.name])
        elif field.name not in group.attrs and field.default is not MISSING:
            continue  # a field added later (config_hash): its default
        else:
            value = group.attrs[field.name]
            values[field.name] = value.item() if isinstance(value, np.generic) else value
    values["param_name"] = values["param_name"] or None
    return TrialRecord(**values)


def tidy_row(record: TrialRecord, context: dict[str, Any]) -> dict[str, Any]:
    """One CSV row: the run's context columns, then the trial's scalar measurements."""
    row = dict(context)
    row.update({k: v for k, v in asdict(record).items()
                if k not in (*_ARRAYS, *_JSON, _PATHS)})
    if not record.config_hash:  # a trial file older than the recorded hash: the manifest's
        row["config_hash"] = context.get("config_hash", "")
    row["n_path_points"] = record.val_rmse.size
    row["m_selected"] = record.info.get("m_selected", np.nan)
    row["stopped_at_cap"] = stopped_at_cap(record)
    if "sigma_selected" in record.info:  # a σ grid: the config's σ is the grid
        row["sigma"] = row["sigma_selected"] = record.info["sigma_selected"]
    row["blas_threads"] = max(record.blas.values(), default=0)
    row["gemm_gflops"] = record.info.get("gemm_gflops", np.nan)
    row["peak_rss_mb"] = record.peak_rss / 2**20
    row["strategy"] = record.info.get("strategy", "")
    row["validation_strategy"] = record.info.get("validation_strategy", "")
    row["precision"] = record.info.get("precision", "")  # NKRLS's AᵀA: float64 or mixed
    # numba or numpy loops: times depend on it, and a resumed run may mix them
    row["kernel_path"] = record.info.get("kernel_path", "")
    # where it ran (Device.describe()); trials stored before devices existed ran on numpy
    row["device"] = record.info.get("device", "cpu")
    del row["peak_rss"]
    # one column per measure of the task (test_rmse and test_error keep their place)
    row.update({f"test_{name}": value for name, value in record.measures.items()})
    return row


def stopped_at_cap(record: TrialRecord) -> bool:
    """Whether the trial's iteration path selected its last iteration for want of more
    (:func:`~kernreg.solvers.blocks.iterative.ended_at_cap`): recorded by the fit, or read
    from the path's ``stopped`` and ``diverged`` facts of a trial stored before it was."""
    info = record.info
    if "stopped_at_cap" in info:
        return bool(info["stopped_at_cap"])
    if record.param_name != "iterations" or "stopped" not in info:
        return False
    return ended_at_cap(record.selected, record.val_rmse.size, bool(info["stopped"]),
                        bool(info.get("diverged", False)))


class RunStore(RunFolder):
    """The folder of one hold-out run (:class:`~kernreg.results.run_folder.RunFolder`: its lock,
    manifest, and what ``--force`` may delete)."""

    TRIAL_FILE = TRIAL_FILE
    OUTPUT_FILES = ("results.h5", "results.csv", "report.html")
    OUTPUT_FOLDERS = ("figures",)

    def __init__(self, run_dir: str | Path) -> None:
        super().__init__(run_dir)
        self.h5_path = self.run_dir / "results.h5"
        self.csv_path = self.run_dir / "results.csv"

    def trial_path(self, label: str, trial: int) -> Path:
        return self.trials_dir / f"{label}__t{trial:03d}.h5"

    # ------------------------------------------------------------------------- starting a run
    def open(self, manifest: dict[str, Any], *, resume: bool, force: bool,
             redo: tuple[str, ...] = ()) -> None:
        """Start (or, with ``resume``, continue) the run described by ``manifest`` (call with
        the lock held).

        ``force`` deletes earlier results — only of a folder whose manifest marks it as a
        hold-out run of the same experiment, and only the files kernreg wrote; with ``redo``
        labels and an unchanged config it deletes only those algorithms' trials and keeps the
        others.

        Raises
        ------
        ConfigError
            Results exist and neither ``resume`` nor ``force`` was given, ``resume`` was given
            for results of a different config or a streaming run, or ``force`` for a folder
            kernreg cannot tell is this experiment's run.
        ResultsError
            ``resume`` finds a trial file that another config wrote, or that holds another
            trial than its name says (the manifest lost or replaced): nothing is written.
        """
        if self.has_results():
            if force:
                self.check_deletable(manifest)
            else:
                self.check_kind(manifest)
            if force and redo and self._same_config(manifest):
                for label in redo:
                    for path in self.trial_files():
                        if TRIAL_FILE.fullmatch(path.name)[1] == label:
                            check_inside(path, self.run_dir).unlink()
            elif force:
                self.delete_results()
            elif not resume:
                raise ConfigError(
                    f"results already exist in {self.run_dir}; use --resume to continue them "
                    "or --force to delete them and start again"
                )
            elif self.manifest_path.exists():
                old = self.manifest()
                self._check_same_data(old, manifest)
                if not self._same_config(manifest):
                    self._check_resumable(old, manifest)
                    # the labels with trials kept their computation: their files stay valid
                    manifest["compatible_hashes"] = sorted(
                        {*old.get("compatible_hashes", []), old.get("config_hash", "")}
                        - {manifest["config_hash"], ""})
                elif old.get("compatible_hashes"):
                    manifest["compatible_hashes"] = old["compatible_hashes"]
            if resume and not force:
                self.check_trials_before_resume(manifest_hashes(manifest))
        self.start(manifest)

    def _check_same_data(self, old: dict[str, Any], manifest: dict[str, Any]) -> None:
        """A run on a data file resumes only on the same bytes: each file's sha256 as the
        trials were computed on it (the normalised ``dataset.sha256``)."""
        def files(config: Any) -> dict[str, tuple[str, str]]:
            dataset = config.get("dataset") if isinstance(config, dict) else None
            digests = dataset.get("sha256") if isinstance(dataset, dict) else None
            if not isinstance(digests, dict):
                return {}
            return {key: (str(dataset.get(key, "?")), str(digest))
                    for key, digest in digests.items()}

        before, now = files(old.get("config")), files(manifest.get("config"))
        changed = [f"dataset.{key} {now[key][0]} had sha256 {before[key][1][:12]}…, now "
                   f"{now[key][1][:12]}…" for key in sorted(set(before) & set(now))
                   if before[key][1] != now[key][1]]
        if changed:
            raise ConfigError(
                f"cannot resume {self.run_dir}: its data changed since its trials were computed "
                f"({'; '.join(changed)}); use --force to start again on the new data or --out "
                "for another folder")

    def _check_resumable(self, old: dict[str, Any], manifest: dict[str, Any]) -> None:
        """A changed config resumes when every label with trials here computes as before
        (algorithms added, or trials added, are fine; a label changed or dropped is not)."""
        before = algorithm_hashes(old["config"])
        now = algorithm_hashes(manifest["config"])
        stored = sorted({TRIAL_FILE.fullmatch(p.name)[1] for p in self.trial_files()})
        changed = [label for label in stored if now.get(label) != before.get(label)]
        if changed:
            what = ", ".join(f"{label!r} ({'changed' if label in now else 'not in the config'})"
                             for label in changed)
            raise ConfigError(
                f"cannot resume {self.run_dir}: its results come from a different config "
                f"(hash {str(old.get('config_hash', '?'))[:12]}…, now "
                f"{manifest['config_hash'][:12]}…) and its trials of {what} would not be "
                "computed the same; use --force to start again or --out for another folder"
            )

    def _same_config(self, manifest: dict[str, Any]) -> bool:
        """Whether stored results come from a config with the same results-relevant fields."""
        if not self.manifest_path.exists():
            return False
        old = self.manifest()
        return results_relevant(old["config"]) == results_relevant(manifest["config"])

    # ------------------------------------------------------------------------- trial files
    def completed(self, label: str, trial: int) -> bool:
        """Whether a readable trial file of this run exists (an unreadable one is redone).

        Raises
        ------
        ResultsError
            The file holds another trial, label or config than its name and the manifest say.
        """
        return self.completed_file(self.trial_path(label, trial))

    def save_trial(self, record: TrialRecord) -> None:
        """Write one finished trial's file atomically (nothing half-written on failure)."""
        path = self.trial_path(record.label, record.trial)
        done = len(self.trial_files())
        advice = f"the {done} trials finished before it are kept in {self.trials_dir}; free " \
                 f"space and continue with --resume"
        write_hdf5(path, lambda f: _write_record(f, record), advice, root=self.run_dir)

    def read_trial(self, path: Path) -> TrialRecord:
        with h5py.File(path, "r") as f:
            return _read_record(f)

    def trial_problem(self, path: Path, record: TrialRecord, config_hashes: list[str]
                      ) -> str | None:
        """A trial file holds what its name says, from the run's config or one it was resumed
        from (files written before trial files recorded their config have no hash and pass)."""
        match = TRIAL_FILE.fullmatch(path.name)
        assert match is not None  # trial_files() lists only matching names
        label, trial = match[1], int(match[2])
        if record.label != label:
            return (f"trial file {path} does not belong to this run: it holds trial "
                    f"{record.trial} of {record.label!r}, not trial {trial} of {label!r}; "
                    f"kernreg never merges such files: move it out of {path.parent} (then "
                    f"--resume redoes that trial)")
        return self.mismatch(path, trial, record.trial, record.config_hash, config_hashes,
                             f" of {label!r}")

    def load_trials(self) -> list[TrialRecord]:
        """Every finished trial's record; files in ``trials/`` that are no trial file are
        reported (a warning) and ignored.

        Raises
        ------
        ResultsError
            A trial file is damaged, or holds another trial or config than its name and the
            manifest say: it names the file and what to do.
        """
        for path in self.unknown_files():
            log.warning("%s is no trial file of kernreg's (expected <label>__t<trial>.h5); "
                        "ignored", path)
        config_hashes = self.config_hashes()
        records = []
        for path in self.trial_files():
            try:
                record = self.read_trial(path)
            except UNREADABLE as exc:
                raise ResultsError(
                    f"damaged trial file {path} ({type(exc).__name__}: {exc}); delete it and "
                    f"run the experiment again with --resume to redo that trial"
                ) from None
            self.check_record(path, record, config_hashes)
            records.append(record)
        return records

    def context(self) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """The columns every CSV row of this run carries, and those per algorithm label, as the
        manifest records them."""
        manifest = self.manifest()
        config = manifest["config"]
        context = {
            "experiment": manifest["experiment"],
            "dataset": manifest["dataset"],
            # a σ grid's rows carry their selected σ (tidy_row)
            "sigma": config["kernel"].get("sigma") if not is_grid(
                config["kernel"].get("sigma")) else np.nan,
            "kernel": config["kernel"]["name"],
            "config_hash": manifest["config_hash"],
            "dataset_sha256": manifest["dataset_sha256"],
            "kernreg_version": manifest["environment"]["kernreg"],
        }
        # model size: Nyström centers, or random features (an earlier manifest's n_features)
        per_label = {a["label"]: {"m": a.get("m", current_keys(a).get("n_components"))}
                     for a in config["algorithms"]}
        return context, per_label

    def finalize(self) -> pd.DataFrame:
        """Write ``results.h5`` and ``results.csv`` from the trial files and the manifest (also
        what ``kernreg table --rebuild`` does to damaged ones); return the table."""
        records = self.load_trials()
        manifest = self.manifest()
        context, per_label = self.context()
        advice = f"the finished trials are kept in {self.trials_dir}; free space and rebuild " \
                 f"with kernreg table --rebuild {self.run_dir}"

        def fill(f: h5py.File) -> None:
            for key in ("experiment", "config_hash", "dataset", "dataset_sha256"):
                f.attrs[key] = manifest[key]
            f.attrs["config"] = json.dumps(manifest["config"])
            f.attrs["environment"] = json.dumps(manifest["environment"])
            for record in records:
                _write_record(f.create_group(f"{record.label}/trial_{record.trial:03d}"),
                              record)

        write_hdf5(self.h5_path, fill, advice, root=self.run_dir)
        table = pd.DataFrame([tidy_row(r, {**context, **per_label.get(r.label, {})})
                              for r in records])
        with atomic_path(self.csv_path, advice, root=self.run_dir) as tmp:
            table.to_csv(tmp, index=False)
        return table


#: Columns every tidy CSV has, and those that must be numbers.
REQUIRED_COLUMNS = ("experiment", "dataset", "algorithm", "label", "trial", "selected",
                    "model_selection_time", "test_rmse")
NUMERIC_COLUMNS = ("trial", "selected", "model_selection_time", "test_rmse")
#: Columns no row may leave empty (``selected`` is empty for KOLS, which selects nothing).
FILLED_COLUMNS = tuple(c for c in REQUIRED_COLUMNS if c != "selected")


def fill_missing_runs(frames: Sequence[pd.DataFrame], fallback: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``fallback`` whose (experiment, label) pair none of ``frames`` has: earlier
    trials standing in for runs not (re)made here, e.g. the committed trials behind a table
    when only some of its runs were redone."""
    have = {pair for frame in frames
            for pair in zip(frame["experiment"], frame["label"], strict=True)}
    keep = [pair not in have for pair in zip(fallback["experiment"], fallback["label"],
                                             strict=True)]
    return fallback[keep].reset_index(drop=True)


def read_results_csv(path: str | Path) -> pd.DataFrame:
    """Read and check a run's tidy CSV (``path`` may be the run folder or the CSV itself).

    Raises
    ------
    ResultsError
        The CSV is missing, not a CSV, lacks columns, has non-numbers where numbers belong,
        misses values, or — inside a run folder — lists other trials than its trial files
        (truncated or stale): the message names the file and says how to rebuild it.
    """
    path = Path(path)
    csv = path / "results.csv" if path.is_dir() else path
    run_dir = csv.parent
    rebuild = (f"rebuild it from the trial files: kernreg table --rebuild {run_dir}"
               if (run_dir / "trials").is_dir() else "it is not one kernreg wrote")
    if not path.exists():
        raise ResultsError(f"no results at {path}: it does not exist (a run folder, as "
                           f"`kernreg run` writes under --out, or its results.csv)")
    if not csv.is_file():
        raise ResultsError(f"no results found at {path} (expected {csv})")
    try:
        table = pd.read_csv(csv)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
            ValueError) as exc:
        raise ResultsError(f"{csv} is not a readable CSV ({exc}); {rebuild}") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in table.columns]
    if missing:
        raise ResultsError(f"{csv} lacks the columns {', '.join(missing)}; {rebuild}")
    for column in NUMERIC_COLUMNS:
        if not pd.api.types.is_numeric_dtype(table[column]):
            raise ResultsError(f"{csv}: column {column} holds non-numbers; {rebuild}")
    if table[list(FILLED_COLUMNS)].isna().any().any():
        raise ResultsError(f"{csv} has empty required values (truncated?) on "
                           f"{_lines(table[list(FILLED_COLUMNS)].isna().any(axis=1))}; "
                           f"{rebuild}")
    numbers = table.select_dtypes("number")
    infinite = np.isinf(numbers.to_numpy(dtype=np.float64))
    if infinite.any():
        rows, cols = np.nonzero(infinite)
        raise ResultsError(f"{csv}: column {numbers.columns[cols[0]]} holds "
                           f"{numbers.iat[rows[0], cols[0]]} on {_lines(infinite.any(axis=1))}; "
                           f"a result is a finite number: {rebuild}")
    repeated = table.duplicated(["experiment", "label", "trial"], keep=False)
    if repeated.any():
        first = table[repeated].iloc[0]
        raise ResultsError(f"{csv} holds trial {int(first['trial'])} of {first['experiment']}/"
                           f"{first['label']} more than once ({_lines(repeated)}); a trial is "
                           f"counted once: {rebuild}")
    if (run_dir / "trials").is_dir():
        files = {p.stem for p in RunStore(run_dir).trial_files()}
        listed = {f"{label}__t{int(t):03d}" for label, t in zip(table["label"], table["trial"],
                                                                 strict=True)}
        if listed != files:
            raise ResultsError(f"{csv} lists {len(listed)} trials, the trial files are "
                               f"{len(files)} (truncated or stale); {rebuild}")
        _check_results_h5(run_dir / "results.h5", listed, rebuild)
    return table


def _lines(rows: pd.Series | np.ndarray) -> str:
    """The CSV lines (header = line 1) of the rows marked True: "line 3", "lines 3, 7"."""
    lines = [str(i + 2) for i in np.flatnonzero(np.asarray(rows))]
    shown = ", ".join(lines[:5]) + (f" … ({len(lines)} in all)" if len(lines) > 5 else "")
    return f"line{'s' if len(lines) > 1 else ''} {shown}"


def _check_results_h5(path: Path, trials: set[str], rebuild: str) -> None:
    """``results.h5`` opens and holds one group per trial (``<label>/trial_003``)."""
    try:
        with h5py.File(path, "r") as f:
            groups = {f"{label}__t{name.removeprefix('trial_')}" for label in f
                      for name in f[label]}
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise ResultsError(f"{path} is damaged ({type(exc).__name__}: {exc}); {rebuild}") \
            from None
    if groups != trials:
        raise ResultsError(f"{path} holds {len(groups)} trials, results.csv {len(trials)}; "
                           f"{rebuild}")


@dataclass
class RunData:
    """What one run stored: its name, dataset, trial records and tidy table."""

    name: str
    dataset: str
    records: list[TrialRecord]
    table: pd.DataFrame
    run_dir: Path


def load_run(run_dir: str | Path) -> RunData:
    """Read a finished run folder (``kernreg run`` output).

    Raises
    ------
    ResultsError
        Not a run folder, no finished trial, or a damaged trial file or ``results.csv``.
    """
    run_dir = Path(run_dir)
    store = RunStore(run_dir)
    if not store.manifest_path.is_file():
        raise ResultsError(f"{run_dir} is not a run folder (no manifest.json)")
    records = store.load_trials()
    if not records:
        raise ResultsError(f"{run_dir} has no finished trials")
    manifest = store.manifest()
    return RunData(manifest["experiment"], manifest["dataset"], records,
                   read_results_csv(run_dir), run_dir)
