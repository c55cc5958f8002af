"""Early stopping (ES): kernel Landweber iteration on the full kernel matrix."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.sparse.linalg import LinearOperator

from kernreg._validation import check_bool, check_choice
from kernreg.backend import Device
from kernreg.backend.linalg import is_host
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.buffers import release, take
from kernreg.solvers.blocks.distinct import repeated_rows
from kernreg.solvers.blocks.iterative import (
    VALIDATION_CHUNK,
    Iterations,
    IterativeEstimator,
    prediction_rmse,
)
from kernreg.solvers.blocks.linalg import sym_inplace, top_eigenvalue
from kernreg.solvers.blocks.outputs import check_outputs, raveled_error
from kernreg.solvers.blocks.stopping import DEFAULT_STOPPING_RULE, STOPPING
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["STEP_RULES", "KernelLandweber"]

#: Default step sizes: ``1/‖K‖₂`` or the authors' ``1/n``.
STEP_RULES = ("norm", "n")


class KernelLandweber(IterativeEstimator):
    """Kernel Landweber iteration (gradient descent on ``½||Kα − y||²_K``), a.k.a. ES.

    ``α_0 = 0``, ``α_t = α_{t−1} − η (K α_{t−1} − y)``. The paper writes the step as ``γ/n``;
    here ``η`` is the step itself. ``step_rule`` chooses the default ``η``:

    * ``"norm"``: ``η = 1/‖K‖₂`` (the stable choice ``η < 2/‖K‖₂``, and the exact analogue of
      NYTRO's ``γ = 1/‖K_nm R⁻¹‖₂²``: with all points as centers the two iterations coincide);
    * ``"n"``: ``η = 1/n`` on the unnormalized K, as the authors' framework runs it
      (``w ← w − 2γ(Kw − y)`` with ``γ = 1/(2n)``, n the fit rows; Enitor's
      ``gdesc_kernel_square_loss``). Since ``‖K‖₂ ≤ n`` for kernels bounded by 1, this step
      is smaller, by ``‖K‖₂/n`` (about 0.4 on Adult), and the iteration slower.

    Iterations cost ``O(n²)`` each; memory ``O(n²)``. Repeated training rows are merged
    (``merge_duplicates``): with ``u`` distinct rows the iteration runs on the ``u × u`` matrix
    ``M = C^{1/2} K_u C^{1/2}`` (``C`` the counts) from ``Qᵀy`` — the same predictions at
    every iteration, since ``K = Q M Qᵀ`` and ``α_t`` leaves ``Q``'s range only by a vector
    that no prediction sees (:mod:`kernreg.solvers.blocks.distinct`); the step sizes are
    ``K``'s (``‖M‖₂ = ‖K‖₂``; ``1/n`` with ``n`` all rows). Iterations then cost ``O(u²)``.

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "linear"}, default "gaussian"
    sigma : float or "median", default "median"
        Kernel bandwidth; ``"median"``: the median distance between training rows (``sigma_``).
    fit_intercept : bool, default True
        Fit the targets less their mean, added back to predictions (``intercept_``).
    validation_fraction : float, optional
        Without ``X_val``: the share of ``X`` held out inside ``fit`` to select the path on.
    max_iter : int, default 500
        Maximum iterations (exactly this many without validation data).
    step_size : float, optional
        ``η``; default by ``step_rule``.
    step_rule : {"norm", "n"}, default "norm"
        Default step: ``1/λ_max(K)`` (Lanczos, exact for small n) or ``1/n``.
    stopping_rule : str, default "window_linear_fitting"
        One of :data:`kernreg.solvers.blocks.stopping.STOPPING_RULES`.
    window : int, default 10
    threshold : float, default 0.0
    select : {"best", "stop"}, optional
        Which iteration the rule reports (default: the rule's own, see
        :mod:`kernreg.solvers.blocks.stopping`).
    merge_duplicates : bool, default True
        Iterate on the distinct training rows (the same predictions; ``alpha_`` then holds one
        coefficient per distinct row, ``centers_`` those rows).
    refit : bool, default False
        After selecting t*, rerun t* iterations on training + validation rows (step size
        recomputed for the stacked kernel unless ``step_size`` is given).
    dtype : {"float64", "float32"}, default "float64"
        Kernel evaluation precision (iterations run in float64).
    memory_budget : int
        Bytes per kernel block in blocked evaluation.
    device : {"cpu", "torch", "cuda", "cuda:N"}, default "cpu"
        Where ``K`` and ``K(X_val, X)`` live and every iteration's products run
        (:mod:`kernreg.backend`); the iterates come back to the host as float64.

    Attributes
    ----------
    alpha_ : ndarray of shape (n_centers,)
    centers_ : the rows the model expands on (the distinct training rows when merged)
    best_iter_ : int
        Selected iteration t* (1-based; ``max_iter`` without validation data).
    n_iter_ : int
        Iterations run.
    step_size_ : float
        ``η`` used.
    path_ : dict or None
        ``{"iterations", "val_rmse", "stopped", "diverged"}`` with validation data.
    """

    #: K and K(X_val, X) go to the refit's kernel before it is evaluated (one n² array at a time)
    hand_on_each_phase = True

    multi_output = True

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        validation_fraction: float | None = None,
        max_iter: int = 500,
        step_size: float | None = None,
        step_rule: str = "norm",
        stopping_rule: str = DEFAULT_STOPPING_RULE,
        window: int = 10,
        threshold: float = 0.0,
        select: str | None = None,
        refit: bool = False,
        merge_duplicates: bool = True,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        device: str = "cpu",
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.fit_intercept = fit_intercept
        self.validation_fraction = validation_fraction
        self.max_iter = max_iter
        self.step_size = step_size
        self.step_rule = step_rule
        self.stopping_rule = stopping_rule
        self.window = window
        self.threshold = threshold
        self.select = select
        self.refit = refit
        self.merge_duplicates = merge_duplicates
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.device = device

    def _iteration(self, X: Any, y: np.ndarray) -> tuple[Any, float]:
        """The ``step`` closure for data (X, y) and the step size it uses, and ``centers_``
        (X, or its distinct rows); its K is handed on when the fit (or its phase) ends."""
        rows = repeated_rows(X) if self.merge_duplicates else None
        self.centers_ = X if rows is None else X[rows.first]
        device, K = self.kernel_.device, _held_kernel(self.kernel_, self._hold, self.centers_)
        M = sym_inplace(K())
        if rows is not None:  # M = C^{1/2} K_u C^{1/2}, in place, iterated from Qᵀy
            scale = device.asarray(rows.scale)
            M *= scale[:, None]
            M *= scale[None, :]
            y = rows.reduce(y)
        eta = self.step_size
        if eta is None:
            eta = 1.0 / (top_eigenvalue(_operator(M, device)) if self.step_rule == "norm"
                         else X.shape[0])
        # the step reads K through the getter: nothing of it outlives the hand-on
        return _landweber_step(K, y, eta, device, None if rows is None else rows.scale), \
            float(eta)

    def _start_iterations(self, X: Any, y: np.ndarray, X_val: Any, y_val: Any) -> Iterations:
        check_outputs(self, y)
        step, self.step_size_ = self._iteration(X, y)
        if X_val is None:
            return Iterations(step)
        K_val = _held_kernel(self.kernel_, self._hold, X_val, self.centers_)
        device = self.kernel_.device

        def predict(a: np.ndarray) -> np.ndarray:
            return device.to_numpy(K_val() @ device.asarray(a))

        # scored in chunks: one read of K_val (n_val × n) per chunk instead of per iteration
        score = prediction_rmse(predict, y_val) if y.ndim == 1 else raveled_error(predict, y_val)
        return Iterations(step, score, VALIDATION_CHUNK, self._refit_step)

    def _refit_step(self, X: Any, y: np.ndarray) -> Any:
        step, self.refit_step_size_ = self._iteration(X, y)
        return step

    def _fit_info(self) -> dict[str, Any]:
        return {"step_size": float(self.step_size_), "n_iter": float(self.n_iter_)}

    def check_params(self) -> None:
        super().check_params()
        check_choice(self.step_rule, "step_rule", STEP_RULES)
        check_bool(self.merge_duplicates, "merge_duplicates")


def _held_kernel(kernel: Any, hold: Callable[[Callable[[], Any]], None], X: Any,
                 Y: Any = None) -> Callable[[], Any]:
    """``K(X, Y)`` in float64 on the kernel's device (on the host written into the previous
    trial's array of its shape when one was released, see
    :mod:`kernreg.solvers.blocks.buffers`), behind a getter: ``hold`` gets what hands it on
    (releases a host array, drops a device one) when the fit or its phase ends, after which
    nothing refers to it."""
    held: dict[str, Any] = {}
    if not kernel.device.is_numpy:
        xp = kernel.device.xp
        held["K"] = xp.astype(kernel.on_device(X, Y), xp.float64, copy=False)
    elif kernel.dtype == np.float64:
        held["K"] = kernel(X, Y, out=take((X.shape[0], (X if Y is None else Y).shape[0]),
                                          np.float64))
    else:
        held["K"] = np.asarray(kernel(X, Y), dtype=np.float64)
    hold(lambda: _hand_on(held))
    return lambda: held["K"]


def _landweber_step(K: Callable[[], Any], y: np.ndarray, eta: float, device: Device,
                    scale: np.ndarray | None) -> Callable[[], np.ndarray]:
    """One Landweber update per call, ``α ← α − η(Kα − y)``, on ``K``'s device (``K()``: the
    held kernel); returns the centers' coefficients on the host (``C^{1/2} a`` when merged)."""
    yd = device.asarray(y)
    alpha = device.zeros(tuple(yd.shape))
    coef = None if scale is None else np.zeros(yd.shape)
    weights = None if scale is None else (scale[:, None] if yd.ndim == 2 else scale)

    def step() -> np.ndarray:
        alpha[:] -= eta * (K() @ alpha - yd)
        a = device.to_numpy(alpha)  # numpy: alpha itself
        if scale is None:
            return a.reshape(-1)  # k outputs: the loop's raveled column
        np.multiply(weights, a, out=coef)
        return coef.reshape(-1)

    return step


def _operator(K: Any, device: Device) -> Any:
    """``K`` for :func:`top_eigenvalue`: itself on the host, a device ``K``'s products."""
    if is_host(K):
        return K

    def product(v: np.ndarray) -> np.ndarray:
        return device.to_numpy(K @ device.asarray(v))

    return LinearOperator(tuple(K.shape), matvec=product, matmat=product, dtype=np.float64)


def _hand_on(held: dict[str, Any]) -> None:
    """Drop the held kernel array (released for the next fit when it is a host one)."""
    K = held.pop("K", None)
    if K is not None and is_host(K):
        release(K)


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    # K (float64, n × n) and the validation kernel K(X_val, X)
    return {"K": problem.n_fit**2 * F64, "validation kernel": problem.n_val * problem.n_fit * F64}


register(AlgorithmSpec(
    name="es",
    estimator=KernelLandweber,
    title="ES",
    order=30,
    schema={"max_iter": {"type": "integer", "minimum": 1}, "stopping": STOPPING,
            "step_rule": {"enum": list(STEP_RULES)}, "merge_duplicates": {"type": "boolean"}},
    config_defaults=("max_iter", "stopping", "step_rule"),
    memory=_memory,
    summary="kernel Landweber iteration on K, early-stopped on validation error",
))
