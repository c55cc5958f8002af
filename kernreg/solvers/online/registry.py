"""The registry of online estimators (thesis Chapter 8): one :class:`OnlineSpec` per estimator,
registered at the end of its own module.

A spec says what a streaming regression config (``protocol: {kind: online_regression}``) and
its runner need to know: the name a config gives, the thesis's label (P, NP, SP), the
JSON-schema fragment of its parameters with the defaults the config fills in, which
parameters the hold-out selection on the training set chooses when the config leaves them out
(and from which grid), how to select them and how to build the estimator. Adding an online
estimator touches its own module (estimator + ``register(OnlineSpec(...))``), one import in
:mod:`kernreg.solvers.online` and its tests.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from kernreg.registry import Registry

if TYPE_CHECKING:
    from kernreg.solvers.online.base import OnlineRegressor
    from kernreg.solvers.online.selection import HoldoutSelection

__all__ = ["OnlineSpec", "Regressor", "get_online_spec", "online_names", "online_specs",
           "register", "unregister"]

#: ``regressor(X) -> Y`` (n, k, p): a known regressor of k outputs in p parameters (the
#: rigid-body-dynamics regressor of a force/torque sensor).
Regressor = Callable[[np.ndarray], np.ndarray]
#: ``select(candidates, holdout) -> {param: value}``: the chosen value of every selected
#: parameter; ``candidates`` gives each one's values, a single one where the config fixed it.
Select = Callable[[Mapping[str, Sequence[float]], "HoldoutSelection", Mapping[str, Any]],
                  dict[str, float]]
#: ``build(params, regressor) -> estimator``: ``params`` complete (selected values included).
Build = Callable[[Mapping[str, Any], "Regressor | None"], "OnlineRegressor"]


@dataclass(frozen=True)
class OnlineSpec:
    """Everything kernreg knows about one online estimator.

    Parameters
    ----------
    name
        Name in configs (``algorithms[i].name``) and in the run's records.
    estimator
        The scikit-learn-style class (``partial_fit``, ``predict_update``, ``predict``).
    label
        The label a config entry takes when it gives none (the thesis's P, NP, SP).
    title
        What it is, in a table's or figure's words.
    order
        Position in tables (smaller first).
    schema
        JSON-schema properties of the config entry besides ``name`` and ``label``.
    defaults
        Values the config fills in for parameters it leaves out (stored with the results);
        ``seed``, when in ``schema``, defaults to the simulation's seed.
    selected
        Parameter → the ``selection:`` grid it is chosen from when the entry leaves it out
        (``{"lam_p": "lambdas_p"}``); a value the entry gives is kept.
    select
        Chooses the selected parameters on the training set's hold-out
        (:class:`~kernreg.solvers.online.selection.HoldoutSelection`); gets the candidates of
        each selected parameter and the entry's other parameters.
    build
        The estimator from complete parameters and the data's regressor.
    uses_regressor
        Whether it needs the known regressor ``Y(x)`` (the parametric part).
    summary
        One line on what it computes.
    """

    name: str
    estimator: type[OnlineRegressor]
    label: str
    title: str
    select: Select
    build: Build
    order: int = 1000
    schema: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    selected: dict[str, str] = field(default_factory=dict)
    uses_regressor: bool = False
    summary: str = ""

    def config_schema(self) -> dict[str, Any]:
        """The JSON schema of one config entry of this estimator (``label`` any: the config's
        own schema checks it)."""
        return {"type": "object", "additionalProperties": False, "required": ["name"],
                "properties": {"name": {"const": self.name}, "label": {},
                               **copy.deepcopy(self.schema)}}


_ONLINE: Registry[OnlineSpec] = Registry("online estimator", lambda spec: spec.name,
                                         fold=str.lower)
#: Add an estimator (its name new, in any case); the spec registered as a name, in any case
#: (else a ``ValueError`` naming the registered ones).
register, get_online_spec = _ONLINE.register, _ONLINE.get


def unregister(name: str) -> None:
    """Remove ``name`` from the registry (tests' toys); nothing if it is not registered."""
    _ONLINE.unregister(name, missing_ok=True)


def online_specs() -> list[OnlineSpec]:
    """Every registered spec, in table order."""
    return sorted(_ONLINE, key=lambda s: (s.order, s.name))


def online_names() -> list[str]:
    """The registered names, in table order."""
    return [s.name for s in online_specs()]

