"""Stochastic (incremental) gradient passes of a kernel model in the dual, the pieces the
one-pass SGM and the multi-pass SIGM share (thesis Chapter 6, Algorithm 1).

In the RKHS the iterate is ``f_t = Σ_i α_i K(x_i, ·)``, and the step
``w_{t+1} = w_t − η_t ℓ′(y_j, f_t(x_j)) K(x_j, ·)`` changes one coefficient:
``α_j ← α_j − η_t ℓ′(y_j, (Kα)_j)``. A pass reads the kernel row ``K(x_j, ·)`` of every visited
point; rows come from the stored ``n × n`` kernel when it fits the memory allowance, else are
evaluated block-wise (a block of visited points at a time) under the memory budget.
Several coefficient columns (one per step-size guess) advance together on the same rows: a path
over step sizes reads each row once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from kernreg._validation import check_choice, check_data
from kernreg.kernels import Kernel
from kernreg.losses import Loss, get_loss
from kernreg.progress import report

__all__ = [
    "DEFAULT_ETAS",
    "DEFAULT_THETAS",
    "ITERATES",
    "KINKS",
    "ORDERINGS",
    "SCHEDULES",
    "VALIDATION_MEASURES",
    "KernelRows",
    "PathOutputs",
    "StepAverage",
    "block_steps",
    "check_eval_rows",
    "check_stochastic",
    "column_scorer",
    "dual_pass",
    "epoch_indices",
    "guess_grid",
    "guess_passes",
    "guess_steps",
    "kernel_memory",
    "loss_step",
    "primal_pass",
    "step_sizes",
    "stored_or_blocked",
]

#: Visiting orders of the incremental method: one permutation drawn once and cycled (the
#: authors' default, Enitor's ``fixed``), a new permutation every epoch, or i.i.d. uniform draws
#: (the thesis' Algorithm 1).
ORDERINGS = ("cyclic", "reshuffle", "iid")
#: The iterate a multi-pass method reports after each epoch: the last (the authors' code) or the
#: step-weighted average of all iterates so far (thesis Eq. 6.4).
ITERATES = ("last", "average")
#: The hinge subgradient at the kink ``y f = 1``: ``−y`` (the authors' update whenever
#: ``y f ≤ 1``) or ``0`` (kernreg's ``HingeLoss.derivative``, strict ``y f < 1``).
KINKS = ("authors", "zero")
#: Step-size schedules of one-pass SGM: constant η (θ = 0) or decaying η t^(−θ) (η = 1/4).
SCHEDULES = ("constant", "decaying")
#: The constant schedule's 30 guesses: η log-spaced in [1e-3, 1] (θ = 0), the range of the
#: thesis' Figure 6.2(a).
DEFAULT_ETAS = np.logspace(-3.0, 0.0, 30)
#: The decaying schedule's 30 guesses: θ evenly spaced in [0, 1] (η = 1/4), Figure 6.2(b).
DEFAULT_THETAS = np.linspace(0.0, 1.0, 30)


def step_sizes(eta: Any, theta: Any, t: Any) -> np.ndarray:
    """``η_t = η t^(−θ)`` at the 1-based iteration counts ``t`` (broadcast: ``t`` as a column
    against rows of ``η``/``θ`` gives one column per step-size guess)."""
    t = np.asarray(t, dtype=np.float64)
    return np.asarray(eta, dtype=np.float64) * t ** (-np.asarray(theta, dtype=np.float64))


def epoch_indices(n: int, epoch: int, ordering: str, rng: np.random.Generator,
                  first: np.ndarray) -> np.ndarray:
    """The points visited in epoch ``epoch`` (0-based): ``first`` (a permutation drawn once)
    for ``cyclic`` and for the first epoch of ``reshuffle``; a fresh permutation for the later
    epochs of ``reshuffle``; ``n`` i.i.d. uniform draws for ``iid``."""
    if ordering == "iid":
        return rng.integers(0, n, size=n)
    if ordering == "reshuffle" and epoch > 0:
        return rng.permutation(n)
    return first


def loss_step(loss: Loss, kink: str) -> Callable[[float, np.ndarray], np.ndarray]:
    """``g(y_j, f)``: the loss' (sub)derivative in ``f`` for one point and the outputs ``f`` of
    every coefficient column. For the hinge loss ``kink`` says what it is at ``y f = 1``."""
    if loss.name == "hinge":
        if kink == "authors":
            return lambda yj, f: np.where(yj * f <= 1.0, -yj, 0.0)
        return lambda yj, f: np.where(yj * f < 1.0, -yj, 0.0)
    return lambda yj, f: loss.derivative(np.full_like(f, yj), f)


class KernelRows:
    """Rows ``K(x_j, X)`` of the fit rows for a visiting order.

    The ``n × n`` kernel is stored in the kernel's dtype when its ``n²`` entries fit
    ``store_bytes`` (``stored`` says so; float32 halves them, the products then run in float32
    and come back float64); otherwise the rows of a block of visited points are evaluated
    together, as many as fit the kernel's memory budget. A stored kernel is kept in the
    visiting order ``order`` when one is given (``K(X[order], X[order])``, the same matrix
    permuted): a pass in that order then reads consecutive rows in place, where another order
    gathers a copy of every block's rows (at memory-copy speed, several times a product's cost).
    """

    def __init__(self, kernel: Kernel, X: Any, store_bytes: int, order: np.ndarray | None = None):
        self.kernel, self.X = kernel, X
        self.n = X.shape[0]
        self.dtype = np.dtype(kernel.dtype)
        self.stored = self.dtype.itemsize * self.n**2 <= store_bytes
        if order is not None and not np.array_equal(np.sort(order), np.arange(self.n)):
            raise ValueError("KernelRows: order must be a permutation of the fit rows")
        self.perm = np.asarray(order) if self.stored and order is not None else None
        self.K = None
        if self.stored:
            rows = X if self.perm is None else X[self.perm]
            self.K = np.asarray(kernel(rows), dtype=self.dtype)
        self.block = max(1, int(kernel.memory_budget) // (self.dtype.itemsize * self.n))

    def positions(self, order: np.ndarray) -> np.ndarray:
        """Where the points of ``order`` sit among the kernel's rows and columns."""
        if self.perm is None:
            return order
        where = np.empty(self.n, dtype=np.intp)
        where[self.perm] = np.arange(self.n)
        return where[order]

    def blocks(self, positions: np.ndarray) -> Iterator[tuple[np.ndarray | slice, np.ndarray]]:
        """``(cols, rows)`` for consecutive blocks of ``positions``: the block's kernel rows and
        where its points sit among their columns (a slice, and the rows a view, when the block
        is consecutive in a stored kernel)."""
        for start in range(0, len(positions), self.block):
            report("points {}/{} of the pass", start, len(positions))
            pos = positions[start:start + self.block]
            if self.K is None:
                yield pos, np.asarray(self.kernel(self.X[pos], self.X), dtype=self.dtype)
            elif pos[-1] - pos[0] == len(pos) - 1 and np.all(np.diff(pos) == 1):
                cols = slice(int(pos[0]), int(pos[-1]) + 1)
                yield cols, self.K[cols]
            else:
                yield pos, self.K[pos]


def dual_pass(rows: KernelRows, order: np.ndarray, y: np.ndarray, A: np.ndarray,
              steps: np.ndarray, grad: Callable[[float, np.ndarray], np.ndarray],
              weighted: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """One sweep over ``order``: for the ``k``-th visited point ``j``,
    ``A[j] −= steps[k] * grad(y_j, K(x_j, X) @ A)`` (``A`` of shape ``(n, c)``, one column per
    step-size guess, updated in place; ``steps`` of shape ``(len(order), c)``).

    A block of visited points costs one product ``K(x_idx, X) @ A`` with the coefficients at
    the block's start, not one product per step: the steps taken inside the block are added
    back through the block's own kernel columns (:func:`block_steps`), which is the same
    iterate (to rounding) for a fraction of the reads.

    ``weighted = (P, a)``: also ``P[j] += a[k] · Δ_k`` for each step's change ``Δ_k``
    (``P`` like ``A``, in place; ``a`` like ``steps``), the sum behind an averaged iterate
    (:class:`StepAverage`)."""
    perm = rows.perm  # the coefficients in the stored kernel's order while the pass runs
    coefs = A if perm is None else A[perm]
    total = None if weighted is None else (weighted[0] if perm is None else weighted[0][perm])
    k = 0
    for cols, R in rows.blocks(rows.positions(order)):
        visited = order[k:k + R.shape[0]]
        D = block_steps(R @ coefs.astype(R.dtype, copy=False), R[:, cols], y[visited],
                        steps[k:k + R.shape[0]], grad)
        np.add.at(coefs, cols, D)  # a point visited twice in one block (iid order) adds twice
        if total is not None:
            np.add.at(total, cols, weighted[1][k:k + R.shape[0]] * D)
        k += R.shape[0]
    if perm is not None:
        A[perm] = coefs
        if total is not None:
            weighted[0][perm] = total


class StepAverage:
    """The step-weighted average of the iterates ``w_1 = 0, w_2, …`` of a dual pass (thesis
    Eq. 6.4, ``w̄ = Σ_k η_k w_k / Σ_k η_k``), kept as a running sum: by summation by parts
    ``Σ_{k≤T+1} η_k w_k = a_{T+1} w_{T+1} − P`` with ``a_i = η_1 + … + η_i`` and
    ``P = Σ_{i≤T} a_i Δ_i`` over the steps' changes ``Δ_i`` (:func:`dual_pass`'s ``weighted``).

    Parameters
    ----------
    shape : tuple of int
        The coefficients' shape ``(n, c)``.
    """

    def __init__(self, shape: tuple[int, int]):
        self.P = np.zeros(shape)
        self.total = np.zeros(shape[1])  # a_T, one per column

    def weighted(self, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(P, a)`` for :func:`dual_pass` over the next ``steps`` (``(len(order), c)``)."""
        a = self.total + np.cumsum(steps, axis=0)
        self.total = a[-1].copy()
        return self.P, a

    def of(self, A: np.ndarray, next_step: np.ndarray) -> np.ndarray:
        """The average after the steps so far, from the last iterate ``A`` and ``η_{T+1}``."""
        return A - self.P / (self.total + next_step)


def block_steps(F0: np.ndarray, G: np.ndarray, y: np.ndarray, steps: np.ndarray,
                grad: Callable[[float, np.ndarray], np.ndarray]) -> np.ndarray:
    """The steps of one block of visited points, in order.

    ``F0`` ``(B, c)``: the outputs at the visited points before the block; ``G`` ``(B, B)``:
    the kernel between them (``G[r, s] = K(x_r, x_s)``, or ``z_r · z_s`` in the primal). The
    ``r``-th point sees the block's earlier steps, ``f_r = F0[r] + G[r, :r] @ D[:r]``, and takes
    ``D[r] = −steps[r] · grad(y_r, f_r)``. Returns ``D`` ``(B, c)``, the coefficient change of
    each step (to add at the visited points' coefficients)."""
    D = np.zeros(F0.shape)
    for r in range(F0.shape[0]):
        f = F0[r] + G[r, :r] @ D[:r] if r else F0[r]
        D[r] = -steps[r] * grad(y[r], f)
    return D


#: Measures a stochastic method can select on (of ±1 targets): the hinge loss (the authors'
#: ``hingeLoss`` performance measure) or the classification error.
VALIDATION_MEASURES = ("hinge", "error")


def column_scorer(measure: str, y_val: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``score(F)``: ``measure`` of each column of the outputs ``F`` ``(n_val, c)`` against the
    ±1 targets ``y_val`` (the mean hinge loss, or the fraction of signs ``f ≥ 0 → +1`` that
    differ from ``y``)."""
    y = np.asarray(y_val, dtype=np.float64)[:, None]
    if measure == "hinge":
        return lambda F: np.maximum(0.0, 1.0 - y * F).mean(axis=0)
    return lambda F: (np.where(F >= 0.0, 1.0, -1.0) != y).mean(axis=0)


def stored_or_blocked(kernel: Kernel, X_val: Any, X: Any, store_bytes: int
                      ) -> tuple[Callable[[np.ndarray], np.ndarray], bool]:
    """``predict(A) = K(X_val, X) @ A`` (float64) with ``K(X_val, X)`` stored in the kernel's
    dtype when its ``n_val n`` entries fit ``store_bytes`` (then also returned ``True``), else
    evaluated block-wise per call."""
    dtype = np.dtype(kernel.dtype)
    if dtype.itemsize * X_val.shape[0] * X.shape[0] <= store_bytes:
        K_val = np.asarray(kernel(X_val, X), dtype=dtype)
        return (lambda A: np.asarray(K_val @ A.astype(dtype, copy=False), dtype=np.float64)), True
    return (lambda A: kernel.matvec(X_val, X, A)), False


class PathOutputs:
    """Outputs on extra rows (a test set: ``X_eval``) of the models a validated path scores,
    and the seconds they took (kept apart from the fit's time).

    ``predict(coefs)`` maps coefficient columns ``(n_coef, c)`` to outputs ``(n_eval, c)``;
    ``record(coefs)`` evaluates and keeps them, in the order the path scores its models.
    """

    def __init__(self, predict: Callable[[np.ndarray], np.ndarray], seconds: float = 0.0):
        self.predict, self.seconds = predict, float(seconds)
        self._outputs: list[np.ndarray] = []

    @classmethod
    def of_kernel(cls, kernel: Kernel, X_eval: Any, X: Any, store_bytes: int) -> PathOutputs:
        """Dual models on the fit rows ``X``: ``K(X_eval, X) @ coefs``, the kernel stored when
        it fits ``store_bytes`` (see :func:`stored_or_blocked`; its evaluation is timed)."""
        start = time.perf_counter()
        predict, _ = stored_or_blocked(kernel, X_eval, X, store_bytes)
        return cls(predict, time.perf_counter() - start)

    def record(self, coefs: np.ndarray) -> None:
        start = time.perf_counter()
        self._outputs.append(np.asarray(self.predict(coefs), dtype=np.float64).T)
        self.seconds += time.perf_counter() - start

    def of_columns(self, coefs: np.ndarray) -> tuple[np.ndarray, float]:
        """Every column of ``coefs`` (one model each) evaluated: ``(outputs, seconds)`` with
        outputs ``(c, 1, n_eval)``."""
        self.record(coefs)
        return self.stacked(coefs.shape[1]), self.seconds

    def stacked(self, count: int) -> np.ndarray:
        """The first ``count`` recorded models' outputs as ``(count, 1, n_eval)``: the
        one-parameter layout of a trial's test path."""
        return np.concatenate(self._outputs, axis=0)[:count, None, :]


def kernel_memory(n_fit: int, n_val: int, store_bytes: int, itemsize: int = 8
                  ) -> dict[str, int]:
    """Peak-memory parts of a dual pass' kernels, as :class:`KernelRows` and
    :func:`stored_or_blocked` decide them: ``K`` (``n_fit²`` entries of ``itemsize`` bytes)
    and the validation kernel (``n_val n_fit``) when they fit ``store_bytes``, else nothing
    beyond the evaluated block (counted with the kernel's budget)."""
    full, val = itemsize * n_fit**2, itemsize * n_val * n_fit
    return {"K (stored)" if full <= store_bytes else "K (rows re-evaluated, not stored)":
            full if full <= store_bytes else 0,
            "validation kernel" if val <= store_bytes else "validation kernel (blocked)":
            val if val <= store_bytes else 0}


def guess_grid(values: Any, default: np.ndarray, name: str, theta: bool) -> np.ndarray:
    """Step-size guesses as a 1-D float array: positive η values, or θ values in [0, 1]."""
    grid = np.atleast_1d(np.asarray(default if values is None else values, dtype=np.float64))
    ok = grid.ndim == 1 and grid.size > 0 and bool(np.all(np.isfinite(grid)))
    ok = ok and bool(np.all((grid >= 0) & (grid <= 1)) if theta else np.all(grid > 0))
    if not ok:
        what = "numbers in [0, 1]" if theta else "positive numbers"
        raise ValueError(f"{name} must be a non-empty list of {what}, got {values!r}")
    return grid


def guess_passes(sweep: Callable[[np.ndarray, np.ndarray], None], n_steps: int, n_coef: int,
                 etas: np.ndarray, thetas: np.ndarray, passes: int,
                 score: Callable[[np.ndarray], np.ndarray] | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``passes`` sweeps for every guess ``η_k t^(−θ_k)`` together (one coefficient column
    each, ``t`` going on from pass to pass); ``sweep(A, steps)`` runs one pass of ``n_steps``
    steps on the ``(n_coef, guesses)`` block ``A`` in place; each pass is scored by ``score``
    (lower is better).

    Returns each guess' coefficients at its best pass (the last pass without ``score``), its
    best score (``inf`` without) and that pass (1-based)."""
    A = np.zeros((n_coef, etas.size * thetas.size))
    best_A, best_scores = A.copy(), np.full(A.shape[1], np.inf)
    best_pass = np.full(A.shape[1], passes, dtype=np.int64)
    for p in range(passes):
        t = np.arange(p * n_steps + 1, (p + 1) * n_steps + 1)[:, None]
        sweep(A, step_sizes(etas[None, :], thetas[None, :], t))
        if score is None:
            best_A[:] = A
            continue
        scores = np.asarray(score(A), dtype=np.float64)
        better = np.isfinite(scores) & (scores < best_scores)
        best_A[:, better], best_scores[better], best_pass[better] = A[:, better], \
            scores[better], p + 1
    return best_A, best_scores, best_pass


def primal_pass(features: Callable[[np.ndarray], np.ndarray], order: np.ndarray, block: int,
                y: np.ndarray, W: np.ndarray, steps: np.ndarray,
                grad: Callable[[float, np.ndarray], np.ndarray]) -> None:
    """One sweep in the primal of an explicit feature map ``z``: for the ``k``-th visited point
    ``j``, ``W −= z_j ⊗ steps[k] · grad(y_j, z_j @ W)`` (``W`` of shape ``(D, c)``, in place);
    ``features(idx)`` gives the rows ``z`` of a block of at most ``block`` visited points.

    As :func:`dual_pass`, a block costs the products ``Z @ W``, ``Z Zᵀ`` and one rank-``B``
    update ``W += Zᵀ D`` instead of ``B`` rank-one updates of ``W``."""
    k = 0
    for start in range(0, len(order), block):
        report("points {}/{} of the pass", start, len(order))
        idx = order[start:start + block]
        Z = features(idx)
        D = block_steps(Z @ W, Z @ Z.T, y[idx], steps[k:k + len(idx)], grad)
        W += Z.T @ D
        k += len(idx)


def guess_steps(schedule: str, grid: np.ndarray | None, eta: float, theta: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """``(etas, thetas)`` of the guesses: the grid of η with θ = 0 (``"constant"``), η with the
    grid of θ (``"decaying"``), or the single ``(eta, theta)`` when ``grid`` is None (a fit
    without validation data)."""
    if grid is None:
        return np.array([float(eta)]), np.array([float(theta)])
    if schedule == "constant":
        return grid, np.zeros(1)
    return np.array([float(eta)]), grid


def check_eval_rows(estimator: Any, X_eval: Any) -> Any:
    """``X_eval`` (rows to evaluate the path's models on) checked like the fit rows (None
    stays None); after ``_start_fit``."""
    return None if X_eval is None else check_data(X_eval, "X_eval", estimator=estimator,
                                                  reset=False)


def check_stochastic(loss: str, kink: str, validation_measure: str) -> None:
    """The parameters every stochastic-gradient estimator shares: its loss (a registered
    name), the subgradient at the hinge's kink and the validation measure."""
    get_loss(loss)
    check_choice(kink, "kink", KINKS)
    check_choice(validation_measure, "validation_measure", VALIDATION_MEASURES)
