"""Regime advisor: where a dataset sits on the NYTRO paper's Figure 1 map, and which solver the
map says is fastest.

The map has the signal-to-noise ratio ``SNR ≈ 1/λ*`` on one axis and the degrees of freedom
``d`` on the other, split by two curves:

- ``c1(SNR) = n / |log(n·SNR)|`` separates subsampling (below) from the exact methods (above):
  above it the number of Nyström centers the theory asks for, ``m ≈ d·log(n·SNR)`` (LiM
  Theorem 1 with ``λ = 1/SNR``), reaches ``n``.
- ``c2(SNR) = SNR / |log SNR|`` separates the iterative methods (above) from Tikhonov (below),
  on both sides of ``c1``: NYTRO (``O(n·m·t)``, ``t ≈ SNR``) beats NKRLS (``O(n·m²)``) when
  ``t < m``, i.e. ``d > c2(SNR)``, and early stopping beats KRLS likewise.

So, as in the paper's Figure 1 (§3.3): NYTRO below ``c1`` and above ``c2`` — all of
``SNR ≲ 1`` away from the peak of ``c2`` at ``SNR = 1``; NKRLS below both; early stopping above
both; KRLS above ``c1`` and below ``c2`` (near ``SNR ≈ 1`` with ``d`` close to ``n``).

The estimates come from the data: ``λ*`` from a quick NKRLS validation path (hold-out split, as
in ``kernreg run``), ``d_eff(λ) = Tr(K(K+λnI)⁻¹)`` and ``d̃(λ) = n·max_i (K(K+λnI)⁻¹)_ii`` from
one eigendecomposition of the kernel matrix of a uniform subsample (both estimate the
population quantities, ``Σ_i μ_i/(μ_i + λ)`` and its worst-case counterpart, and are capped by
the subsample size).

The map's ``t ≈ SNR`` is the theory's iteration count. The advisor also measures it: the
iterations NYTRO, on the same split and centers, needs to reach the NKRLS path's best
validation RMSE; the prediction with that ``t`` in place of SNR is reported beside the map's.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from kernreg._validation import check_positive, check_random_state
from kernreg.kernels import Kernel

__all__ = [
    "REGIMES",
    "Advice",
    "c1_curve",
    "c2_curve",
    "degrees_of_freedom",
    "estimate_regime",
    "flat_path_lambda",
    "iterations_to_reach",
    "predict_fastest",
    "useful_sigma_range",
]

#: The four solvers of the map, in the order of the paper's table.
REGIMES = ("krls", "es", "nkrls", "nytro")


def c1_curve(snr: Any, n: int) -> np.ndarray:
    """``n / |log(n·SNR)|``: above it Nyström needs about ``n`` centers."""
    snr = np.asarray(snr, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return n / np.abs(np.log(n * snr))


def c2_curve(snr: Any) -> np.ndarray:
    """``SNR / |log SNR|``: above it NYTRO's ``t ≈ SNR`` iterations cost less than NKRLS's
    ``m ≈ d·|log SNR|`` extra factor."""
    snr = np.asarray(snr, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return snr / np.abs(np.log(snr))


def predict_fastest(snr: Any, dof: Any, n: int) -> np.ndarray:
    """The map's fastest solver (a name of :data:`REGIMES`) at each ``(SNR, d)``."""
    snr, dof = np.broadcast_arrays(np.asarray(snr, float), np.asarray(dof, float))
    exact = dof >= c1_curve(snr, n)
    iterative = dof >= c2_curve(snr)
    return np.where(exact, np.where(iterative, "es", "krls"),
                    np.where(iterative, "nytro", "nkrls")).astype(object)


def degrees_of_freedom(K: np.ndarray, lambdas: Any) -> tuple[np.ndarray, np.ndarray]:
    """``d_eff(λ) = Tr(K(K+λnI)⁻¹)`` and ``d̃(λ) = n·max_i (K(K+λnI)⁻¹)_ii`` for every λ.

    One eigendecomposition ``K = V diag(s) Vᵀ`` serves the whole grid:
    ``(K(K+λnI)⁻¹)_ii = Σ_j V_ij² s_j / (s_j + λn)``.
    """
    n = K.shape[0]
    lambdas = np.atleast_1d(np.asarray(lambdas, dtype=np.float64))
    s, V = la.eigh((K + K.T) / 2.0, check_finite=False, driver="evd")
    s = np.clip(s, 0.0, None)  # rounding leaves tiny negative eigenvalues of a PSD matrix
    weights = s[:, None] / (s[:, None] + lambdas[None, :] * n)  # (n, L)
    d_eff = weights.sum(axis=0)
    d_max = n * ((V * V) @ weights).max(axis=0)
    return d_eff, d_max


def iterations_to_reach(val_rmse: np.ndarray, target: float) -> int | None:
    """The first iteration (1-based) whose validation RMSE is ≤ ``target``, else ``None``."""
    hit = np.flatnonzero(np.asarray(val_rmse, dtype=np.float64) <= target)
    return int(hit[0]) + 1 if hit.size else None


def flat_path_lambda(lambdas: np.ndarray, val_rmse: np.ndarray, tolerance: float) -> float:
    """The largest λ whose validation RMSE is within ``tolerance`` (relative) of the best.

    With m centers the path is flat below some λ (the subsampling already regularizes), and
    the arg-min inside that flat part is set by noise; the largest λ that is as good marks the
    regularization the data need.
    """
    lambdas = np.asarray(lambdas, dtype=np.float64)
    val = np.asarray(val_rmse, dtype=np.float64)
    ok = np.isfinite(val)
    if not ok.any():
        raise ValueError("the validation path has no finite value")
    good = ok & (val <= (1.0 + tolerance) * np.min(val[ok]))
    return float(lambdas[good].max())


@dataclass
class Advice:
    """What ``kernreg advise`` measured and predicts for one dataset."""

    dataset: str
    n: int
    d: int
    sigma: float
    m: int
    lam_best: float
    lam_star: float
    tolerance: float
    val_rmse: float
    subsample: int
    d_eff: float
    d_max: float
    #: d_eff from a random half of the subsample: how far the estimate still moves with size.
    d_eff_half: float
    #: Iterations NYTRO (same centers) needs to reach the NKRLS path's best validation RMSE
    #: within ``tolerance``; ``None`` when ``max_iter`` is not enough.
    nytro_iterations: int | None
    max_iter: int
    path_seconds: float
    nytro_seconds: float
    dof_seconds: float
    blas_threads: dict[str, int] = field(default_factory=dict)

    @property
    def snr(self) -> float:
        return 1.0 / self.lam_star

    @property
    def c1(self) -> float:
        return float(c1_curve(self.snr, self.n))

    @property
    def c2(self) -> float:
        return float(c2_curve(self.snr))

    @property
    def predicted(self) -> str:
        """The map's fastest solver at (SNR, d_eff)."""
        return str(predict_fastest(self.snr, self.d_eff, self.n))

    @property
    def predicted_worst_case(self) -> str:
        """The map's fastest solver at (SNR, d̃): uniform sampling's worst-case need."""
        return str(predict_fastest(self.snr, self.d_max, self.n))

    @property
    def t_measured(self) -> float:
        """NYTRO's measured iteration count, standing in for the theory's ``t ≈ SNR``; beyond
        ``max_iter`` the theory's value (at least ``max_iter``)."""
        if self.nytro_iterations is not None:
            return float(self.nytro_iterations)
        return max(self.snr, float(self.max_iter))

    @property
    def predicted_measured_t(self) -> str:
        """The map's fastest solver at (t, d_eff), t measured instead of inferred from λ*."""
        return str(predict_fastest(self.t_measured, self.d_eff, self.n))

    @property
    def d_eff_converged(self) -> bool:
        """Doubling the subsample changed ``d_eff`` by less than 10% (or it held every row)."""
        return self.subsample >= self.n or self.d_eff - self.d_eff_half < 0.1 * self.d_eff

    @property
    def saturated(self) -> bool:
        """The subsample cannot resolve ``d̃``: its largest leverage score is ≥ 1/2.

        A point's leverage ``l`` relates to its leave-one-out term ``q`` by ``l = q/(1 + q)``,
        so above 1/2 the subsample value ``size·l`` understates ``size·q`` by over 2× and grows
        with the subsample: the estimate is then a lower bound.
        """
        return self.subsample < self.n and self.d_max >= 0.5 * self.subsample

    def to_dict(self) -> dict[str, Any]:
        """The advice as strict JSON values (``json.dumps(..., allow_nan=False)`` takes them):
        a quantity that is not finite — c1 at ``n·SNR = 1``, c2 at ``SNR = 1``, the poles of
        the map's curves — is ``None``, and ``"undefined"`` maps its name to the reason."""
        out = asdict(self)
        out.update(snr=self.snr, c1=self.c1, c2=self.c2, predicted=self.predicted,
                   predicted_worst_case=self.predicted_worst_case, saturated=self.saturated,
                   d_eff_converged=self.d_eff_converged, t_measured=self.t_measured,
                   predicted_measured_t=self.predicted_measured_t)
        undefined = {}
        for key, value in out.items():
            if isinstance(value, float) and not math.isfinite(value):
                undefined[key] = self._undefined_reason(key, value)
                out[key] = None
        out["undefined"] = undefined
        return out

    def _undefined_reason(self, key: str, value: float) -> str:
        if key == "c1":
            return (f"n/|log(n·SNR)| is {value} at n·SNR = {self.n * self.snr:g}: the "
                    "curve's pole (log(n·SNR) = 0)")
        if key == "c2":
            return (f"SNR/|log SNR| is {value} at SNR = {self.snr:g}: the curve's pole "
                    f"(log SNR = 0; λ* = {self.lam_star:g}, the top of the λ grid when the "
                    "whole NKRLS path is within the tolerance of its best)")
        return f"{key} is {value}, not a finite number"

    def to_text(self) -> str:
        bound = " (a lower bound: the subsample is too small to resolve it)" \
            if self.saturated else ""
        growth = "" if self.d_eff_converged else \
            f" (still growing: {self.d_eff_half:.4g} at half the subsample; a lower bound)"
        reached = (f"reaches the NKRLS validation RMSE (+{100 * self.tolerance:g}%) at "
                   f"t = {self.nytro_iterations}" if self.nytro_iterations is not None else
                   f"does not reach the NKRLS validation RMSE in {self.max_iter} iterations")
        lines = [
            f"dataset {self.dataset}: n = {self.n} fit rows, d = {self.d}, σ = {self.sigma:g}",
            f"NKRLS path (m = {self.m}, 80/20 hold-out, {self.path_seconds:.1f} s): best "
            f"validation RMSE {self.val_rmse:.4g} at λ = {self.lam_best:.3g}; largest λ within "
            f"{100 * self.tolerance:g}%: λ* = {self.lam_star:.3g}",
            f"SNR ≈ 1/λ* = {self.snr:.3g}",
            f"degrees of freedom at λ* (subsample of {self.subsample}, {self.dof_seconds:.1f} s):"
            f" d_eff = {self.d_eff:.4g}{growth}, d̃ = max leverage × size = {self.d_max:.4g}"
            f"{bound}",
            f"map curves at this SNR: c1 = n/|log(n·SNR)| = {_curve_text(self.c1)}, "
            f"c2 = SNR/|log SNR| = {_curve_text(self.c2)}",
            f"predicted fastest: {self.predicted.upper()} (at d_eff); "
            f"{self.predicted_worst_case.upper()} at d̃ (uniform sampling's worst case)",
            f"NYTRO, same centers ({self.nytro_seconds:.1f} s): {reached}",
            self._measured_t_line(),
        ]
        return "\n".join(lines) + "\n"


    def _measured_t_line(self) -> str:
        """The prediction with NYTRO's measured t, or — when NYTRO did not reach the NKRLS
        error within ``max_iter`` — saying that no t was measured and what stands in for it."""
        if self.nytro_iterations is not None:
            return (f"with t measured instead of t ≈ SNR: {self.predicted_measured_t.upper()} "
                    f"(at t = {self.t_measured:.3g}, d_eff)")
        return (f"no t measured (NYTRO did not get there in {self.max_iter} iterations): t ≥ "
                f"{self.max_iter}, at t ≈ max(SNR, {self.max_iter}) = {self.t_measured:.3g}: "
                f"{self.predicted_measured_t.upper()} (d_eff)")


def _curve_text(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else "∞ (the curve's pole)"


#: float64's ε: a kernel value below it vanishes beside the diagonal's 1.
EPS = float(np.finfo(np.float64).eps)


def useful_sigma_range(X: Any, size: int = 3000, rng: Any = None) -> tuple[float, float]:
    """The Gaussian σ for which the kernel matrix of a uniform subsample of ``X`` is neither
    the identity nor constant in float64 arithmetic.

    Below ``low = d_min/√(2 ln(1/ε))`` (about ``d_min/8.5``) every kernel value
    ``exp(−‖x − x'‖²/(2σ²))`` between two distinct rows is under ``ε``: the kernel matrix is
    the identity, a model predicts 0 away from its centers, every λ validates alike and λ*, SNR
    and d_eff say nothing about the data. Above ``high = d_max·√(2/ε)`` every value rounds to
    1 (``‖x − x'‖²/(2σ²) < ε/4``, half the spacing of floats below 1): the kernel matrix is
    constant. ``d_min`` and ``d_max`` are the smallest and largest
    distances between two distinct rows of the subsample.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n, d)
    size : int, default 3000
        Rows drawn uniformly without replacement (all when ``size >= n``).
    rng : int or numpy Generator, optional

    Returns
    -------
    low, high : float
        ``(0, inf)`` when the subsample has fewer than two distinct rows.
    """
    n = X.shape[0]
    size = min(int(check_positive(size, "size")), n)
    idx = np.sort(check_random_state(rng, "rng").choice(n, size=size, replace=False))
    rows = sp.csr_matrix(X[idx], dtype=np.float64) if sp.issparse(X) else \
        np.asarray(X[idx], dtype=np.float64)
    norms = np.asarray(rows.multiply(rows).sum(axis=1)).ravel() if sp.issparse(rows) else \
        np.einsum("ij,ij->i", rows, rows)
    d_min, d_max = np.inf, 0.0
    step = 512  # rows per block: a few MB of distances at a time
    for start in range(0, size, step):
        gram = rows[start:start + step] @ rows.T
        gram = gram.toarray() if sp.issparse(gram) else gram
        sq = norms[start:start + step, None] + norms[None, :] - 2.0 * gram
        # the expansion's rounding: differences at the level of ε·‖x‖² are equal rows
        distinct = sq > 8 * EPS * (norms[start:start + step, None] + norms[None, :])
        if distinct.any():
            d_min = min(d_min, float(np.sqrt(sq[distinct].min())))
            d_max = max(d_max, float(np.sqrt(sq[distinct].max())))
    if not np.isfinite(d_min):
        return 0.0, np.inf
    return d_min / math.sqrt(2.0 * math.log(1.0 / EPS)), d_max * math.sqrt(2.0 / EPS)


def subsample_kernel(X: Any, kernel: Kernel, size: int, rng: Any = None) -> np.ndarray:
    """The float64 kernel matrix of ``size`` rows of ``X`` drawn uniformly without
    replacement (all rows when ``size >= n``)."""
    n = X.shape[0]
    size = min(int(check_positive(size, "subsample")), n)
    idx = np.sort(check_random_state(rng, "rng").choice(n, size=size, replace=False))
    return np.asarray(kernel(X[idx]), dtype=np.float64)


def estimate_regime(X: Any, y: np.ndarray, *, sigma: float, m: int, subsample: int = 3000,
                    tolerance: float = 0.01, seed: int = 0, kernel: str = "gaussian",
                    dataset: str = "", val_fraction: float = 0.2, dtype: str = "float64",
                    max_iter: int = 500) -> Advice:
    """Estimate λ*, d_eff(λ*) and d̃(λ*) of the data ``(X, y)``.

    Parameters
    ----------
    X, y
        Training rows (the test set is not touched).
    sigma, kernel
        The kernel.
    m : int
        Nyström centers of the quick NKRLS path (uniformly drawn; 100 λ in ``[1e-15, 1]``).
    subsample : int
        Rows whose ``subsample × subsample`` kernel matrix gives the degrees of freedom.
    tolerance : float
        Relative validation-RMSE tolerance of :func:`flat_path_lambda`.
    seed : int
        Seeds the hold-out split, the centers and the subsample.
    max_iter : int
        Iterations of the NYTRO path that measures t (the papers' 500 by default).
    """
    from kernreg.experiment.resources import Stopwatch, blas_threads
    from kernreg.kernels import make_kernel
    from kernreg.solvers import NystromKRLS, Nytro, holdout_split

    rng = np.random.default_rng(seed)
    X_fit, y_fit, X_val, y_val = holdout_split(X, y, val_fraction, random_state=rng)
    n = X_fit.shape[0]
    m = min(int(m), n)
    centers_seed = int(rng.integers(2**31))  # the same centers for NKRLS and NYTRO
    model = NystromKRLS(kernel=kernel, sigma=sigma, m=m, random_state=centers_seed,
                        dtype=dtype)
    with Stopwatch() as path_clock:
        model.fit(X_fit, y_fit, X_val, y_val)
    lambdas, val = model.path_["lambdas"], model.path_["val_rmse"]
    lam_star = flat_path_lambda(lambdas, val, tolerance)
    nytro = Nytro(kernel=kernel, sigma=sigma, m=m, max_iter=max_iter, stopping_rule="none",
                  random_state=centers_seed, dtype=dtype)
    with Stopwatch() as nytro_clock:
        nytro.fit(X_fit, y_fit, X_val, y_val)
    t_reach = iterations_to_reach(nytro.path_["val_rmse"], (1 + tolerance) * np.nanmin(val))
    with Stopwatch() as dof_clock:
        K_s = subsample_kernel(X_fit, make_kernel(kernel, sigma), subsample, rng)
        d_eff, d_max = degrees_of_freedom(K_s, [lam_star])
        half = rng.choice(K_s.shape[0], size=max(1, K_s.shape[0] // 2), replace=False)
        d_eff_half, _ = degrees_of_freedom(K_s[np.ix_(half, half)], [lam_star])
    return Advice(
        dataset=dataset, n=n, d=int(X_fit.shape[1]), sigma=float(sigma), m=m,
        lam_best=float(model.best_lambda_), lam_star=lam_star, tolerance=float(tolerance),
        val_rmse=float(np.nanmin(val)), subsample=int(K_s.shape[0]),
        d_eff=float(d_eff[0]), d_max=float(d_max[0]), d_eff_half=float(d_eff_half[0]),
        nytro_iterations=t_reach, max_iter=int(max_iter),
        path_seconds=path_clock.seconds, nytro_seconds=nytro_clock.seconds,
        dof_seconds=dof_clock.seconds,
        blas_threads=blas_threads(),
    )
