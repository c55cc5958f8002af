"""The skeleton every benchmark of the project uses: threads set and recorded, the host's rates
measured before and after, repeats timed side by side with medians, the noisy-host flag, and
the CSV row with its source and host.

    with Bench("reproduce/bench/bench_x.py", threads=2, csv=CSV, key=KEY,
               columns=COLUMNS) as bench:
        times = bench.side_by_side({"numpy": f, "torch": g}, repeats=7)
        bench.record({"case": "kernel block", "numpy_s": times["numpy"].median, ...})

A benchmark measures ratios side by side in one run (alternating the variants, so that a host
that slows down slows every variant alike) and prints the host's rates beside every absolute
time: hosts are shared and change between sessions. :meth:`Bench.record` adds the columns every
benchmark row carries (:data:`HOST_COLUMNS`) to the row it is given.
In a smoke run (:func:`reproduce.bench.smoke.smoke_run`) the rates are measured on tiny
blocks: the same code in milliseconds.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

from reproduce.bench.floor import HostRates, noisy_host
from reproduce.bench.record import record_row, today_source
from reproduce.bench.smoke import rate_sizes
from reproduce.bench.threads import THREAD_VARIABLES, set_thread_variables

__all__ = ["HOST_COLUMNS", "THREAD_VARIABLES", "Bench", "Timing", "set_thread_variables"]

#: The columns :meth:`Bench.record` fills in every row (when the benchmark's columns name them).
HOST_COLUMNS = ("host", "blas_threads", "gemm_gflops", "stream_gbs", "noisy", "source")
@dataclass(frozen=True)
class Timing:
    """Wall seconds of the repeats of one variant, and what its last timed call returned."""

    seconds: tuple[float, ...]
    result: Any = field(default=None, compare=False, repr=False)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def min(self) -> float:
        return min(self.seconds)

    @property
    def max(self) -> float:
        return max(self.seconds)


def _timed(fn: Callable[..., Any], setup: Callable[[], Any] | None = None) -> tuple[float, Any]:
    """(wall seconds of ``fn()``, or of ``fn(setup())`` with ``setup`` run untimed; its result)."""
    args = () if setup is None else (setup(),)
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


@dataclass
class Bench:
    """One benchmark run: its threads, the host's rates before and after, its rows.

    Parameters
    ----------
    script : str
        The benchmark as its rows' ``source`` names it (``reproduce/bench/bench_x.py``).
    threads : int
        BLAS threads (threadpoolctl, for this process) while the run lasts; recorded.
    csv : path, optional
        The committed CSV its rows go to (``None``: print only).
    key, columns : sequence of str
        The columns that identify a row (a row of the same key is replaced) and all columns.
    dtype : str
        The dtype of the host rates measured (GEMM, streaming read).
    rates : bool
        Measure the host's rates before and after (a second or two each).
    exp : bool
        With the rates, measure the host's exponential rate too (``HostRates.exp``, what a
        floor counts a kernel block's exponentials at).
    """

    script: str
    threads: int = 1
    csv: str | Path | None = None
    key: Sequence[str] = ()
    columns: Sequence[str] = ()
    dtype: str = "float64"
    rates: bool = True
    exp: bool = False
    before: HostRates | None = field(default=None, init=False)
    after: HostRates | None = field(default=None, init=False)
    _stack: ExitStack = field(default_factory=ExitStack, init=False, repr=False)

    def __enter__(self) -> Bench:
        self._stack.enter_context(threadpool_limits(limits=self.threads))
        if self.rates:
            self.before = HostRates.measure(self.dtype, exp=self.exp, **rate_sizes())
            print(f"host {platform.node()}: {self.threads} BLAS thread(s), {self.dtype} "
                  f"{self.describe(self.before)} before", flush=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.rates and exc[0] is None:
            self.after = HostRates.measure(self.dtype, exp=self.exp, **rate_sizes())
            flag = ", noisy: " + ", ".join(self.noisy) if self.noisy else ""
            print(f"host: {self.dtype} {self.describe(self.after)} after{flag}", flush=True)
        self._stack.close()

    @staticmethod
    def describe(rates: HostRates) -> str:
        exp = "" if rates.exp is None else f", exp {rates.exp / 1e9:.2f} G/s"
        return f"GEMM {rates.gemm / 1e9:.0f} GF/s, stream {rates.stream / 1e9:.0f} GB/s{exp}"

    @property
    def noisy(self) -> list[str]:
        """The rates that moved by more than 20% between before and after (empty: quiet);
        empty until both are measured."""
        if self.before is None or self.after is None:
            return []
        return noisy_host(self.before, self.after)

    @staticmethod
    def time(fn: Callable[..., Any], repeats: int, warmup: int = 1,
             setup: Callable[[], Any] | None = None) -> Timing:
        """Wall seconds of ``repeats`` calls of ``fn`` after ``warmup`` untimed ones.

        With ``setup``, each call is ``fn(setup())`` and only ``fn`` is timed (a fresh
        estimator to fit, a copy for an in-place solve). The last call's result is kept
        (``Timing.result``); an earlier one is dropped before the next call starts."""
        return Bench.side_by_side({"": fn}, repeats, warmup, setup)[""]

    @staticmethod
    def side_by_side(variants: Mapping[str, Callable[..., Any]], repeats: int,
                     warmup: int = 1, setup: Callable[[], Any] | None = None
                     ) -> dict[str, Timing]:
        """Each variant timed ``repeats`` times, alternating (v1, v2, …, v1, v2, …) so that a
        change of the host's load falls on every variant alike; ``warmup`` untimed rounds
        first. ``setup``: as for :meth:`time`, run untimed before every call."""
        for _ in range(warmup):
            for fn in variants.values():
                _timed(fn, setup)
        seconds: dict[str, list[float]] = {name: [] for name in variants}
        results: dict[str, Any] = dict.fromkeys(variants)
        for _ in range(repeats):
            for name, fn in variants.items():
                results[name] = None  # its memory free before the next call
                elapsed, results[name] = _timed(fn, setup)
                seconds[name].append(elapsed)
        return {name: Timing(tuple(s), results[name]) for name, s in seconds.items()}

    def host_values(self) -> dict[str, Any]:
        """The values of :data:`HOST_COLUMNS` for a row measured now."""
        rates = self.before
        return {"host": platform.node(), "blas_threads": self.threads,
                "gemm_gflops": None if rates is None else round(rates.gemm / 1e9, 1),
                "stream_gbs": None if rates is None else round(rates.stream / 1e9, 1),
                "noisy": ",".join(self.noisy) or None,
                "source": today_source(self.script)}

    def record(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """``row`` with the host's columns (those of :data:`HOST_COLUMNS` the benchmark's
        ``columns`` name, unless the row gives them), written to the CSV when there is one;
        returns the full row."""
        full = {**{k: v for k, v in self.host_values().items() if k in self.columns},
                **row}
        if self.csv is not None:
            record_row(self.csv, full, self.key, self.columns)
        return full
