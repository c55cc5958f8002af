"""The reproduction layer: every table, figure and benchmark of the project, each registered
with its producer (:mod:`reproduce.registry`), one module per source document.

It lives beside the installed package, not in it (as scikit-learn keeps ``benchmarks/`` and
``doc/`` outside ``sklearn``): ``kernreg`` is what users install, this is how this repository
makes its results. ``python -m reproduce list`` lists the artifacts; ``python -m reproduce make
NAME`` makes one; ``python -m reproduce readme`` writes ``results/README.md``.
"""

# each source module registers its artifacts when imported, in this (the listing's) order
from reproduce import (
    bach,
    bench,
    beyond,
    lim,
    nytro,
    thesis_ch5,
    thesis_ch6,
    thesis_ch7,
    thesis_ch8,
)
from reproduce.registry import ARTIFACTS, SOURCES, Artifact, get_artifact, register

__all__ = ["ARTIFACTS", "SOURCES", "Artifact", "bach", "bench", "beyond", "get_artifact", "lim",
           "nytro", "register", "thesis_ch5", "thesis_ch6", "thesis_ch7", "thesis_ch8"]
