"""k-fold selection along a path: of a run's trial (``protocol: {selection: kfold, folds:
K}``) and of :class:`~kernreg.solvers.blocks.path_cv.PathCV`.

The training rows are split into ``K`` folds (seeded, stratified by class for
classification). Each fold's estimator runs its whole validated path on the other
folds' rows — every λ of the grid, or every iteration, from one fit — and is scored on the
fold. The selection is the path point with the lowest mean validation error over the folds
(the first on ties; an iteration path over the iterations every fold reached), and the model
the trial tests is a fit on all training rows at that point: ``lam = λ*`` or
``max_iter = t*`` without validation rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold

from kernreg.solvers.blocks.base import Selection
from kernreg.solvers.blocks.lambda_path import best_pair

__all__ = ["PATH_PARAMETERS", "CrossValidated", "cross_validate", "fold_indices",
           "fold_problem", "mean_path"]

#: The path parameters k-fold selection refits at, and the parameter it sets to do so.
PATH_PARAMETERS = {"lambda": "lam", "iterations": "max_iter"}


@dataclass
class CrossValidated:
    """What k-fold selection gives.

    Attributes
    ----------
    estimator : the model fitted on all training rows at the selection
    selection : Selection
        The selected point and the mean validation path over the folds it was selected on
        (``info``: ``folds``, ``fold_selected``, the final fit's own facts).
    n_fit, n_val : int
        Rows each fold's fit and validation had (the largest fold's).
    params : dict
        The parameters set for the final fit (``{"lam": λ*}``, ``{"max_iter": t*}``, with
        the level's own for a two-parameter path).
    """

    estimator: Any
    selection: Selection
    n_fit: int
    n_val: int
    params: dict[str, Any]


def fold_indices(y: np.ndarray, folds: int, seed: int, stratify: bool
                 ) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(fit rows, validation rows)`` of each fold: shuffled with ``seed``, stratified by the
    target's classes when ``stratify``."""
    splitter = (StratifiedKFold if stratify else KFold)(n_splits=folds, shuffle=True,
                                                        random_state=seed % 2**32)
    return list(splitter.split(np.zeros((len(y), 1)), y if stratify else None))


def mean_path(selections: list[Selection]) -> tuple[np.ndarray, np.ndarray]:
    """The path values and the mean validation error over the folds' paths: over every point of
    a λ grid, or of a (λ, level) grid (a point a fold could not solve, NaN there, is NaN in the
    mean), over the iterations every fold reached for an iteration path."""
    length = min(len(s.val_rmse) for s in selections)
    values = selections[0].path_values[:length]
    stacked = np.stack([np.asarray(s.val_rmse[:length], dtype=np.float64) for s in selections])
    return values, stacked.mean(axis=0)


def fold_problem(estimator: Any, chosen: Selection) -> str | None:
    """Why k-fold selection cannot refit ``estimator`` at a selection of its path (``None``:
    it can): a path over another parameter than λ or iterations, or a second axis the
    estimator names no parameter for."""
    if chosen.param_name not in PATH_PARAMETERS:
        return (f"{type(estimator).__name__}: k-fold selection refits at a λ or an iteration "
                f"count; this path is over {chosen.param_name or 'nothing'}")
    if chosen.val_rmse.ndim > 1 and estimator.level_parameter is None:
        return (f"{type(estimator).__name__}: a two-parameter path whose second parameter the "
                f"estimator does not name (level_parameter)")
    return None


def cross_validate(make: Callable[[], Any], X: Any, y: np.ndarray, folds: int, seed: int,
                   stratify: bool) -> CrossValidated:
    """Select along the path by ``folds``-fold cross-validation on ``(X, y)``, then fit on all
    of it at the selection; ``make()`` gives a configured, unfitted estimator.

    Raises
    ------
    ValueError
        The estimator's path is not one k-fold selection can refit at (:func:`fold_problem`:
        a grid of step sizes or of C).
    """
    selections, sizes = [], []
    for fit_rows, val_rows in fold_indices(y, folds, seed, stratify):
        estimator = make()
        estimator.fit(X[fit_rows], y[fit_rows], X[val_rows], y[val_rows])
        chosen = estimator.selection()
        problem = fold_problem(estimator, chosen)
        if problem:
            raise ValueError(problem)
        selections.append(chosen)
        sizes.append((len(fit_rows), len(val_rows)))
    values, mean = mean_path(selections)
    # the lowest point, as a hold-out selects it: the first on ties, the fewest centres or
    # features on a (λ, level) grid; a path with no finite value is left to the trial's checks
    if not np.isfinite(mean).any():
        row, column = 0, (0 if mean.ndim == 2 else None)
    elif mean.ndim == 2:
        row, column = best_pair(mean)
    else:
        row, column = int(np.nanargmin(mean)), None
    param = selections[0].param_name
    value = values[row]
    settings: dict[str, Any] = {PATH_PARAMETERS[param]: int(value) if param == "iterations"
                                else float(value)}
    levels = selections[0].m_values
    if column is not None:
        settings[make().level_parameter] = int(levels[column])
    final = make().set_params(**settings)
    final.fit(X, y)
    info = dict(final.selection().info)
    if column is not None:
        info["m_selected"] = int(levels[column])
    # an iteration path whose mean is lowest at the last iteration every fold reached, where a
    # fold ran out of iterations: more might have selected later (kernreg.results: ‡)
    cut = param == "iterations" and row == len(mean) - 1 and any(
        not s.info.get("stopped", True) and not s.info.get("diverged", False)
        for s in selections)
    info.update(folds=folds, fold_selected=[float(s.selected) for s in selections],
                stopped_at_cap=bool(cut))
    selection = Selection(param_name=param, selected=float(value), path_values=values,
                          val_rmse=mean, m_values=levels if column is not None else
                          np.zeros(0, dtype=np.int64), info=info)
    n_fit, n_val = max(sizes)
    return CrossValidated(final, selection, n_fit, n_val, settings)
