"""Memory preflight: estimate each algorithm's peak memory before anything is computed.

The estimates count the large arrays each solver holds at its peak (each algorithm's
:class:`~kernreg.solvers.AlgorithmSpec` says which), plus the data and one kernel block; they are
meant to stop a run that cannot fit *before* the operating system kills it, and to say why.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernreg.config import Algorithm, Experiment
from kernreg.errors import KernregError
from kernreg.solvers import MemoryProblem, get_algorithm_spec

_F64 = 8


class BudgetError(KernregError):
    """An algorithm's estimated peak memory exceeds the configured budget."""


@dataclass(frozen=True)
class Estimate:
    """Estimated peak bytes of one algorithm and what they consist of."""

    label: str
    peak_bytes: int
    parts: dict[str, int]

    def describe(self) -> str:
        parts = ", ".join(f"{k} {v / 2**30:.2f} GiB" for k, v in self.parts.items())
        return f"{self.label}: ~{self.peak_bytes / 2**30:.1f} GiB ({parts})"


def estimate(algo: Algorithm, n_fit: int, n_val: int, n_test: int, d: int,
             block_bytes: int, memory_limit: int, dtype: str = "float64") -> Estimate:
    """Peak-memory estimate of ``algo`` on ``n_fit`` training and ``n_val`` validation rows:
    the data, one kernel block, and the algorithm's own arrays (its spec's estimate)."""
    parts = {"data": (n_fit + n_val + n_test) * d * _F64 * 2, "kernel block": block_bytes}
    spec = get_algorithm_spec(algo.name)
    if spec.memory is not None:
        problem = MemoryProblem(n_fit, n_val, n_test, d, block_bytes, memory_limit, dtype)
        parts.update(spec.memory(algo.params, problem))
    return Estimate(algo.label, sum(parts.values()), parts)


def check_memory(exp: Experiment, algorithms: tuple[Algorithm, ...], n_fit: int, n_val: int,
                 n_test: int, d: int) -> list[Estimate]:
    """Estimates of ``algorithms``; raise :class:`BudgetError` if one exceeds the budget."""
    budget = exp.budget["memory_gb"] * 2**30
    block = int(exp.budget["block_mb"] * 2**20)
    estimates = [estimate(a, n_fit, n_val, n_test, d, block, int(budget),
                          exp.dataset["dtype"]) for a in algorithms]
    over = [e for e in estimates if e.peak_bytes > budget]
    if over:
        lines = "\n  ".join(e.describe() for e in over)
        raise BudgetError(
            f"{exp.name}: estimated peak memory exceeds the budget of "
            f"{exp.budget['memory_gb']:g} GiB (budget.memory_gb):\n  {lines}\n"
            "Nothing was run. Raise the budget only if the machine has the memory."
        )
    return estimates
