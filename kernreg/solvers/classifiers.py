"""Least-squares classification (RLSC, the thesis's Chapter 7): the square-loss estimators as
one-vs-all classifiers of any number of classes, every class's column solved in one fit.

A class's column of the coded targets is ``+1`` for its rows and ``−1`` (``coding="pm1"``) or
``−1/(K−1)`` (``coding="balanced"``: every row's codes sum to zero) for the others; the model is
the multi-output regressor of those K columns, ``decision_function`` its K outputs and
``predict`` the class of the largest. Two classes are one column (``classes_[1]`` coded +1,
as the registered datasets' ±1 targets), the output's sign the class. The path (λ) is selected
on the joint RMSE of the coded columns.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils import Tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from kernreg._validation import check_choice, check_data
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.losses import get_task
from kernreg.solvers.algorithms.incremental import IncrementalNystromKRLS
from kernreg.solvers.algorithms.kols import KOLS
from kernreg.solvers.algorithms.krls import KRLS
from kernreg.solvers.algorithms.landweber import KernelLandweber
from kernreg.solvers.algorithms.nkrls import NystromKRLS
from kernreg.solvers.algorithms.nytro import Nytro
from kernreg.solvers.algorithms.pcg import NystromPCG
from kernreg.solvers.algorithms.random_features import RandomFeaturesKRLS

__all__ = ["CLASSIFIER_FORMS", "CODINGS", "IncrementalNystromKRLSClassifier", "KOLSClassifier",
           "KRLSClassifier", "KernelLandweberClassifier", "NystromKRLSClassifier",
           "NystromPCGClassifier", "NytroClassifier", "OneVsAllClassifier",
           "RandomFeaturesKRLSClassifier"]

#: How a class's column codes the other classes' rows: −1, or −1/(K−1).
CODINGS = ("pm1", "balanced")


class OneVsAllClassifier(ClassifierMixin):
    """The classifier side of a multi-output square-loss estimator (mixed in before it): any
    labels in (``classes_``, sorted), coded columns fitted, labels out of ``predict``,
    outputs out of ``decision_function``, accuracy out of ``score``."""

    coding: str

    def __sklearn_tags__(self) -> Tags:
        """A classifier of any number of classes (not a regressor, one target column)."""
        tags = super().__sklearn_tags__()
        tags.regressor_tags = None
        tags.classifier_tags.multi_class = True
        tags.target_tags.multi_output = False
        return tags

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> Any:
        """Fit the coded targets of ``y``'s classes (with validation rows ``X_val, y_val``,
        labels of those classes, along the whole path).

        Returns
        -------
        self
        """
        check_choice(self.coding, "coding", CODINGS)
        check_data(X, "X")  # empty or malformed rows are named before the labels are read
        y = column_or_1d(np.asarray(y), warn=True)
        check_consistent_length(X, y)  # as many labels as rows, before the classes are read
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError(f"{type(self).__name__}: y has one class ({classes[0]!r}); "
                             f"classification needs at least 2")
        Y = self._codes(y, classes, "y")
        Y_val = None if y_val is None else self._codes(column_or_1d(np.asarray(y_val)),
                                                       classes, "y_val")
        super().fit(X, Y, X_val, Y_val)
        self.classes_ = classes
        return self

    def _codes(self, y: np.ndarray, classes: np.ndarray, name: str) -> np.ndarray:
        unknown = np.setdiff1d(np.unique(y), classes)
        if unknown.size:
            raise ValueError(f"{name} has labels {unknown.tolist()!r} that y does not have")
        if classes.size == 2:
            return np.where(y == classes[1], 1.0, -1.0)
        codes = get_task("multiclass").encode(y, classes)  # the ±1 one-vs-all columns
        if self.coding == "balanced":
            codes[codes < 0] = -1.0 / (classes.size - 1)
        return codes

    def decision_function(self, X: Any) -> np.ndarray:
        """The coded columns' outputs: ``(n_samples, K)``, or ``(n_samples,)`` for two classes
        (positive for ``classes_[1]``)."""
        check_is_fitted(self, "classes_")
        return super().predict(X)  # the regressor's (this class's predict is the labels)

    def predict(self, X: Any) -> np.ndarray:
        """The class of the largest output (of the output's sign for two classes)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]


class NystromKRLSClassifier(OneVsAllClassifier, NystromKRLS):
    """Nyström KRLS as a one-vs-all least-squares classifier (:class:`NystromKRLS`'s parameters,
    and ``coding``: ``"pm1"`` or ``"balanced"``, see :mod:`kernreg.solvers.classifiers`). Its
    default ``m`` is 300: K coded columns share the centres (100 reach 0.976 test accuracy on
    scikit-learn's digits, 300 reach 0.987)."""

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median",
                 fit_intercept: bool = True, validation_fraction: float | None = None,
                 m: int = 300, lam: float = 1e-6, lambdas: Any = None, coding: str = "pm1",
                 path_method: str = "eigh", epsilon: float = 1e-10, penalty: str = "kmm",
                 sampler: Any = "uniform", random_state: Any = None, refit: bool = False,
                 dtype: str = "float64", memory_budget: int = DEFAULT_MEMORY_BUDGET,
                 kernel_params: dict[str, Any] | None = None):
        super().__init__(kernel=kernel, sigma=sigma, fit_intercept=fit_intercept,
                         validation_fraction=validation_fraction, m=m, lam=lam,
                         lambdas=lambdas, path_method=path_method, epsilon=epsilon,
                         penalty=penalty, sampler=sampler, random_state=random_state,
                         refit=refit, dtype=dtype, memory_budget=memory_budget,
                         kernel_params=kernel_params)
        self.coding = coding


class KRLSClassifier(OneVsAllClassifier, KRLS):
    """KRLS as a one-vs-all least-squares classifier (:class:`KRLS`'s parameters, and
    ``coding``: ``"pm1"`` or ``"balanced"``, see :mod:`kernreg.solvers.classifiers`)."""

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median",
                 fit_intercept: bool = True, validation_fraction: float | None = None,
                 lam: float = 1e-6, lambdas: Any = None, coding: str = "pm1",
                 refit: bool = False, dtype: str = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET,
                 kernel_params: dict[str, Any] | None = None, path_method: str = "auto",
                 max_memory: int | None = None):
        super().__init__(kernel=kernel, sigma=sigma, fit_intercept=fit_intercept,
                         validation_fraction=validation_fraction, lam=lam, lambdas=lambdas,
                         refit=refit, dtype=dtype, memory_budget=memory_budget,
                         kernel_params=kernel_params, path_method=path_method,
                         max_memory=max_memory)
        self.coding = coding


class NytroClassifier(OneVsAllClassifier, Nytro):
    """NYTRO as a one-vs-all least-squares classifier (:class:`Nytro`'s parameters, and
    ``coding``: ``"pm1"`` or ``"balanced"``, see :mod:`kernreg.solvers.classifiers`): every
    class's column in the same iterations. Its default ``m`` is 300, as
    :class:`NystromKRLSClassifier`'s, and its steps the ν-method's (``acceleration="nu"``),
    which reach the classes' fit in a few hundred iterations where plain steps need
    thousands."""

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median",
                 fit_intercept: bool = True, validation_fraction: float | None = None,
                 m: int = 300, max_iter: int = 500, coding: str = "pm1",
                 acceleration: str = "nu", nu: float = 1.0, step_size: float | None = None,
                 step_rows: str = "fit", stopping_rule: str = "window_linear_fitting",
                 window: int = 10, threshold: float = 0.0, select: str | None = None,
                 epsilon: float = 1e-10, sampler: Any = "uniform", random_state: Any = None,
                 strategy: str = "auto", validation_strategy: str = "auto",
                 max_memory: int | None = None, refit: bool = False, dtype: str = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET):
        super().__init__(kernel=kernel, sigma=sigma, fit_intercept=fit_intercept,
                         validation_fraction=validation_fraction, m=m, max_iter=max_iter,
                         step_size=step_size, step_rows=step_rows, stopping_rule=stopping_rule,
                         window=window, threshold=threshold, select=select, epsilon=epsilon,
                         sampler=sampler, random_state=random_state, strategy=strategy,
                         validation_strategy=validation_strategy, max_memory=max_memory,
                         refit=refit, dtype=dtype, memory_budget=memory_budget,
                         acceleration=acceleration, nu=nu)
        self.coding = coding


class KernelLandweberClassifier(OneVsAllClassifier, KernelLandweber):
    """Kernel Landweber (ES) as a one-vs-all least-squares classifier (:class:`KernelLandweber`'s
    parameters, and ``coding``: ``"pm1"`` or ``"balanced"``, see
    :mod:`kernreg.solvers.classifiers`): every class's column in the same iterations."""

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median",
                 fit_intercept: bool = True, validation_fraction: float | None = None,
                 max_iter: int = 500, coding: str = "pm1", step_size: float | None = None,
                 step_rule: str = "norm", stopping_rule: str = "window_linear_fitting",
                 window: int = 10, threshold: float = 0.0, select: str | None = None,
                 refit: bool = False, merge_duplicates: bool = True, dtype: str = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET):
        super().__init__(kernel=kernel, sigma=sigma, fit_intercept=fit_intercept,
                         validation_fraction=validation_fraction, max_iter=max_iter,
                         step_size=step_size, step_rule=step_rule, stopping_rule=stopping_rule,
                         window=window, threshold=threshold, select=select, refit=refit,
                         merge_duplicates=merge_duplicates, dtype=dtype,
                         memory_budget=memory_budget)
        self.coding = coding


class KOLSClassifier(OneVsAllClassifier, KOLS):
    """KOLS as a one-vs-all least-squares classifier (:class:`KOLS`'s parameters, and
    ``coding``: ``"pm1"`` or ``"balanced"``, see :mod:`kernreg.solvers.classifiers`): every
    class's column from the one factorization."""

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median",
                 fit_intercept: bool = True, rcond: float | None = None, coding: str = "pm1",
                 solver: str = "pivoted_cholesky", merge_duplicates: bool = True,
                 dtype: str = "float64", memory_budget: int = DEFAULT_MEMORY_BUDGET,
                 max_memory: int | None = None):
        super().__init__(kernel=kernel, sigma=sigma, fit_intercept=fit_intercept, rcond=rcond,
                         solver=solver, merge_duplicates=merge_duplicates, dtype=dtype,
                         memory_budget=memory_budget, max_memory=max_memory)
        self.coding = coding


class IncrementalNystromKRLSClassifier(OneVsAllClassifier, IncrementalNystromKRLS):
    """Incremental Nyström KRLS as a one-vs-all least-squares classifier
    (:class:`IncrementalNystromKRLS`'s parameters, and ``coding``: ``"pm1"`` or
    ``"balanced"``, see :mod:`kernreg.solvers.classifiers`): every class's column from the
    same factors, ``(λ, m')`` selected on the coded columns (their joint RMSE, or with
    ``validation_measure="error"`` the classification error). Its default ``m`` is 300, as
    :class:`NystromKRLSClassifier`'s."""

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median",
                 fit_intercept: bool = True, validation_fraction: float | None = None,
                 m: int = 300, lam: float = 1e-6, lambdas: Any = None, m_values: Any = None,
                 coding: str = "pm1", update: str = "block", epsilon: float = 1e-10,
                 penalty: str = "kmm", sampler: Any = "uniform", random_state: Any = None,
                 refit: bool = False, dtype: str = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET, validation_measure: str = "rmse"):
        super().__init__(kernel=kernel, sigma=sigma, fit_intercept=fit_intercept,
                         validation_fraction=validation_fraction, m=m, lam=lam,
                         lambdas=lambdas, m_values=m_values, update=update, epsilon=epsilon,
                         penalty=penalty, sampler=sampler, random_state=random_state,
                         refit=refit, dtype=dtype, memory_budget=memory_budget,
                         validation_measure=validation_measure)
        self.coding = coding


class NystromPCGClassifier(OneVsAllClassifier, NystromPCG):
    """Nyström KRLS by Falkon's preconditioned conjugate gradient as a one-vs-all
    least-squares classifier (:class:`NystromPCG`'s parameters, and ``coding``: ``"pm1"`` or
    ``"balanced"``, see :mod:`kernreg.solvers.classifiers`): every class's column in the same
    passes over ``K_nm``. Its default ``m`` is 300, as :class:`NystromKRLSClassifier`'s."""

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median",
                 fit_intercept: bool = True, validation_fraction: float | None = None,
                 m: int = 300, lam: float = 1e-6, lambdas: Any = None, max_iter: int = 20,
                 coding: str = "pm1", tol: float = 1e-10,
                 stopping_rule: str = "window_linear_fitting", window: int = 10,
                 threshold: float = 0.0, strategy: str = "memory",
                 validation_strategy: str | None = None, preconditioner: str = "falkon",
                 epsilon: float = 1e-10, sampler: Any = "uniform", random_state: Any = None,
                 refit: bool = False, dtype: str = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET):
        super().__init__(kernel=kernel, sigma=sigma, fit_intercept=fit_intercept,
                         validation_fraction=validation_fraction, m=m, lam=lam,
                         lambdas=lambdas, max_iter=max_iter, tol=tol,
                         stopping_rule=stopping_rule, window=window, threshold=threshold,
                         strategy=strategy, validation_strategy=validation_strategy,
                         preconditioner=preconditioner, epsilon=epsilon, sampler=sampler,
                         random_state=random_state, refit=refit, dtype=dtype,
                         memory_budget=memory_budget)
        self.coding = coding


class RandomFeaturesKRLSClassifier(OneVsAllClassifier, RandomFeaturesKRLS):
    """Random-features KRLS as a one-vs-all least-squares classifier
    (:class:`RandomFeaturesKRLS`'s parameters, and ``coding``: ``"pm1"`` or ``"balanced"``,
    see :mod:`kernreg.solvers.classifiers`): every class's column from the same features and
    eigendecompositions."""

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median",
                 fit_intercept: bool = True, validation_fraction: float | None = None,
                 n_components: int = 1000, lam: float = 1e-6, lambdas: Any = None,
                 d_values: Any = None, coding: str = "pm1", random_state: Any = None,
                 refit: bool = False, dtype: str = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET, features: str = "rff"):
        super().__init__(kernel=kernel, sigma=sigma, fit_intercept=fit_intercept,
                         validation_fraction=validation_fraction, n_components=n_components,
                         lam=lam, lambdas=lambdas, d_values=d_values,
                         random_state=random_state, refit=refit, dtype=dtype,
                         memory_budget=memory_budget, features=features)
        self.coding = coding


#: The one-vs-all classifier form of each multi-output estimator (what a run of a multiclass
#: task fits for its algorithm).
CLASSIFIER_FORMS: dict[type, type] = {
    KOLS: KOLSClassifier, KRLS: KRLSClassifier, NystromKRLS: NystromKRLSClassifier,
    Nytro: NytroClassifier, KernelLandweber: KernelLandweberClassifier,
    IncrementalNystromKRLS: IncrementalNystromKRLSClassifier,
    NystromPCG: NystromPCGClassifier, RandomFeaturesKRLS: RandomFeaturesKRLSClassifier}
