"""JSON-schema fragments of the algorithms' config entries, shared by their specs.

Each algorithm's :class:`~kernreg.solvers.registry.AlgorithmSpec` builds its config schema
from these (and its own keys); the config layer validates entries against it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg.grid import POSITIVE, POSITIVE_INT, grid_schema, grid_values
from kernreg.solvers.blocks.nystrom import PENALTIES

__all__ = ["DEFAULT_LAMBDA_GRID", "LAMBDAS", "M_LEVELS", "M_SWEEP", "NAME_AND_LABEL", "NYSTROM",
           "PATH_NYSTROM", "POSITIVE", "POSITIVE_INT", "lambda_grid", "level_values", "triple"]

#: The protocol's λ grid, ``(low, high, count)`` log-spaced: 100 values in [1e-15, 1].
DEFAULT_LAMBDA_GRID = (1e-15, 1.0, 100)



def triple(key: str, first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """``{key: [a, b, count]}``, e.g. ``{logspace: [1e-12, 1, 13]}``."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [key],
        "properties": {
            key: {"type": "array", "prefixItems": [first, second, POSITIVE_INT],
                  "minItems": 3, "maxItems": 3}
        },
    }


LAMBDAS = grid_schema(POSITIVE, what="λ grid")

#: Keys of every algorithm entry.
NAME_AND_LABEL = {"name": {"type": "string"}, "label": {"type": "string", "minLength": 1}}

M_SWEEP = {
    "description": "a number of centers, a list of them, or {range: [start, stop, step]} "
                   "(stop included); a list or range runs one entry per value, labelled "
                   "<label>_m<value>",
    "oneOf": [
        POSITIVE_INT,
        {"type": "array", "items": POSITIVE_INT, "minItems": 1, "uniqueItems": True},
        triple("range", POSITIVE_INT, POSITIVE_INT),
    ],
}

M_LEVELS = {
    "description": "levels m' ≤ m: a list of integers, or {linspace: [start, stop, count]}",
    "oneOf": [
        {"type": "array", "items": POSITIVE_INT, "minItems": 1},
        triple("linspace", POSITIVE_INT, POSITIVE_INT),
    ],
}

#: The center samplers a config may name (kept equal to ``centers.SAMPLERS``'s keys by a test).
SAMPLER_NAMES = ("uniform", "leverage", "pivoted_cholesky", "rpcholesky")

NYSTROM = {
    "m": M_SWEEP,
    "epsilon": POSITIVE,
    "sampler": {
        "description": "uniform, leverage, pivoted_cholesky (greedy pivots), rpcholesky "
                       "(randomly pivoted Cholesky), or {name: leverage, lam: λ, subsample: s}",
        "oneOf": [
            {"enum": list(SAMPLER_NAMES)},
            {
                "type": "object",
                "additionalProperties": False,
                "required": ["name"],
                "properties": {"name": {"enum": list(SAMPLER_NAMES)}, "lam": POSITIVE,
                               "subsample": POSITIVE_INT},
            },
        ],
    },
}

#: λ-path Nyström solvers also choose their ridge term.
PATH_NYSTROM = {**NYSTROM, "penalty": {"enum": list(PENALTIES)}}


def lambda_grid(spec: Any) -> np.ndarray:
    """The λ values of a config's ``lambdas`` (any grid form: :func:`kernreg.grid.grid_values`)."""
    return grid_values(spec)


def level_values(spec: Any) -> list[int] | None:
    """The levels of a config's ``m_values`` / ``d_values``: a list, ``{linspace: [start, stop,
    count]}`` (rounded, distinct), or ``None`` (the estimator's default)."""
    if isinstance(spec, dict):
        start, stop, count = spec["linspace"]
        return sorted({round(float(v)) for v in np.linspace(start, stop, count)})
    return None if spec is None else [int(v) for v in spec]
