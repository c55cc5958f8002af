"""Several outputs in one fit (``y`` of shape ``(n, k)``): what the multi-output estimators
share — the settings that take them, and the predictions of a path's coefficients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kernreg.solvers.blocks.dask_rows import path_rmse
from kernreg.solvers.blocks.lambda_path import joint_rmse

__all__ = ["check_outputs", "path_error", "path_outputs", "raveled_error"]


def check_outputs(est: Any, y: np.ndarray) -> None:
    """A multi-output fit (``y`` of shape ``(n, k)``) runs in this process on the CPU, in
    float64 products: refused (a ``ValueError`` naming the setting) on a Dask backend, on a
    device, in mixed precision. Nothing to check for one output."""
    if y.ndim == 1:
        return
    params = est.get_params()
    if params.get("precision") == "mixed":
        raise ValueError("precision='mixed' refines one output's path; with y of shape (n, k) "
                         "give precision='float64' or 'auto'")
    for key, allowed in (("backend", "local"), ("device", "cpu")):
        value = params.get(key, allowed)
        if str(getattr(value, "name", value)) != allowed:  # a Device, or its name
            raise ValueError(f"{key}={value!r}: y of shape (n, k) is fitted with "
                             f"{key}={allowed!r}")


def path_error(kernel: Any, X: Any, y: np.ndarray, C: Any, coefs: np.ndarray,
               backend: str = "local") -> np.ndarray:
    """The validation RMSE of every path point: of one output (on the backend's rows), or over
    every row and output of k (:func:`~kernreg.solvers.blocks.lambda_path.joint_rmse`)."""
    if coefs.ndim == 2:
        return path_rmse(kernel, X, y, C, coefs, backend)
    return joint_rmse(path_outputs(kernel, X, C, coefs), y)


def raveled_error(predict: Callable[[np.ndarray], np.ndarray], y: np.ndarray
                  ) -> Callable[[np.ndarray], np.ndarray]:
    """The validation RMSE over every row and output of raveled coefficient columns: each
    column is the ``(m, k)`` coefficients of k outputs raveled (what an iteration loop stores
    of a multi-output iterate); ``predict(A)`` gives the validation rows' outputs of the
    coefficient columns ``A`` ``(m, N)`` — one product for every iterate and output."""
    k = y.shape[1]

    def score(coefs: np.ndarray) -> np.ndarray:
        mk, c = coefs.shape
        per_point = coefs.reshape(mk // k, k, c).transpose(0, 2, 1).reshape(mk // k, c * k)
        return joint_rmse(np.asarray(predict(per_point)).reshape(-1, c, k), y)

    return score


def path_outputs(kernel: Any, X: Any, C: Any, coefs: np.ndarray) -> np.ndarray:
    """``K(X, C)`` times every path point's coefficients: ``(n, L)`` for ``(m, L)``, ``(n, L,
    k)`` for the ``(m, L, k)`` of k outputs (one blocked product for all)."""
    if coefs.ndim == 2:
        return kernel.matvec(X, C, coefs)
    m, L, k = coefs.shape
    return kernel.matvec(X, C, coefs.reshape(m, L * k)).reshape(-1, L, k)
