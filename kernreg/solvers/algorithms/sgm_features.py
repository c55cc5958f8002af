"""SGM on random Fourier features: the primal, scalable variant of ``sgm`` (one pass, the step
size selected over the same guesses), for n beyond what the dual's kernel rows allow."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg._validation import check_choice, check_int, check_random_state
from kernreg.features import RandomFourierFeatures
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.losses import get_loss
from kernreg.solvers.blocks.fit_inputs import sigma_value
from kernreg.solvers.blocks.sgm_base import ONE_PASS_SCHEMA, STOCHASTIC_SCHEMA, StochasticEstimator
from kernreg.solvers.blocks.stochastic import (
    PathOutputs,
    check_eval_rows,
    column_scorer,
    guess_passes,
    loss_step,
    primal_pass,
)
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["FeatureSGM"]


class FeatureSGM(StochasticEstimator):
    """One-pass SGM in the primal of ``D`` random Fourier features ``z(x)`` (``z·z' ≈ k``).

    A binary classifier: ``predict`` gives labels, ``decision_function`` the output ``z(x)·w``.

    ``w = 0``; for ``t = 1..n``: ``w ← w − η_t ℓ′(y_j, w·z_j) z_j``, ``η_t = η t^(−θ)``, the
    rows in one random permutation: the dual ``sgm`` with ``K`` replaced by ``ZZᵀ``. Memory
    ``O(D·guesses)`` besides one block of features; a step costs ``O(D·guesses)`` whatever n.
    The guesses, ``passes`` and the selection are those of ``sgm`` (30 η on a log grid in
    [1e-3, 1] with θ = 0, or η = ``eta`` with 30 θ in [0, 1]).

    Parameters
    ----------
    kernel : {"gaussian"}, default "gaussian"
    sigma : float or "median", default "median"
        Kernel bandwidth; ``"median"``: the median distance between training rows (``sigma_``).
    n_components : int, default 1000
        Number of features ``D`` (a config's earlier ``n_features`` is read as it).
    loss, schedule, etas, thetas, eta, theta, passes, kink, validation_measure
        As :class:`~kernreg.solvers.algorithms.sgm.OnePassSGM`.
    random_state : int, Generator or None
        Seeds the features and the order.
    dtype, memory_budget
        Bytes per block of features.

    Attributes
    ----------
    classes_ : ndarray of shape (2,), the labels, sorted
    coef_ : ndarray of shape (D,)
        Weights of the scaled features ``z = ψ/√D``.
    best_param_, best_pass_, path_, feature_map_
    """

    path_parameter = "step"
    #: In the primal of the features: no kernel is stored (no ``max_memory``).
    dual = False

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median",
                 n_components: int = 1000,
                 loss: str = "hinge", schedule: str = "constant", etas: Any = None,
                 thetas: Any = None, eta: float = 0.25, theta: float = 0.5, passes: int = 1,
                 kink: str = "authors", validation_measure: str = "hinge",
                 random_state: Any = None, dtype: str = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET):
        self.kernel = kernel
        self.sigma = sigma
        self.n_components = n_components
        self.loss = loss
        self.schedule = schedule
        self.etas = etas
        self.thetas = thetas
        self.eta = eta
        self.theta = theta
        self.passes = passes
        self.kink = kink
        self.validation_measure = validation_measure
        self.random_state = random_state
        self.dtype = dtype
        self.memory_budget = memory_budget

    def _check_model(self) -> None:
        check_choice(self.kernel, "kernel", ("gaussian",))
        check_int(self.n_components, "n_components", minimum=1)

    def _z(self, X: Any) -> np.ndarray:
        return self.feature_map_.transform(X) * self.feature_map_.scale

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None,
            X_eval: Any = None) -> FeatureSGM:
        """Run the pass for every guess (with validation data) and keep the best.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
            Labels of two classes (``classes_[1]`` fitted as +1, the other as −1).
        X_val, y_val : optional validation data (given together; ``y_val`` of ``y``'s classes)
        X_eval : array-like or sparse matrix of shape (n_eval, d), optional
            Rows (a test set) on which every guess' model is evaluated: with validation data,
            ``eval_outputs_`` ``(n_guesses, 1, n_eval)``, in the order of ``path_["values"]``;
            no part in the selection. ``eval_seconds_``: the time this took (inside ``fit``'s).

        Returns
        -------
        self
        """
        X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
        X_eval = check_eval_rows(self, X_eval)
        n, D = X.shape[0], int(self.n_components)
        rng = check_random_state(self.random_state)
        self.feature_map_ = RandomFourierFeatures(D, sigma_value(self),
                                                  random_state=rng).draw(X.shape[1])
        order = rng.permutation(n)
        etas, thetas = self._guess_steps(X_val is not None)
        grad = loss_step(get_loss(self.loss), self.kink)
        block = max(1, int(self.memory_budget) // (8 * D))
        score = None
        if X_val is not None:
            measure = column_scorer(self.validation_measure, y_val)
            score = lambda W: measure(self._z(X_val) @ W)  # noqa: E731
        W, scores, passes = guess_passes(
            lambda W, steps: primal_pass(lambda idx: self._z(X[idx]), order, block, y, W,
                                         steps, grad), n, D, etas, thetas,
            check_int(self.passes, "passes", minimum=1), score)
        self.coef_ = self._select_guess(W, scores, passes, X_val is not None)
        if X_eval is not None and X_val is not None:
            self.eval_outputs_, self.eval_seconds_ = PathOutputs(
                lambda W: self._z(X_eval) @ W).of_columns(W)
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """The real-valued output ``z(X) @ coef_``: positive for ``classes_[1]``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        X = self._check_predict_data(X, "coef_")
        return self._z(X) @ self.coef_

    def _fit_info(self) -> dict[str, Any]:
        return {"schedule": self.schedule, "n_components": float(self.n_components),
                "best_pass": float(self.best_pass_)}


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    D = int(params.get("n_components", 1000))
    return {"weights (one column per guess)": D * 30 * F64,
            "validation features": problem.n_val * D * F64}


register(AlgorithmSpec(
    name="sgm_rf",
    estimator=FeatureSGM,
    title="SGM (random features)",
    order=92,
    schema={"n_components": {"type": "integer", "minimum": 1}, **ONE_PASS_SCHEMA,
            **STOCHASTIC_SCHEMA},
    config_defaults=("n_components", "schedule", "eta", "passes", "loss", "kink",
                     "validation_measure"),
    memory=_memory,
    tasks=("binary",),
    summary="one-pass SGM (hinge loss) on random Fourier features, step size by validation",
))
