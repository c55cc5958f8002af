"""The λ path: coefficients of every λ from one factorization, and the fit / validate / select
body of the λ-path estimators (KRLS, NKRLS, incremental NKRLS, random features, PCG).

:class:`LambdaPathEstimator` writes the body once: check the data and parameters, set up the
problem, solve at ``lam`` without validation data, else solve the grid, score it on the
validation rows, select λ* (and a level m' or D', or an iteration), record the path and refit
on training + validation rows when asked. An algorithm supplies the steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as la
from array_api_compat import device as device_of

from kernreg._validation import check_choice, check_data, check_lambdas
from kernreg.backend.linalg import eigh, namespace
from kernreg.progress import report
from kernreg.solvers.blocks.base import DEFAULT_LAMBDAS, KernelEstimator
from kernreg.solvers.blocks.holdout import refit_rows
from kernreg.solvers.blocks.linalg import NystromFactor
from kernreg.solvers.blocks.path_clock import mark_point, scored_seconds, timing_fit
from kernreg.solvers.blocks.stopping import best_iteration
from kernreg.solvers.blocks.tridiagonal import tridiagonal_path_coefs, tridiagonalize

__all__ = [
    "DEFAULT_LEVELS",
    "PATH_METHODS",
    "LambdaPath",
    "LambdaPathEstimator",
    "NystromSystem",
    "best_pair",
    "check_m_levels",
    "column_error",
    "column_rmse",
    "default_m_levels",
    "eigen_path_coefs",
    "joint_rmse",
    "nkrls_path",
]

#: How the NKRLS λ path is solved: one eigendecomposition for all λ, the same through one
#: tridiagonal reduction (:mod:`kernreg.solvers.blocks.tridiagonal`), or one Cholesky per λ.
PATH_METHODS = ("eigh", "tridiagonal", "cholesky")

#: Number of m-levels (or D-levels) recorded when none are given (LiM Figure 2 uses 50).
DEFAULT_LEVELS = 50


def eigen_path_coefs(s: Any, U: Any, rhs: Any, shifts: Any) -> Any:
    """Columns ``U diag(1/(s + shift)) Uᵀ rhs`` for every shift: ``(m, L)`` for ``rhs`` of
    shape ``(m,)``, ``(m, L, k)`` for k right-hand sides ``(m, k)`` (one product for all).

    ``s`` are eigenvalues of a PSD matrix; rounding can make some slightly negative, so they
    are clipped at 0 first (the exact matrix has none). ``s`` and ``U`` are numpy arrays or
    device (torch) arrays of one device, where the coefficients are formed and returned;
    ``rhs`` and ``shifts`` (host arrays, or arrays of that device) go there first.
    """
    xp = namespace(s, U)
    rhs = xp.asarray(rhs, device=device_of(U))
    shifts = xp.asarray(shifts, device=device_of(U))
    s = xp.maximum(s, xp.zeros_like(s))
    c = U.T @ rhs
    if c.ndim == 1:
        return U @ (c[:, None] / (s[:, None] + shifts[None, :]))
    m, k, L = c.shape[0], c.shape[1], shifts.shape[0]
    scaled = c[:, None, :] / (s[:, None, None] + shifts[None, :, None])  # (m, L, k)
    return xp.reshape(U @ xp.reshape(scaled, (m, L * k)), (m, L, k))


def nkrls_path(
    H: np.ndarray,
    Aty: np.ndarray,
    factor: NystromFactor,
    lambdas: np.ndarray,
    n: int,
    method: str = "eigh",
) -> tuple[np.ndarray, list[float]]:
    """NKRLS coefficients ``α(λ) = R⁻¹ (AᵀA + λnI)⁻¹ Aᵀy`` for every λ.

    Parameters
    ----------
    H, Aty : ndarray
        ``AᵀA`` (m, m) and ``Aᵀy`` (m,) with ``A = K_nm R⁻¹`` (see
        :func:`~kernreg.solvers.blocks.nystrom.nystrom_products`).
    factor : NystromFactor
        ``RᵀR = K_mm + εI``.
    lambdas : ndarray of shape (L,)
    n : int
        Number of training rows (the λ scaling).
    method : {"eigh", "tridiagonal", "cholesky"}
        ``"eigh"``: ``AᵀA = V diag(s) Vᵀ`` once, then ``β(λ) = V diag(1/(s + λn)) Vᵀ Aᵀy``
        (``O(m³ + m²·L)``); a single λ (a refit, a fit at ``lam``, a one-point grid) has
        nothing to share and is solved by one Cholesky of ``AᵀA + λnI`` instead (``m³/3``
        flops against about ``10 m³`` for the eigendecomposition with its vectors), through
        the eigendecomposition only when that Cholesky fails. ``"tridiagonal"``: the same
        formula through one Householder reduction of a copy of ``AᵀA`` and the tridiagonal's
        eigenvectors a chunk at a time (no ``m × m`` eigenvectors; on a device, ``eigh``
        there). ``"cholesky"``: factor
        ``AᵀA + λnI`` afresh for each λ (``O(m³·L)``, the authors' scheme); when that Cholesky
        fails (λn below rounding of ``AᵀA``) the λ is solved through the eigendecomposition
        instead and listed in the second return value. Each solved λ marks the running fit's
        clock (:func:`~kernreg.solvers.blocks.path_clock.mark_point`): the λ path's times.

    Returns
    -------
    alphas : ndarray of shape (m, L), or (m, L, k) for ``Aty`` of shape (m, k)
    fallbacks : list of float
        λ values for which the Cholesky variant fell back to the eigendecomposition.
    """
    check_choice(method, "path_method", PATH_METHODS)
    fallbacks: list[float] = []
    if method != "cholesky" and lambdas.size == 1:
        beta = _cholesky_solve(H, Aty, float(lambdas[0]) * n)
        if beta is not None:
            return _solved(factor, beta[:, None]), fallbacks
    if method == "tridiagonal" and factor.device.is_numpy:
        report("tridiagonal reduction of the {0}×{0} system (every λ at once)", H.shape[0])
        tri = tridiagonalize(np.array(H, dtype=np.float64, order="C", copy=True))
        return _solved(factor, tridiagonal_path_coefs(tri, Aty, lambdas * n)), fallbacks
    if method != "cholesky":
        device = factor.device
        if device.is_numpy:
            report("eigendecomposition of the {0}×{0} system (every λ at once)", H.shape[0])
            s, V = la.eigh(H, check_finite=False, driver="evd")  # divide and conquer: ~15% faster
        else:  # on the kernel's device (m = 10000: seconds on a GPU, minutes on 2 cores)
            s, V = eigh(device.asarray(H))
        betas = eigen_path_coefs(s, V, Aty, lambdas * n)
        return device.to_numpy(_solved(factor, betas)), fallbacks
    else:
        betas = np.empty((H.shape[0], lambdas.size, *Aty.shape[1:]))
        eig = None
        for j, lam in enumerate(lambdas):
            report("λ {}/{} (one Cholesky each)", j + 1, lambdas.size)
            beta = _cholesky_solve(H, Aty, lam * n)
            if beta is not None:
                betas[:, j] = beta
            else:
                if eig is None:
                    eig = la.eigh(H, check_finite=False)
                betas[:, j] = eigen_path_coefs(*eig, Aty, np.array([lam * n]))[:, 0]
                fallbacks.append(float(lam))
            mark_point()
    return _solved(factor, betas), fallbacks


def _solved(factor: NystromFactor, betas: Any) -> Any:
    """``R⁻¹ β`` of every column: of ``(m, L)``, or of ``(m, L, k)`` (k outputs) as one
    ``(m, L·k)`` solve."""
    if betas.ndim == 2:
        return factor.solve(betas)
    m, L, k = betas.shape
    return factor.solve(betas.reshape(m, L * k)).reshape(m, L, k)


def _cholesky_solve(H: np.ndarray, rhs: np.ndarray, shift: float) -> np.ndarray | None:
    """``(H + shift·I)⁻¹ rhs`` by Cholesky, or ``None`` when the factorization fails."""
    M = H.copy()
    M.flat[:: M.shape[0] + 1] += shift
    try:
        cf = la.cho_factor(M, overwrite_a=True, check_finite=False)
    except la.LinAlgError:
        return None
    return la.cho_solve(cf, rhs, check_finite=False)


@dataclass
class NystromSystem:
    """``(AᵀA, Aᵀy)`` of one set of rows with the Nyström factor ``R``: every λ's NKRLS
    system (see :func:`~kernreg.solvers.blocks.nystrom.nystrom_products`); ``rows`` is the
    number of rows summed (0 when not recorded)."""

    factor: NystromFactor
    H: np.ndarray
    Aty: np.ndarray
    rows: int = 0
    #: How the system was formed and solved, for the fit's record.
    info: dict[str, Any] = field(default_factory=lambda: {"precision": "float64"})

    def close(self) -> None:
        """End of use (a system holding kernel arrays hands them on)."""

    def solve(self, lambdas: np.ndarray, n: int, method: str = "eigh"
              ) -> tuple[np.ndarray, list[float]]:
        """:func:`nkrls_path` of this system."""
        return nkrls_path(self.H, self.Aty, self.factor, lambdas, n, method)


def default_m_levels(m: int, count: int = DEFAULT_LEVELS) -> np.ndarray:
    """``count`` evenly spaced levels ending at ``m`` (fewer when ``m < count``)."""
    return np.unique(np.ceil(np.linspace(m / count, m, count)).astype(np.int64))


def check_m_levels(levels: Any, m: int) -> np.ndarray:
    """Sorted distinct integer levels in ``[1, m]``; ``None`` gives :func:`default_m_levels`."""
    if levels is None:
        return default_m_levels(m)
    arr = np.atleast_1d(np.asarray(levels))
    if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"m_values must be a non-empty list of integers, got {levels!r}")
    if arr.min() < 1 or arr.max() > m:
        raise ValueError(f"m_values must lie in [1, m] = [1, {m}], got {levels!r}")
    return np.unique(arr.astype(np.int64))


def best_pair(val_rmse: np.ndarray) -> tuple[int, int]:
    """``(j, k)`` of the lowest validation RMSE on an (L λ × M levels) grid, NaN ignored; among
    ties the fewest centers or features ("less is more"): the grid is scanned level-major."""
    k, j = np.unravel_index(np.nanargmin(val_rmse.T), val_rmse.T.shape)
    return int(j), int(k)


def joint_rmse(predictions: np.ndarray, y: np.ndarray) -> np.ndarray:
    """RMSE over every row and output of each path point: ``predictions`` ``(n, L, k)``
    against ``y`` ``(n, k)`` → ``(L,)`` (the path's selection measure of a multi-output fit)."""
    residual = predictions - y[:, None, :]
    return np.sqrt(np.einsum("nlk,nlk->l", residual, residual) / (y.shape[0] * y.shape[1]))


def column_rmse(row_blocks: Iterable[tuple[slice, np.ndarray]], coefs: np.ndarray,
                y: np.ndarray, dtype: Any = np.float64) -> np.ndarray:
    """RMSE of ``B @ coefs[:, j]`` against ``y`` for every column ``j``, where ``row_blocks``
    yields ``(rows, B[rows])``; NaN columns stay NaN and the ``n × columns`` predictions are
    never stored. ``coefs`` enter the products in ``dtype`` (the blocks' own).

    For k outputs (``y`` of shape ``(n, k)``) a path point is k consecutive columns (its
    ``(m, k)`` coefficients raveled, outputs fastest) and its RMSE runs over every row and
    output: ``(columns / k,)`` values."""
    k = 1 if y.ndim == 1 else y.shape[1]
    bad = np.isnan(coefs).any(axis=0)
    coefs = np.where(bad, 0.0, coefs).astype(dtype)
    sq = np.zeros(coefs.shape[1] // k)
    for sl, block in row_blocks:
        if y.ndim == 1:
            resid = block @ coefs - y[sl, None]
            sq += np.einsum("ij,ij->j", resid, resid, dtype=np.float64)
        else:
            resid = (block @ coefs).reshape(block.shape[0], -1, k) - y[sl, None, :]
            sq += np.einsum("ijk,ijk->j", resid, resid, dtype=np.float64)
    out = np.sqrt(sq / y.size)
    out[bad.reshape(-1, k).any(axis=1)] = np.nan
    return out


def column_error(row_blocks: Iterable[tuple[slice, np.ndarray]], coefs: np.ndarray,
                 y: np.ndarray, dtype: Any = np.float64) -> np.ndarray:
    """Classification error of ``B @ coefs[:, j]`` against the two-class targets ``y`` for
    every column ``j`` (``row_blocks`` as :func:`column_rmse`): an output is the upper class
    when it is at or above the midpoint of the two codes (0 for ±1, 0.5 for {0, 1}); NaN
    columns stay NaN. For one-vs-all coded targets ``y`` ``(n, k)`` (columns as
    :func:`column_rmse`'s), a row is wrong when its largest output is not its class's."""
    k = 1 if y.ndim == 1 else y.shape[1]
    bad = np.isnan(coefs).any(axis=0)
    coefs = np.where(bad, 0.0, coefs).astype(dtype)
    if y.ndim == 1:
        middle = (float(np.min(y)) + float(np.max(y))) / 2.0
        upper = np.asarray(y) > middle
    else:
        classes = np.argmax(y, axis=1)
    wrong = np.zeros(coefs.shape[1] // k)
    for sl, block in row_blocks:
        outputs = block @ coefs
        if y.ndim == 1:
            wrong += ((outputs >= middle) != upper[sl, None]).sum(axis=0)
        else:
            chosen = np.argmax(outputs.reshape(block.shape[0], -1, k), axis=2)
            wrong += (chosen != classes[sl, None]).sum(axis=0)
    out = wrong / y.shape[0]
    out[bad.reshape(-1, k).any(axis=1)] = np.nan
    return out


@dataclass
class LambdaPath:
    """A validated λ path: what :class:`LambdaPathEstimator` selects from.

    Attributes
    ----------
    lambdas : ndarray of shape (L,)
    val_rmse : ndarray of shape (L,) or (L, M)
        Validation RMSE of every λ (and level, for a two-parameter path).
    coef : callable
        ``coef(j, k)``: the coefficients of λ_j (at level ``k``; ``k = 0`` on a one-parameter
        path), or what the estimator's ``_choose`` takes them from.
    levels : ndarray of shape (M,), optional
        The levels m' (or D') of a two-parameter path; recorded as ``path_["m_values"]``.
    record : dict
        Further entries of ``path_`` (failures, iterations per λ, ...).
    choice : (int, int), optional
        The selected ``(j, k)`` when the algorithm selects by its own rule, else
        :meth:`select`'s.
    seconds : ndarray shaped like ``val_rmse``, optional
        When each point's validation error was known, counted from the start of ``fit``; the
        algorithm sets them where it knows better than :meth:`LambdaPathEstimator.fit`'s
        default (see there).
    """

    lambdas: np.ndarray
    val_rmse: np.ndarray
    coef: Callable[[int, int], Any]
    levels: np.ndarray | None = None
    record: dict[str, Any] = field(default_factory=dict)
    choice: tuple[int, int] | None = None
    seconds: np.ndarray | None = None

    def select(self) -> tuple[int, int]:
        """``(j, k)`` of the lowest validation RMSE: first λ on ties, or :func:`best_pair`."""
        if self.choice is not None:
            return self.choice
        if self.levels is None:
            return best_iteration(self.val_rmse) - 1, 0
        return best_pair(self.val_rmse)

    def as_dict(self) -> dict[str, Any]:
        """The record stored as ``path_``."""
        out: dict[str, Any] = {"lambdas": self.lambdas}
        if self.levels is not None:
            out["m_values"] = self.levels
        out["val_rmse"] = self.val_rmse
        if self.seconds is not None:
            out["seconds"] = self.seconds
        return {**out, **self.record}


def _default_seconds(shape: tuple[int, ...], marks: list[float], now: float) -> np.ndarray:
    """A λ path's times when :meth:`LambdaPathEstimator._path` set none: each λ's mark plus
    the scoring after the last (one mark per λ of a one-parameter path), else ``now`` for
    every point (solved and scored together)."""
    if len(shape) == 1 and len(marks) == shape[0]:
        return scored_seconds(marks, now)
    return np.full(shape, now)


class LambdaPathEstimator(KernelEstimator):
    """Base of the estimators whose validated path runs over λ (``lam``, ``lambdas`` and
    ``refit`` parameters).

    ``fit`` calls, in order: :meth:`_prepare` (centers, features, products of the fit rows);
    without validation data :meth:`_fit_at` (the solution at ``lam``); with validation data
    :meth:`_path` (the validated grid), :meth:`_choose` (the model at the selected ``(j, k)``)
    and, when ``refit``, :meth:`_refit` on training + validation rows.

    ``path_["seconds"]`` (shaped like ``path_["val_rmse"]``) says when each point's validation
    error was known, in seconds from the start of ``fit``: the path's own times where
    :meth:`_path` sets them (levels, PCG's λ walk); else, where the path's loop marked each
    λ's model ready (one Cholesky per λ), that moment plus the time of the validation scoring
    that followed (:func:`~kernreg.solvers.blocks.path_clock.scored_seconds`); else — every λ
    from one eigendecomposition, scored together — the moment :meth:`_path` returned, the
    same for every point.
    """

    path_parameter = "lambda"

    def check_params(self) -> None:
        super().check_params()
        self._check_refit()
        self._check_lam(self.lam)
        if self.lambdas is not None:
            check_lambdas(self.lambdas)

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None,
            X_eval: Any = None) -> Any:
        """Fit at ``lam``, or over the ``lambdas`` path selecting λ on validation data.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
        X_val, y_val : optional validation data (given together)
        X_eval : array-like or sparse matrix of shape (n_eval, d), optional
            Rows (a test set) on which every model of the validated path is evaluated: with
            validation data, ``eval_outputs_`` holds their outputs; they take no part in the
            selection. ``eval_seconds_`` is the time this took (inside ``fit``'s).

        Returns
        -------
        self
        """
        with timing_fit() as clock:  # the path's times count from here
            X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
            if X_eval is not None:
                X_eval = check_data(X_eval, "X_eval", estimator=self, reset=False)
            refit = self._check_refit()
            lam = self._check_lam(self.lam)  # checked even when the grid is used
            state = self._prepare(X, y)
            try:
                if X_val is None:
                    self._fit_at(state, X, y, lam)
                    self.path_ = None
                    return self
                lambdas = check_lambdas(DEFAULT_LAMBDAS if self.lambdas is None
                                        else self.lambdas)
                clock.marks.clear()
                path = self._path(state, X, y, X_val, y_val, lambdas)
                if path.seconds is None:
                    path.seconds = _default_seconds(np.shape(path.val_rmse), clock.marks,
                                                    clock())
                j, k = path.select()
                self.path_ = path.as_dict()
                if X_eval is not None:
                    start = time.perf_counter()
                    self.eval_outputs_ = self._eval_path(state, path, X_eval)
                    self.eval_seconds_ = time.perf_counter() - start
                self._choose(state, path, j, k)
            finally:
                close = getattr(state, "close", None)  # kernel arrays held for the path go now
                if close is not None:
                    close()
            if refit:
                self._refit(state, *refit_rows(X, y, X_val, y_val))
        return self

    def _eval_path(self, state: Any, path: LambdaPath, X_eval: Any) -> np.ndarray:
        """Outputs on ``X_eval`` of every model of the path, ``(L, M, n_eval)`` (``M = 1`` on a
        one-parameter path), NaN where the path has no model (a failed factorization).

        Each model is set by :meth:`_choose`, as the selection sets its own, and predicts: the
        models are those the validation error scored (fitted on the fit rows, before any
        refit). An algorithm may override this with a faster evaluation of the same models.
        """
        grid = np.asarray(path.val_rmse)
        grid = grid[:, None] if grid.ndim == 1 else grid
        L, M = grid.shape
        out = np.full((L, M, X_eval.shape[0]), np.nan)
        for j in range(L):
            for k in range(M):
                if np.isfinite(grid[j, k]):
                    self._choose(state, path, j, k)
                    out[j, k] = self.predict(X_eval)
        return out

    def _prepare(self, X: Any, y: np.ndarray) -> Any:
        """What the fit rows give every λ (centers, factor, products, features), handed to
        the other steps and dropped when ``fit`` returns."""
        return None

    def _fit_at(self, state: Any, X: Any, y: np.ndarray, lam: float) -> None:
        """Set ``alpha_`` (or the model's coefficients) and ``best_lambda_`` at ``lam``."""
        raise NotImplementedError

    def _path(self, state: Any, X: Any, y: np.ndarray, X_val: Any, y_val: np.ndarray,
              lambdas: np.ndarray) -> LambdaPath:
        """Solve and score every λ of the grid (and every level)."""
        raise NotImplementedError

    def _choose(self, state: Any, path: LambdaPath, j: int, k: int) -> None:
        """Set the model of the selected ``(λ_j, level k)`` and ``best_lambda_`` (here:
        ``alpha_`` is ``path.coef(j, k)``)."""
        self.best_lambda_, self.alpha_ = float(path.lambdas[j]), path.coef(j, k)

    def _refit(self, state: Any, X: Any, y: np.ndarray) -> None:
        """Refit at the selection on ``(X, y)``, training + validation rows: the fit rows
        first, then the validation rows (:func:`~kernreg.solvers.blocks.holdout.refit_rows`),
        so an algorithm may reuse what ``state`` holds of the first ones."""
        raise NotImplementedError
