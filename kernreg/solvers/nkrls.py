"""Nyström kernel regularized least squares (NKRLS) with a shared-factorization λ path."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as la

from kernreg._validation import check_choice, check_lambdas
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers._base import DEFAULT_LAMBDAS, KernelEstimator, stack_rows
from kernreg.solvers._dask import BACKENDS, DistributedRows
from kernreg.solvers._linalg import NystromFactor
from kernreg.solvers._metrics import rmse
from kernreg.solvers._nystrom import PENALTIES, nystrom_products, nystrom_setup
from kernreg.solvers.krls import eigen_path_coefs
from kernreg.solvers.params import LAMBDAS, PATH_NYSTROM, lambda_grid
from kernreg.solvers.registry import F64, AlgorithmSpec, MemoryProblem, register
from kernreg.solvers.stopping import best_iteration

__all__ = ["PATH_METHODS", "NystromKRLS", "nkrls_path"]

#: How the λ path is solved: one eigendecomposition for all λ, or one Cholesky per λ.
PATH_METHODS = ("eigh", "cholesky")


def nkrls_path(
    H: np.ndarray,
    Aty: np.ndarray,
    factor: NystromFactor,
    lambdas: np.ndarray,
    n: int,
    method: str = "eigh",
) -> tuple[np.ndarray, list[float]]:
    """NKRLS coefficients ``α(λ) = R⁻¹ (AᵀA + λnI)⁻¹ Aᵀy`` for every λ.

    Parameters
    ----------
    H, Aty : ndarray
        ``AᵀA`` (m, m) and ``Aᵀy`` (m,) with ``A = K_nm R⁻¹`` (see
        :func:`nystrom_products`).
    factor : NystromFactor
        ``RᵀR = K_mm + εI``.
    lambdas : ndarray of shape (L,)
    n : int
        Number of training rows (the λ scaling).
    method : {"eigh", "cholesky"}
        ``"eigh"``: ``AᵀA = V diag(s) Vᵀ`` once, then ``β(λ) = V diag(1/(s + λn)) Vᵀ Aᵀy``
        (``O(m³ + m²·L)``). ``"cholesky"``: factor ``AᵀA + λnI`` afresh for each λ
        (``O(m³·L)``, the authors' scheme); when that Cholesky fails (λn below rounding of
        ``AᵀA``) the λ is solved through the eigendecomposition instead and listed in the
        second return value.

    Returns
    -------
    alphas : ndarray of shape (m, L)
    fallbacks : list of float
        λ values for which the Cholesky variant fell back to the eigendecomposition.
    """
    check_choice(method, "path_method", PATH_METHODS)
    fallbacks: list[float] = []
    if method == "eigh":
        s, V = la.eigh(H, check_finite=False, driver="evd")  # divide and conquer: ~15% faster
        betas = eigen_path_coefs(s, V, Aty, lambdas * n)
    else:
        betas = np.empty((H.shape[0], lambdas.size))
        eye = np.eye(H.shape[0])
        eig = None
        for j, lam in enumerate(lambdas):
            try:
                cf = la.cho_factor(H + lam * n * eye, check_finite=False)
                betas[:, j] = la.cho_solve(cf, Aty, check_finite=False)
            except la.LinAlgError:
                if eig is None:
                    eig = la.eigh(H, check_finite=False)
                betas[:, j] = eigen_path_coefs(*eig, Aty, np.array([lam * n]))[:, 0]
                fallbacks.append(float(lam))
    return factor.solve(betas), fallbacks


class NystromKRLS(KernelEstimator):
    """Nyström KRLS: ``α = R⁻¹ (AᵀA + λnI)⁻¹ Aᵀy`` with ``A = K_nm R⁻¹``, ``RᵀR = K_mm + εI``
    (``R = I`` with ``penalty="identity"``).

    Predictions are ``K(X, centers) @ α``. ``K_nm`` is never stored: ``AᵀA`` and ``Aᵀy`` are
    accumulated block-wise from ``A_b = K_b R⁻¹`` (memory ``O(m² + block·m)``, time
    ``O(nm(m + d))``).
    With validation data every λ of the grid is solved from the same ``m × m`` problem and the
    validation predictions of all λ come from one blocked product ``K(X_val, C) @ [α(λ_j)]_j``.

    Parameters
    ----------
    kernel : {"gaussian", "laplacian", "linear"}, default "gaussian"
    sigma : float, default 1.0
        Kernel bandwidth (ignored by the linear kernel).
    m : int, default 100
        Number of Nyström centers, drawn from the training rows (``m <= n``).
    lam : float, default 1e-6
        λ used when ``fit`` gets no validation data.
    lambdas : array-like, optional
        λ grid searched with validation data; default 100 values log-spaced in ``[1e-15, 1]``.
    path_method : {"eigh", "cholesky"}, default "eigh"
        Shared eigendecomposition for all λ, or a fresh Cholesky per λ (see :func:`nkrls_path`).
    epsilon : float, default 1e-10
        Ridge ``ε`` in ``K_mm + εI``; increased ×10 until Cholesky succeeds (recorded in
        ``factor_info_``).
    penalty : {"kmm", "identity"}, default "kmm"
        Ridge term ``λn·K_mm`` (the papers' NKRLS) or ``λn·I``: ridge regression on the
        features ``K(x, C)``, what the authors' code behind LiM Table 1 computed (see
        :func:`kernreg.solvers._nystrom.nystrom_setup`); ``epsilon`` is then unused.
    sampler : str or CenterSampler, default "uniform"
        Center selection (see :mod:`kernreg.solvers.centers`).
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
        :mod:`kernreg.solvers._dask`; the same numbers up to the order of the sums).

    Attributes
    ----------
    alpha_ : ndarray of shape (m,)
    centers_ : rows of X used as centers
    center_indices_ : ndarray of shape (m,)
        Their indices into the training rows.
    best_lambda_ : float
    factor_info_ : dict
        ``{"epsilon_requested", "epsilon_used", "retries"}``.
    path_ : dict or None
        ``{"lambdas", "val_rmse", "cholesky_fallbacks"}`` with validation data.
    path_coefs_ : ndarray of shape (m, L) or None
        α(λ) of every λ of the validated path (see :meth:`predict_path`).
    """

    path_parameter = "lambda"

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float = 1.0,
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
    ):
        self.kernel = kernel
        self.sigma = sigma
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

    def _fit_info(self) -> dict[str, Any]:
        return self._factor_info()

    def check_params(self) -> None:
        super().check_params()
        self._check_nystrom()
        self._check_refit()
        self._check_lam(self.lam)
        check_choice(self.path_method, "path_method", PATH_METHODS)
        check_choice(self.penalty, "penalty", PENALTIES)
        check_choice(self.backend, "backend", BACKENDS)
        if self.lambdas is not None:
            check_lambdas(self.lambdas)

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> NystromKRLS:
        """Fit at ``lam``, or over the ``lambdas`` path selecting λ on validation data.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
        X_val, y_val : optional validation data (given together)

        Returns
        -------
        self
        """
        X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
        n = X.shape[0]
        m = self._check_m(n)
        refit = self._check_refit()
        lam = self._check_lam(self.lam)  # checked even when the grid is used
        if X_val is None:
            lambdas = np.array([lam])
        else:
            lambdas = check_lambdas(DEFAULT_LAMBDAS if self.lambdas is None else self.lambdas)
        setup = nystrom_setup(
            X,
            m,
            self.kernel_,
            sampler=self.sampler,
            random_state=self.random_state,
            epsilon=self.epsilon,
            penalty=self.penalty,
        )
        self.center_indices_, self.centers_ = setup.indices, setup.centers
        self.factor_info_ = setup.factor.info
        H, Aty = self._products(X, y, setup.centers, setup.factor)
        alphas, fallbacks = nkrls_path(H, Aty, setup.factor, lambdas, n, self.path_method)
        if X_val is None:
            self.alpha_, self.best_lambda_, self.path_ = alphas[:, 0], float(lambdas[0]), None
            self.path_coefs_ = None
            return self
        self.path_coefs_ = alphas

        if self.backend == "dask":
            val_rows = DistributedRows(self.kernel_, X_val, y_val, setup.centers, "blocked")
            val_rmse = val_rows.rmse(alphas)
            val_rows.close()
        else:
            val_rmse = rmse(y_val, self.kernel_.matvec(X_val, setup.centers, alphas))
        best = best_iteration(val_rmse) - 1
        self.best_lambda_ = float(lambdas[best])
        self.path_ = {"lambdas": lambdas, "val_rmse": val_rmse, "cholesky_fallbacks": fallbacks}
        self.alpha_ = alphas[:, best].copy()
        if refit:
            Xa, ya = stack_rows(X, X_val), np.concatenate([y, y_val])
            H, Aty = self._products(Xa, ya, setup.centers, setup.factor)
            alphas, _ = nkrls_path(
                H, Aty, setup.factor, np.array([self.best_lambda_]), Xa.shape[0], self.path_method
            )
            self.alpha_ = alphas[:, 0]
        return self

    def _products(self, X: Any, y: np.ndarray, C: Any, factor: NystromFactor
                  ) -> tuple[np.ndarray, np.ndarray]:
        """``(AᵀA, Aᵀy)`` here, or summed over the parts of the rows on a Dask cluster."""
        if self.backend == "dask":
            rows = DistributedRows(self.kernel_, X, y, C, "blocked")
            try:
                return rows.gram_products(factor)
            finally:
                rows.close()
        return nystrom_products(self.kernel_, X, C, y, factor)

    def predict_path(self, X: Any) -> np.ndarray:
        """Predictions of every λ of the validated path, ``(n_samples, L)`` (before any refit):
        e.g. a test error curve beside ``path_["val_rmse"]``."""
        X = self._check_predict_data(X, "path_coefs_")
        if self.path_coefs_ is None:
            raise ValueError("predict_path needs a fit with validation data (a λ path)")
        return self.kernel_.matvec(X, self.centers_, self.path_coefs_)


def nystrom_path_memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    """NKRLS: AᵀA, its eigenvectors, K_mm, R and a product buffer; coefficients and validation
    predictions per λ; each kernel block's float64 copy and A_b = K_b R⁻¹."""
    m, lambdas = params["m"], len(lambda_grid(params["lambdas"]))
    return {"m×m matrices": 5 * m * m * F64,
            "A blocks": 2 * problem.block_bytes * F64 // problem.itemsize,
            "path": (m + problem.n_val) * lambdas * F64}


register(AlgorithmSpec(
    name="nkrls",
    estimator=NystromKRLS,
    title="NKRLS",
    order=40,
    schema={"lambdas": LAMBDAS, "path_method": {"enum": list(PATH_METHODS)},
            "backend": {"enum": list(BACKENDS)}, **PATH_NYSTROM},
    config_defaults=("lambdas", "path_method", "epsilon", "penalty", "sampler"),
    takes_centers=True,
    memory=nystrom_path_memory,
    summary="α = R⁻¹(AᵀA + λnI)⁻¹Aᵀy with A = K_nm R⁻¹, every λ from one eigendecomposition",
))
