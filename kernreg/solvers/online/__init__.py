"""Online regressors of the thesis's Chapter 8: parametric, nonparametric and semiparametric
recursive regularized least squares (RRLS), for multi-output targets such as a wrench, and
their registry (:mod:`kernreg.solvers.online.registry`).

* :class:`ParametricRLS` (P, registered as ``parametric``): ``y ≈ Y(x) π`` with a known
  regressor ``Y(x)`` (k outputs × p parameters, e.g. the rigid-body-dynamics regressor of a
  force/torque sensor) and the parameters ``π`` learned by RRLS towards a prior ``π₀`` (zero by
  default).
* :class:`RandomFeaturesRLS` (NP, ``random_features``): ``y ≈ Wᵀ z(x)`` with Gaussian random
  Fourier features ``z(x) = ψ(x)/√D`` (:class:`~kernreg.features.RandomFourierFeatures`) and
  ``W`` learned by RRLS.
* :class:`SemiparametricRLS` (SP, ``semiparametric``): P, then NP on P's residual
  ``y − Y(x)π`` (π after its update on the same sample), predicting the sum.

Each keeps the exact ridge solution of the samples seen so far
(:class:`~kernreg.solvers.blocks.recursive_rls.RecursiveRidge`): ``partial_fit`` adds samples,
``predict_update`` predicts each sample before learning from it (the test-then-update protocol)
and ``fit`` starts over. :class:`~kernreg.solvers.online.selection.HoldoutSelection` chooses
their σ and λ on a training set; :func:`windowed_rmse` is the protocol's error curve.
"""

from __future__ import annotations

# Importing an estimator's module registers it (its spec's ``order`` places it in tables).
from kernreg.solvers.online.parametric import ParametricRLS
from kernreg.solvers.online.random_features import RandomFeaturesRLS
from kernreg.solvers.online.registry import (
    OnlineSpec,
    get_online_spec,
    online_names,
    online_specs,
    register,
    unregister,
)
from kernreg.solvers.online.selection import HoldoutSelection
from kernreg.solvers.online.semiparametric import SemiparametricRLS
from kernreg.solvers.online.window import windowed_rmse

__all__ = ["HoldoutSelection", "OnlineSpec", "ParametricRLS", "RandomFeaturesRLS",
           "SemiparametricRLS", "get_online_spec", "online_names", "online_specs", "register",
           "unregister", "windowed_rmse"]
