"""EigenPro: minibatch gradient steps on the full kernel model, preconditioned by the top
eigensystem of a subsample, early-stopped on the validation error (Ma & Belkin 2017, "Diving
into the shallows: a computational perspective on large-scale shallow learning"; EigenPro 2.0:
Ma & Belkin 2019, "Kernel machines that adapt to GPUs for effective large batch training").

The defaults are EigenPro 2.0's: the subsample (2000 rows below 10⁵, else 12000), ``q`` chosen
so that the critical batch size fits the largest batch the memory allows, the batch at the
critical size, the step from the batch-size rule, and the reference implementation's
exponent 0.95 on the eigenvalue ratios. The iteration is in
:mod:`kernreg.solvers.blocks.eigenpro`; one iteration of the path is one epoch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg._validation import check_int, check_positive, check_random_state
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.eigenpro import eigenpro_epoch, eigenpro_setup, subsample_size
from kernreg.solvers.blocks.iterative import Iterations, IterativeEstimator
from kernreg.solvers.blocks.knm import quarter_rows, validation_stored
from kernreg.solvers.blocks.stopping import DEFAULT_STOPPING_RULE, STOPPING
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["EigenPro"]

#: The reference implementation's damping of the eigenvalue ratios (``ρ_i^a``, ``a < 1`` keeps
#: a margin for the subsample's error in the eigenvalues).
DEFAULT_DAMPING = 0.95


class EigenPro(IterativeEstimator):
    """EigenPro 2.0 on the full kernel model, early-stopped over epochs.

    Each epoch visits every fit row once in minibatches; after each, the validation RMSE is
    recorded and the stopping rule may end the path. With ``lam > 0`` the iterate converges
    to KRLS's ``(K + λnI)⁻¹y`` (full batch: tested); ``lam = 0`` is EigenPro's interpolation,
    regularized by the epoch selected. Host only; one output.

    Parameters
    ----------
    kernel : str, default "gaussian"
    sigma : float or "median", default "median"
    fit_intercept : bool, default True
    validation_fraction : float, optional
    lam : float, default 0.0
        Ridge λ (KRLS's scaling: the fixed point solves ``(K + λnI)α = y``).
    max_iter : int, default 50
        Epochs.
    subsample : int, optional
        Rows of the eigensystem; default EigenPro 2.0's (2000 rows below 10⁵ rows, else 12000).
    top_q : int, optional
        Eigen-directions flattened; default: those whose critical batch fits the memory.
    damping : float, default 0.95
        Exponent ``a`` of the ratios ``((λ_{q+1} + λ)/(λ_i + λ))^a`` (1: flatten fully).
    batch_size : int, optional
        Rows per step; default the critical batch size (capped by ``max_memory``).
    step_size : float, optional
        ``η``; default by EigenPro 2.0's rule for the batch size.
    stopping_rule : str, default "window_linear_fitting"
    window : int, default 10
    threshold : float, default 0.0
    select : {"best", "stop"}, optional
    random_state : None, int or numpy.random.Generator
        The subsample and the epochs' row orders.
    refit : bool, default False
    dtype : {"float64", "float32"}, default "float64"
    memory_budget : int
    max_memory : int, optional
        Bytes the fit may hold: caps the batch (its ``b × n`` kernel block) and decides
        whether the validation kernel is stored.

    Attributes
    ----------
    alpha_, centers_ : the selected model (coefficients over the fit rows)
    best_iter_, n_iter_ : int
        Selected and run epochs.
    top_q_, batch_size_ : int
    step_size_ : float
    path_ : dict or None
    """

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        validation_fraction: float | None = None,
        lam: float = 0.0,
        max_iter: int = 50,
        subsample: int | None = None,
        top_q: int | None = None,
        damping: float = DEFAULT_DAMPING,
        batch_size: int | None = None,
        step_size: float | None = None,
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
        self.subsample = subsample
        self.top_q = top_q
        self.damping = damping
        self.batch_size = batch_size
        self.step_size = step_size
        self.stopping_rule = stopping_rule
        self.window = window
        self.threshold = threshold
        self.select = select
        self.random_state = random_state
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.max_memory = max_memory

    def check_params(self) -> None:
        super().check_params()
        if self.lam != 0.0:
            check_positive(self.lam, "lam")
        check_int(self.subsample, "subsample", minimum=2, allow_none=True)
        check_int(self.top_q, "top_q", minimum=1, allow_none=True)
        check_positive(self.damping, "damping")
        if self.damping > 1:
            raise ValueError(f"damping must be in (0, 1], got {self.damping!r}")
        check_int(self.batch_size, "batch_size", minimum=1, allow_none=True)
        check_positive(self.max_memory, "max_memory", allow_none=True)
        check_random_state(self.random_state)

    def _epochs(self, X: Any, y: np.ndarray) -> Any:
        n = X.shape[0]
        max_batch = n if self.max_memory is None else quarter_rows(n, self.max_memory)
        setup = eigenpro_setup(
            self.kernel_, X, float(self.lam),
            subsample=self.subsample or subsample_size(n), top_q=self.top_q,
            damping=float(self.damping), batch_size=self.batch_size, step_size=self.step_size,
            max_batch=min(max_batch, self.subsample or subsample_size(n)), rng=self._rng)
        self.top_q_, self.batch_size_ = len(setup.values), setup.batch
        self.step_size_ = setup.step
        self.centers_ = X
        return eigenpro_epoch(self.kernel_, X, y, setup, float(self.lam), self._rng)

    def _start_iterations(self, X: Any, y: np.ndarray, X_val: Any, y_val: Any) -> Iterations:
        self._rng = check_random_state(self.random_state)  # the refit draws on after the path
        return self._dual_iterations(self._epochs, X, y, X_val, y_val)

    def _fit_info(self) -> dict[str, Any]:
        return {"step_size": float(self.step_size_), "n_iter": float(self.n_iter_),
                "top_q": float(self.top_q_), "batch_size": float(self.batch_size_)}


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    # the subsample's kernel (s × s), one batch's block (a quarter of the budget at most), and
    # the validation kernel where it is stored
    n = problem.n_fit
    s = min(params.get("subsample") or subsample_size(n), n)
    parts = {"subsample kernel": s * s * F64,
             "batch kernel block": min(quarter_rows(n, problem.memory_limit), s) * n * F64}
    if validation_stored(problem.n_val, n, problem.memory_limit):
        parts["validation kernel"] = problem.n_val * n * F64
    return parts


register(AlgorithmSpec(
    name="eigenpro",
    estimator=EigenPro,
    title="EigenPro",
    order=86,
    schema={"lam": {"type": "number", "minimum": 0}, "max_iter": {"type": "integer", "minimum": 1},
            "subsample": {"type": "integer", "minimum": 2},
            "top_q": {"type": "integer", "minimum": 1},
            "damping": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "batch_size": {"type": "integer", "minimum": 1}, "stopping": STOPPING},
    config_defaults=("lam", "max_iter", "damping", "stopping"),
    memory=_memory,
    summary="EigenPro 2.0: minibatch steps preconditioned by a subsample's top eigensystem, "
            "early-stopped over epochs",
))
