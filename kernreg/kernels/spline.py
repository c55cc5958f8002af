"""Periodic kernels on [0, 1] with closed-form spectra (Bach 2013 §5 and Appendix D; Wahba 1990).

``k(x, y) = c₀ + Σ_{i≥1} 2 μ_i cos 2πi(x − y)``: translation invariant and 1-periodic, so on
the uniform distribution its Mercer eigenvalues are exactly ``μ_i`` (each twice, for the cosine
and the sine), plus ``c₀`` for the constant function.

- :class:`PeriodicSplineKernel`, ``μ_i = i^(−2β)`` for an integer ``β ≥ 1``: the periodic
  smoothing spline of order ``β`` (its RKHS is the periodic Sobolev space of ``β`` derivatives).
  In closed form ``Σ_{i≥1} 2 i^(−2β) cos 2πit = (−1)^(β+1) (2π)^(2β) B_{2β}(t) / (2β)!`` on
  ``t ∈ [0, 1)``, with ``B_{2β}`` the Bernoulli polynomial. (Bach's Appendix D writes the
  kernel as ``B_{2β}(t)/(2β)!``; that is this kernel times ``(−1)^(β+1)/(2π)^(2β)``, which has
  the right eigenvectors but is negative definite for even ``β``.) With ``c₀ = 1`` and
  ``q = 2β`` it is the order-``q`` spline kernel ``Λ_q(x, y) = Σ_{k∈ℤ} |k|^(−q) e^{2πik(x−y)}``
  (``|0|^(−q) := 1``) of Rudi & Rosasco's random-feature experiment (thesis §5.4).
- :class:`PeriodicExponentialKernel`, ``μ_i = e^(−ρi)``:
  ``Σ_{i≥1} 2 e^(−ρi) cos 2πit = 2(e^ρ cos 2πt − 1) / (e^(2ρ) − 2e^ρ cos 2πt + 1)``.

Inputs are one-column arrays of points (any real values: the kernels are 1-periodic).

Registered as ``periodic_spline`` (parameters ``beta``, ``constant``) and
``periodic_exponential`` (``rho``, ``constant``): no bandwidth σ. Estimators that take
``kernel_params`` (KRLS, NKRLS) receive a config's values; the others refuse them at config
time.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.special import zeta

from kernreg._validation import check_int, check_positive
from kernreg.kernels.base import DEFAULT_MEMORY_BUDGET, Kernel
from kernreg.kernels.registry import POSITIVE, KernelSpec, register

__all__ = ["PeriodicExponentialKernel", "PeriodicKernel", "PeriodicSplineKernel",
           "bernoulli_polynomial"]


def _bernoulli_numbers(count: int) -> list[Fraction]:
    """``B_0 … B_count`` exactly (``B_1 = −1/2``), by ``Σ_{k<m} C(m+1, k) B_k = −(m+1) B_m``.

    Exact rationals: scipy's floating-point Bernoulli numbers are off by up to 6e-14 (``B_4``),
    which the ``(2π)^(2β)/(2β)!`` scale turns into kernel errors of 1e-9 at ``β = 4``."""
    numbers = [Fraction(1)]
    for m in range(1, count + 1):
        numbers.append(-sum((math.comb(m + 1, k) * numbers[k] for k in range(m)), Fraction(0))
                       / (m + 1))
    return numbers


def bernoulli_polynomial(degree: int, *, centered: bool = False) -> np.ndarray:
    """Coefficients of ``B_degree`` in increasing powers of ``t`` (``B_N(t) = Σ_k C(N, k) B_k
    t^(N−k)``), or of ``u = t − 1/2`` when ``centered`` (then ``B_k`` becomes
    ``B_k(1/2) = (2^(1−k) − 1) B_k``; fewer cancellations on ``[0, 1]``)."""
    degree = check_int(degree, "degree", minimum=0)
    numbers = _bernoulli_numbers(degree)
    if centered:
        numbers = [(Fraction(2) ** (1 - k) - 1) * b for k, b in enumerate(numbers)]
    return np.array([float(math.comb(degree, degree - j) * numbers[degree - j])
                     for j in range(degree + 1)])


class PeriodicKernel(Kernel):
    """Base of the periodic kernels: ``c₀ + g(t)`` with ``t = (x − y) mod 1``.

    Subclasses implement :meth:`_profile` (``g`` on ``[0, 1)``) and :meth:`spectrum`.
    """

    name: ClassVar[str] = ""

    def __init__(self, *, constant: float = 0.0, dtype: Any = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET) -> None:
        super().__init__(dtype=dtype, memory_budget=memory_budget)
        self.constant = float(constant)
        if not math.isfinite(self.constant) or self.constant < 0:
            raise ValueError(f"constant must be a finite number >= 0, got {constant!r}")

    def spectrum(self, i: Any) -> np.ndarray:
        """``μ_i`` for ``i ≥ 1`` (the weight of ``cos 2πi(x − y)`` is ``2μ_i``)."""
        raise NotImplementedError

    def _profile(self, t: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _fill(self, Xb: Any, Y: Any, aux: Any, out: np.ndarray) -> np.ndarray:
        if Xb.shape[1] != 1:
            raise ValueError(f"{type(self).__name__} takes points on [0, 1]: X must have one "
                             f"column, got {Xb.shape[1]}")
        xb = (Xb.toarray() if sp.issparse(Xb) else np.asarray(Xb))[:, 0].astype(np.float64)
        y = (Y.toarray() if sp.issparse(Y) else np.asarray(Y))[:, 0].astype(np.float64)
        t = np.mod(xb[:, None] - y[None, :], 1.0)
        out[...] = self.constant + self._profile(t)
        return out

    def diag(self, X: Any) -> np.ndarray:
        X = X.toarray() if sp.issparse(X) else np.asarray(X)
        return np.full(X.shape[0], self.constant + float(self._profile(np.zeros(1))[0]))

    def _params(self) -> dict[str, Any]:
        return {"constant": self.constant, **super()._params()}


class PeriodicSplineKernel(PeriodicKernel):
    """Periodic spline kernel with ``μ_i = i^(−2β)`` (closed form by a Bernoulli polynomial).

    Parameters
    ----------
    beta : int, default 1
        Smoothness ``β ≥ 1`` (eigenvalue decay ``i^(−2β)``).
    constant : float, default 0
        Weight ``c₀`` of the constant function (``1`` gives the thesis's ``Λ_{2β}``).
    dtype, memory_budget
        See :class:`~kernreg.kernels.Kernel`.
    """

    name = "periodic_spline"

    def __init__(self, beta: int = 1, *, constant: float = 0.0, dtype: Any = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET) -> None:
        super().__init__(constant=constant, dtype=dtype, memory_budget=memory_budget)
        self.beta = check_int(beta, "beta", minimum=1)
        scale = (-1) ** (self.beta + 1) * (2 * math.pi) ** (2 * self.beta) \
            / math.factorial(2 * self.beta)
        self._coef = scale * bernoulli_polynomial(2 * self.beta, centered=True)

    def spectrum(self, i: Any) -> np.ndarray:
        return np.asarray(i, dtype=np.float64) ** (-2.0 * self.beta)

    def _profile(self, t: np.ndarray) -> np.ndarray:
        return np.polynomial.polynomial.polyval(t - 0.5, self._coef)

    def diag(self, X: Any) -> np.ndarray:
        X = X.toarray() if sp.issparse(X) else np.asarray(X)
        return np.full(X.shape[0], self.constant + 2.0 * float(zeta(2.0 * self.beta)))

    def _params(self) -> dict[str, Any]:
        return {"beta": self.beta, **super()._params()}


class PeriodicExponentialKernel(PeriodicKernel):
    """Periodic kernel with ``μ_i = e^(−ρi)`` (Bach 2013, Appendix D).

    Parameters
    ----------
    rho : float, default 1
        Decay rate ``ρ > 0``.
    constant : float, default 0
    dtype, memory_budget
        See :class:`~kernreg.kernels.Kernel`.
    """

    name = "periodic_exponential"

    def __init__(self, rho: float = 1.0, *, constant: float = 0.0, dtype: Any = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET) -> None:
        super().__init__(constant=constant, dtype=dtype, memory_budget=memory_budget)
        self.rho = check_positive(rho, "rho")

    def spectrum(self, i: Any) -> np.ndarray:
        return np.exp(-self.rho * np.asarray(i, dtype=np.float64))

    def _profile(self, t: np.ndarray) -> np.ndarray:
        e, c = math.exp(self.rho), np.cos(2 * np.pi * t)
        return 2.0 * (e * c - 1.0) / (e * e - 2.0 * e * c + 1.0)

    def _params(self) -> dict[str, Any]:
        return {"rho": self.rho, **super()._params()}


#: Schema fragment of the constant mode's weight ``c₀ ≥ 0``.
_CONSTANT: dict[str, Any] = {"type": "number", "minimum": 0}

# no σ: a config sets β (or ρ) and c₀, and only estimators taking ``kernel_params`` get them
register(KernelSpec(
    name="periodic_spline",
    kernel=PeriodicSplineKernel,
    schema={"beta": {"type": "integer", "minimum": 1}, "constant": _CONSTANT},
    defaults={"beta": 1, "constant": 0.0},
    summary="periodic spline on [0, 1] (one input column), eigenvalues i^(−2β) plus c₀ for "
            "the constant; β (default 1) and constant, no σ",
))
register(KernelSpec(
    name="periodic_exponential",
    kernel=PeriodicExponentialKernel,
    schema={"rho": POSITIVE, "constant": _CONSTANT},
    defaults={"rho": 1.0, "constant": 0.0},
    summary="periodic kernel on [0, 1] (one input column), eigenvalues e^(−ρi) plus c₀ for "
            "the constant; ρ (default 1) and constant, no σ",
))
