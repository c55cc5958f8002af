"""Accelerated randomized block coordinate descent on ``(K + μI)α = y`` with Nyström-
preconditioned blocks: ASkotch (Rathore, Frangella & Udell 2024, "Have ASkotch: a neat
solution for large-scale kernel ridge regression").

Each step draws a block ``B`` of ``b`` rows uniformly, evaluates ``K_B·`` (``b × n``), and moves
``α_B`` along ``P_B⁻¹ g_B`` with ``g_B = K_B·α + μα_B − y_B`` (the block of the system's
residual) and ``P_B = U(Λ + ρ)Uᵀ + ρ(I − UUᵀ)`` from a rank-``r`` randomized Nyström
approximation ``UΛUᵀ`` of ``K_BB`` (damped: ``ρ = μ + λ_r``). The step is ``1/L_B``, ``L_B`` the
largest eigenvalue of ``P_B^{-1/2}(K_BB + μI)P_B^{-1/2}`` by power iteration. Nesterov's
acceleration for randomized coordinate methods (as in ASkotch, after Gower, Hanzely,
Richtárik & Stich 2018) adds two sequences with ``μ`` (strong convexity, default the ridge
``μ``) and ``ν`` (default ``n/b``). At the fixed point every block's residual is zero: KRLS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg.solvers.blocks.knm import block_matvec

__all__ = ["BlockPreconditioner", "accelerated_pass", "nystrom_block"]

#: Power iterations for a block's step size.
POWER_ITERATIONS = 10


@dataclass
class BlockPreconditioner:
    """``P = U(Λ + ρ)Uᵀ + ρ(I − UUᵀ)`` of one block, and the step ``1/L`` it allows."""

    U: np.ndarray
    values: np.ndarray
    rho: float
    step: float = 1.0

    def solve(self, g: np.ndarray) -> np.ndarray:
        """``P⁻¹ g``."""
        inner = self.U.T @ g
        return self.U @ (inner / (self.values + self.rho)) + (g - self.U @ inner) / self.rho

    def inverse_root(self, g: np.ndarray) -> np.ndarray:
        """``P^{-1/2} g``."""
        inner = self.U.T @ g
        return self.U @ (inner / np.sqrt(self.values + self.rho)) \
            + (g - self.U @ inner) / np.sqrt(self.rho)


def nystrom_block(K_bb: np.ndarray, mu: float, rank: int,
                  rng: np.random.Generator) -> BlockPreconditioner:
    """The damped rank-``rank`` Nyström preconditioner of ``K_bb + μI`` and its step.

    Randomized Nyström with a Gaussian sketch (Tropp, Yurtsever, Udell & Cevher 2017's stable
    form: a small shift, a Cholesky of the sketched core, an SVD); ``ρ = μ + λ_r``."""
    b = K_bb.shape[0]
    r = min(rank, b)
    omega, _ = np.linalg.qr(rng.standard_normal((b, r)))
    Y = K_bb @ omega
    shift = np.sqrt(b) * np.finfo(np.float64).eps * max(np.linalg.norm(Y), np.finfo(float).tiny)
    Y += shift * omega
    core = omega.T @ Y
    try:
        C = la.cholesky((core + core.T) / 2, lower=False, check_finite=False)
    except la.LinAlgError:  # a sketch of a numerically zero block
        C = np.eye(r) * np.sqrt(shift)
    B = la.solve_triangular(C, Y.T, trans="T", lower=False, check_finite=False).T
    U, s, _ = la.svd(B, full_matrices=False, check_finite=False)
    values = np.maximum(s**2 - shift, 0.0)
    pre = BlockPreconditioner(U=U, values=values, rho=mu + float(values[-1]))
    pre.step = 1.0 / _largest_eigenvalue(K_bb, mu, pre, rng)
    return pre


def _largest_eigenvalue(K_bb: np.ndarray, mu: float, pre: BlockPreconditioner,
                        rng: np.random.Generator) -> float:
    """``λ_max(P^{-1/2}(K_bb + μI)P^{-1/2})`` by :data:`POWER_ITERATIONS` power steps."""
    v = rng.standard_normal(K_bb.shape[0])
    v /= np.linalg.norm(v)
    top = 1.0
    for _ in range(POWER_ITERATIONS):
        u = pre.inverse_root(v)
        w = pre.inverse_root(K_bb @ u + mu * u)
        top = float(v @ w)
        v = w / np.linalg.norm(w)
    return max(top, np.finfo(float).tiny)


def accelerated_pass(kernel: Any, X: Any, y: np.ndarray, mu: float, *, block_size: int,
                     rank: int, steps: int, accel_mu: float | None, accel_nu: float | None,
                     accelerated: bool, rng: np.random.Generator) -> Callable[[], np.ndarray]:
    """A closure running ``steps`` block steps per call (one call: a pass, ``n/b`` steps by
    default), returning the iterate ``α`` (the same array each call)."""
    n = X.shape[0]
    b = min(block_size, n)
    alpha = np.zeros(n)
    point = alpha.copy()  # where the block gradient is taken (the iterate itself unaccelerated)
    momentum = alpha.copy()
    m = mu if accel_mu is None else accel_mu
    nu = n / b if accel_nu is None else accel_nu
    if accelerated:
        decay = 1.0 - np.sqrt(m / nu)
        gamma = 1.0 / np.sqrt(m * nu)
        mix = 1.0 / (1.0 + gamma * nu)

    rows = np.empty((b, n), dtype=kernel.dtype)  # one block for the fit (no page faults a step)

    def block_pass() -> np.ndarray:
        nonlocal point
        for _ in range(steps):
            block = rng.choice(n, size=b, replace=False)
            K_b = kernel(X[block], X, out=rows)
            pre = nystrom_block(K_b[:, block], mu, rank, rng)
            at = point if accelerated else alpha
            direction = pre.solve(block_matvec(K_b, at) + mu * at[block] - y[block])
            if not accelerated:
                alpha[block] -= pre.step * direction
                continue
            alpha[:] = point
            alpha[block] -= pre.step * direction
            momentum[:] = decay * momentum + (1.0 - decay) * point
            momentum[block] -= pre.step * gamma * direction
            point = mix * momentum + (1.0 - mix) * alpha
        return alpha

    return block_pass
