"""Experiment configs: YAML files validated against a schema, defaults filled in, and the
estimators they configure."""

from kernreg.config.estimators import (
    device_algorithms,
    estimator_params,
    make_estimator,
    takes_device,
)
from kernreg.config.experiment import (
    HOLDOUT,
    LEGACY_KEYS,
    Algorithm,
    Experiment,
    algorithm_hashes,
    current_keys,
    expand_m,
    protocol_kind,
    results_relevant,
    trial_rows,
)
from kernreg.config.loader import (
    load_experiment,
    parse_experiment,
    raise_problems,
    read_yaml,
    schema_problems,
)
from kernreg.config.task import experiment_task
from kernreg.solvers.blocks.holdout import fit_rows

__all__ = [
    "HOLDOUT",
    "LEGACY_KEYS",
    "Algorithm",
    "Experiment",
    "algorithm_hashes",
    "current_keys",
    "device_algorithms",
    "estimator_params",
    "expand_m",
    "experiment_task",
    "fit_rows",
    "load_experiment",
    "make_estimator",
    "parse_experiment",
    "protocol_kind",
    "raise_problems",
    "read_yaml",
    "results_relevant",
    "schema_problems",
    "takes_device",
    "trial_rows",
]
