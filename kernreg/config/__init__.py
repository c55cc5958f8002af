"""Experiment and table configs: YAML files validated against a schema, defaults filled in."""

from kernreg.config.loader import (
    Algorithm,
    Experiment,
    is_table_config,
    load_experiment,
    load_table_config,
    parse_experiment,
    read_yaml,
    results_relevant,
)

__all__ = [
    "Algorithm",
    "Experiment",
    "is_table_config",
    "load_experiment",
    "load_table_config",
    "parse_experiment",
    "read_yaml",
    "results_relevant",
]
