"""The floor model of the benchmarks (its counts, its choice of plan, the measured rates) and
the BLAS thread count that follows the load."""

from __future__ import annotations

import math
import os

import pytest

from kernreg.experiment import idle_cores, resolve_blas_threads
from kernreg.experiment.floor import HostRates, nkrls_floor, nytro_floor

RATES = HostRates(gemm=1e11, stream=1e10)


def test_nkrls_floor_counts_kernel_gram_factorizations_and_validation() -> None:
    n, n_val, m, d, lambdas = 1000, 250, 100, 10, 100
    floor = nkrls_floor(n, n_val, m, d, lambdas, 8, RATES)
    assert floor["kernel"] == pytest.approx(2 * 1250 * 100 * 10 / 1e11 + 1250 * 100 * 8 / 1e10)
    assert floor["gram"] == pytest.approx(1000 * 100**2 / 1e11)
    assert floor["factorizations"] == pytest.approx((1 / 3 + 4 / 3) * 100**3 / 1e11)
    assert floor["validation"] == pytest.approx(2 * 250 * 100 * 100 / 1e11)
    parts = ("kernel", "gram", "factorizations", "validation")
    assert floor["total"] == pytest.approx(sum(floor[k] for k in parts))


def test_nytro_floor_takes_the_cheaper_plan() -> None:
    few = nytro_floor(100000, 25000, 1000, 20, 10, 8, RATES)  # 10 passes beat an n·m² Gram
    many = nytro_floor(2000, 500, 200, 20, 500, 8, RATES)  # 500 passes: the Gram wins
    assert few["plan"] == "stream" and many["plan"] == "gram"
    stream = 10 * (100000 + 2500) * 1000 * 8 / 1e10
    assert few["iterations"] == pytest.approx(stream)
    # float32 halves the bytes streamed, so the streaming plan's iterations cost half
    assert nytro_floor(100000, 25000, 1000, 20, 10, 4, RATES)["iterations"] == \
        pytest.approx(stream / 2)


def test_measured_rates_are_finite_and_plausible() -> None:
    rates = HostRates.measure("float64", n=256, stream_mb=16, repeats=1)
    assert math.isfinite(rates.gemm) and 1e8 < rates.gemm < 1e14
    assert math.isfinite(rates.stream) and 1e7 < rates.stream < 1e13


def test_blas_threads_auto_resolves_to_the_idle_cores() -> None:
    cores = len(os.sched_getaffinity(0))
    assert 1 <= idle_cores(0.05) <= cores
    assert resolve_blas_threads(3) == 3
    assert 1 <= resolve_blas_threads("auto") <= cores
