"""Common machinery of the kernreg estimators: kernel construction, checks, prediction."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import Tags
from sklearn.utils.validation import check_is_fitted

from kernreg._validation import (
    check_bool,
    check_data,
    check_fit_data,
    check_int,
    check_positive,
    check_random_state,
)
from kernreg.backend import Device, get_device
from kernreg.kernels import Kernel, get_kernel_spec, make_kernel
from kernreg.solvers.blocks.centers import clamp_centers, get_sampler
from kernreg.solvers.blocks.fit_inputs import (
    center_targets,
    fit_sigma,
    intercept_of,
    sigma_value,
    validation_rows,
)
from kernreg.solvers.blocks.nystrom import NystromSetup, check_epsilon, nystrom_setup
from kernreg.solvers.blocks.params import DEFAULT_LAMBDA_GRID
from kernreg.solvers.blocks.stopping import StoppingRule, get_stopping_rule

__all__ = ["DEFAULT_LAMBDAS", "KernelEstimator", "Selection", "estimator_device"]

#: Default λ grid of the protocol: 100 values log-spaced in [1e-15, 1].
DEFAULT_LAMBDAS = np.logspace(np.log10(DEFAULT_LAMBDA_GRID[0]), np.log10(DEFAULT_LAMBDA_GRID[1]),
                              DEFAULT_LAMBDA_GRID[2])
#: Entries of ``path_`` that are the path itself rather than facts about the fit.
_PATH_ARRAYS = ("lambdas", "iterations", "values", "val_rmse", "m_values")


@dataclass
class Selection:
    """What a fit with validation data selected, and the path it selected from: what a trial
    of the protocol records (see :meth:`KernelEstimator.selection`).

    Attributes
    ----------
    param_name : {"lambda", "iterations"} or None
    selected : float
        λ*, t* (as a float), or NaN without a path.
    path_values : ndarray
        The path's parameter values (λ grid or iterations 1..T).
    val_rmse : ndarray
        Validation RMSE along the path; ``(L, M)`` for a two-parameter path over ``m_values``.
    m_values : ndarray of int
        Levels m' (or D') of a two-parameter path, else empty.
    info : dict
        Scalar facts of the fit worth keeping beside its numbers (strategy, step size, ε, ...).
    """

    param_name: str | None
    selected: float
    path_values: np.ndarray
    val_rmse: np.ndarray
    m_values: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    info: dict[str, Any] = field(default_factory=dict)
    #: The σ grid of a σ selection (:class:`~kernreg.solvers.blocks.sigma_search.SigmaSearch`)
    #: and its validation paths ``(S, *val_rmse.shape)``; empty otherwise.
    sigma_values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sigma_val_rmse: np.ndarray = field(default_factory=lambda: np.zeros(0))


def estimator_device(est: Any) -> Device:
    """The estimator's ``device`` (those that take one; ``cpu`` for the others), checked: a
    device other than ``cpu`` with ``backend="dask"`` is refused (the row parts' products run
    on the workers' CPUs)."""
    device = get_device(getattr(est, "device", "cpu"))
    backend = getattr(est, "backend", "local")
    if not device.is_numpy and backend != "local":
        raise ValueError(f"device={device.name!r} needs backend='local', got backend={backend!r}"
                         " (on a Dask cluster, trials run on GPU workers with backend='local')")
    return device


class KernelEstimator(RegressorMixin, BaseEstimator):
    """Base class: subclasses store their parameters in ``__init__`` and implement ``fit``.

    After ``fit``: ``kernel_`` (the :class:`~kernreg.kernels.Kernel`), ``centers_`` (the points
    the predictor expands on: all training rows, or the Nyström centers), ``alpha_``
    (coefficients, ``predict(X) = K(X, centers_) @ alpha_``) and ``n_features_in_``.
    """

    #: What the validated path runs over: ``"lambda"`` (then ``best_lambda_``),
    #: ``"iterations"`` (then ``best_iter_``), another name (then ``best_param_`` over
    #: ``path_["values"]``, e.g. SGM's step-size guesses) or ``None`` (no path).
    path_parameter: ClassVar[str | None] = None
    #: The parameter of the second axis of a two-parameter path (``path_["m_values"]``: the
    #: levels m' or D'), which a fit at the selection sets: ``"m"``, ``"n_components"``.
    level_parameter: ClassVar[str | None] = None
    #: Whether ``fit`` takes ``y`` of shape ``(n, k)``: the k outputs solved together, from one
    #: factorization (the path selects on their joint RMSE).
    multi_output: ClassVar[bool] = False
    #: The measure (``kernreg.losses``) of the validation path ``path_["val_rmse"]`` that
    #: selects: RMSE for the square-loss algorithms (a trial records it beside the path).
    validation_measure: ClassVar[str] = "rmse"
    #: Kernel parameters besides ``sigma`` (config ``kernel:`` keys) the estimator takes by
    #: name and hands to its kernel; the built-in estimators build theirs from name and σ.
    kernel_parameters: ClassVar[tuple[str, ...]] = ()

    def selection(self) -> Selection:
        """What this fit selected and the path it selected from (after ``fit`` with
        validation data; without, the path is empty)."""
        path = self.path_ or {}
        if self.path_parameter == "lambda":
            selected, values = float(self.best_lambda_), path.get("lambdas", [])
        elif self.path_parameter == "iterations":
            selected, values = float(self.best_iter_), path.get("iterations", [])
        elif self.path_parameter is not None:  # another parameter: best_param_ over "values"
            selected, values = float(self.best_param_), path.get("values", [])
        else:
            selected, values = float("nan"), np.zeros(len(path.get("val_rmse", [])))
        info = {k: v for k, v in path.items() if k not in _PATH_ARRAYS and np.isscalar(v)}
        info.update(self._fit_info())
        return Selection(
            param_name=self.path_parameter,
            selected=selected,
            path_values=np.asarray(values, dtype=np.float64),
            val_rmse=np.asarray(path.get("val_rmse", []), dtype=np.float64),
            m_values=np.asarray(path.get("m_values", []), dtype=np.int64),
            info=info,
        )

    def _fit_info(self) -> dict[str, Any]:
        """Scalar facts of the fit for :meth:`selection` (estimators add theirs)."""
        return {}

    def _factor_info(self) -> dict[str, Any]:
        """The Nyström factor's ε as recorded facts (for the Nyström estimators' info)."""
        return {f"factor_{k}": v for k, v in self.factor_info_.items()}

    def _make_kernel(self) -> Kernel:
        # a kernel without a bandwidth (linear) takes none, whatever the estimator holds
        sigma = sigma_value(self) if "sigma" in get_kernel_spec(self.kernel).parameters \
            else None
        return make_kernel(self.kernel, sigma, dtype=self.dtype, memory_budget=self.memory_budget,
                           device=estimator_device(self), **self._kernel_params())

    def _kernel_params(self) -> dict[str, Any]:
        """The kernel's parameters besides σ: ``kernel_params`` for the estimators that take it
        (scikit-learn's ``KernelRidge`` convention; e.g. ``{"beta": 2}`` for ``periodic_spline``),
        none for the others. :func:`~kernreg.kernels.make_kernel` checks names and values."""
        params = getattr(self, "kernel_params", None)
        if params is None:
            return {}
        if not isinstance(params, Mapping) or not all(isinstance(k, str) for k in params):
            raise ValueError(f"kernel_params must be a dict of the kernel's parameters, got "
                             f"{params!r}")
        if "sigma" in params:
            raise ValueError("kernel_params: sigma is the estimator's own parameter, not one of "
                             "kernel_params")
        return dict(params)

    def check_params(self) -> None:
        """Check every constructor parameter that can be checked without data.

        ``fit`` runs the same checks; the experiment runner calls this for every algorithm of
        a config before a run writes anything, so a bad parameter of the last algorithm stops
        the run before the first one's trials exist.

        Raises
        ------
        ValueError
            Naming the parameter and what is allowed.
        """
        self._make_kernel()  # kernel name, σ, dtype, memory budget

    def __sklearn_tags__(self) -> Tags:
        """scikit-learn's tags: a regressor (``y`` required) that takes sparse input, as CSR (the
        kernels evaluate sparse rows; see :data:`~kernreg._validation.ARRAY_RULES`)."""
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = self.multi_output
        return tags

    def _start_fit(self, X: Any, y: Any, X_val: Any, y_val: Any) -> tuple[Any, ...]:
        """Check data and parameters; hold out ``validation_fraction`` of the rows, find σ
        (``sigma_``) and centre the targets (``intercept_``) as the parameters say
        (:mod:`~kernreg.solvers.blocks.fit_inputs`); set ``kernel_`` and ``n_features_in_``
        (and ``feature_names_in_`` for a data frame with string column names)."""
        X, y, X_val, y_val = check_fit_data(X, y, X_val, y_val, estimator=self,
                                            multi_output=self.multi_output)
        X, y, X_val, y_val = validation_rows(self, X, y, X_val, y_val)
        self.check_params()  # before σ is found: a parameter's own error comes first
        self.sigma_ = fit_sigma(self, X)
        self.kernel_ = self._make_kernel()
        y, y_val = center_targets(self, y, y_val)
        return X, y, X_val, y_val

    def _check_nystrom(self) -> None:
        """The Nyström parameters every center-based estimator has (m, ε, sampler, seed)."""
        check_int(self.m, "m", minimum=1)
        check_epsilon(self.epsilon)
        get_sampler(self.sampler)
        check_random_state(self.random_state)

    def _nystrom_setup(self, X: Any, penalty: str = "kmm") -> NystromSetup:
        """Draw the centers among the rows of ``X`` and factor ``K_mm + εI`` (see
        :func:`~kernreg.solvers.blocks.nystrom.nystrom_setup`); set ``center_indices_``,
        ``centers_`` and ``factor_info_``."""
        setup = nystrom_setup(X, self._check_m(X.shape[0]), self.kernel_, sampler=self.sampler,
                              random_state=self.random_state, epsilon=self.epsilon,
                              penalty=penalty)
        self.center_indices_, self.centers_ = setup.indices, setup.centers
        self.factor_info_ = setup.factor.info
        return setup

    def _check_refit(self) -> bool:
        return check_bool(self.refit, "refit")

    @staticmethod
    def _check_lam(lam: Any) -> float:
        return check_positive(lam, "lam")

    def _check_max_iter(self) -> int:
        return check_int(self.max_iter, "max_iter", minimum=1)

    def _check_rule(self) -> StoppingRule:
        return get_stopping_rule(self.stopping_rule, self.window, self.threshold, self.select)

    def _check_m(self, n: int) -> int:
        """The number of centers for ``n`` training points: ``m``, or ``n`` with a warning when
        ``m > n`` (see :func:`~kernreg.solvers.blocks.centers.clamp_centers`)."""
        return clamp_centers(check_int(self.m, "m", minimum=1), n, stacklevel=4)  # fit's caller

    def predict(self, X: Any) -> np.ndarray:
        """Predict real-valued outputs ``K(X, centers_) @ alpha_ + intercept_``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, k), float64
        """
        X = self._check_predict_data(X, "alpha_")
        return self.kernel_.matvec(X, self.centers_, self.alpha_) + intercept_of(self)

    def _check_predict_data(self, X: Any, fitted_attribute: str) -> Any:
        """``X`` validated for ``predict``: the model is fitted (has ``fitted_attribute``) and
        ``X`` has the training data's number of columns (``n_features_in_``)."""
        check_is_fitted(self, fitted_attribute)
        return check_data(X, "X", estimator=self, reset=False)
