"""Kernel least-squares solvers as scikit-learn estimators, and a registry by name.

=========  =========================  ==============================  ==================
name       class                      solution                        path parameter
=========  =========================  ==============================  ==================
``kols``   :class:`KOLS`              ``α = K⁺ y``                    none
``krls``   :class:`KRLS`              ``α = (K + λnI)⁻¹ y``           λ
``es``     :class:`KernelLandweber`   Landweber on ``K``              iteration t
``nkrls``  :class:`NystromKRLS`       ``α = R⁻¹(AᵀA + λnI)⁻¹Aᵀy``     λ
``nytro``  :class:`Nytro`             Landweber on ``A = K_nm R⁻¹``   iteration t
``inkrls`` :class:`IncrementalNys…`   NKRLS on the first m' centers   λ and m'
``rf``     :class:`RandomFeatures…`   ridge on D' Fourier features    λ and D'
``sgm``    :class:`OnePassSGM`        one SGM pass per step size      step size (η or θ)
``sgm_rf`` :class:`FeatureSGM`        SGM on D random features        step size (η or θ)
``sigm``   :class:`MultiPassSGM`      SGM epochs (incremental)        epoch
``libsvm`` :class:`LibSVM`            C-SVM by LIBSVM (SVC)           C
=========  =========================  ==============================  ==================

Every estimator has ``fit(X, y, X_val=None, y_val=None)`` (with validation data: the whole path,
``path_`` and the selected ``best_lambda_`` / ``best_iter_``), ``predict(X)`` and
``selection()`` (what a trial records). Each algorithm registers an
:class:`~kernreg.solvers.registry.AlgorithmSpec` in its own module (see
:mod:`kernreg.solvers.registry`).
"""

from __future__ import annotations

# Importing an algorithm's module registers it (its spec's ``order`` places it in tables).
from kernreg.solvers.algorithms.incremental import IncrementalNystromKRLS
from kernreg.solvers.algorithms.kols import KOLS
from kernreg.solvers.algorithms.krls import KRLS
from kernreg.solvers.algorithms.landweber import KernelLandweber
from kernreg.solvers.algorithms.libsvm import LibSVM
from kernreg.solvers.algorithms.nkrls import NystromKRLS
from kernreg.solvers.algorithms.nytro import Nytro
from kernreg.solvers.algorithms.pcg import NystromPCG
from kernreg.solvers.algorithms.random_features import RandomFeaturesKRLS
from kernreg.solvers.algorithms.sgm import OnePassSGM
from kernreg.solvers.algorithms.sgm_features import FeatureSGM
from kernreg.solvers.algorithms.sigm import MultiPassSGM
from kernreg.solvers.blocks.base import DEFAULT_LAMBDAS, KernelEstimator, Selection
from kernreg.solvers.blocks.buffers import reuse_buffers
from kernreg.solvers.blocks.holdout import holdout_split
from kernreg.solvers.blocks.metrics import misclassification_rate, rmse
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
    "AlgorithmSpec",
    "FeatureSGM",
    "IncrementalNystromKRLS",
    "KernelEstimator",
    "KernelLandweber",
    "LibSVM",
    "MemoryProblem",
    "MultiPassSGM",
    "NystromKRLS",
    "NystromPCG",
    "Nytro",
    "OnePassSGM",
    "RandomFeaturesKRLS",
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
