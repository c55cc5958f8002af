"""Losses ``V(y, f)`` of a real-valued prediction ``f`` against a target ``y``, and their
registry.

A loss is its class plus one :func:`register_loss` call; an algorithm that minimizes a loss
(the square loss today, the hinge loss for the stochastic gradient methods next) looks it up by
name. Values are averaged over the points; derivatives are pointwise (what a gradient step
needs: ``∇ (1/n) Σ V(y_i, f(x_i))`` is ``(1/n) Σ V'(y_i, f(x_i)) ∇f(x_i)``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from kernreg.registry import Registry

__all__ = ["Loss", "get_loss", "loss_names", "register_loss", "unregister_loss"]


def _pair(y: Any, f: Any) -> tuple[np.ndarray, np.ndarray]:
    """``y`` and ``f`` as float64 arrays of the same shape (``y`` 1-D broadcasts over the
    columns of a 2-D ``f``: one column per output)."""
    y = np.asarray(y, dtype=np.float64)
    f = np.asarray(f, dtype=np.float64)
    if y.shape[0] != f.shape[0]:
        raise ValueError(f"f has {f.shape[0]} rows but y has {y.shape[0]} (shape mismatch)")
    if f.ndim == 2 and y.ndim == 1:
        y = y[:, None]
    if y.shape != f.shape:
        raise ValueError(f"y has shape {y.shape}, f {f.shape}: they must match")
    return y, f


class Loss(ABC):
    """A loss ``V(y, f)``: subclasses set :attr:`name` and implement :meth:`pointwise` and
    :meth:`derivative`.

    With a 2-D ``f`` of shape ``(n, C)`` (C outputs, e.g. one-vs-all classes with ``y`` coded
    ±1 per column) the loss of a point is the sum over its outputs.
    """

    #: The registry name (in configs and records).
    name: ClassVar[str]
    #: One line for docs and ``--help``.
    description: ClassVar[str] = ""

    @abstractmethod
    def pointwise(self, y: np.ndarray, f: np.ndarray) -> np.ndarray:
        """``V(y_i, f_i)`` elementwise (same shape as ``f``)."""

    @abstractmethod
    def derivative(self, y: np.ndarray, f: np.ndarray) -> np.ndarray:
        """``∂V/∂f`` at each ``(y_i, f_i)`` (a subgradient where ``V`` is not differentiable),
        elementwise, not averaged."""

    def value(self, y: Any, f: Any) -> float:
        """The empirical risk ``(1/n) Σ_i V(y_i, f_i)`` (summed over outputs for a 2-D ``f``)."""
        y, f = _pair(y, f)
        values = self.pointwise(y, f)
        return float(values.sum() / y.shape[0])

    def gradient(self, y: Any, f: Any) -> np.ndarray:
        """The pointwise (sub)derivatives ``V'(y_i, f_i)`` of validated inputs."""
        y, f = _pair(y, f)
        return self.derivative(y, f)


_LOSSES: Registry[Loss] = Registry("loss", lambda loss: loss.name)
#: Add a loss (a name once); remove one (a test's toy); the loss registered as a name (else a
#: ``ValueError`` naming the registered ones).
register_loss, unregister_loss, get_loss = _LOSSES.register, _LOSSES.unregister, _LOSSES.get


def loss_names() -> list[str]:
    """Registered loss names, sorted."""
    return sorted(_LOSSES.names())
