"""σ as a grid dimension: select the kernel bandwidth jointly with an estimator's own path.

:class:`SigmaSearch` fits a copy of the estimator for every σ of a grid on the same fit and
validation rows with the same seed (so the same hold-out split, the same centers and the same
random-feature draws up to their scale), scores each σ by the validation error at the point
its own path selects, and keeps the σ with the lowest (the first on ties). The (σ × path)
validation array is kept, so the selection can be checked against it.

What does not depend on σ is shared where it is simple: the split and the seeded draws are
the same for every σ (they come from the trial), and the refit on training + validation rows,
when asked, happens once, for σ* only (a second fit at σ*: the same seed selects the same
point, then refits). The squared distances of the kernel blocks are not kept across σ: of a
Gaussian block only the cross products ``X Cᵀ`` are σ-free (the exponential and all the
solver's work are not), and they measured 1.9–2.5% of an Incremental Nyström fit's CPU time
on Insurance and cpuAct at m = 2048 (``reproduce/bench/bench_sigma_shared.py``) — not worth an
n × m block held through the grid.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone

from kernreg._validation import check_positive
from kernreg.grid import grid_values
from kernreg.solvers.blocks.base import KernelEstimator, Selection

__all__ = ["SigmaSearch", "selected_validation_error", "sigma_grid"]


def sigma_grid(value: Any) -> np.ndarray:
    """The σ values of a config entry: a number or a grid (:func:`kernreg.grid.grid_values`)."""
    return grid_values(value)


def selected_validation_error(selection: Selection) -> float:
    """The validation error at the point a fit selected: the minimum of a λ path (its
    selection rule), the value at t* of an iteration path."""
    val = np.asarray(selection.val_rmse, dtype=np.float64)
    if not val.size or np.all(np.isnan(val)):
        return float("nan")
    if selection.param_name == "iterations":
        return float(val.reshape(-1)[int(selection.selected) - 1])
    return float(np.nanmin(val))


class SigmaSearch(BaseEstimator):
    """Select σ from ``sigmas`` jointly with ``estimator``'s own parameter on one hold-out.

    Parameters
    ----------
    estimator : KernelEstimator
        A configured estimator with a ``sigma`` parameter (and ``refit``, if it refits).
    sigmas : array-like of float
        The σ grid.

    Attributes
    ----------
    best_sigma_ : float
    best_estimator_ : KernelEstimator
        Fitted at σ* (refit on training + validation rows when ``estimator.refit``).
    sigma_val_rmse_ : ndarray of shape (S, *path)
        The validation path of every σ (NaN-padded where paths differ in length).
    sigma_scores_ : ndarray of shape (S,)
        The validation error at each σ's own selected point.
    """

    def __init__(self, estimator: KernelEstimator | None = None, sigmas: Any = None):
        self.estimator = estimator
        self.sigmas = sigmas

    @property
    def path_parameter(self) -> str | None:
        return getattr(self.estimator, "path_parameter", None)

    @property
    def validation_measure(self) -> str:
        return getattr(self.estimator, "validation_measure", "rmse")

    def check_params(self) -> None:
        """The grid's values are positive numbers; the estimator's parameters check out at
        every σ."""
        sigmas = sigma_grid(self.sigmas)
        if sigmas.ndim != 1 or not sigmas.size:
            raise ValueError(f"sigma: a non-empty list of numbers, got {self.sigmas!r}")
        for s in sigmas:
            check_positive(float(s), "sigma")
        if "sigma" not in self.estimator.get_params():
            raise ValueError(f"{type(self.estimator).__name__} has no sigma to select")
        for s in sigmas:
            clone(self.estimator).set_params(sigma=float(s)).check_params()

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None, **fit_params: Any
            ) -> SigmaSearch:
        """Fit every σ on ``(X, y)``, score on ``(X_val, y_val)``, keep σ*.

        ``fit_params`` (e.g. ``X_eval``) go to the fit at σ* only.
        """
        if X_val is None or y_val is None:
            raise ValueError("selecting sigma needs validation data (X_val, y_val)")
        self.check_params()
        params = self.estimator.get_params()
        refit = bool(params.get("refit", False))
        paths, scores, best = [], [], None
        for s in sigma_grid(self.sigmas):
            est = clone(self.estimator).set_params(sigma=float(s))
            if refit:
                est.set_params(refit=False)  # only σ* is refit
            est.fit(X, y, X_val, y_val)
            chosen = est.selection()
            paths.append(np.asarray(chosen.val_rmse, dtype=np.float64))
            scores.append(selected_validation_error(chosen))
            if best is None or (np.isfinite(scores[-1]) and not scores[-1] >= scores[best[0]]):
                best = (len(scores) - 1, est)
        assert best is not None
        self.sigma_scores_ = np.array(scores)
        self.sigma_val_rmse_ = _stack(paths)
        self.best_sigma_ = float(sigma_grid(self.sigmas)[best[0]])
        if refit or fit_params:  # the same seed selects the same point again, then refits
            est = clone(self.estimator).set_params(sigma=self.best_sigma_)
            est.fit(X, y, X_val, y_val, **fit_params)
            best = (best[0], est)
        self.best_estimator_ = best[1]
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The predictions of the estimator at σ* (labels, for a classifier)."""
        return self.best_estimator_.predict(X)

    def decision_function(self, X: Any) -> np.ndarray:
        """The real-valued outputs of the classifier at σ* (its ``decision_function``)."""
        return self.best_estimator_.decision_function(X)

    def selection(self) -> Selection:
        """σ*'s selection, with σ* and the (σ × path) validation array beside it."""
        chosen = self.best_estimator_.selection()
        chosen.info = {**chosen.info, "sigma_selected": self.best_sigma_}
        chosen.sigma_values = sigma_grid(self.sigmas)
        chosen.sigma_val_rmse = self.sigma_val_rmse_
        return chosen

    def __getattr__(self, name: str) -> Any:
        # fitted attributes of σ*'s estimator (eval_outputs_, eval_seconds_, best_lambda_, ...)
        if name.endswith("_") and not name.startswith("_") and "best_estimator_" in vars(self):
            return getattr(vars(self)["best_estimator_"], name)
        raise AttributeError(name)


def _stack(paths: list[np.ndarray]) -> np.ndarray:
    """Paths of one shape stacked as ``(S, *shape)``; of different lengths (iterations),
    NaN-padded to the longest."""
    shape = tuple(max(p.shape[i] if p.ndim > i else 0 for p in paths)
                  for i in range(max(p.ndim for p in paths)))
    out = np.full((len(paths), *shape), np.nan)
    for i, p in enumerate(paths):
        out[(i, *(slice(0, n) for n in p.shape))] = p
    return out
