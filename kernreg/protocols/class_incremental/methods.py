"""The methods a class-incremental stream compares, one registration each.

At every checkpoint (``n_imb`` examples of the new class streamed) a method sees the state the
stream shares (:class:`Checkpoint`: the incremental model, the validation rows, every row seen
so far) and decides the test scores it reports, with the λ (and α) it selected on the
validation rows of the well-represented classes:

* **N** — incremental RLSC, λ selected, no recoding;
* **RC** — Algorithm 7.1: the same model recoded by ``Γ^α``, α and λ selected;
* **RB** — the rebalanced batch RLS (7.22), refit from scratch on everything seen so far.

A new method is one :func:`register_method` call with its :class:`StreamMethod`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kernreg.registry import Registry
from kernreg.solvers.blocks.rlsc import (
    IncrementalRLSC,
    RebalancedRLS,
    select_lambda,
    select_recoding,
)

__all__ = ["Checkpoint", "Decision", "StreamMethod", "get_method", "method_names",
           "register_method", "unregister_method"]


@dataclass
class Checkpoint:
    """What the methods see when ``n_imb`` examples of the new class have been learned.

    ``val_scores`` and ``test_scores`` are the incremental model's scores at α = 0, shape
    (λ, rows, classes), columns in ``model.classes_`` order; ``y_col`` the validation rows'
    column in that order; ``mask`` the validation rows of the classes that count.
    """

    model: IncrementalRLSC
    lambdas: np.ndarray
    alphas: list[float]
    val_scores: np.ndarray
    test_scores: np.ndarray
    y_col: np.ndarray
    mask: np.ndarray
    X_val: np.ndarray
    X_test: np.ndarray
    X_seen: np.ndarray
    y_seen: np.ndarray


@dataclass
class Decision:
    """A method's test scores (rows, classes; ``model.classes_`` order), the index of its λ,
    its α, and the seconds its own work took beyond the shared model's update."""

    test_scores: np.ndarray
    lam: int
    alpha: float
    seconds: float = 0.0


@dataclass(frozen=True)
class StreamMethod:
    """One method of the stream: its name in configs and records, its title in tables, its
    legend and line style in figures, and how it decides at a checkpoint."""

    name: str
    title: str
    legend: str
    colour: str
    line: str
    decide: Callable[[Checkpoint], Decision]


def _naive(point: Checkpoint) -> Decision:
    lam, _ = select_lambda(point.val_scores, point.y_col, point.mask)
    return Decision(point.test_scores[lam], lam, 0.0)


def _recoded(point: Checkpoint) -> Decision:
    start = time.perf_counter()
    gamma = point.model.recoding(1.0)
    alpha, lam, _ = select_recoding(point.val_scores, gamma, point.alphas, point.y_col,
                                    point.mask)
    return Decision(point.test_scores[lam] * gamma**alpha, lam, alpha,
                    time.perf_counter() - start)


def _rebalanced(point: Checkpoint) -> Decision:
    start = time.perf_counter()
    rb = RebalancedRLS(point.lambdas).fit(point.X_seen, point.y_seen,
                                          classes=point.model.classes_)
    seconds = time.perf_counter() - start
    lam, _ = select_lambda(rb.decision_function(point.X_val), point.y_col, point.mask)
    return Decision(rb.decision_function(point.X_test)[lam], lam, 1.0, seconds)


_METHODS: Registry[StreamMethod] = Registry("stream method", lambda m: m.name)


#: Keys of a trial's record that no method may take.
_RESERVED = ("attrs", "record_at", "update_seconds", "method_seconds")


def register_method(method: StreamMethod) -> StreamMethod:
    """Add ``method``: configs may list it in ``methods``, tables and figures show it."""
    if method.name in _RESERVED:
        raise ValueError(f"stream method {method.name!r}: a key of the trial records")
    return _METHODS.register(method)


def unregister_method(name: str) -> None:
    """Remove the method registered as ``name`` (a test's toy)."""
    _METHODS.unregister(name)


def get_method(name: str) -> StreamMethod:
    return _METHODS.get(name)


def method_names() -> list[str]:
    """Registered methods, in registration order (the tables' column order)."""
    return _METHODS.names()


register_method(StreamMethod("N", "incremental RLSC (N)", "RLSC (N)", "tab:red", "-", _naive))
register_method(StreamMethod("RB", "rebalanced batch RLS (RB)", "RB (batch, rebalanced)",
                             "0.45", "--", _rebalanced))
register_method(StreamMethod("RC", "Algorithm 7.1, recoding (RC)", "Alg. 7.1 (RC)",
                             "tab:blue", "-", _recoded))
