"""Memory preflight: estimate each algorithm's peak memory before anything is computed.

The estimates count the large arrays each solver holds at its peak (float64, 8 bytes), plus the
data and one kernel block; they are meant to stop a run that cannot fit *before* the operating
system kills it, and to say why.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernreg.config import Algorithm, Experiment
from kernreg.errors import KernregError
from kernreg.solvers._strategy import choose_strategy, nytro_costs

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
    """Peak-memory estimate of ``algo`` on ``n_fit`` training and ``n_val`` validation rows."""
    n, m = n_fit, algo.params.get("m") or 0
    lambdas = len(algo.lambdas()) if "lambdas" in algo.params else 1
    parts = {"data": (n + n_val + n_test) * d * _F64 * 2, "kernel block": block_bytes}
    if algo.name in ("kols", "krls"):
        # K and its eigenvectors (LAPACK works in K's memory: see eigh_inplace); coefficients
        # of every λ; validation predictions are blocked.
        parts["K + eigenvectors"] = 2 * n * n * _F64
        parts["path"] = n * lambdas * _F64
    elif algo.name == "es":
        parts["K"] = n * n * _F64
        parts["validation kernel"] = n_val * n * _F64
    elif algo.name == "nkrls":
        # AᵀA, its eigenvectors, K_mm, R and a product buffer; coefficients and predictions
        # per λ; each kernel block's float64 copy and A_b = K_b R⁻¹.
        parts["m×m matrices"] = 5 * m * m * _F64
        parts["A blocks"] = 2 * block_bytes * _F64 // (4 if dtype == "float32" else 8)
        parts["path"] = (m + n_val) * lambdas * _F64
    elif algo.name == "inkrls":
        # AᵀA, K_mm, R and the growing factor of AᵀA + λnI; coefficients of every (λ, m')
        # pair and one validation block of predictions for all of them.
        levels = len(algo.m_levels() or range(min(m, 50)))
        parts["m×m matrices"] = 5 * m * m * _F64
        parts["A blocks"] = 2 * block_bytes * _F64 // (4 if dtype == "float32" else 8)
        parts["path"] = m * lambdas * levels * _F64 * 2
        if algo.params.get("update") == "rank_one":  # every λ's factor exists at once
            parts["factors"] = lambdas * m * m * _F64
    elif algo.name == "rf":
        # the D × D Gram and its eigenvectors, coefficients of every (λ, D') pair, and the
        # feature blocks (budget-sized) with their predictions for every pair
        D = algo.params["n_features"]
        levels = len(algo.m_levels("d_values") or range(min(D, 50)))
        parts["D×D matrices"] = 3 * D * D * _F64
        parts["path"] = 2 * D * lambdas * levels * _F64
        parts["feature blocks"] = 2 * block_bytes
    elif algo.name == "nytro":
        # The estimator picks its K_nm strategies with the same cost model, within the budget.
        itemsize = 4 if dtype == "float32" else 8
        costs = nytro_costs(n, max(n_val, 1), m, d, algo.params["max_iter"], itemsize,
                            block_bytes, val_step_rows=algo.params["step_rows"] == "all")
        chosen = choose_strategy(costs, memory_limit, algo.params["strategy"],
                                 algo.params.get("validation_strategy", "auto"))
        parts[f"{chosen.label} strategy"] = chosen.peak_bytes
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
