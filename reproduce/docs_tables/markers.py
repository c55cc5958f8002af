"""Marker blocks in README.md and docs/*.md, filled from results/ by their docs tables.

A block ``<!-- kernreg:table NAME -->`` … ``<!-- /kernreg:table -->`` holds the Markdown that
docs table NAME (:data:`~reproduce.docs_tables.registry.DOC_TABLES`, or ``CODE_TABLES`` for one
rendered from a registry of the code) renders from its sources;
markers inside fenced code are examples, not blocks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from kernreg.atomic import write_text
from kernreg.errors import ResultsError
from reproduce.docs_tables.registry import CODE_TABLES, DOC_TABLES

BLOCK = re.compile(r"(<!-- kernreg:table (?P<name>[\w.-]+) -->\n)(?P<body>.*?)"
                   r"(<!-- /kernreg:table -->)", re.S)
_OPEN = re.compile(r"<!-- kernreg:table\b")
_CLOSE = "<!-- /kernreg:table -->"


def render_block(name: str, results_dir: Path, where: str = "") -> str:
    """The Markdown of docs table ``name`` rendered from ``results_dir``."""
    table = DOC_TABLES.get(name) or CODE_TABLES.get(name)
    at = f"{where}: " if where else ""
    if table is None:
        raise ResultsError(f"{at}marker block names unknown docs table {name!r} (known: "
                           f"{', '.join(sorted([*DOC_TABLES, *CODE_TABLES]))})")
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
