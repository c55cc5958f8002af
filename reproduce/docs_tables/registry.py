"""The registry of docs tables: each a name, its results sources and its renderer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class DocTable:
    """A table of the docs: its results sources and how it is rendered from them.

    ``render(*paths)`` gets the source paths (in the order of ``sources``, under the results
    folder) and returns Markdown: a table, optionally with a caption line before it.
    """

    name: str
    sources: tuple[str, ...]
    render: Callable[..., str]
    description: str


#: Every docs table by name: the name used in ``<!-- kernreg:table NAME -->``.
DOC_TABLES: dict[str, DocTable] = {}


def register_doc_table(table: DocTable) -> None:
    """Add a docs table (its name must be new)."""
    if table.name in DOC_TABLES:
        raise ValueError(f"docs table {table.name!r} is already registered")
    DOC_TABLES[table.name] = table
