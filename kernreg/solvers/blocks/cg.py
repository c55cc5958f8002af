"""Preconditioned conjugate gradient on the Nyström KRLS system over a λ path: the
preconditioners ``B_λ`` and the CG loop of Falkon's algorithm (``pcg``).

The system is ``(K_nmᵀK_nm + λn·K_mm) α = K_nmᵀy``, CG runs on ``B_λᵀWB_λ β = B_λᵀK_nmᵀy``
with ``α = B_λβ``: Falkon's ``B_λ = T⁻¹F_λ⁻¹/√n`` (``TᵀT = K_mm + εI``, ``F_λᵀF_λ = TTᵀ/m + λI``,
every λ from one eigendecomposition of ``TTᵀ/m``) or NYTRO's ``R⁻¹/√n``, whose iterations
regularize. The λs are walked in the given order, each warm-started from the previous one's
last iterate, every iterate scored on validation rows when a scorer is given. ``K_nm`` enters
only through the product ``u ↦ K_nmᵀK_nm u`` (:class:`~kernreg.solvers.blocks.knm.NormalProduct`,
on any device); the preconditioner and CG's ``m``-vectors stay on the host.

Several outputs (a right-hand side ``K_nmᵀY`` of k columns) run as k conjugate gradients in
lockstep: one product with the system's matrix for all k columns per iteration, each column
with its own step lengths (its own CG, to rounding), a column whose residual reached ``tol``
held where it stopped while the others go on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import scipy.linalg as la

from kernreg.solvers.blocks.iterative import VALIDATION_CHUNK, run_validated
from kernreg.solvers.blocks.knm import NormalProduct
from kernreg.solvers.blocks.lambda_path import LambdaPath
from kernreg.solvers.blocks.linalg import NystromFactor
from kernreg.solvers.blocks.path_clock import running_clock
from kernreg.solvers.blocks.stopping import StoppingRule

__all__ = ["PRECONDITIONERS", "FalkonPreconditioner", "LambdaSolve", "NystromPreconditioner",
           "Preconditioner", "Solver", "cg_path", "make_preconditioner", "walk_lambdas",
           "walked_path"]

#: ``B`` of the preconditioned system ``BᵀHBβ = BᵀK_nmᵀy``: Falkon's, or NYTRO's ``R⁻¹``.
PRECONDITIONERS = ("falkon", "nystrom")


class Preconditioner:
    """``B_λ`` of the preconditioned system ``B_λᵀWB_λ β = B_λᵀK_nmᵀy`` on the Nyström factor:
    :meth:`apply` (``B_λ v``), :meth:`apply_t` (``B_λᵀ v``) and :meth:`inverse` (``B_λ⁻¹ α``).

    Parameters
    ----------
    factor : NystromFactor
        ``RᵀR = K_mm + εI`` (Falkon's ``TᵀT``).
    n : int
        Training rows.
    """

    def __init__(self, factor: NystromFactor, n: int) -> None:
        self.factor, self.n = factor, n

    def apply(self, v: np.ndarray, lam: float) -> np.ndarray:
        raise NotImplementedError

    def apply_t(self, v: np.ndarray, lam: float) -> np.ndarray:
        raise NotImplementedError

    def inverse(self, alpha: np.ndarray, lam: float) -> np.ndarray:
        raise NotImplementedError


class FalkonPreconditioner(Preconditioner):
    """``B_λ = T⁻¹F_λ⁻¹/√n`` (``TᵀT = K_mm + εI``, ``F_λᵀF_λ = TTᵀ/m + λI``) for every λ from
    one eigendecomposition of ``TTᵀ/m``."""

    def __init__(self, factor: NystromFactor, n: int) -> None:
        super().__init__(factor, n)
        T = factor.R
        m = T.shape[0]
        self.eigenvalues, self.Q = la.eigh((T @ T.T) / m, check_finite=False, driver="evd")
        self.eigenvalues = np.maximum(self.eigenvalues, 0.0)

    def apply(self, v: np.ndarray, lam: float) -> np.ndarray:
        """``B_λ v``."""
        return self.factor.solve(self.Q @ (self.Q.T @ v / self._root(lam, v))) \
            / np.sqrt(self.n)

    def apply_t(self, v: np.ndarray, lam: float) -> np.ndarray:
        """``B_λᵀ v``."""
        return self.Q @ (self.Q.T @ self.factor.solve_t(v) / self._root(lam, v)) \
            / np.sqrt(self.n)

    def inverse(self, alpha: np.ndarray, lam: float) -> np.ndarray:
        """``B_λ⁻¹ α`` (a warm start's β)."""
        return np.sqrt(self.n) * self.Q @ (self._root(lam, alpha)
                                           * (self.Q.T @ (self.factor.R @ alpha)))

    def _root(self, lam: float, v: np.ndarray) -> np.ndarray:
        """``(Λ + λ)^{1/2}``, a column against the k columns of ``v``."""
        root = np.sqrt(self.eigenvalues + lam)
        return root[:, None] if v.ndim == 2 else root


class NystromPreconditioner(Preconditioner):
    """``B = R⁻¹/√n`` (``RᵀR = K_mm + εI``) for every λ: CG on NYTRO's system ``AᵀAβ = Aᵀy``
    (``A = K_nmR⁻¹``), whose iterations regularize (kernel conjugate-gradient regression on the
    Nyström space)."""

    def apply(self, v: np.ndarray, lam: float) -> np.ndarray:
        """``B v``."""
        return self.factor.solve(v) / np.sqrt(self.n)

    def apply_t(self, v: np.ndarray, lam: float) -> np.ndarray:
        """``Bᵀ v``."""
        return self.factor.solve_t(v) / np.sqrt(self.n)

    def inverse(self, alpha: np.ndarray, lam: float) -> np.ndarray:
        """``B⁻¹ α`` (a warm start's β)."""
        return np.sqrt(self.n) * (self.factor.R @ alpha)


_PRECONDITIONER_CLASSES = {"falkon": FalkonPreconditioner, "nystrom": NystromPreconditioner}


def make_preconditioner(name: str, factor: NystromFactor, n: int) -> Preconditioner:
    """The preconditioner ``name`` (one of :data:`PRECONDITIONERS`) of ``factor`` for ``n``
    training rows."""
    return _PRECONDITIONER_CLASSES[name](factor, n)


def _column_dots(a: np.ndarray, b: np.ndarray) -> Any:
    """``aᵀb``: a float for vectors, one per column (a ``(k,)`` array) for ``(m, k)``."""
    return float(a @ b) if a.ndim == 1 else np.einsum("ij,ij->j", a, b)


class _CG:
    """Conjugate gradient on one λ's preconditioned system ``B_λᵀWB_λ β = B_λᵀK_nmᵀy``
    (``W = K_nmᵀK_nm + λn·K_mm``), warm-started from ``alpha``; for k columns of ``K_nmᵀY``,
    k conjugate gradients in lockstep (the module's docstring)."""

    def __init__(self, normal: NormalProduct, rhs: np.ndarray, pre: Preconditioner, lam: float,
                 alpha: np.ndarray, tol: float) -> None:
        R, n = pre.factor.R, pre.n

        def W(beta: np.ndarray) -> np.ndarray:
            u = pre.apply(beta, lam)
            return pre.apply_t(normal(u) + lam * n * (R.T @ (R @ u)), lam)

        self.W, self.pre, self.lam, self.alpha = W, pre, lam, alpha
        b = pre.apply_t(rhs, lam)
        self.beta = pre.inverse(alpha, lam)
        self.r = b - W(self.beta)
        self.p = self.r.copy()
        self.rr = _column_dots(self.r, self.r)
        self.stop_at = tol * np.linalg.norm(b, axis=0)

    def _running(self) -> Any:
        """Whether the relative residual is not yet at ``tol`` (per column for k columns; a
        NaN residual runs on, for the loop to see the divergence)."""
        return ~(np.sqrt(self.rr) <= self.stop_at)

    def converged(self) -> bool:
        """Whether the relative residual fell below ``tol`` (in every column)."""
        return not np.any(self._running())

    def step(self) -> np.ndarray:
        """One CG iteration; the new α."""
        Wp = self.W(self.p)
        if self.r.ndim == 1:
            step = self.rr / float(self.p @ Wp)
            self.beta = self.beta + step * self.p
            self.r = self.r - step * Wp
            rr_new = float(self.r @ self.r)
            self.p = self.r + (rr_new / self.rr) * self.p
        else:  # each column's own CG; one that reached tol holds still, as its lone run stops
            running = self._running()
            step = np.divide(self.rr, _column_dots(self.p, Wp), out=np.zeros_like(self.rr),
                             where=running)
            self.beta = self.beta + step * self.p
            self.r = self.r - step * Wp
            rr_new = _column_dots(self.r, self.r)
            ratio = np.divide(rr_new, self.rr, out=np.zeros_like(self.rr), where=running)
            self.p = np.where(running, self.r + ratio * self.p, self.p)
        self.rr = rr_new
        self.alpha = self.pre.apply(self.beta, self.lam)
        return self.alpha

    def raveled_step(self) -> np.ndarray:
        """:meth:`step`, α raveled (the iteration loop's column: ``m·k`` for k columns)."""
        return self.step().reshape(-1)


@dataclasses.dataclass
class LambdaSolve:
    """One λ's CG run: the last iterate (the next λ's warm start), iterations run, and with
    validation the best iterate (0-based), every iterate's error and ``seconds``: when the
    λ's last error was known (the fit's clock, :mod:`~kernreg.solvers.blocks.path_clock`)."""

    last: np.ndarray
    n_iter: int
    best: np.ndarray | None = None
    best_iter: int = 0
    errors: np.ndarray | None = None
    seconds: float = float("nan")


def cg_path(normal: NormalProduct, rhs: np.ndarray, pre: Preconditioner, lambdas: np.ndarray,
            max_iter: int, tol: float, rule: StoppingRule, score: Any = None
            ) -> list[LambdaSolve]:
    """CG for every λ in the given order, each warm-started from the previous λ's last iterate:
    at most ``max_iter`` iterations, fewer at ``tol``; with ``score`` (validation RMSE of every
    column of ``(m, c)`` coefficients) every iterate is scored and ``rule`` may end a λ's
    iterations (the loop of :func:`~kernreg.solvers.blocks.iterative.run_validated`). Iterates
    are scored :data:`~kernreg.solvers.blocks.iterative.VALIDATION_CHUNK` at a time (one read
    of the validation kernel for all of them) where the rule cannot fire among them, so that no
    CG step, a pass over ``K_nm``, is spent past a stop: the same path as one by one. Each
    λ's ``seconds`` is read on the running fit's clock when its last iterate was scored.

    For k columns of ``rhs`` ``(m, k)``, ``score`` takes raveled ``(m·k, c)`` iterates (the
    loop's columns; :func:`~kernreg.solvers.blocks.outputs.raveled_error`) and the solves hold
    ``(m, k)`` coefficients."""
    start = np.zeros((pre.factor.R.shape[0], *rhs.shape[1:]))
    return walk_lambdas(lambda lam, alpha: _CG(normal, rhs, pre, lam, alpha, tol), start,
                        lambdas, max_iter, rule, score)


class Solver(Protocol):
    """One λ's conjugate gradient, as :func:`walk_lambdas` runs it."""

    alpha: np.ndarray

    def step(self) -> np.ndarray: ...

    def raveled_step(self) -> np.ndarray: ...

    def converged(self) -> bool: ...


def walk_lambdas(make: Callable[[float, np.ndarray], Solver], start: np.ndarray,
                 lambdas: np.ndarray, max_iter: int, rule: StoppingRule, score: Any = None
                 ) -> list[LambdaSolve]:
    """The λ walk of :func:`cg_path` for any conjugate gradient: ``make(λ, α₀)`` starts λ's
    solver from the previous λ's last iterate (``start`` for the first)."""
    shape = start.shape
    alpha = start
    solved = []
    for lam in lambdas:
        cg = make(lam, alpha)
        if score is None:
            n_iter = 0
            while n_iter < max_iter and not cg.converged():
                cg.step()
                n_iter += 1
            solved.append(LambdaSolve(cg.alpha, max(n_iter, 1)))
            alpha = cg.alpha
            continue
        res = run_validated(cg.raveled_step, score, rule, max_iter,
                            VALIDATION_CHUNK, done=cg.converged, speculate=False)
        if res.n_iter:
            solved.append(LambdaSolve(res.last_coef.reshape(shape), res.n_iter,
                                      res.best_coef.reshape(shape), res.best_iter - 1,
                                      res.val_rmse, float(res.seconds[-1])))
        else:  # converged before any iteration: the warm start is the answer
            errors = np.atleast_1d(score(cg.alpha.reshape(-1, 1)))
            clock = running_clock()
            solved.append(LambdaSolve(cg.alpha, 1, cg.alpha, 0, errors,
                                       clock() if clock is not None else float("nan")))
        alpha = solved[-1].last
    return solved


def walked_path(lambdas: np.ndarray, solved: list[LambdaSolve]) -> LambdaPath:
    """The validated path of a λ walk (``lambdas`` in the walk's order, largest first), as
    NKRLS reports its own: in increasing λ, each λ's lowest error, the iterations it ran and
    the time its iterations ended; the selection is the lowest error (ties: the later,
    smaller λ of the walk, then the earlier iteration)."""
    _, neg_k, _ = min((s.errors.min(), -k, s.best_iter) for k, s in enumerate(solved))
    order = np.argsort(lambdas)
    ranked = [solved[j] for j in order]
    return LambdaPath(lambdas[order], np.array([s.errors.min() for s in ranked]),
                      lambda j, k: ranked[j],
                      record={"iterations": np.array([s.n_iter for s in ranked])},
                      choice=(int(np.flatnonzero(order == -neg_k)[0]), 0),
                      seconds=np.array([s.seconds for s in ranked]))
