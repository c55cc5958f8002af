"""Exact KRLS by conjugate gradient preconditioned with randomly pivoted Cholesky, over a λ
path (Díaz, Epperly, Frangella, Tropp & Webber 2023, "Robust, randomized preconditioning for
kernel ridge regression").

``K ≈ F Fᵀ`` of rank r by RPCholesky (Chen, Epperly, Tropp & Webber 2023; only r columns of
K evaluated), then for each λ of the grid, largest first and warm-started from the previous
λ, CG on ``(K + λn·I) α = y`` preconditioned by ``F Fᵀ + λn·I``
(:mod:`kernreg.solvers.blocks.full_cg`). Its solution is KRLS's at that λ (no Nyström
approximation: tested to 1e-6); each iteration is one product with the n × n kernel, stored
when it fits the budget and re-evaluated block by block when it does not. The validation
error after every iteration is recorded and a stopping rule may end a λ's iterations, as for
Falkon's PCG.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from kernreg._validation import check_choice, check_int, check_positive, check_random_state
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.cg import LambdaSolve, walk_lambdas, walked_path
from kernreg.solvers.blocks.full_cg import FullCG, LowRankPreconditioner
from kernreg.solvers.blocks.iterative import prediction_rmse
from kernreg.solvers.blocks.knm import make_knm
from kernreg.solvers.blocks.lambda_path import LambdaPath, LambdaPathEstimator
from kernreg.solvers.blocks.params import LAMBDAS, POSITIVE_INT
from kernreg.solvers.blocks.pivoted_cholesky import kernel_partial_cholesky
from kernreg.solvers.blocks.stopping import DEFAULT_STOPPING_RULE, STOPPING
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["RPCholeskyPCG"]

#: How ``K`` (and the validation rows' ``K_vm``) is used: stored, re-evaluated per product, or
#: stored where it fits ``max_memory``.
STRATEGIES = ("auto", "memory", "blocked")


class RPCholeskyPCG(LambdaPathEstimator):
    """Exact KRLS by CG preconditioned with a rank-``rank`` randomly pivoted Cholesky factor.

    For each λ of the grid (largest first, warm-started from the previous λ), at most
    ``max_iter`` CG iterations on ``(K + λnI)α = y``, the validation RMSE after each; a λ's
    iterations end at the relative residual ``tol`` or when the stopping rule fires. The pair
    (λ, iteration) of lowest validation RMSE is selected (ties: the smaller λ, then the earlier
    iteration). Host only; one output.

    Parameters
    ----------
    kernel : str, default "gaussian"
    sigma : float or "median", default "median"
        Kernel bandwidth; ``"median"``: the median distance between training rows (``sigma_``).
    fit_intercept : bool, default True
        Fit the targets less their mean, added back to predictions (``intercept_``).
    validation_fraction : float, optional
        Without ``X_val``: the share of ``X`` held out inside ``fit`` to select the path on.
    rank : int, default 1000
        Columns of the RPCholesky factor (clamped to the training rows); the more of K's
        eigenvalues above λn it captures, the fewer iterations CG needs.
    lam : float, default 1e-6
        λ when ``fit`` gets no validation data (then ``max_iter`` iterations, or to ``tol``).
    lambdas : array-like, optional
        λ grid with validation data; default 100 values log-spaced in ``[1e-15, 1]``.
    max_iter : int, default 50
        CG iterations per λ.
    tol : float, default 1e-10
        Relative residual ``‖y − (K + λnI)α‖ / ‖y‖`` at which a λ's CG stops.
    stopping_rule : str, default "window_linear_fitting"
    window : int, default 10
    threshold : float, default 0.0
    strategy : {"auto", "memory", "blocked"}, default "auto"
        ``K`` and ``K_vm`` stored (one pass over memory per iteration) or re-evaluated block by
        block; ``auto``: stored where both fit ``max_memory``.
    random_state : None, int or numpy.random.Generator
        The RPCholesky pivots.
    refit : bool, default False
        After selection, refit on training + validation rows at (λ*, t*).
    dtype : {"float64", "float32"}, default "float64"
    memory_budget : int
    max_memory : int, optional
        Bytes the fit may hold (a run's budget); ``None``: no limit.

    Attributes
    ----------
    alpha_, centers_ : the selected model (coefficients over the training rows)
    best_lambda_ : float
    best_iter_ : int
    n_iter_ : int
        CG iterations over the whole path.
    rank_ : int
        Columns of the factor.
    path_ : dict or None
        ``{"lambdas", "val_rmse", "iterations", "seconds"}`` as :class:`NystromPCG`'s.
    """

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        validation_fraction: float | None = None,
        rank: int = 1000,
        lam: float = 1e-6,
        lambdas: Any = None,
        max_iter: int = 50,
        tol: float = 1e-10,
        stopping_rule: str = DEFAULT_STOPPING_RULE,
        window: int = 10,
        threshold: float = 0.0,
        strategy: str = "auto",
        random_state: Any = None,
        refit: bool = False,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        max_memory: int | None = None,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.fit_intercept = fit_intercept
        self.validation_fraction = validation_fraction
        self.rank = rank
        self.lam = lam
        self.lambdas = lambdas
        self.max_iter = max_iter
        self.tol = tol
        self.stopping_rule = stopping_rule
        self.window = window
        self.threshold = threshold
        self.strategy = strategy
        self.random_state = random_state
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.max_memory = max_memory

    #: The rule only ends a λ's iterations (the grid's lowest error is selected, not its own)
    select = None

    def check_params(self) -> None:
        super().check_params()
        check_int(self.rank, "rank", minimum=1)
        self._check_max_iter()
        self._check_rule()
        check_positive(self.tol, "tol")
        check_choice(self.strategy, "strategy", STRATEGIES)
        check_random_state(self.random_state)
        check_positive(self.max_memory, "max_memory", allow_none=True)

    def _fit_info(self) -> dict[str, Any]:
        return {"t_selected": float(self.best_iter_), "n_iter": float(self.n_iter_),
                "rank": float(self.rank_)}

    def _prepare(self, X: Any, y: np.ndarray) -> LowRankPreconditioner:
        factor = kernel_partial_cholesky(X, self.kernel_, min(self.rank, X.shape[0]),
                                         rule="random", rng=self.random_state)
        self.rank_ = factor.factor.shape[1]
        return LowRankPreconditioner(factor.factor)

    def _fit_at(self, state: LowRankPreconditioner, X: Any, y: np.ndarray, lam: float) -> None:
        (solved,) = self._solve(state, X, y, np.array([lam]), self._check_max_iter())
        self.alpha_, self.best_lambda_, self.centers_ = solved.last, lam, X
        self.best_iter_ = self.n_iter_ = solved.n_iter

    def _path(self, state: LowRankPreconditioner, X: Any, y: np.ndarray, X_val: Any,
              y_val: np.ndarray, lambdas: np.ndarray) -> LambdaPath:
        lambdas = np.sort(lambdas)[::-1]
        val_knm = make_knm(self._storage(X.shape[0], X_val.shape[0]), self.kernel_, X_val, X)
        try:
            solved = self._solve(state, X, y, lambdas, self._check_max_iter(),
                                 prediction_rmse(val_knm.matvec, y_val))
        finally:
            val_knm.close()
        self.n_iter_ = sum(s.n_iter for s in solved)
        self.centers_ = X
        return walked_path(lambdas, solved)

    def _choose(self, state: LowRankPreconditioner, path: LambdaPath, j: int, k: int) -> None:
        solved = path.coef(j, k)
        self.best_lambda_, self.alpha_ = float(path.lambdas[j]), solved.best
        self.best_iter_ = solved.best_iter + 1

    def _refit(self, state: LowRankPreconditioner, X: Any, y: np.ndarray) -> None:
        pre = self._prepare(X, y)  # the factor of the rows refitted on
        (solved,) = self._solve(pre, X, y, np.array([self.best_lambda_]), self.best_iter_)
        self.alpha_, self.centers_ = solved.last, X

    def _storage(self, n: int, n_val: int = 0) -> str:
        """``memory`` where K (and K_vm) fit ``max_memory`` under ``auto``, else ``blocked``."""
        if self.strategy != "auto":
            return self.strategy
        stored = (n + n_val) * n * np.dtype(self.dtype).itemsize
        return "memory" if self.max_memory is None or 2 * stored <= self.max_memory \
            else "blocked"

    def _solve(self, pre: LowRankPreconditioner, X: Any, y: np.ndarray, lambdas: np.ndarray,
               n_iter: int, score: Any = None) -> list[LambdaSolve]:
        n = X.shape[0]
        knm = make_knm(self._storage(n), self.kernel_, X, X)
        try:
            rule = dataclasses.replace(self._check_rule(), select="best")
            return walk_lambdas(
                lambda lam, alpha: FullCG(knm.matvec, y, pre, lam * n, alpha, self.tol),
                np.zeros(n), lambdas, n_iter, rule, score)
        finally:
            knm.close()


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    # the factor F (n × r) and its r × r Gram; K and K_vm stored where they fit
    n, rank = problem.n_fit, min(params.get("rank", 1000), problem.n_fit)
    parts = {"RPCholesky factor": n * rank * F64 + 2 * rank * rank * F64,
             "CG vectors": 6 * n * F64}
    stored = (n + problem.n_val) * n * problem.itemsize
    if params.get("strategy", "auto") == "memory" or (
            params.get("strategy", "auto") == "auto" and 2 * stored <= problem.memory_limit):
        parts["K and K_vm"] = stored
    return parts


register(AlgorithmSpec(
    name="rpcholesky_pcg",
    estimator=RPCholeskyPCG,
    title="RPCholesky PCG",
    order=85,
    schema={"lambdas": LAMBDAS, "rank": POSITIVE_INT,
            "max_iter": {"type": "integer", "minimum": 1},
            "tol": {"type": "number", "exclusiveMinimum": 0}, "stopping": STOPPING,
            "strategy": {"enum": list(STRATEGIES)}},
    config_defaults=("lambdas", "max_iter", "tol", "stopping", "strategy"),
    memory=_memory,
    summary="exact KRLS by CG preconditioned with randomly pivoted Cholesky, λ path with "
            "warm starts",
))
