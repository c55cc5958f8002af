"""Periodic spline kernels (closed-form spectra) and Bach's fixed-design model (analytic risk)."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg.kernels.spline import (
    PeriodicExponentialKernel,
    PeriodicSplineKernel,
    bernoulli_polynomial,
)
from kernreg.theory import Decay, FixedDesignModel, spectral_risk


def test_bernoulli_polynomials_match_the_textbook_ones() -> None:
    np.testing.assert_allclose(bernoulli_polynomial(2), [1 / 6, -1, 1])
    # B₆ = x⁶ − 3x⁵ + 5/2 x⁴ − 1/2 x² + 1/42 (Bach, Appendix D)
    np.testing.assert_allclose(bernoulli_polynomial(6), [1 / 42, 0, -1 / 2, 0, 5 / 2, -3, 1])
    t = np.linspace(0, 1, 11)
    for degree in (4, 10, 16):
        poly = np.polynomial.polynomial.polyval
        np.testing.assert_allclose(poly(t - 0.5, bernoulli_polynomial(degree, centered=True)),
                                   poly(t, bernoulli_polynomial(degree)), atol=1e-9)


@pytest.mark.parametrize("kernel", [PeriodicSplineKernel(1), PeriodicSplineKernel(2),
                                    PeriodicSplineKernel(4, constant=1.0),
                                    PeriodicExponentialKernel(0.7)], ids=repr)
def test_closed_form_equals_the_cosine_series(kernel) -> None:
    t = np.linspace(0.0, 0.999, 37)
    i = np.arange(1, 200001, dtype=np.float64)
    series = kernel.constant + (2 * kernel.spectrum(i)[None, :]
                                * np.cos(2 * np.pi * np.outer(t, i))).sum(axis=1)
    tol = 2e-5 if getattr(kernel, "beta", 2) == 1 else 1e-10  # β = 1: the series' tail 1/N
    np.testing.assert_allclose(kernel(t[:, None], np.zeros((1, 1)))[:, 0], series, atol=tol)
    np.testing.assert_allclose(kernel.diag(t[:, None]), kernel(np.zeros((1, 1)))[0, 0])


@pytest.mark.parametrize("mu", [Decay("power", 2.0), Decay("power", 8.0), Decay("exp", 0.5)],
                         ids=repr)
def test_closed_form_spectrum_equals_the_circulant_eigenvalues(mu: Decay) -> None:
    n = 64
    model = FixedDesignModel(n, mu, Decay("power", 4.0))
    x = model.design()[:, None]
    kernel = (PeriodicSplineKernel(int(mu.rate) // 2) if mu.kind == "power"
              else PeriodicExponentialKernel(mu.rate))
    K = kernel(x)
    fft = np.fft.fft(K[:, 0]).real  # a circulant's eigenvalues: the DFT of its first column
    np.testing.assert_allclose(model.eigenvalues(), fft, rtol=1e-9, atol=1e-12 * fft.max())
    np.testing.assert_allclose(np.sort(model.eigenvalues()), np.linalg.eigvalsh(K),
                               atol=1e-10 * fft.max())
    z = model.sqrt_nu.cosine_series(x[:, 0])
    np.testing.assert_allclose(model.coefficients(), np.fft.fft(z).real / np.sqrt(n),
                               atol=1e-10)


def test_analytic_risk_matches_monte_carlo_of_the_actual_estimator() -> None:
    n, noise, lam = 48, 0.5, 1e-3
    model = FixedDesignModel(n, Decay("power", 2.0), Decay("power", 4.0), noise=noise)
    x = model.design()[:, None]
    K = PeriodicSplineKernel(1)(x)
    z = model.sqrt_nu.cosine_series(x[:, 0])
    smoother = np.linalg.solve(K + n * lam * np.eye(n), K).T
    rng = np.random.default_rng(0)
    eps = noise * rng.standard_normal((20000, n))
    errors = (((z + eps) @ smoother.T - z) ** 2).mean(axis=1)
    risk = model.risk(lam)
    se = errors.std() / np.sqrt(errors.size)
    assert abs(errors.mean() - risk.total[0]) < 4 * se
    assert se < 0.01 * risk.total[0]  # the Monte Carlo is precise enough to mean something
    # the same two terms from an eigendecomposition (the route of random designs)
    s, U = np.linalg.eigh(K)
    other = spectral_risk(s, U, z, [lam], noise)
    assert other.bias[0] == pytest.approx(risk.bias[0], rel=1e-8)
    assert other.variance[0] == pytest.approx(risk.variance[0], rel=1e-8)


def test_best_lambda_minimizes_the_risk_and_dof_bounds_hold() -> None:
    model = FixedDesignModel(512, Decay("power", 2.0), Decay("power", 16.0), noise=1.0)
    lam, best = model.best_lambda()
    grid = np.logspace(-12, 0, 2000)
    assert best <= model.risk(grid).total.min() * (1 + 1e-6)
    d, d_ave = model.degrees_of_freedom(lam)
    assert d_ave[0] <= d[0] <= 512
    # Bach's Table 1, row 1 (β = 1, δ = 8): λ* ≈ n^(−2/5): quadrupling n divides λ* by ~1.74
    lam4, _ = FixedDesignModel(2048, Decay("power", 2.0), Decay("power", 16.0)).best_lambda()
    assert 1.5 < lam / lam4 < 2.0


def test_bad_decays_are_refused() -> None:
    with pytest.raises(ValueError, match="summable"):
        Decay("power", 1.0)
    with pytest.raises(ValueError, match="kind"):
        Decay("poly", 2.0)
    with pytest.raises(ValueError, match="one column"):
        PeriodicSplineKernel(1)(np.zeros((3, 2)))


def test_spline_rf_excess_risks_match_monte_carlo_of_the_estimators() -> None:
    from kernreg.theory.spline_rf import SplineRFModel

    model = SplineRFModel(7 / 8, 1 / 4, noise=0.3)
    rng = np.random.default_rng(1)
    n, lam, draws = 60, 1e-3, 4000
    x, omegas = rng.uniform(size=n), rng.uniform(size=12)
    grid = (np.arange(2048) + 0.5) / 2048  # periodic integrand: the midpoint rule is spectral
    f_grid, z = model.target(grid), model.target(x)
    Y = z + model.noise * rng.standard_normal((draws, n))
    # KRLS with the kernel Λ_{2q}, evaluated directly
    K = model.kernel()
    alpha = np.linalg.solve(K(x[:, None]) + n * lam * np.eye(n), Y.T)  # (n, draws)
    errors = ((K(grid[:, None], x[:, None]) @ alpha - f_grid[:, None]) ** 2).mean(axis=0)
    exact = model.krls_risk(x, [lam])[0]
    assert abs(errors.mean() - exact) < 4 * errors.std() / np.sqrt(draws)
    # RF-KRLS with the 12 features ψ(ω_j, ·)/√m
    psi = model.feature_map()
    Z, Zg = psi(x[:, None], omegas[:, None]) / np.sqrt(12), psi(grid[:, None],
                                                                 omegas[:, None]) / np.sqrt(12)
    w = np.linalg.solve(Z.T @ Z + n * lam * np.eye(12), Z.T @ Y.T)
    errors = ((Zg @ w - f_grid[:, None]) ** 2).mean(axis=0)
    exact = model.rf_risk(x, omegas, lam, [12])[0]
    assert abs(errors.mean() - exact) < 4 * errors.std() / np.sqrt(draws)
    assert model.rf_risk(x, omegas, lam, [3])[0] > exact  # fewer features, worse here


def test_spline_rf_truncated_features_risk_is_the_direct_formula_and_near_the_exact_one() -> None:
    from scipy.special import zeta

    from kernreg.theory.spline_rf import SplineRFModel

    model = SplineRFModel(7 / 8, 1 / 4, noise=0.5)
    rng = np.random.default_rng(3)
    n, lam, modes = 300, 2e-3, 20
    x, omegas = rng.uniform(size=n), rng.uniform(size=90)
    ms = [1, 2, 7, 30, 90]
    fast = model.rf_risk_truncated(x, omegas, lam, ms, modes=modes)
    # direct: features truncated to `modes` frequencies, Z = Φ_x C, risk from the m × m system
    k = np.arange(1, modes + 1)

    def basis(p: np.ndarray) -> np.ndarray:
        a = 2 * np.pi * np.outer(p, k)
        return np.hstack([np.ones((p.size, 1)), np.sqrt(2) * np.cos(a), np.sqrt(2) * np.sin(a)])

    w = np.concatenate([[1.0], k ** -2.0, k ** -2.0])
    C = w[:, None] * basis(omegas).T
    Z, z = basis(x) @ C, model.target(x)
    t = np.concatenate([[1.0], k ** -model.a, k ** -model.a]) * basis(np.zeros(1))[0]
    for m, value in zip(ms, fast, strict=True):
        smoother = C[:, :m] @ np.linalg.solve(Z[:, :m].T @ Z[:, :m] / m + n * lam * np.eye(m),
                                              Z[:, :m].T) / m  # coordinates of f̂ per y
        direct = (np.sum((smoother @ z - t) ** 2) + 2 * zeta(2 * model.a, modes + 1)
                  + model.noise ** 2 * np.sum(smoother ** 2))
        assert value == pytest.approx(direct, rel=1e-9)
    # the frequencies cut change the risk of the exact features little (the figure's budget)
    exact = model.rf_risk(x, omegas, lam, ms)
    near = model.rf_risk_truncated(x, omegas, lam, ms, modes=96)
    assert np.max(np.abs(near / exact - 1)) < 2e-3
    assert np.max(np.abs(fast / exact - 1)) > np.max(np.abs(near / exact - 1))
