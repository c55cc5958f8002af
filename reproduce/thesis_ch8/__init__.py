"""The thesis, Chapter 8 (incremental semiparametric inverse dynamics), Figure 8.4 — SIMULATED on
the iCub's published URDF (``icub-models`` + ``idyntree``), standing in for the private
recordings. See ``docs/thesis_ch8.md``."""

from reproduce.registry import load_artifacts

load_artifacts(__name__)
