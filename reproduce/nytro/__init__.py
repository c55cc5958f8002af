"""NYTRO (Camoriano et al. 2016): Table 1 (datasets), Table 2 (NKRLS, NYTRO, KOLS, KRLS, ES),
Figure 1 (the regime map, placed by ``kernreg advise``) and Figure 2 (time against m).

Its artifacts are declared in ``artifacts.yaml`` beside this file."""

from reproduce.registry import load_artifacts

load_artifacts(__name__)
