"""The tables of README.md and docs/*.md that report measured numbers, rendered from results/.

A docs table is a marker block in a Markdown file (``<!-- kernreg:table NAME -->`` …
``<!-- /kernreg:table -->``) and an entry NAME in :data:`DOC_TABLES` (``registry``): the
committed results files it reads and the function that renders it from them
(``paper_tables``, ``speed_tables``, ``study_tables``, ``theory_tables``; each module registers
its tables at its end; ``dataset_tables`` renders from the dataset registry instead, with no
results file). :func:`render_text` re-renders every block of a file's text,
:func:`render_docs` writes the files whose blocks changed, atomically (``markers``).
``make docs`` runs it; ``tests/test_docs_tables.py`` fails when a committed file differs from
what its sources render, or when a block names no known table or a missing source.
"""

from reproduce.docs_tables import (  # noqa: F401 (register)
    dataset_tables,
    paper_tables,
    speed_tables,
    study_tables,
    theory_tables,
)
from reproduce.docs_tables.markers import (
    BLOCK,
    blocks,
    check_markers,
    doc_files,
    render_block,
    render_docs,
    render_text,
)
from reproduce.docs_tables.read import read_md_tables, split_row
from reproduce.docs_tables.registry import CODE_TABLES, DOC_TABLES, DocTable, register_doc_table

__all__ = [
    "BLOCK",
    "CODE_TABLES",
    "DOC_TABLES",
    "DocTable",
    "blocks",
    "check_markers",
    "doc_files",
    "read_md_tables",
    "register_doc_table",
    "render_block",
    "render_docs",
    "render_text",
    "split_row",
]
