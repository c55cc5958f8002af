"""Experiment configs: YAML files validated against a schema, defaults filled in."""

from kernreg.config.loader import (
    Algorithm,
    Experiment,
    load_experiment,
    parse_experiment,
    raise_problems,
    read_yaml,
    results_relevant,
    schema_problems,
)

__all__ = [
    "Algorithm",
    "Experiment",
    "load_experiment",
    "parse_experiment",
    "raise_problems",
    "read_yaml",
    "results_relevant",
    "schema_problems",
]
