"""The validation loop shared by the iterative solvers (ES / kernel Landweber and NYTRO)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kernreg.solvers._metrics import rmse
from kernreg.stopping import StoppingRule

__all__ = ["IterativePath", "prediction_rmse", "run_fixed", "run_validated"]


@dataclass
class IterativePath:
    """Outcome of :func:`run_validated`.

    Attributes
    ----------
    best_coef : ndarray
        Coefficients after iteration ``best_iter``.
    best_iter : int
        1-based iteration with the lowest validation RMSE up to the stop (first on ties).
    val_rmse : ndarray of shape (n_iter,)
        Validation RMSE after each iteration 1..n_iter.
    n_iter : int
        Iterations run.
    stopped : bool
        Whether the stopping rule fired (else ``max_iter`` was reached or the path diverged).
    diverged : bool
        Whether a non-finite validation error ended the path.
    """

    best_coef: np.ndarray
    best_iter: int
    val_rmse: np.ndarray
    n_iter: int
    stopped: bool
    diverged: bool

    def as_dict(self) -> dict[str, object]:
        """The record stored as ``path_`` on the estimator."""
        return {
            "iterations": np.arange(1, self.n_iter + 1),
            "val_rmse": self.val_rmse,
            "stopped": self.stopped,
            "diverged": self.diverged,
        }


def prediction_rmse(
    predict_val: Callable[[np.ndarray], np.ndarray], y_val: np.ndarray
) -> Callable[[np.ndarray], float]:
    """Validation RMSE of coefficients through explicit validation predictions."""
    return lambda coef: float(rmse(y_val, predict_val(coef)))


def run_validated(
    step: Callable[[], np.ndarray],
    val_rmse: Callable[[np.ndarray], float],
    rule: StoppingRule,
    max_iter: int,
) -> IterativePath:
    """Iterate ``step`` up to ``max_iter`` times, scoring every iterate on validation data.

    ``step()`` advances the solver and returns the current coefficients (it may return the same
    array object each time; the best iterate is copied); ``val_rmse(coef)`` is their validation
    RMSE. After each iteration the error is appended and ``rule`` is asked whether to stop. A
    non-finite error (divergent step size) also ends the loop.
    """
    errors: list[float] = []
    best_err, best_iter, best_coef = np.inf, 1, None
    stopped = diverged = False
    for t in range(1, max_iter + 1):
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported below
            coef = step()
            err = val_rmse(coef)
        errors.append(err)
        if err < best_err or best_coef is None:
            best_err, best_iter, best_coef = err, t, coef.copy()
        if not np.isfinite(err):
            diverged = True
            warnings.warn(
                f"validation error became non-finite at iteration {t}; the step size is too "
                "large for this kernel matrix (the path was stopped there)",
                RuntimeWarning,
                stacklevel=3,
            )
            break
        if rule.should_stop(errors):
            stopped = True
            break
    return IterativePath(
        best_coef=best_coef,
        best_iter=best_iter if np.isfinite(best_err) else 1,
        val_rmse=np.asarray(errors),
        n_iter=len(errors),
        stopped=stopped,
        diverged=diverged,
    )


def run_fixed(step: Callable[[], np.ndarray], n_iter: int) -> np.ndarray:
    """Run ``step`` exactly ``n_iter`` times and return (a copy of) the last coefficients."""
    coef = None
    for _ in range(n_iter):
        coef = step()
    return np.array(coef, copy=True)
