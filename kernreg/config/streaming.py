"""Configs of the streaming protocol (thesis Section 7.6): YAML → schema → defaults.

A streaming config is told apart from a hold-out config by ``protocol: {kind: streaming}``.
``kernreg stream`` runs a second protocol too, the streaming regression of thesis Chapter 8
(``protocol: {kind: online_regression}``, :mod:`kernreg.config.online_stream`):
:func:`stream_kind` tells them apart and :func:`load_stream_config` reads either.
Every problem is reported at once, naming its key, as :class:`~kernreg.errors.ConfigError`
(exit status 2 on the command line).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
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
    read_yaml,
    schema_problems,
)
from kernreg.config.online_stream import KIND as ONLINE_KIND
from kernreg.config.online_stream import OnlineStreamConfig, parse_online_stream_config
from kernreg.config.smoke import smoke_config
from kernreg.datasets import get_spec
from kernreg.errors import ConfigError, DataError
from kernreg.solvers.blocks.params import POSITIVE, POSITIVE_INT

__all__ = ["METHODS", "STREAM_KINDS", "StreamConfig", "is_stream_config", "load_stream_config",
           "stream_kind"]

#: N: naive incremental RLSC; RB: rebalanced batch RLS refit at every step; RC: Algorithm 7.1.
METHODS = ("N", "RB", "RC")

_GRID = {
    "description": f"a list of positive numbers, or {{min, max, num}} with 0 < min <= max and "
                   f"num at most {MAX_LIST}",
    "oneOf": [
        {"type": "array", "minItems": 1, "items": POSITIVE},
        {"type": "object", "additionalProperties": False, "required": ["min", "max", "num"],
         "properties": {"min": POSITIVE, "max": POSITIVE,
                        "num": {**POSITIVE_INT, "maximum": MAX_LIST}}},
    ]
}

SCHEMA: dict[str, Any] = {
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
                "kind": {"const": "streaming"},
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
                    "items": {"enum": list(METHODS)}},
        "budget": {"type": "object", "additionalProperties": False,
                   "properties": {"blas_threads": POSITIVE_INT, "memory_gb": POSITIVE}},
    },
}

_PROTOCOL = {"trials": 10, "seed": 0, "n_bal": 1000, "n_test": 200,
             "record_at": [1, 5, 10, 50, 100, 500], "holdout_every": 6,
             "imbalanced_class": "random"}
_MODEL = {"lambdas": {"min": 1e-3, "max": 1e5, "num": 9},
          "alphas": [round(0.1 * i, 1) for i in range(11)],
          "features": {"kind": "linear"}}


@dataclass(frozen=True)
class StreamConfig:
    """A validated streaming config with every default filled in."""

    name: str
    dataset: str
    protocol: dict[str, Any]
    model: dict[str, Any]
    methods: tuple[str, ...]
    budget: dict[str, Any]
    description: str = ""
    path: Path | None = field(default=None, compare=False)

    @property
    def lambdas(self) -> np.ndarray:
        grid = self.model["lambdas"]
        if isinstance(grid, dict):
            return np.logspace(np.log10(grid["min"]), np.log10(grid["max"]), grid["num"])
        return np.sort(np.asarray(grid, dtype=np.float64))

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
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


#: The protocols ``kernreg stream`` runs: thesis Chapter 7's classification stream and
#: Chapter 8's online regression.
STREAM_KINDS = ("streaming", ONLINE_KIND)


def stream_kind(data: Any) -> str | None:
    """The streaming protocol a parsed YAML mapping asks for (one of :data:`STREAM_KINDS`), or
    None (a hold-out or table config)."""
    if isinstance(data, dict) and isinstance(data.get("protocol"), dict):
        kind = data["protocol"].get("kind")
        return kind if kind in STREAM_KINDS else None
    return None


def is_stream_config(data: Any) -> bool:
    """Whether a parsed YAML mapping asks for a protocol of ``kernreg stream`` (either of
    :data:`STREAM_KINDS`; :func:`stream_kind` says which)."""
    return stream_kind(data) is not None


def parse_stream_config(data: Any, path: Path, overrides: dict[str, Any] | None = None,
                        smoke: bool = False) -> StreamConfig:
    """Validate a parsed mapping and fill in the defaults (``overrides``: protocol keys;
    ``smoke``: at smoke size, :func:`kernreg.config.smoke.smoke_config`, the overrides
    merged after)."""
    raise_problems(path, non_finite_problems(data))
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config must be a mapping of keys to values")
    data = smoke_config(data) if smoke else copy.deepcopy(data)
    if overrides and isinstance(data.get("protocol"), dict):
        data["protocol"].update({k: v for k, v in overrides.items() if v is not None})
    problems = schema_problems(data, SCHEMA, [])
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
    grid = model["lambdas"]
    if isinstance(grid, dict) and grid["min"] > grid["max"]:
        problems.append(f"model.lambdas: min {grid['min']:g} exceeds max {grid['max']:g}")
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
    return StreamConfig(name=name, dataset=spec.name, protocol=protocol, model=model,
                        methods=tuple(data.get("methods", METHODS)),
                        budget={"blas_threads": 1, "memory_gb": DEFAULT_BUDGET["memory_gb"],
                                **data.get("budget", {})},
                        description=data.get("description", ""), path=path)


def load_stream_config(path: str | os.PathLike[str], overrides: dict[str, Any] | None = None,
                       smoke: bool = False) -> StreamConfig | OnlineStreamConfig:
    """Read and validate a streaming config file (``smoke``: at smoke size): a
    :class:`StreamConfig`, or an :class:`~kernreg.config.online_stream.OnlineStreamConfig`
    for ``protocol: {kind: online_regression}``.

    Raises
    ------
    ConfigError
        Unreadable YAML, a key that is unknown or out of range, or a dataset without classes.
    """
    path = Path(path)
    data = read_yaml(path)
    if stream_kind(data) == ONLINE_KIND:
        return parse_online_stream_config(data, path, overrides, smoke)
    return parse_stream_config(data, path, overrides, smoke)
