"""A config at smoke size: the same experiment on a tiny slice, to check it runs end to end.

:func:`smoke_config` rewrites a parsed YAML mapping before it is validated (``kernreg run
--smoke``), so the result is checked like any config and its run
folder's config (and hash) says what ran. It keeps every algorithm, kernel and rule of the
file and shrinks only what sets the cost: the rows (:data:`SMOKE_ROWS` training,
:data:`SMOKE_TEST_ROWS` test), one trial, the subset sizes (``m``, ``n_components`` and their
levels, scaled together so that a level stays below its algorithm's size), the iterations and
passes, and every grid (λ, σ, α) to at most :data:`SMOKE_GRID_POINTS` points. Its numbers mean
nothing; its tables and figures have the full run's layout.

A registered protocol shrinks its own configs (its spec's ``smoke``), with :func:`capped` and
:func:`fewer_points` and the same limits.
"""

from __future__ import annotations

import copy
import math
from typing import Any

__all__ = ["SMOKE_CENTERS", "SMOKE_GRID_POINTS", "SMOKE_ITERATIONS", "SMOKE_ROWS",
           "SMOKE_TEST_ROWS", "capped", "fewer_points", "smoke_config"]

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
#: ``n_features`` is the earlier name of ``n_components`` (the loader reads it so).
_SIZE_KEYS = ("m", "n_components", "n_features", "m_values", "d_values")
#: Keys holding a grid of values that are not sizes.
_GRID_KEYS = ("lambdas", "alphas", "sigma")
#: Iteration caps by key.
_CAPS = {"max_iter": SMOKE_ITERATIONS, "passes": SMOKE_PASSES, "epochs": SMOKE_PASSES}


def smoke_config(data: dict[str, Any], test_rows: int | None = None,
                 train_rows: int | None = None) -> dict[str, Any]:
    """``data`` (a parsed config mapping, not modified) at smoke size; ``test_rows`` and
    ``train_rows``: the dataset's test and training rows, when known (a data file may have
    fewer than :data:`SMOKE_TEST_ROWS` and :data:`SMOKE_ROWS`). Values of the wrong type are
    left for the validation to name."""
    data = copy.deepcopy(data)
    protocol = data.setdefault("protocol", {})  # one trial also where the default is more
    if isinstance(protocol, dict):
        protocol["trials"] = 1
    dataset = data.get("dataset")
    if isinstance(dataset, dict):
        test_cap = min(SMOKE_TEST_ROWS, test_rows or SMOKE_TEST_ROWS)
        train_cap = min(SMOKE_ROWS, train_rows or SMOKE_ROWS)
        for key, cap in (("n_train", train_cap), ("n_test", test_cap)):
            dataset[key] = capped(dataset.get(key, cap), cap)
    if isinstance(data.get("kernel"), dict):
        _shrink_grids(data["kernel"])
    algorithms = data.get("algorithms")
    for algo in algorithms if isinstance(algorithms, list) else []:
        if isinstance(algo, dict):
            _smoke_algorithm(algo)
    return data


def _smoke_algorithm(algo: dict[str, Any]) -> None:
    _shrink_grids(algo)
    for key, cap in _CAPS.items():
        if key in algo:
            algo[key] = capped(algo[key], cap)
    sizes = [v for key in _SIZE_KEYS if key in algo for v in _size_values(algo[key])]
    factor = SMOKE_CENTERS / max(sizes) if sizes and max(sizes) > SMOKE_CENTERS else None
    for key in _SIZE_KEYS:
        if key in algo:
            size = algo[key] if factor is None else _scaled(algo[key], factor)
            algo[key] = fewer_points(size)


def _shrink_grids(section: dict[str, Any]) -> None:
    for key in _GRID_KEYS:
        if key in section:
            section[key] = fewer_points(section[key])


def capped(value: Any, cap: int) -> Any:
    """``value`` at most ``cap`` when it is an int (anything else for the validation to
    name)."""
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


def fewer_points(value: Any) -> Any:
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
