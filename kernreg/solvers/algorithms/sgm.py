"""SGM: one pass of the stochastic gradient method in the RKHS, its step size selected on
validation data over a grid of guesses (thesis Chapter 6, Table 6.2's "SGM C" and "SGM D")."""

from __future__ import annotations

from typing import Any

from kernreg._validation import check_choice, check_int, check_random_state
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.losses import get_loss
from kernreg.solvers.blocks.sgm_base import ONE_PASS_SCHEMA, STOCHASTIC_SCHEMA, StochasticEstimator
from kernreg.solvers.blocks.stochastic import (
    DEFAULT_ETAS,
    DEFAULT_THETAS,
    KernelRows,
    PathOutputs,
    check_eval_rows,
    column_scorer,
    dual_pass,
    guess_passes,
    kernel_memory,
    loss_step,
    stored_or_blocked,
)
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["DEFAULT_ETAS", "DEFAULT_THETAS", "OnePassSGM"]

SAMPLINGS = ("permutation", "iid")


class OnePassSGM(StochasticEstimator):
    """One-pass stochastic (sub)gradient method in the RKHS, step size by hold-out.

    ``α = 0``; for ``t = 1..n`` with ``j = j_t``:
    ``α_j ← α_j − η_t ℓ′(y_j, (Kα)_j)`` with ``η_t = η t^(−θ)``, i.e.
    ``f_{t+1} = f_t − η_t ℓ′(y_j, f_t(x_j)) K(x_j, ·)``. The reported iterate is the last one
    (as the authors' code reports; the thesis also defines an average). ``j_1..j_n`` is one
    random permutation of the fit rows (the authors' one pass without replacement) or ``n``
    i.i.d. uniform draws (the thesis' Algorithm 1). A binary classifier: ``predict`` gives
    labels, ``decision_function`` the output ``f(x) = Σ_j α_j K(x_j, x)``.

    With validation data every guess of the grid runs the same pass on the same kernel rows —
    the guesses are the columns of one ``(n, 30)`` coefficient block, each row read once — and
    the guess with the lowest validation measure (first on ties) is kept: for
    ``schedule="constant"`` θ = 0 and η runs over ``etas``; for ``"decaying"`` η = ``eta``
    and θ runs over ``thetas`` (thesis §6.4.2). Without validation data the pass runs once with
    ``eta`` and ``theta``.

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "linear"}, default "gaussian"
    sigma : float or "median", default "median"
        Kernel bandwidth; ``"median"``: the median distance between training rows (``sigma_``).
    loss : {"hinge", "square"}, default "hinge"
        Loss whose (sub)derivative the steps follow (:mod:`kernreg.losses`).
    schedule : {"constant", "decaying"}, default "constant"
    etas : array-like, optional
        Guesses of η for the constant schedule (default :data:`DEFAULT_ETAS`).
    thetas : array-like, optional
        Guesses of θ for the decaying schedule (default :data:`DEFAULT_THETAS`).
    eta : float, default 0.25
        η of the decaying schedule (and of a fit without validation data).
    theta : float, default 0.5
        θ of a fit without validation data.
    passes : int, default 1
        Passes per guess: 1 is SGM as the thesis states it; more cycle the same order with
        ``t`` going on (Enitor's ``SsubGD`` does so when given more than ``n`` iterations),
        every pass scored and the best (guess, pass) kept.
    sampling : {"permutation", "iid"}, default "permutation"
    kink : {"authors", "zero"}, default "authors"
        Hinge subgradient at ``y f = 1``: ``−y`` as the authors (update when ``y f ≤ 1``) or 0.
    validation_measure : {"hinge", "error"}, default "hinge"
        What selects the guess (the authors validated on the hinge loss).
    random_state : int, Generator or None
        Seeds the visiting order.
    dtype, memory_budget
        Kernel precision (float32 halves a stored ``K``) and bytes per block of kernel rows.
    max_memory : int, optional
        Bytes the stored kernels may take (default 2 GiB): ``K`` is stored, in visiting order,
        when its ``n²`` entries fit half of it, else its rows are evaluated during the pass.

    Attributes
    ----------
    classes_ : ndarray of shape (2,), the labels, sorted
    alpha_, centers_ : coefficients on the fit rows
    best_param_ : float, the selected η (constant) or θ (decaying)
    coef_path_ : (n, n_guesses), every guess' iterate at its best pass (the last with one)
    path_ : dict or None
        ``{"values": guesses, "val_rmse": validation measure per guess (at its best pass)}``.
    best_pass_, kernel_stored_ : the selected guess' pass; whether K was stored
    """

    path_parameter = "step"

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median", loss: str = "hinge",
                 schedule: str = "constant", etas: Any = None, thetas: Any = None,
                 eta: float = 0.25, theta: float = 0.5, passes: int = 1,
                 sampling: str = "permutation",
                 kink: str = "authors", validation_measure: str = "hinge",
                 random_state: Any = None, dtype: str = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET, max_memory: int | None = None):
        self.kernel = kernel
        self.sigma = sigma
        self.loss = loss
        self.schedule = schedule
        self.etas = etas
        self.thetas = thetas
        self.eta = eta
        self.theta = theta
        self.passes = passes
        self.sampling = sampling
        self.kink = kink
        self.validation_measure = validation_measure
        self.random_state = random_state
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.max_memory = max_memory

    def _check_own(self) -> None:
        check_choice(self.sampling, "sampling", SAMPLINGS)

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None,
            X_eval: Any = None) -> OnePassSGM:
        """Run the pass for every guess (with validation data) and keep the best.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
            Labels of two classes (``classes_[1]`` fitted as +1, the other as −1).
        X_val, y_val : optional validation data (given together; ``y_val`` of ``y``'s classes)
        X_eval : optional rows (a test set) on which every guess' model is evaluated (with
            validation data): ``eval_outputs_`` (guesses, 1, n_eval), ``eval_seconds_``.

        Returns
        -------
        self
        """
        X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
        X_eval = check_eval_rows(self, X_eval)
        n = X.shape[0]
        passes = check_int(self.passes, "passes", minimum=1)
        rng = check_random_state(self.random_state)
        order = rng.permutation(n) if self.sampling == "permutation" else rng.integers(0, n, n)
        etas, thetas = self._guess_steps(X_val is not None)
        rows = KernelRows(self.kernel_, X, self._store(), None if self.sampling == "iid" else order)
        score = None
        if X_val is not None:
            predict_val, _ = stored_or_blocked(self.kernel_, X_val, X, self._store())
            measure = column_scorer(self.validation_measure, y_val)
            score = lambda A: measure(predict_val(A))  # noqa: E731
        # later passes cycle the same order with t going on (as Enitor's SsubGD)
        grad = loss_step(get_loss(self.loss), self.kink)
        A, scores, passes = guess_passes(
            lambda A, steps: dual_pass(rows, order, y, A, steps, grad), n, n, etas, thetas,
            passes, score)
        self.kernel_stored_ = rows.stored
        self.centers_, self.coef_path_ = X, A
        self.alpha_ = self._select_guess(A, scores, passes, X_val is not None)
        if X_eval is not None and X_val is not None:  # every guess' model, timed apart
            self.eval_outputs_, self.eval_seconds_ = PathOutputs.of_kernel(
                self.kernel_, X_eval, X, self._store()).of_columns(A)
        return self

    def _fit_info(self) -> dict[str, Any]:
        return {"schedule": self.schedule, "kernel_stored": bool(self.kernel_stored_),
                "passes": float(self.passes), "best_pass": float(self.best_pass_),
                "fixed_eta" if self.schedule == "decaying" else "fixed_theta":
                    float(self.eta) if self.schedule == "decaying" else 0.0}


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    guesses = len(params.get("etas") or DEFAULT_ETAS)
    store = (params.get("max_memory") or problem.memory_limit) // 2
    return {**kernel_memory(problem.n_fit, problem.n_val, store, problem.itemsize),
            "coefficients (one column per guess)": problem.n_fit * guesses * F64}


register(AlgorithmSpec(
    name="sgm",
    estimator=OnePassSGM,
    title="SGM",
    order=90,
    schema={**ONE_PASS_SCHEMA, "sampling": {"enum": list(SAMPLINGS)}, **STOCHASTIC_SCHEMA},
    config_defaults=("schedule", "eta", "passes", "loss", "sampling", "kink", "validation_measure"),
    memory=_memory,
    tasks=("binary",),
    summary="one-pass kernel SGM (hinge loss), step size chosen on validation over 30 guesses",
))
