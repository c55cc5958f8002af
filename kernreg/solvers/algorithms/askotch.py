"""ASkotch: exact KRLS by accelerated randomized block coordinate descent with Nyström-
preconditioned blocks (Rathore, Frangella & Udell 2024, "Have ASkotch: a neat solution for
large-scale kernel ridge regression").

The defaults are the paper's: blocks of ``b = n/100`` rows drawn uniformly, rank-100 damped
Nyström block preconditioners, the step from 10 power iterations, acceleration with
``μ = λn`` and ``ν = n/b``. Each step evaluates one ``b × n`` kernel block, so memory is
``O(bn)``, never ``n²``. The iteration is in :mod:`kernreg.solvers.blocks.block_coordinate`;
one iteration of the path is one pass (``n/b`` block steps).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg._validation import check_bool, check_int, check_positive, check_random_state
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.block_coordinate import accelerated_pass
from kernreg.solvers.blocks.iterative import Iterations, IterativeEstimator
from kernreg.solvers.blocks.knm import quarter_rows, validation_stored
from kernreg.solvers.blocks.stopping import DEFAULT_STOPPING_RULE, STOPPING
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["ASkotch"]

#: The paper's blocks per pass (``b = n/100``) and preconditioner rank.
BLOCKS_PER_PASS = 100
DEFAULT_RANK = 100
#: The smallest default block: below 10⁴ rows n/100 would make blocks of a few rows, each
#: step a sketch and ten power iterations for almost nothing (1.4 s a fit of 200 rows at b = 2).
MIN_BLOCK = 100


class ASkotch(IterativeEstimator):
    """Accelerated block coordinate descent on ``(K + λnI)α = y``, over passes.

    After each pass (``n/b`` block steps) the validation RMSE is recorded and the stopping
    rule may end the path; the iterate converges to KRLS's solution at ``lam`` (tested to
    1e-6). Host only; one output.

    Parameters
    ----------
    kernel : str, default "gaussian"
    sigma : float or "median", default "median"
    fit_intercept : bool, default True
    validation_fraction : float, optional
    lam : float, default 1e-6
        λ of the system ``(K + λnI)α = y``.
    max_iter : int, default 50
        Passes.
    block_size : int, optional
        Rows per block; default ``n/100`` (at least 100, all rows below), capped so that the
        block's ``b × n`` kernel rows take at most a quarter of ``max_memory``.
    rank : int, default 100
        Rank of each block's Nyström preconditioner.
    accelerated : bool, default True
    accel_mu, accel_nu : float, optional
        Acceleration parameters; default ``λn`` and ``n/b``.
    stopping_rule : str, default "window_linear_fitting"
    window : int, default 10
    threshold : float, default 0.0
    select : {"best", "stop"}, optional
    random_state : None, int or numpy.random.Generator
        The blocks and the sketches.
    refit : bool, default False
    dtype : {"float64", "float32"}, default "float64"
    memory_budget : int
    max_memory : int, optional
        Bytes the fit may hold: decides whether the validation kernel is stored.

    Attributes
    ----------
    alpha_, centers_ : the selected model (coefficients over the fit rows)
    best_iter_, n_iter_ : int
        Selected and run passes.
    block_size_ : int
    path_ : dict or None
    """

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        validation_fraction: float | None = None,
        lam: float = 1e-6,
        max_iter: int = 50,
        block_size: int | None = None,
        rank: int = DEFAULT_RANK,
        accelerated: bool = True,
        accel_mu: float | None = None,
        accel_nu: float | None = None,
        stopping_rule: str = DEFAULT_STOPPING_RULE,
        window: int = 10,
        threshold: float = 0.0,
        select: str | None = None,
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
        self.lam = lam
        self.max_iter = max_iter
        self.block_size = block_size
        self.rank = rank
        self.accelerated = accelerated
        self.accel_mu = accel_mu
        self.accel_nu = accel_nu
        self.stopping_rule = stopping_rule
        self.window = window
        self.threshold = threshold
        self.select = select
        self.random_state = random_state
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.max_memory = max_memory

    #: The step size is each block's own (``1/L_B``)
    step_size = None

    def check_params(self) -> None:
        super().check_params()
        check_positive(self.lam, "lam")
        check_int(self.block_size, "block_size", minimum=1, allow_none=True)
        check_int(self.rank, "rank", minimum=1)
        check_bool(self.accelerated, "accelerated")
        check_positive(self.accel_mu, "accel_mu", allow_none=True)
        check_positive(self.accel_nu, "accel_nu", allow_none=True)
        check_positive(self.max_memory, "max_memory", allow_none=True)
        check_random_state(self.random_state)

    def _passes(self, X: Any, y: np.ndarray) -> Any:
        n = X.shape[0]
        b = default_block(n, self.block_size, self.max_memory)
        self.block_size_, self.centers_ = b, X
        return accelerated_pass(
            self.kernel_, X, y, float(self.lam) * n, block_size=b, rank=self.rank,
            steps=max(1, -(-n // b)), accel_mu=self.accel_mu, accel_nu=self.accel_nu,
            accelerated=self.accelerated, rng=self._rng)

    def _start_iterations(self, X: Any, y: np.ndarray, X_val: Any, y_val: Any) -> Iterations:
        self._rng = check_random_state(self.random_state)  # the refit draws on after the path
        return self._dual_iterations(self._passes, X, y, X_val, y_val)

    def _fit_info(self) -> dict[str, Any]:
        return {"n_iter": float(self.n_iter_), "block_size": float(self.block_size_)}


def default_block(n: int, block_size: int | None, max_memory: float | None) -> int:
    """The rows of a block: ``block_size``, else the paper's ``n/100`` (at least
    :data:`MIN_BLOCK`) capped so that its ``b × n`` kernel rows take at most a quarter of
    ``max_memory``."""
    if block_size is not None:
        return min(block_size, n)
    b = max(MIN_BLOCK, n // BLOCKS_PER_PASS)
    if max_memory is not None:
        b = min(b, quarter_rows(n, max_memory))
    return min(b, n)


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    # one block's kernel rows (b × n), the iterate's three n-vectors, and the validation
    # kernel where it is stored
    n = problem.n_fit
    b = default_block(n, params.get("block_size"), problem.memory_limit)
    parts = {"block kernel rows": b * n * F64, "iterates": 3 * n * F64}
    if validation_stored(problem.n_val, n, problem.memory_limit):
        parts["validation kernel"] = problem.n_val * n * F64
    return parts


register(AlgorithmSpec(
    name="askotch",
    estimator=ASkotch,
    title="ASkotch",
    order=87,
    schema={"lam": {"type": "number", "exclusiveMinimum": 0},
            "max_iter": {"type": "integer", "minimum": 1},
            "block_size": {"type": "integer", "minimum": 1},
            "rank": {"type": "integer", "minimum": 1}, "accelerated": {"type": "boolean"},
            "stopping": STOPPING},
    config_defaults=("lam", "max_iter", "rank", "stopping"),
    memory=_memory,
    summary="ASkotch: accelerated block coordinate descent with Nyström-preconditioned "
            "blocks, exact KRLS at one λ, early-stopped over passes",
))
