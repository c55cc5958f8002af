"""The base of the stochastic-gradient estimators (``sgm``, ``sigm``, ``sgm_rf``): their
parameter checks, the kernels' memory allowance and the one-pass estimators' step-size guesses,
written once (the passes themselves are :mod:`kernreg.solvers.blocks.stochastic`'s)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from kernreg._validation import check_choice, check_int, check_positive, check_random_state
from kernreg.solvers.blocks.classifier import BinaryKernelClassifier
from kernreg.solvers.blocks.path_clock import FitClock
from kernreg.solvers.blocks.stochastic import (
    DEFAULT_ETAS,
    DEFAULT_THETAS,
    KINKS,
    SCHEDULES,
    VALIDATION_MEASURES,
    check_stochastic,
    guess_grid,
    guess_steps,
)

__all__ = ["ONE_PASS_SCHEMA", "STOCHASTIC_SCHEMA", "STORE_DEFAULT", "StochasticEstimator"]

#: Default allowance for the stored kernels when no ``max_memory`` is given.
STORE_DEFAULT = 2**31
#: Config schema of the one-pass estimators' step-size guesses and loss.
ONE_PASS_SCHEMA = {
    "schedule": {"enum": list(SCHEDULES)},
    "etas": {"type": "array", "minItems": 1, "items": {"type": "number", "exclusiveMinimum": 0}},
    "thetas": {"type": "array", "minItems": 1,
               "items": {"type": "number", "minimum": 0, "maximum": 1}},
    "eta": {"type": "number", "exclusiveMinimum": 0},
    "passes": {"type": "integer", "minimum": 1},
    "loss": {"enum": ["hinge", "square"]},
}
#: Config schema of every stochastic estimator's hinge kink and validation measure.
STOCHASTIC_SCHEMA = {"kink": {"enum": list(KINKS)},
                     "validation_measure": {"enum": list(VALIDATION_MEASURES)}}


class StochasticEstimator(BinaryKernelClassifier):
    """Base of the stochastic-gradient estimators: what their parameters share.

    They are binary classifiers
    (:class:`~kernreg.solvers.blocks.classifier.BinaryKernelClassifier`): any two labels,
    fitted as ±1 margins (whatever ``loss``); ``decision_function`` is the real-valued output,
    ``predict`` the label.

    Every one has ``loss``, ``kink``, ``validation_measure`` and ``random_state``; the dual ones
    (:attr:`dual`) ``max_memory``; the one-pass ones (:attr:`one_pass`) the step-size guesses
    ``schedule``, ``etas``, ``thetas``, ``eta``, ``theta`` and ``passes``. :meth:`check_params`
    checks, in this order: the kernel (and what the base classes after this one check), the
    estimator's model (:meth:`_check_model`), loss, kink and measure, the schedule, the
    estimator's own steps and visiting order (:meth:`_check_own`), ``eta``, ``passes``,
    ``theta``, ``max_memory``, the seed and the guesses. An iterative estimator puts this class
    before :class:`~kernreg.solvers.blocks.iterative.IterativeEstimator` among its bases.
    """

    #: Whether the estimator runs in the dual on stored or re-evaluated kernels (``max_memory``).
    dual: ClassVar[bool] = True
    #: Whether the estimator runs one pass per step-size guess (``schedule``, ``etas``, ...).
    one_pass: ClassVar[bool] = True

    def check_params(self) -> None:
        super().check_params()
        self._check_model()
        check_stochastic(self.loss, self.kink, self.validation_measure)
        if self.one_pass:
            check_choice(self.schedule, "schedule", SCHEDULES)
        self._check_own()
        if self.one_pass:
            check_positive(self.eta, "eta")
            check_int(self.passes, "passes", minimum=1)
            guess_grid(self.theta, DEFAULT_THETAS, "theta", theta=True)
        if self.dual:
            check_positive(self.max_memory, "max_memory", allow_none=True)
        check_random_state(self.random_state)
        if self.one_pass:
            self._grid()

    def _start_fit(self, X: Any, y: Any, X_val: Any, y_val: Any) -> tuple[Any, ...]:
        """The base classes' checks; a one-pass estimator's clock starts here (its guesses'
        times, :meth:`_select_guess`)."""
        if self.one_pass:
            self._fit_clock = FitClock()
        return super()._start_fit(X, y, X_val, y_val)

    def _excluded_seconds(self) -> float:
        """A multi-pass fit's test-path evaluation so far (``MultiPassSGM`` keeps its
        :class:`~kernreg.solvers.blocks.stochastic.PathOutputs` in ``_eval``): left out of
        the path's times."""
        outputs = getattr(self, "_eval", None)
        return 0.0 if outputs is None else float(outputs.seconds)

    def _check_model(self) -> None:
        """The estimator's own model parameters (checked before the loss)."""

    def _check_own(self) -> None:
        """The estimator's own step-size and visiting-order parameters (checked after the
        schedule)."""

    def _store(self) -> int:
        """Bytes each stored kernel (``K``, and the validation or test kernel) may take: half
        of ``max_memory``."""
        return (STORE_DEFAULT if self.max_memory is None else int(self.max_memory)) // 2

    def _grid(self) -> np.ndarray:
        """The guesses: η values (constant) or θ values (decaying)."""
        if self.schedule == "constant":
            return guess_grid(self.etas, DEFAULT_ETAS, "etas", theta=False)
        return guess_grid(self.thetas, DEFAULT_THETAS, "thetas", theta=True)

    def _guess_steps(self, validated: bool) -> tuple[np.ndarray, np.ndarray]:
        """``(etas, thetas)`` of the guesses (see
        :func:`~kernreg.solvers.blocks.stochastic.guess_steps`): the grid with validation
        data, the single ``(eta, theta)`` without."""
        return guess_steps(self.schedule, self._grid() if validated else None, self.eta,
                           self.theta)

    def _select_guess(self, coefs: np.ndarray, scores: np.ndarray, passes: np.ndarray,
                      validated: bool) -> np.ndarray:
        """The kept guess' coefficients (a copy of its column of ``coefs``): the lowest score
        (first on ties) with validation data, the only one without. Sets ``best_param_``,
        ``best_pass_`` and ``path_``, whose ``"seconds"`` is the moment of the selection for
        every guess: the guesses run their passes together, their errors known together."""
        best = int(np.argmin(scores)) if validated else 0
        self.best_pass_ = int(passes[best])
        clock = self.__dict__.pop("_fit_clock", None)
        if validated:
            self.best_param_ = float(self._grid()[best])
            known_at = clock() if clock is not None else np.nan
            self.path_ = {"values": self._grid(), "val_rmse": scores,
                          "seconds": np.full(np.shape(scores), known_at)}
        else:
            self.best_param_ = float(self.eta if self.schedule == "constant" else self.theta)
            self.path_ = None
        return coefs[:, best].copy()
