"""JSON Schemas of experiment and table configs (validated with ``jsonschema``).

Algorithm entries are validated in two stages: the experiment schema checks the entry's
``name``, then the algorithm's own schema (``ALGORITHM_SCHEMAS[name]``) checks its keys, so an
unknown key is reported with the keys that algorithm accepts.
"""

from __future__ import annotations

from typing import Any

from kernreg.solvers._nystrom import PENALTIES
from kernreg.solvers.landweber import STEP_RULES
from kernreg.solvers.nytro import STEP_ROWS
from kernreg.stopping import SELECTIONS, STOPPING_RULES

POSITIVE = {"type": "number", "exclusiveMinimum": 0}
POSITIVE_INT = {"type": "integer", "minimum": 1}


def _triple(key: str, first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
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


LAMBDAS = {
    "description": "λ grid: a list of positive values, or {logspace: [low, high, count]}",
    "oneOf": [
        {"type": "array", "items": POSITIVE, "minItems": 1},
        _triple("logspace", POSITIVE, POSITIVE),
    ],
}

STOPPING = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "rule": {"enum": list(STOPPING_RULES)},
        "window": {"type": "integer", "minimum": 2},
        # relative rules compare ratios with 1 − θ; window_slope's θ is in units of the error
        "threshold": {"type": "number", "minimum": 0},
        "select": {"enum": list(SELECTIONS)},
    },
    "if": {"not": {"required": ["rule"], "properties": {"rule": {"const": "window_slope"}}}},
    "then": {"properties": {"threshold": {"exclusiveMaximum": 1}}},
}

_COMMON = {"name": {"type": "string"}, "label": {"type": "string", "minLength": 1}}


def _algorithm(**properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["name"],
        "properties": {**_COMMON, **properties},
    }


M_SWEEP = {
    "description": "a number of centers, a list of them, or {range: [start, stop, step]} "
                   "(stop included); a list or range runs one entry per value, labelled "
                   "<label>_m<value>",
    "oneOf": [
        POSITIVE_INT,
        {"type": "array", "items": POSITIVE_INT, "minItems": 1, "uniqueItems": True},
        _triple("range", POSITIVE_INT, POSITIVE_INT),
    ],
}

M_LEVELS = {
    "description": "levels m' ≤ m: a list of integers, or {linspace: [start, stop, count]}",
    "oneOf": [
        {"type": "array", "items": POSITIVE_INT, "minItems": 1},
        _triple("linspace", POSITIVE_INT, POSITIVE_INT),
    ],
}

_NYSTROM = {
    "m": M_SWEEP,
    "epsilon": POSITIVE,
    "sampler": {
        "description": "uniform, leverage, or {name: leverage, lam: λ, subsample: s}",
        "oneOf": [
            {"enum": ["uniform", "leverage"]},
            {
                "type": "object",
                "additionalProperties": False,
                "required": ["name"],
                "properties": {"name": {"enum": ["uniform", "leverage"]}, "lam": POSITIVE,
                               "subsample": POSITIVE_INT},
            },
        ],
    },
}

#: λ-path Nyström solvers also choose their ridge term.
_PATH_NYSTROM = {**_NYSTROM, "penalty": {"enum": list(PENALTIES)}}

_STRATEGY = {"enum": ["auto", "memory", "blocked", "gram"]}

ALGORITHM_SCHEMAS: dict[str, dict[str, Any]] = {
    "kols": _algorithm(),
    "krls": _algorithm(lambdas=LAMBDAS),
    "es": _algorithm(max_iter=POSITIVE_INT, stopping=STOPPING,
                     step_rule={"enum": list(STEP_RULES)}),
    "nkrls": _algorithm(lambdas=LAMBDAS, path_method={"enum": ["eigh", "cholesky"]},
                        **_PATH_NYSTROM),
    "nytro": _algorithm(max_iter=POSITIVE_INT, stopping=STOPPING,
                        step_rows={"enum": list(STEP_ROWS)}, strategy=_STRATEGY,
                        validation_strategy=_STRATEGY,
                        acceleration={"enum": ["none", "nu"]}, nu=POSITIVE, **_NYSTROM),
    "rf": _algorithm(lambdas=LAMBDAS, n_features=POSITIVE_INT, d_values=M_LEVELS),
    "inkrls": _algorithm(lambdas=LAMBDAS, m_values=M_LEVELS,
                         update={"enum": ["block", "rank_one"]}, **_PATH_NYSTROM),
}

EXPERIMENT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["dataset", "algorithms"],
    "properties": {
        "name": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
        "description": {"type": "string"},
        "dataset": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "dtype": {"enum": ["float64", "float32"]},
                "target_coding": {"description": "classes coded ±1 (pm1) or {0, 1} (zero_one)",
                                  "enum": ["pm1", "zero_one"]},
                "n_train": POSITIVE_INT,
                "n_test": POSITIVE_INT,
            },
        },
        "kernel": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "name": {"enum": ["gaussian", "laplacian", "linear"]},
                "sigma": POSITIVE,
            },
        },
        "algorithms": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"enum": sorted(ALGORITHM_SCHEMAS)}},
            },
        },
        "protocol": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "trials": POSITIVE_INT,
                "validation_fraction": {"type": "number", "exclusiveMinimum": 0,
                                        "exclusiveMaximum": 1},
                "seed": {"type": "integer", "minimum": 0},
                "refit": {"type": "boolean"},
            },
        },
        "budget": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "memory_gb": POSITIVE,
                "block_mb": POSITIVE,
                "blas_threads": POSITIVE_INT,
            },
        },
    },
}

TABLE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["table", "runs"],
    "properties": {
        "table": {"description": "which table `kernreg run` prints",
                  "enum": ["table2", "lim_table1", "summary"]},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "runs": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "notes": {
            "description": "one line under the table for a cell, e.g. why it differs from "
                           "the paper (a measured reason)",
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["dataset", "algorithm", "note"],
                "properties": {
                    "dataset": {"type": "string"},
                    "algorithm": {"enum": sorted(ALGORITHM_SCHEMAS)},
                    "note": {"type": "string", "minLength": 1},
                },
            },
        },
        "not_run": {
            "description": "cells shown as NA, with the reason",
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["dataset", "algorithm", "reason"],
                "properties": {
                    "dataset": {"type": "string"},
                    "algorithm": {"enum": sorted(ALGORITHM_SCHEMAS)},
                    "reason": {"type": "string", "minLength": 1},
                    "m": POSITIVE_INT,
                },
            },
        },
    },
}
