"""Render the measured-number tables of README.md and docs/*.md from the committed results.

Every ``<!-- kernreg:table NAME -->`` … ``<!-- /kernreg:table -->`` block is re-rendered by
its entry in ``reproduce.docs_tables.DOC_TABLES`` from its results files; files whose blocks
changed are rewritten atomically. ``--check`` writes nothing and exits 1 when a file would
change (what tests/test_docs_tables.py asserts).

    python -m reproduce.render_docs            # make docs
    python -m reproduce.render_docs --check
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kernreg.errors import KernregError
from reproduce.docs_tables import CODE_TABLES, DOC_TABLES, render_docs

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the folder holding README.md and docs/ (default: this checkout)")
    parser.add_argument("--results", type=Path, help="the results folder (default: ROOT/results)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a file is not what its sources render")
    parser.add_argument("--list", action="store_true", help="list the docs tables and sources")
    args = parser.parse_args()
    if args.list:
        for table in [*DOC_TABLES.values(), *CODE_TABLES.values()]:
            sources = ", ".join(table.sources) or "(the code's registry)"
            print(f"{table.name:20s} {sources:28s} {table.description}")
        return 0
    try:
        changed = render_docs(args.root, args.results, check=args.check)
    except KernregError as err:
        print(f"render_docs: {err}", file=sys.stderr)
        return 2
    for path in changed:
        print(f"{'differs from its results' if args.check else 'rendered'}: "
              f"{path.relative_to(args.root)}")
    if not changed:
        print("docs tables: up to date with results/")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
