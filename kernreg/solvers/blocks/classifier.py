"""The binary classifiers' side of the estimator contract (scikit-learn's ``ClassifierMixin``):
any two labels in, ``classes_`` kept, the model fitted on ±1 margins, labels out of ``predict``
and the real-valued output out of ``decision_function``."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils import Tags
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import column_or_1d

from kernreg.solvers.blocks.base import KernelEstimator

__all__ = ["BinaryKernelClassifier"]


class BinaryKernelClassifier(ClassifierMixin, KernelEstimator):
    """Base of the binary (hinge-loss) classifiers: SGM, SIGM, SGM on random features, LIBSVM.

    ``fit`` takes ``y`` (and ``y_val``) with any two labels (ints, strings, {0, 1}, ±1, ...);
    ``classes_`` holds them sorted (as scikit-learn does) and the model is fitted on the
    margins ``classes_[0] → −1``, ``classes_[1] → +1``, so ±1 targets are fitted as given.
    ``decision_function(X)`` is the real-valued output (positive for ``classes_[1]``);
    ``predict(X)`` the label of its sign, ``classes_[1]`` where it is > 0 (scikit-learn's rule:
    an output of exactly 0 is ``classes_[0]``); ``score`` the accuracy.

    Subclasses fit through :meth:`~kernreg.solvers.blocks.base.KernelEstimator._start_fit` (which
    this class extends with the labels) and override :meth:`decision_function` when their output
    is not the kernel expansion ``K(X, centers_) @ alpha_``.
    """

    def __sklearn_tags__(self) -> Tags:
        """scikit-learn's tags: a classifier of two classes (more are refused in ``fit``)."""
        tags = super().__sklearn_tags__()
        tags.regressor_tags = None  # set by KernelEstimator's RegressorMixin: not a regressor
        tags.classifier_tags.multi_class = False
        return tags

    def _start_fit(self, X: Any, y: Any, X_val: Any, y_val: Any) -> tuple[Any, ...]:
        """The labels as ±1 margins, then the base class' checks; ``classes_`` is set only
        once the data checked out (a refused fit keeps the classes of the last fit)."""
        classes, y = _binary_margins(y, type(self).__name__)
        if y_val is not None:
            y_val = _margins_of(y_val, classes, "y_val")
        fitted = super()._start_fit(X, y, X_val, y_val)
        self.classes_ = classes
        return fitted

    def decision_function(self, X: Any) -> np.ndarray:
        """The real-valued output ``K(X, centers_) @ alpha_ + intercept_`` (0 but for LIBSVM's):
        positive for ``classes_[1]``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,), float64
        """
        return KernelEstimator.predict(self, X)

    def predict(self, X: Any) -> np.ndarray:
        """The class of each row: ``classes_[1]`` where :meth:`decision_function` is > 0, else
        ``classes_[0]``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        labels : ndarray of shape (n_samples,), of ``classes_``' type
        """
        positive = self.decision_function(X) > 0  # checks the fit first
        return self.classes_[positive.astype(np.intp)]


def _binary_margins(y: Any, owner: str) -> tuple[np.ndarray, np.ndarray]:
    """The sorted labels of ``y`` (exactly two) and ``y`` as ±1 margins; ``owner`` names the
    estimator in the messages."""
    y = _labels(y, "y")
    check_classification_targets(y)  # continuous targets: "Unknown label type: continuous"
    classes = np.unique(y)
    if classes.size > 2:
        raise ValueError(
            f"Only binary classification is supported. The type of the target is "
            f"{type_of_target(y, input_name='y')}: y has {classes.size} classes "
            f"({_shown(classes)}); {owner} separates two")
    if classes.size < 2:
        raise ValueError(f"y has one class ({_shown(classes)}); {owner} separates two classes "
                         f"and needs examples of both")
    return classes, _as_margins(y, classes)


def _margins_of(y: Any, classes: np.ndarray, name: str) -> np.ndarray:
    """Labels of ``classes`` as ±1 margins; a label outside ``classes`` is refused."""
    y = _labels(y, name)
    known = (y == classes[0]) | (y == classes[1])
    if not known.all():
        unknown = np.array(list(dict.fromkeys(y[~known].tolist())), dtype=object)
        raise ValueError(f"{name} has labels that are not among the classes of y "
                         f"({_shown(classes)}): {_shown(unknown)}")
    return _as_margins(y, classes)


def _labels(y: Any, name: str) -> np.ndarray:
    """``y`` as a 1-D array of labels (a column vector flattened with scikit-learn's warning);
    float labels must be finite."""
    if y is None:
        raise ValueError(f"{name}: this estimator requires y to be passed, but the target y is "
                         f"None")
    try:
        y = column_or_1d(y, input_name=name, warn=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: {str(exc).splitlines()[0]}") from exc
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"Input {name} contains NaN or infinity")
    return y


def _as_margins(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """``classes[1] → +1``, every other label ``→ −1`` (float64)."""
    return np.where(y == classes[1], 1.0, -1.0)


def _shown(labels: np.ndarray, most: int = 5) -> str:
    """At most ``most`` labels, for a message."""
    shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in labels[:most])
    return shown + (", ..." if labels.size > most else "")
