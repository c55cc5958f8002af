"""The ``dataset: {file: ...}`` section of a config: a user's data file, read and described.

The file is read when the config is (so that every check of the config — m within the rows, a
task the algorithms fit, the memory of the dense data — comes before a run writes anything), by
:func:`kernreg.datasets.own.load_file_data`, whose last result the run's own read reuses.

The normalised section keeps what determines the data: the paths made absolute (relative
ones are taken from the config file's folder; ``~`` and ``$VARIABLE`` expanded), the format
and task as resolved (given or inferred), the test split, the preprocessing, and the sha256 of
each file. The paths are not part of the config's hash, the sha256 are
(:func:`kernreg.config.experiment.results_relevant`): a run folder moved with its data
resumes, a changed file does not.
"""

from __future__ import annotations

import copy
import os
import re
from pathlib import Path
from typing import Any

from kernreg.backend.memory import MemoryBudget
from kernreg.datasets import DatasetSpec
from kernreg.datasets.files import (
    DEFAULT_TEST_FRACTION,
    FORMATS,
    PREPROCESSING,
    TASKS,
    FileData,
    FileDatasetSpec,
)
from kernreg.datasets.own import file_dataset_spec, load_file_data
from kernreg.errors import ConfigError, DataError
from kernreg.solvers.blocks.params import POSITIVE, POSITIVE_INT

__all__ = ["FILE_KEYS", "file_dataset_schema", "file_dataset_section", "file_spec_of",
           "resolve_data_path"]

#: The keys of a file dataset that say how the file is read (the others are shared with a
#: registered dataset's section: ``dtype``, ``target_coding``, ``n_train``, ``n_test``).
FILE_KEYS = ("file", "format", "target", "features", "test_file", "test_fraction", "task",
             "n_features", "preprocessing", "sigma")


def file_dataset_schema(common: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema of the file form of ``dataset:``; ``common``: the properties it
    shares with the registered form."""
    step = {"enum": list(PREPROCESSING)}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["file"],
        "properties": {
            "file": {"type": "string", "minLength": 1},
            "format": {"enum": list(FORMATS)},
            "target": {"type": "string", "minLength": 1},
            "features": {"type": "string", "minLength": 1},
            "test_file": {"type": "string", "minLength": 1},
            "test_fraction": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "task": {"enum": list(TASKS)},
            "n_features": POSITIVE_INT,
            "preprocessing": {"oneOf": [step, {"type": "array", "items": step}]},
            "sigma": POSITIVE,
            **common,
        },
    }


_VARIABLE = re.compile(r"\$(\w+)|\$\{(\w+)\}")


def resolve_data_path(value: str, config_path: Path, key: str = "dataset.file") -> Path:
    """A data path of a config: environment variables (``$KERNREG_MIRROR/libsvm/a9a``) and
    ``~`` expanded, a relative one taken from the config's folder, made absolute.

    Raises
    ------
    ConfigError
        The path names an environment variable that is not set.
    """
    unset = [a or b for a, b in _VARIABLE.findall(value) if (a or b) not in os.environ]
    if unset:
        raise ConfigError(f"{config_path}: {key}: {value!r} names the environment variable "
                          f"{', '.join(dict.fromkeys(unset))}, which is not set")
    path = Path(os.path.expandvars(value)).expanduser()
    if not path.is_absolute():
        path = config_path.parent / path
    return Path(os.path.normpath(path.absolute()))


def file_spec_of(section: dict[str, Any]) -> FileDatasetSpec:
    """The :class:`FileDatasetSpec` of a normalised file section (paths absolute)."""
    steps = tuple(s for s in section.get("preprocessing", ()) if s != "none")
    return FileDatasetSpec(
        file=Path(section["file"]), format=section.get("format"), target=section.get("target"),
        features=section.get("features"),
        test_file=Path(section["test_file"]) if section.get("test_file") else None,
        test_fraction=section.get("test_fraction"), task=section.get("task"),
        n_features=section.get("n_features"), preprocessing=steps, sigma=section.get("sigma"))


def file_dataset_section(entry: dict[str, Any], config_path: Path, seed: int,
                         memory_gb: float) -> tuple[dict[str, Any], DatasetSpec, FileData]:
    """The normalised file section of a config (``entry`` passed the schema), the
    :class:`DatasetSpec` its checks take, and the data read.

    Raises
    ------
    ConfigError
        A setting that does not fit the file (``dataset.target`` of an npy file, ...).
    DataError
        A file that cannot be used as the section says, naming the file and the problem.
    """
    section = copy.deepcopy(entry)
    for key in ("file", "test_file"):
        if key in section:
            section[key] = str(resolve_data_path(section[key], config_path, f"dataset.{key}"))
    steps = section.get("preprocessing", [])
    section["preprocessing"] = [steps] if isinstance(steps, str) else list(steps)
    try:
        spec = file_spec_of(section)
    except DataError as exc:  # a setting that contradicts another, or the file's format
        raise ConfigError(f"{config_path}: {exc}") from None
    memory = MemoryBudget.of(memory_gb)
    data = load_file_data(spec, seed=seed, dtype=section.get("dtype", "float64"), memory=memory)
    section["format"] = data.format
    section["task"] = data.task
    if "test_file" not in section:
        section["test_fraction"] = section.get("test_fraction", DEFAULT_TEST_FRACTION)
    section["sha256"] = {key: data.sha256[str(getattr(spec, key))]
                         for key in ("file", "test_file") if getattr(spec, key) is not None}
    ordered = {key: section[key] for key in (*FILE_KEYS, "sha256") if key in section}
    rest = {key: value for key, value in section.items() if key not in ordered}
    return {**ordered, **rest}, file_dataset_spec(spec, data), data
