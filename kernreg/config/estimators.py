"""From a config's algorithm entry to a configured scikit-learn-style estimator."""

from __future__ import annotations

from typing import Any

from kernreg.backend import Device, MemoryBudget
from kernreg.config.experiment import Algorithm, Experiment
from kernreg.config.task import experiment_task
from kernreg.grid import is_grid
from kernreg.solvers import KernelEstimator, algorithm_names, get_algorithm
from kernreg.solvers.blocks.sigma_search import SigmaSearch
from kernreg.solvers.classifiers import CLASSIFIER_FORMS


def takes_device(name: str) -> bool:
    """Whether the registered algorithm ``name`` can run on a device other than ``cpu``: its
    estimator takes a ``device`` parameter."""
    return "device" in get_algorithm(name)().get_params()


def estimator_class_of(name: str, exp: Experiment) -> type:
    """The estimator a run fits for algorithm ``name``: its registered estimator, or for a
    multiclass task its one-vs-all classifier form
    (:data:`~kernreg.solvers.classifiers.CLASSIFIER_FORMS`; an algorithm without one is the
    loader's problem, refused before)."""
    estimator = get_algorithm(name)
    if experiment_task(exp.task, exp.dataset).name == "multiclass":
        return CLASSIFIER_FORMS[estimator]
    return estimator


def multiclass_algorithms() -> list[str]:
    """The registered algorithms with a one-vs-all classifier form."""
    return [name for name in algorithm_names() if get_algorithm(name) in CLASSIFIER_FORMS]


def takes_intercept(name: str) -> bool:
    """Whether the registered algorithm ``name`` fits an intercept: its estimator takes a
    ``fit_intercept`` parameter (the square-loss ones)."""
    return "fit_intercept" in get_algorithm(name)().get_params()


def device_algorithms() -> list[str]:
    """The registered algorithms that can run on a device other than ``cpu``."""
    return [name for name in algorithm_names() if takes_device(name)]


def estimator_params(algo: Algorithm, exp: Experiment, random_state: int,
                     device: Device | None = None, memory: MemoryBudget | None = None
                     ) -> dict[str, Any]:
    """Constructor arguments of ``algo``'s estimator; every config key is used exactly once.

    ``max_memory`` is the run's host budget (``memory``, by default ``budget.memory_gb``
    capped by this machine's memory: :class:`~kernreg.backend.MemoryBudget`). ``device``
    (other than ``cpu``) goes to an estimator that takes one, with the device's memory budget
    as ``max_memory`` (the strategies' kernel arrays live there; ``None``: the device's free
    memory when the fit plans); on ``cpu`` the estimator keeps its numpy default.
    """
    memory = memory or MemoryBudget.of_config(exp.budget)
    params = dict(algo.params)
    kwargs: dict[str, Any] = {
        "kernel": exp.kernel["name"],
        "dtype": exp.dataset["dtype"],
        "memory_budget": int(exp.budget["block_mb"] * 2**20),
        "refit": exp.protocol["refit"],
        # the papers' setting (no intercept) unless the config asks: the estimators' own
        # default is to fit one
        "fit_intercept": exp.protocol.get("fit_intercept", False),
        "random_state": random_state,
        "max_memory": memory.host,
    }
    if exp.kernel.get("sigma") is not None and not is_grid(exp.kernel["sigma"]):
        kwargs["sigma"] = exp.kernel["sigma"]
    if "lambdas" in params:
        params.pop("lambdas")
        kwargs["lambdas"] = algo.lambdas()
    for key in ("m_values", "d_values"):
        if key in params:
            params.pop(key)
            kwargs[key] = algo.m_levels(key)
    if "stopping" in params:
        stopping = params.pop("stopping")
        kwargs.update(stopping_rule=stopping["rule"], window=stopping["window"],
                      threshold=stopping["threshold"], select=stopping["select"])
    kwargs.update(params)
    estimator_class = estimator_class_of(algo.name, exp)
    accepted = estimator_class().get_params()
    if device is not None and not device.is_numpy and "device" in accepted:
        kwargs["device"] = device
        kwargs["max_memory"] = device.memory_bytes
    # the kernel's parameters besides σ reach only estimators that take them: all of them as
    # `kernel_params` (KRLS, NKRLS), or those declared as kernel parameters by name (a
    # same-named estimator parameter, e.g. NYTRO's ν-method `nu`, is another thing); a kernel
    # parameter an estimator would drop is a config problem, not a default
    kernel_parameters = getattr(estimator_class, "kernel_parameters", ())
    own = {k: v for k, v in exp.kernel.items() if k not in ("name", "sigma")}
    if "kernel_params" in accepted:
        kwargs["kernel_params"], own = own, {}
    for key, value in own.items():
        if key not in kernel_parameters or key not in accepted:
            raise ValueError(f"kernel.{key}: the {algo.name} estimator takes no kernel "
                             f"parameter {key!r} (it builds its kernel from name and sigma)")
        kwargs[key] = value
    unused = sorted(set(params) - set(accepted))
    if unused:  # the schema and the estimator disagree: a programming error, not a user error
        raise RuntimeError(f"{algo.name} does not accept {unused}")
    return {k: v for k, v in kwargs.items() if k in accepted}


def make_estimator(algo: Algorithm, exp: Experiment, random_state: int,
                   device: Device | None = None, memory: MemoryBudget | None = None
                   ) -> KernelEstimator | SigmaSearch:
    """The estimator for ``algo`` with the experiment's kernel, dtype, budget (``memory``) and
    protocol (on ``device``, for one that takes a device: :func:`estimator_params`); with a σ
    grid, the :class:`SigmaSearch` selecting σ around it."""
    estimator = estimator_class_of(algo.name, exp)(**estimator_params(algo, exp, random_state,
                                                                      device, memory))
    sigma = exp.kernel.get("sigma")
    if is_grid(sigma):
        return SigmaSearch(estimator, sigma)
    return estimator
