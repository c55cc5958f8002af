"""Incremental Nyström KRLS (LiM Algorithm 1): NKRLS for every number of centers m' ≤ m.

With centers in selection order, NKRLS on the first ``m'`` centers needs ``A_{m'} = K_{nm'}
R_{m'}⁻¹`` where ``R_{m'}`` — the Cholesky factor of ``K_{m'm'} + εI`` — is the leading block of
the factor for all ``m`` centers; so ``A_{m'}ᵀA_{m'}`` is the leading block of ``AᵀA`` and the
factor of ``A_{m'}ᵀA_{m'} + λnI`` grows by appending rows as centers are added. One pass over
the data (``O(nm(m + d))``) gives ``AᵀA``; each λ then costs ``O(m³)`` for the whole m-path.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg._validation import check_choice, check_int
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.cholupdate import cholesky_append_bordered, cholesky_append_rank_one
from kernreg.solvers.blocks.lambda_path import (
    DEFAULT_LEVELS,
    LambdaPath,
    LambdaPathEstimator,
    NystromSystem,
    check_m_levels,
    column_error,
    column_rmse,
)
from kernreg.solvers.blocks.linalg import NystromFactor
from kernreg.solvers.blocks.nystrom import PENALTIES, nystrom_products
from kernreg.solvers.blocks.outputs import check_outputs
from kernreg.solvers.blocks.params import (
    LAMBDAS,
    M_LEVELS,
    PATH_NYSTROM,
    lambda_grid,
    level_values,
)
from kernreg.solvers.blocks.path_clock import FitClock, level_seconds, running_clock
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["UPDATES", "IncrementalNystromKRLS", "incremental_nkrls_path"]

#: How centers are appended to the factor of ``AᵀA + λnI``.
UPDATES = ("block", "rank_one")

def incremental_nkrls_path(
    H: np.ndarray,
    Aty: np.ndarray,
    factor: NystromFactor,
    lambdas: np.ndarray,
    n: int,
    levels: np.ndarray,
    update: str = "block",
    level_costs: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """NKRLS coefficients on the first ``m'`` centers for every λ and every level ``m'``.

    Parameters
    ----------
    H, Aty : ndarray
        ``AᵀA`` (m, m) and ``Aᵀy`` (m,) for all ``m`` centers (see :func:`nystrom_products`);
        ``Aᵀy`` (m, k) for k outputs, solved with the same factors.
    factor : NystromFactor
        ``RᵀR = K_mm + εI`` for all ``m`` centers; its leading blocks serve every level.
    lambdas : ndarray of shape (L,)
    n : int
        Number of training rows (the λ scaling).
    levels : ndarray of shape (M,)
        Increasing numbers of centers ``m'``.
    update : {"block", "rank_one"}
        ``"block"`` appends the centers between two levels at once (one triangular solve and
        one small Cholesky); ``"rank_one"`` appends them one at a time by a rank-one update
        and a downdate (LiM Algorithm 1 verbatim; the same factor, ``O(m²)`` Python-level
        steps and all ``L`` factors in memory at once, for checking).
    level_costs : ndarray of shape (M,), optional
        Filled with the seconds spent on each level, over every λ (a level's share of the
        coefficients' final solves counted too): the times of the m-path.

    Returns
    -------
    coefs : ndarray of shape (m, L, M), or (m, L, M, k) for k outputs
        ``coefs[:m', j, k]`` = α of λ_j on the first ``m' = levels[k]`` centers, zero below.
        NaN where ``AᵀA + λnI`` was not numerically positive definite at that level.
    failed : ndarray of shape (L,), bool
        λ values whose factorization failed at some level.
    """
    check_choice(update, "update", UPDATES)
    m = H.shape[0]
    L, M = lambdas.size, levels.size
    coefs = np.zeros((m, L, M, *Aty.shape[1:]))
    failed = np.zeros(L, dtype=bool)
    costs = np.zeros(M) if level_costs is None else level_costs
    costs[:] = 0.0
    if update == "rank_one":  # all λ together: one rotation sweep updates every factor
        center_costs = np.zeros(int(levels[-1]))
        steps = _rank_one_factors(H, lambdas * n, int(levels[-1]), center_costs)
        costs += np.add.reduceat(center_costs, np.concatenate([[0], levels[:-1]]))
    for j, lam in enumerate(lambdas):
        R = np.zeros((m, m)) if update == "block" else steps[j]
        w = np.zeros(Aty.shape)  # w = R⁻ᵀ Aᵀy: forward substitution grows with R, prefix by prefix
        start = done = 0
        for stop in levels:
            began = time.perf_counter()
            try:
                if update == "block":
                    D = H[start:stop, start:stop] + lam * n * np.eye(stop - start)
                    cholesky_append_bordered(R, H[:start, start:stop], D, start)
                elif not np.all(np.isfinite(np.diag(R)[start:stop])):
                    raise la.LinAlgError("rank-one update failed")
            except la.LinAlgError:
                coefs[:, j, done:] = np.nan
                failed[j] = True
                break
            rhs = Aty[start:stop] - R[:start, start:stop].T @ w[:start]
            w[start:stop] = la.solve_triangular(R[start:stop, start:stop], rhs, trans="T",
                                                check_finite=False)
            start, done = stop, done + 1
            costs[done - 1] += time.perf_counter() - began
        if done:
            began = time.perf_counter()
            coefs[:, j, :done] = _level_coefs(R, factor.R, w, levels[:done])
            costs[:done] += (time.perf_counter() - began) / done  # one column per level
    return coefs, failed


def _level_coefs(R: np.ndarray, R_mm: np.ndarray, w: np.ndarray, levels: np.ndarray
                 ) -> np.ndarray:
    """``α_{m'} = R_mm⁻¹ R⁻¹ w`` restricted to the first ``m'`` centers, for every level at once
    (``(m, levels)``, or ``(m, levels, k)`` for the k columns of ``w``).

    Both factors are upper triangular, so their leading blocks invert the leading blocks:
    solving with ``w`` cut to its first ``m'`` entries (zeros below) gives the level-``m'``
    solution padded with zeros. Two triangular solves with one column per level (BLAS-3)
    replace two matrix-vector solves per level, which re-read the factor each time.
    """
    top = int(levels[-1])
    W = np.zeros((R.shape[0], levels.size, *w.shape[1:]))
    for k, level in enumerate(levels):
        W[:level, k] = w[:level]
    flat = W.reshape(R.shape[0], -1)  # a view: every level's (and output's) column
    B = la.solve_triangular(R[:top, :top], flat[:top], check_finite=False)
    flat[:top] = la.solve_triangular(R_mm[:top, :top], B, check_finite=False)
    return W


def _rank_one_factors(H: np.ndarray, shifts: np.ndarray, m: int,
                      center_costs: np.ndarray | None = None) -> np.ndarray:
    """Factors of ``H[:m, :m] + sI`` for each shift ``s``, one center at a time (LiM Alg. 1).

    A factor whose update broke down (not positive definite) has NaN on its diagonal from the
    failing center on. ``center_costs`` ``(m,)``, if given, gets the seconds of each center.
    """
    L = shifts.size
    R = np.zeros((L, H.shape[0], H.shape[0]))
    ok = np.ones(L, dtype=bool)
    last = time.perf_counter()
    for t in range(m):
        if center_costs is not None and t:  # center t − 1 ended (the loop may `continue`)
            now = time.perf_counter()
            center_costs[t - 1], last = now - last, now
        # a view while every factor is fine; a gathered copy once some have failed
        sub = R[:, : t + 1, : t + 1] if ok.all() else R[ok, : t + 1, : t + 1]
        try:
            cholesky_append_rank_one(sub, np.broadcast_to(H[:t, t], (sub.shape[0], t)),
                                     H[t, t] + shifts[ok])
        except np.linalg.LinAlgError:
            # find the failing λ one by one, keep the others going
            for j in np.flatnonzero(ok):
                one = R[j, : t + 1, : t + 1].copy()
                try:
                    cholesky_append_rank_one(one, H[:t, t], H[t, t] + shifts[j])
                    R[j, : t + 1, : t + 1] = one
                except np.linalg.LinAlgError:
                    ok[j] = False
                    R[j, range(t, m), range(t, m)] = np.nan
            continue
        R[ok, : t + 1, : t + 1] = sub
    if center_costs is not None and m:
        center_costs[m - 1] = time.perf_counter() - last
    return R


def _validation_scores(kernel: Any, X_val: Any, centers: Any, flat: np.ndarray,
                       y_val: np.ndarray, measure: str) -> np.ndarray:
    """``measure`` (``"rmse"`` or ``"error"``) of every path point of ``flat`` (its columns;
    a point's k outputs consecutive) on the validation rows, their kernel read block-wise."""
    blocks = kernel.blocks(X_val, centers, reuse_buffer=True,
                           block_rows=kernel.block_rows(max(flat.shape)))
    score = column_error if measure == "error" else column_rmse
    return score(blocks, flat, y_val, kernel.dtype)


#: What the fit rows give every (λ, m'): all m centers and their NKRLS system.
_State = tuple[Any, NystromSystem]


class IncrementalNystromKRLS(LambdaPathEstimator):
    """Incremental Nyström KRLS: the NKRLS path over both λ and the number of centers m'.

    Selects the pair ``(λ, m')`` with the lowest validation RMSE (ties: the fewest centers).
    At every level the solution equals :class:`NystromKRLS` fitted on the first ``m'`` centers
    (same ``ε``); the whole grid costs one pass over the data plus ``O(m³)`` per λ. ``y`` of
    shape ``(n, k)`` gives k outputs from the same factors, selected on the RMSE over every
    validation row and output.

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
        Largest number of centers.
    lam : float, default 1e-6
        λ used when ``fit`` gets no validation data (then at ``m`` centers).
    lambdas : array-like, optional
        λ grid; default 100 values log-spaced in ``[1e-15, 1]``.
    m_values : array-like of int, optional
        Levels ``m'`` at which solutions are validated; default 50 evenly spaced up to ``m``.
    update : {"block", "rank_one"}, default "block"
        See :func:`incremental_nkrls_path`.
    epsilon : float, default 1e-10
    penalty : {"kmm", "identity"}, default "kmm"
        Ridge term ``λn·K_mm`` (the papers' NKRLS) or ``λn·I``: ridge regression on the
        features ``K(x, C)``, what the authors' code behind LiM Table 1 computed (see
        :func:`kernreg.solvers.blocks.nystrom.nystrom_setup`); ``epsilon`` is then unused.
    sampler : str or CenterSampler, default "uniform"
    random_state : None, int or numpy.random.Generator
    refit : bool, default False
        After selecting ``(λ*, m*)``, refit on training + validation rows with the first ``m*``
        centers (LiM Table 1 does).
    dtype : {"float64", "float32"}, default "float64"
    memory_budget : int
        Bytes per kernel block in blocked evaluation.
    validation_measure : {"rmse", "error"}, default "rmse"
        What selects ``(λ, m')`` on the validation rows: the RMSE, or the classification error
        of two-class targets (LiM Figure 1's breast-cancer panel) or of one-vs-all coded
        columns (the largest output's column); ``path_["val_rmse"]`` holds it.

    Attributes
    ----------
    alpha_ : ndarray of shape (m*,) or (m*, k)
    centers_ : the first ``m*`` centers
    center_indices_ : ndarray of shape (m,)
        All ``m`` centers' indices into the training rows, in selection order.
    best_lambda_ : float
    best_m_ : int
    factor_info_ : dict
    path_ : dict or None
        ``{"lambdas", "m_values", "val_rmse" (L, M), "seconds" (L, M), "failed_lambdas"}``
        with validation data; ``seconds``: when level m' was known for every λ had the levels
        been solved one after another (:func:`~kernreg.solvers.blocks.path_clock.\
level_seconds`).
    """

    level_parameter = "m"
    multi_output = True

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        validation_fraction: float | None = None,
        m: int = 100,
        lam: float = 1e-6,
        lambdas: Any = None,
        m_values: Any = None,
        update: str = "block",
        epsilon: float = 1e-10,
        penalty: str = "kmm",
        sampler: Any = "uniform",
        random_state: Any = None,
        refit: bool = False,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        validation_measure: str = "rmse",
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.fit_intercept = fit_intercept
        self.validation_fraction = validation_fraction
        self.m = m
        self.lam = lam
        self.lambdas = lambdas
        self.m_values = m_values
        self.update = update
        self.epsilon = epsilon
        self.penalty = penalty
        self.sampler = sampler
        self.random_state = random_state
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.validation_measure = validation_measure

    def _fit_info(self) -> dict[str, Any]:
        return {"m_selected": int(self.best_m_), **self._factor_info()}

    def check_params(self) -> None:
        super().check_params()
        self._check_nystrom()
        check_choice(self.update, "update", UPDATES)
        check_choice(self.penalty, "penalty", PENALTIES)
        check_choice(self.validation_measure, "validation_measure", ("rmse", "error"))
        check_m_levels(self.m_values, check_int(self.m, "m", minimum=1))

    def _prepare(self, X: Any, y: np.ndarray) -> _State:
        check_outputs(self, y)
        setup = self._nystrom_setup(X, self.penalty)  # centers_: the first m* after selection
        H, Aty = nystrom_products(self.kernel_, X, setup.centers, y, setup.factor)
        return setup.centers, NystromSystem(setup.factor, H, Aty)

    def _levels_path(self, state: _State, n: int, lambdas: np.ndarray, levels: np.ndarray,
                     level_costs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        system = state[1]
        return incremental_nkrls_path(system.H, system.Aty, system.factor, lambdas, n, levels,
                                      self.update, level_costs)

    def _fit_at(self, state: _State, X: Any,
                y: np.ndarray, lam: float) -> None:
        m = state[0].shape[0]
        coefs, _ = self._levels_path(state, X.shape[0], np.array([lam]), np.array([m]))
        self._set_solution(state[0], coefs[:, 0, 0], lam, m)

    def _path(self, state: _State, X: Any, y: np.ndarray,
              X_val: Any, y_val: np.ndarray, lambdas: np.ndarray) -> LambdaPath:
        centers = state[0]
        m = centers.shape[0]
        # m may have been clamped to the data (with a warning): levels past it clamp with it
        levels = np.unique(np.minimum(check_m_levels(self.m_values, self.m), m))
        clock = running_clock() or FitClock()
        started, costs = clock(), np.zeros(levels.size)
        coefs, failed = self._levels_path(state, X.shape[0], lambdas, levels, costs)
        solved = clock()
        L, M = lambdas.size, levels.size
        val_rmse = _validation_scores(self.kernel_, X_val, centers, coefs.reshape(m, -1), y_val,
                                      self.validation_measure).reshape(L, M)
        if np.all(np.isnan(val_rmse)):
            raise np.linalg.LinAlgError("AᵀA + λnI was not positive definite for any λ")
        # the m-path's times: level by level, each level's λs together
        seconds = np.broadcast_to(level_seconds(started, solved, costs, clock()), (L, M))
        return LambdaPath(lambdas, val_rmse, lambda j, k: coefs[:levels[k], j, k], levels,
                          {"failed_lambdas": int(failed.sum())}, seconds=seconds.copy())

    def _choose(self, state: _State, path: LambdaPath,
                j: int, k: int) -> None:
        self._set_solution(state[0], path.coef(j, k), float(path.lambdas[j]),
                           int(path.levels[k]))

    def _refit(self, state: _State, X: Any,
               y: np.ndarray) -> None:
        factor, m = state[1].factor, self.best_m_
        sub = NystromFactor(factor.R[:m, :m], factor.epsilon, factor.epsilon_requested,
                            factor.retries)
        system = NystromSystem(sub, *nystrom_products(self.kernel_, X, self.centers_, y, sub))
        alpha = system.solve(np.array([self.best_lambda_]), X.shape[0])[0][:, 0]
        self._set_solution(self.centers_, alpha, self.best_lambda_, m)

    def _set_solution(self, centers: Any, alpha: np.ndarray, lam: float, m: int) -> None:
        self.centers_ = centers[:m]
        self.alpha_ = np.ascontiguousarray(alpha[:m])
        self.best_lambda_, self.best_m_ = lam, m


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    # AᵀA, K_mm, R and the growing factor of AᵀA + λnI; coefficients of every (λ, m') pair and
    # one validation block of predictions for all of them
    m, lambdas = params["m"], len(lambda_grid(params["lambdas"]))
    levels = len(level_values(params.get("m_values")) or range(min(m, DEFAULT_LEVELS)))
    parts = {"m×m matrices": 5 * m * m * F64,
             "A blocks": 2 * problem.block_bytes * F64 // problem.itemsize,
             "path": m * lambdas * levels * problem.outputs * F64 * 2}
    if params.get("update") == "rank_one":  # every λ's factor exists at once
        parts["factors"] = lambdas * m * m * F64
    return parts


register(AlgorithmSpec(
    name="inkrls",
    estimator=IncrementalNystromKRLS,
    title="Incremental NKRLS",
    order=60,
    schema={"lambdas": LAMBDAS, "m_values": M_LEVELS, "update": {"enum": list(UPDATES)},
            "validation_measure": {"enum": ["rmse", "error"]}, **PATH_NYSTROM},
    config_defaults=("lambdas", "m_values", "update", "epsilon", "penalty", "sampler"),
    takes_centers=True,
    memory=_memory,
    summary="NKRLS on the first m' centers for every level m' and every λ (LiM Algorithm 1)",
))
