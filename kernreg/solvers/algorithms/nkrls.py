"""Nyström kernel regularized least squares (NKRLS) with a shared-factorization λ path."""

from __future__ import annotations

from contextlib import closing
from typing import Any

import numpy as np

from kernreg._validation import check_choice
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.base import DEFAULT_LAMBDAS, estimator_device
from kernreg.solvers.blocks.dask_rows import BACKENDS
from kernreg.solvers.blocks.fit_inputs import intercept_of
from kernreg.solvers.blocks.lambda_path import (
    PATH_METHODS,
    LambdaPath,
    LambdaPathEstimator,
    NystromSystem,
)
from kernreg.solvers.blocks.mixed_precision import (
    PRECISIONS,
    check_precision,
    nkrls_system,
    refit_system,
    resolve_precision,
)
from kernreg.solvers.blocks.nystrom import PENALTIES
from kernreg.solvers.blocks.outputs import check_outputs, path_error, path_outputs
from kernreg.solvers.blocks.params import LAMBDAS, PATH_NYSTROM, lambda_grid
from kernreg.solvers.blocks.tridiagonal import check_on_host
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register

__all__ = ["NystromKRLS"]

class NystromKRLS(LambdaPathEstimator):
    """Nyström KRLS: ``α = R⁻¹ (AᵀA + λnI)⁻¹ Aᵀy`` with ``A = K_nm R⁻¹``, ``RᵀR = K_mm + εI``
    (``R = I`` with ``penalty="identity"``).

    Predictions are ``K(X, centers) @ α``. ``K_nm`` is never stored: ``AᵀA`` and ``Aᵀy`` are
    accumulated block-wise from ``A_b = K_b R⁻¹`` (memory ``O(m² + block·m)``, time
    ``O(nm(m + d))``); the refit adds the validation rows' terms to the fit rows'.
    With validation data every λ of the grid is solved from the same ``m × m`` problem and the
    validation predictions of all λ come from one blocked product ``K(X_val, C) @ [α(λ_j)]_j``.

    Parameters
    ----------
    kernel : str, default "gaussian"
        A registered kernel (:func:`kernreg.kernels.kernel_names`).
    sigma : float or "median", default "median"
        Kernel bandwidth; ``"median"``: the median distance between training rows (``sigma_``).
    fit_intercept : bool, default True
        Fit the targets less their mean, added back to predictions (``intercept_``).
    validation_fraction : float, optional
        Without ``X_val``: the share of ``X`` held out inside ``fit`` to select the path on.
    m : int, default 100
        Number of Nyström centers, drawn from the training rows (``m <= n``).
    lam : float, default 1e-6
        λ used when ``fit`` gets no validation data.
    lambdas : array-like, optional
        λ grid searched with validation data; default 100 values log-spaced in ``[1e-15, 1]``.
    path_method : {"eigh", "tridiagonal", "cholesky"}, default "eigh"
        One eigendecomposition for all λ, the same by one tridiagonal reduction (host only), or a
        Cholesky per λ; a single λ (a refit, a fit at ``lam``) takes one Cholesky (``nkrls_path``).
    epsilon : float, default 1e-10
        Ridge ``ε`` in ``K_mm + εI``; increased ×10 until Cholesky succeeds (recorded in
        ``factor_info_``).
    penalty : {"kmm", "identity"}, default "kmm"
        Ridge term ``λn·K_mm`` (the papers' NKRLS) or ``λn·I``: ridge regression on the
        features ``K(x, C)``, what the authors' code behind LiM Table 1 computed (see
        :func:`kernreg.solvers.blocks.nystrom.nystrom_setup`); ``epsilon`` is then unused.
    sampler : str or CenterSampler, default "uniform"
        Center selection (see :mod:`kernreg.solvers.blocks.centers`).
    random_state : None, int or numpy.random.Generator
        Seed of the center selection.
    refit : bool, default False
        After selecting λ*, refit on training + validation rows with the same centers.
    dtype : {"float64", "float32"}, default "float64"
        Kernel evaluation precision (the products are accumulated in float64).
    memory_budget : int
        Bytes per kernel block in blocked evaluation.
    backend : {"local", "dask"}, default "local"
        Where ``AᵀA``, ``Aᵀy`` and the validation errors are computed: in this process, or
        over the rows spread on the running Dask client's workers (see
        :mod:`kernreg.solvers.blocks.dask_rows`; the same numbers up to the order of the sums).
    precision : {"float64", "mixed", "auto"}, default "float64"
        ``AᵀA`` in float64, or by float32 products of the float64 ``K_b R⁻¹`` with every λ
        refined in float64 (see :mod:`kernreg.solvers.blocks.mixed_precision`; float64 dtype,
        local backend, cpu device); ``"auto"``: the cost model's choice (float64 on a device).
    kernel_params : dict, optional
        The kernel's parameters besides σ (scikit-learn's ``KernelRidge`` convention), e.g.
        ``{"beta": 2}`` for ``periodic_spline``; left out, the registered defaults. A config's
        ``kernel:`` keys besides ``name`` and ``sigma`` arrive here.
    device : {"cpu", "torch", "cuda", "cuda:N"}, default "cpu"
        Where the kernel blocks, ``AᵀA``, ``Aᵀy`` and the validation predictions are computed
        (:mod:`kernreg.backend`); the ``m × m`` λ path stays on the host.

    Attributes
    ----------
    alpha_ : ndarray of shape (m,)
    centers_, center_indices_ : the centers (rows of X) and their indices into the training rows
    best_lambda_ : float
    factor_info_ : dict
        ``{"epsilon_requested", "epsilon_used", "retries"}``.
    path_ : dict or None
        ``{"lambdas", "val_rmse", "cholesky_fallbacks"}`` with validation data.
    path_coefs_ : ndarray of shape (m, L) or None
        α(λ) of every λ of the validated path (see :meth:`predict_path`).
    precision_info_ : dict
        ``precision`` (the one the path was solved in) and the refinement's record.
    """

    multi_output = True

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        validation_fraction: float | None = None,
        m: int = 100,
        lam: float = 1e-6,
        lambdas: Any = None,
        path_method: str = "eigh",
        epsilon: float = 1e-10,
        penalty: str = "kmm",
        sampler: Any = "uniform",
        random_state: Any = None,
        refit: bool = False,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        backend: str = "local",
        precision: str = "float64",
        kernel_params: dict[str, Any] | None = None,
        device: str = "cpu",
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.fit_intercept = fit_intercept
        self.validation_fraction = validation_fraction
        self.m = m
        self.lam = lam
        self.lambdas = lambdas
        self.path_method = path_method
        self.epsilon = epsilon
        self.penalty = penalty
        self.sampler = sampler
        self.random_state = random_state
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.backend = backend
        self.precision = precision
        self.kernel_params = kernel_params
        self.device = device

    def _fit_info(self) -> dict[str, Any]:
        return {**self._factor_info(), **self.precision_info_}

    def check_params(self) -> None:
        super().check_params()
        self._check_nystrom()
        check_choice(self.path_method, "path_method", PATH_METHODS)
        check_on_host(self.path_method, estimator_device(self).is_numpy, self.device)
        check_choice(self.penalty, "penalty", PENALTIES)
        check_choice(self.backend, "backend", BACKENDS)
        check_precision(self.precision, self.dtype, self.backend, estimator_device(self))

    def _prepare(self, X: Any, y: np.ndarray) -> NystromSystem:
        check_outputs(self, y)
        setup = self._nystrom_setup(X, self.penalty)
        grid = DEFAULT_LAMBDAS if self.lambdas is None else self.lambdas
        self._precision = "float64" if y.ndim == 2 else resolve_precision(
            self.precision, X.shape[0], setup.centers.shape[0], X.shape[1], np.size(grid),
            self.kernel_.dtype, self.backend, self.kernel_.device)
        system = nkrls_system(self.kernel_, X, y, setup.centers, setup.factor,
                              self._precision, self.backend)
        self.precision_info_ = system.info
        return system

    def _fit_at(self, state: NystromSystem, X: Any, y: np.ndarray, lam: float) -> None:
        alphas, _ = state.solve(np.array([lam]), X.shape[0], self.path_method)
        self.alpha_, self.best_lambda_, self.path_coefs_ = alphas[:, 0], lam, None

    def _path(self, state: NystromSystem, X: Any, y: np.ndarray, X_val: Any, y_val: np.ndarray,
              lambdas: np.ndarray) -> LambdaPath:
        alphas, fallbacks = state.solve(lambdas, X.shape[0], self.path_method)
        self.path_coefs_ = alphas
        val_rmse = path_error(self.kernel_, X_val, y_val, self.centers_, alphas, self.backend)
        return LambdaPath(lambdas, val_rmse, lambda j, k: alphas[:, j].copy(),
                          record={"cholesky_fallbacks": fallbacks})

    def _refit(self, state: NystromSystem, X: Any, y: np.ndarray) -> None:
        with closing(refit_system(self.kernel_, X, y, self.centers_, state, self._precision,
                                  self.backend)) as refit:  # a mixed system's A handed on
            self.alpha_ = refit.solve(np.array([self.best_lambda_]), X.shape[0],
                                      self.path_method)[0][:, 0]

    def predict_path(self, X: Any) -> np.ndarray:
        """Predictions of every λ of the validated path, ``(n_samples, L[, k])``, before any
        refit: e.g. a test error curve beside ``path_["val_rmse"]``."""
        X = self._check_predict_data(X, "path_coefs_")
        if self.path_coefs_ is None:
            raise ValueError("predict_path needs a fit with validation data (a λ path)")
        return path_outputs(self.kernel_, X, self.centers_, self.path_coefs_) + intercept_of(self)


def nystrom_path_memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    """NKRLS: AᵀA, its eigenvectors, K_mm, R and a product buffer; coefficients and validation
    predictions per λ; each kernel block's float64 copy and A_b = K_b R⁻¹."""
    m, lambdas = params["m"], len(lambda_grid(params["lambdas"]))
    out = {"m×m matrices": 5 * m * m * F64,
           "A blocks": 2 * problem.block_bytes * F64 // problem.itemsize,
           "path": (m + problem.n_val) * lambdas * problem.outputs * F64}
    if params.get("precision") == "mixed":  # A = K_nm R⁻¹ kept for the refinement
        out["A (mixed precision)"] = problem.n_fit * m * F64
    return out


register(AlgorithmSpec(
    name="nkrls",
    estimator=NystromKRLS,
    title="NKRLS",
    order=40,
    schema={"lambdas": LAMBDAS, "path_method": {"enum": list(PATH_METHODS)},
            "backend": {"enum": list(BACKENDS)}, "precision": {"enum": list(PRECISIONS)},
            **PATH_NYSTROM},
    config_defaults=("lambdas", "path_method", "epsilon", "penalty", "sampler"),
    takes_centers=True,
    memory=nystrom_path_memory,
    summary="α = R⁻¹(AᵀA + λnI)⁻¹Aᵀy with A = K_nm R⁻¹, every λ from one eigendecomposition",
))
