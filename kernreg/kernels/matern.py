"""The Matérn kernels of smoothness ν and length scale σ.

``k(r) = 2^(1−ν)/Γ(ν) · (√(2ν) r/σ)^ν · K_ν(√(2ν) r/σ)`` with ``r = ‖x − x'‖``; the half-integer
ν = 1/2, 3/2, 5/2 have closed forms (``exp(−r/σ)``, ``(1 + √3 r/σ) exp(−√3 r/σ)``,
``(1 + √5 r/σ + 5r²/(3σ²)) exp(−√5 r/σ)``), any other ν > 0 goes through the modified Bessel
function ``scipy.special.kv``. Equal to ``sklearn.gaussian_process.kernels.Matern(length_scale=σ,
nu=ν)``.

Registered as ``matern`` (parameters σ and ν) and, because the built-in estimators build their
kernel from its name and σ only, as ``matern12``, ``matern32`` and ``matern52`` (ν fixed).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import gamma, kv

from kernreg._validation import check_positive
from kernreg.kernels.base import DEFAULT_MEMORY_BUDGET, Data, DistanceKernel, cross, row_sq_norms
from kernreg.kernels.compiled import LAPLACIAN, MATERN32, MATERN52, distance_exp
from kernreg.kernels.registry import POSITIVE, KernelSpec, register

__all__ = ["Matern12Kernel", "Matern32Kernel", "Matern52Kernel", "MaternKernel"]


class MaternKernel(DistanceKernel):
    """Matérn kernel of smoothness ``nu`` and length scale σ.

    Parameters
    ----------
    sigma : float, default 1.0
        Length scale σ > 0 (scikit-learn's ``length_scale``).
    nu : float, default 1.5
        Smoothness ν > 0: 0.5 is the Laplacian ``exp(−r/σ)``, ν → ∞ the Gaussian.
    dtype, memory_budget
        See :class:`~kernreg.kernels.base.Kernel`.

    Notes
    -----
    Distances come from the GEMM expansion of ``‖x − x'‖²``, whose rounding ``~eps·‖x‖²`` the
    square root turns into ``~√eps·‖x‖`` near ``r = 0``; as for the Laplacian kernel, squared
    distances at that noise level are set to 0, so coincident points get exactly ``k = 1``.
    """

    name = "matern"

    def __init__(self, sigma: float = 1.0, nu: float = 1.5, *, dtype: Any = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET):
        super().__init__(sigma, dtype=dtype, memory_budget=memory_budget)
        self.nu = check_positive(nu, "nu")

    def _fill(self, Xb: Data, Y: Data, aux: np.ndarray, out: np.ndarray) -> np.ndarray:
        xx = row_sq_norms(Xb)
        noise = 4.0 * np.finfo(self.dtype).eps * (xx.max(initial=0.0) + aux.max(initial=0.0))
        profile = _PROFILES.get(self.nu)
        if profile is not None:
            # the half-integer ν: cross products by BLAS, then one pass for the expansion, the
            # noise cut, √ and the polynomial times the exponential (kernreg.kernels.compiled;
            # its numpy fallback takes the steps of the general ν below, in the same order)
            cross(Xb, Y, out)
            return distance_exp(out, xx, aux, profile, np.sqrt(2.0 * self.nu) / self.sigma,
                                noise)
        self._sq_dist(Xb, Y, aux, out, xx)
        out[out <= noise] = 0.0
        np.sqrt(out, out=out)
        out *= np.sqrt(2.0 * self.nu) / self.sigma  # t = √(2ν) r/σ
        return _matern_of_t(out, self.nu)

    def _fill_xp(self, xp: Any, Xb: Any, Y: Any, aux: Any) -> Any:
        # a ν without a closed form never gets here: Kernel.to refuses it (check_device)
        t = self._distances_xp(xp, Xb, Y, aux) * (np.sqrt(2.0 * self.nu) / self.sigma)
        poly = _POLYNOMIALS[self.nu]
        return poly(t) * xp.exp(-t)

    def check_device(self) -> None:
        # the Bessel function of a general ν (scipy.special.kv) has no array-API counterpart
        if self.nu not in _POLYNOMIALS:
            raise ValueError(f"kernel {self.name!r} with nu={self.nu} has no device path (only "
                             "nu = 0.5, 1.5, 2.5 do); it runs on device cpu")

    def _params(self) -> dict[str, Any]:
        return {"nu": self.nu, **super()._params()}


#: The closed-form ν: the polynomial in ``t = √(2ν) r/σ`` that multiplies ``exp(−t)``.
_POLYNOMIALS = {0.5: lambda t: 1.0, 1.5: lambda t: 1.0 + t,
                2.5: lambda t: 1.0 + t + t * t / 3.0}

#: The profiles of :func:`~kernreg.kernels.compiled.distance_exp` for the closed-form ν.
_PROFILES = {0.5: LAPLACIAN, 1.5: MATERN32, 2.5: MATERN52}


def _matern_of_t(t: np.ndarray, nu: float) -> np.ndarray:
    """``2^(1−ν)/Γ(ν) t^ν K_ν(t)`` in place (t ≥ 0; 1 at t = 0), through the Bessel function
    (the closed-form ν go through :data:`_PROFILES`)."""
    zero = t == 0.0
    t[zero] = 1.0  # kv is infinite at 0; the limit is set below
    val = (2.0 ** (1.0 - nu) / gamma(nu)) * t**nu * kv(nu, t)
    # far away t^ν K_ν(t) underflows to 0·inf = nan where the kernel is 0
    val[~np.isfinite(val)] = 0.0
    val[zero] = 1.0
    t[...] = val
    return t


class Matern12Kernel(MaternKernel):
    """Matérn kernel with ν = 1/2, ``exp(−r/σ)`` (see :class:`MaternKernel`)."""

    name = "matern12"

    def __init__(self, sigma: float = 1.0, *, dtype: Any = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET):
        super().__init__(sigma, 0.5, dtype=dtype, memory_budget=memory_budget)


class Matern32Kernel(MaternKernel):
    """Matérn kernel with ν = 3/2, ``(1 + √3 r/σ) exp(−√3 r/σ)`` (see :class:`MaternKernel`)."""

    name = "matern32"

    def __init__(self, sigma: float = 1.0, *, dtype: Any = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET):
        super().__init__(sigma, 1.5, dtype=dtype, memory_budget=memory_budget)


class Matern52Kernel(MaternKernel):
    """Matérn kernel with ν = 5/2 (see :class:`MaternKernel`)."""

    name = "matern52"

    def __init__(self, sigma: float = 1.0, *, dtype: Any = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET):
        super().__init__(sigma, 2.5, dtype=dtype, memory_budget=memory_budget)


register(KernelSpec(
    name="matern",
    kernel=MaternKernel,
    schema={"sigma": POSITIVE, "nu": POSITIVE},
    defaults={"nu": 1.5},
    summary="Matérn kernel of smoothness ν (default 3/2) and length scale σ",
))
for _cls, _nu in ((Matern12Kernel, "1/2"), (Matern32Kernel, "3/2"), (Matern52Kernel, "5/2")):
    register(KernelSpec(
        name=_cls.name,
        kernel=_cls,
        schema={"sigma": POSITIVE},
        summary=f"Matérn kernel with ν = {_nu} and length scale σ (for estimators that take "
                "σ only)",
    ))
