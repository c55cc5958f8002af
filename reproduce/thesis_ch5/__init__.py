"""The thesis, Chapter 5 (random features and Nyström): Figure 5.1, Figure 5.2 (Theorem 11's
rates, measured) with its sensitivity runs, and Figure 5.3 (test error against m).

Its artifacts are declared in ``artifacts.yaml`` beside this file."""

from reproduce.registry import load_artifacts

load_artifacts(__name__)
