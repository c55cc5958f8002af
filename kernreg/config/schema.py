"""JSON Schemas of experiment configs (validated with ``jsonschema``).

The ``kernel:`` section and algorithm entries are validated in two stages: the experiment
schema checks the entry's ``name`` against the kernel or algorithm registry, then the kernel's
or algorithm's own schema (:meth:`~kernreg.kernels.KernelSpec.config_schema`,
:meth:`~kernreg.solvers.AlgorithmSpec.config_schema`) checks its keys, so an unknown key is
reported with the keys that kernel or algorithm accepts. Both are built when a config is read,
so a kernel or algorithm registered later (a plugin, a test's toy) is accepted like the
built-in ones.
"""

from __future__ import annotations

from typing import Any

from kernreg.config.experiment import HOLDOUT
from kernreg.config.file_dataset import file_dataset_schema
from kernreg.kernels import kernel_names
from kernreg.losses import task_names
from kernreg.losses.measures import measure_names
from kernreg.solvers import algorithm_names
from kernreg.solvers.blocks.params import POSITIVE, POSITIVE_INT

__all__ = ["experiment_schema"]


def experiment_schema() -> dict[str, Any]:
    """The schema of an experiment config, with the registered kernel and algorithm names."""
    common = {  # the keys of both forms of the dataset section
        "dtype": {"enum": ["float64", "float32"]},
        "target_coding": {"description": "classes coded ±1 (pm1) or {0, 1} (zero_one)",
                          "enum": ["pm1", "zero_one"]},
        "n_train": POSITIVE_INT,
        "n_test": POSITIVE_INT,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "required": ["dataset", "algorithms"],
        "properties": {
            "name": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
            "description": {"type": "string"},
            "plugins": {"description": "modules (my_solvers) or Python files (./my_kernel.py, "
                                       "from the config's folder) to import first: they "
                                       "register algorithms, kernels, feature maps",
                        "type": "array", "items": {"type": "string", "minLength": 1}},
            "task": {"description": "the learning task (default: the dataset's own); it names "
                                    "the error measures each trial records",
                     "enum": task_names()},
            "measures": {"description": "test measures each trial records besides its "
                                        "task's own (top_5_accuracy: a multiclass run's "
                                        "top-5 accuracy)",
                         "type": "array", "uniqueItems": True,
                         "items": {"enum": measure_names()}},
            "dataset": {
                "description": "a registered dataset ({name: adult}) or a data file of one's "
                               "own ({file: data.csv})",
                "oneOf": [
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["name"],
                        "properties": {"name": {"type": "string"}, **common},
                    },
                    file_dataset_schema(common),
                ],
            },
            # its parameters: the named kernel's own schema (second stage)
            "kernel": {"type": "object", "properties": {"name": {"enum": kernel_names()}}},
            "algorithms": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"name": {"enum": algorithm_names()}},
                },
            },
            "protocol": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "kind": {"const": HOLDOUT},
                    "trials": POSITIVE_INT,
                    "validation_fraction": {"type": "number", "exclusiveMinimum": 0,
                                            "exclusiveMaximum": 1},
                    "seed": {"type": "integer", "minimum": 0},
                    "refit": {"type": "boolean"},
                    "selection": {
                        "description": "holdout (one seeded split, validation_fraction of the "
                                       "training rows) or kfold (the mean validation error "
                                       "over folds, then a fit on all training rows)",
                        "enum": ["holdout", "kfold"]},
                    "folds": {"description": "the folds of kfold selection (default 5)",
                              "type": "integer", "minimum": 2},
                    "fit_intercept": {
                        "description": "fit the square-loss algorithms on the targets less "
                                       "their training mean (default: false on a registered "
                                       "dataset, the papers' setting; true on a data file)",
                        "type": "boolean"},
                    "test_split": {
                        "description": "fixed (the dataset's own training and test rows, "
                                       "the default) or per_trial (each trial draws a fresh "
                                       "split of all rows into the same two sizes, from its "
                                       "seed)",
                        "enum": ["fixed", "per_trial"]},
                    "record_test_path": {
                        "description": "record every test measure along each algorithm's "
                                       "validated path (the fit rows' models on the test "
                                       "rows), e.g. test error against m for one λ",
                        "type": "boolean"},
                },
            },
            "device": {
                "description": "cpu (numpy, the default), torch (PyTorch on the CPU), cuda or "
                               "cuda:N (GPU N)",
                "type": "string",
                "pattern": "^(cpu|torch|cuda(:[0-9]+)?)$",
            },
            "tf32": {"description": "TensorFloat-32 in float32 products on a GPU (default "
                                    "false)",
                     "type": "boolean"},
            "execution": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "scheduler": {
                        "description": "local (this process), local:N (a Dask LocalCluster "
                                       "of N worker processes) or the address of a Dask "
                                       "scheduler (tcp://host:8786)",
                        "type": "string",
                        "pattern": "^(local|local:[1-9][0-9]*|(tcp|tls|inproc)://.+)$",
                    },
                },
            },
            "budget": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "memory_gb": POSITIVE,
                    # the device's memory kernreg may fill (default: 90% of its free memory)
                    "gpu_memory_gb": POSITIVE,
                    # a kernel block of at least 1 KiB: less rounds to a 0-byte budget
                    "block_mb": {"type": "number", "minimum": 1 / 1024},
                    # "auto": the cores other processes leave idle, when each trial starts
                    "blas_threads": {"oneOf": [POSITIVE_INT, {"const": "auto"}]},
                },
            },
        },
    }
