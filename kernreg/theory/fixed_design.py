"""Bach 2013's fixed-design ridge regression model (§4, §5, Appendix D), in closed form.

Design ``x_j = (j − 1)/n`` on ``[0, 1]``, a periodic kernel with Mercer eigenvalues ``μ_i`` and a
signal ``f(x) = Σ_{i≥1} 2 ν_i^(1/2) cos 2πix``; observations ``y = z + ε`` with ``z_j = f(x_j)``
and i.i.d. noise of variance ``σ²``. ``K`` is circulant: its eigenvectors are the discrete
Fourier basis and, by aliasing (Appendix D),

    eigenvalue k:  λ_k = n Σ_{s ≥ 1, s ≡ ±k (mod n)} μ_s,
    coefficient of z on eigenvector k:  c_k = √n Σ_{s ≥ 1, s ≡ ±k (mod n)} ν_s^(1/2),

summed exactly (Hurwitz zeta for ``i^(−p)``, geometric series for ``e^(−ai)``). The in-sample
prediction error of ``ẑ = K(K + nλI)⁻¹y`` is then, with no matrix at all,

    (1/n) E‖ẑ − z‖² = (1/n) Σ_k (nλ/(λ_k + nλ))² c_k²  +  (σ²/n) Σ_k (λ_k/(λ_k + nλ))²
                    =            bias(λ)               +           variance(λ),

exact for every λ however small (no system is solved), and ``d = d_eff = Σ_k λ_k/(λ_k + nλ)``
(the diagonal of a circulant smoother is constant), ``d_ave = Σ_k (λ_k/(λ_k + nλ))²``.
:func:`spectral_risk` gives the same two terms for any smoother known by an eigendecomposition
(a full kernel matrix on a random design, or a column-sampling approximation of it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import zeta

from kernreg._validation import check_int, check_positive
from kernreg.kernels.spline import PeriodicExponentialKernel, PeriodicSplineKernel

__all__ = ["Decay", "FixedDesignModel", "Risk", "spectral_risk"]


@dataclass(frozen=True)
class Decay:
    """A positive sequence ``a_i, i ≥ 1``: ``i^(−rate)`` (``kind="power"``) or ``e^(−rate·i)``
    (``kind="exp"``)."""

    kind: str
    rate: float

    def __post_init__(self) -> None:
        if self.kind not in ("power", "exp"):
            raise ValueError(f"kind must be 'power' or 'exp', got {self.kind!r}")
        check_positive(self.rate, "rate")
        if self.kind == "power" and self.rate <= 1:
            raise ValueError(f"a power decay must be summable: rate > 1, got {self.rate}")

    def __call__(self, i: Any) -> np.ndarray:
        i = np.asarray(i, dtype=np.float64)
        return i ** -self.rate if self.kind == "power" else np.exp(-self.rate * i)

    def aliased(self, n: int) -> np.ndarray:
        """``A_k = Σ_{s≥1, s ≡ ±k (mod n)} a_s`` for ``k = 0 … n−1`` (``k = 0``: both signs)."""
        k = np.arange(1, n, dtype=np.float64)
        out = np.empty(n)
        if self.kind == "power":
            p = self.rate
            out[0] = 2.0 * n ** -p * zeta(p)
            out[1:] = n ** -p * (zeta(p, k / n) + zeta(p, 1.0 - k / n))
        else:
            a = self.rate
            denominator = -math.expm1(-a * n)
            out[0] = 2.0 * math.exp(-a * n) / denominator
            out[1:] = (np.exp(-a * k) + np.exp(-a * (n - k))) / denominator
        return out

    def cosine_series(self, x: Any, terms: int = 4000) -> np.ndarray:
        """``Σ_{i≥1} 2 a_i cos 2πix``: closed form for even integer powers and for ``exp``,
        else the first ``terms`` terms."""
        x = np.asarray(x, dtype=np.float64)
        if self.kind == "exp":
            return PeriodicExponentialKernel(self.rate)._profile(np.mod(x, 1.0))
        if float(self.rate).is_integer() and int(self.rate) % 2 == 0:
            return PeriodicSplineKernel(int(self.rate) // 2)._profile(np.mod(x, 1.0))
        i = np.arange(1, terms + 1, dtype=np.float64)
        out = np.zeros(x.shape)
        for start in range(0, terms, 500):  # bounded memory
            block = i[start:start + 500]
            out += (2.0 * self(block) * np.cos(2 * np.pi * np.multiply.outer(x, block))).sum(-1)
        return out


@dataclass(frozen=True)
class Risk:
    """In-sample prediction error ``bias + variance`` on a λ grid."""

    lambdas: np.ndarray
    bias: np.ndarray
    variance: np.ndarray

    @property
    def total(self) -> np.ndarray:
        return self.bias + self.variance


def spectral_risk(s: Any, U: Any, z: Any, lambdas: Any, noise: float) -> Risk:
    """Bias and variance of the smoother ``U diag(s/(s + nλ)) Uᵀ`` applied to ``y = z + ε``.

    ``U`` (``n × r``, orthonormal columns) and ``s ≥ 0`` describe ``K = U diag(s) Uᵀ``; with
    ``r < n`` (a low-rank approximation) the part of ``z`` outside ``U`` is pure bias.
    """
    s = np.clip(np.asarray(s, dtype=np.float64), 0.0, None)
    U = np.asarray(U, dtype=np.float64)
    z = np.asarray(z, dtype=np.float64)
    lambdas = np.atleast_1d(np.asarray(lambdas, dtype=np.float64))
    n = z.shape[0]
    c = U.T @ z
    outside = float(z @ z - c @ c)  # ‖(I − UUᵀ) z‖²
    shrink = s[:, None] / (s[:, None] + n * lambdas[None, :])
    bias = (outside + ((1.0 - shrink) ** 2 * (c * c)[:, None]).sum(axis=0)) / n
    variance = noise ** 2 * (shrink ** 2).sum(axis=0) / n
    return Risk(lambdas, np.clip(bias, 0.0, None), variance)


@dataclass(frozen=True)
class FixedDesignModel:
    """Bach's §5 model: ``n`` equispaced points, kernel decay ``mu``, signal decay ``nu``
    (``ν_i``, so ``f``'s cosine weights are ``2 ν_i^(1/2)``), noise standard deviation ``noise``.
    """

    n: int
    mu: Decay
    nu: Decay
    noise: float = 1.0

    def __post_init__(self) -> None:
        check_int(self.n, "n", minimum=2)
        check_positive(self.noise, "noise")

    @property
    def sqrt_nu(self) -> Decay:
        """``ν_i^(1/2)``: power rate halved, exponential rate halved."""
        return Decay(self.nu.kind, self.nu.rate / 2.0)

    @cached_property
    def _eigenvalues(self) -> np.ndarray:
        return self.n * self.mu.aliased(self.n)

    @cached_property
    def _coefficients(self) -> np.ndarray:
        return math.sqrt(self.n) * self.sqrt_nu.aliased(self.n)

    def eigenvalues(self) -> np.ndarray:
        """``λ_k`` of the circulant ``K`` for ``k = 0 … n−1`` (the DFT's order)."""
        return self._eigenvalues.copy()

    def coefficients(self) -> np.ndarray:
        """``c_k``, the coordinates of ``z`` on the (unitary) Fourier eigenvectors."""
        return self._coefficients.copy()

    def _chunks(self, lambdas: Any) -> list[np.ndarray]:
        lambdas = np.atleast_1d(np.asarray(lambdas, dtype=np.float64))
        size = max(1, 2_000_000 // self.n)  # bounded (n, chunk) temporaries
        return [lambdas[i:i + size] for i in range(0, lambdas.size, size)]

    def design(self) -> np.ndarray:
        return np.arange(self.n, dtype=np.float64) / self.n

    def risk(self, lambdas: Any) -> Risk:
        ev, c2, n = self._eigenvalues, self._coefficients ** 2, self.n
        bias, variance = [], []
        for lam in self._chunks(lambdas):
            shrink = ev[:, None] / (ev[:, None] + n * lam[None, :])
            # 1 − shrink written as nλ/(λ_k + nλ): exact where shrink rounds to 1
            rest = (n * lam[None, :]) / (ev[:, None] + n * lam[None, :])
            bias.append((rest ** 2 * c2[:, None]).sum(axis=0) / n)
            variance.append(self.noise ** 2 * (shrink ** 2).sum(axis=0) / n)
        return Risk(np.atleast_1d(np.asarray(lambdas, dtype=np.float64)),
                    np.concatenate(bias), np.concatenate(variance))

    def degrees_of_freedom(self, lambdas: Any) -> tuple[np.ndarray, np.ndarray]:
        """``d (= d_eff)`` and ``d_ave`` at each λ."""
        ev, d, d_ave = self._eigenvalues, [], []
        for lam in self._chunks(lambdas):
            shrink = ev[:, None] / (ev[:, None] + self.n * lam[None, :])
            d.append(shrink.sum(axis=0))
            d_ave.append((shrink ** 2).sum(axis=0))
        return np.concatenate(d), np.concatenate(d_ave)

    def best_lambda(self, low: float = 1e-300, high: float = 1e3) -> tuple[float, float]:
        """``(λ*, risk(λ*))``: a log-grid search refined by a bounded scalar minimization in
        ``log λ`` (the risk is smooth and, on these models, unimodal in ``log λ``)."""
        grid = np.logspace(math.log10(low), math.log10(high), 200)
        total = self.risk(grid).total
        j = int(np.argmin(total))
        lo, hi = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
        res = minimize_scalar(lambda t: float(self.risk(10.0 ** t).total[0]),
                              bounds=(math.log10(lo), math.log10(hi)), method="bounded",
                              options={"xatol": 1e-6})
        lam = float(10.0 ** res.x)
        return lam, float(self.risk(lam).total[0])
