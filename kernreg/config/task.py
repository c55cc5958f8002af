"""The task of an experiment (``task:``): checked against the task registry and the dataset's
kind, defaulting to the dataset's own (regression, or binary classification)."""

from __future__ import annotations

from typing import Any

from kernreg.datasets import DatasetSpec, get_spec
from kernreg.datasets.own import SPEC_TASKS
from kernreg.losses import Task, default_task, get_task, task_names
from kernreg.losses.measures import get_measure

__all__ = ["check_measures", "check_task", "experiment_task"]


def check_task(value: Any, spec: DatasetSpec, problems: list[str]) -> str | None:
    """The config's ``task:`` value normalised: ``None`` when absent or equal to the dataset's
    default (so existing configs keep their hash), else the task's name; a task that does not
    apply to the dataset's kind adds a problem naming the key."""
    if value is None:
        return None
    try:
        task = get_task(value)
    except ValueError:
        problems.append(f"task: {value!r} is not allowed; allowed values: "
                        f"{', '.join(task_names())}")
        return None
    if spec.task not in task.dataset_tasks:
        allowed = [n for n in task_names() if spec.task in get_task(n).dataset_tasks]
        problems.append(f"task: {value!r} does not apply to {spec.name}, a {spec.task} dataset; "
                        f"allowed values: {', '.join(allowed)}")
        return None
    try:
        default = default_task(spec.task)
    except ValueError:  # a kind without a hold-out default (multiclass): the task is said
        return task.name
    return None if task is default else task.name


def check_measures(values: list[str], task: str | None, spec: DatasetSpec,
                   problems: list[str]) -> tuple[str, ...]:
    """The config's ``measures:`` (registered names: the schema checked them) less those its
    task records anyway; a measure of other tasks' outputs adds a problem naming it."""
    try:
        run_task = get_task(task) if task else default_task(spec.task)
    except ValueError:  # no task to check against: check_task said why
        return ()
    asked = []
    for i, name in enumerate(values):
        measure = get_measure(name)
        if measure.tasks and run_task.name not in measure.tasks:
            problems.append(f"measures[{i}]: {name} reads the outputs of a "
                            f"{' or '.join(measure.tasks)} task; this run is "
                            f"{run_task.name} on {spec.name}")
        elif name not in run_task.measures:
            asked.append(name)
    return tuple(asked)


def experiment_task(task: str | None, dataset: str | dict[str, Any]) -> Task:
    """The task of an experiment: its ``task`` (``Experiment.task``) or, when ``None``, the
    default of its dataset's kind; ``dataset``: a registered name, or the normalised
    ``dataset:`` section (a data file's carries its task)."""
    if task:
        return get_task(task)
    if isinstance(dataset, dict) and "file" in dataset:
        return default_task(SPEC_TASKS[dataset["task"]])
    return default_task(get_spec(dataset["name"] if isinstance(dataset, dict) else dataset).task)
