"""Error measures a trial records, and their registry.

A measure is computed from the targets ``y`` (regression values, or the class labels/codes of
a classification task) and the real-valued predictions ``f`` with the task that gives them
meaning (how ``f`` becomes a label, how labels are coded ±1). It knows how it reads: its title
in tables, its number format, whether lower is better (which cell a table sets in bold), and
how it compares with a paper's number (``paper_scale``: the papers give RMSE as a number and
classification errors sometimes in percent). Per-class measures give one value per class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from kernreg.losses.loss import get_loss
from kernreg.registry import Registry

__all__ = ["TOP_K", "Measure", "get_measure", "measure_names", "register_measure",
           "top_k_accuracy", "unregister_measure"]


class Task(Protocol):
    """What a measure needs of a task (:class:`kernreg.losses.task.Task`)."""

    def decode(self, f: Any, coding: Any = None) -> np.ndarray: ...

    def classes(self, coding: Any = None) -> np.ndarray: ...

    def margins(self, y: Any, f: Any, coding: Any = None) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class Measure:
    """One error measure.

    Attributes
    ----------
    name : str
        Registry name; the tidy CSV column is ``test_<name>`` (per class: ``test_<name>`` with
        the class appended to the prefix ``per_class``).
    title : str
        Its row or column label in tables ("RMSE", "error").
    description : str
        What it is, in one line.
    compute : callable
        ``compute(task, y, f, coding)`` → a float, or for a per-class measure a dict
        ``{column suffix: float}``.
    lower_is_better : bool
        Which value a table sets in bold.
    fmt : str
        Number format of summary tables (``format(value, fmt)``).
    paper_scale : float
        Our value × ``paper_scale`` is in the unit the papers print (100 for an error the
        papers give in percent).
    per_class : str
        For a per-class measure, the column prefix of its values (``accuracy_class``).
    tasks : tuple of str
        The tasks whose outputs it reads (empty: any task's); a config's ``measures:`` may ask
        for it only on those.
    """

    name: str
    title: str
    description: str
    compute: Callable[[Task, np.ndarray, np.ndarray, Any], float | dict[str, float]]
    lower_is_better: bool = True
    fmt: str = ".4f"
    paper_scale: float = 1.0
    per_class: str = ""
    tasks: tuple[str, ...] = ()

    def to_paper(self, value: float) -> float:
        """``value`` in the unit of the papers' tables."""
        return value * self.paper_scale

    def relative_gap(self, value: float, paper: float) -> float:
        """``(ours − paper) / |paper|`` in the paper's unit: how far a cell is from the paper
        (negative: lower than the paper's number)."""
        return (self.to_paper(value) - paper) / abs(paper)

    def better(self, a: float, b: float) -> bool:
        """Whether ``a`` is a better value than ``b`` of this measure."""
        return a < b if self.lower_is_better else a > b


def _float(y: Any) -> np.ndarray:
    return np.asarray(y, dtype=np.float64)


def _rmse(task: Task, y: Any, f: Any, coding: Any) -> float:
    # the formula of kernreg.solvers.rmse, so records keep their digits
    return float(np.sqrt(np.mean((_float(f) - _float(y)) ** 2, axis=0)))


def _mse(task: Task, y: Any, f: Any, coding: Any) -> float:
    return float(np.mean((_float(f) - _float(y)) ** 2, axis=0))


def _error(task: Task, y: Any, f: Any, coding: Any) -> float:
    return float(np.mean(task.decode(f, coding) != np.asarray(y)))


def _accuracy(task: Task, y: Any, f: Any, coding: Any) -> float:
    return float(np.mean(task.decode(f, coding) == np.asarray(y)))


def _hinge(task: Task, y: Any, f: Any, coding: Any) -> float:
    return get_loss("hinge").value(*task.margins(y, f, coding))


def class_key(label: Any) -> str:
    """A class label as a column suffix: ``3`` for 3 and 3.0, else its text."""
    value = label.item() if isinstance(label, np.generic) else label
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).replace("-", "m").replace(".", "p")


def _per_class_accuracy(task: Task, y: Any, f: Any, coding: Any) -> dict[str, float]:
    """Accuracy on the points of each class (recall of that class): the thesis' measure on an
    imbalanced class."""
    y = np.asarray(y)
    predicted = task.decode(f, coding)
    return {class_key(c): float(np.mean(predicted[y == c] == c)) if np.any(y == c)
            else float("nan") for c in task.classes(coding)}


def top_k_accuracy(k: int) -> Callable[[Task, Any, Any, Any], float]:
    """The fraction of points whose class is among the ``k`` classes of largest output (the
    outputs' columns are the sorted classes; ties broken by column order)."""

    def compute(task: Task, y: Any, f: Any, coding: Any) -> float:
        classes = task.classes(coding)
        f = np.asarray(f, dtype=np.float64)
        if f.ndim != 2 or f.shape[1] != len(classes):
            raise ValueError(f"top-{k} accuracy needs one output per class, (n, "
                             f"{len(classes)}); got {f.shape}")
        column = np.searchsorted(classes, np.asarray(y))
        if k >= len(classes):
            return 1.0
        best = np.argsort(-f, axis=1, kind="stable")[:, :k]
        return float(np.mean(np.any(best == column[:, None], axis=1)))

    return compute


#: The ``k`` of the registered top-k accuracies (``top_<k>_accuracy``).
TOP_K = (2, 3, 5, 10)

_MEASURES: Registry[Measure] = Registry("measure", lambda measure: measure.name)
#: Add a measure (a name once); remove one (a test's toy); the measure registered as a name
#: (else a ``ValueError`` naming the registered ones).
register_measure, unregister_measure, get_measure = (_MEASURES.register, _MEASURES.unregister,
                                                     _MEASURES.get)


def measure_names() -> list[str]:
    """Registered measure names, sorted."""
    return sorted(_MEASURES.names())


for _m in (
    Measure("rmse", "RMSE", "root mean squared error of the real-valued output (the papers' "
            "Table 2 measure, on ±1 targets for classification)", _rmse, fmt=".4g"),
    Measure("mse", "MSE", "mean squared error of the real-valued output (the square loss)",
            _mse, fmt=".4g"),
    Measure("error", "error", "classification error: the fraction of points whose predicted "
            "label is wrong", _error),
    Measure("hinge", "hinge loss", "hinge loss max(0, 1 − y f) of the output on the ±1 scale",
            _hinge),
    Measure("accuracy", "accuracy", "total accuracy: the fraction of points whose predicted "
            "label is right", _accuracy, lower_is_better=False),
    Measure("per_class_accuracy", "accuracy of class", "accuracy on the points of each class",
            _per_class_accuracy, lower_is_better=False, per_class="accuracy_class"),
    *(Measure(f"top_{k}_accuracy", f"top-{k} accuracy", f"the fraction of points whose class "
              f"is among the {k} of largest output (multiclass)", top_k_accuracy(k),
              lower_is_better=False, tasks=("multiclass",)) for k in TOP_K),
):
    register_measure(_m)
