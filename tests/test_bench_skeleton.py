"""The benchmarks' skeleton (reproduce/bench/skeleton.py): side-by-side repeats, medians, the
rows' host columns and the CSV they go to."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

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
