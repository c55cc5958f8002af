"""Preprocessing steps of the authors' experiment framework, one small named step each.

Every factory returns a :class:`~kernreg.datasets.spec.Preprocessing` whose ``name`` carries its
parameters (it enters the cache key) and whose ``description`` is shown by ``kernreg data info``.
"""

from __future__ import annotations

import numpy as np

from kernreg.datasets.spec import Preprocessing, Splits


def _minmax(values: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    # A constant column carries no information; map it to 0 instead of dividing by zero.
    span = np.where(high > low, high - low, 1.0)
    return (values - low) / span


def minmax_features() -> Preprocessing:
    """Scale each feature to [0, 1] with the min and max over training and test rows together."""

    def apply(s: Splits) -> Splits:
        both = np.concatenate([s.X_train, s.X_test])
        low, high = both.min(axis=0), both.max(axis=0)
        return Splits(_minmax(s.X_train, low, high), s.y_train, _minmax(s.X_test, low, high),
                      s.y_test)

    return Preprocessing(
        "minmax_features(train+test)",
        "each feature min-max scaled to [0, 1] over train and test rows together "
        "(constant features become 0)",
        apply,
    )


def authors_signed_scale() -> Preprocessing:
    """Each feature x → ((|min| + x) / (max − min))·2 − 1, min and max over all rows.

    The formula of the authors' pumadyn dataset class (Enitor ``dataset/pumadyn/pumadyn.m``,
    every version 2014–2016): min-max to [−1, 1] for a feature whose minimum is negative, but
    for a positive minimum ``|min| + x`` is not ``x − min`` and the feature lands shifted
    (pumadyn-32nh's features 18–32, min 0.25, max 2.5: [−0.56, 1.44]). Kept as they ran it.
    """

    def apply(s: Splits) -> Splits:
        both = np.concatenate([s.X_train, s.X_test])
        low, high = both.min(axis=0), both.max(axis=0)
        span = np.where(high > low, high - low, 1.0)

        def scale(X: np.ndarray) -> np.ndarray:
            return (np.abs(low) + X) / span * 2.0 - 1.0

        return Splits(scale(s.X_train), s.y_train, scale(s.X_test), s.y_test)

    return Preprocessing(
        "authors_signed_scale(train+test)",
        "each feature x → ((|min| + x)/(max − min))·2 − 1 over train and test rows together "
        "(the authors' pumadyn class: [−1, 1] where min < 0, shifted where min > 0)",
        apply,
    )


def minmax_target() -> Preprocessing:
    """Scale the target to [0, 1] with the min and max over training and test rows together."""

    def apply(s: Splits) -> Splits:
        both = np.concatenate([s.y_train, s.y_test])
        low, high = both.min(), both.max()
        return Splits(s.X_train, _minmax(s.y_train, low, high), s.X_test,
                      _minmax(s.y_test, low, high))

    return Preprocessing(
        "minmax_target(train+test)",
        "target min-max scaled to [0, 1] over train and test rows together",
        apply,
    )


def affine_features(scale: float, shift: float) -> Preprocessing:
    """Map every feature value x to ``scale * x + shift``."""

    def apply(s: Splits) -> Splits:
        return Splits(scale * s.X_train + shift, s.y_train, scale * s.X_test + shift, s.y_test)

    return Preprocessing(
        f"affine_features({scale:g},{shift:g})", f"features x → {scale:g}·x {shift:+g}", apply
    )


def labels_to_pm1(positive: float) -> Preprocessing:
    """Code the class ``positive`` as +1 and every other class as −1."""

    def apply(s: Splits) -> Splits:
        def code(y: np.ndarray) -> np.ndarray:
            return np.where(y == positive, 1.0, -1.0)

        return Splits(s.X_train, code(s.y_train), s.X_test, code(s.y_test))

    return Preprocessing(
        f"labels_to_pm1({positive:g})", f"label {positive:g} → +1, every other label → −1", apply
    )
