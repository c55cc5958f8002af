"""Smoke runs of the benchmarks (``--smoke``): the same code on tiny data, in seconds.

A benchmark given ``--smoke`` loads its configs at smoke size (:mod:`kernreg.config.smoke`:
400 training rows, m ≤ 40, ≤ 20 iterations, grids of ≤ 3 points) and, while
:func:`smoke_run` lasts, measures the host's rates (:meth:`Bench`'s before and after,
:func:`host_gemm`) on blocks of milliseconds instead of seconds. Its numbers mean nothing; its
lines and CSV rows have the full run's layout (``tests/test_reproduce.py`` runs every
artifact's smoke steps).

    with smoke_run(args.smoke):
        exp = load_experiment(path, smoke=args.smoke)
        with Bench(SCRIPT, ...) as bench:   # the rates at SMOKE_RATES
            rate = host_gemm()              # the GEMM yardstick at SMOKE_GEMM
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from kernreg.config.smoke import SMOKE_CENTERS, SMOKE_ITERATIONS, SMOKE_ROWS

__all__ = ["SMOKE_CENTERS", "SMOKE_GEMM", "SMOKE_ITERATIONS", "SMOKE_RATES", "SMOKE_ROWS",
           "add_smoke_option", "host_gemm", "rate_sizes", "smoke_run", "smoking"]

#: The host rates of a smoke run (:meth:`reproduce.bench.floor.HostRates.measure`'s sizes):
#: a 128² GEMM, a 4 MB streaming read, 16384 exponentials, once each.
SMOKE_RATES = {"n": 128, "stream_mb": 4, "repeats": 1, "exp_entries": 2**14}
#: The GEMM yardstick of a smoke run (:func:`host_gemm`): side and repeats.
SMOKE_GEMM = (128, 1)

_SMOKE: ContextVar[bool] = ContextVar("reproduce_bench_smoke", default=False)


def add_smoke_option(parser: argparse.ArgumentParser, what: str = "") -> None:
    """The benchmark's ``--smoke`` option (``what``: what else it shrinks)."""
    parser.add_argument("--smoke", action="store_true",
                        help="smoke size: configs at kernreg's smoke size, host rates on tiny "
                             f"blocks{', ' + what if what else ''} (seconds; the numbers mean "
                             "nothing)")


@contextmanager
def smoke_run(on: bool = True) -> Iterator[None]:
    """While it lasts (with ``on``), the host's rates are measured at smoke size."""
    token = _SMOKE.set(on)
    try:
        yield
    finally:
        _SMOKE.reset(token)


def smoking() -> bool:
    """Whether a :func:`smoke_run` is on."""
    return _SMOKE.get()


def rate_sizes() -> dict[str, int]:
    """The keyword arguments of ``HostRates.measure`` in this run (none: its defaults)."""
    return dict(SMOKE_RATES) if smoking() else {}


def host_gemm(n: int = 1024, repeats: int = 3, dtype: str = "float64") -> float:
    """:func:`kernreg.experiment.gemm_gflops` (GF/s of ``n × n`` products, best of
    ``repeats``), at :data:`SMOKE_GEMM` in a smoke run."""
    from kernreg.experiment import gemm_gflops

    if smoking():
        n, repeats = SMOKE_GEMM
    return gemm_gflops(n, repeats, dtype)
