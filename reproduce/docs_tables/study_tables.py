"""Docs tables of the studies beyond the papers: samplers, ν-method, Falkon PCG, random
features (results/beyond.md, bench_acceleration.csv, samplers_cpusmall.csv), the regime
advisor (results/advise_table2.md) and Dask (results/bench_dask.csv)."""

from __future__ import annotations

import math
import re
from pathlib import Path

from reproduce.docs_tables.read import (
    SHORT_TITLES,
    column,
    leading_number,
    md_table,
    read_csv,
    rows_md,
    sig,
)
from reproduce.docs_tables.registry import DocTable, register_doc_table


def render_bench_acceleration(path: Path) -> str:
    """docs/solvers.md: NYTRO against the ν-method, iterations and seconds to NYTRO's best."""
    acc = read_csv(path)
    rows = []
    for _, r in acc.iterrows():
        rows.append([f"{SHORT_TITLES.get(r['dataset'], r['dataset'])}, σ {r['sigma']:g}, "
                     f"m {int(r['m'])}",
                     f"{int(r['nytro_t'])}" + ("" if math.isnan(r["nytro_s"])  # not re-timed
                                               else f", {r['nytro_s']:.4g}"),
                     "never" if math.isnan(r["nu_t"]) else f"{int(r['nu_t'])}, {r['nu_s']:.3g}",
                     "—" if math.isnan(r["nu_t"]) else f"{r['nu_s'] / r['nytro_s']:.2f}"])
    return rows_md(["dataset", "NYTRO: t*, s",
                    "ν-method: iterations to NYTRO's best validation RMSE, s", "time ratio"],
                   rows)


def render_bench_dask(path: Path) -> str:
    """docs/distributed.md: local against backend: dask on a LocalCluster."""
    dask = read_csv(path)
    workers = sorted(set(dask["workers"].astype(int)))
    rows = []
    for _, r in dask.iterrows():
        cell = f"{SHORT_TITLES.get(r['dataset'], r['dataset'])} {r['algorithm'].upper()}, " \
               f"m = {int(r['m'])}"
        if r["dtype"] != "float64":
            cell += f", {r['dtype']}"
        if r["repeats"] == 1:
            cell += " (1 fit)"
        elif not math.isnan(r["repeats"]):
            cell += f" (median of {int(r['repeats'])})"
        moved = (f"{r['moved_mb']:g} MB for `AᵀA`" if r["algorithm"] == "nkrls"
                 else f"{r['moved_mb']:g} MB per iteration")
        rows.append([cell, f"{r['local_s']:.4g} s", f"{r['dask_s']:.4g} s",
                     f"{r['ratio']:.2f}", moved, f"{r['pred_rms_diff']:.1e}".replace("e-0", "e-")])
    head = "dask, " + "/".join(map(str, workers)) + " workers"
    return rows_md(["cell", "local", head, "ratio", "moved", "predictions differ (RMS)"], rows)


def render_samplers(path: Path) -> str:
    """docs/solvers.md: uniform against leverage-score centers per m."""
    runs = read_csv(path)
    labels = list(dict.fromkeys(runs["label"]))
    rows = []
    for m, group in runs.groupby("m", sort=True):
        by = {r["label"]: r for _, r in group.iterrows()}
        row = [str(int(m))]
        for label in labels:
            r = by.get(label)
            row.append("—" if r is None else
                       f"{r['test_rmse_mean']:.2f} ± {r['test_rmse_std']:.2f} / "
                       f"{r['time_s_mean']:.2g}")
        rows.append(row)
    return rows_md(["m", *(f"{label}: test RMSE / time (s)" for label in labels)], rows)


_VARIANTS = {
    "nkrls_uniform": "NKRLS uniform", "nkrls_leverage": "NKRLS leverage",
    "nytro_landweber": "NYTRO Landweber", "nytro_nu": "NYTRO ν-method",
    "pcg_path": "PCG λ path", "pcg_iterations": "PCG iterations, Falkon's B (λ 1e-12)",
    "pcg_nystrom_iterations": "PCG iterations, NYTRO's B (λ 1e-12)", "rf_equal_memory": "RF, D = m",
}


def _mean_pm(text: str) -> str:
    """``2.07 ± 0.444`` → ``2.07 ± 0.44``: the mean as written, the std to its last place."""
    parts = [p.strip() for p in text.split("±")]
    if len(parts) == 1:
        return parts[0]
    places = len(parts[0].split(".")[1]) if "." in parts[0] else 0
    return f"{parts[0]} ± {float(parts[1]):.{places}f}"


def render_beyond(path: Path) -> str:
    """docs/beyond.md: results/beyond.md grouped by dataset, one line per variant."""
    header, rows = md_table(path)
    col = {name: column(header, name, path) for name in
           ("dataset", "label", "m", "trials", "time (s)", "test RMSE", "test error",
            "λ* / t* (median)")}
    out, last = [], None
    for row in rows:
        ds = row[col["dataset"]]
        title = ""
        if ds != last:
            title = f"{ds}, m {row[col['m']]}"
            if row[col["trials"]] == "1":
                title += " (1 trial)"
            last = ds
        par = float(row[col["λ* / t* (median)"]])
        out.append([title, _VARIANTS.get(row[col["label"]], row[col["label"]]),
                    _mean_pm(row[col["time (s)"]]), _mean_pm(row[col["test RMSE"]]),
                    row[col["test error"]].split("±")[0].strip(),
                    f"{par:.0f}" if par >= 1 and par == int(par) else sig(par, 2)])
    return rows_md(["dataset", "variant", "time (s)", "test RMSE", "test error",
                    "λ* / t* (median)"], out)


def _compact(value: float) -> str:
    """``2.2e5`` from 1e4 on, ``1310`` below."""
    if abs(value) >= 1e4 or (value and abs(value) < 1e-3):
        mantissa, exponent = f"{value:.1e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{value:.0f}" if abs(value) >= 10 else sig(value, 2)


def render_advise(path: Path) -> str:
    """docs/solvers.md: the advisor's predictions against the measured and the paper's
    winners (results/advise_table2.md without the per-solver details)."""
    header, rows = md_table(path)
    names = ("dataset", "SNR", "d_eff", "d̃", "c1", "c2", "t (NYTRO)")
    col = {name: column(header, name, path) for name in names}
    predicted = next(i for i, h in enumerate(header) if h.startswith("predicted"))
    measured = next(i for i, h in enumerate(header) if h.startswith("measured here"))
    paper = next(i for i, h in enumerate(header) if h.startswith("paper"))

    def winners(text: str) -> str:
        return text.split(" (")[0].replace("**", "")

    def short(text: str) -> str:
        value = leading_number(text.replace("≥", ""))
        if value is None:
            return text
        return ("≥ " if "≥" in text else "") + _compact(value)

    out = []
    for row in rows:
        if len(row) <= paper or row[col["SNR"]] == "":
            reason = row[1] if len(row) > 1 else ""
            why = re.search(r"\((.*?)\)", reason)
            out.append([row[0], f"NA ({why.group(1) if why else reason})", "", "", "", "",
                        "NA", winners(row[paper] if len(row) > paper else row[-1])])
            continue
        out.append([row[col["dataset"]], _compact(float(row[col["SNR"]])),
                    f"{short(row[col['d_eff']])} / {short(row[col['d̃']])}",
                    f"{short(row[col['c1']])} / {short(row[col['c2']])}", row[col["t (NYTRO)"]],
                    row[predicted], winners(row[measured]), winners(row[paper])])
    return rows_md(["dataset", "SNR", "d_eff / d̃", "c1 / c2", "NYTRO t",
                    "predicted: (SNR, d_eff) / (SNR, d̃) / (t, d_eff)",
                    "measured here: fastest / equal accuracy",
                    "paper: fastest / equal accuracy"], out)


register_doc_table(DocTable(
    "bench_acceleration", ("bench_acceleration.csv",), render_bench_acceleration,
    "docs/solvers.md: NYTRO against the ν-method"))
register_doc_table(DocTable(
    "samplers", ("samplers_cpusmall.csv",), render_samplers,
    "docs/solvers.md: uniform against leverage-score centers on cpuSmall"))
register_doc_table(DocTable(
    "bench_dask", ("bench_dask.csv",), render_bench_dask,
    "docs/distributed.md: local against backend: dask"))
register_doc_table(DocTable(
    "beyond", ("beyond.md",), render_beyond,
    "docs/beyond.md: samplers, ν-method, PCG, random features side by side"))
def render_beyond_exact(path: Path) -> str:
    """docs/beyond.md: the time-to-target table of results/beyond_exact_time_to_target.md."""
    header, rows = md_table(path)
    keep = ["dataset", "algorithm", "trials", "time to target (s)", "reached",
            "model-selection time (s)", "test RMSE", "read on", "host GEMM GF/s"]
    at = [column(header, name, path) for name in keep]
    return rows_md(keep, [[row[i] for i in at] for row in rows])


register_doc_table(DocTable(
    "beyond_exact", ("beyond_exact_time_to_target.md",), render_beyond_exact,
    "docs/beyond.md: the exact solvers of today against NKRLS's error"))
register_doc_table(DocTable(
    "advise", ("advise_table2.md",), render_advise,
    "docs/solvers.md: the regime advisor against the measured winners"))
