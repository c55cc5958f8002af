"""Peak-memory estimates that more than one algorithm's spec uses (the preflight's input)."""

from __future__ import annotations

from typing import Any

from kernreg.solvers.blocks.params import lambda_grid
from kernreg.solvers.blocks.tridiagonal import CHUNK, eigh_fits
from kernreg.solvers.registry import F64, MemoryProblem

__all__ = ["full_kernel_memory"]


def full_kernel_memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    """KOLS / KRLS: K and its eigenvectors (LAPACK works in K's memory: see eigh_inplace) and
    the coefficients of every λ; validation predictions are blocked. Where those exceed the
    budget (or ``path_method: tridiagonal`` / ``solver: tridiagonal`` says so), K alone, one
    chunk of the tridiagonal's eigenvectors and the path twice (its inner and outer
    coefficients: :mod:`~kernreg.solvers.blocks.tridiagonal`). KOLS's pivoted Cholesky needs
    less (n² + (n − r)·r, see blocks/min_norm.py), its fallback the same as the path's."""
    n = problem.n_fit
    lambdas = len(lambda_grid(params["lambdas"])) if "lambdas" in params else 1
    path = n * lambdas * problem.outputs * F64
    method = params.get("path_method", params.get("solver", "auto"))
    on_device = problem.device != "cpu"  # no tridiagonal path there: eigh
    if method == "eigh" or on_device or (method != "tridiagonal"
                                         and eigh_fits(n, problem.memory_limit)):
        return {"K + eigenvectors": 2 * n * n * F64, "path": path}
    return {"K (tridiagonalized in place)": n * n * F64,
            "eigenvector chunk": n * CHUNK * F64, "path": 2 * path}
