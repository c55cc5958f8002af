"""Model SP of thesis Chapter 8: P, then NP on P's residual, predicting the sum. It is made of
the P and NP estimators (:mod:`~kernreg.solvers.online.parametric`,
:mod:`~kernreg.solvers.online.random_features`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kernreg.solvers.blocks.params import POSITIVE
from kernreg.solvers.online.base import OnlineRegressor
from kernreg.solvers.online.parametric import ParametricRLS
from kernreg.solvers.online.random_features import RANDOM_FEATURES_SCHEMA, RandomFeaturesRLS
from kernreg.solvers.online.registry import OnlineSpec, Regressor, register
from kernreg.solvers.online.selection import HoldoutSelection

__all__ = ["SemiparametricRLS"]


class SemiparametricRLS(OnlineRegressor):
    """P plus NP on P's residual (model SP): ``y ≈ Y(x)π + Wᵀz(x)``.

    Each sample first updates π (as :class:`ParametricRLS`), then ``W`` on the residual
    ``y − Y(x)π`` of the updated π (as :class:`RandomFeaturesRLS`).

    Parameters
    ----------
    regressor : callable
        As :class:`ParametricRLS`.
    n_components : int, default 500
    sigma : float, default 1.0
    lam_parametric : float, default 1.0
        λ of the parametric part.
    lam : float, default 1.0
        λ of the random-features part.
    prior : array-like of shape (p,), optional
        ``π₀`` of the parametric part.
    nonparametric : bool, default True
        False leaves the random-features part out (then SP is P).
    form_parametric : {"cholesky", "inverse"}, default "cholesky"
        The parametric part's form.
    form : {"cholesky", "inverse"}, default "inverse"
        The random-features part's form.
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    parametric_ : ParametricRLS
    nonparametric_ : RandomFeaturesRLS or None
    n_samples_seen_ : int
    """

    def __init__(self, regressor: Regressor, n_components: int = 500, sigma: float = 1.0,
                 lam_parametric: float = 1.0, lam: float = 1.0, *, prior: Any = None,
                 nonparametric: bool = True, form_parametric: str = "cholesky",
                 form: str = "inverse", random_state: Any = None):
        self.regressor = regressor
        self.n_components = n_components
        self.sigma = sigma
        self.lam_parametric = lam_parametric
        self.lam = lam
        self.prior = prior
        self.nonparametric = nonparametric
        self.form_parametric = form_parametric
        self.form = form
        self.random_state = random_state

    def _start(self, X: np.ndarray, y: np.ndarray) -> None:
        self.parametric_ = ParametricRLS(self.regressor, self.lam_parametric, prior=self.prior,
                                         form=self.form_parametric)
        self.parametric_._start(X, y)
        self.parametric_.n_samples_seen_ = 0
        self.nonparametric_ = None
        if self.nonparametric:
            self.nonparametric_ = RandomFeaturesRLS(self.n_components, self.sigma, self.lam,
                                                    form=self.form,
                                                    random_state=self.random_state)
            self.nonparametric_._start(X, y)
            self.nonparametric_.n_samples_seen_ = 0

    def _step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        P = self.parametric_
        Y = np.asarray(P.regressor(x), dtype=np.float64)[0]
        prediction = (Y @ P.rls_.coef)[:, 0]
        P.rls_.update(Y, y[:, None])
        P.n_samples_seen_ += 1
        if self.nonparametric_ is not None:
            residual = y - (Y @ P.rls_.coef)[:, 0]
            prediction = prediction + self.nonparametric_._step(x, residual)
            self.nonparametric_.n_samples_seen_ += 1
        return prediction

    def predict(self, X: Any) -> np.ndarray:
        """``Y(X)π + Z(X)W`` (n, k)."""
        out = self.parametric_.predict(X)
        if self.nonparametric_ is not None:
            out = out + self.nonparametric_.predict(X)
        return out


def _select(candidates: Mapping[str, Sequence[float]], holdout: HoldoutSelection,
            params: Mapping[str, Any]) -> dict[str, float]:
    """λ_P as P selects it, then (σ, λ) of the random features on P's batch residual."""
    lam_p = holdout.best_parametric(candidates["lam_p"])
    sigma, lam = holdout.best_features(params["n_components"], params["seed"],
                                       candidates["sigma"], candidates["lam"],
                                       base=holdout.parametric_outputs(lam_p))
    return {"lam_p": lam_p, "sigma": sigma, "lam": lam}


def _build(params: Mapping[str, Any], regressor: Regressor | None) -> SemiparametricRLS:
    if regressor is None:  # the data must supply Y(x) for the parametric part
        raise ValueError("the parametric part needs the data's known regressor Y(x)")
    return SemiparametricRLS(regressor, params["n_components"], params["sigma"],
                             params["lam_p"], params["lam"], random_state=params["seed"])


register(OnlineSpec(
    name="semiparametric", estimator=SemiparametricRLS, label="SP", order=30,
    title="SP: P, with NP learning P's residual",
    schema={**RANDOM_FEATURES_SCHEMA, "lam_p": POSITIVE}, defaults={"n_components": 500},
    selected={"lam_p": "lambdas_p", "sigma": "sigmas", "lam": "lambdas"},
    select=_select, build=_build, uses_regressor=True,
    summary="P's RRLS, then NP's on the residual of the updated π; predicts the sum"))
