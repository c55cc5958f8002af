"""Bach 2013 (sharp analysis of low-rank kernel matrix approximations): Figures 1-3 and
Table 1.

Its artifacts are declared in ``artifacts.yaml`` beside this file."""

from reproduce.registry import load_artifacts

load_artifacts(__name__)
