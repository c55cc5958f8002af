"""Grids of values in a config: one spelling for every protocol, read by one function.

A grid (λ, σ, α, the centres of an m sweep, a selection grid) is written as

* a list of values: ``[1e-3, 1e-2, 1e-1]``;
* ``{logspace: [low, high, count]}``: ``count`` values log-spaced from ``low`` to ``high``;
* ``{linspace: [low, high, count]}``: ``count`` values evenly spaced;
* ``{range: [start, stop, step]}``: integers from ``start`` to ``stop`` (included).

:func:`grid_schema` is the JSON-schema fragment every config uses for a grid key;
:func:`grid_values` turns any of them (or a single value) into the values, increasing where
the form orders them. ``{min, max, num}``, the class-incremental stream's earlier spelling, is
read as ``{logspace: [min, max, num]}`` (:func:`canonical_grid`), with a deprecation note.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

__all__ = ["GRID_FORMS", "POSITIVE", "POSITIVE_INT", "canonical_grid", "grid_schema",
           "grid_values", "is_grid"]

log = logging.getLogger("kernreg.config")

POSITIVE = {"type": "number", "exclusiveMinimum": 0}
POSITIVE_INT = {"type": "integer", "minimum": 1}
#: The spellings of a grid, in a message's words.
GRID_FORMS = ("a list, {logspace: [low, high, count]}, {linspace: [low, high, count]} or "
              "{range: [start, stop, step]}")
_SPACED = ("logspace", "linspace")


def _triple(key: str, first: dict[str, Any], second: dict[str, Any],
            third: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": [key],
            "properties": {key: {"type": "array", "prefixItems": [first, second, third],
                                 "minItems": 3, "maxItems": 3}}}


def grid_schema(item: dict[str, Any] = POSITIVE, *, max_points: int | None = None,
                legacy: bool = False, what: str = "grid") -> dict[str, Any]:
    """The schema of a grid of ``item`` values (at most ``max_points`` in a list or a spaced
    form's count; ``legacy``: ``{min, max, num}`` accepted too)."""
    count = {**POSITIVE_INT, **({"maximum": max_points} if max_points else {})}
    listed = {"type": "array", "items": item, "minItems": 1,
              **({"maxItems": max_points} if max_points else {})}
    forms = [listed, *(_triple(key, item, item, count) for key in _SPACED),
             _triple("range", POSITIVE_INT, POSITIVE_INT, POSITIVE_INT)]
    if legacy:
        forms.append({"type": "object", "additionalProperties": False,
                      "required": ["min", "max", "num"],
                      "properties": {"min": item, "max": item, "num": count}})
    return {"description": f"{what}: {GRID_FORMS}"
                           + (f", at most {max_points} points" if max_points else ""),
            "oneOf": forms}


def is_grid(value: Any) -> bool:
    """Whether a config value is a grid to select from (a list or a spaced form), not one
    value."""
    return isinstance(value, dict | list)


def canonical_grid(value: Any, key: str = "grid") -> Any:
    """``value`` in one of :func:`grid_schema`'s forms: the earlier ``{min, max, num}`` becomes
    ``{logspace: [min, max, num]}`` (with a deprecation note naming ``key``)."""
    if isinstance(value, dict) and set(value) == {"min", "max", "num"}:
        log.warning("%s: {min, max, num} is read as {logspace: [min, max, num]}; write it so "
                    "(the old spelling will be refused in a later version)", key)
        return {"logspace": [value["min"], value["max"], value["num"]]}
    return value


def grid_values(value: Any) -> np.ndarray:
    """The values of a grid (any form of :func:`grid_schema`) or of one value, as float64;
    a list keeps its order."""
    value = canonical_grid(value)
    if isinstance(value, dict):
        (form, (low, high, third)), = value.items()
        if form == "logspace":
            return np.logspace(np.log10(low), np.log10(high), int(third))
        if form == "linspace":
            return np.linspace(low, high, int(third))
        return np.arange(low, high + 1, third, dtype=np.float64)
    return np.atleast_1d(np.asarray(value, dtype=np.float64))
