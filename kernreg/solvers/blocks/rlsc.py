"""Incremental regularized least-squares classification with class extension and recoding.

Thesis Chapter 7 (Camoriano et al., "Incremental robot learning of new objects with fixed
update time", ICRA 2017). For inputs ``X`` (n, d), labels coded one-hot (``Y``, n × T, the
thesis's ``e_t`` coding) and ``λ > 0``:

* :class:`IncrementalRLSC` — recursive RLSC. It keeps the upper Cholesky factor ``R`` of
  ``A = XᵀX + λI`` and ``b = XᵀY``; an example costs one rank-one update of ``R``
  (``O(d²)``) and one column update of ``b`` (``O(d)``), whatever the number seen so far. An
  unseen label adds a zero column to ``b`` (``O(d)``, no refactorization). The weights
  ``W = A⁻¹ b Γ^α`` with ``Γ = k·diag(k_1 … k_T)⁻¹`` (``k_t`` examples of class ``t`` among
  ``k``) are Algorithm 7.1; ``α = 0`` is plain RLSC, ``α = 1`` full recoding ``e_t / ρ̂(t)``.
  One instance carries a grid of λ at once (one factor per λ, updated in one sweep), since
  the thesis selects λ on a validation set at every step.
* :class:`RebalancedRLS` — the rebalanced batch RLS of (7.22),
  ``W = (XᵀΣX + λI)⁻¹ XᵀΣY``, ``Σ_ii = 1/ρ̂(y_i)``; ``Σ`` changes with every example, so it is
  refit from scratch (the "RB" comparison of Table 7.1).
* :func:`select_lambda`, :func:`select_recoding` — the model selection of Section 7.6.3:
  accuracy on the validation examples of the well-represented classes only; for recoding,
  the largest ``α`` whose best-λ accuracy is at least that of ``α = 0``.

Labels may be any hashable numbers; classes are numbered in order of first appearance.
A building block, not a registered algorithm: no hold-out λ-path run fits it; the streaming
protocol (:mod:`kernreg.protocols.class_incremental`) drives it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.linalg as la
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from kernreg.solvers.blocks.cholupdate import cholesky_update

__all__ = ["IncrementalRLSC", "RebalancedRLS", "select_lambda", "select_recoding"]


def _lambdas(lambdas: Any) -> np.ndarray:
    lam = np.atleast_1d(np.asarray(lambdas, dtype=np.float64))
    if lam.ndim != 1 or lam.size == 0 or not np.all(np.isfinite(lam)) or np.any(lam <= 0):
        raise ValueError(f"lambdas must be a non-empty list of positive numbers, got {lambdas!r}")
    return lam


def _rows(X: Any, d: int | None = None) -> np.ndarray:
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise ValueError("X must be a finite 2-d array (or one row)")
    if d is not None and X.shape[1] != d:
        raise ValueError(f"X has {X.shape[1]} features, the model was fitted with {d}")
    return X


def _labels(y: Any, n: int) -> np.ndarray:
    y = np.atleast_1d(np.asarray(y))
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must hold one label per row ({n}), got shape {y.shape}")
    return y


class IncrementalRLSC(BaseEstimator):
    """Recursive linear RLSC for a grid of λ, with class extension and recoding (Alg. 7.1).

    Parameters
    ----------
    lambdas : float or sequence of float
        Regularization parameters; one Cholesky factor is kept per value.
    alpha : float in [0, 1], default 0
        Recoding exponent used by :meth:`coef`, :meth:`decision_function` and
        :meth:`predict` when they are not given one (0: plain RLSC).

    Attributes
    ----------
    classes_ : ndarray of shape (T,)
        Labels in order of first appearance (column order of ``b_`` and of the scores).
    class_counts_ : ndarray of shape (T,)
        Training examples seen per class.
    n_seen_ : int
        Training examples seen.
    R_ : ndarray of shape (L, d, d)
        Upper Cholesky factors of ``XᵀX + λ_l I``.
    b_ : ndarray of shape (d, T)
        ``XᵀY`` (uncoded).
    n_features_in_ : int
        ``d``.

    Notes
    -----
    :meth:`fit` starts afresh, :meth:`partial_fit` continues (or starts an unfitted model), as
    in scikit-learn; unlike scikit-learn's ``partial_fit(X, y, classes)``, the classes need not
    be announced: an unseen label is a new class (the point of Algorithm 7.1).
    """

    def __init__(self, lambdas: float | Sequence[float] = 1.0, alpha: float = 0.0):
        self.lambdas = lambdas
        self.alpha = alpha

    # ----------------------------------------------------------------------------- training
    def _start(self, d: int) -> None:
        lam = _lambdas(self.lambdas)
        self._check_alpha(self.alpha)
        self.lambdas_ = lam
        self.n_features_in_ = d
        self.R_ = np.sqrt(lam)[:, None, None] * np.eye(d)[None]  # R₀ = √λ I
        self.b_ = np.zeros((d, 0))
        self.classes_ = np.zeros(0)
        self.class_counts_ = np.zeros(0, dtype=np.int64)
        self.n_seen_ = 0
        self._index: dict[Any, int] = {}

    def _class_index(self, label: Any) -> int:
        """Column of ``label``, adding a class (a zero column of ``b``, O(d)) if unseen."""
        key = label.item() if isinstance(label, np.generic) else label
        t = self._index.get(key)
        if t is None:
            t = len(self._index)
            self._index[key] = t
            self.classes_ = np.append(self.classes_, key)
            self.class_counts_ = np.append(self.class_counts_, 0)
            self.b_ = np.concatenate([self.b_, np.zeros((self.b_.shape[0], 1))], axis=1)
        return t

    def fit(self, X: Any, y: Any) -> IncrementalRLSC:
        """Start afresh on a batch: ``R = chol(XᵀX + λI)``, ``b = XᵀY``.

        Equal (to rounding) to :meth:`partial_fit` over the same rows from an empty model,
        at ``O(nd² + Ld³)`` instead of ``O(nLd²)``: the way to load the initial classes.

        Parameters
        ----------
        X : array-like of shape (n, d), finite
        y : array-like of shape (n,), labels

        Returns
        -------
        self
        """
        X = _rows(X)
        y = _labels(y, X.shape[0])
        self._start(X.shape[1])
        cols = np.array([self._class_index(label) for label in y], dtype=np.int64)
        np.add.at(self.class_counts_, cols, 1)
        self.n_seen_ = X.shape[0]
        Y = np.zeros((X.shape[0], self.classes_.size))
        Y[np.arange(X.shape[0]), cols] = 1.0
        self.b_ = X.T @ Y
        G = X.T @ X
        for i, lam in enumerate(self.lambdas_):
            G[np.diag_indices_from(G)] += lam
            self.R_[i] = la.cholesky(G, lower=False, check_finite=False)
            G[np.diag_indices_from(G)] -= lam
        return self

    def partial_fit(self, X: Any, y: Any) -> IncrementalRLSC:
        """Add examples one at a time: per example one rank-one Cholesky update per λ and
        one column of ``b``; an unseen label becomes a new class in ``O(d)``.

        Parameters
        ----------
        X : array-like of shape (n, d) or (d,), finite
            ``d`` must be the fitted one.
        y : array-like of shape (n,), labels

        Returns
        -------
        self
        """
        X = _rows(X, None if not hasattr(self, "R_") else self.R_.shape[-1])
        y = _labels(y, X.shape[0])
        if not hasattr(self, "R_"):
            self._start(X.shape[1])
        L = self.lambdas_.size
        for x, label in zip(X, y, strict=True):
            t = self._class_index(label)
            self.class_counts_[t] += 1
            self.n_seen_ += 1
            self.b_[:, t] += x
            cholesky_update(self.R_, np.broadcast_to(x, (L, x.size)))
        return self

    # --------------------------------------------------------------------------- prediction
    @staticmethod
    def _check_alpha(alpha: float) -> float:
        if not (np.isfinite(alpha) and 0.0 <= alpha <= 1.0):
            raise ValueError(f"alpha must lie in [0, 1], got {alpha!r}")
        return float(alpha)

    def recoding(self, alpha: float | None = None) -> np.ndarray:
        """Diagonal of ``Γ^α``, ``Γ_tt = k / k_t`` (Algorithm 7.1), shape (T,)."""
        check_is_fitted(self, "R_")
        alpha = self._check_alpha(self.alpha if alpha is None else alpha)
        gamma = self.n_seen_ / np.maximum(self.class_counts_, 1)
        return gamma**alpha

    def coef(self, alpha: float | None = None) -> np.ndarray:
        """Weights ``W_l = A_l⁻¹ b Γ^α`` for every λ, shape (L, d, T) (``alpha``: default
        the constructor's)."""
        check_is_fitted(self, "R_")
        W = np.stack([la.cho_solve((R, False), self.b_, check_finite=False) for R in self.R_])
        return W * self.recoding(alpha)

    def decision_function(self, X: Any, alpha: float | None = None) -> np.ndarray:
        """Scores ``X W_l`` for every λ, shape (L, n, T); columns in ``classes_`` order."""
        check_is_fitted(self, "R_")
        X = _rows(X, self.R_.shape[-1])
        return np.einsum("nd,ldt->lnt", X, self.coef(alpha))

    def predict(self, X: Any, alpha: float | None = None, lambda_index: int = 0) -> np.ndarray:
        """Labels ``argmax_t (XW)_t`` for the λ at ``lambda_index`` (7.17)."""
        scores = self.decision_function(X, alpha)[lambda_index]
        return self.classes_[np.argmax(scores, axis=1)]


class RebalancedRLS(BaseEstimator):
    """Batch RLS on the rebalanced square loss (7.22), for a grid of λ.

    ``W = (XᵀΣX + λI)⁻¹ XᵀΣY`` with ``Σ_ii = 1/ρ̂(y_i) = n / n_{y_i}`` and one-hot ``Y``.
    Nothing is incremental: every :meth:`fit` forms ``XᵀΣX`` from all rows (``O(nd² + Ld³)``).

    Parameters
    ----------
    lambdas : float or sequence of float
        Regularization parameters.
    weight_power : float, default 1.0
        ``β`` of the weights ``Σ_ii = (n / n_{y_i})^β``: 1 is (7.22), 0 plain RLS on the
        same rows, values between them a partial rebalancing (a sensitivity analysis of
        Table 7.1, ``reproduce/thesis_ch7/table7_per_digit.py``).

    Attributes
    ----------
    classes_ : ndarray of shape (T,)
        Labels, in the column order of the scores.
    coef_ : ndarray of shape (L, d, T)
        Weights for every λ.
    class_counts_ : ndarray of shape (T,)
        Training examples per class.
    n_features_in_ : int
        ``d``.
    """

    def __init__(self, lambdas: float | Sequence[float] = 1.0, weight_power: float = 1.0):
        self.lambdas = lambdas
        self.weight_power = weight_power

    def fit(self, X: Any, y: Any, classes: Sequence[Any] | None = None) -> RebalancedRLS:
        """Fit on all rows.

        Parameters
        ----------
        X : array-like of shape (n, d), finite
        y : array-like of shape (n,), labels
        classes : sequence, optional
            The label order of the score columns (default: order of appearance); every label
            of ``y`` must be in it.

        Returns
        -------
        self
        """
        X = _rows(X)
        y = _labels(y, X.shape[0])
        self.lambdas_ = _lambdas(self.lambdas)
        if classes is None:
            _, first = np.unique(y, return_index=True)
            classes = y[np.sort(first)]
        self.classes_ = np.asarray(classes)
        index = {c: i for i, c in enumerate(self.classes_.tolist())}
        try:
            cols = np.array([index[v] for v in y.tolist()], dtype=np.int64)
        except KeyError as exc:
            raise ValueError(f"y holds the label {exc.args[0]!r}, not in classes") from None
        counts = np.bincount(cols, minlength=self.classes_.size)
        if not (np.isfinite(self.weight_power) and self.weight_power >= 0):
            raise ValueError(f"weight_power must be a finite number >= 0, got "
                             f"{self.weight_power!r}")
        weights = (X.shape[0] / counts[cols]) ** self.weight_power  # 1/ρ̂(y_i) at β = 1
        Xw = X * weights[:, None]
        G = X.T @ Xw
        B = np.zeros((X.shape[1], self.classes_.size))
        np.add.at(B.T, cols, Xw)  # B[:, t] = Σ_{i: y_i = t} w_i x_i
        W = np.empty((self.lambdas_.size, X.shape[1], self.classes_.size))
        for i, lam in enumerate(self.lambdas_):
            G[np.diag_indices_from(G)] += lam
            W[i] = la.cho_solve((la.cholesky(G, lower=False, check_finite=False), False), B,
                                check_finite=False)
            G[np.diag_indices_from(G)] -= lam
        self.coef_ = W
        self.class_counts_ = counts
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Scores for every λ, shape (L, n, T); columns in ``classes_`` order."""
        check_is_fitted(self, "coef_")
        return np.einsum("nd,ldt->lnt", _rows(X, self.coef_.shape[1]), self.coef_)

    def predict(self, X: Any, lambda_index: int = 0) -> np.ndarray:
        """Labels ``argmax_t (XW)_t`` for the λ at ``lambda_index``."""
        return self.classes_[np.argmax(self.decision_function(X)[lambda_index], axis=1)]


# ------------------------------------------------------------------------------ model selection
def _masked_accuracies(scores: np.ndarray, y_col: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Accuracy per leading index of ``scores`` (…, n, T) over the rows in ``mask``."""
    if not mask.any():
        raise ValueError("no validation example of a well-represented class")
    pred = np.argmax(scores[..., mask, :], axis=-1)
    return np.mean(pred == y_col[mask], axis=-1)


def select_lambda(scores: np.ndarray, y_col: np.ndarray, mask: np.ndarray) -> tuple[int, float]:
    """λ index with the highest validation accuracy over the rows in ``mask``.

    ``scores`` (L, n, T) on the validation rows, ``y_col`` their true columns, ``mask`` the
    rows of well-represented classes. Ties go to the largest λ (the grid is taken ascending:
    the most regularized of equally accurate models).
    """
    acc = _masked_accuracies(scores, y_col, mask)
    best = int(np.flatnonzero(acc == acc.max())[-1])
    return best, float(acc[best])


def select_recoding(scores: np.ndarray, recoding: np.ndarray, alphas: Sequence[float],
                    y_col: np.ndarray, mask: np.ndarray) -> tuple[float, int, np.ndarray]:
    """Section 7.6.3: the largest ``α`` whose validation accuracy on the well-represented
    classes (best λ for that ``α``) is at least that of ``α = 0``.

    Parameters
    ----------
    scores : ndarray (L, n, T)
        Uncoded scores ``X_val A_l⁻¹ b`` (``Γ^α`` only rescales their columns).
    recoding : ndarray (T,)
        Diagonal of ``Γ`` (``α = 1``).
    alphas : sequence of float in [0, 1], containing 0

    Returns
    -------
    alpha, lambda_index, accuracies (len(alphas), L)
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    if not np.any(alphas == 0.0):
        raise ValueError("the α grid must contain 0 (the reference of the selection rule)")
    acc = np.stack([_masked_accuracies(scores * recoding**a, y_col, mask) for a in alphas])
    best = acc.max(axis=1)
    reference = best[np.flatnonzero(alphas == 0.0)[0]]
    ok = np.flatnonzero(best >= reference)
    i = ok[np.argmax(alphas[ok])]
    lam = int(np.flatnonzero(acc[i] == best[i])[-1])
    return float(alphas[i]), lam, acc
