""":class:`PathCV`: an estimator's path point selected by k-fold cross-validation, each fold's
whole path from one fit (scikit-learn's ``RidgeCV`` habit, not ``GridSearchCV``'s refit per
grid point)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import Tags
from sklearn.utils.validation import check_is_fitted

from kernreg._validation import check_fit_data, check_int, check_random_state
from kernreg.solvers.algorithms.nkrls import NystromKRLS
from kernreg.solvers.blocks.base import KernelEstimator, Selection
from kernreg.solvers.blocks.cross_validation import cross_validate

__all__ = ["PathCV"]


class PathCV(RegressorMixin, BaseEstimator):
    """Select a square-loss estimator's λ, iteration count or (λ, level) by k-fold
    cross-validation, then fit it on all rows at the selection.

    Each fold fits the estimator once with the fold as validation rows, so the whole path (every
    λ of the grid, every iteration) is scored from one fit; the selection is the point with
    the lowest mean validation error over the folds
    (:func:`~kernreg.solvers.blocks.cross_validation.cross_validate`). In a Pipeline the
    folds are split after the transformers before it, as scikit-learn's ``*CV`` estimators
    do.

    Parameters
    ----------
    estimator : estimator, default NystromKRLS()
        A kernreg estimator whose path is over λ or iterations (KRLS, ES, NKRLS, NYTRO,
        incremental NKRLS, PCG, random features); its ``validation_fraction`` is not used.
    cv : int, default 5
        Number of folds.
    random_state : None, int or numpy.random.Generator
        Seeds the folds (shuffled; ``None``: fresh ones each fit) and the estimator's own draws
        (its centers, its features) where its ``random_state`` is ``None``.

    Attributes
    ----------
    best_estimator_ : the estimator fitted on all rows at the selection
    selection_ : Selection
        The selected point, the mean validation path over the folds (``val_rmse``) and
        ``info["fold_selected"]``, each fold's own selection.
    best_params_ : dict
        The parameters set for the final fit (``{"lam": λ*}``, ``{"max_iter": t*}``, with
        ``m`` or ``n_components`` for a two-parameter path).
    n_features_in_ : int
    """

    def __init__(self, estimator: KernelEstimator | None = None, cv: int = 5,
                 random_state: Any = None):
        self.estimator = estimator
        self.cv = cv
        self.random_state = random_state

    def __sklearn_tags__(self) -> Tags:
        """A regressor that takes sparse input and, where its estimator does, several
        outputs."""
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = self._base().multi_output
        return tags

    def _base(self) -> KernelEstimator:
        return NystromKRLS() if self.estimator is None else self.estimator

    def fit(self, X: Any, y: Any) -> PathCV:
        """Cross-validate along the path on ``(X, y)`` and fit on all of it at the selection.

        Raises
        ------
        ValueError
            ``cv`` below 2 or above the rows, or an estimator whose path cross-validation
            cannot refit at (a grid of step sizes or of C).
        """
        X, y, _, _ = check_fit_data(X, y, estimator=self,
                                    multi_output=self._base().multi_output)
        folds = check_int(self.cv, "cv", minimum=2)
        if folds > X.shape[0]:
            raise ValueError(f"cv={folds} folds need at least {folds} rows, got "
                             f"n_samples = {X.shape[0]}")
        rng = check_random_state(self.random_state)
        seed = int(rng.integers(2**32))
        base = clone(self._base())
        params = base.get_params()
        if "validation_fraction" in params:
            base.set_params(validation_fraction=None)  # the folds validate
        if params.get("random_state", 0) is None and self.random_state is not None:
            base.set_params(random_state=int(rng.integers(2**32)))  # seeded as PathCV is
        with warnings.catch_warnings():  # one warning for the selection, below
            warnings.simplefilter("ignore", ConvergenceWarning)
            done = cross_validate(lambda: clone(base), X, y, folds, seed, stratify=False)
        self.best_estimator_ = done.estimator
        self.selection_ = done.selection
        self.best_params_ = dict(done.params)
        if done.selection.info.get("stopped_at_cap"):
            warnings.warn(f"PathCV: the mean validation error over the folds is lowest at the "
                          f"last iteration every fold reached ({int(done.selection.selected)}"
                          f"): raise max_iter", ConvergenceWarning, stacklevel=2)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The fitted estimator's predictions."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def selection(self) -> Selection:
        """What the cross-validation selected and the mean path it selected on."""
        check_is_fitted(self, "selection_")
        return self.selection_

