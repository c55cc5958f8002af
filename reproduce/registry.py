"""The artifact registry: every committed result of the project and how it is made.

An :class:`Artifact` is one result (a table, a figure, a benchmark's CSV) as the source
documents' targets ask for it: its name, the source it reproduces (``nytro``, ``lim``,
``thesis_ch5`` … or ``bench`` for this project's own measurements), the configs and inputs it
reads, the commands that make it (``kernreg`` calls and this folder's scripts), the files under
``results/`` it writes and the docs tables those feed. Each source module of this package ends
by loading its ``artifacts.yaml`` (:func:`load_artifacts`: one entry per artifact, the fields
of :class:`Artifact`), as each dataset, kernel and algorithm of ``kernreg`` ends with its
registration; ``python -m reproduce make NAME`` runs one and the
Makefile's targets are aliases of it. ``tests/test_reproduce.py`` holds the registry to the
files: every committed file under ``results/`` is an output of exactly one artifact.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path

import yaml

from kernreg.registry import Registry

__all__ = ["ARTIFACTS", "SOURCES", "Artifact", "executable", "get_artifact", "load_artifacts",
           "register"]

#: The sources, in the order the registry lists them: the documents of ../shared/seeds and
#: this project's own measurements.
SOURCES = {
    "nytro": "NYTRO (Camoriano, Angles, Rudi, Rosasco 2016) and its appendix",
    "lim": "Less is More: Nyström computational regularization (Rudi, Camoriano, Rosasco 2015)",
    "thesis_ch5": "the thesis, Chapter 5: random features and Nyström",
    "thesis_ch6": "the thesis, Chapter 6: stochastic gradient methods (hinge loss)",
    "thesis_ch7": "the thesis, Chapter 7: incremental RLSC",
    "thesis_ch8": "the thesis, Chapter 8: incremental semiparametric inverse dynamics "
                  "(simulated on the iCub URDF)",
    "bach": "Bach 2013: sharp analysis of low-rank kernel matrix approximations",
    "beyond": "beyond the papers: samplers, acceleration, random features, the advisor",
    "bench": "this project's benchmarks: speed against the paper, the floor and itself",
}


@dataclass(frozen=True)
class Artifact:
    """One result and its producer.

    Attributes
    ----------
    name : str
        The name ``python -m reproduce make`` takes (also the Makefile alias, with ``-``).
    source : str
        A key of :data:`SOURCES`.
    summary : str
        What the artifact is, in one line.
    steps : tuple of tuple of str
        The commands that make it, in order: argument lists whose first word is ``kernreg``
        (this environment's command) or ``python`` (this environment's interpreter); a word
        ``{out}`` stands for the results folder.
    outputs : tuple of str
        The committed files it writes, relative to ``results/``.
    inputs : tuple of str
        The configs and other committed files it reads, relative to the repository.
    doc_tables : tuple of str
        The docs tables (``<!-- kernreg:table NAME -->``) its outputs feed: ``make`` renders
        them after the steps.
    duration : str
        How long it takes on the reference machine (2 cores), in words.
    smoke : tuple of tuple of str
        The same outputs on tiny data, in seconds: steps whose word ``{out}`` stands for a
        fresh results folder, where they must write exactly the artifact's ``outputs``, and
        ``{work}`` for a scratch folder (the run folders of ``kernreg run CONFIG --smoke --out
        {work}``) removed after (``python -m reproduce make NAME --smoke DIR``;
        ``tests/test_reproduce.py`` runs every artifact's smoke steps).
    render_from : int or None
        The index of the first step that only renders the outputs from the runs' folders
        (``python -m reproduce make NAME --render-only`` runs those: seconds, after e.g.
        ``kernreg run configs/adult_all.yaml --only kols`` changed one run).
    """

    name: str
    source: str
    summary: str
    steps: tuple[tuple[str, ...], ...]
    outputs: tuple[str, ...]
    inputs: tuple[str, ...] = ()
    doc_tables: tuple[str, ...] = ()
    duration: str = ""
    render_from: int | None = None
    smoke: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"artifact {self.name!r}: source must be one of {list(SOURCES)}, "
                             f"got {self.source!r}")
        for step in (*self.steps, *self.smoke):
            if not step or step[0] not in ("kernreg", "python"):
                raise ValueError(f"artifact {self.name!r}: a step starts with 'kernreg' or "
                                 f"'python', got {step!r}")
        if self.render_from is not None and not 0 <= self.render_from < len(self.steps):
            raise ValueError(f"artifact {self.name!r}: render_from must index its steps")


def executable(word: str) -> str:
    """What a step's first word runs: this environment's interpreter for ``python``, its
    ``kernreg`` command (beside the interpreter) for ``kernreg``."""
    return sys.executable if word == "python" else str(Path(sys.executable).with_name(word))


# ``-`` and ``_`` alike: the Makefile's targets spell the names with ``-``
_ARTIFACTS: Registry[Artifact] = Registry("artifact", lambda artifact: artifact.name, KeyError,
                                          fold=lambda name: name.replace("-", "_"))
#: Every registered artifact by name, in registration order (a live, read-only view of the
#: registry).
ARTIFACTS: Mapping[str, Artifact] = _ARTIFACTS.as_mapping()
#: Add an artifact to :data:`ARTIFACTS` (a name once); the artifact of a name (``-`` and ``_``
#: alike; else a ``KeyError`` naming the registered ones).
register, get_artifact = _ARTIFACTS.register, _ARTIFACTS.get


def load_artifacts(package: str) -> list[Artifact]:
    """Register the artifacts declared in ``artifacts.yaml`` of the source package ``package``
    (``reproduce.<source>``): a list of mappings with the fields of :class:`Artifact` but
    ``source`` (the package's), each step one command line split like a shell's.

    Raises
    ------
    ValueError
        Naming the file and the entry, for a field :class:`Artifact` does not have or lacks.
    """
    source = package.rpartition(".")[2]
    path = resources.files(package) / "artifacts.yaml"
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    known = {f.name for f in fields(Artifact)} - {"source"}
    required = {"name", "summary", "steps", "outputs"}
    loaded = []
    for i, entry in enumerate(entries):
        where = f"{package}/artifacts.yaml, entry {i} ({entry.get('name', '?')})"
        if set(entry) - known or required - set(entry):
            raise ValueError(f"{where}: unknown fields {sorted(set(entry) - known)}, missing "
                             f"{sorted(required - set(entry))}")
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in entry.items()}
        for steps in ("steps", "smoke"):
            if steps in entry:
                values[steps] = tuple(tuple(shlex.split(step)) for step in entry[steps])
        loaded.append(register(Artifact(source=source, **values)))
    return loaded
