"""NYTRO: Nyström iterative regularization (Landweber iteration on the Nyström problem)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kernreg._validation import check_choice, check_positive
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.acceleration import ACCELERATIONS, make_update
from kernreg.solvers.blocks.dask_rows import BACKENDS
from kernreg.solvers.blocks.iterative import Iterations, IterativeEstimator
from kernreg.solvers.blocks.knm import NormalProduct
from kernreg.solvers.blocks.linalg import (
    NystromFactor,
    lanczos_top_eigenvalue,
    lanczos_top_pair,
)
from kernreg.solvers.blocks.nystrom import NystromSetup
from kernreg.solvers.blocks.outputs import check_outputs, raveled_error
from kernreg.solvers.blocks.params import NYSTROM
from kernreg.solvers.blocks.rows import RowProducts
from kernreg.solvers.blocks.stopping import DEFAULT_STOPPING_RULE, STOPPING
from kernreg.solvers.blocks.strategy import (
    STRATEGY_CHOICES,
    plan_strategies,
    strategy_memory,
    strategy_reason,
)
from kernreg.solvers.registry import AlgorithmSpec, MemoryProblem, register

log = logging.getLogger(__name__)

__all__ = ["STEP_ROWS", "Nytro", "nytro_step_size"]

#: Rows over which the default step size is computed.
STEP_ROWS = ("all", "fit")


def nytro_step_size(normals: Sequence[NormalProduct], factor: NystromFactor, m: int,
                    precision: float = np.finfo(np.float64).eps, *,
                    warm_start: bool = False) -> float:
    """``γ = 1 / ‖K R⁻¹‖₂²`` = ``1 / λ_max(R⁻ᵀ(Σ_r K_rmᵀK_rm)R⁻¹)`` over the row sets whose
    normal products are ``normals`` (the fit rows, and the validation rows as the authors did).

    ``AᵀA`` is never formed: Lanczos runs on ``v ↦ R⁻ᵀ Σ_r K_rmᵀK_rm R⁻¹ v`` (one pass over
    each ``K_rm`` — stored, or re-evaluated — per product, or an ``m × m`` product with a Gram
    matrix; exact eigvalsh for small m). ``warm_start`` (for when the later row sets' products
    cost more than the first's, a ``K_vm`` re-evaluated beside a stored ``K_nm``): run on the
    first row set (the fit rows) alone, then start the whole operator's Lanczos from that
    Ritz vector — the two top eigenvectors nearly coincide, so the expensive products drop
    from a cold start's (1–2 fewer in tests) for a few more cheap ones.
    """

    def operator(parts: Sequence[NormalProduct]) -> Callable[[np.ndarray], np.ndarray]:
        def ata(V: np.ndarray) -> np.ndarray:
            U = factor.solve(V)
            return factor.solve_t(sum(normal(U) for normal in parts))
        return ata

    stall = max(1e-10, 10.0 * precision)
    start = None
    if warm_start and len(normals) > 1:
        start = lanczos_top_pair(operator(normals[:1]), m, stall=stall)[1]
    return 1.0 / lanczos_top_eigenvalue(operator(normals), m, stall=stall, start=start)[0]


def nytro_step(gradient: Callable[[np.ndarray], np.ndarray], gamma: float,
               factor: NystromFactor, acceleration: str = "none", nu: float = 1.0,
               outputs: int = 0) -> Callable[[], np.ndarray]:
    """One NYTRO update per call: ``β ← β − γ R⁻ᵀ∇``, ``α = R⁻¹β`` (or the ν-method's); with
    ``outputs = k`` the k columns of ``y`` at once, ``α`` returned raveled (``m·k``, the
    iteration loop's column)."""
    m = factor.R.shape[0]
    shape = (m, outputs) if outputs else (m,)
    beta, alpha = np.zeros(shape), np.zeros(shape)
    update = make_update(acceleration, nu)

    def step() -> np.ndarray:
        update(beta, gamma * factor.solve_t(gradient(alpha)))
        alpha[:] = factor.solve(beta)
        return alpha.reshape(-1)

    return step


class Nytro(IterativeEstimator):
    """NYTRO: Landweber iteration on the Nyström-projected problem, early-stopped.

    With ``A = K_nm R⁻¹`` (``RᵀR = K_mm + εI``), ``β_0 = 0``,
    ``β_t = β_{t−1} − γ R⁻ᵀ K_nmᵀ (K_nm R⁻¹ β_{t−1} − y)`` and ``α_t = R⁻¹ β_t``; predictions are
    ``K(X, centers) @ α_t``. Default ``γ = 1/‖A‖₂²`` (the authors' package; it absorbs the
    paper's ``1/n``), with ``A`` over the rows ``step_rows`` names. In α-space the update is
    ``α_t = α_{t−1} − γ (K_mm + εI)⁻¹ K_nmᵀ (K_nm α − y)``; with all n points as centers and
    ``ε → 0`` it is kernel Landweber with step ``η = γ`` (and ``‖A‖₂² = ‖K‖₂``, so the default
    steps coincide too, for ``step_rows="fit"``). Cost ``O(nm)`` per iteration plus
    ``O(nm·d + m³)`` once.

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
        Number of Nyström centers, drawn from the training rows (``m <= n``).
    max_iter : int, default 500
        Maximum iterations (exactly this many without validation data).
    step_size : float, optional
        ``γ``; default ``1/‖K_nm R⁻¹‖₂²`` (Lanczos on ``AᵀA`` through products).
    step_rows : {"fit", "all"}, default "fit"
        Rows of ``K_nm`` in the default ``γ``: the fit rows only, or the fit and validation
        rows together, as the authors' package computes it (there ``K_nm`` holds all training
        rows and the update masks the validation ones), which makes ``γ`` about
        ``n_fit / (n_fit + n_val)`` = 0.8 times the ``"fit"`` value.
    stopping_rule : str, default "window_linear_fitting"
        One of :data:`kernreg.solvers.blocks.stopping.STOPPING_RULES`.
    window : int, default 10
    threshold : float, default 0.0
    select : {"best", "stop"}, optional
        Which iteration the rule reports (default: the rule's own, see
        :mod:`kernreg.solvers.blocks.stopping`).
    epsilon : float, default 1e-10
        Ridge ``ε`` in ``K_mm + εI`` (increased ×10 until Cholesky succeeds).
    sampler : str or CenterSampler, default "uniform"
    random_state : None, int or numpy.random.Generator
        Seed of the center selection.
    strategy : {"auto", "memory", "blocked", "gram"}, default "auto"
        How ``K_nm`` is used (see :mod:`kernreg.solvers.blocks.strategy`): kept in memory (in the
        kernel's dtype), re-evaluated block-wise every iteration, or reduced once to ``m × m``
        Gram matrices. All give the same iterates; ``"auto"`` picks the fastest by a cost model
        among those fitting ``max_memory``, and ``strategy_`` records the choice.
    validation_strategy : {"auto", "memory", "blocked", "gram"}, default "auto"
        The same choice for the validation rows' ``K_vm`` (recorded in
        ``validation_strategy_``).
    max_memory : int, optional
        Bytes the strategies' kernel arrays may take under ``"auto"`` (default: 80% of the
        memory available when ``fit`` starts).
    refit : bool, default False
        After selecting t*, rerun t* iterations on training + validation rows with the same
        centers (``γ`` recomputed unless ``step_size`` is given).
    dtype : {"float64", "float32"}, default "float64"
        Kernel evaluation precision (iterations run in float64; the ``gram`` strategy
        evaluates in float64 whatever this says, since ``R⁻¹`` magnifies ``G``'s rounding).
    memory_budget : int
        Bytes per kernel block in blocked evaluation.
    acceleration : {"none", "nu"}, default "none"
        ``"nu"``: the ν-method instead of Landweber (same gradient, step size, strategies and
        stopping rules; iterate t regularizes about like Landweber's t²), see
        :mod:`kernreg.solvers.blocks.acceleration`.
    nu : float, default 1.0
        ν of the ν-method.
    device : {"cpu", "torch", "cuda", "cuda:N"}, default "cpu"
        Where ``K_nm`` lives and its products run (:mod:`kernreg.backend`); the strategies
        are chosen within that device's memory, the ``m × m`` work stays on the host.

    Attributes
    ----------
    alpha_ : ndarray of shape (m,)
    centers_, center_indices_ : the centers and their indices into the training rows
    best_iter_ : int
        Selected iteration t* (1-based; ``max_iter`` without validation data).
    n_iter_ : int
        Iterations run.
    step_size_ : float
        ``γ`` used.
    strategy_, validation_strategy_ : str
        The strategies used for ``K_nm`` and ``K_vm``; ``strategy_costs_`` holds the cost
        model's estimates for every pair.
    factor_info_ : dict
        ``{"epsilon_requested", "epsilon_used", "retries"}``.
    path_ : dict or None
        ``{"iterations", "val_rmse", "stopped", "diverged"}`` with validation data.
    """

    multi_output = True

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        validation_fraction: float | None = None,
        m: int = 100,
        max_iter: int = 500,
        step_size: float | None = None,
        step_rows: str = "fit",
        stopping_rule: str = DEFAULT_STOPPING_RULE,
        window: int = 10,
        threshold: float = 0.0,
        select: str | None = None,
        epsilon: float = 1e-10,
        sampler: Any = "uniform",
        random_state: Any = None,
        strategy: str = "auto",
        validation_strategy: str = "auto",
        max_memory: int | None = None,
        refit: bool = False,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        acceleration: str = "none",
        nu: float = 1.0,
        backend: str = "local",
        device: str = "cpu",
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.fit_intercept = fit_intercept
        self.validation_fraction = validation_fraction
        self.m = m
        self.max_iter = max_iter
        self.step_size = step_size
        self.step_rows = step_rows
        self.stopping_rule = stopping_rule
        self.window = window
        self.threshold = threshold
        self.select = select
        self.epsilon = epsilon
        self.sampler = sampler
        self.random_state = random_state
        self.strategy = strategy
        self.validation_strategy = validation_strategy
        self.max_memory = max_memory
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.acceleration = acceleration
        self.nu = nu
        self.backend = backend
        self.device = device

    def _fit_info(self) -> dict[str, Any]:
        # how NYTRO touched K_nm, for reading its timings
        return {"step_size": float(self.step_size_), "n_iter": float(self.n_iter_),
                **self._factor_info(), "strategy": self.strategy_,
                "validation_strategy": self.validation_strategy_}

    def check_params(self) -> None:
        super().check_params()
        self._check_nystrom()
        check_choice(self.step_rows, "step_rows", STEP_ROWS)
        check_positive(self.max_memory, "max_memory", allow_none=True)
        make_update(self.acceleration, self.nu)
        for name in ("strategy", "validation_strategy"):
            check_choice(getattr(self, name), name, STRATEGY_CHOICES)
        check_choice(self.backend, "backend", BACKENDS)

    def _start_iterations(self, X: Any, y: np.ndarray, X_val: Any, y_val: Any) -> Iterations:
        run = _NytroRun(self, X, X_val, self._nystrom_setup(X))
        self.strategy_costs_ = {c.label: c for c in run.costs.values()}
        self.strategy_, self.validation_strategy_ = run.chosen.name, run.chosen.validation
        it, self.step_size_ = run.iterations(X, y, X_val, y_val)
        return it


class _NytroRun:
    """The plan of one NYTRO fit and the steps it takes: the K_nm strategies chosen within the
    memory limit, the rows' products (:class:`~kernreg.solvers.blocks.rows.RowProducts`) and
    the step sizes."""

    def __init__(self, est: Nytro, X: Any, X_val: Any, setup: NystromSetup) -> None:
        self.est, self.C, self.factor = est, setup.centers, setup.factor
        n_val = 0 if X_val is None else X_val.shape[0]
        self.with_val_rows = est.step_rows == "all" and est.step_size is None and n_val > 0
        limit, workers = strategy_memory(est.max_memory, est.backend, est.kernel_.device)

        def plan(strategy: str, validation: str) -> tuple[Any, Any]:
            return plan_strategies(
                X.shape[0], n_val, setup.indices.size, X.shape[1], est._check_max_iter(),
                est.kernel_.itemsize, est.memory_budget, limit, strategy, validation,
                self.with_val_rows, workers)

        asked = (est.strategy, est.validation_strategy)
        self.chosen, self.costs = plan(*asked)
        if not est.kernel_.device.is_numpy and self.chosen.peak_bytes > limit:
            # a device's memory is a wall: strategies that do not fit it give way to the
            # plan's (K_nm re-evaluated there from rows sent from host memory)
            asked = ("auto", "auto")
            self.chosen, self.costs = plan(*asked)
        # once per fit, the plan it runs (the memory preflight plans too, silently)
        log.info("NYTRO strategy %s", strategy_reason(self.costs, limit, *asked))
        self.rows = RowProducts(est.kernel_, est.backend, est._hold)

    def iterations(self, X: Any, y: np.ndarray, X_val: Any, y_val: Any
                   ) -> tuple[Iterations, float]:
        """The loop's input on the fit rows, and the step size."""
        check_outputs(self.est, y)
        gradient, normal = self.rows.training(X, y, self.C, self.chosen.name)
        normals, val_rmse, chunk = [normal], None, 1
        self.outputs = y.shape[1] if y.ndim == 2 else 0
        if X_val is not None:
            # k outputs: the strategy's normal product (the step size's; it takes no targets)
            # beside a scorer of raveled (m·k) columns, every output's predictions at once
            val_rmse, chunk, val_normal = self.rows.validation(
                X_val, y_val[:, 0] if self.outputs else y_val, self.C, self.chosen.validation)
            if self.outputs:
                val_rmse = raveled_error(
                    lambda A: self.est.kernel_.matvec(X_val, self.C, A), y_val)
            if self.with_val_rows:
                normals.append(val_normal)
        # K_vm re-evaluated per product beside a stored K_nm or Grams: start from the fit rows
        warm = self.chosen.validation == "blocked" and self.chosen.name != "blocked"
        gamma = self.step_size(normals, warm)
        return Iterations(self.step(gradient, gamma), val_rmse, chunk, self.refit), gamma

    def refit(self, X: Any, y: np.ndarray) -> Callable[[], np.ndarray]:
        """The step on training + validation rows (same centers); sets the estimator's
        ``refit_step_size_``."""
        gradient, normal = self.rows.training(X, y, self.C, self.chosen.name)
        self.est.refit_step_size_ = self.step_size([normal])
        return self.step(gradient, self.est.refit_step_size_)

    def step_size(self, normals: Sequence[NormalProduct], warm_start: bool = False) -> float:
        """``step_size``, or the default γ over the rows of ``normals``."""
        if self.est.step_size is not None:
            return self.est.step_size
        return nytro_step_size(normals, self.factor, self.factor.R.shape[0],
                               float(np.finfo(self.est.kernel_.dtype).eps),
                               warm_start=warm_start)

    def step(self, gradient: Callable[[np.ndarray], np.ndarray], gamma: float
             ) -> Callable[[], np.ndarray]:
        return nytro_step(gradient, gamma, self.factor, self.est.acceleration, self.est.nu,
                          self.outputs)


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    # the kernel arrays of the strategies the estimator will pick, within the budget
    chosen, _ = plan_strategies(problem.n_fit, problem.n_val, params["m"], problem.d,
                                params["max_iter"], problem.itemsize, problem.block_bytes,
                                problem.memory_limit, params["strategy"],
                                params.get("validation_strategy", "auto"),
                                params["step_rows"] == "all")
    return {f"{chosen.label} strategy": chosen.peak_bytes}


#: The config's ``strategy`` and ``validation_strategy``.
_STRATEGY = {"enum": list(STRATEGY_CHOICES)}

register(AlgorithmSpec(
    name="nytro",
    estimator=Nytro,
    title="NYTRO",
    order=50,
    schema={"max_iter": {"type": "integer", "minimum": 1}, "stopping": STOPPING,
            "step_rows": {"enum": list(STEP_ROWS)}, "strategy": _STRATEGY,
            "validation_strategy": _STRATEGY, "acceleration": {"enum": list(ACCELERATIONS)},
            "nu": {"type": "number", "exclusiveMinimum": 0}, "backend": {"enum": list(BACKENDS)},
            **NYSTROM},
    config_defaults=("max_iter", "stopping", "step_rows", "epsilon", "sampler", "strategy"),
    takes_centers=True,
    memory=_memory,
    summary="Landweber iteration on A = K_nm R⁻¹ (or the ν-method), early-stopped",
))
