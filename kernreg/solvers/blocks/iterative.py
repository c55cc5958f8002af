"""The iteration loop of the iterative solvers (ES / kernel Landweber, NYTRO; PCG's stopping):
run, score on validation rows in chunks, feed the stopping rule, record the path."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from kernreg._validation import check_data, check_positive
from kernreg.progress import report
from kernreg.solvers.blocks.base import KernelEstimator
from kernreg.solvers.blocks.fit_inputs import intercept_of
from kernreg.solvers.blocks.holdout import refit_rows
from kernreg.solvers.blocks.knm import validation_knm
from kernreg.solvers.blocks.metrics import rmse
from kernreg.solvers.blocks.path_clock import FitClock, running_clock, timing_fit
from kernreg.solvers.blocks.stochastic import PathOutputs
from kernreg.solvers.blocks.stopping import STOPPING_RULES, StoppingRule

__all__ = [
    "VALIDATION_CHUNK",
    "Iterations",
    "IterativeEstimator",
    "IterativePath",
    "ended_at_cap",
    "prediction_rmse",
    "run_fixed",
    "run_validated",
    "shaped",
]

#: Bytes a stored test kernel ``K(X_eval, centers)`` may take without ``max_memory``.
EVAL_STORE_DEFAULT = 2**31

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
    last_coef : ndarray or None
        Coefficients after iteration ``n_iter``, the last one scored (a warm start for what
        follows: with chunks the solver itself may have stepped further).
    seconds : ndarray of shape (n_iter,)
        When each iteration's validation error became known, in seconds of the fit's clock
        (:class:`~kernreg.solvers.blocks.path_clock.FitClock`); the iterations of one chunk
        share the moment their chunk was scored (see :func:`run_validated`).
    """

    best_coef: np.ndarray
    best_iter: int
    val_rmse: np.ndarray
    n_iter: int
    stopped: bool
    diverged: bool
    last_coef: np.ndarray | None = None
    seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def as_dict(self) -> dict[str, object]:
        """The record stored as ``path_`` on the estimator."""
        return {
            "iterations": np.arange(1, self.n_iter + 1),
            "val_rmse": self.val_rmse,
            "seconds": self.seconds,
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
    done: Callable[[], bool] | None = None,
    speculate: bool = True,
    clock: Callable[[], float] | None = None,
) -> IterativePath:
    """Iterate ``step`` up to ``max_iter`` times, scoring every iterate on validation data.

    ``step()`` advances the solver and returns the current coefficients (it may return the same
    array object each time; iterates are copied). ``val_rmse(coefs)`` gives the validation RMSE
    of each column of ``coefs`` ``(m, c)``. The iterates are scored ``chunk`` at a time, so that
    validation products read their kernel once per chunk (one GEMM instead of ``chunk`` GEMVs, or
    one re-evaluation of a blocked kernel); the errors are then handed to ``rule`` one by one
    exactly as without chunks, so the result does not depend on ``chunk`` — only up to
    ``chunk − 1`` iterations past the stop are computed in vain. With ``speculate=False`` (for
    solvers whose steps cost more than a validation read, e.g. CG) a chunk holds only
    iterates that cannot end the loop before its last one: while the rule's window is not yet
    full, or all along for a rule that never fires (``"none"``), so no step is wasted on the
    rule. A non-finite error (divergent step size) also ends the loop, and so does ``done()``
    (checked before each step: e.g. a solver that converged). The returned iterate is the one
    ``rule.select`` reports; with no iteration run, ``best_coef`` is None and ``n_iter`` 0.

    Each iteration's error is stamped with ``clock()`` (default: the clock of the fit running,
    :func:`~kernreg.solvers.blocks.path_clock.running_clock`, else one started here) read when
    its chunk's scoring returned — the moment that error became known. The iterations of one
    chunk therefore share one time, that of the chunk's last step and its scoring: the seconds
    are a staircase of ``chunk`` iterations a step, and iteration t's time includes the steps
    t+1… of its chunk (at most ``chunk − 1``), stepped before it was scored.
    """
    if clock is None:
        clock = running_clock() or FitClock()
    errors: list[float] = []
    seconds: list[float] = []
    best_err, best_iter, best_coef = np.inf, 1, None
    stopped = diverged = False
    buffer: np.ndarray | None = None
    t = 0
    fires = STOPPING_RULES[rule.name] is not None
    while t < max_iter and not (stopped or diverged):
        if done is not None and done():
            break
        size = min(chunk, max_iter - t)
        if not speculate and fires:
            size = min(size, max(1, rule.window - t))  # the rule fires at ≥ window errors
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported below
            for j in range(size):
                if j and done is not None and done():
                    size = j
                    break
                coef = step()
                if buffer is None:
                    buffer = np.empty((coef.shape[0], chunk), dtype=coef.dtype)
                buffer[:, j] = coef
            chunk_errors = np.asarray(val_rmse(buffer[:, :size]), dtype=np.float64)
        known_at = clock()  # one reading a chunk: the cost of a call, not of an iteration
        for j, err in enumerate(chunk_errors):
            t += 1
            errors.append(float(err))
            seconds.append(known_at)
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
        report("iteration {}/{}, validation {:.4g}", t, max_iter, errors[-1])
    last_coef = buffer[:, j].copy() if errors else None
    if rule.select == "stop" and errors and not diverged:
        # the last iterate scored: the one at which the rule fired, or iteration max_iter
        best_err, best_iter, best_coef = errors[-1], t, last_coef.copy()
    return IterativePath(
        best_coef=best_coef,
        best_iter=best_iter if np.isfinite(best_err) else 1,
        val_rmse=np.asarray(errors),
        n_iter=len(errors),
        stopped=stopped,
        diverged=diverged,
        last_coef=last_coef,
        seconds=np.asarray(seconds, dtype=np.float64),
    )


def shaped(coef: np.ndarray, y: np.ndarray) -> np.ndarray:
    """An iterate as the model keeps it: ``(m, k)`` for the k columns of a 2-D ``y`` (the loop
    carries them raveled), else as it is."""
    return coef.reshape(-1, y.shape[1]) if y.ndim == 2 else coef


def ended_at_cap(selected: float, n_iter: int, stopped: bool, diverged: bool) -> bool:
    """Whether a validated iteration path selected its last iteration because it ran out of
    iterations: neither the stopping rule nor a divergence ended it, and the selection is
    the last iterate — more iterations might have selected a later, better one."""
    return bool(n_iter) and not stopped and not diverged and int(selected) == n_iter


def run_fixed(step: Callable[[], np.ndarray], n_iter: int) -> np.ndarray:
    """Run ``step`` exactly ``n_iter`` times and return (a copy of) the last coefficients."""
    coef = None
    for _ in range(n_iter):
        coef = step()
    return np.array(coef, copy=True)


@dataclass
class Iterations:
    """What an iterative estimator hands the loop (see :class:`IterativeEstimator`).

    Attributes
    ----------
    step : callable
        Advances the solver on the fit rows and returns the current coefficients.
    val_rmse : callable or None
        Validation RMSE of coefficient columns (see :func:`run_validated`); None without
        validation data.
    chunk : int
        Iterates scored together.
    refit : callable or None
        ``refit(X, y)``: the step on training + validation rows, for a refit.
    """

    step: Callable[[], np.ndarray]
    val_rmse: Callable[[np.ndarray], np.ndarray] | None = None
    chunk: int = 1
    refit: Callable[[Any, np.ndarray], Callable[[], np.ndarray]] | None = None


class IterativeEstimator(KernelEstimator):
    """Base of the estimators whose validated path runs over iterations (``max_iter``, a
    stopping rule and ``refit`` parameters): the iteration loop, written once.

    ``fit`` asks :meth:`_start_iterations` for the step of the fit rows (and the scorer of the
    validation rows, and the refit's step); iterates ``max_iter`` times without validation
    data, else scores every iterate and stops by the rule (:func:`run_validated`) and records
    ``path_`` (with ``"seconds"``: when each iteration's error was known, counted from the
    start of ``fit``); and, when ``refit``, reruns ``best_iter_`` steps on training +
    validation rows.
    Kernel arrays and row strategies registered with :meth:`_hold` are closed when the fit
    ends, or after each phase when :attr:`hand_on_each_phase` says so. Subclasses have the
    parameters ``max_iter``, ``stopping_rule``, ``window``, ``threshold``, ``select``,
    ``refit`` and ``step_size``.
    """

    path_parameter = "iterations"
    #: Close what the fit rows held before the refit builds its own (a peak of one kernel
    #: matrix, not two).
    hand_on_each_phase: ClassVar[bool] = False

    def check_params(self) -> None:
        super().check_params()
        self._check_max_iter()
        self._check_rule()
        self._check_refit()
        check_positive(self.step_size, "step_size", allow_none=True)

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None,
            X_eval: Any = None) -> Any:
        """Run the iteration; with validation data select t* by the stopping rule.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
        X_val, y_val : optional validation data (given together)
        X_eval : array-like or sparse matrix of shape (n_eval, d), optional
            Rows (a test set) on which every iterate scored on validation data is evaluated
            (before any refit; one output): ``eval_outputs_`` ``(n_iter_, 1, n_eval)``, no
            part in the selection; ``eval_seconds_`` the time this took, left out of the
            path's times.

        Returns
        -------
        self
        """
        with timing_fit(self._excluded_seconds):  # the path's times count from here
            X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
            if X_eval is not None:
                X_eval = check_data(X_eval, "X_eval", estimator=self, reset=False)
                if y.ndim == 2:
                    raise ValueError("X_eval (a test path) is evaluated for one output; y "
                                     f"has {y.shape[1]} columns")
            self._held: list[Callable[[], Any]] = []
            self._test_path: PathOutputs | None = None
            try:
                self._iterate(X, y, X_val, y_val, X_eval)
                if self._test_path is not None:
                    self.eval_outputs_ = self._test_path.stacked(self.n_iter_)
                    self.eval_seconds_ = self._test_path.seconds
            finally:  # nothing of the rows outlives the fit (alpha_ is its own array)
                self._hand_on()
                del self._held, self._test_path
        return self

    def _excluded_seconds(self) -> float:
        """Seconds this fit has spent so far on what is not model selection (a test path
        evaluated inside the loop), left out of the path's times."""
        outputs = getattr(self, "_test_path", None)
        return 0.0 if outputs is None else float(outputs.seconds)

    def _scored_with_test_path(self, score: Callable[[np.ndarray], np.ndarray],
                               X_eval: Any) -> Callable[[np.ndarray], np.ndarray]:
        """``score`` that also evaluates each iterate it scores on ``X_eval`` (the dual model
        ``K(X_eval, centers_) @ coef + intercept``), timed apart."""
        store = getattr(self, "max_memory", None)
        store = EVAL_STORE_DEFAULT if store is None else int(store) // 4
        outputs = PathOutputs.of_kernel(self.kernel_, X_eval, self.centers_, store)
        shift, dual = float(np.ravel(intercept_of(self))[0]), outputs.predict
        outputs.predict = lambda coefs: dual(coefs) + shift
        self._test_path = outputs

        def scored(coefs: np.ndarray) -> np.ndarray:
            outputs.record(coefs)
            return score(coefs)

        return scored

    def _iterate(self, X: Any, y: np.ndarray, X_val: Any, y_val: Any,
                 X_eval: Any = None) -> None:
        max_iter = self._check_max_iter()
        rule = self._check_rule()
        refit = self._check_refit()
        it = self._start_iterations(X, y, X_val, y_val)
        if X_val is None:
            self.alpha_ = shaped(run_fixed(it.step, max_iter), y)
            self.best_iter_ = self.n_iter_ = max_iter
            self.path_ = None
            self.stopped_at_cap_ = False  # max_iter iterations are the regularization asked for
            return
        score = it.val_rmse if X_eval is None else \
            self._scored_with_test_path(it.val_rmse, X_eval)
        res = run_validated(it.step, score, rule, max_iter, it.chunk)
        self.best_iter_, self.n_iter_, self.path_ = res.best_iter, res.n_iter, res.as_dict()
        self.stopped_at_cap_ = ended_at_cap(res.best_iter, res.n_iter, res.stopped, res.diverged)
        self.path_["stopped_at_cap"] = self.stopped_at_cap_
        if self.stopped_at_cap_:
            warnings.warn(
                f"{type(self).__name__} selected its last iteration, max_iter={max_iter}: the "
                "validation error was still falling there and the stopping rule had not fired; "
                "raise max_iter" + (" or use acceleration='nu'"
                                    if "acceleration" in self.get_params() else ""),
                ConvergenceWarning, stacklevel=3)
        self.alpha_ = shaped(res.best_coef, y)
        if self.hand_on_each_phase:
            self._hand_on()  # the path's iterates are arrays of their own
        if refit:
            step = it.refit(*refit_rows(X, y, X_val, y_val))
            self.alpha_ = shaped(run_fixed(step, self.best_iter_), y)

    def _start_iterations(self, X: Any, y: np.ndarray, X_val: Any, y_val: Any) -> Iterations:
        """The step on the fit rows, the validation scorer (with validation data) and the
        refit's step."""
        raise NotImplementedError

    def _dual_iterations(self, make_step: Callable[[Any, np.ndarray], Callable[[], np.ndarray]],
                         X: Any, y: np.ndarray, X_val: Any, y_val: Any) -> Iterations:
        """:class:`Iterations` of a host model over the fit rows: ``make_step(X, y)`` for the
        fit (and the refit) rows, every iterate scored on ``K(X_val, X)`` (stored within a
        quarter of ``max_memory``, else re-evaluated; closed with the fit)."""
        step = make_step(X, y)
        if X_val is None:
            return Iterations(step)
        val_knm = validation_knm(self.kernel_, X_val, X, getattr(self, "max_memory", None))
        self._hold(val_knm.close)
        return Iterations(step, prediction_rmse(val_knm.matvec, y_val), 1, make_step)

    def _hold(self, close: Callable[[], Any]) -> None:
        """Call ``close`` when the fit (or, see :attr:`hand_on_each_phase`, its phase) ends."""
        self._held.append(close)

    def _hand_on(self) -> None:
        for close in self._held:
            close()
        self._held.clear()
