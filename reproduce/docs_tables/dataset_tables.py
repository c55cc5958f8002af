"""docs/datasets.md's table: every registered dataset, rendered from the dataset registry.

Unlike the other docs tables it reads no results file (its ``sources`` are empty): the registry
(:func:`kernreg.datasets.dataset_names`, :func:`kernreg.datasets.get_spec`) is its source, so
the block changes when a dataset is registered or its entry changes, and
tests/test_docs_tables.py fails until ``make docs`` renders it again.

Whether the offline mirror holds a dataset is read from :data:`MIRROR_FILES`, the data files
the project's mirror holds (its ``MANIFEST.md``; tests/test_docs_tables.py checks the list
against the mirror where one is present), not from the machine that renders the table.
"""

from __future__ import annotations

from urllib.parse import urlparse

from kernreg.datasets import dataset_names, get_spec
from reproduce.docs_tables.read import rows_md
from reproduce.docs_tables.registry import DocTable, register_doc_table

#: The data files of the offline mirror (``../shared/datasets``, laid out and documented by its
#: ``MANIFEST.md``), as paths relative to it.
MIRROR_FILES = frozenset({
    "coil2000/ticdata2000.txt", "coil2000/ticeval2000.txt", "coil2000/tictgts2000.txt",
    "libsvm/a9a", "libsvm/a9a.t",
    "ijcnn1/ijcnn1.trn.bz2", "ijcnn1/ijcnn1.tst.bz2",
    "covtype-derived/covertype.rda",
    "comp-activ/cpu_act.csv",
    "pumadyn-32nh/Dataset.data.gz", "pumadyn-32fh/Dataset.data.gz",
    "pumadyn-32nm/Dataset.data.gz",
    "mnist/train-images-idx3-ubyte.gz", "mnist/train-labels-idx1-ubyte.gz",
    "mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz",
})


def _mirrored(source) -> list[str]:
    """The mirror paths of ``source``'s files when the mirror holds every one, else []."""
    paths = []
    for rf in source.files:
        held = [p for p in rf.mirror_paths if p in MIRROR_FILES]
        if not held:
            return []
        paths.append(held[0])
    return paths


def _mirror_cell(spec) -> str:
    """Whether the offline mirror holds the dataset, and which of its sources."""
    for source in spec.sources:
        if paths := _mirrored(source):
            folders = sorted({p.rpartition("/")[0] + "/" for p in paths})
            return f"yes: {', '.join(f'`{f}`' for f in folders)} ({source.name})"
    for source in spec.sources:
        if all(rf.package_file for rf in source.files):
            return f"not needed: {source.name} ships it"
    hosts = sorted({urlparse(rf.urls[0]).hostname for s in spec.sources for rf in s.files})
    return f"no: downloaded from {', '.join(hosts)}"


def _files_cell(spec) -> str:
    """Each source's files, in the order they are tried."""
    return "; ".join(f"{source.name}: {', '.join(f'`{rf.name}`' for rf in source.files)}"
                     for source in spec.sources)


def render_datasets() -> str:
    """docs/datasets.md: the registry's datasets, sizes, paper σ and m, sources, the mirror."""
    main, prep = [], []
    for name in dataset_names():
        spec = get_spec(name)
        main.append([
            f"`{spec.name}`: {spec.title}", spec.task, f"{spec.n_train} / {spec.n_test}",
            str(spec.d), "—" if spec.sigma is None else f"{spec.sigma:g}",
            "—" if spec.m is None else str(spec.m),
            "—" if spec.stopping_threshold is None else f"{spec.stopping_threshold:g}",
            spec.reference, _mirror_cell(spec)])
        prep.append([f"`{spec.name}`", _files_cell(spec), spec.split.describe(),
                     "; ".join(p.description for p in spec.preprocessing) or "none"])
    main, prep = ([[c.replace("|", r"\|") for c in row] for row in t] for t in (main, prep))
    return (rows_md(["dataset", "task", "train / test", "d", "paper σ", "paper m", "θ",
                     "used in", "offline mirror"], main)
            + "\n\nFiles, split and preprocessing (in order):\n\n"
            + rows_md(["dataset", "files (by source, in the order tried)", "split",
                       "preprocessing"], prep))


register_doc_table(DocTable(
    "datasets", (), render_datasets,
    "docs/datasets.md: every registered dataset (from the registry, not results/)"))
