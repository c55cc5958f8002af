"""Docs tables of the speed benchmarks: results/bench_table2.csv, bench_load.csv,
bench_rlsc_update.csv, bench_nkrls_precision.csv, bench_sgm_pass.csv
(reproduce/bench/: bench_table2.py, bench_load.py, bench_rlsc_update.py,
bench_nkrls_precision.py, bench_sgm_pass.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from kernreg.errors import ResultsError
from reproduce.docs_tables.read import (
    SHORT_TITLES,
    read_csv,
    rows_md,
    sig,
)
from reproduce.docs_tables.registry import DocTable, register_doc_table


def _bench(path: Path) -> pd.DataFrame:
    bench = read_csv(path)
    need = {"dataset", "algorithm", "dtype", "median_s", "first_s", "paper_s", "over_paper",
            "over_floor", "strategy", "validation_strategy", "selected", "test_rmse",
            "repeats", "host_gemm_gflops_min", "host_gemm_gflops_max"}
    missing = need - set(bench.columns)
    if missing:
        raise ResultsError(f"{path}: missing columns {', '.join(sorted(missing))}; "
                           "re-run reproduce/bench/bench_table2.py")
    bench = bench[bench["max_iter"].isna()] if "max_iter" in bench else bench
    order = {name: i for i, name in enumerate(SHORT_TITLES)}
    return bench.sort_values(["dataset", "algorithm"],
                             key=lambda s: s.map(order) if s.name == "dataset" else s)


#: The reproduction layer (a benchmark's rows name the script that measured them).
_LAYER = Path(__file__).resolve().parents[1]


def _sources(bench: pd.DataFrame) -> str:
    """The rows' sources, a script measured before the layer existed (``scripts/X.py DATE``,
    as the rows keep it) named by its path now."""
    def now(source: str) -> str:
        if not source.startswith("scripts/"):
            return source
        script, _, when = source.partition(" ")
        moved = sorted(_LAYER.glob(f"*/{Path(script).name}"))
        return f"{moved[0].relative_to(_LAYER.parent).as_posix()} {when}".strip() if moved \
            else source

    return ", ".join(sorted({now(s) for s in bench["source"]}))


def _seconds(value: float) -> str:
    """3 significant digits below 100 s, 0.1 s up to 1000 s, whole seconds above."""
    if math.isnan(value):
        return "—"
    return f"{value:.3g}" if value < 100 else f"{value:.1f}" if value < 1000 else f"{value:.0f}"


def _ratio(value: float) -> str:
    """2 significant digits below 1, 2 decimals up to 10."""
    return sig(value, 2) if value < 1 or value >= 10 else f"{value:.2f}"


def _strategy(row: pd.Series) -> str:
    if not isinstance(row["strategy"], str):
        return "—"
    return f"{row['strategy']}/{row['validation_strategy']}"


def _range(lo: float, hi: float) -> str:
    return f"{lo:.0f}" if round(lo) == round(hi) else f"{lo:.0f}–{hi:.0f}"


def render_speed_summary(bench_csv: Path) -> str:
    """README: one line per cell, float64 where it was timed, else float32."""
    bench = _bench(bench_csv)
    rows = []
    for (ds, algo), group in bench.groupby(["dataset", "algorithm"], sort=False):
        pick = group[group["dtype"] == "float64"]
        r = (pick if len(pick) else group).iloc[0]
        cell = f"{SHORT_TITLES.get(ds, ds)} {algo.upper()}, {r['dtype']}"
        if r["repeats"] == 1:
            cell += " (1 fit)"
        elif algo in ("nytro", "es") and r["first_s"] > 1.1 * r["median_s"]:
            cell += f" (first trial {_seconds(r['first_s'])})"
        rows.append([cell, _seconds(r["median_s"]), f"{r['paper_s']:g}", _ratio(r["over_paper"]),
                     sig(r["over_floor"], 2), _strategy(r)])
    f64 = bench[bench["dtype"] == "float64"]
    caption = ("On 2 cores (2 BLAS threads; host GEMM "
               f"{_range(f64['host_gemm_gflops_min'].min(), f64['host_gemm_gflops_max'].max())}"
               " GF/s float64):") if len(f64) else ""
    table = rows_md(["cell", "ours (s)", "paper (s)", "ours / paper", "ours / floor",
                    "strategy"], rows)
    return f"{caption}\n\n{table}" if caption else table


def _timed(r: pd.Series | None) -> str:
    """``median (first)`` seconds of a bench row."""
    if r is None:
        return "—"
    median = _seconds(r["median_s"])
    return median if math.isnan(r["first_s"]) else f"{median} ({_seconds(r['first_s'])})"


def _pair(r64: pd.Series | None, r32: pd.Series | None, fn: Callable[[pd.Series], str],
          merge: bool = True) -> str:
    """``float64 / float32`` of one quantity; one value when both are the same."""
    a = fn(r64) if r64 is not None else "—"
    b = fn(r32) if r32 is not None else "—"
    return a if merge and a == b else f"{a} / {b}"


def render_speed_table(bench_csv: Path) -> str:
    """docs/speed.md: float64 and float32 side by side, first fits, floors, strategies."""
    bench = _bench(bench_csv)
    rows, last = [], None
    for (ds, algo), group in bench.groupby(["dataset", "algorithm"], sort=False):
        by = {r["dtype"]: r for _, r in group.iterrows()}
        r64, r32 = by.get("float64"), by.get("float32")
        one = r64 if r64 is not None else r32
        label = algo.upper()
        if algo in ("nytro", "es") and not math.isnan(one["selected"]):
            label += f" (t\\* {one['selected']:.0f})"
        rows.append([
            SHORT_TITLES.get(ds, ds) if ds != last else "", label, _timed(r64), _timed(r32),
            f"{one['paper_s']:g}",
            _pair(r64, r32, lambda r: _ratio(r["over_paper"]), merge=False),
            _pair(r64, r32, lambda r: sig(r["over_floor"], 2), merge=False),
            _pair(r64, r32, _strategy),
            _pair(r64, r32, lambda r: "—" if math.isnan(r["test_rmse"])
                  else f"{r['test_rmse']:.4f}")])
        last = ds
    header = ["dataset", "algorithm", "float64 s (first)", "float32 s (first)", "paper s",
              "ours / paper (64 / 32)", "ours / floor (64 / 32)", "strategy (64 / 32)",
              "test RMSE (64 / 32)"]
    return f"{_rates_caption(bench)}\n\n{rows_md(header, rows)}"


def _rates_caption(bench: pd.DataFrame) -> str:
    """Host rates and repeats of the bench rows, as one sentence."""
    rates = []
    for dtype in ("float64", "float32"):
        rows = bench[bench["dtype"] == dtype]
        if not len(rows):
            continue
        gemm = _range(rows["host_gemm_gflops_min"].min(), rows["host_gemm_gflops_max"].max())
        text = f"{dtype} GEMM {gemm} GF/s"
        stream = rows.dropna(subset=["host_stream_gbs_min"])
        if len(stream):
            gbs = _range(stream["host_stream_gbs_min"].min(), stream["host_stream_gbs_max"].max())
            text += f" and stream {gbs} GB/s"
        rates.append(text)
    parts = []
    for n in sorted(set(bench["repeats"]), reverse=True):
        cells = []
        for ds in dict.fromkeys(bench["dataset"]):
            algos = list(bench.loc[(bench["dataset"] == ds) & (bench["repeats"] == n),
                                   "algorithm"].drop_duplicates())
            if algos == list(bench.loc[bench["dataset"] == ds, "algorithm"].drop_duplicates()):
                cells.append(SHORT_TITLES.get(ds, ds))
            elif algos:
                cells.append(f"{SHORT_TITLES.get(ds, ds)} {'/'.join(a.upper() for a in algos)}")
        fits = f"median of {n} fits" if n > 1 else "one fit"
        parts.append(f"{fits} ({', '.join(cells)})")
    return f"Host rates {'; '.join(rates)}; {'; '.join(parts)}:"


# The speed targets, checked against the bench rows: (dataset, algorithm, kind, value,
# text); kind "s": the median at most value seconds; "x": at least value times faster than
# the paper; "f": the median at most value times the cell's floor. float64 where it was timed,
# else float32 (the cell as the README shows it).
SPEED_TARGETS = (
    ("ijcnn1", "nytro", "s", 40.0, "Ijcnn1 NYTRO ≤ 40 s"),
    ("insurance", "nkrls", "x", 4.0, "Insurance NKRLS ≥ 4× faster than the paper"),
    ("ijcnn1", "nkrls", "x", 4.0, "Ijcnn1 NKRLS ≥ 4× faster than the paper"),
    ("adult", "nytro", "s", 0.43, "Adult NYTRO ≤ 0.43 s"),
    ("covtype_binary", "nytro", "s", 46.0, "Covertype NYTRO ≤ 46 s per trial"),
    ("covtype_binary", "nkrls", "s", 600.0, "Covertype NKRLS ≤ 600 s"),
    ("adult", "es", "f", 1.5, "Adult ES within 1.5× its floor"),
)


def render_speed_targets(bench_csv: Path) -> str:
    """docs/speed.md: the speed targets against the measured cells."""
    bench = _bench(bench_csv)
    rows = []
    for ds, algo, kind, value, text in SPEED_TARGETS:
        cell = bench[(bench["dataset"] == ds) & (bench["algorithm"] == algo)]
        if not len(cell):
            rows.append([text, "not measured", ""])
            continue
        pick = cell[cell["dtype"] == "float64"]
        r = (pick if len(pick) else cell).iloc[0]
        if kind == "s":
            measured = f"{_seconds(r['median_s'])} s {r['dtype']}"
            if not math.isnan(r["first_s"]) and r["first_s"] > 1.1 * r["median_s"]:
                measured += f" ({_seconds(r['first_s'])} s the first)"
            met = r["median_s"] <= value
        elif kind == "f":
            measured = f"{_seconds(r['median_s'])} s {r['dtype']}, {sig(r['over_floor'], 2)}× floor"
            met = r["over_floor"] <= value
        else:
            speedup = r["paper_s"] / r["median_s"]
            measured = f"{speedup:.1f}× ({r['dtype']})"
            met = speedup >= value
        rows.append([text, measured, "met" if met else "unmet"])
    return rows_md(["target", "measured", ""], rows)


def render_bench_load(path: Path) -> str:
    """docs/speed.md: a fit alone and beside competing processes, per BLAS thread setting."""
    load = read_csv(path)
    load = load[(load["config"] == load["config"].iloc[0])
                & (load["algorithm"] == load["algorithm"].iloc[0])]  # the first cell measured
    cores = int(load["cores"].iloc[0])
    alone = {str(r["threads_setting"]): r for _, r in load[load["competitors"] == 0].iterrows()}
    rows = []
    for competitors, group in load.groupby("competitors"):
        by = {str(r["threads_setting"]): r for _, r in group.iterrows()}

        def fair(threads: int, c: int = int(competitors)) -> float:
            return max(1.0, (c + threads) / cores)

        row = [str(competitors)]
        for setting in ("2", "1"):
            r = by.get(setting)
            text = "—" if r is None else f"{r['median_s']:.2f} s"
            if r is not None and competitors and setting == "2" and setting in alone:
                text += (f" (×{r['median_s'] / alone[setting]['median_s']:.2f}; fair "
                         f"×{fair(int(r['threads'])):.1f})")
            row.append(text)
        auto = by.get("auto")
        if auto is None:
            row += ["—", "—"]
        else:
            row.append(f"{auto['median_s']:.2f} s ({int(auto['threads'])})")
            base = alone.get(str(int(auto["threads"])))
            if not competitors or base is None:
                row.append("—")
            else:
                share = fair(int(auto["threads"]))
                row.append(f"×{share:.1f} of {int(auto['threads'])} thread"
                           f"{'s' if auto['threads'] > 1 else ''} alone: "
                           f"{share * base['median_s']:.2f} s")
        rows.append(row)
    return rows_md(["competing processes", "2 threads", "1 thread", "`auto` (threads)",
                    "fair share for `auto`'s threads"], rows)


def render_bench_rlsc_update(path: Path) -> str:
    """docs/thesis_ch7.md: the incremental RLSC's update time per example
    against n, beside RB's refit (MNIST rows, sorted by n)."""
    bench = read_csv(path)
    need = {"data", "n", "d", "lam", "threads", "updates", "repeats", "update_ms",
            "update_w_ms", "rb_ms", "rb_over_update_w", "source"}
    missing = need - set(bench.columns)
    if missing:
        raise ResultsError(f"{path}: missing columns {', '.join(sorted(missing))}; "
                           "re-run reproduce/bench/bench_rlsc_update.py")
    bench = bench[bench["data"] == "mnist"].sort_values(["lam", "threads", "n"])
    if bench.empty:
        raise ResultsError(f"{path}: no MNIST row; run reproduce/bench/bench_rlsc_update.py")
    settings = "; ".join(
        f"d = {int(r['d'])}, λ = {r['lam']:g}, {int(r['threads'])} BLAS thread"
        f"{'s' if r['threads'] > 1 else ''}, medians of {int(r['updates'])} updates and "
        f"{int(r['repeats'])} RB refits"
        for _, r in bench.drop_duplicates(["d", "lam", "threads", "updates", "repeats"])
        .iterrows())
    caption = f"{settings} (measured by: {_sources(bench)}):"
    rows = [[str(int(r["n"])), f"{r['update_ms']:.1f}", f"{r['update_w_ms']:.1f}",
             f"{r['rb_ms']:.0f}", f"{r['rb_over_update_w']:.1f}"] for _, r in bench.iterrows()]
    return f"{caption}\n\n" + rows_md(["n seen", "update (ms)", "update + W (ms)",
                                        "RB refit (ms)", "RB / (update + W)"], rows)


def render_nkrls_precision(path: Path) -> str:
    """docs/solvers.md: NKRLS float64 against mixed precision, per dataset and trial: λ*, the
    validation path's and the test set's agreement, CG steps and the time ratio."""
    bench = read_csv(path)
    need = {"dataset", "trial", "m", "repeats", "mixed_over_float64", "gemm64_gflops_min",
            "gemm64_gflops_max", "gemm32_gflops_min", "gemm32_gflops_max", "lambda_float64",
            "lambda_mixed", "val_rmse_max_diff", "test_rmse_float64", "test_rmse_mixed",
            "test_pred_max_rel_diff", "refine_steps", "precision_used", "auto_choice", "source"}
    missing = need - set(bench.columns)
    if missing:
        raise ResultsError(f"{path}: missing columns {', '.join(sorted(missing))}; "
                           "re-run reproduce/bench/bench_nkrls_precision.py")

    def span(r: pd.Series, low: str, high: str) -> str:
        a, b = f"{r[low]:.0f}", f"{r[high]:.0f}"
        return a if a == b else f"{a}–{b}"

    rows = [[SHORT_TITLES.get(r["dataset"], r["dataset"]), str(int(r["trial"])),
             str(int(r["m"])), f"{r['lambda_float64']:.4g} / {r['lambda_mixed']:.4g}",
             f"{r['val_rmse_max_diff']:.1e}",
             f"{r['test_rmse_float64']:.6f} / {r['test_rmse_mixed']:.6f}",
             f"{r['test_pred_max_rel_diff']:.1e}", f"{int(r['refine_steps'])}",
             str(r["precision_used"]), str(r["auto_choice"]),
             f"{r['mixed_over_float64']:.3f} ({int(r['repeats'])}; "
             f"{span(r, 'gemm64_gflops_min', 'gemm64_gflops_max')}, "
             f"{span(r, 'gemm32_gflops_min', 'gemm32_gflops_max')})"]
            for _, r in bench.sort_values(["dataset", "trial"]).iterrows()]
    caption = f"Measured by: {_sources(bench)}:"
    return f"{caption}\n\n" + rows_md(
        ["dataset", "trial", "m", "λ\\* float64 / mixed", "max \\|Δ val RMSE\\| (path)",
         "test RMSE float64 / mixed", "test predictions, max rel. diff", "CG steps",
         "solved in", "`auto`", "time mixed / float64 (fits each; host GEMM f64, f32 GF/s)"],
        rows)


register_doc_table(DocTable(
    "speed_summary", ("bench_table2.csv",), render_speed_summary,
    "README: NKRLS/NYTRO times against the paper and the floor"))
register_doc_table(DocTable(
    "speed_table2", ("bench_table2.csv",), render_speed_table,
    "docs/speed.md: float64 and float32 times, floors, strategies, RMSE"))
register_doc_table(DocTable(
    "speed_targets", ("bench_table2.csv",), render_speed_targets,
    "docs/speed.md: the speed targets against the measured cells"))
register_doc_table(DocTable(
    "bench_load", ("bench_load.csv",), render_bench_load,
    "docs/speed.md: a fit beside competing processes, per BLAS thread setting"))
register_doc_table(DocTable(
    "bench_rlsc_update", ("bench_rlsc_update.csv",), render_bench_rlsc_update,
    "docs/thesis_ch7.md: RLSC update time per example against n, beside RB"))
register_doc_table(DocTable(
    "nkrls_precision", ("bench_nkrls_precision.csv",), render_nkrls_precision,
    "docs/solvers.md: NKRLS float64 against mixed precision (λ*, RMSE, CG steps, time ratio)"))


def render_bench_sgm_pass(path: Path) -> str:
    """docs/thesis_ch6.md: one SGM/SIGM pass per step (rows copied, as before; rows in
    place) against the block-wise pass, per full Table 6.2 row and number of guesses."""
    bench = read_csv(path)
    need = {"row", "dtype", "stored", "guesses", "repeats", "per_step_copied_s",
            "per_step_in_place_s", "blocked_s", "max_abs_diff", "sign_flips", "blas_threads",
            "host_gemm_gflops", "source"}
    missing = need - set(bench.columns)
    if missing:
        raise ResultsError(f"{path}: missing columns {', '.join(sorted(missing))}; "
                           "re-run reproduce/bench/bench_sgm_pass.py")
    bench = bench.sort_values(["row", "guesses"])
    repeats = ", ".join(str(int(v)) for v in sorted(set(bench["repeats"])))
    threads = ", ".join(str(int(v)) for v in sorted(set(bench["blas_threads"])))
    gemm = _range(bench["host_gemm_gflops"].min(), bench["host_gemm_gflops"].max())
    caption = (f"Medians of {repeats} passes, {threads} BLAS thread(s), host GEMM {gemm} GF/s; "
               f"max |Δα| between the block-wise and the per-step iterate "
               f"{bench['max_abs_diff'].max():.1e}, fit rows whose sign of Kα differs "
               f"{int(bench['sign_flips'].max())} (measured by: "
               f"{_sources(bench)}):")
    rows = [[f"{r['row']} ({r['dtype']}, {'stored' if r['stored'] else 're-evaluated'})",
             f"{int(r['guesses'])}", f"{r['per_step_copied_s']:.2f}",
             f"{r['per_step_in_place_s']:.2f}", f"{r['blocked_s']:.2f}",
             f"{r['per_step_copied_s'] / r['blocked_s']:.1f}×"] for _, r in bench.iterrows()]
    return f"{caption}\n\n" + rows_md(["row (kernel)", "guesses", "per step, rows copied s",
                                         "per step, rows in place s", "block-wise s",
                                         "speed-up"], rows)


register_doc_table(DocTable(
    "bench_sgm_pass", ("bench_sgm_pass.csv",), render_bench_sgm_pass,
    "docs/thesis_ch6.md: SGM/SIGM pass, per step against block-wise"))
