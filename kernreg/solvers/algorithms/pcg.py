"""Preconditioned conjugate gradient for Nyström KRLS: Falkon's algorithm, with a λ path.

Falkon (Rudi, Carratino, Rosasco 2017; Meanti et al. 2020) solves the NKRLS system
``(K_nmᵀK_nm + λn·K_mm) α = K_nmᵀy`` by conjugate gradient, preconditioned with the Cholesky
factor of ``K_mm`` and of ``T Tᵀ/m + λI``: with ``TᵀT = K_mm`` (here ``K_mm + εI``, NKRLS's
factor ``R``) and ``FᵀF = TTᵀ/m + λI``, ``B = T⁻¹F⁻¹/√n`` makes ``BᵀHB`` close to the identity
(exactly so when ``K_nmᵀK_nm = (n/m)K_mm²``), so 10–20 iterations suffice where plain CG needs
hundreds. Each iteration is one pass over ``K_nm`` (stored, re-evaluated, or reduced once to
``G = K_nmᵀK_nm``: the same strategies as NYTRO) and four triangular solves.

Beyond Falkon: one eigendecomposition ``TTᵀ/m = QΛQᵀ`` gives ``F⁻¹ = Q(Λ + λ)^{−1/2}`` for every
λ of a grid, which is walked from the largest λ to the smallest, each λ's CG warm-started from
the previous solution; the validation error is computed after every CG iteration, and a
stopping rule may end a λ's iterations early — with λ → 0 the iterations themselves
regularize, as NYTRO's do. At convergence every λ's α equals NKRLS's (tested to 1e-8).

Falkon's preconditioner is built for the λ it solves at: as λ → 0, ``BBᵀ = (K_mm²/m + λK_mm)⁻¹``
grows as ``m/k²`` along an eigenvalue ``k`` of ``K_mm`` (``k`` down to ε = 1e-10), and the first
CG step already puts ‖α‖ ≈ 1e7 along those directions (measured on Ijcnn1 at λ = 1e-12: training
and validation rows, near the centers, stay fitted at RMSE 0.98 while test rows get predictions
up to ±9; test RMSE 1.35 at the validation's best iterate). ``preconditioner="nystrom"`` uses
``B = R⁻¹/√n`` instead, ``BBᵀ = K_mm⁻¹``: CG then runs on NYTRO's system ``AᵀAβ = Aᵀy``
(``A = K_nmR⁻¹``), whose iterates are kernel conjugate-gradient regression (Blanchard & Krämer
2010) on the Nyström space — the iteration count is the regularizer, and 50–100 iterations reach
what 500 of Landweber's do (Ijcnn1: test RMSE 0.38 at 60 iterations).

The preconditioners and the CG loop over the λ path are a building block
(:mod:`kernreg.solvers.blocks.cg`); this module is the estimator and its registration.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from kernreg._validation import check_choice, check_positive
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.cg import (
    PRECONDITIONERS,
    FalkonPreconditioner,
    LambdaSolve,
    NystromPreconditioner,
    cg_path,
    make_preconditioner,
    walked_path,
)
from kernreg.solvers.blocks.iterative import prediction_rmse
from kernreg.solvers.blocks.knm import knm_normal_product, make_knm
from kernreg.solvers.blocks.lambda_path import LambdaPath, LambdaPathEstimator
from kernreg.solvers.blocks.nystrom import NystromSetup
from kernreg.solvers.blocks.outputs import check_outputs, raveled_error
from kernreg.solvers.blocks.params import LAMBDAS, NYSTROM
from kernreg.solvers.blocks.stopping import DEFAULT_STOPPING_RULE, STOPPING
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["PRECONDITIONERS", "STRATEGIES", "FalkonPreconditioner", "NystromPCG",
           "NystromPreconditioner"]

#: How ``K_nm`` is used: kept, re-evaluated per product, or reduced once to ``K_nmᵀK_nm``.
STRATEGIES = ("memory", "blocked", "gram")
#: How the validation rows' ``K_vm`` is used for the error after every iteration.
VALIDATION_STRATEGIES = ("memory", "blocked")


class NystromPCG(LambdaPathEstimator):
    """Nyström KRLS solved by Falkon's preconditioned conjugate gradient, over a λ path.

    For each λ of the grid (largest first, warm-started from the previous λ), at most
    ``max_iter`` CG iterations on the preconditioned NKRLS system, the validation RMSE after
    each; a λ's iterations end when the residual falls below ``tol`` (relative) or the
    stopping rule fires. The pair (λ, iteration) with the lowest validation RMSE is selected
    (ties: the smaller λ, then the earlier iteration).

    ``y`` of shape ``(n, k)`` runs k conjugate gradients in lockstep, one pass over ``K_nm``
    per iteration for all (each column's own step lengths, a column held once it reaches
    ``tol``), the iterations and λ selected on the RMSE over every validation row and output.

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "linear"}, default "gaussian"
    sigma : float or "median", default "median"
        Kernel bandwidth; ``"median"``: the median distance between training rows (``sigma_``).
    fit_intercept : bool, default True
        Fit the targets less their mean, added back to predictions (``intercept_``).
    validation_fraction : float, optional
        Without ``X_val``: the share of ``X`` held out inside ``fit`` to select the path on.
    m : int, default 100
        Nyström centers, drawn from the training rows.
    lam : float, default 1e-6
        λ when ``fit`` gets no validation data (then ``max_iter`` iterations, or to ``tol``).
    lambdas : array-like, optional
        λ grid with validation data; default 100 values log-spaced in ``[1e-15, 1]``.
    max_iter : int, default 20
        CG iterations per λ.
    tol : float, default 1e-10
        Relative residual ``‖r‖/‖b‖`` at which a λ's CG stops.
    stopping_rule : str, default "window_linear_fitting"
        Rule on a λ's validation errors along its iterations (see
        :mod:`kernreg.solvers.blocks.stopping`); ``"none"`` runs to ``max_iter`` or ``tol``.
    window : int, default 10
    threshold : float, default 0.0
    strategy : {"memory", "blocked", "gram"}, default "memory"
        How ``K_nm`` is used (the same iterates: tested).
    validation_strategy : {"memory", "blocked"}, optional
        How ``K_vm`` is used for the validation error after every iteration: kept, or
        re-evaluated block-wise for each chunk of iterates (when ``K_nm`` and ``K_vm`` do not fit
        together, e.g. Covertype at m = 10000). Default: ``"memory"`` with ``strategy="memory"``,
        else ``"blocked"``.
    preconditioner : {"falkon", "nystrom"}, default "falkon"
        Falkon's ``B = T⁻¹F_λ⁻¹/√n``, few iterations to the λ's solution; or ``R⁻¹/√n``,
        NYTRO's, for CG iterations as the regularizer at λ → 0 (see the module's docstring).
    epsilon : float, default 1e-10
    sampler : str or CenterSampler, default "uniform"
    random_state : None, int or numpy.random.Generator
    refit : bool, default False
        After selection, refit on training + validation rows at (λ*, t*).
    dtype : {"float64", "float32"}, default "float64"
    memory_budget : int
    device : {"cpu", "torch", "cuda", "cuda:N"}, default "cpu"
        Where ``K_nm``, ``K_vm`` (or ``G``) live and their products run (:mod:`kernreg.backend`);
        the preconditioner and CG's ``m``-vectors stay on the host.

    Attributes
    ----------
    alpha_, centers_, center_indices_ : the selected model and its centers
    best_lambda_ : float
    best_iter_ : int
        CG iterations of the selected model at λ*.
    n_iter_ : int
        CG iterations run over the whole path.
    factor_info_ : dict
    path_ : dict or None
        ``{"lambdas", "val_rmse" (best over each λ's iterations), "iterations" (run per λ),
        "seconds" (when each λ's iterations ended, from the start of ``fit``: the λs are
        walked largest first)}``.
    """

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        validation_fraction: float | None = None,
        m: int = 100,
        lam: float = 1e-6,
        lambdas: Any = None,
        max_iter: int = 20,
        tol: float = 1e-10,
        stopping_rule: str = DEFAULT_STOPPING_RULE,
        window: int = 10,
        threshold: float = 0.0,
        strategy: str = "memory",
        validation_strategy: str | None = None,
        preconditioner: str = "falkon",
        epsilon: float = 1e-10,
        sampler: Any = "uniform",
        random_state: Any = None,
        refit: bool = False,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        device: str = "cpu",
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.fit_intercept = fit_intercept
        self.validation_fraction = validation_fraction
        self.m = m
        self.lam = lam
        self.lambdas = lambdas
        self.max_iter = max_iter
        self.tol = tol
        self.stopping_rule = stopping_rule
        self.window = window
        self.threshold = threshold
        self.strategy = strategy
        self.validation_strategy = validation_strategy
        self.preconditioner = preconditioner
        self.epsilon = epsilon
        self.sampler = sampler
        self.random_state = random_state
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.device = device

    #: The rule only ends a λ's iterations (the grid's lowest error is selected, not its own)
    select = None
    multi_output = True

    def check_params(self) -> None:
        super().check_params()
        self._check_nystrom()
        self._check_max_iter()
        self._check_rule()
        check_positive(self.tol, "tol")
        check_choice(self.strategy, "strategy", STRATEGIES)
        if self.validation_strategy is not None:
            check_choice(self.validation_strategy, "validation_strategy", VALIDATION_STRATEGIES)
        check_choice(self.preconditioner, "preconditioner", PRECONDITIONERS)

    def _fit_info(self) -> dict[str, Any]:
        return {"t_selected": float(self.best_iter_), "n_iter": float(self.n_iter_),
                **self._factor_info()}

    def _prepare(self, X: Any, y: np.ndarray) -> NystromSetup:
        return self._nystrom_setup(X)

    def _fit_at(self, state: NystromSetup, X: Any, y: np.ndarray, lam: float) -> None:
        (solved,) = _solve(self, X, y, state, np.array([lam]), self._check_max_iter())
        self.alpha_, self.best_lambda_ = solved.last, lam
        self.best_iter_ = self.n_iter_ = solved.n_iter

    def _path(self, state: NystromSetup, X: Any, y: np.ndarray, X_val: Any, y_val: np.ndarray,
              lambdas: np.ndarray) -> LambdaPath:
        lambdas = np.sort(lambdas)[::-1]
        val_knm = make_knm(_validation_strategy(self.strategy, self.validation_strategy),
                           self.kernel_, X_val, state.centers)
        try:
            score = prediction_rmse(val_knm.matvec, y_val) if y.ndim == 1 else \
                raveled_error(val_knm.matvec, y_val)
            solved = _solve(self, X, y, state, lambdas, self._check_max_iter(), score)
        finally:
            val_knm.close()
        self.n_iter_ = sum(s.n_iter for s in solved)
        return walked_path(lambdas, solved)

    def _choose(self, state: NystromSetup, path: LambdaPath, j: int, k: int) -> None:
        solved = path.coef(j, k)
        self.best_lambda_, self.alpha_ = float(path.lambdas[j]), solved.best
        self.best_iter_ = solved.best_iter + 1

    def _refit(self, state: NystromSetup, X: Any, y: np.ndarray) -> None:
        (solved,) = _solve(self, X, y, state, np.array([self.best_lambda_]), self.best_iter_)
        self.alpha_ = solved.last


def _solve(est: NystromPCG, X: Any, y: np.ndarray, setup: NystromSetup, lambdas: np.ndarray,
           n_iter: int, score: Any = None) -> list[LambdaSolve]:
    """:func:`~kernreg.solvers.blocks.cg.cg_path` of ``est``'s system on the rows ``(X, y)``,
    ``K_nm`` used as its strategy says (largest λ first, warm starts)."""
    check_outputs(est, y)
    if est.strategy == "gram":
        G, _ = est.kernel_.with_dtype(np.float64).gram_products(X, setup.centers)
        normal, knm = (lambda u: G @ u), None
    else:
        knm = make_knm(est.strategy, est.kernel_, X, setup.centers)
        normal = knm_normal_product(knm)
    try:
        rhs = est.kernel_.rmatvec(X, setup.centers, y)  # K_nmᵀ y
        pre = make_preconditioner(est.preconditioner, setup.factor, X.shape[0])
        rule = dataclasses.replace(est._check_rule(), select="best")
        return cg_path(normal, rhs, pre, lambdas, n_iter, est.tol, rule, score)
    finally:  # a stored K_nm goes to the next fit of its shape
        if knm is not None:
            knm.close()


def _validation_strategy(strategy: str, validation_strategy: str | None) -> str:
    """The validation rows' strategy: the given one, else stored along with a stored K_nm."""
    if validation_strategy is not None:
        return validation_strategy
    return "memory" if strategy == "memory" else "blocked"


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    # K_mm, T, Q, F and work buffers (m × m); the stored K_nm (memory) or G (gram); K_vm
    m = params["m"]
    parts = {"m×m matrices": 5 * m * m * F64}
    if params["strategy"] == "memory":
        parts["K_nm"] = problem.n_fit * m * problem.itemsize
    elif params["strategy"] == "gram":
        parts["G"] = m * m * F64
    if _validation_strategy(params["strategy"], params.get("validation_strategy")) == "memory":
        parts["K_vm"] = problem.n_val * m * problem.itemsize
    return parts


register(AlgorithmSpec(
    name="pcg",
    estimator=NystromPCG,
    title="Falkon PCG",
    order=80,
    schema={"lambdas": LAMBDAS, "max_iter": {"type": "integer", "minimum": 1},
            "tol": {"type": "number", "exclusiveMinimum": 0}, "stopping": STOPPING,
            "strategy": {"enum": list(STRATEGIES)},
            "validation_strategy": {"enum": list(VALIDATION_STRATEGIES)},
            "preconditioner": {"enum": list(PRECONDITIONERS)}, **NYSTROM},
    config_defaults=("lambdas", "max_iter", "tol", "stopping", "strategy", "epsilon",
                     "sampler"),
    takes_centers=True,
    memory=_memory,
    summary="NKRLS by Falkon's preconditioned conjugate gradient, λ path with warm starts",
))

