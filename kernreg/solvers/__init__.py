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
=========  =========================  ==============================  ==================

Every estimator has ``fit(X, y, X_val=None, y_val=None)`` (with validation data: the whole path,
``path_`` and the selected ``best_lambda_`` / ``best_iter_``), ``predict(X)`` and
``selection()`` (what a trial records). Each algorithm registers an
:class:`~kernreg.solvers.registry.AlgorithmSpec` in its own module (see
:mod:`kernreg.solvers.registry`).
"""

from __future__ import annotations

# Importing an algorithm's module registers it (its spec's ``order`` places it in tables).
from kernreg.solvers._base import DEFAULT_LAMBDAS, KernelEstimator, Selection
from kernreg.solvers._buffers import reuse_buffers
from kernreg.solvers._metrics import misclassification_rate, rmse
from kernreg.solvers.incremental import IncrementalNystromKRLS
from kernreg.solvers.kols import KOLS
from kernreg.solvers.krls import KRLS
from kernreg.solvers.landweber import KernelLandweber
from kernreg.solvers.model_selection import holdout_split
from kernreg.solvers.nkrls import NystromKRLS
from kernreg.solvers.nytro import Nytro
from kernreg.solvers.pcg import NystromPCG
from kernreg.solvers.pivoted_cholesky import PivotedCholeskySampler, RPCholeskySampler
from kernreg.solvers.random_features import RandomFeaturesKRLS
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
    "IncrementalNystromKRLS",
    "KernelEstimator",
    "KernelLandweber",
    "MemoryProblem",
    "NystromKRLS",
    "NystromPCG",
    "Nytro",
    "PivotedCholeskySampler",
    "RPCholeskySampler",
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
