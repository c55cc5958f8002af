"""EigenPro's preconditioned stochastic iteration on the full kernel model (Ma & Belkin 2017,
"Diving into the shallows"; EigenPro 2.0: Ma & Belkin 2019, "Kernel machines that adapt to
GPUs for effective large batch training").

The model is ``f = Σ_j α_j k(x_j, ·)`` over all fit rows, trained by minibatch gradient steps
on ``½·mean((f(x_i) − y_i)²) + ½·λ‖f‖²`` (``λ = 0``: EigenPro's interpolation, regularized by
stopping early). Plain SGD is slowed by the kernel's top eigen-directions; EigenPro takes the
top-``q`` eigensystem of ``K_SS/s`` on a subsample ``S`` of ``s`` rows and scales the gradient's
component along each of those directions by ``((λ_{q+1} + λ)/(λ_i + λ))^a``, flattening the
spectrum to ``λ_{q+1}``: the critical batch size and the step grow by the ratio
``λ_1/λ_{q+1}``. The correction lives on the subsample's coefficients only, so a step costs
one ``b × n`` kernel block and ``O(sq)``.

With ``λ > 0`` the gradient's ridge part is preconditioned too, so the fixed point is KRLS's
``α = (K + λnI)⁻¹y`` (the full batch converges to it: tested); the ridge part needs
``f(x_S)``, carried along exactly from the blocks each step already evaluates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg.solvers.blocks.knm import block_matvec

__all__ = ["EigenProSetup", "eigenpro_epoch", "eigenpro_setup", "subsample_size"]

#: The reference implementation's smallest automatic ``q``.
MIN_TOP_Q = 5


def subsample_size(n: int) -> int:
    """EigenPro 2.0's subsample: all rows up to 2000, 2000 below 10⁵ rows, else 12000."""
    return min(n, 2000) if n < 100_000 else 12_000


@dataclass
class EigenProSetup:
    """The subsample's eigensystem and the step it allows.

    Attributes
    ----------
    rows : ndarray of int
        The subsample ``S`` (indices into the fit rows).
    vectors : ndarray of shape (s, q)
        Orthonormal top eigenvectors of ``K_SS/s``.
    values : ndarray of shape (q,)
        Their eigenvalues ``λ_1 ≥ … ≥ λ_q``.
    tail : float
        ``λ_{q+1}``, the level the preconditioner flattens to.
    correction : ndarray of shape (q,)
        ``(1 − ρ_i)/(s λ_i)``: the subsample coefficients' correction along each vector.
    top : float
        The largest eigenvalue of the preconditioned problem (ridge included).
    beta : float
        ``max_i k(x_i, x_i) + λ``: the per-row curvature bound of the step rules.
    batch : int
        Rows per step.
    step : float
        ``η`` (each step moves the batch's coefficients by ``η/b`` times their residuals).
    """

    rows: np.ndarray
    vectors: np.ndarray
    values: np.ndarray
    tail: float
    correction: np.ndarray
    top: float
    beta: float
    batch: int
    step: float

    @property
    def critical_batch(self) -> int:
        """``β/top + 1``: beyond it a larger batch no longer buys a proportionally larger step."""
        return int(self.beta / self.top) + 1


def eigenpro_setup(kernel: Any, X: Any, lam: float, *, subsample: int, top_q: int | None,
                   damping: float, batch_size: int | None, step_size: float | None,
                   max_batch: int, rng: np.random.Generator) -> EigenProSetup:
    """Subsample, eigensystem, ``q``, batch and step by EigenPro 2.0's rules.

    ``q`` (when not given) is the number of eigenvalues of ``K_SS/s`` whose critical batch
    ``β/λ_i`` fits ``max_batch`` (at least 5, at most ``s/3 − 1``, and not above 1000): the
    largest batch the memory allows then runs at the critical batch size. The batch is the
    critical one capped by ``max_batch``; the step is ``b/β`` below the critical batch, else
    ``0.99 · 2b/(β + (b − 1)·top)``.
    """
    n = X.shape[0]
    s = min(subsample, n)
    rows = np.sort(rng.choice(n, size=s, replace=False))
    K_ss = kernel(X[rows])
    beta = float(np.max(np.diag(K_ss))) + lam
    K_ss /= s
    most = max(1, min(s // 3 - 1, 1000) if s > 6 else s - 1)
    values, vectors = la.eigh(K_ss, subset_by_index=(s - most - 1, s - 1), check_finite=False,
                              overwrite_a=True)
    values, vectors = np.maximum(values[::-1], 0.0), vectors[:, ::-1]
    if top_q is None:
        fits = int(np.sum(values[:-1] * max_batch >= beta))
        q = max(min(fits, most), min(MIN_TOP_Q, most))
    else:
        q = min(top_q, most)
    tail = float(values[q])
    values, vectors = values[:q], np.ascontiguousarray(vectors[:, :q])
    ratio = ((tail + lam) / np.maximum(values + lam, np.finfo(float).tiny)) ** damping
    correction = (1.0 - ratio) / (s * np.maximum(values, np.finfo(float).tiny))
    top = float(max(ratio[0] * (values[0] + lam), tail + lam)) if q else float(tail + lam)
    critical = int(beta / top) + 1
    batch = min(batch_size if batch_size is not None else critical, max_batch, n)
    if step_size is None:
        step_size = batch / beta if batch < critical \
            else 0.99 * 2 * batch / (beta + (batch - 1) * top)
    return EigenProSetup(rows=rows, vectors=vectors, values=values, tail=tail,
                         correction=correction, top=top, beta=beta, batch=int(batch),
                         step=float(step_size))


def eigenpro_epoch(kernel: Any, X: Any, y: np.ndarray, setup: EigenProSetup, lam: float,
                   rng: np.random.Generator) -> Callable[[], np.ndarray]:
    """A closure running one epoch (every row once, in batches of ``setup.batch``, in a fresh
    random order) per call; returns the coefficients ``α`` (the same array each call).

    A step on batch ``B`` (``b`` rows) with residuals ``r = K_B α − y_B``::

        w    = K_BSᵀ r / b + λ f(x_S)
        α   ← (1 − ηλ) α;  α_B −= η r / b;  α_S += η V diag(c) Vᵀ w
        f(x_S) follows exactly (K_SS V = s V Λ on the top eigenvectors)
    """
    n = X.shape[0]
    alpha = np.zeros(n)
    at_subsample = np.zeros(len(setup.rows))  # f(x_S), needed by the ridge part only
    V, c, eta = setup.vectors, setup.correction, setup.step
    scaled = len(setup.rows) * setup.values * c  # s λ_i c_i: K_SS's action on the correction

    # one batch block for the whole fit: a fresh b × n array per step costs more in page faults
    # than the kernel takes to fill it (covtype, float32: 2 GB a step)
    block = np.empty((min(setup.batch, n), n), dtype=kernel.dtype)

    def epoch() -> np.ndarray:
        order = rng.permutation(n)
        for start in range(0, n, setup.batch):
            batch = order[start:start + setup.batch]
            K_b = kernel(X[batch], X, out=block[:len(batch)])
            residual = block_matvec(K_b, alpha) - y[batch]
            b = setup.batch  # the last, partial batch moves less, never with a larger step
            pulled = K_b[:, setup.rows].T @ residual  # K_SB r
            w = pulled / b
            if lam:
                w += lam * at_subsample
            coef = V.T @ w
            if lam:
                alpha[:] *= 1.0 - eta * lam
                at_subsample[:] *= 1.0 - eta * lam
                at_subsample[:] -= (eta / b) * pulled
                at_subsample[:] += eta * (V @ (scaled * coef))
            alpha[batch] -= (eta / b) * residual
            alpha[setup.rows] += eta * (V @ (c * coef))
        return alpha

    return epoch
