"""The tidy results behind a table: every input (table config, experiment config, run folder,
results CSV) read, checked and merged, with the runs that have no results named and the
command that makes them."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kernreg.config import load_experiment
from kernreg.config.library import config_reference
from kernreg.errors import ResultsError
from kernreg.results.store import RunStore, fill_missing_runs, read_results_csv
from kernreg.results.tables import Collected, file_facts, is_table_config, load_table_config

__all__ = ["collect_results"]

log = logging.getLogger("kernreg.results")


def collect_results(inputs: Sequence[str], results_dir: str, rebuild: bool = False,
                    fallback: str | None = None, allow_empty: bool = False,
                    default_out: str = "results") -> Collected:
    """Tidy results of every hold-out input (table config, experiment config, run folder or
    CSV; runs of a config are looked for in ``results_dir``, and the commands it suggests name
    ``--out`` when that is not ``default_out``);
    ``rebuild`` first rewrites each run folder's results.csv/results.h5 from its trial
    files; ``fallback`` (a results CSV) fills in the (experiment, label) pairs that no input
    has results for (of those the configs list, when configs are given: a table config's
    ``labels:`` keeps the fallback's other rows out too); ``allow_empty``: no results at all
    is no error (a table of the configs alone, NYTRO Table 1)."""

    def read(run_dir: Path) -> pd.DataFrame:
        store = RunStore(run_dir)
        if rebuild and (run_dir / "trials").is_dir():
            # a writer: holds the run's lock (refused while a run writes there)
            with store.lock(advice="make the run folder writable"):
                store.finalize()
            log.warning("rebuilt %s/results.csv and results.h5 from %d trial files", run_dir,
                        len(store.trial_files()))
        else:
            store.remove_temporaries_if_idle()
            store.load_trials()  # each trial file checked against its name and the manifest
        if store.manifest_path.exists():
            files.update(file_facts(store.manifest()))
        return read_results_csv(run_dir)

    out_option = "" if results_dir == default_out else f" --out {results_dir}"
    frames: list[pd.DataFrame] = []
    sources: list[str] = []  # where each frame's rows come from, to name a repeated trial
    not_run, notes, missing, measures = [], [], [], []
    listed: list[str] = []  # the experiments of the table configs, in their order
    files: dict[str, dict[str, Any]] = {}  # what runs on data files recorded of them
    pending: list[tuple[tuple[str, str], dict[str, Any], str]] = []  # not run: (pair, NA, warning)
    for item in inputs:
        path = Path(item)
        labels = None  # a table config's `labels:` keeps only those rows of its runs
        if path.suffix in (".yaml", ".yml") and is_table_config(path):
            table = load_table_config(path)
            not_run += table.get("not_run", [])
            notes += table.get("notes", [])
            measures += [m for m in table.get("measures", []) if m not in measures]
            runs = [path.parent / r for r in table["runs"]]
            labels = table.get("labels")
        elif path.suffix in (".yaml", ".yml"):
            runs = [path]
        else:
            frames.append(read(path) if path.is_dir() else read_results_csv(path))
            sources.append(str(path))
            continue
        for run_config in runs:
            exp = load_experiment(run_config)
            listed.append(exp.name)
            run_dir = Path(results_dir) / exp.name
            done: set[str] = set()
            if (run_dir / "results.csv").is_file() or (rebuild and (run_dir / "trials").is_dir()):
                frame = read(run_dir)
                if labels is not None:
                    frame = frame[frame["label"].isin(labels)]
                frames.append(frame)
                sources.append(str(run_dir))
                done = set(frame["label"])
            for algo in exp.algorithms:
                if labels is not None and algo.label not in labels:
                    continue
                if algo.label not in done:
                    command = f"kernreg run {config_reference(run_config)}{out_option} --resume"
                    pending.append(((exp.name, algo.label),
                                    {"dataset": exp.dataset_name, "algorithm": algo.name,
                                     "label": algo.label, "reason": f"not run yet ({command})",
                                     "m": algo.params.get("m")},
                                    f"{exp.name}/{algo.label}: no results in {run_dir} "
                                    f"(made by: {command})"))
    if fallback is not None:
        filled = fill_missing_runs(frames, read_results_csv(fallback))
        if listed:  # configs name the pairs wanted: the fallback's others are not this table's
            wanted = {pair for pair, _, _ in pending}
            keep = np.array([pair in wanted for pair in zip(
                filled["experiment"], filled["label"], strict=True)], dtype=bool)
            filled = filled[keep].reset_index(drop=True)
        frames.append(filled)
        sources.append(fallback)
        covered = set(zip(filled["experiment"], filled["label"], strict=True))
        missing += [f"{line} (rows from {fallback})" for pair, _, line in pending
                    if pair in covered]
        pending = [item for item in pending if item[0] not in covered]
    not_run += [entry for _, entry, _ in pending]
    missing += [line for _, _, line in pending]
    if not frames:
        if allow_empty:
            return Collected(pd.DataFrame(), not_run, notes, [], measures, files)
        tables = [config_reference(i) for i in inputs
                  if Path(i).suffix in (".yaml", ".yml") and is_table_config(i)]
        hint = (f"\n`kernreg run {tables[0]}{out_option}` runs all of them (resuming what is done)"
                if tables else "")
        raise ResultsError("no results to tabulate:\n  " + "\n  ".join(missing) + hint
                           + "\nor take their rows from a results CSV (a committed one: "
                             "results/*_trials.csv) with --fallback CSV")
    merged = _merge_frames(frames, sources)
    if listed:  # the table config's order, whether a run's rows came from it or a fallback
        place = merged["experiment"].map({name: i for i, name in enumerate(listed)})
        merged = merged.iloc[np.argsort(place.fillna(len(listed)).to_numpy(), kind="stable")]
        merged = merged.reset_index(drop=True)
    return Collected(merged, not_run, notes, missing, measures, files)


def _merge_frames(frames: list[pd.DataFrame], sources: list[str]) -> pd.DataFrame:
    """The rows of every input, each trial (experiment, label, trial) once: a run named by two
    inputs (two table configs) counts once; the same trial from two different sources (two
    copies of a run) is refused, as averaging them would count it twice."""
    tagged = pd.concat([frame.assign(_source=source)
                        for frame, source in zip(frames, sources, strict=True)],
                       ignore_index=True)
    key = ["experiment", "label", "trial"]
    tagged = tagged.drop_duplicates([*key, "_source"]).reset_index(drop=True)
    repeated = tagged[tagged.duplicated(key, keep=False)]
    if not repeated.empty:
        first = repeated.iloc[0]
        where = repeated[(repeated[key] == first[key]).all(axis=1)]["_source"]
        raise ResultsError(f"trial {int(first['trial'])} of {first['experiment']}/"
                           f"{first['label']} is in both {' and '.join(where)}; name each run "
                           f"once")
    return tagged.drop(columns="_source")


