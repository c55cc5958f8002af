"""Nyström setup shared by NKRLS and NYTRO: centers, ``K_mm`` and its Cholesky factor."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np

from kernreg._validation import check_choice, check_random_state
from kernreg.kernels import Kernel
from kernreg.solvers.blocks.centers import get_sampler
from kernreg.solvers.blocks.distinct import merged_rows
from kernreg.solvers.blocks.linalg import NystromFactor, lanczos_top_eigenvalue, nystrom_factor

__all__ = ["PENALTIES", "NystromSetup", "check_epsilon", "nystrom_products", "nystrom_setup",
           "rounding_floor"]

#: The ridge term of the λ-path Nyström solvers: ``λn·K_mm`` (the papers' estimator) or
#: ``λn·I`` (the code behind LiM Table 1, see :func:`nystrom_setup`).
PENALTIES = ("kmm", "identity")


def check_epsilon(epsilon: Any) -> float:
    """ε must be a finite number >= 0."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if not np.isfinite(epsilon) or epsilon < 0:
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    return float(epsilon)


@dataclass(frozen=True)
class NystromSetup:
    """Centers and the factor ``RᵀR = K_mm + εI``."""

    indices: np.ndarray
    centers: Any
    factor: NystromFactor


def nystrom_setup(
    X: Any, m: int, kernel: Kernel, *, sampler: Any, random_state: Any, epsilon: float,
    penalty: str = "kmm",
) -> NystromSetup:
    """Draw ``m`` centers from the rows of ``X`` and factor ``K_mm + εI``.

    ``random_state`` (None, int seed or Generator) drives the sampler. With
    ``penalty="identity"`` the factor is ``R = I`` instead: ``A = K_nm`` and the λ-path
    solvers solve ``(K_nmᵀK_nm + λnI)α = K_nmᵀy``, ridge regression on the features
    ``K(x, C)`` — what the authors' incremental Nyström code computed for LiM Table 1
    (Enitor ``nystromUniformIncremental.m``, 2015: ``inv(A'*A + λ*eye)`` with ``A = K_nm/√n``),
    not the papers' ``λn·K_mm`` penalty.
    """
    check_choice(penalty, "penalty", PENALTIES)
    rng = check_random_state(random_state)
    idx = get_sampler(sampler).select(X, m, rng, kernel)
    C = X[idx]
    if penalty == "identity":
        return NystromSetup(idx, C, NystromFactor(np.eye(m, order="F"), 0.0, 0.0, 0))
    # K_mm in the kernel's dtype, so that it equals the centers' rows of K_nm: R⁻¹ maps them
    # back to Rᵀ. A float64 K_mm beside a float32 K_nm lets R⁻¹ magnify K_nm's rounding by up
    # to 1/√ε (7% off in the step size, tests/test_solver_equivalence.py).
    K_mm = np.asarray(kernel(C), dtype=np.float64)
    factor = nystrom_factor(K_mm, check_epsilon(epsilon), floor=rounding_floor(K_mm, kernel, C))
    # the solves with R run where the kernel's products do
    return NystromSetup(idx, C, replace(factor, device=kernel.device))


def rounding_floor(K_mm: np.ndarray, kernel: Kernel, C: Any) -> float:
    """The smallest ε for which ``K_mm + εI`` (``K_mm`` evaluated in the kernel's dtype) is
    surely positive definite: twice ``‖K_mm − K_mm^(float64)‖₂``, the size of its rounding.

    A float32 ``K_mm`` is indefinite at its rounding level, which grows with the data's norms
    (through ``‖x‖² + ‖y‖² − 2xᵀy``): on Covertype (d = 54, m = 10000) Cholesky failed at
    ε = 1.2e-7 (float32's eps), 1.2e-6 and 1.2e-5, each failed attempt costing 4 s. One float64
    evaluation of ``K_mm`` and a few Lanczos products measure it instead. For a float64 kernel
    the floor is its eps times the largest diagonal entry.
    """
    eps = float(np.finfo(kernel.dtype).eps * np.max(np.diag(K_mm), initial=0.0))
    if kernel.dtype == np.float64:
        return eps
    E = K_mm - np.asarray(kernel.with_dtype(np.float64)(C))
    square_norm, _ = lanczos_top_eigenvalue(lambda V: E @ (E @ V), E.shape[0], tol=1e-4)
    return max(eps, 2.0 * float(np.sqrt(max(square_norm, 0.0))))


def nystrom_products(
    kernel: Kernel, X: Any, C: Any, y: np.ndarray, factor: NystromFactor
) -> tuple[np.ndarray, np.ndarray]:
    """``(AᵀA, Aᵀy)`` with ``A = K(X, C) R⁻¹``, from row blocks ``A_b = K_b R⁻¹``.

    The triangular solve per block costs about as much as the block's ``AᵀA`` update, but keeps
    ``AᵀA`` accurate to its own rounding: the cheaper ``R⁻ᵀ(K_nmᵀK_nm)R⁻¹`` loses up to a
    factor ``1/ε`` and gave eigenvalues of -0.05 (against λn ≈ 1e-3) on ijcnn1 at m = 5000.
    Repeated rows of ``X`` are merged first (:func:`~kernreg.solvers.blocks.distinct.merged_rows`:
    the same sums over u distinct rows instead of n).
    """
    # repeated rows enter once, weighted (AᵀA = Σ_i a_i a_iᵀ over the rows: Adult repeats 21%)
    X, y, scale = merged_rows(X, y)
    H, Aty = kernel.gram_products(X, C, y, right=factor.right_solve, row_scale=scale)
    return H, cast(np.ndarray, Aty)  # not None: y was given
