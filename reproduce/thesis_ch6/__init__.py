"""The thesis, Chapter 6 (stochastic gradient methods, hinge loss): Table 6.2 (SGM / SIGM /
LIBSVM), its full rows and their costs, Figures 6.1 and 6.2, and the checks behind the
docs' reasons.

Its artifacts are declared in ``artifacts.yaml`` beside this file."""

from reproduce.registry import load_artifacts

load_artifacts(__name__)
