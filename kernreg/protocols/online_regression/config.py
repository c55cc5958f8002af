"""Configs of the online regression protocol (thesis Section 8.3, Figure 8.4): schema, defaults,
the validated config and its smoke size.

Told apart from the other configs by ``protocol: {kind: online_regression}``. Its data are the
generated source :mod:`~kernreg.protocols.online_regression.icub_arm_sim` — a SIMULATION on the
iCub's published URDF standing in for the thesis's private recordings — with the keys:

* ``simulation``: ``n_samples`` per plane, ``seed`` (every draw of the simulated robot);
* ``protocol``: ``train_plane`` (learned sample by sample), ``test_plane`` (split into
  ``n_parts`` sequential parts, each run test-then-update from the trained state: a part is a
  trial), ``window`` (samples of the trailing RMSE), ``trials`` (how many of the parts to run,
  all by default);
* ``selection``: σ, λ and λ_P chosen on the training plane (its first ``train_fraction``
  fitted, the rest scoring) over the grids ``sigmas``, ``lambdas``, ``lambdas_p``;
* ``algorithms``: entries ``{name, label, ...params}`` of the online estimator registry
  (:mod:`kernreg.solvers.online.registry`); a parameter an entry leaves out is selected when
  the spec selects it, else takes its default (``seed``: the simulation's);
* ``budget``: ``blas_threads`` (1 by default: the numbers should not depend on the machine's
  cores), ``memory_gb`` (the preflight's bound, :mod:`.preflight`).

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

from kernreg.config.loader import (
    DEFAULT_BUDGET,
    MAX_LIST,
    MAX_TRIALS,
    experiment_name,
    non_finite_problems,
    raise_problems,
    schema_problems,
)
from kernreg.errors import ConfigError
from kernreg.grid import POSITIVE, POSITIVE_INT, grid_schema, grid_values
from kernreg.protocols.online_regression.icub_arm_sim import PLANES
from kernreg.solvers.online import get_online_spec, online_names

__all__ = ["KIND", "SMOKE_COMPONENTS", "SMOKE_SIZES", "OnlineAlgorithm",
           "OnlineRegressionConfig", "load", "smoke"]

#: ``protocol.kind`` of these configs.
KIND = "online_regression"
#: Simulated samples per plane at most (the CLIK integrates 10 steps per sample).
MAX_SAMPLES = 1_000_000
#: Smoke size (``reproduce/thesis_ch8/thesis_fig8_4.py --smoke`` has always run it): simulated
#: samples per plane, parts of the test plane (and trials: a trial is a part), samples of the
#: RMSE window; and the most random features of an estimator. The selection grids stay whole
#: (cheap at that size).
SMOKE_SIZES = {"n_samples": 300, "n_parts": 3, "window": 10}
SMOKE_COMPONENTS = 40
#: A label names a group of the trial files and a column of the CSV.
_LABEL = {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.+-]*$",
          "description": "letters, digits and _ . + - (it names a group of the trial files and "
                         "a value of the curves' estimator column)"}
_GRID = grid_schema(POSITIVE, max_points=MAX_LIST, what="a selection grid")

_SIMULATION = {"n_samples": 10_000, "seed": 0}
_PROTOCOL = {"train_plane": "xy", "test_plane": "xz", "n_parts": 10, "window": 30}
_SELECTION = {"train_fraction": 0.9, "sigmas": [1.0, 2.0, 4.0, 8.0, 16.0],
              "lambdas": [1e-7, 1e-5, 1e-3, 1e-1, 1e1],
              "lambdas_p": [1e-6, 1e-4, 1e-2, 1.0, 1e2]}
#: ``budget.blas_threads`` is 1 unless set: the small-λ recursions' last digits depend on how
#: a product is split between threads.
_BUDGET = {"blas_threads": 1, "memory_gb": DEFAULT_BUDGET["memory_gb"]}
#: Record keys a label may not take (the trial file's own).
_RESERVED_LABELS = ("attrs",)


def _schema() -> dict[str, Any]:
    """The config's JSON schema (the algorithm names read from the registry each time)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["protocol", "algorithms"],
        "properties": {
            "name": {"type": "string"},  # checked as a folder name (experiment_name)
            "description": {"type": "string"},
            "simulation": {
                "type": "object", "additionalProperties": False,
                "properties": {"n_samples": {"type": "integer", "minimum": 2,
                                             "maximum": MAX_SAMPLES},
                               "seed": {"type": "integer", "minimum": 0}}},
            "protocol": {
                "type": "object", "additionalProperties": False, "required": ["kind"],
                "properties": {"kind": {"const": KIND},
                               "train_plane": {"enum": list(PLANES)},
                               "test_plane": {"enum": list(PLANES)},
                               "n_parts": {**POSITIVE_INT, "maximum": MAX_TRIALS},
                               "trials": {**POSITIVE_INT, "maximum": MAX_TRIALS},
                               "window": POSITIVE_INT}},
            "selection": {
                "type": "object", "additionalProperties": False,
                "properties": {"train_fraction": {"type": "number", "exclusiveMinimum": 0,
                                                  "exclusiveMaximum": 1},
                               "sigmas": _GRID, "lambdas": _GRID, "lambdas_p": _GRID}},
            "algorithms": {"type": "array", "minItems": 1,
                           "items": {"type": "object", "required": ["name"],
                                     "properties": {"name": {"enum": online_names()},
                                                    "label": _LABEL}}},
            "budget": {"type": "object", "additionalProperties": False,
                       "properties": {"blas_threads": POSITIVE_INT, "memory_gb": POSITIVE}},
        },
    }


@dataclass(frozen=True)
class OnlineAlgorithm:
    """One ``algorithms`` entry: the registered name, its label, the parameters the config
    fixes (defaults filled in) and those the selection chooses."""

    name: str
    label: str
    params: dict[str, Any]
    selected: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "params": dict(self.params),
                "selected": list(self.selected)}


@dataclass(frozen=True)
class OnlineRegressionConfig:
    """A validated online regression config with every default filled in."""

    name: str
    simulation: dict[str, Any]
    protocol: dict[str, Any]
    selection: dict[str, Any]
    algorithms: tuple[OnlineAlgorithm, ...]
    budget: dict[str, Any]
    description: str = ""
    path: Path | None = field(default=None, compare=False)

    @property
    def trials(self) -> int:
        """How many of the parts the run holds (trial ``k`` is part ``k``)."""
        return self.protocol["trials"]

    @property
    def part_length(self) -> int:
        """Samples of one part of the test plane (the rest of the division is left out)."""
        return self.simulation["n_samples"] // self.protocol["n_parts"]

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "simulation": dict(self.simulation), "protocol": dict(self.protocol),
                "selection": copy.deepcopy(self.selection),
                "algorithms": [a.as_dict() for a in self.algorithms],
                "budget": dict(self.budget)}

    def config_hash(self) -> str:
        """sha256 of what decides a trial's numbers (not the name, description, how many of
        the parts run, nor the budget)."""
        payload = self.as_dict()
        for key in ("name", "description", "budget"):
            payload.pop(key)
        payload["protocol"].pop("trials")
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _number(value: Any, schema: dict[str, Any] | None) -> Any:
    """A value of a ``number`` parameter as a float (``sigma: 8`` and ``8.0`` are one config,
    one hash); anything else as written."""
    if schema and schema.get("type") == "number" and isinstance(value, int) \
            and not isinstance(value, bool):
        return float(value)
    return value


def _algorithms(entries: list[dict[str, Any]], seed: int) -> tuple[OnlineAlgorithm, ...]:
    out = []
    for entry in entries:
        spec = get_online_spec(entry["name"])
        label = entry.get("label", spec.label)
        params = {**spec.defaults, **({"seed": seed} if "seed" in spec.schema else {}),
                  **{k: _number(v, spec.schema.get(k)) for k, v in entry.items()
                     if k not in ("name", "label")}}
        selected = tuple(p for p in spec.selected if p not in params)
        out.append(OnlineAlgorithm(spec.name, label, params, selected))
    return tuple(out)


def _entry_problems(entries: Any) -> list[str]:
    """Each ``algorithms`` entry of a registered name against its estimator's parameters, and
    the labels (their default the spec's): distinct, none reserved."""
    problems: list[str] = []
    names, labels = online_names(), {}
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        if not (isinstance(entry, dict) and entry.get("name") in names):
            continue
        spec = get_online_spec(entry["name"])
        problems += schema_problems(entry, spec.config_schema(), ["algorithms", i])
        label = entry.get("label", spec.label)
        if not isinstance(label, str):
            continue
        if label in _RESERVED_LABELS:
            problems.append(f"algorithms[{i}].label: {label!r} is reserved; choose another "
                            f"label")
        elif label in labels:
            problems.append(f"algorithms[{i}].label: {label!r} is already the label of "
                            f"algorithms[{labels[label]}]; labels must differ")
        labels.setdefault(label, i)
    return problems


def _protocol_problems(simulation: dict[str, Any], protocol: dict[str, Any],
                       selection: dict[str, Any]) -> list[str]:
    problems = []
    n, parts = simulation["n_samples"], protocol["n_parts"]
    if parts > n:
        problems.append(f"protocol.n_parts: {parts} parts of the {n} samples of "
                        f"simulation.n_samples leave none in a part")
    elif protocol["window"] > n // parts:
        problems.append(f"protocol.window: {protocol['window']} samples exceed a part's "
                        f"{n // parts} (simulation.n_samples // protocol.n_parts)")
    if protocol["trials"] > parts:
        problems.append(f"protocol.trials: {protocol['trials']} trials, but a trial is one of "
                        f"the protocol.n_parts = {parts} parts")
    n_fit = int(selection["train_fraction"] * n)
    if not 1 <= n_fit < n:
        problems.append(f"selection.train_fraction: {selection['train_fraction']:g} of "
                        f"{n} samples leaves {n_fit} to fit and {n - n_fit} to score; both "
                        f"need at least one")
    return problems


def load(data: Any, path: Path) -> OnlineRegressionConfig:
    """Validate a parsed mapping (the command line's settings and sizes already applied) and
    fill in the defaults.

    Parameters
    ----------
    data : dict
        The parsed YAML (not modified).
    path : Path
        Its file (named in the messages; its stem is the default name).

    Raises
    ------
    ConfigError
        Every problem at once, each naming its key.
    """
    path = Path(path)
    raise_problems(path, non_finite_problems(data))
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config must be a mapping of keys to values")
    problems = schema_problems(data, _schema(), [])
    name = experiment_name(data, path, problems)
    problems += _entry_problems(data.get("algorithms"))
    sections = ("(top level)", "simulation", "protocol", "selection")
    if not any(p.startswith(sections) for p in problems):  # their values have their types
        simulation = {**_SIMULATION, **data.get("simulation", {})}
        protocol = {**_PROTOCOL, **data["protocol"]}
        protocol.setdefault("trials", protocol["n_parts"])
        selection = {**copy.deepcopy(_SELECTION), **data.get("selection", {})}
        problems += _protocol_problems(simulation, protocol, selection)
    raise_problems(path, problems)
    for key in ("sigmas", "lambdas", "lambdas_p"):  # any spelling of one grid: one hash
        selection[key] = [float(v) for v in grid_values(selection[key])]
    budget = {**_BUDGET, **data.get("budget", {})}
    budget["memory_gb"] = float(budget["memory_gb"])
    return OnlineRegressionConfig(name=name, simulation=simulation, protocol=protocol,
                                  selection=selection,
                                  algorithms=_algorithms(data["algorithms"], simulation["seed"]),
                                  budget=budget, description=data.get("description", ""),
                                  path=path)


def _capped(value: Any, cap: int) -> Any:
    return min(value, cap) if isinstance(value, int) and not isinstance(value, bool) else value


def smoke(data: Any) -> Any:
    """``data`` (a parsed config mapping, not modified) at smoke size: :data:`SMOKE_SIZES` and
    at most :data:`SMOKE_COMPONENTS` random features, every estimator and grid kept. Values of
    the wrong type are left for :func:`load` to name."""
    data = copy.deepcopy(data)
    if not isinstance(data, dict) or not isinstance(data.get("protocol"), dict):
        return data
    simulation = data.setdefault("simulation", {})
    if isinstance(simulation, dict):
        simulation["n_samples"] = _capped(simulation.get("n_samples", SMOKE_SIZES["n_samples"]),
                                          SMOKE_SIZES["n_samples"])
    protocol = data["protocol"]
    for key in ("n_parts", "window"):
        protocol[key] = _capped(protocol.get(key, SMOKE_SIZES[key]), SMOKE_SIZES[key])
    if "trials" in protocol:
        protocol["trials"] = _capped(protocol["trials"], SMOKE_SIZES["n_parts"])
    algorithms = data.get("algorithms")
    for algo in algorithms if isinstance(algorithms, list) else []:
        try:
            spec = get_online_spec(algo["name"])
        except (TypeError, KeyError, ValueError, AttributeError):
            continue  # load names it
        if "n_components" in spec.schema:
            algo["n_components"] = _capped(algo.get("n_components", SMOKE_COMPONENTS),
                                           SMOKE_COMPONENTS)
    return data
