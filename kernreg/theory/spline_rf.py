"""The random-feature model of the thesis's §5.4 (Rudi & Rosasco's simulation), in closed form.

``X = Ω = [0, 1]``, inputs and features uniform. With ``Λ_q`` the order-``q`` periodic spline
kernel (``Λ_q(x, y) = Σ_{k∈ℤ} |k|^(−q) e^{2πik(x−y)}``, ``|0|^(−q) := 1``; kernreg's
:class:`~kernreg.kernels.spline.PeriodicSplineKernel` with ``β = q/2`` and ``constant = 1``):

- random features ``ψ(ω, x) = Λ_q(ω, x)`` with ``q = 1/(2γ)``, whose kernel is
  ``K = ∫ψ(ω, ·)ψ(ω, ·)dω = Λ_{2q}`` (eigenvalues ``k^(−1/γ)``: effective dimension ``λ^(−γ)``);
- target ``f_ρ = Λ_a(·, x₀)`` with ``a = r/γ + 1/2 + ε`` (source condition of order ``r``);
- ``y = f_ρ(x) + ε``, Gaussian noise of standard deviation ``noise``.

Every estimator here is linear in ``y`` and a finite combination of ``Λ`` functions, whose
coordinates in the orthonormal basis ``1, √2 cos 2πkx, √2 sin 2πkx`` of ``L²[0, 1]`` are known;
the excess risk ``‖f̂ − f_ρ‖²_{L²}`` averaged over the noise is therefore exact:
``‖E f̂ − f_ρ‖² + noise²·‖coordinates of the smoother‖_F²`` (basis truncated at ``M`` modes where
the neglected terms are below ``1e-9`` relative, plus ``f_ρ``'s tail summed exactly).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as la
from scipy.special import zeta

from kernreg.kernels.spline import PeriodicSplineKernel
from kernreg.theory.fixed_design import Decay

__all__ = ["THESIS_FIG5_2_SETTINGS", "SplineRFModel"]

#: The thesis Figure 5.2 settings (r, γ), its rows.
THESIS_FIG5_2_SETTINGS = ((11 / 16, 1 / 8), (7 / 8, 1 / 4))


@dataclass(frozen=True)
class SplineRFModel:
    """Thesis §5.4 model with parameters ``r ∈ [1/2, 1]``, ``γ ∈ (0, 1/2)`` (``1/(2γ)`` an even
    integer, so ``ψ`` has a Bernoulli closed form), ``ε > 0``, ``noise``, ``x₀``."""

    r: float
    gamma: float
    eps: float = 0.05
    noise: float = 0.5
    x0: float = 0.0

    def __post_init__(self) -> None:
        q = 1.0 / (2.0 * self.gamma)
        if not (0 < self.gamma < 0.5) or abs(q - round(q)) > 1e-9 or round(q) % 2:
            raise ValueError(f"1/(2γ) must be an even integer, got γ = {self.gamma}")
        if not 0.5 <= self.r <= 1.0 or self.eps <= 0 or self.noise <= 0:
            raise ValueError("need 1/2 ≤ r ≤ 1, ε > 0 and noise > 0")

    # ------------------------------------------------------------------ the model
    @property
    def q(self) -> int:
        """Order of the feature map's spline, ``1/(2γ)``."""
        return round(1.0 / (2.0 * self.gamma))

    @property
    def a(self) -> float:
        """Order of the target's spline, ``r/γ + 1/2 + ε``."""
        return self.r / self.gamma + 0.5 + self.eps

    @property
    def modes(self) -> int:
        """``M``: beyond it the kernel's eigenvalues ``k^(−2q)`` are below ``1e-9`` (``M ≥ 32``)."""
        return max(32, math.ceil(1e-9 ** (-1.0 / (2 * self.q))))

    def feature_map(self) -> PeriodicSplineKernel:
        return PeriodicSplineKernel(self.q // 2, constant=1.0)

    def kernel(self) -> PeriodicSplineKernel:
        return PeriodicSplineKernel(self.q, constant=1.0)

    def target(self, x: Any) -> np.ndarray:
        """``f_ρ(x) = 1 + Σ_k 2 k^(−a) cos 2πk(x − x₀)``, summed until the tail
        ``≤ 2N^(1−a)/(a − 1)`` is below ``1e-9``."""
        terms = math.ceil((2e9 / (self.a - 1)) ** (1 / (self.a - 1)))
        return 1.0 + Decay("power", self.a).cosine_series(np.asarray(x, float) - self.x0,
                                                          terms=terms)

    def _basis(self, x: np.ndarray) -> np.ndarray:
        """``[1, √2 cos 2πkx, √2 sin 2πkx]_{k ≤ M}`` at the points ``x``: (len(x), 2M + 1)."""
        k = np.arange(1, self.modes + 1)
        arg = 2 * np.pi * np.outer(x, k)
        return np.hstack([np.ones((x.size, 1)), math.sqrt(2) * np.cos(arg),
                          math.sqrt(2) * np.sin(arg)])

    def _weights(self, order: float) -> np.ndarray:
        """``[1, k^(−order), k^(−order)]``: a spline's coordinate weights on the basis."""
        w = np.arange(1, self.modes + 1, dtype=np.float64) ** -order
        return np.concatenate([[1.0], w, w])

    def _target_coordinates(self) -> tuple[np.ndarray, float]:
        """``f_ρ``'s coordinates up to ``M`` and the squared norm of the rest."""
        t = self._weights(self.a) * self._basis(np.array([self.x0]))[0]
        tail = 2.0 * float(zeta(2 * self.a, self.modes + 1))
        return t, tail

    def _risk(self, coords: np.ndarray, uz: np.ndarray, s: np.ndarray, n: int,
              lambdas: np.ndarray) -> np.ndarray:
        """Excess risk of ``f̂ = coords · diag(s/(s² + nλ)) Uᵀ y`` for each λ, with ``Z = U
        diag(s) Wᵀ`` the design's SVD, ``coords`` already multiplied by ``W`` and ``uz = Uᵀz``."""
        t, tail = self._target_coordinates()
        col_norms = (coords * coords).sum(axis=0)
        out = np.empty(lambdas.size)
        for j, lam in enumerate(lambdas):
            g = s / (s * s + n * lam)
            bias = coords @ (g * uz) - t
            out[j] = bias @ bias + tail + self.noise ** 2 * float((g * g) @ col_norms)
        return out

    # ------------------------------------------------------------------ estimators
    def krls_risk(self, x: Any, lambdas: Any) -> np.ndarray:
        """Excess risk of KRLS with ``K = Λ_{2q}`` on the inputs ``x``, for each λ."""
        x = np.asarray(x, dtype=np.float64)
        lambdas = np.atleast_1d(np.asarray(lambdas, dtype=np.float64))
        sqrt_mu = self._weights(self.q)  # K = Φ diag(μ) Φᵀ, μ = k^(−2q): Ψ = Φ diag(√μ)
        Psi = self._basis(x) * sqrt_mu
        ev, W = la.eigh(Psi.T @ Psi, check_finite=False)  # Ψ = U diag(s) Wᵀ, s² = ev
        keep = ev > 1e-13 * float(ev.max())
        s, W = np.sqrt(ev[keep]), W[:, keep]
        uz = (W.T @ (Psi.T @ self.target(x))) / s
        return self._risk(sqrt_mu[:, None] * W, uz, s, x.size, lambdas)

    def rf_risk(self, x: Any, omegas: Any, lam: float, ms: Any) -> np.ndarray:
        """Excess risk of RF-KRLS with the first ``m`` features ``ψ(ω_j, ·)/√m`` at λ, for
        each ``m`` in ``ms``."""
        x = np.asarray(x, dtype=np.float64)
        omegas = np.asarray(omegas, dtype=np.float64)
        Z_all = self.feature_map()(x[:, None], omegas[:, None])
        C_all = self._weights(self.q)[:, None] * self._basis(omegas).T  # (D, m_max)
        # Gram and Zᵀz once; every prefix m is a leading block (scaled by 1/m and 1/√m)
        G, b = Z_all.T @ Z_all, Z_all.T @ self.target(x)
        out = np.empty(len(ms))
        for j, m in enumerate(ms):
            ev, W = la.eigh(G[:m, :m] / m, check_finite=False)
            keep = ev > 1e-13 * max(float(ev.max()), 1e-300)
            s, W = np.sqrt(ev[keep]), W[:, keep]
            uz = (W.T @ b[:m]) / (math.sqrt(m) * s)
            out[j] = self._risk((C_all[:, :m] / math.sqrt(m)) @ W, uz, s, x.size,
                                np.array([lam]))[0]
        return out

    def rf_risk_truncated(self, x: Any, omegas: Any, lam: float, ms: Any,
                          modes: int | None = None) -> np.ndarray:
        """:meth:`rf_risk` with every feature truncated to its first ``modes`` frequencies
        (default :attr:`modes`): the values of :meth:`rf_risk_prefixes` for ``ms``."""
        return np.fromiter(self.rf_risk_prefixes(x, omegas, lam, ms, modes), float, len(ms))

    def rf_risk_prefixes(self, x: Any, omegas: Any, lam: float, ms: Iterable[int],
                         modes: int | None = None) -> Iterator[float]:
        """Excess risk of RF-KRLS at λ with the first ``m`` features, for each increasing ``m``
        in ``ms`` in turn (lazily: a caller may stop early), every feature truncated to its first
        ``modes`` frequencies.

        Truncated, ``Z = Φ_x C`` exactly (``C``: the features' coordinates), so the estimator
        lives in the ``D = 2·modes + 1`` basis coordinates and, by the push-through identity,
        ``f̂ = (P S + nλ)⁻¹ P Φ_xᵀ y`` with ``S = Φ_xᵀΦ_x = LLᵀ`` and ``P = C_m C_mᵀ/m`` (a
        running sum over the features): each prefix costs ``D × D`` products and one solve,
        whatever ``m`` and ``n``, instead of an ``m × m`` eigendecomposition. The frequencies cut
        weigh ``k^(−q)`` in each feature; their effect on the risk is measured against
        :meth:`rf_risk` in ``reproduce/thesis_ch5/thesis_fig5_2.py --check-truncation``."""
        x = np.asarray(x, dtype=np.float64)
        omegas = np.asarray(omegas, dtype=np.float64)
        modes = self.modes if modes is None else int(modes)
        k = np.arange(1, modes + 1, dtype=np.float64)
        w = np.concatenate([[1.0], k ** -self.q, k ** -self.q])

        def basis(points: np.ndarray) -> np.ndarray:
            arg = 2 * np.pi * np.outer(points, k)
            return np.hstack([np.ones((points.size, 1)), math.sqrt(2) * np.cos(arg),
                              math.sqrt(2) * np.sin(arg)])

        B = basis(x)
        S, bz = B.T @ B, B.T @ self.target(x)
        rhs = np.hstack([bz[:, None], la.cholesky(S, lower=True, check_finite=False)])
        t = np.concatenate([[1.0], k ** -self.a, k ** -self.a]) * basis(np.array([self.x0]))[0]
        tail = 2.0 * float(zeta(2 * self.a, modes + 1))
        n, D = x.size, w.size
        CC, done = np.zeros((D, D)), 0
        for m in ms:
            C = w[:, None] * basis(omegas[done:m]).T  # the new features' coordinates
            CC += C @ C.T
            done = m
            P = CC / m
            sol = np.linalg.solve(P @ S + n * lam * np.eye(D), P @ rhs)
            bias = sol[:, 0] - t
            # noise term: ‖H Φ_xᵀ‖_F² = ‖H L‖_F² with H = (PS + nλ)⁻¹P
            yield float(bias @ bias + tail + self.noise ** 2 * np.sum(sol[:, 1:] ** 2))

    # ------------------------------------------------------------------ predictions
    def predicted_exponents(self, alpha: float | None = None) -> dict[str, float]:
        """Theorem 11's exponents in ``n``: λ_n, m_n and the excess risk (α = γ here)."""
        v = min(self.r, 1.0)
        alpha = self.gamma if alpha is None else alpha
        c = alpha + (1 + self.gamma - alpha) * (2 * v - 1)
        return {"lambda": -1.0 / (2 * v + self.gamma), "m": c / (2 * v + self.gamma),
                "risk": -2 * v / (2 * v + self.gamma)}
