"""Random-features KRLS: ridge regression on an explicit random feature map of the kernel.

The features come from the feature-map registry (:mod:`kernreg.features`; default ``"rff"``,
random Fourier features ``z(x) = √(2/D) cos(Wx + b)`` with ``W_j ~ N(0, σ⁻²I)``,
``b_j ~ U[0, 2π)``, which approximate ``k(x, x') = exp(−‖x − x'‖²/(2σ²))`` by ``z(x)ᵀz(x')``,
Rahimi & Recht). The model is ``w = (ZᵀZ + λnI)⁻¹ Zᵀy``: a ``D × D`` problem. A registered map
is prefix-consistent (the first ``D'`` features of a draw of ``D`` are a draw of ``D'``), so one
pass over the data gives ``UᵀU`` and ``Uᵀy`` (``U = √(D)·Z`` unscaled) for every level
``D' ≤ D`` as leading blocks, and each level's λ path comes from one eigendecomposition of its
block. On a device the feature blocks, their products and the validation errors are computed
there (Fourier features only, :meth:`~kernreg.features.FeatureMap.to`); the ``D × D`` λ paths
stay on the host.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg._validation import check_int, check_random_state
from kernreg.features import (
    FeatureMap,
    feature_map_names,
    feature_map_problem,
    get_feature_map_spec,
    make_feature_map_for,
    split_features,
)
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.fit_inputs import intercept_of
from kernreg.solvers.blocks.lambda_path import (
    DEFAULT_LEVELS,
    LambdaPath,
    LambdaPathEstimator,
    check_m_levels,
    column_rmse,
    eigen_path_coefs,
)
from kernreg.solvers.blocks.outputs import check_outputs
from kernreg.solvers.blocks.params import LAMBDAS, M_LEVELS, POSITIVE_INT, lambda_grid, level_values
from kernreg.solvers.blocks.path_clock import FitClock, running_clock, scored_seconds
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["RandomFeaturesKRLS"]


@dataclass
class _Features:
    """A drawn map of ``D`` features and the fit rows' ``UᵀU`` and ``Uᵀy``: every level's
    system."""

    fmap: FeatureMap
    G: np.ndarray
    c: np.ndarray


def _features_schema() -> dict[str, Any]:
    """The ``features`` key of an ``rf`` entry: a registered map's name, or a mapping
    ``{name: <map>, <own parameter>: <value>}`` whose values the map's schema checks (built
    when a config is read, so a map registered later is accepted)."""
    names = feature_map_names()
    per_map = [{"if": {"properties": {"name": {"const": name}}, "required": ["name"]},
                "then": {"properties": dict(get_feature_map_spec(name).schema)}}
               for name in names]
    return {"if": {"type": "object"},
            "then": {"required": ["name"], "properties": {"name": {"enum": names}},
                     "allOf": per_map},
            "else": {"enum": names}}


def _on_device(fmap: FeatureMap, features: Any, device: Any) -> FeatureMap:
    """``fmap`` on the device ``device`` (only maps with a device path, the Fourier features, go
    there: ``ValueError`` naming the map and the device for the others)."""
    try:
        return fmap.to(device)
    except ValueError as exc:
        raise ValueError(f"features ({split_features(features)[0]}): {exc}") from None


def _val_rmse(fmap: FeatureMap, X: Any, coefs: np.ndarray, y: np.ndarray, budget: int
              ) -> np.ndarray:
    """Validation RMSE of every column of ``coefs``: block-wise on the host, or on the map's
    device (the blocks and their products there, one ``(columns,)`` vector back)."""
    if fmap.device.is_numpy:
        return column_rmse(fmap.blocks(X, budget), coefs, y)
    return fmap.column_rmse(X, coefs, y, budget)


def _level_path(G: np.ndarray, c: np.ndarray, level: int, shifts: np.ndarray) -> np.ndarray:
    """Weights of the unscaled features for every shift λn at level ``D'``: with ``Z = U/√D'``,
    ``w = (ZᵀZ + λnI)⁻¹Zᵀy`` and predictions ``Zw = U (w/√D')``; ``(D', L)``, or ``(D', L, k)``
    for the k columns of ``c = Uᵀy``."""
    s, V = la.eigh(G[:level, :level] / level, check_finite=False)
    return eigen_path_coefs(s, V, c[:level] / np.sqrt(level), shifts) / np.sqrt(level)


def _levels_path(state: _Features, levels: np.ndarray, shifts: np.ndarray,
                 clock: Callable[[], float]) -> tuple[np.ndarray, np.ndarray]:
    """Every level's :func:`_level_path`, ``(D, L, M)`` (``(D, L, M, k)`` for k outputs: a
    path point's outputs last), zero below each level; and when each level was solved on
    ``clock`` (the D-path's times)."""
    D = state.fmap.n_components
    coefs = np.zeros((D, shifts.size, levels.size, *state.c.shape[1:]))
    ready = np.zeros(levels.size)
    for k, level in enumerate(levels):
        coefs[:level, :, k] = _level_path(state.G, state.c, int(level), shifts)
        ready[k] = clock()
    return coefs, ready


class RandomFeaturesKRLS(LambdaPathEstimator):
    """KRLS on ``D`` random features, with a path over λ and the number of features.

    Selects the pair ``(λ, D')`` with the lowest validation RMSE (ties: the fewest features).
    ``y`` of shape ``(n, k)`` gives k outputs from the same products and eigendecompositions,
    selected on the RMSE over every validation row and output.
    Any registered feature map of the kernel (random Fourier features of the Gaussian kernel by
    default). Cost ``O(nD(D + d))`` for the data pass plus ``O(D'³)`` per level.

    Parameters
    ----------
    kernel : str, default "gaussian"
        The kernel approximated: the kernel of the feature map ``features``.
    sigma : float or "median", default "median"
        Kernel bandwidth; ``"median"``: the median distance between training rows (``sigma_``).
    fit_intercept : bool, default True
        Fit the targets less their mean, added back to predictions (``intercept_``).
    validation_fraction : float, optional
        Without ``X_val``: the share of ``X`` held out inside ``fit`` to select the path on.
    n_components : int, default 1000
        Largest number of features ``D`` (scikit-learn's ``RBFSampler`` name).
    lam : float, default 1e-6
        λ used when ``fit`` gets no validation data (then with all ``D`` features).
    lambdas : array-like, optional
        λ grid; default 100 values log-spaced in ``[1e-15, 1]``.
    d_values : array-like of int, optional
        Levels ``D'`` validated; default 50 evenly spaced up to ``n_components``.
    random_state : None, int or numpy.random.Generator
        Seed of the features.
    refit : bool, default False
        After selection, refit on training + validation rows with the first ``D*`` features.
    dtype : {"float64"}, default "float64"
    memory_budget : int
        Bytes per feature block.
    features : str or dict, default "rff"
        A registered feature map serving ``kernel`` (:func:`kernreg.features.serves`), by name
        or with its own parameters (Fastfood FFT: ``{"name": "fastfood", "variant": "fft"}``);
        those shared with the kernel (σ, the ν of ``matern32``) take the kernel's values.
    device : {"cpu", "torch", "cuda", "cuda:N"}, default "cpu"
        Where the feature blocks ``ψ(X)``, ``UᵀU``, ``Uᵀy`` and the predictions are computed
        (:mod:`kernreg.backend`; Fourier features only); the ``D × D`` paths stay on the host.

    Attributes
    ----------
    coef_ : ndarray of shape (D*,) or (D*, k)
        Weights of the unscaled features ``ψ(x)`` (``√2·cos(Wx + b)`` for ``"rff"``; the
        ``√(1/D*)`` folded in).
    feature_map_ : FeatureMap
        The first ``D*`` features of the draw.
    frequencies_, phases_ : ndarray
        For ``"rff"``: the first ``D*`` rows of ``W`` and entries of ``b`` (the map's own
        attributes).
    best_lambda_ : float
    best_n_components_ : int
    path_ : dict or None
        ``{"lambdas", "m_values" (the levels D'), "val_rmse" (L, M), "seconds" (L, M)}`` with
        validation data (``seconds``: when each level D' was solved, plus the scoring after).
    """

    level_parameter = "n_components"
    multi_output = True

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        validation_fraction: float | None = None,
        n_components: int = 1000,
        lam: float = 1e-6,
        lambdas: Any = None,
        d_values: Any = None,
        random_state: Any = None,
        refit: bool = False,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        features: str = "rff",
        device: str = "cpu",
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.fit_intercept = fit_intercept
        self.validation_fraction = validation_fraction
        self.n_components = n_components
        self.lam = lam
        self.lambdas = lambdas
        self.d_values = d_values
        self.random_state = random_state
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.features = features
        self.device = device

    def _fit_info(self) -> dict[str, Any]:
        return {"m_selected": int(self.best_n_components_)}  # the selected size, as m*

    def check_params(self) -> None:
        super().check_params()
        problem = feature_map_problem(self.features, self.kernel)
        if problem:
            raise ValueError(problem)
        check_m_levels(self.d_values, check_int(self.n_components, "n_components", minimum=1))
        check_random_state(self.random_state)
        self._feature_map(1)  # the map's own checks of its parameters

    def _feature_map(self, n_components: int) -> FeatureMap:
        kernel = self._make_kernel()
        return _on_device(make_feature_map_for(self.features, kernel, n_components,
                                               random_state=self.random_state),
                          self.features, kernel.device)

    def _prepare(self, X: Any, y: np.ndarray) -> _Features:
        D = check_int(self.n_components, "n_components", minimum=1)
        fmap = self._feature_map(D).draw(X.shape[1])
        check_outputs(self, y)
        return _Features(fmap, *fmap.gram(X, y, self.memory_budget))

    def _fit_at(self, state: _Features, X: Any, y: np.ndarray, lam: float) -> None:
        D = state.fmap.n_components
        w = _level_path(state.G, state.c, D, np.array([lam * X.shape[0]]))[:, 0]
        self._set_solution(state.fmap, w, lam, D)

    def _path(self, state: _Features, X: Any, y: np.ndarray, X_val: Any, y_val: np.ndarray,
              lambdas: np.ndarray) -> LambdaPath:
        D = state.fmap.n_components
        levels = check_m_levels(self.d_values, D)
        L, M = lambdas.size, levels.size
        clock = running_clock() or FitClock()
        coefs, ready = _levels_path(state, levels, lambdas * X.shape[0], clock)
        val_rmse = _val_rmse(state.fmap, X_val, coefs.reshape(D, -1), y_val,
                             self.memory_budget).reshape(L, M)
        seconds = np.broadcast_to(scored_seconds(ready, clock()), (L, M)).copy()
        return LambdaPath(lambdas, val_rmse, lambda j, k: coefs[:levels[k], j, k], levels,
                          seconds=seconds)

    def _choose(self, state: _Features, path: LambdaPath, j: int, k: int) -> None:
        self._set_solution(state.fmap, path.coef(j, k), float(path.lambdas[j]),
                           int(path.levels[k]))

    def _refit(self, state: _Features, X: Any, y: np.ndarray) -> None:
        D, lam = self.best_n_components_, self.best_lambda_
        G, c = state.fmap.prefix(D).gram(X, y, self.memory_budget)
        w = _level_path(G, c, D, np.array([lam * X.shape[0]]))[:, 0]
        self._set_solution(state.fmap, w, lam, D)

    def _set_solution(self, fmap: FeatureMap, w: np.ndarray, lam: float,
                      n_components: int) -> None:
        self.feature_map_ = fmap.prefix(n_components)
        for alias in ("frequencies_", "phases_"):  # the rff map's parameters, as before
            if hasattr(self.feature_map_, alias):
                setattr(self, alias, getattr(self.feature_map_, alias))
            else:  # not left over from an earlier fit with rff
                vars(self).pop(alias, None)
        self.coef_ = np.ascontiguousarray(w[:n_components])
        self.best_lambda_, self.best_n_components_ = lam, n_components

    def predict(self, X: Any) -> np.ndarray:
        """Predict ``ψ(X) @ coef_ + intercept_`` (``√2·cos(XWᵀ + b) @ coef_`` for ``"rff"``).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features_in_)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, k), float64
        """
        X = self._check_predict_data(X, "coef_")
        return self.feature_map_.matvec(X, self.coef_, self.memory_budget) + intercept_of(self)


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    # the D × D Gram and its eigenvectors, coefficients of every (λ, D') pair, and the feature
    # blocks (budget-sized) with their predictions for every pair
    D, lambdas = params["n_components"], len(lambda_grid(params["lambdas"]))
    levels = len(level_values(params.get("d_values")) or range(min(D, DEFAULT_LEVELS)))
    return {"D×D matrices": 3 * D * D * F64,
            "path": 2 * D * lambdas * levels * problem.outputs * F64,
            "feature blocks": 2 * problem.block_bytes}


def _check(params: dict[str, Any], kernel: str) -> list[str]:
    # (the schema has checked the name and the map's parameter values)
    problem = feature_map_problem(params.get("features", RandomFeaturesKRLS().features), kernel)
    problems = [problem] if problem else []
    levels = level_values(params.get("d_values")) or []
    if levels and max(levels) > params["n_components"]:
        problems.append(f"d_values: levels up to {max(levels)} exceed n_components = "
                        f"{params['n_components']}")
    return problems


register(AlgorithmSpec(
    name="rf",
    estimator=RandomFeaturesKRLS,
    title="Random features KRLS",
    order=70,
    schema={"lambdas": LAMBDAS, "n_components": POSITIVE_INT, "d_values": M_LEVELS,
            # the names registered when a config is read (a map registered later included)
            "features": _features_schema},
    config_defaults=("lambdas", "n_components", "d_values"),
    memory=_memory,
    check=_check,
    summary="ridge regression on D random features (a registered feature map), paths over "
            "λ and D' ≤ D",
))
