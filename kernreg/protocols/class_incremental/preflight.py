"""Preflight of a class-incremental stream (thesis Section 7.6): every size checked against the
data and the memory budget before anything is written.

A trial draws, for every balanced class, the rows of ``n_bal`` training examples with every
``holdout_every``-th draw held out; the rows of the largest ``record_at`` of the streamed
class, again with its held-out draws; and ``n_test`` test rows of every class. Whichever class
the trial streams (``imbalanced_class: random`` may pick any), its rows must exist; the first
selection needs a validation example of a class with ``validation_min_examples`` training
examples; Nyström centres are drawn from the balanced training rows. The memory estimate counts
the arrays a trial holds at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from kernreg.backend import MemoryBudget
from kernreg.datasets import Dataset
from kernreg.errors import ConfigError
from kernreg.experiment.preflight import BudgetError, Estimate
from kernreg.protocols.class_incremental.config import SIZE_KEYS

if TYPE_CHECKING:
    from kernreg.protocols.class_incremental.config import ClassIncrementalConfig

__all__ = ["check_stream", "n_draws", "preflight", "stream_memory"]

_F64 = 8


def n_draws(n_train: int, every: int) -> int:
    """Fewest draws that leave ``n_train`` training examples when every ``every``-th is held
    out."""
    n = n_train + n_train // (every - 1)
    while n - n // every < n_train:
        n += 1
    return n


def _size_problems(cfg: ClassIncrementalConfig, y_train: np.ndarray, y_test: np.ndarray
                   ) -> list[str]:
    p = cfg.protocol
    every, n_bal, n_imb = p["holdout_every"], p["n_bal"], max(p["record_at"])
    classes, train_counts = np.unique(y_train, return_counts=True)
    test_counts = dict(zip(*np.unique(y_test, return_counts=True), strict=True))
    imb = p["imbalanced_class"]
    streamed = classes if imb == "random" else np.array([float(imb)])
    problems = []
    need_bal, need_imb = n_draws(n_bal, every), n_draws(n_imb, every)
    for c, count in zip(classes, train_counts, strict=True):
        balanced = imb == "random" or float(c) != float(imb)
        if balanced and need_bal > count:
            problems.append(f"protocol.n_bal: {n_bal} training examples with every "
                            f"{every}th draw held out take {need_bal} rows of each balanced "
                            f"class; class {c:g} has {count}")
        if c in streamed and need_imb > count:
            problems.append(f"protocol.record_at: its largest value, {n_imb}, with every "
                            f"{every}th draw held out takes {need_imb} rows of the streamed "
                            f"class; class {c:g} has {count}")
        if p["n_test"] > test_counts.get(c, 0):
            problems.append(f"protocol.n_test: {p['n_test']} test examples of every class; "
                            f"class {c:g} has {test_counts.get(c, 0)}")
    if need_bal // every < 1:
        problems.append(f"protocol.holdout_every: {every} leaves no validation example of the "
                        f"{need_bal} draws of a balanced class (n_bal = {n_bal}); at most "
                        f"{n_bal + 1}")
    first = max(n_bal, min(p["record_at"]))
    if p["validation_min_examples"] > first:
        problems.append(f"protocol.validation_min_examples: {p['validation_min_examples']} "
                        f"exceeds every class's training examples at the first selection "
                        f"(n_bal = {n_bal}, record_at from {min(p['record_at'])}); no class "
                        f"would count in the validation accuracy")
    features = cfg.model["features"]
    n_fit = n_bal * (classes.size - 1)
    if features["kind"] == "nystrom" and features["m"] > n_fit:
        problems.append(f"model.features.m: {features['m']} Nyström centres exceed the "
                        f"{n_fit} balanced training rows they are drawn from (n_bal × "
                        f"{classes.size - 1} classes)")
    return problems


def stream_memory(cfg: ClassIncrementalConfig, n_classes: int, d: int, data_bytes: int) -> Estimate:
    """Estimated peak bytes of one trial of ``cfg`` on ``n_classes`` classes of ``d`` inputs.

    Counted at once: the loaded data; the trial's rows, raw and mapped; the feature map; the
    incremental model's Cholesky factors (one ``D × D`` per λ) and weights; the validation and
    test scores of every λ; the rebalanced refit's Gram matrix, weighted rows and weights.
    """
    p, features = cfg.protocol, cfg.model["features"]
    L, T = cfg.lambdas.size, n_classes
    every = p["holdout_every"]
    D = d if features["kind"] == "linear" else features[SIZE_KEYS[features["kind"]]]
    bal = n_draws(p["n_bal"], every) * (T - 1)
    stream = n_draws(max(p["record_at"]), every)
    n_val = bal - p["n_bal"] * (T - 1) + stream // every
    n_test = p["n_test"] * T
    rows = bal + stream + n_test
    n_seen = p["n_bal"] * (T - 1) + max(p["record_at"])
    parts = {
        "data": data_bytes,
        "trial rows": rows * (d + D) * _F64,
        "factors (one D×D per λ)": L * D * D * _F64,
        "weights and scores": (2 * L * D * T + 2 * L * (n_val + n_test) * T) * _F64,
        "rebalanced refit": (2 * D * D + 2 * n_seen * D + L * D * T) * _F64,
    }
    if features["kind"] == "nystrom":
        m = features["m"]
        parts["feature map"] = (m * d + 2 * m * m + rows * m) * _F64
    elif features["kind"] != "linear":
        parts["feature map"] = (d + 2) * D * _F64  # frequencies and phases
    return Estimate(cfg.name, sum(parts.values()), parts)


def check_stream(cfg: ClassIncrementalConfig, X_train: Any, y_train: np.ndarray, X_test: Any,
                 y_test: np.ndarray) -> Estimate:
    """Refuse, before anything is written, a stream the data or the memory budget cannot hold.

    Raises
    ------
    ConfigError
        A size exceeds what the data have, naming the key, its value and the bound.
    BudgetError
        The estimated peak memory of a trial exceeds ``budget.memory_gb`` (capped by this
        machine's memory: :class:`~kernreg.backend.MemoryBudget`).
    """
    problems = _size_problems(cfg, y_train, y_test)
    if problems:
        where = f"{cfg.path}: " if cfg.path else ""
        raise ConfigError(where + "cannot run on these data:\n  " + "\n  ".join(problems))
    data_bytes = int(getattr(X_train, "nbytes", 0) + getattr(X_test, "nbytes", 0))
    est = stream_memory(cfg, np.unique(y_train).size, X_train.shape[1], data_bytes)
    memory = MemoryBudget.of_config(cfg.budget)
    if est.peak_bytes > memory.host:
        raise BudgetError(
            f"{cfg.name}: estimated peak memory exceeds the budget of {memory.describe()}:\n"
            f"  {est.describe()}\nNothing was run. Raise budget.memory_gb only if the machine "
            "has the memory.")
    return est


def preflight(cfg: ClassIncrementalConfig, data: Dataset) -> Estimate:
    """:func:`check_stream` on the dataset of the run."""
    return check_stream(cfg, data.X_train, data.y_train, data.X_test, data.y_test)
