"""Kernel ordinary least squares: the minimum-norm interpolant ``α = K⁺ y``."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.base import KernelEstimator
from kernreg.solvers.blocks.linalg import eigh_inplace, sym_inplace
from kernreg.solvers.blocks.memory import full_kernel_memory
from kernreg.solvers.blocks.metrics import rmse
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

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "linear"}, default "gaussian"
    sigma : float, default 1.0
        Kernel bandwidth (ignored by the linear kernel).
    rcond : float, optional
        Relative cutoff of the pseudo-inverse; default ``n · machine epsilon``.
    dtype : {"float64", "float32"}, default "float64"
        Kernel evaluation precision (the solve runs in float64).
    memory_budget : int
        Bytes per kernel block in blocked evaluation (see :class:`kernreg.kernels.Kernel`).

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
    centers_ : training inputs
    rank_ : int
        Number of eigenvalues kept.
    path_ : dict or None
        ``{"val_rmse": array([e])}`` when validation data were given to ``fit``.
    """

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float = 1.0,
        rcond: float | None = None,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.rcond = rcond
        self.dtype = dtype
        self.memory_budget = memory_budget

    def _fit_info(self) -> dict[str, Any]:
        return {"rank": float(self.rank_)}

    def check_params(self) -> None:
        super().check_params()
        _check_rcond(self.rcond)

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> KOLS:
        """Fit ``α = K⁺ y``; with validation data also record the validation RMSE.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
        X_val, y_val : optional validation data (given together)

        Returns
        -------
        self
        """
        X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
        n = X.shape[0]
        rcond = n * np.finfo(np.float64).eps if self.rcond is None else self.rcond
        K = sym_inplace(np.asarray(self.kernel_(X), dtype=np.float64))
        s, U = eigh_inplace(K)
        keep = np.abs(s) > rcond * np.max(np.abs(s))
        # zero weights instead of U[:, keep], which would copy the n × n eigenvectors twice
        weights = np.divide(U.T @ y, s, out=np.zeros_like(s), where=keep)
        self.alpha_ = U @ weights
        self.rank_ = int(keep.sum())
        self.centers_ = X
        self.path_ = None
        if X_val is not None:
            self.path_ = {"val_rmse": np.array([rmse(y_val, self.predict(X_val))])}
        return self


register(AlgorithmSpec(
    name="kols",
    estimator=KOLS,
    title="KOLS",
    order=10,
    memory=full_kernel_memory,
    summary="α = K⁺y, the minimum-norm interpolant (no regularization, no path)",
))
