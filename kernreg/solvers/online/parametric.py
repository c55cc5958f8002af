"""Model P of thesis Chapter 8: recursive ridge regression on a known regressor, ``y ≈ Y(x) π``
(the rigid-body-dynamics regressor of a force/torque sensor and the inertial parameters π)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kernreg.solvers.blocks.params import POSITIVE
from kernreg.solvers.blocks.recursive_rls import RecursiveRidge
from kernreg.solvers.online.base import OnlineRegressor, as_rows
from kernreg.solvers.online.registry import OnlineSpec, Regressor, register
from kernreg.solvers.online.selection import HoldoutSelection

__all__ = ["ParametricRLS"]


class ParametricRLS(OnlineRegressor):
    """Recursive ridge regression on a known regressor: ``y ≈ Y(x) π`` (model P).

    Parameters
    ----------
    regressor : callable
        ``regressor(X)`` for inputs ``X`` (n, d) returns ``Y`` (n, k, p): k outputs, p
        parameters (the rigid-body-dynamics regressor of a force/torque sensor, for example).
    lam : float, default 1.0
        λ of ``‖Yπ − y‖² + λ‖π − π₀‖²`` summed over the samples seen.
    prior : array-like of shape (p,), optional
        ``π₀`` (e.g. a CAD model's inertial parameters); zero when left out.
    form : {"cholesky", "inverse"}, default "cholesky"
        :class:`~kernreg.solvers.blocks.recursive_rls.RecursiveRidge`'s form: the Cholesky form
        stays exact at the small λ a few well-determined parameters want (a sample's k rows are
        one QR update).

    Attributes
    ----------
    coef_ : ndarray of shape (p,)
        ``π`` after the samples seen.
    n_samples_seen_ : int
    """

    def __init__(self, regressor: Regressor, lam: float = 1.0, *, prior: Any = None,
                 form: str = "cholesky"):
        self.regressor = regressor
        self.lam = lam
        self.prior = prior
        self.form = form

    def _start(self, X: np.ndarray, y: np.ndarray) -> None:
        p = np.asarray(self.regressor(X[:1])).shape[-1]
        prior = None if self.prior is None else np.asarray(self.prior, dtype=np.float64)
        self.rls_ = RecursiveRidge(p, 1, self.lam, form=self.form, prior=prior)

    def _step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        Y = np.asarray(self.regressor(x), dtype=np.float64)[0]
        prediction = (Y @ self.rls_.coef)[:, 0]
        self.rls_.update(Y, y[:, None])
        return prediction

    @property
    def coef_(self) -> np.ndarray:
        return self.rls_.coef[:, 0]

    def predict(self, X: Any) -> np.ndarray:
        """``Y(X) π`` (n, k)."""
        X, _ = as_rows(X)
        return np.asarray(self.regressor(X), dtype=np.float64) @ self.coef_


def _select(candidates: Mapping[str, Sequence[float]], holdout: HoldoutSelection,
            params: Mapping[str, Any]) -> dict[str, float]:
    return {"lam_p": holdout.best_parametric(candidates["lam_p"])}


def _build(params: Mapping[str, Any], regressor: Regressor | None) -> ParametricRLS:
    if regressor is None:  # the data must supply Y(x) for the parametric part
        raise ValueError("the parametric part needs the data's known regressor Y(x)")
    return ParametricRLS(regressor, params["lam_p"])


register(OnlineSpec(
    name="parametric", estimator=ParametricRLS, label="P", order=10,
    title="P: recursive ridge on the rigid-body regressor",
    schema={"lam_p": POSITIVE}, selected={"lam_p": "lambdas_p"},
    select=_select, build=_build, uses_regressor=True,
    summary="RRLS of the inertial parameters π in y ≈ Y(x)π, from zero"))
