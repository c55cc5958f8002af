"""Losses and learning tasks: the loss an algorithm minimizes (square, hinge), and the task a
run solves (regression, binary or multiclass classification) with the error measures its
trials record, each in its registry."""

from kernreg.losses import binary, hinge, multiclass, regression, square  # noqa: F401 (register)
from kernreg.losses.loss import Loss, get_loss, loss_names, register_loss, unregister_loss
from kernreg.losses.measures import (
    Measure,
    class_key,
    get_measure,
    measure_names,
    register_measure,
    unregister_measure,
)
from kernreg.losses.task import (
    Task,
    default_task,
    get_task,
    register_task,
    task_names,
    unregister_task,
)

__all__ = [
    "Loss",
    "Measure",
    "Task",
    "class_key",
    "default_task",
    "get_loss",
    "get_measure",
    "get_task",
    "loss_names",
    "measure_names",
    "register_loss",
    "register_measure",
    "register_task",
    "task_names",
    "unregister_loss",
    "unregister_measure",
    "unregister_task",
]
