"""The validation loop shared by the iterative solvers (ES / kernel Landweber and NYTRO)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kernreg.solvers.blocks.metrics import rmse
from kernreg.solvers.blocks.stopping import StoppingRule

__all__ = [
    "VALIDATION_CHUNK",
    "IterativePath",
    "prediction_rmse",
    "run_fixed",
    "run_validated",
]

#: Iterates scored together when validation predictions read a stored or re-evaluated kernel
#: block: one read/evaluation per chunk, and at most ``chunk − 1`` iterations past the stop
#: computed in vain (see :func:`run_validated`).
VALIDATION_CHUNK = 10


@dataclass
class IterativePath:
    """Outcome of :func:`run_validated`.

    Attributes
    ----------
    best_coef : ndarray
        Coefficients after iteration ``best_iter``.
    best_iter : int
        The reported iteration t*: the stopping rule's ``select`` picks the lowest validation
        RMSE up to the stop (first on ties) or the iteration at which the rule fired (the last
        one run when it never fired; the lowest error when the path diverged).
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
) -> Callable[[np.ndarray], np.ndarray]:
    """Validation RMSE of coefficient columns ``(m, c)`` through explicit predictions."""
    return lambda coefs: np.atleast_1d(rmse(y_val, predict_val(coefs)))


def run_validated(
    step: Callable[[], np.ndarray],
    val_rmse: Callable[[np.ndarray], np.ndarray],
    rule: StoppingRule,
    max_iter: int,
    chunk: int = 1,
) -> IterativePath:
    """Iterate ``step`` up to ``max_iter`` times, scoring every iterate on validation data.

    ``step()`` advances the solver and returns the current coefficients (it may return the same
    array object each time; iterates are copied). ``val_rmse(coefs)`` gives the validation RMSE
    of each column of ``coefs`` ``(m, c)``. The iterates are scored ``chunk`` at a time, so that
    validation products read their kernel once per chunk (one GEMM instead of ``chunk`` GEMVs, or
    one re-evaluation of a blocked kernel); the errors are then handed to ``rule`` one by one
    exactly as without chunks, so the result does not depend on ``chunk`` — only up to
    ``chunk − 1`` iterations past the stop are computed in vain. A non-finite error (divergent
    step size) also ends the loop. The returned iterate is the one ``rule.select`` reports.
    """
    errors: list[float] = []
    best_err, best_iter, best_coef = np.inf, 1, None
    stopped = diverged = False
    buffer: np.ndarray | None = None
    t = 0
    while t < max_iter and not (stopped or diverged):
        size = min(chunk, max_iter - t)
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported below
            for j in range(size):
                coef = step()
                if buffer is None:
                    buffer = np.empty((coef.shape[0], chunk), dtype=coef.dtype)
                buffer[:, j] = coef
            chunk_errors = np.asarray(val_rmse(buffer[:, :size]), dtype=np.float64)
        for j, err in enumerate(chunk_errors):
            t += 1
            errors.append(float(err))
            if err < best_err or best_coef is None:
                best_err, best_iter, best_coef = err, t, buffer[:, j].copy()
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
    if rule.select == "stop" and errors and not diverged:
        # the last iterate scored: the one at which the rule fired, or iteration max_iter
        best_err, best_iter, best_coef = errors[-1], t, buffer[:, j].copy()
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
