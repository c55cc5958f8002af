"""Kernel ordinary least squares: the minimum-norm interpolant ``α = K⁺ y``."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from kernreg._validation import check_bool, check_positive
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.base import KernelEstimator
from kernreg.solvers.blocks.distinct import repeated_rows
from kernreg.solvers.blocks.lambda_path import joint_rmse
from kernreg.solvers.blocks.memory import full_kernel_memory
from kernreg.solvers.blocks.metrics import rmse
from kernreg.solvers.blocks.min_norm import (
    MIN_NORM_SOLVERS,
    check_solver,
    default_rcond,
    min_norm_solve,
)
from kernreg.solvers.blocks.outputs import check_outputs
from kernreg.solvers.blocks.tridiagonal import spectral_method
from kernreg.solvers.registry import AlgorithmSpec, register

__all__ = ["KOLS"]


def _check_rcond(rcond: Any) -> None:
    if rcond is None:
        return
    if isinstance(rcond, bool) or not isinstance(rcond, numbers.Real) or not np.isfinite(rcond) \
            or rcond < 0:
        raise ValueError(f"rcond must be a finite number >= 0, got {rcond!r}")


class KOLS(KernelEstimator):
    """Kernel ordinary least squares, ``α = K⁺ y`` (no regularization, no path).

    The pseudo-inverse drops eigenvalues of ``K`` with ``|s| <= rcond · max|s|``; the default
    ``rcond = n · eps`` mirrors MATLAB's ``pinv`` tolerance. Cost ``O(n³)`` time, ``O(n²)`` memory.

    ``solver="pivoted_cholesky"`` (default) factors ``K`` by LAPACK's pivoted Cholesky stopped at
    the same cut-off and takes the minimum-norm solution on the factor's range (``n³/3`` flops
    instead of the eigendecomposition's ``≈ 3n³``); when it cannot certify that the eigenvalue
    rule keeps the same rank (a spectrum without a gap at the cut-off) it falls back to the
    eigendecomposition, so both solvers give the same model to rounding
    (:mod:`kernreg.solvers.blocks.min_norm`).

    ``y`` of shape ``(n, k)`` gives k outputs from the one factorization (``alpha_`` of shape
    ``(n, k)``), each equal to its column's own fit.

    Repeated training rows are merged first (``merge_duplicates``): with ``u`` distinct rows the
    factorization runs on a ``u × u`` matrix with the same non-zero spectrum as ``K``, which
    gives ``K⁺ y`` exactly, under the same cut-off (:mod:`kernreg.solvers.blocks.distinct`).

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "linear"}, default "gaussian"
    sigma : float or "median", default "median"
        Kernel bandwidth; ``"median"``: the median distance between training rows (``sigma_``).
    fit_intercept : bool, default True
        Fit the targets less their mean, added back to predictions (``intercept_``).
    rcond : float, optional
        Relative cutoff of the pseudo-inverse; default ``n · machine epsilon``.
    solver : {"pivoted_cholesky", "eigh", "tridiagonal"}, default "pivoted_cholesky"
        Factorization of ``K``: pivoted Cholesky (falling back to the eigenvalue rule when the
        gap test fails), the full eigendecomposition, or the eigenvalue rule in ``K``'s own
        memory (:mod:`kernreg.solvers.blocks.tridiagonal`). The fallback is ``eigh``, or the
        tridiagonal path when ``eigh``'s ``2n²`` float64 exceed ``max_memory``.
    merge_duplicates : bool, default True
        Solve on the distinct rows (the same ``α``; ``False`` factors the whole ``K``).
    dtype : {"float64", "float32"}, default "float64"
        Kernel evaluation precision (the solve runs in float64).
    memory_budget : int
        Bytes per kernel block in blocked evaluation (see :class:`kernreg.kernels.Kernel`).
    device : {"cpu", "torch", "cuda", "cuda:N"}, default "cpu"
        Where the ``n × n`` kernel lives and is factored (:mod:`kernreg.backend`). PyTorch
        has no pivoted Cholesky: on a device ``K⁺y`` always comes from ``eigh`` (cuSOLVER on
        a GPU), whatever ``solver`` says, and ``factorization_`` records ``"eigh"``.
    max_memory : int, optional
        Bytes the fit may hold (a run's budget): above it ``eigh`` gives way to the
        tridiagonal path; ``None``: no limit.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,) or (n, k)
    centers_ : training inputs
    rank_ : int
        Number of eigenvalues (or Cholesky pivots) kept.
    factorization_ : {"pivoted_cholesky", "eigh", "tridiagonal"}
        The factorization that produced ``alpha_`` (``eigh`` or ``tridiagonal`` after a
        fallback).
    n_distinct_ : int
        Rows of the system factored (the distinct training rows, or all with
        ``merge_duplicates=False``).
    path_ : dict or None
        ``{"val_rmse": array([e])}`` when validation data were given to ``fit`` (over every
        row and output for k outputs).
    """

    multi_output = True

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        rcond: float | None = None,
        solver: str = "pivoted_cholesky",
        merge_duplicates: bool = True,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        device: str = "cpu",
        max_memory: int | None = None,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.fit_intercept = fit_intercept
        self.rcond = rcond
        self.solver = solver
        self.merge_duplicates = merge_duplicates
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.device = device
        self.max_memory = max_memory

    def _fit_info(self) -> dict[str, Any]:
        return {"rank": float(self.rank_), "factorization": self.factorization_,
                "n_distinct": float(self.n_distinct_)}

    def check_params(self) -> None:
        super().check_params()
        _check_rcond(self.rcond)
        check_solver(self.solver)
        check_bool(self.merge_duplicates, "merge_duplicates")
        check_positive(self.max_memory, "max_memory", allow_none=True)

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> KOLS:
        """Fit ``α = K⁺ y``; with validation data also record the validation RMSE.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,) or (n, k)
        X_val, y_val : optional validation data (given together)

        Returns
        -------
        self
        """
        X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
        check_outputs(self, y)
        rcond = default_rcond(len(y)) if self.rcond is None else self.rcond  # pinv's n
        rows = repeated_rows(X) if self.merge_duplicates else None
        size = len(y) if rows is None else rows.n_distinct
        # the uncertified Cholesky's fallback: decided here, logged by min_norm_solve if taken
        fallback = spectral_method("auto", size, self.max_memory, self.kernel_.device.is_numpy)
        if rows is not None:  # M = C^{1/2} K_u C^{1/2} on the distinct rows, from Qᵀy
            X_u = X[rows.first]
            solution = min_norm_solve(lambda: self.kernel_.on_device(X_u), rows.reduce(y),
                                      rcond=rcond, solver=self.solver, scale=rows.scale,
                                      fallback=fallback)
            self.alpha_ = rows.expand(solution.alpha)
            self.n_distinct_ = rows.n_distinct
        else:
            solution = min_norm_solve(lambda: self.kernel_.on_device(X), y, rcond=rcond,
                                      solver=self.solver, fallback=fallback)
            self.alpha_ = solution.alpha
            self.n_distinct_ = len(y)
        self.rank_ = solution.rank
        self.factorization_ = solution.factorization
        self.centers_ = X
        self.path_ = None
        if X_val is not None:
            predicted = KernelEstimator.predict(self, X_val)  # outputs, in a classifier too
            error = rmse(y_val, predicted) if y.ndim == 1 else \
                joint_rmse(predicted[:, None, :], y_val)[0]
            self.path_ = {"val_rmse": np.array([error])}
        return self


register(AlgorithmSpec(
    name="kols",
    estimator=KOLS,
    title="KOLS",
    order=10,
    schema={"solver": {"enum": list(MIN_NORM_SOLVERS)},
            "rcond": {"type": "number", "minimum": 0},
            "merge_duplicates": {"type": "boolean"}},
    memory=full_kernel_memory,
    summary="α = K⁺y, the minimum-norm interpolant (no regularization, no path)",
))
