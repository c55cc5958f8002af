"""The tables of README.md and docs/*.md that report measured numbers, rendered from results/.

A docs table is a marker block in a Markdown file::

    <!-- kernreg:table NAME -->
    ...rendered, never edited by hand...
    <!-- /kernreg:table -->

and an entry ``NAME`` in :data:`DOC_TABLES`: the committed results files it reads (relative to
the results folder) and a function that renders it from them. :func:`render_text` re-renders
every block of a file's text; :func:`render_docs` writes the files whose blocks changed
(atomically). ``make docs`` runs it; ``tests/test_docs_tables.py`` fails when a committed
file differs from what its sources render, or when a block names no known table or a missing
source.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from kernreg.atomic import write_text
from kernreg.datasets import dataset_names, get_spec
from kernreg.errors import ResultsError

BLOCK = re.compile(r"(<!-- kernreg:table (?P<name>[\w.-]+) -->\n)(?P<body>.*?)"
                   r"(<!-- /kernreg:table -->)", re.S)
_OPEN = re.compile(r"<!-- kernreg:table\b")
_CLOSE = "<!-- /kernreg:table -->"


@dataclass(frozen=True)
class DocTable:
    """A table of the docs: its results sources and how it is rendered from them.

    ``render(sources)`` gets the source paths in the order of ``sources`` and returns Markdown
    (a table, optionally with a caption line before it).
    """

    name: str
    sources: tuple[str, ...]
    render: Callable[..., str]
    description: str


# ---------------------------------------------------------------------------------------------
# Reading results files


def split_row(line: str) -> list[str]:
    r"""The cells of one Markdown table row (``\|`` is a literal bar inside a cell)."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith(r"\|") else inner
    cells = re.split(r"(?<!\\)\|", inner)
    return [c.strip().replace(r"\|", "|") for c in cells]


def read_md_tables(path: Path) -> list[tuple[list[str], list[list[str]]]]:
    """Every Markdown table of ``path`` as (header, rows), in file order."""
    tables: list[tuple[list[str], list[list[str]]]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        if (lines[i].lstrip().startswith("|") and i + 1 < len(lines)
                and re.fullmatch(r"\s*\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*", lines[i + 1])):
            header, rows, i = split_row(lines[i]), [], i + 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(split_row(lines[i]))
                i += 1
            tables.append((header, rows))
        else:
            i += 1
    return tables


def _md_table(path: Path, index: int = 0) -> tuple[list[str], list[list[str]]]:
    tables = read_md_tables(path)
    if len(tables) <= index:
        raise ResultsError(f"{path}: expected at least {index + 1} Markdown table(s), found "
                           f"{len(tables)}; re-render it with its make target")
    return tables[index]


def _column(header: list[str], name: str, path: Path) -> int:
    if name not in header:
        raise ResultsError(f"{path}: no column {name!r} in its table (columns: "
                           f"{', '.join(h for h in header if h)}); re-render it")
    return header.index(name)


def _read_csv(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path, comment="#", keep_default_na=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ResultsError(f"{path}: not a readable CSV ({exc})") from exc


# ---------------------------------------------------------------------------------------------
# Formatting


def sig(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits, scientific (``6.2e-4``) below 1e-3."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if value == 0:
        return "0"
    if abs(value) < 1e-3:
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    places = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{places}f}"


def _num(text: str) -> float | None:
    """The leading number of a results cell (``0.4651±0.0003``, ``**1.69±0.20**``), or None."""
    m = re.match(r"\s*\**\s*([-+]?\d[\d.]*(?:e[-+]?\d+)?)", text)
    return float(m.group(1)) if m else None


def _rows_md(header: list[str], rows: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r).rstrip() + " |" for r in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# NYTRO Table 2 (results/table2.md, rendered by `kernreg table configs/table2.yaml`)


@dataclass
class _T2Cell:
    ours: str  # the mean as written in results/table2.md, "" when NA
    paper: str  # the paper's mean, "" when none


def _short_title(title: str) -> str:
    """The docs' short name of a dataset from its registry title ("IJCNN 2001 challenge
    m=5000" → "Ijcnn1"); the first word for a dataset kernreg does not register."""
    for name in dataset_names():
        if title.startswith(get_spec(name).title.split(" (")[0]):
            return _TITLES.get(name, title.split()[0])
    return title.split()[0]


def _table2_cells(path: Path) -> tuple[list[tuple[str, str]], list[str],
                                         dict[tuple[str, str, str], _T2Cell], list[str]]:
    """(datasets as (short name, m), algorithms, cells[(row, algorithm, quantity)], notes)."""
    header, rows = _md_table(path)
    algorithms = header[2:]
    datasets: list[tuple[str, str]] = []
    cells: dict[tuple[str, str, str], _T2Cell] = {}
    quantity = {"time (s)": "time", "RMSE": "rmse", "Par.": "par"}
    for row in rows:
        if row[0]:
            title = row[0]
            m = re.search(r"m=(\d+)", title)
            datasets.append((_short_title(title), m.group(1) if m else ""))
        q = quantity.get(row[1])
        if q is None or not datasets:
            raise ResultsError(f"{path}: unexpected row {row[:2]}; re-render it (make table2)")
        for algo, text in zip(algorithms, row[2:], strict=False):
            paper = re.search(r"\(paper ([^)±]+)", text)
            ours = text.split("(paper")[0].strip().strip("*")
            ours = "" if ours.startswith("NA") else ours.split("±")[0]
            cells[(datasets[-1][0], algo, q)] = _T2Cell(ours, paper.group(1) if paper else "")
    notes = [line[2:] for line in path.read_text(encoding="utf-8").splitlines()
             if line.startswith("- ")]
    return datasets, algorithms, cells, notes


def _t2_pair(cell: _T2Cell | None) -> str:
    """``ours / paper``: both means as results/table2.md writes them."""
    if cell is None or not cell.ours:
        return "NA"
    ours, paper = _exponent(cell.ours), _exponent(cell.paper)
    return f"{ours} / {paper}" if paper else ours


def _exponent(text: str) -> str:
    """``6.19e-04`` → ``6.19e-4`` (the docs' style; the digits are the source's)."""
    return re.sub(r"e([-+]?)0*(\d)", lambda m: f"e{m.group(1).replace('+', '')}{m.group(2)}",
                  text)


def render_table2_summary(table2: Path) -> str:
    """README: test RMSE and λ*/t* of NKRLS, NYTRO and ES, ours / the paper's."""
    datasets, _, cells, _ = _table2_cells(table2)
    header = ["dataset", "NKRLS RMSE", "NKRLS λ*", "NYTRO RMSE", "NYTRO t*", "ES RMSE", "ES t*"]
    rows = []
    for name, m in datasets:
        if not any(cells.get((name, a, "rmse"), _T2Cell("", "")).ours
                   for a in ("NKRLS", "NYTRO", "ES")):
            continue  # nothing measured (not in the offline mirror)
        row = [f"{name}, m = {m}"]
        for algo in ("NKRLS", "NYTRO", "ES"):
            row += [_t2_pair(cells.get((name, algo, "rmse"))),
                    _t2_pair(cells.get((name, algo, "par")))]
        rows.append(row)
    return _rows_md(header, rows)


def render_table2_cells(table2: Path) -> str:
    """docs/reproduction.md: every measured cell, time / RMSE / λ* or t*, ours / the paper's."""
    datasets, algorithms, cells, notes = _table2_cells(table2)
    trials: dict[tuple[str, str], str] = {}
    for note in notes:  # "Adult m=1000, KOLS: 1 trial (most cells: 5)"
        m = re.match(r"(\S+).*?, (\w+): (\d+) trials? \(", note)
        if m:
            trials[(m.group(1), m.group(2))] = m.group(3)
    header = ["dataset", "algorithm", "time (s) ours / paper", "test RMSE ours / paper",
              "λ* or t* ours / paper"]
    rows = []
    for name, m in datasets:
        first = True
        for algo in algorithms:
            if not cells[(name, algo, "rmse")].ours:
                continue
            label = algo
            if (name, algo) in trials:
                n = trials[(name, algo)]
                label += f" ({n} trial{'s' if n != '1' else ''})"
            par = cells[(name, algo, "par")]
            rows.append([f"{name}, m = {m}" if first else "", label,
                         _t2_pair(cells[(name, algo, "time")]),
                         _t2_pair(cells[(name, algo, "rmse")]),
                         _t2_pair(par) if par.ours else "—"])
            first = False
    return _rows_md(header, rows)


# ---------------------------------------------------------------------------------------------
# LiM Table 1 (results/lim_table1.md, results/lim_table1_selected.md)


def _spaced_pm(text: str) -> str:
    return re.sub(r"\s*±\s*", " ± ", text)


def render_lim_table1(path: Path) -> str:
    """docs/reproduction.md: a LiM Table 1 results file, NA reasons in the row."""
    header, rows = _md_table(path)
    col = {name: _column(header, name, path) for name in
           ("dataset", "n_fit", "trials", "m* (median)", "λ* (median)", "time (s)",
            "test RMSE", "paper RMSE")}
    out_header = ["dataset", "n_fit", "trials", "m* (median)", "λ* (median)", "time (s)",
                  "test RMSE", "LiM"]
    out = []
    for row in rows:
        def cell(name: str, row: list[str] = row) -> str:
            return row[col[name]]
        paper = _spaced_pm(cell("paper RMSE"))
        if cell("trials") in ("", "0"):
            reason = cell("test RMSE").removeprefix("NA — ").removeprefix("NA")
            out.append([cell("dataset"), f"NA: {reason}", "", "", "", "", "", paper])
            continue
        out.append([cell("dataset"), cell("n_fit"), cell("trials"), cell("m* (median)"),
                    cell("λ* (median)"), _spaced_pm(cell("time (s)")),
                    _spaced_pm(cell("test RMSE")), paper])
    return _rows_md(out_header, out)


# ---------------------------------------------------------------------------------------------
# Speed at the authors' protocol (results/bench_table2.csv, written by scripts/bench_table2.py)

_TITLES = {"insurance": "Insurance", "adult": "Adult", "ijcnn1": "Ijcnn1",
           "covtype_binary": "Covertype", "yearprediction": "YearPredictionMSD"}


def _bench(path: Path) -> pd.DataFrame:
    bench = _read_csv(path)
    need = {"dataset", "algorithm", "dtype", "median_s", "first_s", "paper_s", "over_paper",
            "over_floor", "strategy", "validation_strategy", "selected", "test_rmse",
            "repeats", "host_gemm_gflops_min", "host_gemm_gflops_max"}
    missing = need - set(bench.columns)
    if missing:
        raise ResultsError(f"{path}: missing columns {', '.join(sorted(missing))}; "
                           "re-run scripts/bench_table2.py")
    bench = bench[bench["max_iter"].isna()] if "max_iter" in bench else bench
    order = {name: i for i, name in enumerate(_TITLES)}
    return bench.sort_values(["dataset", "algorithm"],
                             key=lambda s: s.map(order) if s.name == "dataset" else s)


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
        cell = f"{_TITLES.get(ds, ds)} {algo.upper()}, {r['dtype']}"
        if r["repeats"] == 1:
            cell += " (1 fit)"
        elif algo == "nytro" and r["first_s"] > 1.1 * r["median_s"]:
            cell += f" (first trial {_seconds(r['first_s'])})"
        rows.append([cell, _seconds(r["median_s"]), f"{r['paper_s']:g}", _ratio(r["over_paper"]),
                     sig(r["over_floor"], 2), _strategy(r)])
    f64 = bench[bench["dtype"] == "float64"]
    caption = ("On 2 cores (2 BLAS threads; host GEMM "
               f"{_range(f64['host_gemm_gflops_min'].min(), f64['host_gemm_gflops_max'].max())}"
               " GF/s float64):") if len(f64) else ""
    table = _rows_md(["cell", "ours (s)", "paper (s)", "ours / paper", "ours / floor",
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
        if algo == "nytro" and not math.isnan(one["selected"]):
            label += f" (t\\* {one['selected']:.0f})"
        rows.append([
            _TITLES.get(ds, ds) if ds != last else "", label, _timed(r64), _timed(r32),
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
    return f"{_rates_caption(bench)}\n\n{_rows_md(header, rows)}"


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
                cells.append(_TITLES.get(ds, ds))
            elif algos:
                cells.append(f"{_TITLES.get(ds, ds)} {'/'.join(a.upper() for a in algos)}")
        fits = f"median of {n} fits" if n > 1 else "one fit"
        parts.append(f"{fits} ({', '.join(cells)})")
    return f"Host rates {'; '.join(rates)}; {'; '.join(parts)}:"


# The issue's speed targets, checked against the bench rows: (dataset, algorithm, kind, value,
# text); kind "s": the median at most value seconds; "x": at least value times faster than
# the paper. float64 where it was timed, else float32 (the cell as the README shows it).
SPEED_TARGETS = (
    ("ijcnn1", "nytro", "s", 40.0, "Ijcnn1 NYTRO ≤ 40 s"),
    ("insurance", "nkrls", "x", 4.0, "Insurance NKRLS ≥ 4× faster than the paper"),
    ("ijcnn1", "nkrls", "x", 4.0, "Ijcnn1 NKRLS ≥ 4× faster than the paper"),
    ("adult", "nytro", "s", 0.43, "Adult NYTRO ≤ 0.43 s"),
    ("covtype_binary", "nytro", "s", 46.0, "Covertype NYTRO ≤ 46 s per trial"),
    ("covtype_binary", "nkrls", "s", 600.0, "Covertype NKRLS ≤ 600 s"),
)


def render_speed_targets(bench_csv: Path) -> str:
    """docs/speed.md: the issue's targets against the measured cells."""
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
        else:
            speedup = r["paper_s"] / r["median_s"]
            measured = f"{speedup:.1f}× ({r['dtype']})"
            met = speedup >= value
        rows.append([text, measured, "met" if met else "unmet"])
    return _rows_md(["target", "measured", ""], rows)


def render_speed_default_rule(path: Path) -> str:
    """docs/speed.md: the earlier timings under the package's default stopping rule."""
    bench = _read_csv(path)
    rows, last = [], None
    for (ds, algo), group in bench.groupby(["dataset", "algorithm"], sort=False):
        by = {r["dtype"]: r for _, r in group.iterrows()}
        r64, r32 = by.get("float64"), by.get("float32")
        one = r64 if r64 is not None else r32
        label = algo.upper() + (f", {one['note']}" if isinstance(one["note"], str) else "")
        rows.append([_TITLES.get(ds, ds) if ds != last else "", label,
                     _pair(r64, r32, lambda r: _seconds(r["median_s"]), merge=False),
                     f"{one['paper_s']:g}",
                     _pair(r64, r32, lambda r: _ratio(r["median_s"] / r["paper_s"]), merge=False),
                     _pair(r64, r32, lambda r: f"{r['test_rmse']:.4f}", merge=False)])
        last = ds
    return _rows_md(["dataset", "algorithm", "float64 / float32 s", "paper s", "ours / paper",
                     "test RMSE float64 / float32"], rows)


def render_bench_load(path: Path) -> str:
    """docs/speed.md: a fit alone and beside competing processes, per BLAS thread setting."""
    load = _read_csv(path)
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
    return _rows_md(["competing processes", "2 threads", "1 thread", "`auto` (threads)",
                     "fair share for `auto`'s threads"], rows)


_DATASET_TITLES = {"cpusmall": "cpuSmall", **_TITLES}


def render_bench_acceleration(path: Path) -> str:
    """docs/solvers.md: NYTRO against the ν-method, iterations and seconds to NYTRO's best."""
    acc = _read_csv(path)
    rows = []
    for _, r in acc.iterrows():
        rows.append([f"{_DATASET_TITLES.get(r['dataset'], r['dataset'])}, σ {r['sigma']:g}, "
                     f"m {int(r['m'])}",
                     f"{int(r['nytro_t'])}, {r['nytro_s']:.4g}",
                     "never" if math.isnan(r["nu_t"]) else f"{int(r['nu_t'])}, {r['nu_s']:.3g}",
                     "—" if math.isnan(r["nu_t"]) else f"{r['nu_s'] / r['nytro_s']:.2f}"])
    return _rows_md(["dataset", "NYTRO: t*, s",
                     "ν-method: iterations to NYTRO's best validation RMSE, s", "time ratio"],
                    rows)


def render_bench_dask(path: Path) -> str:
    """docs/distributed.md: local against backend: dask on a LocalCluster."""
    dask = _read_csv(path)
    workers = sorted(set(dask["workers"].astype(int)))
    rows = []
    for _, r in dask.iterrows():
        cell = f"{_TITLES.get(r['dataset'], r['dataset'])} {r['algorithm'].upper()}, " \
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
    return _rows_md(["cell", "local", head, "ratio", "moved", "predictions differ (RMS)"], rows)


def render_samplers(path: Path) -> str:
    """docs/solvers.md: uniform against leverage-score centers per m."""
    runs = _read_csv(path)
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
    return _rows_md(["m", *(f"{label}: test RMSE / time (s)" for label in labels)], rows)


# ---------------------------------------------------------------------------------------------
# Beyond the papers (results/beyond.md) and the regime advisor (results/advise_table2.md)

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
    """docs/solvers.md: results/beyond.md grouped by dataset, one line per variant."""
    header, rows = _md_table(path)
    col = {name: _column(header, name, path) for name in
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
    return _rows_md(["dataset", "variant", "time (s)", "test RMSE", "test error",
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
    header, rows = _md_table(path)
    names = ("dataset", "SNR", "d_eff", "d̃", "c1", "c2", "t (NYTRO)")
    col = {name: _column(header, name, path) for name in names}
    predicted = next(i for i, h in enumerate(header) if h.startswith("predicted"))
    measured = next(i for i, h in enumerate(header) if h.startswith("measured here"))
    paper = next(i for i, h in enumerate(header) if h.startswith("paper"))

    def winners(text: str) -> str:
        return text.split(" (")[0].replace("**", "")

    def short(text: str) -> str:
        value = _num(text.replace("≥", ""))
        if value is None:
            return text
        return ("≥ " if "≥" in text else "") + _compact(value)

    out = []
    for row in rows:
        if len(row) <= paper or row[col["SNR"]] == "":
            reason = row[1] if len(row) > 1 else ""
            why = re.search(r"\((.*?)\)", reason)
            out.append([row[0], f"NA ({why.group(1) if why else reason})", "", "", "", "",
                        "NA", winners(row[-1])])
            continue
        out.append([row[col["dataset"]], _compact(float(row[col["SNR"]])),
                    f"{short(row[col['d_eff']])} / {short(row[col['d̃']])}",
                    f"{short(row[col['c1']])} / {short(row[col['c2']])}", row[col["t (NYTRO)"]],
                    row[predicted], winners(row[measured]), winners(row[paper])])
    return _rows_md(["dataset", "SNR", "d_eff / d̃", "c1 / c2", "NYTRO t",
                     "predicted: (SNR, d_eff) / (SNR, d̃) / (t, d_eff)",
                     "measured here: fastest / equal accuracy",
                     "paper: fastest / equal accuracy"], out)


# ---------------------------------------------------------------------------------------------
# The registry and the renderer

DOC_TABLES: dict[str, DocTable] = {t.name: t for t in (
    DocTable("table2_summary", ("table2.md",), render_table2_summary,
             "README: NYTRO Table 2, RMSE and λ*/t* of NKRLS, NYTRO, ES against the paper"),
    DocTable("table2_cells", ("table2.md",), render_table2_cells,
             "docs/reproduction.md: every measured NYTRO Table 2 cell against the paper"),
    DocTable("lim_table1", ("lim_table1.md",), render_lim_table1,
             "docs/reproduction.md: LiM Table 1 as the authors' code ran it"),
    DocTable("lim_table1_selected", ("lim_table1_selected.md",), render_lim_table1,
             "docs/reproduction.md: LiM Table 1, the paper's reading (selected (λ, m))"),
    DocTable("speed_summary", ("bench_table2.csv",), render_speed_summary,
             "README: NKRLS/NYTRO times against the paper and the floor"),
    DocTable("speed_table2", ("bench_table2.csv",), render_speed_table,
             "docs/speed.md: float64 and float32 times, floors, strategies, RMSE"),
    DocTable("speed_targets", ("bench_table2.csv",), render_speed_targets,
             "docs/speed.md: the issue's speed targets against the measured cells"),
    DocTable("speed_default_rule", ("bench_table2_default_rule.csv",),
             render_speed_default_rule,
             "docs/speed.md: earlier timings under the package's default stopping rule"),
    DocTable("bench_load", ("bench_load.csv",), render_bench_load,
             "docs/speed.md: a fit beside competing processes, per BLAS thread setting"),
    DocTable("bench_acceleration", ("bench_acceleration.csv",), render_bench_acceleration,
             "docs/solvers.md: NYTRO against the ν-method"),
    DocTable("samplers", ("samplers_cpusmall.csv",), render_samplers,
             "docs/solvers.md: uniform against leverage-score centers on cpuSmall"),
    DocTable("bench_dask", ("bench_dask.csv",), render_bench_dask,
             "docs/distributed.md: local against backend: dask"),
    DocTable("beyond", ("beyond.md",), render_beyond,
             "docs/solvers.md: samplers, ν-method, PCG, random features side by side"),
    DocTable("advise", ("advise_table2.md",), render_advise,
             "docs/solvers.md: the regime advisor against the measured winners"),
)}


def register_doc_table(table: DocTable) -> None:
    """Add a docs table (its name must be new)."""
    if table.name in DOC_TABLES:
        raise ValueError(f"docs table {table.name!r} is already registered")
    DOC_TABLES[table.name] = table


def render_block(name: str, results_dir: Path, where: str = "") -> str:
    """The Markdown of docs table ``name`` rendered from ``results_dir``."""
    table = DOC_TABLES.get(name)
    at = f"{where}: " if where else ""
    if table is None:
        raise ResultsError(f"{at}marker block names unknown docs table {name!r} (known: "
                           f"{', '.join(sorted(DOC_TABLES))})")
    paths = [Path(results_dir) / s for s in table.sources]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise ResultsError(f"{at}docs table {name!r} needs {', '.join(missing)}, which is "
                           "missing; commit it or run the target that writes it")
    return table.render(*paths).rstrip("\n") + "\n"


_FENCE = re.compile(r"^ *(```|~~~).*?^ *\1[^\n]*$", re.M | re.S)


def _outside_code(text: str, fn: Callable[[str], str]) -> str:
    """``text`` with ``fn`` applied to the parts outside fenced code blocks (where a marker is
    an example, not a block)."""
    out, last = [], 0
    for m in _FENCE.finditer(text):
        out += [fn(text[last:m.start()]), m.group(0)]
        last = m.end()
    return "".join([*out, fn(text[last:])])


def _plain_parts(text: str) -> list[str]:
    """The parts of ``text`` outside fenced code blocks."""
    bounds = [0, *(i for m in _FENCE.finditer(text) for i in m.span()), len(text)]
    return [text[a:b] for a, b in zip(bounds[::2], bounds[1::2], strict=True)]


def check_markers(text: str, where: str = "") -> None:
    """Raise if the opening and closing markers of ``text`` do not pair up."""
    for part in _plain_parts(text):
        opens, closes = len(_OPEN.findall(part)), part.count(_CLOSE)
        if opens != closes or opens != len(BLOCK.findall(part)):
            raise ResultsError(f"{where}: {opens} '<!-- kernreg:table NAME -->' and {closes} "
                               f"'{_CLOSE}' markers do not pair up")


def blocks(text: str) -> list[tuple[str, str]]:
    """The (name, body) of every marker block of ``text`` (outside fenced code)."""
    return [(m.group("name"), m.group("body"))
            for part in _plain_parts(text) for m in BLOCK.finditer(part)]


def render_text(text: str, results_dir: Path, where: str = "") -> str:
    """``text`` with every marker block's body re-rendered from ``results_dir``."""
    check_markers(text, where)
    return _outside_code(text, lambda part: BLOCK.sub(
        lambda m: m.group(1) + render_block(m.group("name"), results_dir, where) + m.group(4),
        part))


def doc_files(root: Path) -> list[Path]:
    """The Markdown files whose tables are rendered: README.md and docs/*.md."""
    root = Path(root)
    return [p for p in [root / "README.md", *sorted((root / "docs").glob("*.md"))]
            if p.is_file()]


def render_docs(root: Path, results_dir: Path | None = None, check: bool = False
                ) -> list[Path]:
    """Re-render the marker blocks of README.md and docs/*.md under ``root`` from
    ``results_dir`` (default ``root/results``); write the changed files atomically (or, with
    ``check``, write nothing). Returns the files that changed (or would change)."""
    root = Path(root)
    results_dir = Path(results_dir) if results_dir is not None else root / "results"
    changed = []
    for path in doc_files(root):
        text = path.read_text(encoding="utf-8")
        new = render_text(text, results_dir, str(path.relative_to(root)))
        if new != text:
            changed.append(path)
            if not check:
                write_text(path, new)
    return changed
