"""kernreg: an experiment runner for large-scale kernel least squares.

Reproduces and extends the NYTRO (Camoriano et al., AISTATS 2016) and "Less is More: Nyström
Computational Regularization" (Rudi et al., NeurIPS 2015) experiments.
"""

__version__ = "0.1.0"
