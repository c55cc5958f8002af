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
``path_`` and the selected ``best_lambda_`` / ``best_iter_``) and ``predict(X)``.
"""

from __future__ import annotations

from kernreg.solvers._base import DEFAULT_LAMBDAS, KernelEstimator
from kernreg.solvers._metrics import misclassification_rate, rmse
from kernreg.solvers.incremental import IncrementalNystromKRLS
from kernreg.solvers.kols import KOLS
from kernreg.solvers.krls import KRLS
from kernreg.solvers.landweber import KernelLandweber
from kernreg.solvers.model_selection import holdout_split
from kernreg.solvers.nkrls import NystromKRLS
from kernreg.solvers.nytro import Nytro
from kernreg.solvers.random_features import RandomFeaturesKRLS

__all__ = [
    "ALGORITHMS",
    "DEFAULT_LAMBDAS",
    "KOLS",
    "KRLS",
    "IncrementalNystromKRLS",
    "KernelEstimator",
    "KernelLandweber",
    "NystromKRLS",
    "Nytro",
    "RandomFeaturesKRLS",
    "get_algorithm",
    "holdout_split",
    "misclassification_rate",
    "rmse",
]

#: Estimator classes by algorithm name (the names used in configs and the CLI).
ALGORITHMS: dict[str, type[KernelEstimator]] = {
    "kols": KOLS,
    "krls": KRLS,
    "es": KernelLandweber,
    "nkrls": NystromKRLS,
    "nytro": Nytro,
    "inkrls": IncrementalNystromKRLS,
    "rf": RandomFeaturesKRLS,
}


def get_algorithm(name: str) -> type[KernelEstimator]:
    """Return the estimator class registered as ``name`` (case-insensitive).

    Raises
    ------
    ValueError
        If ``name`` is unknown; the message lists the allowed names.
    """
    key = name.lower() if isinstance(name, str) else name
    if key not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {sorted(ALGORITHMS)}, got {name!r}")
    return ALGORITHMS[key]
