"""Configs of the class-incremental stream (thesis Section 7.6): schema, defaults, smoke size.

Told apart from the other configs by ``protocol: {kind: streaming}``. Its keys:

* ``dataset.name``: a registered multiclass dataset (MNIST);
* ``protocol``: ``trials``, ``seed``, ``n_bal`` (training examples of each balanced class),
  ``n_test`` (test examples of every class), ``record_at`` (the n_imb at which the methods are
  evaluated), ``holdout_every`` (every i-th draw held out for validation),
  ``imbalanced_class`` (``random``: drawn per trial), ``validation_min_examples`` (a class
  counts in the validation accuracy once it has that many training examples);
* ``model``: the ``lambdas`` and ``alphas`` grids and the ``features`` the linear model runs
  on (raw inputs, Nyström or random features);
* ``methods``: the registered methods to evaluate (:mod:`.methods`; all by default).

Every problem is reported at once, naming its key, as :class:`~kernreg.errors.ConfigError`
(exit status 2 on the command line).
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kernreg.config.loader import (
    DEFAULT_BUDGET,
    MAX_LIST,
    MAX_TRIALS,
    experiment_name,
    non_finite_problems,
    raise_problems,
    schema_problems,
)
from kernreg.config.smoke import SMOKE_CENTERS, capped, fewer_points
from kernreg.datasets import get_spec
from kernreg.errors import ConfigError, DataError
from kernreg.grid import POSITIVE, POSITIVE_INT, canonical_grid, grid_schema, grid_values
from kernreg.protocols.class_incremental.methods import method_names

__all__ = ["KIND", "SMOKE_STREAM", "SMOKE_STREAMED", "ClassIncrementalConfig", "load", "smoke"]

#: ``protocol.kind`` of these configs.
KIND = "streaming"
#: At smoke size: examples per balanced class, test examples per class, and the most examples
#: streamed of the imbalanced one.
SMOKE_STREAM = {"n_bal": 36, "n_test": 10, "validation_min_examples": 36}
SMOKE_STREAMED = 10

#: The λ grid: any grid form, and the earlier ``{min, max, num}`` (read as a logspace).
_GRID = grid_schema(POSITIVE, max_points=MAX_LIST, legacy=True, what="a λ grid")


def _schema() -> dict[str, Any]:
    """The config's JSON schema (the method names read from their registry each time)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["dataset", "protocol"],
        "properties": {
            "name": {"type": "string"},  # checked as a folder name (experiment_name)
            "description": {"type": "string"},
            "dataset": {"type": "object", "additionalProperties": False, "required": ["name"],
                        "properties": {"name": {"type": "string"}}},
            "protocol": {
                "type": "object",
                "additionalProperties": False,
                "required": ["kind"],
                "properties": {
                    "kind": {"const": KIND},
                    "trials": {**POSITIVE_INT, "maximum": MAX_TRIALS},
                    "seed": {"type": "integer", "minimum": 0},
                    "n_bal": POSITIVE_INT,
                    "n_test": POSITIVE_INT,
                    "record_at": {"type": "array", "minItems": 1, "items": POSITIVE_INT},
                    "holdout_every": {"type": "integer", "minimum": 2},
                    "imbalanced_class": {"oneOf": [{"const": "random"}, {"type": "number"}]},
                    "validation_min_examples": POSITIVE_INT,
                },
            },
            "model": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "lambdas": _GRID,
                    "alphas": {"type": "array", "minItems": 1,
                               "items": {"type": "number", "minimum": 0, "maximum": 1}},
                    "features": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["kind"],
                        "properties": {"kind": {"enum": ["linear", "nystrom", "rff"]},
                                       "size": POSITIVE_INT, "sigma": POSITIVE},
                    },
                },
            },
            "methods": {"type": "array", "minItems": 1, "uniqueItems": True,
                        "items": {"enum": method_names()}},
            "budget": {"type": "object", "additionalProperties": False,
                       "properties": {"blas_threads": POSITIVE_INT, "memory_gb": POSITIVE}},
        },
    }


_PROTOCOL = {"trials": 10, "seed": 0, "n_bal": 1000, "n_test": 200,
             "record_at": [1, 5, 10, 50, 100, 500], "holdout_every": 6,
             "imbalanced_class": "random"}
_MODEL = {"lambdas": {"logspace": [1e-3, 1e5, 9]},
          "alphas": [round(0.1 * i, 1) for i in range(11)],
          "features": {"kind": "linear"}}


def lambda_grid(model: dict[str, Any]) -> np.ndarray:
    """The λ grid of a normalised ``model`` section, increasing."""
    return np.sort(grid_values(model["lambdas"]))


def _hashed_grid(grid: Any) -> Any:
    """The spelling of a λ grid the config hash was first computed on: a logspace as
    ``{min, max, num}`` (so a run folder started before the one grid spelling resumes)."""
    if isinstance(grid, dict) and set(grid) == {"logspace"}:
        low, high, count = grid["logspace"]
        return {"min": low, "max": high, "num": count}
    return grid


@dataclass(frozen=True)
class ClassIncrementalConfig:
    """A validated class-incremental stream config with every default filled in."""

    name: str
    dataset: str
    protocol: dict[str, Any]
    model: dict[str, Any]
    methods: tuple[str, ...]
    budget: dict[str, Any]
    description: str = ""
    path: Path | None = field(default=None, compare=False)

    @property
    def trials(self) -> int:
        return self.protocol["trials"]

    @property
    def lambdas(self) -> np.ndarray:
        return lambda_grid(self.model)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "dataset": {"name": self.dataset}, "protocol": copy.deepcopy(self.protocol),
                "model": copy.deepcopy(self.model), "methods": list(self.methods),
                "budget": dict(self.budget)}

    def config_hash(self) -> str:
        """sha256 of what decides a trial's numbers (not the name, description, trial count
        or memory budget)."""
        payload = self.as_dict()
        for key in ("name", "description"):
            payload.pop(key)
        payload["protocol"].pop("trials")
        payload["budget"].pop("memory_gb", None)
        payload["model"]["lambdas"] = _hashed_grid(payload["model"]["lambdas"])
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def load(data: Any, path: Path) -> ClassIncrementalConfig:
    """Validate a parsed mapping and fill in the defaults.

    Raises
    ------
    ConfigError
        A key that is unknown or out of range, or a dataset without classes.
    """
    raise_problems(path, non_finite_problems(data))
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config must be a mapping of keys to values")
    problems = schema_problems(data, _schema(), [])
    name = experiment_name(data, path, problems)
    raise_problems(path, problems)
    try:
        spec = get_spec(data["dataset"]["name"])
    except DataError as exc:
        raise ConfigError(f"{path}: dataset.name: {exc}") from None
    if spec.task != "multiclass":
        problems.append(f"dataset.name: {spec.name} is a {spec.task} dataset; the streaming "
                        "protocol needs class labels (a multiclass dataset such as mnist)")
    protocol = {**_PROTOCOL, **data["protocol"]}
    model = {**_MODEL, **data.get("model", {})}
    model["lambdas"] = grid = canonical_grid(model["lambdas"], "model.lambdas")
    if isinstance(grid, dict) and "logspace" in grid and grid["logspace"][0] > grid["logspace"][1]:
        low, high, _ = grid["logspace"]
        problems.append(f"model.lambdas: low {low:g} exceeds high {high:g}")
    if 0 not in model["alphas"]:
        problems.append("model.alphas: must contain 0 (the selection rule compares every α "
                        "with α = 0)")
    features = model["features"]
    if features["kind"] == "linear" and set(features) - {"kind"}:
        problems.append("model.features: size and sigma apply to nystrom/rff only")
    if features["kind"] != "linear":
        problems += [f"model.features.{k}: required for {features['kind']} features"
                     for k in ("size", "sigma") if k not in features]
    if spec.raw_labels is not None:
        imb = protocol["imbalanced_class"]
        if imb != "random" and float(imb) not in spec.raw_labels:
            problems.append(f"protocol.imbalanced_class: {imb!r} is not a class of {spec.name} "
                            f"({', '.join(f'{c:g}' for c in spec.raw_labels)})")
    raise_problems(path, problems)
    protocol["record_at"] = sorted(set(protocol["record_at"]))
    protocol.setdefault("validation_min_examples", protocol["n_bal"])
    return ClassIncrementalConfig(
        name=name, dataset=spec.name, protocol=protocol, model=model,
        methods=tuple(data.get("methods", method_names())),
        budget={"blas_threads": 1, "memory_gb": DEFAULT_BUDGET["memory_gb"],
                **data.get("budget", {})},
        description=data.get("description", ""), path=path)


def smoke(data: Any) -> Any:
    """A copy of ``data`` at smoke size: one trial, :data:`SMOKE_STREAM` examples per class,
    ``record_at`` up to :data:`SMOKE_STREAMED`, grids of at most three points, at most
    :data:`~kernreg.config.smoke.SMOKE_CENTERS` features. Values of the wrong type are left for
    the validation to name."""
    data = copy.deepcopy(data)
    protocol = data.get("protocol") if isinstance(data, dict) else None
    if not isinstance(protocol, dict):
        return data
    protocol["trials"] = 1
    for key, cap in SMOKE_STREAM.items():
        if key in protocol:
            protocol[key] = capped(protocol[key], cap)
    record_at = protocol.get("record_at")
    if isinstance(record_at, list):
        kept = [v for v in record_at if isinstance(v, int) and v <= SMOKE_STREAMED]
        protocol["record_at"] = kept or [1]
    model = data.get("model")
    if isinstance(model, dict):
        for key in ("lambdas", "alphas"):
            if key in model:
                model[key] = fewer_points(model[key])
        features = model.get("features")
        if isinstance(features, dict) and "size" in features:
            features["size"] = capped(features["size"], SMOKE_CENTERS)
    return data
