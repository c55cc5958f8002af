"""The registry of docs tables: each a name, its results sources and its renderer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kernreg.registry import Registry


@dataclass(frozen=True)
class DocTable:
    """A table of the docs: its results sources and how it is rendered from them.

    ``render(*paths)`` gets the source paths (in the order of ``sources``, under the results
    folder) and returns Markdown: a table, optionally with a caption line before it. A table
    with no ``sources`` is rendered from a registry of the code instead (``render()``), and is
    kept apart, in :data:`CODE_TABLES`.
    """

    name: str
    sources: tuple[str, ...]
    render: Callable[..., str]
    description: str


_DOC_TABLES: Registry[DocTable] = Registry("docs table", lambda table: table.name)
_CODE_TABLES: Registry[DocTable] = Registry("docs table", lambda table: table.name)
#: Every docs table rendered from results/, by name: the name used in
#: ``<!-- kernreg:table NAME -->`` (a live, read-only view of the registry).
DOC_TABLES: Mapping[str, DocTable] = _DOC_TABLES.as_mapping()
#: The docs tables rendered from a registry of the code (no results file), by name.
CODE_TABLES: Mapping[str, DocTable] = _CODE_TABLES.as_mapping()


def register_doc_table(table: DocTable) -> None:
    """Add a docs table (its name must be new among both kinds)."""
    if table.name in DOC_TABLES or table.name in CODE_TABLES:
        raise ValueError(f"docs table {table.name!r} is already registered")
    (_DOC_TABLES if table.sources else _CODE_TABLES).register(table)
