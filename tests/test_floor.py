"""The floor model of the benchmarks (its counts, its choice of plan, the measured rates) and
the BLAS thread count that follows the load."""

from __future__ import annotations

import importlib.util
import math
import os
from pathlib import Path

import pytest

from kernreg.experiment import idle_cores, resolve_blas_threads
from reproduce.bench.floor import (
    HostRates,
    es_floor,
    kernel_seconds,
    nkrls_floor,
    noisy_host,
    nytro_floor,
)

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


def test_es_floor_reads_both_kernels_once_per_iteration() -> None:
    n, n_val, d, iterations = 26000, 6500, 123, 50
    floor = es_floor(n, n_val, d, iterations, 4, RATES)
    assert floor["kernel"] == pytest.approx(kernel_seconds(n + n_val, n, d, 4, RATES))
    assert floor["iterations"] == pytest.approx(iterations * (n + n_val) * n * 4 / 1e10)
    assert floor["total"] == pytest.approx(floor["kernel"] + floor["iterations"])
    # float64 streams twice the bytes
    assert es_floor(n, n_val, d, iterations, 8, RATES)["iterations"] == \
        pytest.approx(2 * floor["iterations"])


def test_measured_rates_are_finite_and_plausible() -> None:
    rates = HostRates.measure("float64", n=256, stream_mb=16, repeats=1)
    assert math.isfinite(rates.gemm) and 1e8 < rates.gemm < 1e14
    assert math.isfinite(rates.stream) and 1e7 < rates.stream < 1e13


def test_blas_threads_auto_resolves_to_the_idle_cores() -> None:
    cores = len(os.sched_getaffinity(0))
    assert 1 <= idle_cores(0.05) <= cores
    assert resolve_blas_threads(3) == 3
    assert 1 <= resolve_blas_threads("auto") <= cores


def _bench_script():
    spec = importlib.util.spec_from_file_location(
        "bench_table2",
        Path(__file__).resolve().parents[1] / "reproduce" / "bench" / "bench_table2.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kernel_blocks_count_their_exponentials_at_the_exp_rate() -> None:
    """n·m exponentials at the measured rate, overlapping the block's one write (the slower of
    the two bounds the pass); without an exp rate only the write counts, as before."""
    n, m, d = 10000, 1000, 20
    gemm = 2 * n * m * d / 1e11
    assert kernel_seconds(n, m, d, 8, RATES) == pytest.approx(gemm + n * m * 8 / 1e10)
    slow_exp = HostRates(gemm=1e11, stream=1e10, exp=5e8)  # 2 ns per exp > 0.8 ns per write
    assert kernel_seconds(n, m, d, 8, slow_exp) == pytest.approx(gemm + n * m / 5e8)
    fast_exp = HostRates(gemm=1e11, stream=1e10, exp=1e10)
    assert kernel_seconds(n, m, d, 8, fast_exp) == pytest.approx(gemm + n * m * 8 / 1e10)
    floor = nkrls_floor(n, 2500, m, d, 100, 8, slow_exp)
    assert floor["kernel"] == pytest.approx(kernel_seconds(n + 2500, m, d, 8, slow_exp))
    assert floor["kernel"] > nkrls_floor(n, 2500, m, d, 100, 8, RATES)["kernel"]
    setup = nytro_floor(n, 2500, m, d, 10, 8, slow_exp)["setup"]
    assert setup == pytest.approx(kernel_seconds(n + 2500, m, d, 8, slow_exp) + m**3 / 3 / 1e11)


def test_the_bench_takes_the_faster_rates_and_flags_a_noisy_host() -> None:
    bench = _bench_script()
    before = HostRates(gemm=100e9, stream=20e9, exp=2e9)
    after = HostRates(gemm=70e9, stream=21e9, exp=2.1e9)
    assert bench.fastest(before, after) == HostRates(gemm=100e9, stream=21e9, exp=2.1e9)
    assert bench.fastest(before, HostRates(gemm=1e9, stream=1e9)).exp is None
    assert noisy_host(before, after) == ["gemm"]
    assert {"host_exp_geps_min", "host_exp_geps_max", "noisy_host"} <= set(bench.CSV_COLUMNS)
    assert "exp 2.00 G/s" in bench._rate_line(before)
