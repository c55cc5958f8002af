"""The floor of a timed cell: the least work NKRLS, NYTRO or ES must do, at this host's rates.

A cell's floor is the arithmetic it cannot avoid divided by the host's GEMM rate, plus the bytes
it must move divided by the host's streaming rate, plus — when measured — the n·m exponentials
of its kernel blocks at the host's best exponential rate (all cores, the compiled pass), all
measured in the same run (:meth:`HostRates.measure`). ``time / floor`` says how far a timing is
from what the machine allows — the yardstick of the speed issues. The counts are lower bounds:
triangular solves, BLAS-2 halves of factorizations and cache misses are not counted, so a real
solver can approach but not reach 1. A floor is judged only on a quiet host: :func:`noisy_host`
compares the rates measured before and after a cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernreg.experiment.resources import Stopwatch, exp_rate, gemm_gflops

__all__ = ["NOISY_HOST_TOLERANCE", "HostRates", "es_floor", "kernel_seconds", "nkrls_floor",
           "noisy_host", "nytro_floor"]

#: Relative change of a host rate between the measurements before and after a cell above
#: which the cell's time is not judged (the host was too noisy): 20%.
NOISY_HOST_TOLERANCE = 0.2


@dataclass(frozen=True)
class HostRates:
    """Measured rates of this host under the current BLAS thread limits.

    Attributes
    ----------
    gemm : float
        Floating-point operations per second of a large square GEMM in the cell's dtype.
    stream : float
        Bytes per second of a matrix-vector product over a matrix far larger than the caches
        (one streaming read: what an iteration over a stored ``K_nm`` does).
    exp : float or None
        Exponentials per second on all cores (the compiled path,
        :func:`~kernreg.experiment.resources.exp_rate`); None when not measured.
    """

    gemm: float
    stream: float
    exp: float | None = None

    @classmethod
    def measure(cls, dtype: str = "float64", n: int = 4096, stream_mb: int = 1024,
                repeats: int = 3, *, exp: bool = False, exp_entries: int = 2**24) -> HostRates:
        """Best of ``repeats`` ``n × n`` GEMMs and of ``repeats`` GEMVs over ``stream_mb`` MB,
        and with ``exp`` the best exponential rate (all cores, over ``exp_entries``)."""
        gemm = gemm_gflops(n, repeats, dtype) * 1e9
        rows = stream_mb * 2**20 // (np.dtype(dtype).itemsize * 1024)
        big = np.ones((rows, 1024), dtype=dtype)
        v = np.ones(1024, dtype=dtype)
        big @ v  # warm-up (first touch)
        best = float("inf")
        for _ in range(repeats):
            with Stopwatch() as watch:
                big @ v
            best = min(best, watch.seconds)
        stream = big.nbytes / best
        del big  # free the GB before the exp measurement
        return cls(gemm=gemm, stream=stream,
                   exp=exp_rate(exp_entries, repeats, dtype) if exp else None)


def noisy_host(before: HostRates, after: HostRates,
               tolerance: float = NOISY_HOST_TOLERANCE) -> list[str]:
    """The rates that changed by more than ``tolerance`` between the measurements before and
    after a cell (the larger over the smaller above ``1 + tolerance``), e.g. ``["gemm"]``; an
    empty list when the host was quiet enough to judge the cell's time. A rate missing from
    either measurement (``exp`` None) is not compared."""
    noisy = []
    for name in ("gemm", "stream", "exp"):
        a, b = getattr(before, name), getattr(after, name)
        if a is not None and b is not None and max(a, b) > (1.0 + tolerance) * min(a, b):
            noisy.append(name)
    return noisy


def kernel_seconds(n: int, m: int, d: int, itemsize: int, rates: HostRates) -> float:
    """Evaluating an n × m Gaussian block: the distance GEMM, then one pass that writes the
    block once and takes its n·m exponentials — the slower of the two bounds that pass (the
    exponentials only when ``rates.exp`` was measured; the exp rate is itself measured over a
    block larger than the caches, so the two overlap rather than add)."""
    elementwise = n * m * itemsize / rates.stream
    if rates.exp is not None:
        elementwise = max(elementwise, n * m / rates.exp)
    return 2.0 * n * m * d / rates.gemm + elementwise


def nkrls_floor(n: int, n_val: int, m: int, d: int, n_lambdas: int, itemsize: int,
                rates: HostRates, rates64: HostRates | None = None) -> dict[str, float]:
    """Seconds NKRLS's λ path cannot go below, by part, and their ``total``.

    ``K_nm`` and ``K_vm`` (at ``rates``, the kernel's dtype: :func:`kernel_seconds`); ``AᵀA``
    as one symmetric rank-n update (n·m² flops); ``K_mm``'s Cholesky (m³/3) and the reduction
    to tridiagonal form of the m × m eigenproblem (4m³/3); the validation predictions of every
    λ (2·n_val·m·n_lambdas) — these at ``rates64`` (default ``rates``), since wherever ``R⁻¹``
    enters kernreg stays float64.
    """
    wide = rates64 or rates
    parts = {
        "kernel": kernel_seconds(n + n_val, m, d, itemsize, rates),
        "gram": n * m * m / wide.gemm,
        "factorizations": (m**3 / 3 + 4 * m**3 / 3) / wide.gemm,
        "validation": 2.0 * n_val * m * n_lambdas / wide.gemm,
    }
    parts["total"] = sum(parts.values())
    return parts


def nytro_floor(n: int, n_val: int, m: int, d: int, iterations: int, itemsize: int,
                rates: HostRates, rates64: HostRates | None = None) -> dict[str, float | str]:
    """Seconds NYTRO's validated path of ``iterations`` cannot go below, and their ``total``.

    ``K_nm``, ``K_vm`` and ``K_mm``'s Cholesky, then the cheaper of two plans: stream ``K_nm``
    once per iteration and ``K_vm`` once per ten (``stream``), or reduce both once to m × m
    Gram matrices (n·m² and n_val·m² flops) and stream those (``gram``). The step size's
    Lanczos passes are not counted. ``rates64`` (default ``rates``): the float64 Grams'.
    """
    wide = rates64 or rates
    setup = kernel_seconds(n + n_val, m, d, itemsize, rates) + m**3 / 3 / rates.gemm
    stream = iterations * (n + n_val / 10) * m * itemsize / rates.stream
    gram = ((n + n_val) * m * m / wide.gemm
            + iterations * 2 * m * m * 8 / wide.stream)
    parts = {"setup": setup, "iterations": min(stream, gram),
             "plan": "stream" if stream <= gram else "gram"}
    parts["total"] = setup + parts["iterations"]
    return parts


def es_floor(n: int, n_val: int, d: int, iterations: int, itemsize: int,
             rates: HostRates) -> dict[str, float]:
    """Seconds kernel Landweber (ES) over ``iterations`` validated steps cannot go below.

    The n × n kernel and the n_val × n validation kernel (:func:`kernel_seconds`), then per
    iteration one streaming read of each: ``Kα`` for the step and ``K_vn α`` for the
    validation error (both at least one read of the stored matrix, or their re-evaluation,
    which costs more). The step size's Lanczos passes are not counted.
    """
    parts = {
        "kernel": kernel_seconds(n + n_val, n, d, itemsize, rates),
        "iterations": iterations * (n + n_val) * n * itemsize / rates.stream,
    }
    parts["total"] = sum(parts.values())
    return parts
