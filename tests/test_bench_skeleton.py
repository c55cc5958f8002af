"""The benchmarks' skeleton (reproduce/bench/skeleton.py): side-by-side repeats, medians, the
rows' host columns and the CSV they go to."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from reproduce.bench.floor import HostRates
from reproduce.bench.skeleton import HOST_COLUMNS, Bench, Timing


def test_timing_statistics() -> None:
    t = Timing((3.0, 1.0, 2.0))
    assert (t.median, t.min, t.max) == (2.0, 1.0, 3.0)


def test_side_by_side_alternates_the_variants() -> None:
    calls: list[str] = []
    times = Bench.side_by_side({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
                               repeats=3, warmup=1)
    assert calls == ["a", "b"] * 4  # one warm-up round, then a, b alternating
    assert set(times) == {"a", "b"} and all(len(t.seconds) == 3 for t in times.values())


def test_rows_carry_the_host_and_replace_their_key(tmp_path: Path) -> None:
    csv = tmp_path / "bench.csv"
    columns = ("case", "seconds", *HOST_COLUMNS)
    with Bench("reproduce/bench/bench_x.py", threads=1, csv=csv, key=("case",),
               columns=columns, rates=False) as bench:
        row = bench.record({"case": "a", "seconds": 1.5})
        bench.record({"case": "a", "seconds": 1.25})
        bench.record({"case": "b", "seconds": 2.0})
    assert row["blas_threads"] == 1 and row["source"].startswith("reproduce/bench/bench_x.py ")
    table = pd.read_csv(csv)
    assert list(table["case"]) == ["a", "b"] and list(table["seconds"]) == [1.25, 2.0]
    assert list(table.columns) == list(columns)


def test_setup_runs_untimed_before_every_call_and_the_last_result_is_kept() -> None:
    made: list[int] = []

    def setup() -> int:  # slow, and not timed
        time.sleep(0.05)
        made.append(len(made))
        return made[-1]

    t = Bench.time(lambda i: i * 10, repeats=3, warmup=1, setup=setup)
    assert made == [0, 1, 2, 3] and t.result == 30 and t.max < 0.05
    times = Bench.side_by_side({"a": lambda x: ("a", x), "b": lambda x: ("b", x)}, repeats=2,
                               warmup=0, setup=iter(range(10)).__next__)
    assert times["a"].result == ("a", 2) and times["b"].result == ("b", 3)


def test_describe_names_the_exponential_rate_when_measured() -> None:
    assert "exp" not in Bench.describe(HostRates(gemm=1e11, stream=2e10))
    assert "exp 1.50 G/s" in Bench.describe(HostRates(gemm=1e11, stream=2e10, exp=1.5e9))
