"""Kernel regularized least squares (Tikhonov), with a λ path from one eigendecomposition."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as la
from array_api_compat import device as device_of

from kernreg._validation import check_choice, check_positive
from kernreg.backend.linalg import cholesky_upper, is_host, namespace, solve_triangular
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.base import estimator_device
from kernreg.solvers.blocks.lambda_path import (
    LambdaPath,
    LambdaPathEstimator,
    eigen_path_coefs,
)
from kernreg.solvers.blocks.linalg import eigh_inplace, sym_inplace
from kernreg.solvers.blocks.memory import full_kernel_memory
from kernreg.solvers.blocks.outputs import check_outputs, path_error
from kernreg.solvers.blocks.params import LAMBDAS
from kernreg.solvers.blocks.tridiagonal import (
    SPECTRAL_METHODS,
    check_on_host,
    spectral_method,
    tridiagonal_path_coefs,
    tridiagonalize,
)
from kernreg.solvers.registry import AlgorithmSpec, register

__all__ = ["KRLS"]


def _solve_shifted(K: Any, y: Any, shift: float) -> Any:
    """``(K + shift·I)⁻¹ y`` by Cholesky; eigendecomposition if Cholesky fails (destroying
    ``K``, symmetric float64). ``K`` and ``y`` are numpy arrays or arrays of one device, where
    the solve runs (``torch.linalg``: cuSOLVER on a GPU) and the result stays."""
    xp = namespace(K, y)
    A = xp.asarray(K, copy=True)
    diagonal = xp.arange(K.shape[0], device=device_of(K))
    A[diagonal, diagonal] += shift  # no n × n identity
    try:
        R = cholesky_upper(A)
        if is_host(R):  # LAPACK potrs: the two triangular solves in one call
            return la.cho_solve((R, False), y, check_finite=False)
        return solve_triangular(R, solve_triangular(R, y, trans=True))
    except np.linalg.LinAlgError:
        del A  # its memory goes before the eigenvectors take theirs
        s, U = eigh_inplace(K)
        return eigen_path_coefs(s, U, y, np.array([shift]))[:, 0]


class KRLS(LambdaPathEstimator):
    """Kernel regularized least squares, ``α(λ) = (K + λnI)⁻¹ y``.

    With validation data, ``fit`` computes one eigendecomposition ``K = U diag(s) Uᵀ`` and gets
    every λ of the grid as ``α(λ) = U diag(1/(s + λn)) Uᵀ y`` (``O(n³ + n²·|Λ|)``); validation
    predictions of all λ come from one blocked product ``K(X_val, X) @ [α(λ_1) … α(λ_L)]``.
    Where ``eigh``'s eigenvectors beside ``K`` would exceed ``max_memory``, the same path comes
    from one tridiagonalization in ``K``'s own memory
    (:mod:`kernreg.solvers.blocks.tridiagonal`, ``path_method``).

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
    lam : float, default 1e-6
        λ used when ``fit`` gets no validation data.
    lambdas : array-like, optional
        λ grid searched when ``fit`` gets validation data; default 100 values log-spaced in
        ``[1e-15, 1]``.
    refit : bool, default False
        After selecting λ*, refit on training + validation rows (else keep the model fitted on
        the training rows, as the authors' package does by default).
    dtype : {"float64", "float32"}, default "float64"
        Kernel evaluation precision (the linear algebra runs in float64).
    memory_budget : int
        Bytes per kernel block in blocked evaluation.
    device : {"cpu", "torch", "cuda", "cuda:N"}, default "cpu"
        Where the ``n × n`` kernel lives and is factored (:mod:`kernreg.backend`): its
        eigendecomposition or Cholesky runs there; ``alpha_`` and the path come back as numpy.
    path_method : {"auto", "eigh", "tridiagonal"}, default "auto"
        How the λ path is computed: ``eigh``, or the tridiagonalization in ``K``'s memory
        (host only); ``auto``: ``eigh`` where its ``2n²`` float64 fit ``max_memory``.
    max_memory : int, optional
        Bytes the fit may hold (a run's budget); ``None``: no limit.
    kernel_params : dict, optional
        The kernel's parameters besides σ (scikit-learn's ``KernelRidge`` convention), e.g.
        ``{"beta": 2}`` for ``periodic_spline``; left out, the registered defaults. A config's
        ``kernel:`` keys besides ``name`` and ``sigma`` arrive here.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
    centers_ : the rows the model expands on (training rows, plus validation rows if refit)
    best_lambda_ : float
        Selected λ (``lam`` without validation data).
    path_ : dict or None
        ``{"lambdas": (L,), "val_rmse": (L,)}`` with validation data, else None.
    """

    multi_output = True

    def __init__(
        self,
        kernel: str = "gaussian",
        sigma: float | str = "median",
        fit_intercept: bool = True,
        validation_fraction: float | None = None,
        lam: float = 1e-6,
        lambdas: Any = None,
        refit: bool = False,
        dtype: str = "float64",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        kernel_params: dict[str, Any] | None = None,
        device: str = "cpu",
        path_method: str = "auto",
        max_memory: int | None = None,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.fit_intercept = fit_intercept
        self.validation_fraction = validation_fraction
        self.lam = lam
        self.lambdas = lambdas
        self.refit = refit
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.kernel_params = kernel_params
        self.device = device
        self.path_method = path_method
        self.max_memory = max_memory

    def check_params(self) -> None:
        super().check_params()
        check_choice(self.path_method, "path_method", SPECTRAL_METHODS)
        check_positive(self.max_memory, "max_memory", allow_none=True)
        check_on_host(self.path_method, estimator_device(self).is_numpy, self.device)

    def _kernel(self, X: Any) -> Any:
        """``K(X, X)`` in float64, symmetric, on the kernel's device (numpy on ``cpu``)."""
        K = self.kernel_.on_device(X)
        xp = namespace(K)
        return sym_inplace(xp.astype(K, xp.float64, copy=False))

    def _solve(self, X: Any, y: np.ndarray, lam: float) -> np.ndarray:
        check_outputs(self, y)
        device = self.kernel_.device
        return device.to_numpy(_solve_shifted(self._kernel(X), device.asarray(y),
                                              lam * X.shape[0]))

    def _fit_at(self, state: None, X: Any, y: np.ndarray, lam: float) -> None:
        self.alpha_ = self._solve(X, y, lam)
        self.centers_, self.best_lambda_ = X, lam

    def _path(self, state: None, X: Any, y: np.ndarray, X_val: Any, y_val: np.ndarray,
              lambdas: np.ndarray) -> LambdaPath:
        check_outputs(self, y)
        n, device = X.shape[0], self.kernel_.device
        if spectral_method(self.path_method, n, self.max_memory, device.is_numpy,
                           "KRLS") == "tridiagonal":
            alphas = tridiagonal_path_coefs(tridiagonalize(self._kernel(X)), y, lambdas * n)
        else:
            s, U = eigh_inplace(self._kernel(X))  # K's memory holds the eigenvectors
            alphas = eigen_path_coefs(s, U, y, lambdas * n)
            del U
            alphas = device.to_numpy(alphas)  # n × L: the path's record is the host's
        self.centers_ = X
        val_rmse = path_error(self.kernel_, X_val, y_val, X, alphas)
        return LambdaPath(lambdas, val_rmse, lambda j, k: alphas[:, j].copy())

    def _refit(self, state: None, X: Any, y: np.ndarray) -> None:
        self.alpha_ = self._solve(X, y, self.best_lambda_)
        self.centers_ = X


register(AlgorithmSpec(
    name="krls",
    estimator=KRLS,
    title="KRLS",
    order=20,
    schema={"lambdas": LAMBDAS, "path_method": {"enum": list(SPECTRAL_METHODS)}},
    config_defaults=("lambdas",),
    memory=full_kernel_memory,
    summary="α = (K + λnI)⁻¹y for every λ of the grid from one eigendecomposition",
))
