"""Beyond the papers: center samplers, the ν-method, random features and PCG side by side, and
the regime advisor against the measured winners.

Its artifacts are declared in ``artifacts.yaml`` beside this file."""

from reproduce.registry import load_artifacts

load_artifacts(__name__)
