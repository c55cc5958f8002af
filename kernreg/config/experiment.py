"""An experiment config once validated, defaults filled in: the single source of truth of a
run (its hash keys the stored results)."""

from __future__ import annotations

import copy
import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kernreg.datasets.own import file_dataset_name
from kernreg.solvers.blocks.holdout import fit_rows
from kernreg.solvers.blocks.params import lambda_grid, level_values

__all__ = ["HOLDOUT", "LEGACY_KEYS", "Algorithm", "Experiment", "algorithm_hashes", "current_keys",
           "dataset_name", "expand_m", "protocol_kind", "results_relevant", "trial_rows"]

#: ``protocol.kind`` of the core's configs, and the kind of a config that names none: the
#: seeded hold-out selection of every algorithm.
HOLDOUT = "holdout"

#: Keys of an algorithm entry renamed since configs were first hashed, ``{current: earlier}``.
#: A config hash is computed on the earlier spelling, so a run folder started before the
#: rename resumes; the loader reads the earlier key as the current one (with a note), and
#: :func:`current_keys` reads a stored manifest's entries either way.
LEGACY_KEYS = {"n_components": "n_features"}


def protocol_kind(data: Any) -> str:
    """The protocol a parsed config mapping (or a manifest's normalised config) asks for: its
    ``protocol.kind``, else :data:`HOLDOUT`."""
    protocol = data.get("protocol") if isinstance(data, dict) else None
    kind = protocol.get("kind") if isinstance(protocol, dict) else None
    return kind if isinstance(kind, str) and kind else HOLDOUT


@dataclass(frozen=True)
class Algorithm:
    """One algorithm of an experiment with all its parameters (defaults filled in)."""

    name: str
    label: str
    params: dict[str, Any]

    def lambdas(self) -> np.ndarray:
        """The λ grid as an array (for the algorithms with a ``lambdas`` key)."""
        return lambda_grid(self.params["lambdas"])

    def m_levels(self, key: str = "m_values") -> list[int] | None:
        """The levels ``m_values`` (or ``d_values``) as a list (None: the estimator's
        default)."""
        return level_values(self.params.get(key))


def expand_m(value: Any) -> list[int] | None:
    """The values of an ``m`` entry: one, a list, or ``{range: [start, stop, step]}``."""
    if isinstance(value, dict):
        start, stop, step = value["range"]
        return list(range(start, stop + 1, step))
    if isinstance(value, list):
        return [int(v) for v in value]
    return None if value is None else [int(value)]


@dataclass(frozen=True)
class Experiment:
    """A validated experiment config, defaults filled in: the single source of truth of a run."""

    name: str
    path: Path | None
    dataset: dict[str, Any]
    kernel: dict[str, Any]
    algorithms: tuple[Algorithm, ...]
    protocol: dict[str, Any]
    budget: dict[str, Any]
    description: str = ""
    #: Where trials run: ``{"scheduler": "local" | "local:N" | "tcp://host:port"}``.
    execution: dict[str, Any] = field(default_factory=lambda: {"scheduler": "local"})
    #: The learning task (``kernreg.losses``); ``None``: the dataset's default.
    task: str | None = None
    #: Where the estimators that take a device run: ``cpu`` (numpy), ``torch``, ``cuda[:N]``.
    device: str = "cpu"
    #: TensorFloat-32 in float32 products on a GPU (``cuda`` only).
    tf32: bool = False
    #: At smoke size (``kernreg run --smoke``): its times mean nothing, so the runner does not
    #: measure the host's rates beside them. Not part of the config's hash (the shrunk
    #: config is).
    smoke: bool = False
    #: The ``--set KEY=VALUE`` overrides given on the command line, as given (their values are
    #: already in the fields above; recorded in the manifest). Not part of the hash.
    settings: tuple[str, ...] = ()
    #: Where ``kernel.sigma`` came from: ``kernel.sigma`` (the config), ``dataset`` (the
    #: dataset's default: the paper's σ, a data file's ``sigma`` or median heuristic) or ``""``
    #: (the kernel has no σ). Not part of the hash (the value is).
    sigma_source: str = ""
    #: The ``plugins:`` the config imports (:mod:`kernreg.plugins`), as given.
    plugins: tuple[str, ...] = ()
    #: Test measures recorded besides the task's own (``measures:``), as given.
    measures: tuple[str, ...] = ()

    @property
    def dataset_name(self) -> str:
        """The dataset's name in results: the registered name, or ``file:<file name>`` for a
        data file (:func:`kernreg.datasets.own.file_dataset_name`)."""
        return dataset_name(self.dataset)

    def as_dict(self) -> dict[str, Any]:
        """The normalised config (what is hashed and stored with the results)."""
        out = {
            "name": self.name,
            "dataset": self.dataset,
            "kernel": self.kernel,
            "algorithms": [{"name": a.name, "label": a.label, **a.params}
                           for a in self.algorithms],
            "protocol": self.protocol,
            "budget": self.budget,
            "execution": self.execution,
            # where the trials ran: not results-relevant (the same numbers up to rounding)
            "device": self.device,
            "tf32": self.tf32,
        }
        if self.task is not None:  # absent for the dataset's default: earlier hashes stand
            out["task"] = self.task
        if self.plugins:
            out["plugins"] = list(self.plugins)
        if self.measures:  # absent when none are asked: earlier hashes stand
            out["measures"] = list(self.measures)
        return out

    def config_hash(self) -> str:
        """sha256 of the part of the config that determines each trial's numbers (see
        :func:`results_relevant`)."""
        payload = results_relevant(self.as_dict())
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def trial_rows(protocol: dict[str, Any], n: int) -> tuple[int, int, int]:
    """Rows of a trial on ``n`` training rows: ``(smallest fit, largest fit, validation)``.
    The hold-out fits ``fit_rows(n, validation_fraction)`` rows once; k-fold selection fits
    each fold's complement (the smallest: ``n − ⌈n/K⌉``, the rows m must fit within), then
    all ``n`` rows at the selection (the largest fit, what the memory plan takes), and
    validates on folds of up to ``⌈n/K⌉`` rows."""
    if protocol.get("selection") == "kfold":
        fold = math.ceil(n / protocol["folds"])
        return n - fold, n, fold
    fit = fit_rows(n, protocol["validation_fraction"])
    return fit, fit, n - fit


def dataset_name(dataset: dict[str, Any]) -> str:
    """The name in results of a normalised ``dataset:`` section: its registered ``name``, or
    ``file:<file name>`` for a data file."""
    return dataset["name"] if "name" in dataset else file_dataset_name(dataset["file"])


def current_keys(entry: dict[str, Any]) -> dict[str, Any]:
    """An algorithm entry (of a config or a stored manifest) with every earlier key of
    :data:`LEGACY_KEYS` under its current name."""
    earlier = {old: new for new, old in LEGACY_KEYS.items()}
    return {earlier.get(key, key): value for key, value in entry.items()}


def _hashed_keys(entry: dict[str, Any]) -> dict[str, Any]:
    """An algorithm entry in the spelling its hash was first computed on (:data:`LEGACY_KEYS`:
    ``n_components`` as ``n_features``)."""
    return {LEGACY_KEYS.get(key, key): value for key, value in entry.items()}


def results_relevant(config: dict[str, Any]) -> dict[str, Any]:
    """A normalised config without what cannot change any trial's numbers: the name, the
    memory budgets (``memory_gb``, ``gpu_memory_gb``) and block size, the number of trials
    (trial k depends only on the seed and k, so a run can be extended with more trials), where
    trials run (a trial is the same computation on a Dask worker) and on which device with
    which float32 products (``device``, ``tf32``: the same numbers up to rounding; each trial
    records its device), the ``plugins`` imported (where code comes from) and where a data
    file lies (its sha256 stays: a moved file is the same data, a changed one is not). BLAS
    threads may change rounding and stay. Keys renamed since are hashed in their earlier
    spelling (:data:`LEGACY_KEYS`), so a stored manifest of either spelling compares equal."""
    payload = copy.deepcopy(config)
    for key in ("name", "execution", "device", "tf32", "plugins"):
        payload.pop(key, None)
    dataset = payload.get("dataset")
    if isinstance(dataset, dict) and "sha256" in dataset:  # a data file: its bytes, not where
        for key in ("file", "test_file"):
            dataset.pop(key, None)
    payload["budget"] = {"blas_threads": payload.get("budget", {}).get("blas_threads")}
    payload.get("protocol", {}).pop("trials", None)
    if isinstance(payload.get("algorithms"), list):
        payload["algorithms"] = [_hashed_keys(entry) for entry in payload["algorithms"]]
    return payload


def algorithm_hashes(config: dict[str, Any]) -> dict[str, str]:
    """``{label: sha256}`` of what determines each algorithm's trials: the config's
    results-relevant part with that algorithm alone. A trial's split and seed depend only on the
    protocol seed and the trial number, never on the other algorithms, so adding an algorithm to
    a config leaves the other labels' trials valid (``kernreg run --resume`` keeps them)."""
    shared = results_relevant(config)
    algorithms = shared.pop("algorithms", [])
    hashes = {}
    for entry in algorithms:
        payload = {**shared, "algorithms": [entry]}
        hashes[entry["label"]] = hashlib.sha256(
            json.dumps(payload, sort_keys=True).encode()).hexdigest()
    return hashes
