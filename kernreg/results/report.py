"""A self-contained HTML report of one or more runs: summary tables and embedded figures."""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt

from kernreg.results.figures import figures_of_run
from kernreg.results.store import RunData, load_run
from kernreg.results.tables import summary_table

__all__ = ["build_report"]

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.25rem .6rem;text-align:right}
th{background:#f2f2f2} td:first-child,th:first-child{text-align:left}
figure{margin:1rem 0} img{max-width:100%} figcaption{font-size:.85rem;color:#555}
"""


def _png(fig: plt.Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _run_section(run: RunData) -> str:
    parts = [f"<h2>{html.escape(run.name)} — {html.escape(run.dataset)}</h2>",
             summary_table(run.table).to_html(index=False, escape=True, border=0)]
    for stem, fig in figures_of_run(run).items():
        parts.append(f'<figure><img alt="{html.escape(stem)}" '
                     f'src="data:image/png;base64,{_png(fig)}">'
                     f"<figcaption>{html.escape(stem)}</figcaption></figure>")
    return "\n".join(parts)


def build_report(run_dirs: Sequence[str | Path], title: str = "kernreg report") -> str:
    """The HTML text: one section per run, every image inline (no external files)."""
    runs = [load_run(d) for d in run_dirs]
    body = "\n".join(_run_section(r) for r in runs)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>\n"
            f"<body><h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n")
