"""Hyperparameters of the online estimators chosen on the training set alone (thesis
Section 8.3's protocol, as ``reproduce/thesis_ch8/thesis_fig8_4.py`` has always done it).

Batch ridge — equal to the recursion's state after the same samples — is fitted on the first
``fraction`` of the training samples and scored on the rest by the RMSE of the outputs divided
by their training std (:meth:`HoldoutSelection.score`). Candidates are tried in grid order
(σ outer, λ inner) and the first best is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kernreg.features import RandomFourierFeatures
from kernreg.solvers.blocks.recursive_rls import batch_ridge

__all__ = ["HoldoutSelection"]


class HoldoutSelection:
    """The training set split for selection, with the batch fits the estimators share.

    Parameters
    ----------
    Z : ndarray of shape (n, d)
        The estimators' inputs (standardized) of the training samples, in order.
    y : ndarray of shape (n, k)
        Their targets.
    regressor_rows : ndarray of shape (n, k, p), optional
        The known regressor ``Y(x)`` of every sample (for the parametric parts).
    fraction : float, default 0.9
        The first ``int(fraction · n)`` samples are fitted, the others score.
    """

    def __init__(self, Z: np.ndarray, y: np.ndarray, regressor_rows: np.ndarray | None = None,
                 fraction: float = 0.9):
        self.Z = np.asarray(Z, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)
        self.regressor_rows = regressor_rows
        self.n_fit = int(fraction * len(self.y))
        if not 1 <= self.n_fit < len(self.y):
            raise ValueError(f"fraction {fraction} of {len(self.y)} samples leaves no sample to "
                             "fit or none to score")
        self.scale = self.y[:self.n_fit].std(0)
        self._parametric: dict[float, np.ndarray] = {}

    def score(self, prediction: np.ndarray) -> float:
        """RMSE of ``prediction`` (the scored samples, (n − n_fit, k)) in units of the
        targets' training std."""
        return float(np.sqrt(np.mean(((prediction - self.y[self.n_fit:]) / self.scale) ** 2)))

    # ------------------------------------------------------------------ the parametric part
    def parametric_coef(self, lam_p: float) -> np.ndarray:
        """π of batch ridge ``‖Yπ − y‖² + λ_P‖π‖²`` on the fitted samples (p,)."""
        if lam_p not in self._parametric:
            if self.regressor_rows is None:
                raise ValueError("no regressor rows: the parametric part cannot be selected")
            Y, n = self.regressor_rows, self.n_fit
            A = Y.reshape(len(self.y) * Y.shape[1], -1)
            self._parametric[lam_p] = batch_ridge(A[:Y.shape[1] * n],
                                                  self.y[:n].reshape(-1), lam_p)[:, 0]
        return self._parametric[lam_p]

    def parametric_outputs(self, lam_p: float) -> np.ndarray:
        """``Y π`` of :meth:`parametric_coef` on every training sample (n, k)."""
        return self.regressor_rows @ self.parametric_coef(lam_p)

    def best_parametric(self, lambdas: Sequence[float]) -> float:
        """The λ_P of ``lambdas`` whose batch fit scores best (the first of equals)."""
        scores = {lam: self.score(self.regressor_rows[self.n_fit:] @ self.parametric_coef(lam))
                  for lam in lambdas}
        return min(scores, key=scores.get)

    # ------------------------------------------------------------------ random features
    def features(self, n_components: int, sigma: float, seed: int) -> np.ndarray:
        """``Z = ψ(X)/√D`` of every training sample: the features
        :class:`~kernreg.solvers.online.RandomFeaturesRLS` draws from ``seed`` (not kept:
        cheaper to draw again than to hold every σ's)."""
        fmap = RandomFourierFeatures(n_components, sigma, random_state=seed).draw(
            self.Z.shape[1])
        return fmap.transform(self.Z) * fmap.scale

    def best_features(self, n_components: int, seed: int, sigmas: Sequence[float],
                      lambdas: Sequence[float], base: np.ndarray | None = None
                      ) -> tuple[float, float]:
        """(σ, λ) of random-features ridge on the targets less ``base`` (n, k) — the
        semiparametric residual — scored with ``base`` added back; σ outer, λ inner, the
        first of equals."""
        n = self.n_fit
        target = self.y if base is None else self.y - base
        best: tuple[float, float, float] | None = None
        for sigma in sigmas:
            F = self.features(n_components, sigma, seed)
            for lam in lambdas:
                W = batch_ridge(F[:n], target[:n], lam)
                prediction = F[n:] @ W if base is None else base[n:] + F[n:] @ W
                s = self.score(prediction)
                if best is None or s < best[0]:
                    best = (s, sigma, lam)
        assert best is not None
        return best[1], best[2]
