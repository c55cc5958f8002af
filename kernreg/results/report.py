"""A self-contained HTML report of one or more runs a reader can check: per run its provenance
(config, commit, versions, BLAS threads, host GEMM rate), its results beside the papers'
published values where one exists, and its figures with captions, every image inline.

Every number of the report's tables follows one rounding rule,
:func:`kernreg.results.numbers.format_number` (:data:`ROUNDING_RULE` says it in words); the
papers' values are quoted as published.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kernreg.atomic import write_text
from kernreg.losses import get_measure
from kernreg.results.figures import captioned_figures
from kernreg.results.numbers import ROUNDING_RULE, format_number, mean_spread
from kernreg.results.published_cells import read_paper_cells
from kernreg.results.run_folder import check_output_file
from kernreg.results.store import RunData, RunStore, load_run
from kernreg.results.tables import measure_columns, paper_table2, summary_measures
from kernreg.results.thesis_table6 import PAPER_LABEL, PREFIX, paper_table6
from kernreg.solvers import algorithm_title

__all__ = ["NOT_RECORDED", "ROUNDING_RULE", "PaperValue", "ReportSection", "build_report",
           "format_number", "manifest_rows", "markdown_html", "paper_values", "provenance",
           "results_table", "write_report"]

NOT_RECORDED = "not recorded"
#: The files of published cells matched by (dataset, algorithm label) (kernreg/paper/).
PAPER_CELL_FILES = ("lim_table1_full.csv", "lim_fig1_points.csv")
NYTRO_TABLE2 = "NYTRO Table 2"
THESIS_TABLE6 = "thesis Table 6.2"
#: The papers behind a source's short name, and what a reader needs to know of their setting
#: before comparing with them.
SOURCE_SETTINGS = {
    NYTRO_TABLE2: "Camoriano, Angles, Rudi, Rosasco, AISTATS 2016: the whole dataset with the "
                  "paper's m and σ, mean ± std over 5 trials; its times are of a 12-core Xeon "
                  "running MATLAB, ours of this host (its GEMM rate is under Provenance)",
    THESIS_TABLE6: "Camoriano's PhD thesis (Lin, Camoriano, Rosasco, ICML 2016): mean ± std "
                   "over 10 runs; its error is in percent, its times of a 12-core Xeon running "
                   "MATLAB",
}

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.25rem .6rem;text-align:right}
th{background:#f2f2f2} td:first-child,th:first-child{text-align:left}
table.provenance td,table.provenance th{text-align:left;vertical-align:top}
figure{margin:1rem 0} img{max-width:100%} figcaption{font-size:.85rem;color:#555}
p.note,ul.notes{font-size:.85rem;color:#555}
div.wide{overflow-x:auto} table.results td,table.results th{white-space:nowrap}
"""


# ----------------------------------------------------------------------------- the papers
@dataclass(frozen=True)
class PaperValue:
    """A published value: its text as the paper prints it, where it is from, and the paper's
    own remark on the cell (empty when none)."""

    text: str
    source: str
    note: str = ""


def paper_values(rows: pd.DataFrame) -> dict[str, PaperValue]:
    """The papers' published values for the tidy rows of one (dataset, label), by quantity:
    ``"time"``, a measure name (``"rmse"``, ``"error"``, ``"hinge"``) or ``"par"`` (the
    selected λ* or t*).

    Looked up as ``kernreg table --compare-paper`` and the paper tables do: the cells of
    :data:`PAPER_CELL_FILES` by (dataset, algorithm label); thesis Table 6.2 by experiment
    (``thesis_table6_<row>``) and label; NYTRO Table 2 by (dataset, algorithm). The first
    source with a value wins (a label names its cell more closely than an algorithm).
    """
    dataset, label = str(rows["dataset"].iloc[0]), str(rows["label"].iloc[0])
    algorithm = str(rows["algorithm"].iloc[0])
    found: dict[str, PaperValue] = {}
    for name in PAPER_CELL_FILES:
        cells = read_paper_cells(name)
        for cell in cells[(cells["dataset"] == dataset) & (cells["column"] == label)
                          ].itertuples(index=False):
            if cell.value not in ("", "NA"):
                found.setdefault(cell.measure, PaperValue(cell.value, cell.source, cell.note))
    experiment = str(rows["experiment"].iloc[0]) if "experiment" in rows else ""
    key = (experiment.removeprefix(PREFIX), PAPER_LABEL.get(label, label))
    table6 = paper_table6()
    if experiment.startswith(PREFIX) and key in table6.index:
        ref = table6.loc[key]
        for quantity, mean, std, unit in (("hinge", "hinge", "hinge_std", ""),
                                          ("error", "error_pct", "error_pct_std", " %"),
                                          ("time", "time", "time_std", "")):
            if pd.notna(ref[mean]):
                found.setdefault(quantity, PaperValue(
                    f"{ref[mean]:g} ± {ref[std]:g}{unit}", THESIS_TABLE6,
                    "" if key[1] == label else f"the paper's {key[1]} row"))
    table2 = paper_table2()
    for quantity in ("time", "rmse", "par"):
        text = table2.get((dataset, algorithm, quantity))
        if text:
            found.setdefault(quantity, PaperValue(text.replace("±", " ± "), NYTRO_TABLE2))
    return found


# ----------------------------------------------------------------------------- the results
def _measure_columns(rows: pd.DataFrame, per_class: bool = False
                     ) -> list[tuple[str, str, str]]:
    """``(measure, column, title)`` of every test measure the summary shows for ``rows``
    (those of the results' tasks): the whole-test-set ones, or with ``per_class`` every class
    of the per-class ones (a table of their own: a column per class would not fit a screen)."""
    return [(name, column, title) for name in summary_measures(rows)
            if bool(get_measure(name).per_class) == per_class
            for column, title in measure_columns(rows, name)]


def results_table(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """One row per (dataset, label) of tidy results — algorithm, m, trials, model-selection
    time, the test measures and the selected parameters (mean ± std over trials), by
    :func:`format_number` — with a ``"<column>, paper"`` column beside a time, measure or
    selected parameter that has a published value (:func:`paper_values`, the source named in
    the cell), and the notes on those sources. Per-class measures: :func:`per_class_table`."""
    groups = [g for _, g in table.groupby(["dataset", "label"], sort=False)]
    measures = _measure_columns(table)
    papers = [paper_values(g) for g in groups]
    quoted = {q for found in papers for q in found}
    rows = []
    for g, found in zip(groups, papers, strict=True):
        row: dict[str, Any] = {
            "dataset": g["dataset"].iloc[0], "label": g["label"].iloc[0],
            "algorithm": algorithm_title(str(g["algorithm"].iloc[0])),
            "m": "" if "m" not in g or pd.isna(g["m"].iloc[0]) else int(g["m"].iloc[0]),
            "trials": len(g), "time (s)": mean_spread(g["model_selection_time"])}
        for quantity, column, title in [("time", "", "time (s)"), *measures]:
            if column:
                row[title] = mean_spread(g[column]) if column in g else ""
            if quantity in quoted:
                paper = found.get(quantity)
                row[f"{title}, paper"] = f"{paper.text} ({paper.source})" if paper else ""
        param = g["param_name"].iloc[0] if "param_name" in g else None
        if isinstance(param, str) and param:
            row["λ* / t*"] = mean_spread(g["selected"])
            capped = int(g["stopped_at_cap"].fillna(False).astype(bool).sum()) \
                if "stopped_at_cap" in g else 0
            if capped:  # t* is max_iter: the path was cut, not stopped
                row["λ* / t*"] += f" (max_iter in {capped} of {len(g)} trials)"
        if "par" in quoted:
            paper = found.get("par")
            row["λ* / t*, paper"] = f"{paper.text} ({paper.source})" if paper else ""
        if "m_selected" in g and g["m_selected"].notna().any():
            row["m*"] = mean_spread(g["m_selected"])
        if "sigma_selected" in g and g["sigma_selected"].notna().any():
            counts = g["sigma_selected"].dropna().astype(float).value_counts()
            row["σ* (trials)"] = ", ".join(f"{format_number(v)} ×{c}" for v, c in counts.items())
        rows.append(row)
    return pd.DataFrame(rows, dtype=object).fillna(""), _paper_notes(table, papers)


def per_class_table(table: pd.DataFrame) -> pd.DataFrame | None:
    """The per-class measures (a multiclass run's accuracy of each class) of each (dataset,
    label), mean ± std over trials, a column per class; None when the results have none."""
    columns = _measure_columns(table, per_class=True)
    if not columns:
        return None
    rows = []
    for (dataset, label), g in table.groupby(["dataset", "label"], sort=False):
        row: dict[str, Any] = {"dataset": dataset, "label": label}
        row.update({title: mean_spread(g[column]) if column in g else ""
                    for _, column, title in columns})
        rows.append(row)
    return pd.DataFrame(rows, dtype=object).fillna("")


def _paper_notes(table: pd.DataFrame, papers: Sequence[dict[str, PaperValue]]) -> list[str]:
    """A line per source quoted (its setting), per cell the paper remarks on, and a warning
    when the run is not the paper's experiment (a subsample)."""
    quoted = [p for found in papers for p in found.values()]
    if not quoted:
        return []
    notes = []
    for source in dict.fromkeys(p.source for p in quoted):
        setting = SOURCE_SETTINGS.get(source)
        notes.append(f"paper values from {source}" + (f" — {setting}" if setting else ""))
    notes += [f"{p.source}: {p.note}" for p in dict.fromkeys(quoted) if p.note]
    n_fit = sorted({int(v) for v in table.get("n_fit", pd.Series(dtype=float)).dropna()})
    if n_fit:
        notes.append(f"ours: {'/'.join(map(str, n_fit))} fitting rows per trial; a paper's "
                     f"value is of the paper's own setting (dataset size, m, σ, protocol), so "
                     f"beside a run of another setting it is a reference, not a target")
    return notes


# ----------------------------------------------------------------------------- provenance
#: The manifest's environment entries shown together as the package versions.
VERSION_KEYS = ("kernreg", "python", "numpy", "scipy", "scikit-learn", "h5py", "numba")
ENVIRONMENT_TITLES = {"blas": "BLAS library", "openblas_thread_timeout":
                      "OPENBLAS_THREAD_TIMEOUT", "kernel_path_at_start": "kernel loops at start",
                      "device_at_start": "device at start", "machine": "machine"}


def _tally(values: Sequence[str], n: int) -> str:
    """``"2 (all 5 trials)"`` or ``"1 (3 trials), 2 (2 trials)"``."""
    counts = pd.Series(list(values), dtype=object).value_counts(sort=False)
    if len(counts) == 1:
        return f"{counts.index[0]} (all {n} trial{'s' if n > 1 else ''})"
    return ", ".join(f"{v} ({c} trial{'s' if c > 1 else ''})" for v, c in counts.items())


def manifest_rows(run_dir: Path, manifest: dict[str, Any], dataset: str = ""
                  ) -> list[tuple[str, str]]:
    """The provenance every run folder's manifest holds, as ``(what, value)`` rows: the
    config, its hash and file, the git commit, start and end, the data (or the generated
    source), package versions and the machine. What it does not hold (an older run) is
    :data:`NOT_RECORDED`."""
    def recorded(key: str) -> str:
        value = manifest.get(key)
        return str(value) if value else NOT_RECORDED

    rows = [("run folder", str(run_dir)), ("config file", recorded("config_file")),
            ("config hash", recorded("config_hash"))]
    if manifest.get("compatible_hashes"):
        rows.append(("resumed from config hashes", ", ".join(manifest["compatible_hashes"])))
    rows += [("git commit", recorded("git_commit")), ("started (UTC)", recorded("started_at")),
             ("finished (UTC)", recorded("finished_at"))]
    if isinstance(manifest.get("source"), dict):  # data a protocol generates
        source = manifest["source"]
        packages = source.get("packages") or {}
        rows.append(("data", f"{source.get('label') or source.get('name')}"
                     + (f" ({', '.join(f'{k} {v}' for k, v in packages.items())})"
                        if packages else "")))
    elif isinstance(manifest.get("dataset_file"), dict):  # a data file of the user's
        rows += file_rows(manifest["dataset_file"])
    else:
        sha = manifest.get("dataset_sha256")
        source = manifest.get("dataset_source")
        rows.append(("dataset", f"{manifest.get('dataset', dataset)}"
                     + (f" (from {source})" if source else "")
                     + (f", sha256 {sha}" if sha else ", sha256 not recorded")))
    env = manifest.get("environment") or {}
    versions = [f"{k} {env[k]}" for k in VERSION_KEYS if k in env]
    rows.append(("package versions", ", ".join(versions) or NOT_RECORDED))
    rows += [(ENVIRONMENT_TITLES.get(k, k), str(v)) for k, v in env.items()
             if k not in VERSION_KEYS]
    return rows


def file_rows(about: dict[str, Any]) -> list[tuple[str, str]]:
    """The provenance rows of a run on a data file (the manifest's ``dataset_file``): each
    file with its sha256, what was read, the label coding and where σ came from."""
    rows = [("data file" if len(about.get("files", {})) == 1 else f"data file {i + 1}",
             f"{path}, sha256 {digest}")
            for i, (path, digest) in enumerate(dict(about.get("files", {})).items())]
    rows.append(("data read", f"{about.get('format')}, {about.get('rows')} rows × "
                 f"{about.get('columns')} features ({about.get('training_rows')} training, "
                 f"{about.get('test_rows')} test), task {about.get('task')}; preprocessing: "
                 f"{', '.join(about.get('preprocessing') or []) or 'none'}"))
    labels = about.get("labels")
    if isinstance(labels, dict):
        rows.append(("label coding", ", ".join(
            f"{label!r} → {code}" for code, label in sorted(labels.items(),
                                                            key=lambda item: float(item[0])))))
    sigma = about.get("sigma") or {}
    value = sigma.get("value")
    if value is not None:  # a number, or a grid the trials select from
        shown = f"{value:.6g}" if isinstance(value, int | float) else json.dumps(value)
        rows.append(("kernel σ", f"{shown}, from {sigma.get('from')}"))
    return rows


def provenance(run: RunData, manifest: dict[str, Any]) -> list[tuple[str, str]]:
    """What a reader needs to redo or trust a hold-out run, as ``(what, value)`` rows: the
    manifest's (:func:`manifest_rows`), then each trial's BLAS threads, the host's GEMM rate,
    the device and kernel loops of the trials."""
    rows = manifest_rows(run.run_dir, manifest, run.dataset)
    n = len(run.records)
    threads = [max(r.blas.values(), default=0) for r in run.records]
    rows.append(("BLAS threads", _tally([str(t) for t in threads], n) if any(threads)
                 else NOT_RECORDED))
    rates = np.array([r.info["gemm_gflops"] for r in run.records if "gemm_gflops" in r.info],
                     dtype=float)
    rows.append(("host GEMM rate (float64 1024² product)",
                 f"median {format_number(float(np.median(rates)))} GFLOP/s, range "
                 f"{format_number(float(rates.min()))}–{format_number(float(rates.max()))} "
                 f"over {len(rates)} of {n} trials" if rates.size else
                 f"{NOT_RECORDED} (a smoke run, or trials stored before it was measured)"))
    rows.append(("device of the trials", _tally([str(r.info.get("device", "cpu"))
                                                 for r in run.records], n)))
    rows.append(("kernel loops of the trials",
                 _tally([str(r.info.get("kernel_path", NOT_RECORDED)) for r in run.records], n)))
    return rows


# ----------------------------------------------------------------------------- HTML
def _png(fig: plt.Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _provenance_html(rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                   for k, v in rows)
    return f'<table class="provenance">{body}</table>'


def _wide(table: pd.DataFrame) -> str:
    """A results table in one line per row, scrolled sideways where it is wider than the page
    (cells never wrap over several lines)."""
    return ('<div class="wide">' + table.to_html(index=False, escape=True, border=0,
                                                 classes="results") + "</div>")


def _notes_html(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    return '<ul class="notes">' + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>"


def _run_section(run: RunData) -> str:
    manifest = RunStore(run.run_dir).manifest()
    table, notes = results_table(run.table)
    parts = [f"<h2>{html.escape(run.name)} — {html.escape(run.dataset)}</h2>",
             "<h3>Provenance</h3>", _provenance_html(provenance(run, manifest)),
             '<p class="note">Versions, BLAS and machine are those of the run\'s last '
             "invocation (a --resume rewrites them); threads, GEMM rate, device and kernel "
             "loops are each trial's own.</p>",
             "<h3>Results</h3>", _wide(table), _notes_html(notes)]
    per_class = per_class_table(run.table)
    if per_class is not None:
        parts += ["<h3>Per class</h3>", _wide(per_class)]
    figures, skipped = captioned_figures(run)
    if figures:
        parts.append("<h3>Figures</h3>")
    for stem, (fig, caption) in figures.items():
        name = html.escape(f"{run.name}: {stem}")
        parts.append(f'<figure><img alt="{name}" src="data:image/png;base64,{_png(fig)}">'
                     f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    parts.append(_notes_html([f"not drawn: {stem} — {why}" for stem, why in skipped.items()]))
    return "\n".join(parts)


@dataclass
class ReportSection:
    """A run that its protocol summarises (not a hold-out run): a title, the manifest's
    provenance rows, the protocol's markdown table and its figures (name → figure)."""

    title: str
    provenance: list[tuple[str, str]]
    table: str
    figures: dict[str, plt.Figure] = field(default_factory=dict)


def _inline(text: str) -> str:
    """One line of markdown as HTML: escaped, with ``code`` and **bold** spans."""
    text = html.escape(text)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", text)


def markdown_html(text: str) -> str:
    """The markdown a protocol's table is written in, as HTML: headings (one level down), pipe
    tables, bullet lists and paragraphs — what the protocols' tables use, nothing more."""
    out: list[str] = []
    blocks = re.split(r"\n\s*\n", text.strip())
    for block in blocks:
        lines = block.splitlines()
        if all(line.startswith("|") for line in lines):
            rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines
                    if not re.fullmatch(r"\|?[\s:|-]+\|?", line.strip())]
            head, body = rows[0], rows[1:]
            out.append("<table><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in head)
                       + "</tr>" + "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r)
                                           + "</tr>" for r in body) + "</table>")
        elif all(line.startswith("- ") for line in lines):
            out.append('<ul class="notes">' + "".join(f"<li>{_inline(line[2:])}</li>"
                                                      for line in lines) + "</ul>")
        elif len(lines) == 1 and lines[0].startswith("#"):
            level = min(6, len(lines[0]) - len(lines[0].lstrip("#")) + 2)
            out.append(f"<h{level}>{_inline(lines[0].lstrip('#').strip())}</h{level}>")
        else:
            out.append(f"<p>{_inline(' '.join(lines))}</p>")
    return "\n".join(out)


def _protocol_section(section: ReportSection) -> str:
    parts = [f"<h2>{html.escape(section.title)}</h2>",
             "<h3>Provenance</h3>", _provenance_html(section.provenance),
             "<h3>Results</h3>", markdown_html(section.table)]
    if section.figures:
        parts.append("<h3>Figures</h3>")
    for name, fig in section.figures.items():
        alt = html.escape(f"{section.title}: {name}")
        parts.append(f'<figure><img alt="{alt}" src="data:image/png;base64,{_png(fig)}">'
                     f"<figcaption>{html.escape(name)}</figcaption></figure>")
    return "\n".join(parts)


def build_report(runs: Sequence[str | Path | ReportSection],
                 title: str = "kernreg report") -> str:
    """The HTML text: the rounding rule, then one section per run, every image inline (no
    external files). A hold-out run folder gets its provenance, results beside the papers'
    values and captioned figures; a :class:`ReportSection` (a protocol's run) its own table
    and figures.

    Raises
    ------
    ResultsError
        A folder is not a run folder, has no finished trial, or holds damaged results.
    """
    sections = [_protocol_section(r) if isinstance(r, ReportSection) else
                _run_section(load_run(r)) for r in runs]
    body = "\n".join(sections)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>\n"
            f"<body><h1>{html.escape(title)}</h1>\n"
            f'<p class="note">{html.escape(ROUNDING_RULE)}</p>\n{body}\n</body></html>\n')


def write_report(run_dirs: Sequence[str | Path | ReportSection], out_path: str | Path,
                 title: str = "kernreg report", *, option: str = "the report file") -> Path:
    """Write the HTML report of ``run_dirs`` to ``out_path`` atomically (no half-written file)
    and return its path; ``option`` names the file in a refusal (``--out``).

    Raises
    ------
    ConfigError
        ``out_path`` is a folder or part of a run's record (checked before anything is read).
    ResultsError
        A folder is not a run folder or holds damaged results.
    OutputError
        The file cannot be written.
    """
    out = check_output_file(out_path, option)
    write_text(out, build_report(run_dirs, title),
               advice="choose another report file, or free space, and try again")
    return out
