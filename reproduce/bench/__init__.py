"""This project's benchmarks: speed against the paper, the floor and itself. Each writes its
CSV rows (replacing the rows of the cells it measured) with the host's rates beside them.

Its artifacts are declared in ``artifacts.yaml`` beside this file."""

from reproduce.registry import load_artifacts

load_artifacts(__name__)
