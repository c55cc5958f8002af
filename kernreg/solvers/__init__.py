"""Kernel least-squares solvers as scikit-learn estimators, and a registry by name.

=========  =========================  ================================  =============
Every estimator has ``fit(X, y, X_val=None, y_val=None)`` (with validation data: the whole path,
``path_`` and the selected ``best_lambda_`` / ``best_iter_``), ``predict(X)`` and
``selection()`` (what a trial records). Each algorithm registers an
:class:`~kernreg.solvers.registry.AlgorithmSpec` in its own module (see
:mod:`kernreg.solvers.registry`).
"""

from __future__ import annotations

# Importing an algorithm's module registers it (its spec's ``order`` places it in tables).
from kernreg.solvers.algorithms.askotch import ASkotch
from kernreg.solvers.algorithms.eigenpro import EigenPro
from kernreg.solvers.algorithms.incremental import IncrementalNystromKRLS
from kernreg.solvers.algorithms.kols import KOLS
from kernreg.solvers.algorithms.krls import KRLS
from kernreg.solvers.algorithms.landweber import KernelLandweber
from kernreg.solvers.algorithms.libsvm import LibSVM
from kernreg.solvers.algorithms.nkrls import NystromKRLS
from kernreg.solvers.algorithms.nytro import Nytro
from kernreg.solvers.algorithms.pcg import NystromPCG
from kernreg.solvers.algorithms.random_features import RandomFeaturesKRLS
from kernreg.solvers.algorithms.rpcholesky_pcg import RPCholeskyPCG
from kernreg.solvers.algorithms.sgm import OnePassSGM
from kernreg.solvers.algorithms.sgm_features import FeatureSGM
from kernreg.solvers.algorithms.sigm import MultiPassSGM
from kernreg.solvers.blocks.base import DEFAULT_LAMBDAS, KernelEstimator, Selection
from kernreg.solvers.blocks.buffers import reuse_buffers
from kernreg.solvers.blocks.holdout import holdout_split
from kernreg.solvers.blocks.metrics import misclassification_rate, rmse
from kernreg.solvers.blocks.pivoted_cholesky import PivotedCholeskySampler, RPCholeskySampler
from kernreg.solvers.classifiers import (
    IncrementalNystromKRLSClassifier,
    KernelLandweberClassifier,
    KOLSClassifier,
    KRLSClassifier,
    NystromKRLSClassifier,
    NystromPCGClassifier,
    NytroClassifier,
    RandomFeaturesKRLSClassifier,
)
from kernreg.solvers.path_cv import PathCV
from kernreg.solvers.registry import (
    AlgorithmSpec,
    MemoryProblem,
    algorithm_names,
    algorithm_specs,
    algorithm_title,
    get_algorithm_spec,
    register,
    unregister,
)

__all__ = [
    "DEFAULT_LAMBDAS",
    "KOLS",
    "KRLS",
    "ASkotch",
    "AlgorithmSpec",
    "EigenPro",
    "FeatureSGM",
    "IncrementalNystromKRLS",
    "IncrementalNystromKRLSClassifier",
    "KOLSClassifier",
    "KRLSClassifier",
    "KernelEstimator",
    "KernelLandweber",
    "KernelLandweberClassifier",
    "LibSVM",
    "MemoryProblem",
    "MultiPassSGM",
    "NystromKRLS",
    "NystromKRLSClassifier",
    "NystromPCG",
    "NystromPCGClassifier",
    "Nytro",
    "NytroClassifier",
    "OnePassSGM",
    "PathCV",
    "PivotedCholeskySampler",
    "RPCholeskyPCG",
    "RPCholeskySampler",
    "RandomFeaturesKRLS",
    "RandomFeaturesKRLSClassifier",
    "Selection",
    "algorithm_names",
    "algorithm_specs",
    "algorithm_title",
    "get_algorithm",
    "get_algorithm_spec",
    "holdout_split",
    "misclassification_rate",
    "register",
    "reuse_buffers",
    "rmse",
    "unregister",
]


def get_algorithm(name: str) -> type[KernelEstimator]:
    """Return the estimator class registered as ``name`` (case-insensitive).

    Raises
    ------
    ValueError
        If ``name`` is unknown; the message lists the allowed names.
    """
    return get_algorithm_spec(name).estimator
