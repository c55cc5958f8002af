"""Peak-memory estimates that more than one algorithm's spec uses (the preflight's input)."""

from __future__ import annotations

from typing import Any

from kernreg.solvers.blocks.params import lambda_grid
from kernreg.solvers.registry import F64, MemoryProblem

__all__ = ["full_kernel_memory"]


def full_kernel_memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    """KOLS / KRLS: K and its eigenvectors (LAPACK works in K's memory: see eigh_inplace) and
    the coefficients of every λ; validation predictions are blocked. KOLS's pivoted Cholesky
    needs less (n² + (n − r)·r, see blocks/min_norm.py), its fallback to eigh the same."""
    n = problem.n_fit
    lambdas = len(lambda_grid(params["lambdas"])) if "lambdas" in params else 1
    return {"K + eigenvectors": 2 * n * n * F64, "path": n * lambdas * problem.outputs * F64}
