"""LIBSVM: the C-support vector machine (hinge loss) through scikit-learn's ``SVC`` (LIBSVM
inside), C selected on the validation rows; the thesis' Table 6.2 baseline."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.svm import SVC

from kernreg._validation import check_choice, check_positive
from kernreg.kernels import DEFAULT_MEMORY_BUDGET
from kernreg.solvers.blocks.classifier import BinaryKernelClassifier
from kernreg.solvers.blocks.fit_inputs import sigma_value
from kernreg.solvers.blocks.stochastic import VALIDATION_MEASURES, column_scorer
from kernreg.solvers.registry import AlgorithmSpec, MemoryProblem, register

__all__ = ["DEFAULT_CS", "LibSVM", "cache_bytes"]

#: C guesses: 10^-2 .. 10^4, two per decade (the thesis does not state the authors' grid).
DEFAULT_CS = np.logspace(-2.0, 4.0, 13)


class LibSVM(BinaryKernelClassifier):
    """C-SVM with the Gaussian kernel ``exp(−‖x − x'‖²/(2σ²))`` (LIBSVM's RBF with
    ``γ = 1/(2σ²)``), trained by LIBSVM's SMO; ``C`` by hold-out over ``Cs``.

    A binary classifier of any two labels (``classes_[1]`` fitted as +1):
    ``decision_function(X) = K(X, support vectors) @ dual_coef + b`` is the real-valued SVM
    output, positive for ``classes_[1]`` (a trial's hinge loss and classification error are the
    SVM's own); ``predict`` gives the labels. Dense or CSR input (the support vectors are then
    CSR). Without validation data ``C`` is the first of ``Cs`` when given, else LIBSVM's
    default 1.

    Parameters
    ----------
    kernel : {"gaussian"}, default "gaussian"
    sigma : float or "median", default "median"
        Kernel bandwidth; ``"median"``: the median distance between training rows (``sigma_``).
    Cs : array-like, optional
        Guesses of C (default :data:`DEFAULT_CS`).
    validation_measure : {"error", "hinge"}, default "error"
        What selects C.
    tol : float, default 1e-3
        LIBSVM's stopping tolerance (its default).
    dtype, memory_budget
        ``memory_budget``: LIBSVM's kernel cache when no ``max_memory`` is given.
    max_memory : int, optional
        Bytes the run may take: LIBSVM's kernel cache gets half of it, at most the
        ``4 n²`` bytes of the whole float32 kernel it caches. A cache that holds the kernel
        spares SMO its re-evaluations, which is what makes large C slow (more iterations over
        the same columns).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels, sorted.
    alpha_ : ndarray (the support vectors' ``y_i α_i``)
    centers_ : the support vectors (CSR for CSR input)
    intercept_ : float
    best_param_ : float
        The selected C.
    path_ : dict or None
        ``{"values": Cs, "val_rmse": validation measure per C}``.
    cache_mb_ : float
        LIBSVM's kernel cache in MB.
    """

    path_parameter = "C"

    def __init__(self, kernel: str = "gaussian", sigma: float | str = "median", Cs: Any = None,
                 validation_measure: str = "error", tol: float = 1e-3, dtype: str = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET, max_memory: int | None = None):
        self.kernel = kernel
        self.sigma = sigma
        self.Cs = Cs
        self.validation_measure = validation_measure
        self.tol = tol
        self.dtype = dtype
        self.memory_budget = memory_budget
        self.max_memory = max_memory

    def check_params(self) -> None:
        super().check_params()
        check_choice(self.kernel, "kernel", ("gaussian",))
        check_choice(self.validation_measure, "validation_measure", VALIDATION_MEASURES)
        check_positive(self.tol, "tol")
        check_positive(self.max_memory, "max_memory", allow_none=True)
        self._grid()

    def _grid(self) -> np.ndarray:
        grid = np.atleast_1d(np.asarray(DEFAULT_CS if self.Cs is None else self.Cs,
                                        dtype=np.float64))
        if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
            raise ValueError(f"Cs must be a non-empty list of positive numbers, got {self.Cs!r}")
        return grid

    def _svc(self, C: float, n: int) -> SVC:
        gamma = 1.0 / (2.0 * float(sigma_value(self)) ** 2)
        return SVC(C=C, kernel="rbf", gamma=gamma, tol=self.tol,
                   cache_size=cache_bytes(self.max_memory, self.memory_budget, n) / 2**20)

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> LibSVM:
        """Train one SVM per C (with validation data) and keep the best.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n,)
            Labels of two classes (``classes_[1]`` fitted as +1, the other as −1).
        X_val, y_val : optional validation data (given together; ``y_val`` of ``y``'s classes)

        Returns
        -------
        self
        """
        X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
        if X_val is not None:
            # an SVC trained on CSR rows scores CSR rows only (and one trained dense, dense)
            X_val = sp.csr_matrix(X_val) if sp.issparse(X) else _dense(X_val)
            grid = self._grid()
        else:
            grid = self._grid()[:1] if self.Cs is not None else np.ones(1)
        score = None if X_val is None else column_scorer(self.validation_measure, y_val)
        best, best_score, scores = None, np.inf, []
        for C in grid:
            svc = self._svc(float(C), X.shape[0]).fit(X, y)
            if score is None:
                best = svc
                break
            value = float(score(svc.decision_function(X_val)[:, None])[0])
            scores.append(value)
            if value < best_score:
                best, best_score, self.best_param_ = svc, value, float(C)
        if score is None:
            self.best_param_ = float(grid[0])
            self.path_ = None
        else:
            self.path_ = {"values": grid, "val_rmse": np.asarray(scores)}
        # decision_function(x) = Σ dual_coef_i k(x, sv_i) + intercept_ with sklearn's sign
        # convention: classes_ = [−1, +1], positive output for +1
        self.centers_ = best.support_vectors_
        self.alpha_ = _dense(best.dual_coef_).ravel().astype(np.float64)  # CSR for CSR input
        self.intercept_ = float(best.intercept_[0])
        self.n_support_ = int(best.support_.size)
        self.cache_mb_ = best.cache_size
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """The SVM's real-valued output ``K(X, SV) @ alpha_ + intercept_``: positive for
        ``classes_[1]``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        return super().decision_function(X)  # the kernel expansion plus ``intercept_``

    def _fit_info(self) -> dict[str, Any]:
        return {"n_support": float(self.n_support_), "cache_mb": float(self.cache_mb_)}


def _dense(A: Any) -> np.ndarray:
    """``A`` as a dense array (a sparse matrix densified)."""
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def cache_bytes(max_memory: int | None, memory_budget: int, n: int) -> int:
    """LIBSVM's kernel cache: half of ``max_memory`` (or ``memory_budget`` without it), at most
    the ``4 n²`` bytes of the whole float32 kernel, at least 1 MiB."""
    allowance = memory_budget if max_memory is None else int(max_memory) // 2
    return max(2**20, min(allowance, 4 * n * n))


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    # LIBSVM's kernel cache and its working set, O(n) per C
    cache = cache_bytes(params.get("max_memory") or problem.memory_limit, problem.block_bytes,
                        problem.n_fit)
    return {"LIBSVM kernel cache": cache, "SVM working set": problem.n_fit * 64}


def _check(params: dict[str, Any], kernel: str) -> list[str]:
    if kernel != "gaussian":
        return [f"name: libsvm runs LIBSVM's RBF kernel, i.e. the gaussian kernel, not {kernel}"]
    return []


register(AlgorithmSpec(
    name="libsvm",
    estimator=LibSVM,
    title="LIBSVM",
    order=95,
    schema={"Cs": {"type": "array", "minItems": 1,
                   "items": {"type": "number", "exclusiveMinimum": 0}},
            "validation_measure": {"enum": list(VALIDATION_MEASURES)},
            "tol": {"type": "number", "exclusiveMinimum": 0}},
    config_defaults=("validation_measure", "tol"),
    memory=_memory,
    tasks=("binary",),
    check=_check,
    summary="C-SVM by LIBSVM (scikit-learn's SVC), C chosen on validation error",
))
