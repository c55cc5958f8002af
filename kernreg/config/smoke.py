"""A config at smoke size: the same experiment on a tiny slice, to check it runs end to end.

:func:`smoke_config` rewrites a parsed YAML mapping before it is validated (``kernreg run
--smoke``, ``kernreg stream --smoke``), so the result is checked like any config and its run
folder's config (and hash) says what ran. It keeps every algorithm, kernel and rule of the
file and shrinks only what sets the cost: the rows (:data:`SMOKE_ROWS` training,
:data:`SMOKE_TEST_ROWS` test), one trial, the subset sizes (``m``, ``n_features`` and their
levels, scaled together so that a level stays below its algorithm's size), the iterations and
passes, and every grid (λ, σ, α) to at most :data:`SMOKE_GRID_POINTS` points. Its numbers mean
nothing; its tables and figures have the full run's layout.

The online regression protocol (``protocol: {kind: online_regression}``, thesis Chapter 8's
simulation) shrinks as ``reproduce/thesis_ch8/thesis_fig8_4.py --smoke`` always has:
:data:`SMOKE_ONLINE` (300 simulated samples per plane, 3 parts, a 10-sample window) and at most
:data:`SMOKE_CENTERS` random features; its selection grids stay whole (cheap at that size).
"""

from __future__ import annotations

import copy
import math
from typing import Any

__all__ = ["SMOKE_CENTERS", "SMOKE_GRID_POINTS", "SMOKE_ITERATIONS", "SMOKE_ONLINE", "SMOKE_ROWS",
           "SMOKE_TEST_ROWS", "smoke_config"]

#: Training rows of a smoke run (before the hold-out split) and test rows.
SMOKE_ROWS = 400
SMOKE_TEST_ROWS = 200
#: The largest subset size (Nyström centers, random features) of an algorithm.
SMOKE_CENTERS = 40
#: The smallest subset size a scaled level keeps (below it some samplers have nothing to do).
SMOKE_MIN_LEVEL = 4
#: Iteration caps: ``max_iter`` and the passes (epochs) over the data.
SMOKE_ITERATIONS = 20
SMOKE_PASSES = 2
#: The most points of any grid (λ, σ, α, levels).
SMOKE_GRID_POINTS = 3

#: Keys holding a subset size or its levels (an int, a list or a grid); scaled together.
_SIZE_KEYS = ("m", "n_features", "m_values", "d_values")
#: Keys holding a grid of values that are not sizes.
_GRID_KEYS = ("lambdas", "alphas", "sigma")
#: Iteration caps by key.
_CAPS = {"max_iter": SMOKE_ITERATIONS, "passes": SMOKE_PASSES, "epochs": SMOKE_PASSES}
#: Streaming protocols (``kernreg stream``): examples per balanced class and test examples
#: per class, and the most examples streamed of the imbalanced one.
SMOKE_STREAM = {"n_bal": 36, "n_test": 10, "validation_min_examples": 36}
SMOKE_STREAMED = 10
#: The online regression protocol: simulated samples per plane, parts of the test plane (and
#: trials: a trial is a part), samples of the RMSE window.
SMOKE_ONLINE = {"n_samples": 300, "n_parts": 3, "window": 10}


def smoke_config(data: dict[str, Any], test_rows: int | None = None) -> dict[str, Any]:
    """``data`` (a parsed config mapping, not modified) at smoke size; ``test_rows``: the
    dataset's test rows, when fewer than :data:`SMOKE_TEST_ROWS`. Values of the wrong type
    are left for the validation to name."""
    data = copy.deepcopy(data)
    if isinstance(data.get("protocol"), dict) and \
            data["protocol"].get("kind") == "online_regression":
        _smoke_online(data)
        return data
    protocol = data.setdefault("protocol", {})  # one trial also where the default is more
    streaming = isinstance(protocol, dict) and protocol.get("kind") == "streaming"
    if isinstance(protocol, dict):
        protocol["trials"] = 1
        if streaming:  # the protocol draws its own rows
            _smoke_stream_protocol(protocol)
    dataset = data.get("dataset")
    if isinstance(dataset, dict) and not streaming:
        test_cap = min(SMOKE_TEST_ROWS, test_rows or SMOKE_TEST_ROWS)
        for key, cap in (("n_train", SMOKE_ROWS), ("n_test", test_cap)):
            dataset[key] = _capped(dataset.get(key, cap), cap)
    for section in ("kernel", "model"):
        if isinstance(data.get(section), dict):
            _shrink_grids(data[section])
    features = data.get("model", {}).get("features") if isinstance(data.get("model"), dict) \
        else None
    if isinstance(features, dict) and "size" in features:  # streamed Nyström / random features
        features["size"] = _capped(features["size"], SMOKE_CENTERS)
    algorithms = data.get("algorithms")
    for algo in algorithms if isinstance(algorithms, list) else []:
        if isinstance(algo, dict):
            _smoke_algorithm(algo)
    return data


def _smoke_stream_protocol(protocol: dict[str, Any]) -> None:
    for key, cap in SMOKE_STREAM.items():
        if key in protocol:
            protocol[key] = _capped(protocol[key], cap)
    record_at = protocol.get("record_at")
    if isinstance(record_at, list):
        kept = [v for v in record_at if isinstance(v, int) and v <= SMOKE_STREAMED]
        protocol["record_at"] = kept or [1]


def _smoke_online(data: dict[str, Any]) -> None:
    """The online regression protocol at smoke size, in place (see the module's text)."""
    from kernreg.solvers.online import get_online_spec  # the registry says who has features

    simulation = data.setdefault("simulation", {})
    if isinstance(simulation, dict):
        simulation["n_samples"] = _capped(simulation.get("n_samples", SMOKE_ONLINE["n_samples"]),
                                          SMOKE_ONLINE["n_samples"])
    protocol = data["protocol"]
    for key in ("n_parts", "window"):
        protocol[key] = _capped(protocol.get(key, SMOKE_ONLINE[key]), SMOKE_ONLINE[key])
    if "trials" in protocol:
        protocol["trials"] = _capped(protocol["trials"], SMOKE_ONLINE["n_parts"])
    algorithms = data.get("algorithms")
    for algo in algorithms if isinstance(algorithms, list) else []:
        try:
            spec = get_online_spec(algo["name"])
        except (TypeError, KeyError, ValueError, AttributeError):
            continue  # the validation names it
        if "n_components" in spec.schema:
            algo["n_components"] = _capped(algo.get("n_components", SMOKE_CENTERS),
                                           SMOKE_CENTERS)


def _smoke_algorithm(algo: dict[str, Any]) -> None:
    _shrink_grids(algo)
    for key, cap in _CAPS.items():
        if key in algo:
            algo[key] = _capped(algo[key], cap)
    sizes = [v for key in _SIZE_KEYS if key in algo for v in _size_values(algo[key])]
    factor = SMOKE_CENTERS / max(sizes) if sizes and max(sizes) > SMOKE_CENTERS else None
    for key in _SIZE_KEYS:
        if key in algo:
            size = algo[key] if factor is None else _scaled(algo[key], factor)
            algo[key] = _fewer_points(size)


def _shrink_grids(section: dict[str, Any]) -> None:
    for key in _GRID_KEYS:
        if key in section:
            section[key] = _fewer_points(section[key])


def _capped(value: Any, cap: int) -> Any:
    return min(value, cap) if isinstance(value, int) and not isinstance(value, bool) else value


def _spaced(value: Any) -> tuple[str, list[Any]] | None:
    """A spaced grid's form and its three numbers (``{linspace|logspace|range: [a, b, c]}``),
    or None for any other value."""
    if isinstance(value, dict):
        for key in ("linspace", "logspace", "range"):
            numbers = value.get(key)
            if isinstance(numbers, list) and len(numbers) == 3:
                return key, numbers
    return None


def _ints(values: list[Any]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _size_values(value: Any) -> list[float]:
    """The numbers a size entry names (an int, a list, a grid's ends)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, int | float) and not isinstance(v, bool)]
    grid = _spaced(value)
    return _size_values(grid[1][:2]) if grid else []


def _scaled(value: Any, factor: float) -> Any:
    """A size entry with every size times ``factor`` (at least :data:`SMOKE_MIN_LEVEL`)."""

    def scale(v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, int | float):
            return v
        return max(SMOKE_MIN_LEVEL, math.floor(v * factor))

    if isinstance(value, list):
        return sorted({scale(v) for v in value}, key=float)
    if not isinstance(value, dict):
        return scale(value)
    grid = _spaced(value)
    if grid is None:
        return value
    key, (low, high, count_or_step) = grid
    if key != "range":
        return {**value, key: [scale(low), scale(high), count_or_step]}
    if not _ints([low, high, count_or_step]):
        return value
    return {**value, key: [scale(low), scale(high), max(1, math.floor(count_or_step * factor))]}


def _fewer_points(value: Any) -> Any:
    """A grid of at most :data:`SMOKE_GRID_POINTS` points, keeping its ends."""
    n = SMOKE_GRID_POINTS
    if isinstance(value, list) and len(value) > n:
        return [value[round(i * (len(value) - 1) / (n - 1))] for i in range(n)]
    grid = _spaced(value)
    if grid is not None:
        key, (low, high, count_or_step) = grid
        if key != "range" and isinstance(count_or_step, int):
            return {**value, key: [low, high, min(count_or_step, n)]}
        if key == "range" and _ints([low, high, count_or_step]) and count_or_step > 0:
            step = max(count_or_step, math.ceil((high - low) / (n - 1)))
            return {**value, key: [low, high, step]}
    if isinstance(value, dict) and isinstance(value.get("num"), int):  # {min, max, num}
        return {**value, "num": min(value["num"], n)}
    return value
