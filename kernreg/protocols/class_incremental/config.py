"""Configs of the class-incremental stream (thesis Section 7.6): schema, defaults, smoke size.

Told apart from the other configs by ``protocol: {kind: streaming}``. Its keys:

* ``dataset.name``: a registered multiclass dataset (MNIST);
* ``protocol``: ``trials``, ``seed``, ``n_bal`` (training examples of each balanced class),
  ``n_test`` (test examples of every class), ``record_at`` (the n_imb at which the methods are
  evaluated), ``holdout_every`` (every i-th draw held out for validation),
  ``imbalanced_class`` (``random``: drawn per trial), ``validation_min_examples`` (a class
  counts in the validation accuracy once it has that many training examples);
* ``model``: the ``lambdas`` and ``alphas`` grids and the ``features`` the linear model runs
  on: raw inputs (``{kind: linear}``), ``m`` Nyström centres (``{kind: nystrom, m, sigma}``)
  or ``n_components`` random features (``{kind: rff, n_components, sigma}``);
* ``methods``: the registered methods to evaluate (:mod:`.methods`; all by default).

Every problem is reported at once, naming its key, as :class:`~kernreg.errors.ConfigError`
(exit status 2 on the command line).
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
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

__all__ = ["KIND", "SIZE_KEYS", "SMOKE_STREAM", "SMOKE_STREAMED", "ClassIncrementalConfig",
           "current_features", "load", "smoke"]

log = logging.getLogger("kernreg.config")

#: ``protocol.kind`` of these configs.
KIND = "streaming"
#: At smoke size: examples per balanced class, test examples per class, and the most examples
#: streamed of the imbalanced one.
SMOKE_STREAM = {"n_bal": 36, "n_test": 10, "validation_min_examples": 36}
SMOKE_STREAMED = 10

#: The key of the size of each kind of ``model.features``: Nyström centres ``m``, random
#: features ``n_components``. Both were written ``size`` before (:data:`LEGACY_SIZE_KEY`): a
#: config may still say so (read with a note), and the config hash is computed on that
#: spelling, so a run folder started before the rename resumes.
SIZE_KEYS = {"nystrom": "m", "rff": "n_components"}
LEGACY_SIZE_KEY = "size"

#: The most α values a grid may hold (a 0.001 grid has 1001).
MAX_ALPHAS = 2001
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
                    "alphas": grid_schema({"type": "number", "minimum": 0, "maximum": 1},
                                          max_points=MAX_ALPHAS, what="the α grid"),
                    "features": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["kind"],
                        "properties": {"kind": {"enum": ["linear", *SIZE_KEYS]},
                                       **dict.fromkeys(SIZE_KEYS.values(), POSITIVE_INT),
                                       "sigma": POSITIVE},
                    },
                },
            },
            "methods": {"type": "array", "minItems": 1, "uniqueItems": True,
                        "items": {"enum": method_names()}},
            "budget": {"type": "object", "additionalProperties": False,
                       "properties": {"blas_threads": POSITIVE_INT, "memory_gb": POSITIVE}},
            "notes": {
                "description": "why a Table 7.1 cell differs from the thesis (a measured "
                               "reason), one entry a cell; `open:` (true, or what was tried "
                               "and where it is kept) when variants did not find the cause",
                "type": "array",
                "items": {"type": "object", "additionalProperties": False,
                          "required": ["n_imb", "method", "metric", "note"],
                          "properties": {
                              "n_imb": POSITIVE_INT,
                              "method": {"enum": method_names()},
                              "metric": {"enum": ["total", "imbalanced"]},
                              "note": {"type": "string", "minLength": 1},
                              "open": {"oneOf": [{"const": True},
                                                 {"type": "string", "minLength": 1}]}}},
            },
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


def current_features(features: Any) -> Any:
    """``model.features`` (of a config or a stored manifest) with the earlier ``size`` under its
    kind's key (:data:`SIZE_KEYS`); anything else as it is."""
    kind = features.get("kind") if isinstance(features, dict) else None
    key = SIZE_KEYS.get(kind) if isinstance(kind, str) else None
    if key is None or LEGACY_SIZE_KEY not in features or key in features:
        return features
    renamed = {k: v for k, v in features.items() if k != LEGACY_SIZE_KEY}
    renamed[key] = features[LEGACY_SIZE_KEY]
    return renamed


def _hashed_features(features: dict[str, Any]) -> dict[str, Any]:
    """The spelling of ``model.features`` the config hash was first computed on: its size as
    ``size`` (:data:`SIZE_KEYS`)."""
    key = SIZE_KEYS.get(features["kind"])
    if key is None or key not in features:
        return features
    hashed = {k: v for k, v in features.items() if k != key}
    hashed[LEGACY_SIZE_KEY] = features[key]
    return hashed


def _current_spelling(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """``data`` with ``model.features.size`` under its kind's key (:func:`current_features`),
    with a deprecation note; ``data`` is not modified."""
    model = data.get("model")
    features = model.get("features") if isinstance(model, dict) else None
    renamed = current_features(features)
    if renamed is features:
        return data
    log.warning("%s: model.features.size is read as model.features.%s for %s features; write it "
                "so (the old spelling will be refused in a later version)", path,
                SIZE_KEYS[features["kind"]], features["kind"])
    return {**data, "model": {**model, "features": renamed}}


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
    #: The table's notes on cells (they explain results; not in the config hash).
    notes: tuple[dict[str, Any], ...] = ()

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
                "budget": dict(self.budget), "notes": copy.deepcopy(list(self.notes))}

    def config_hash(self) -> str:
        """sha256 of what decides a trial's numbers (not the name, description, notes, trial
        count or memory budget)."""
        payload = self.as_dict()
        for key in ("name", "description", "notes"):
            payload.pop(key)
        payload["protocol"].pop("trials")
        payload["budget"].pop("memory_gb", None)
        payload["model"]["lambdas"] = _hashed_grid(payload["model"]["lambdas"])
        payload["model"]["features"] = _hashed_features(payload["model"]["features"])
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
    data = _current_spelling(data, path)
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
    if isinstance(model["alphas"], dict):
        # a spaced form: its values, to 12 digits (0.07, not 0.07000000000000001)
        model["alphas"] = [round(float(a), 12) for a in grid_values(model["alphas"])]
    if 0 not in model["alphas"]:
        problems.append("model.alphas: must contain 0 (the selection rule compares every α "
                        "with α = 0)")
    features = model["features"]
    kind = features["kind"]
    if kind == "linear" and set(features) - {"kind"}:
        problems.append(f"model.features: {', '.join(SIZE_KEYS.values())} and sigma apply to "
                        f"{'/'.join(SIZE_KEYS)} features only")
    if kind != "linear":
        problems += [f"model.features.{k}: required for {kind} features"
                     for k in (SIZE_KEYS[kind], "sigma") if k not in features]
        problems += [f"model.features.{key}: the size of {other} features; {kind} features "
                     f"take {SIZE_KEYS[kind]}"
                     for other, key in SIZE_KEYS.items() if other != kind and key in features]
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
        description=data.get("description", ""), path=path,
        notes=tuple(data.get("notes", ())))


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
        for key in (*SIZE_KEYS.values(), LEGACY_SIZE_KEY):
            if isinstance(features, dict) and key in features:
                features[key] = capped(features[key], SMOKE_CENTERS)
    return data
