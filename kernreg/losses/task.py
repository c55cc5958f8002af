"""Learning tasks and their registry: how targets are coded, how a real-valued prediction
becomes a label, and which error measures a trial of the task records.

A task is its class plus one :func:`register_task` call. ``coding`` is what a task needs to
code and decode: the (negative, positive) target codes of binary classification, the sorted
class labels of multiclass classification, nothing for regression. A dataset's kind
(``DatasetSpec.task``: regression or classification) names the tasks it can serve
(:attr:`Task.dataset_tasks`) and its default (:attr:`Task.default_for`); a config may ask for
another with ``task:``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from kernreg.losses.measures import get_measure
from kernreg.registry import Registry

__all__ = ["Task", "default_task", "get_task", "register_task", "task_names",
           "unregister_task"]


class Task(ABC):
    """A learning task: subclasses set the class attributes and implement :meth:`decode`."""

    #: Registry name (in configs: ``task:``, and in trial records).
    name: ClassVar[str]
    #: Title in tables and docs.
    title: ClassVar[str]
    #: The dataset kinds (``DatasetSpec.task``) this task applies to.
    dataset_tasks: ClassVar[tuple[str, ...]]
    #: The dataset kinds whose default task this is.
    default_for: ClassVar[tuple[str, ...]] = ()
    #: The measures a trial records on the test set, in table order.
    measures: ClassVar[tuple[str, ...]]
    #: The measure that selects and reports by default (a table may show others).
    default_measure: ClassVar[str]
    #: The measures a summary table shows by default (all of :attr:`measures` if empty).
    table_measures: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.table_measures and hasattr(cls, "measures"):
            cls.table_measures = cls.measures

    def encode(self, y: Any, coding: Any = None) -> np.ndarray:
        """The targets an estimator fits for labels ``y`` (identity unless overridden)."""
        return np.asarray(y, dtype=np.float64)

    @abstractmethod
    def decode(self, f: Any, coding: Any = None) -> np.ndarray:
        """The labels (or values) predicted by real-valued outputs ``f``."""

    def classes(self, coding: Any = None) -> np.ndarray:
        """The class labels (empty for regression)."""
        return np.zeros(0)

    def margins(self, y: Any, f: Any, coding: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Targets and outputs on the ±1 scale of the hinge loss."""
        raise ValueError(f"task {self.name!r} has no ±1 margins (no classes)")

    def evaluate(self, y: Any, f: Any, coding: Any = None) -> dict[str, float]:
        """Every measure of the task for targets ``y`` and outputs ``f``: ``{name: value}``;
        a per-class measure gives ``{<prefix>_<class>: value}``."""
        out: dict[str, float] = {}
        for name in self.measures:
            measure = get_measure(name)
            value = measure.compute(self, y, f, coding)
            if isinstance(value, dict):
                out.update({f"{measure.per_class}_{k}": v for k, v in value.items()})
            else:
                out[name] = value
        return out


_TASKS: Registry[Task] = Registry("task", lambda task: task.name)


def register_task(task: Task) -> Task:
    """Add ``task`` (names are unique; its measures must be registered)."""
    for name in (*task.measures, task.default_measure):
        get_measure(name)
    if task.default_measure not in task.measures:
        raise ValueError(f"task {task.name!r}: default measure {task.default_measure!r} is not "
                         f"one of its measures {task.measures}")
    return _TASKS.register(task)


#: Remove a task (a test's toy); the task registered as a name (else a ``ValueError`` naming
#: the registered ones).
unregister_task, get_task = _TASKS.unregister, _TASKS.get


def task_names() -> list[str]:
    """Registered task names, sorted."""
    return sorted(_TASKS.names())


def default_task(dataset_task: str) -> Task:
    """The task a dataset of kind ``dataset_task`` (``DatasetSpec.task``) gets by default.

    Raises
    ------
    ValueError
        If no registered task is the default of that kind.
    """
    for task in _TASKS:
        if dataset_task in task.default_for:
            return task
    raise ValueError(f"no registered task is the default of {dataset_task!r} datasets")
