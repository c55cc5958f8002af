"""How NYTRO touches ``K_nm``: a cost model choosing among three equivalent strategies.

* ``memory``  — compute ``K_nm`` (and ``K_vm`` of the validation rows) once and keep them;
  every iteration streams them from memory twice (``K_nm v``, ``K_nmᵀ r``).
* ``blocked`` — keep nothing; every iteration re-evaluates ``K_nm`` block by block (one fused
  forward/backward pass) and ``K_vm`` for the validation error.
* ``gram``    — form ``G = K_nmᵀK_nm``, ``K_nmᵀy`` (and the same for the validation rows) once,
  block by block; every iteration is then an ``m × m`` product (``K_nmᵀK_nm α = G α``) and two
  triangular solves, and the validation error is a quadratic form,
  ``‖K_vm α − y_v‖² = αᵀG_vα − 2αᵀb_v + y_vᵀy_v``.

All three produce the same iterates (up to rounding). The model below estimates each one's time
from flop and byte counts at nominal machine rates and its peak memory; :func:`choose_strategy`
takes the fastest that fits the memory limit. Only the ratios between strategies matter for the
choice, so the nominal rates need not match a given machine closely.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Nominal rates of a small machine: dense GEMM flop/s, exp/s, and streaming bytes/s.
GEMM_FLOPS = 4e10
EXP_PER_S = 4e8
BANDWIDTH = 8e9
F64 = 8

STRATEGIES = ("memory", "blocked", "gram")


@dataclass(frozen=True)
class StrategyCost:
    """Estimated seconds and peak bytes (of the K-related arrays) of one strategy."""

    name: str
    seconds: float
    peak_bytes: int


def _kernel_seconds(rows: int, m: int, d: int, gemm_rate: float) -> float:
    return 2.0 * rows * m * d / gemm_rate + rows * m / EXP_PER_S


def nytro_costs(n: int, n_val: int, m: int, d: int, max_iter: int, itemsize: int,
                block_bytes: int) -> dict[str, StrategyCost]:
    """Cost of each strategy for ``n`` training and ``n_val`` validation rows, ``m`` centers,
    ``d`` features and at most ``max_iter`` iterations (``itemsize``: kernel dtype bytes)."""
    rows = n + n_val
    gemm_rate = GEMM_FLOPS * F64 / itemsize  # single precision runs about twice as fast
    kernel_once = _kernel_seconds(rows, m, d, gemm_rate)
    stream = (2 * n + n_val) * m * F64 / BANDWIDTH  # one iteration over stored float64 blocks
    return {
        "memory": StrategyCost("memory", kernel_once + max_iter * stream, rows * m * F64),
        "blocked": StrategyCost(
            "blocked", max_iter * (kernel_once + 2.0 * rows * m / gemm_rate),
            block_bytes + 3 * m * m * F64,
        ),
        "gram": StrategyCost(
            # syrk does n·m² flops; K_mm's Cholesky m³/3; an iteration a product and two
            # triangular solves with m × m matrices.
            "gram", kernel_once + rows * m * m / gemm_rate + m**3 / GEMM_FLOPS
            + max_iter * 3.0 * m * m * F64 / BANDWIDTH,
            block_bytes + 5 * m * m * F64,
        ),
    }


def choose_strategy(costs: dict[str, StrategyCost], memory_limit: int) -> str:
    """The fastest strategy whose peak fits ``memory_limit`` (else the smallest one)."""
    fitting = [c for c in costs.values() if c.peak_bytes <= memory_limit]
    if fitting:
        return min(fitting, key=lambda c: c.seconds).name
    return min(costs.values(), key=lambda c: c.peak_bytes).name
