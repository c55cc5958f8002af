"""SIGM: the stochastic incremental gradient method in the RKHS, many passes, the number of
epochs early-stopped on validation data (thesis Chapter 6, Table 6.2's "SIGM C" and "SIGM D")."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg._validation import check_choice, check_random_state
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.losses import get_loss
from kernreg.solvers.blocks.iterative import Iterations, IterativeEstimator
from kernreg.solvers.blocks.sgm_base import STOCHASTIC_SCHEMA, StochasticEstimator
from kernreg.solvers.blocks.stochastic import (
    ITERATES,
    ORDERINGS,
    KernelRows,
    PathOutputs,
    StepAverage,
    check_eval_rows,
    column_scorer,
    dual_pass,
    epoch_indices,
    kernel_memory,
    loss_step,
    step_sizes,
    stored_or_blocked,
)
from kernreg.solvers.blocks.stopping import DEFAULT_STOPPING_RULE, STOPPING
from kernreg.solvers.registry import AlgorithmSpec, MemoryProblem, register

__all__ = ["MultiPassSGM"]


class MultiPassSGM(StochasticEstimator, IterativeEstimator):
    """Multi-pass stochastic (incremental) (sub)gradient method in the RKHS, early-stopped.

    One iteration of the path is one epoch: ``n`` steps
    ``α_j ← α_j − η_t ℓ′(y_j, (Kα)_j)``, ``η_t = η t^(−θ)`` with ``t`` counting the steps of
    all epochs from 1. The visiting order is one permutation cycled over the epochs
    (``"cyclic"``, the authors' default), a new permutation per epoch (``"reshuffle"``) or
    i.i.d. uniform draws (``"iid"``). After every epoch the last iterate (``iterate="last"``,
    the authors' code) or the step-weighted average of every iterate so far (``"average"``,
    thesis Eq. 6.4: ``w̄_t = Σ_{k≤t} η_k w_k / Σ_{k≤t} η_k``, ``w_1 = 0``) is scored on the
    validation rows (``validation_measure``) and the scores feed kernreg's stopping rule; the
    selected epoch's iterate is kept (the authors keep the lowest validation error).

    A binary classifier: ``predict`` gives labels, ``decision_function`` the output ``Kα``.

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "linear"}, default "gaussian"
    sigma : float or "median", default "median"
        Kernel bandwidth; ``"median"``: the median distance between training rows (``sigma_``).
    loss : {"hinge", "square"}, default "hinge"
    step_size : float, optional
        η; default ``1/√n`` (n the fit rows; the thesis' constant choice, Table 6.2 "SIGM C").
    theta : float, default 0.0
        Decay exponent θ ∈ [0, 1] (Table 6.2 "SIGM D": η = 1/4, θ = 1/2).
    ordering : {"cyclic", "reshuffle", "iid"}, default "cyclic"
    iterate : {"last", "average"}, default "last"
    kink : {"authors", "zero"}, default "authors"
        Hinge subgradient at ``y f = 1``: ``−y`` (the authors) or 0.
    validation_measure : {"hinge", "error"}, default "hinge"
    max_iter : int, default 100
        Maximum epochs (exactly this many without validation data).
    stopping_rule, window, threshold, select
        See :mod:`kernreg.solvers.blocks.stopping`.
    refit : bool, default False
        After selecting the epoch, rerun that many epochs on training + validation rows.
    random_state : int, Generator or None
        Seeds the visiting order.
    dtype, memory_budget
        Kernel precision (float32 halves a stored ``K``) and bytes per block of kernel rows.
    max_memory : int, optional
        Bytes the stored kernels may take (default 2 GiB): ``K`` is stored, in visiting order,
        when its ``n²`` entries fit half of it, else its rows are evaluated every epoch.

    Attributes
    ----------
    classes_ (the two labels, sorted), alpha_, centers_, best_iter_ (the selected epoch),
    n_iter_, path_, step_size_, kernel_stored_
    """

    #: One pass per epoch at one step size, in the dual (``max_memory``).
    one_pass = False

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median", loss: str = "hinge",
                 step_size: float | None = None, theta: float = 0.0, ordering: str = "cyclic",
                 kink: str = "authors", validation_measure: str = "hinge", max_iter: int = 100,
                 stopping_rule: str = DEFAULT_STOPPING_RULE, window: int = 10,
                 threshold: float = 0.0, select: str | None = None, refit: bool = False,
                 random_state: Any = None, dtype: str = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET, max_memory: int | None = None,
                 iterate: str = "last"):
        self.kernel = kernel
        self.sigma = sigma
        self.loss = loss
        self.step_size = step_size
        self.theta = theta
        self.ordering = ordering
        self.iterate = iterate
        self.kink = kink
        self.validation_measure = validation_measure
        self.max_iter = max_iter
        self.stopping_rule = stopping_rule
        self.window = window
        self.threshold = threshold
        self.select = select
        self.refit = refit
        self.random_state = random_state
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.max_memory = max_memory

    def _check_own(self) -> None:
        check_choice(self.ordering, "ordering", ORDERINGS)
        check_choice(self.iterate, "iterate", ITERATES)
        theta = float(self.theta)
        if not 0.0 <= theta <= 1.0:
            raise ValueError(f"theta must be in [0, 1], got {self.theta!r}")

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None,
            X_eval: Any = None) -> MultiPassSGM:
        """Run the epochs; with validation data select the epoch by the stopping rule.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
            Labels of two classes (``classes_[1]`` fitted as +1, the other as −1).
        X_val, y_val : optional validation data (given together; ``y_val`` of ``y``'s classes)
        X_eval : array-like or sparse matrix of shape (n_eval, d), optional
            Rows (a test set) on which every epoch's iterate scored on validation data is
            evaluated (before any refit): ``eval_outputs_`` ``(n_iter_, 1, n_eval)``; no part
            in the selection. ``eval_seconds_``: the time this took (inside ``fit``'s).

        Returns
        -------
        self
        """
        self._eval_rows, self._eval = X_eval, None
        try:
            super().fit(X, y, X_val, y_val)
            if self._eval is not None:
                self.eval_outputs_ = self._eval.stacked(self.n_iter_)
                self.eval_seconds_ = self._eval.seconds
        finally:  # the stored test kernel goes with the fit
            del self._eval_rows, self._eval
        return self

    def _epochs(self, X: Any, y: np.ndarray) -> tuple[Any, float]:
        """The ``step`` closure (one epoch on (X, y)) and the η it uses."""
        n = X.shape[0]
        eta = float(self.step_size) if self.step_size is not None else 1.0 / np.sqrt(n)
        rng = check_random_state(self.random_state)
        first = rng.permutation(n)
        rows = KernelRows(self.kernel_, X, self._store(), None if self.ordering == "iid" else first)
        self.kernel_stored_ = rows.stored
        self._hold(lambda: setattr(rows, "K", None))
        grad = loss_step(get_loss(self.loss), self.kink)
        A = np.zeros((n, 1))
        average = StepAverage(A.shape) if self.iterate == "average" else None
        state = {"epoch": 0}

        def step() -> np.ndarray:
            epoch = state["epoch"]
            order = epoch_indices(n, epoch, self.ordering, rng, first)
            t = np.arange(epoch * n + 1, (epoch + 1) * n + 1)[:, None]
            steps = step_sizes(eta, self.theta, t)
            dual_pass(rows, order, y, A, steps, grad, average and average.weighted(steps))
            state["epoch"] = epoch + 1
            if average is None:
                return A[:, 0]
            return average.of(A, step_sizes(eta, self.theta, t[-1:] + 1)[0])[:, 0]

        return step, eta

    def _start_iterations(self, X: Any, y: np.ndarray, X_val: Any, y_val: Any) -> Iterations:
        step, self.step_size_ = self._epochs(X, y)
        self.centers_ = X
        if X_val is None:
            return Iterations(step)
        predict_val, _ = stored_or_blocked(self.kernel_, X_val, X, self._store())
        score = column_scorer(self.validation_measure, y_val)
        if self._eval_rows is not None:
            self._eval = PathOutputs.of_kernel(self.kernel_, check_eval_rows(self, self._eval_rows),
                                               X, self._store())

        def scored(coefs: np.ndarray) -> np.ndarray:
            if self._eval is not None:  # chunk 1: every iterate scored is on the path
                self._eval.record(coefs)
            return score(predict_val(coefs))

        return Iterations(step, scored, 1, self._refit_step)

    def _refit_step(self, X: Any, y: np.ndarray) -> Any:
        step, self.refit_step_size_ = self._epochs(X, y)
        self.centers_ = X
        return step

    def _fit_info(self) -> dict[str, Any]:
        return {"step_size": float(self.step_size_), "theta": float(self.theta),
                "epochs": float(self.n_iter_), "kernel_stored": bool(self.kernel_stored_)}


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    store = (params.get("max_memory") or problem.memory_limit) // 2
    return kernel_memory(problem.n_fit, problem.n_val, store, problem.itemsize)


register(AlgorithmSpec(
    name="sigm",
    estimator=MultiPassSGM,
    title="SIGM",
    order=91,
    schema={"max_iter": {"type": "integer", "minimum": 1}, "stopping": STOPPING,
            "step_size": {"type": "number", "exclusiveMinimum": 0},
            "theta": {"type": "number", "minimum": 0, "maximum": 1},
            "loss": {"enum": ["hinge", "square"]},
            "ordering": {"enum": list(ORDERINGS)}, "iterate": {"enum": list(ITERATES)},
            **STOCHASTIC_SCHEMA},
    config_defaults=("max_iter", "stopping", "theta", "loss", "ordering", "kink",
                     "validation_measure"),
    memory=_memory,
    tasks=("binary",),
    summary="multi-pass kernel SGM (hinge loss), epochs early-stopped on validation error",
))
