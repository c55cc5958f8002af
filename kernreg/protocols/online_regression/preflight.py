"""Memory preflight of an online regression run: the estimated peak bytes of the simulation
and the estimators checked against ``budget.memory_gb`` before anything is simulated or
written.

Computed from the config's sizes alone (the simulation's ``n`` samples per plane, each
estimator's ``D`` random features), so a config that cannot fit is refused in moments, not
after minutes of simulation or in a ``MemoryError``. Counted at once:

* the simulated planes (inputs, wrench, its rigid-body and CAD parts; the standardized
  inputs) and the rigid-body regressor ``Y(q, q̇, q̈)`` (n × 6 × 10 L) of two planes with the
  per-link intermediates it is assembled from (the simulation's second plane is computed while
  the first one's is held; the selection of a parametric part holds the training plane's);
* every random-features estimator's state (the D × D matrix of its recursion, its
  frequencies and weights), all of them held at once by the trained state;
* the working set of the largest one: the selection's features of the training plane
  (n × D, twice while they are scaled) and two D × D matrices (a batch ridge's normal
  equations and their factor; a trial's copy of the state and the recursion's temporary).

Measured with ``tracemalloc`` (n = 300 to 3000, D = 40 to 3000, one to three estimators) the
peak stayed 5 to 30 % below this estimate: it refuses what cannot fit, not what barely
does.
"""

from __future__ import annotations

from typing import Any

from kernreg.backend import MemoryBudget, in_gib
from kernreg.experiment.preflight import BudgetError, Estimate
from kernreg.protocols.online_regression.config import OnlineRegressionConfig
from kernreg.protocols.online_regression.icub_arm_sim import ARM_JOINTS, PAYLOAD_LINKS
from kernreg.solvers.online import get_online_spec

__all__ = ["check_memory", "online_memory", "preflight"]

_F64 = 8
#: The estimators' inputs ([q, q̇, q̈] of the arm's joints) and outputs (the wrench).
_D_IN, _K = 3 * len(ARM_JOINTS), 6
#: Inertial parameters of the payload links (the regressor's columns).
_P = 10 * len(PAYLOAD_LINKS)
#: Floats per sample of the regressor's intermediates (velocities, accelerations and poses of
#: every link; one link's Newton–Euler rows, forces and torques at a time).
_REGRESSOR_WORK = 24 * len(PAYLOAD_LINKS) + 4 * _K * 10 + 6 * _K * 3


def online_memory(cfg: OnlineRegressionConfig) -> Estimate:
    """Estimated peak bytes of a run of ``cfg`` (see the module's text for what is counted)."""
    n = cfg.simulation["n_samples"]
    components = [a.params["n_components"] for a in cfg.algorithms
                  if "n_components" in get_online_spec(a.name).schema]
    parts = {
        "simulated planes": 2 * n * (2 * _D_IN + 3 * _K) * _F64,
        "rigid-body regressor": n * (2 * _K * _P + _REGRESSOR_WORK) * _F64,
    }
    if any(get_online_spec(a.name).uses_regressor and a.selected for a in cfg.algorithms):
        parts["rigid-body regressor"] += n * _K * _P * _F64  # the selection's rows
    if components:
        parts["estimators (one D×D each)"] = sum(D * D + D * (_D_IN + _K + 2)
                                                 for D in components) * _F64
        D = max(components)
        parts["largest one's working set"] = (2 * n * D + 2 * D * D) * _F64
    return Estimate(cfg.name, sum(parts.values()), parts)


def check_memory(cfg: OnlineRegressionConfig) -> Estimate:
    """Refuse a run whose estimated peak memory exceeds ``budget.memory_gb`` (capped by this
    machine's memory: :class:`~kernreg.backend.MemoryBudget`).

    Raises
    ------
    BudgetError
        Naming the estimate, what it consists of and the budget (exit status 2 on the command
        line).
    """
    est = online_memory(cfg)
    memory = MemoryBudget.of_config(cfg.budget)
    if est.peak_bytes > memory.host:
        sizes = ", ".join(f"{a.label}: D = {a.params['n_components']}" for a in cfg.algorithms
                          if "n_components" in a.params)
        raise BudgetError(
            f"{cfg.name}: estimated peak memory, {in_gib(est.peak_bytes):.3g} GiB, exceeds the "
            f"budget of {memory.describe()}:\n  {est.describe()}\n"
            f"  (simulation.n_samples = {cfg.simulation['n_samples']}"
            + (f"; {sizes}" if sizes else "") + ")\n"
            "Nothing was run. Lower the sizes, or raise budget.memory_gb only if the machine has "
            "the memory.")
    return est


def preflight(cfg: OnlineRegressionConfig, prepared: Any = None) -> Estimate:
    """The protocol's preflight (:class:`~kernreg.experiment.protocol.ProtocolSpec`):
    :func:`check_memory`; ``prepared`` is not needed."""
    return check_memory(cfg)
