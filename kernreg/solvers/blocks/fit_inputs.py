"""What a fit does with its inputs before it solves, as the estimator's parameters say: hold
out ``validation_fraction`` of the rows (or warn when validation rows were not prepared like
the fit rows), find σ by the median heuristic (``sigma="median"``) and centre the targets
(``fit_intercept``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

from kernreg._validation import check_bool
from kernreg.bandwidth import median_sigma
from kernreg.kernels import get_kernel_spec
from kernreg.solvers.blocks.holdout import holdout_split

__all__ = ["MEDIAN", "center_targets", "fit_sigma", "intercept_of", "sigma_value",
           "validation_rows", "validation_scale_problem"]

#: ``sigma="median"``: the kernel's width from the training rows (the median heuristic).
MEDIAN = "median"


def sigma_value(est: Any) -> Any:
    """σ as the kernel takes it: the number given, or with ``sigma="median"`` the median
    heuristic's value on the last fit's rows (``sigma_``); before a fit, 1.0 stands in
    for the checks of the other parameters."""
    if isinstance(est.sigma, str):
        if est.sigma != MEDIAN:
            raise ValueError(f"sigma must be a positive number or {MEDIAN!r}, got "
                             f"{est.sigma!r}")
        return getattr(est, "sigma_", 1.0)
    return est.sigma


def fit_sigma(est: Any, X: Any) -> Any:
    """The σ of this fit (``sigma_``): the number given, or the median distance between
    two distinct rows of ``X`` (≤ 1000 rows drawn with ``random_state`` when it is an int,
    else seed 0: :func:`~kernreg.bandwidth.median_sigma`) for ``"median"``."""
    if not isinstance(est.sigma, str) or \
            "sigma" not in get_kernel_spec(est.kernel).parameters:
        return est.sigma
    sigma_value(est)  # refuses a string other than "median"
    seed = est.random_state if isinstance(getattr(est, "random_state", None), int) else 0
    if X.shape[0] < 2:
        raise ValueError(f"sigma='median' needs at least 2 training rows, got n_samples = "
                         f"{X.shape[0]}; give sigma")
    value = median_sigma(X, seed)
    if not value > 0:
        raise ValueError("sigma='median': the median distance between training rows is 0 "
                         "(most rows coincide); give sigma")
    return value


def validation_rows(est: Any, X: Any, y: np.ndarray, X_val: Any, y_val: np.ndarray | None
                    ) -> tuple[Any, np.ndarray, Any, np.ndarray | None]:
    """The fit and validation rows: with ``validation_fraction``, a seeded split of ``X``
    inside ``fit`` (so that a Pipeline's transformers apply to both parts); else the
    rows given, with a warning when ``X_val`` does not look like ``X``
    (:func:`validation_scale_problem`)."""
    fraction = getattr(est, "validation_fraction", None)
    if fraction is None:
        problem = validation_scale_problem(X, X_val)
        if problem:
            warnings.warn(f"{type(est).__name__}.fit: {problem}. In a Pipeline, "
                          "validation rows passed to fit skip the transformers before the "
                          "estimator: give validation_fraction instead", UserWarning,
                          stacklevel=5)
        return X, y, X_val, y_val
    if isinstance(fraction, bool) or not isinstance(fraction, int | float) or \
            not 0.0 < fraction < 1.0:
        raise ValueError(f"validation_fraction must be a number in (0, 1) or None, got "
                         f"{fraction!r}")
    if X_val is not None:
        raise ValueError("validation_fraction and X_val/y_val exclude each other: give the "
                         "validation rows, or the share of X to hold out")
    # seeded by random_state (0 for an estimator that draws nothing else), on a stream of
    # its own: the split does not shift the centers' draw of a seeded fit
    seed = getattr(est, "random_state", 0)
    rng = np.random.default_rng([seed, 0x5A17]) if isinstance(seed, int) else seed
    return holdout_split(X, y, float(fraction), random_state=rng)


def center_targets(est: Any, y: np.ndarray, y_val: np.ndarray | None
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    """With ``fit_intercept``, the targets less their training mean (``intercept_``, added
    back to every prediction); else as they are (``intercept_ = 0``, the papers' setting).
    The validation targets are shifted by the same mean, so the path's errors are those
    of the predictions with the intercept; a refit on training + validation rows keeps it
    (the Nyström systems add the validation rows' terms to the fit rows')."""
    if not check_bool(getattr(est, "fit_intercept", False), "fit_intercept"):
        est.intercept_ = 0.0
        return y, y_val
    mean = np.mean(y, axis=0)  # one per output of a multi-output fit
    est.intercept_ = float(mean) if y.ndim == 1 else mean
    return y - est.intercept_, None if y_val is None else y_val - est.intercept_


def intercept_of(est: Any) -> Any:
    """The fitted intercept: a float, one per output for a multi-output fit (0 without
    ``fit_intercept``, and for a model fitted before the estimators had one)."""
    return getattr(est, "intercept_", 0.0)


def validation_scale_problem(X: Any, X_val: Any, shift: float = 3.0, spread: float = 3.0,
                             min_rows: int = 10) -> str | None:
    """What says that validation rows were not prepared like the fit rows (``None``: nothing):
    most features (of those that vary) with a validation mean more than ``shift`` training
    standard deviations from the training mean, or a spread ``spread``× apart. Dense rows
    only, at least ``min_rows`` of each."""
    if X_val is None or sp.issparse(X) or sp.issparse(X_val) or \
            min(X.shape[0], X_val.shape[0]) < min_rows:
        return None
    mean, std = np.mean(X, axis=0), np.std(X, axis=0)
    varying = std > 0
    if not np.any(varying):
        return None
    val_mean, val_std = np.mean(X_val, axis=0)[varying], np.std(X_val, axis=0)[varying]
    mean, std = mean[varying], std[varying]
    with np.errstate(divide="ignore", invalid="ignore"):
        off = (np.abs(val_mean - mean) > shift * std) | (val_std > spread * std) | \
            (val_std < std / spread)
    if 2 * int(off.sum()) <= off.size:
        return None
    return (f"X_val does not look like X: {int(off.sum())} of {off.size} varying features have "
            f"a validation mean more than {shift:g} training standard deviations from the "
            f"training mean or a spread {spread:g}× apart")
