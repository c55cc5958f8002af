"""The thesis, Chapter 7 (incremental RLSC): Table 7.1 / Figure 7.3 on MNIST with its
selection-sensitivity and Nyström-feature readings, and Figure 7.1.

Its artifacts are declared in ``artifacts.yaml`` beside this file."""

from reproduce.registry import load_artifacts

load_artifacts(__name__)
