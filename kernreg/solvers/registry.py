"""The algorithm registry: one :class:`AlgorithmSpec` per algorithm, registered in its own file.

A spec says everything the rest of kernreg needs to know about an algorithm — its config name,
estimator class, table title and position, whether it takes
Nyström centers, the JSON-schema fragment of its config entry with the defaults the config fills
in, extra config checks, and its peak-memory estimate. The config schema, the defaults, the
memory preflight, the tables and the trial records are all derived from it, so adding an
algorithm touches its own file (estimator + ``register(AlgorithmSpec(...))``), one import line
in :mod:`kernreg.solvers` and its tests. The path parameter (the λ* / t* row of the tables) is the
estimator's own :attr:`~kernreg.solvers.blocks.base.KernelEstimator.path_parameter`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from kernreg.registry import Registry
from kernreg.solvers.blocks.params import DEFAULT_LAMBDA_GRID, NAME_AND_LABEL
from kernreg.solvers.blocks.stopping import StoppingRule

if TYPE_CHECKING:
    from kernreg.solvers.blocks.base import KernelEstimator

__all__ = [
    "AlgorithmSpec",
    "MemoryProblem",
    "algorithm_names",
    "algorithm_specs",
    "algorithm_title",
    "get_algorithm_spec",
    "register",
    "unregister",
]

F64 = 8


@dataclass(frozen=True)
class MemoryProblem:
    """What a peak-memory estimate depends on besides the algorithm's own parameters."""

    n_fit: int
    n_val: int
    n_test: int
    d: int
    block_bytes: int
    memory_limit: int
    dtype: str = "float64"
    #: Columns of the targets: one per class of a multiclass task (its one-vs-all codes)
    outputs: int = 1
    #: Where the arrays estimated live: ``cpu`` (the host), or a device's name
    device: str = "cpu"

    @property
    def itemsize(self) -> int:
        return np.dtype(self.dtype).itemsize


#: ``memory(params, problem) -> {part: bytes}``: the large arrays at the algorithm's peak.
MemoryEstimate = Callable[[dict[str, Any], MemoryProblem], dict[str, int]]
#: ``check(params, kernel_name) -> [problem, ...]``: config rules the schema cannot express.
ConfigCheck = Callable[[dict[str, Any], str], list[str]]


@dataclass(frozen=True)
class AlgorithmSpec:
    """Everything kernreg knows about one algorithm.

    Parameters
    ----------
    name
        Name in configs, on the command line and in results (``algorithm`` column).
    estimator
        The scikit-learn-style estimator class; config keys that are constructor parameters
        are passed to it (``lambdas``, ``stopping``, ``m_values``/``d_values`` are converted).
    title
        Column title in the tables.
    order
        Position in the tables (smaller first; the papers' order for the built-in ones).
    schema
        JSON-schema properties of the config entry, besides ``name`` and ``label``. A property
        may be given as a function of no arguments returning its fragment, called each time a
        config is read: an enum of another registry's names (``rf``'s ``features``) then
        accepts a part registered later (a plugin, a test's toy).
    config_defaults
        Keys whose default the config fills in (and stores with the results). Their values are
        the estimator's own defaults, except ``lambdas`` (the protocol's grid), ``stopping``
        (the default rule) and ``m`` (the dataset's paper m).
    takes_centers
        Whether it has Nyström centers ``m``: default m from the dataset, lists and ranges of m
        run as sweeps, m checked against the rows left for fitting.
    memory
        Peak-memory estimate for the preflight (data and one kernel block are added to it).
    check
        Extra config rules (e.g. random features need a feature map of the config's
        kernel).
    tasks
        The tasks (:mod:`kernreg.losses`) whose targets it can fit, e.g. ``("binary",)`` for
        the hinge-loss methods (±1 classes); empty: any. A config with another task (or
        binary targets not coded ±1) is refused naming the algorithm.
    summary
        One line on what it computes (``kernreg`` docs and tables).
    """

    name: str
    estimator: type[KernelEstimator]
    title: str
    order: int = 1000
    schema: dict[str, Any] = field(default_factory=dict)
    config_defaults: tuple[str, ...] = ()
    takes_centers: bool = False
    memory: MemoryEstimate | None = None
    check: ConfigCheck | None = None
    tasks: tuple[str, ...] = ()
    summary: str = ""

    @property
    def path_parameter(self) -> str | None:
        """``"lambda"``, ``"iterations"`` or ``None``: what the tables' λ* / t* row shows for it."""
        return self.estimator.path_parameter

    def config_schema(self) -> dict[str, Any]:
        """The JSON schema of one config entry of this algorithm."""
        return {
            "type": "object",
            "additionalProperties": False,
            "required": ["name"],
            "properties": {**NAME_AND_LABEL,
                           **{key: fragment() if callable(fragment) else fragment
                              for key, fragment in self.schema.items()}},
        }

    def defaults(self) -> dict[str, Any]:
        """The config's defaults for :attr:`config_defaults` (fresh copies)."""
        own = self.estimator().get_params()
        special: dict[str, Any] = {
            "lambdas": {"logspace": list(DEFAULT_LAMBDA_GRID)},
            "stopping": {"rule": StoppingRule.name, "window": StoppingRule.window,
                         "threshold": StoppingRule.threshold},
        }
        out = {}
        for key in self.config_defaults:
            out[key] = copy.deepcopy(special[key] if key in special else own[key])
        return out


#: Algorithm names are case-insensitive (``--algorithm NYTRO``).
_ALGORITHMS: Registry[AlgorithmSpec] = Registry("algorithm", lambda spec: spec.name,
                                                fold=str.lower)


def register(spec: AlgorithmSpec) -> AlgorithmSpec:
    """Add ``spec`` (names are unique; defaults only for keys of its schema)."""
    unknown = set(spec.config_defaults) - set(spec.schema)
    if unknown:
        raise ValueError(f"{spec.name}: defaults for keys outside its schema: {sorted(unknown)}")
    return _ALGORITHMS.register(spec)


#: Remove an algorithm (a test's toy); the spec registered as a name, in any case (else a
#: ``ValueError`` naming the registered ones).
unregister, get_algorithm_spec = _ALGORITHMS.unregister, _ALGORITHMS.get


def algorithm_specs() -> list[AlgorithmSpec]:
    """Registered specs in table order (``order``, then registration)."""
    return sorted(_ALGORITHMS, key=lambda spec: spec.order)


def algorithm_names() -> list[str]:
    """Registered algorithm names in table order."""
    return [spec.name for spec in algorithm_specs()]


def algorithm_title(name: str) -> str:
    """The table title of ``name`` (the name itself if it is not registered)."""
    return _ALGORITHMS.get(name).title if name in _ALGORITHMS else name
