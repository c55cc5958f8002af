"""Less is More (Rudi, Camoriano, Rosasco 2015): Table 1 (incremental Nyström, as the
authors' code ran it and as the paper reads), its full columns, Figure 1's heat maps and point
values, Figure 2 (time against m).

Its artifacts are declared in ``artifacts.yaml`` beside this file."""

from reproduce.registry import load_artifacts

load_artifacts(__name__)
