"""How NYTRO touches ``K_nm``: a cost model choosing among three equivalent strategies.

The training rows and the validation rows each get one of:

* ``memory``  — compute the kernel block (``K_nm``, resp. ``K_vm``) once and keep it, in the
  kernel's dtype; every iteration streams it from memory (one fused forward/backward pass for
  ``K_nmᵀ(K_nm α − y)``; one read of ``K_vm`` per chunk of iterates for validation).
* ``blocked`` — keep nothing; re-evaluate the kernel block by block: every iteration for the
  training rows, once per chunk of :data:`VALIDATION_CHUNK` iterates for the validation rows.
* ``gram``    — form ``G = K_nmᵀK_nm`` and ``K_nmᵀy`` once, block by block; an iteration is then
  an ``m × m`` product and two triangular solves. For the validation rows the error becomes a
  quadratic form, ``‖K_vm α − y_v‖² = αᵀG_vα − 2αᵀb_v + y_vᵀy_v``.

All choices produce the same iterates (up to rounding). The model below estimates each one's
time from flop and byte counts at nominal machine rates, and its peak memory;
:func:`choose_strategy` takes the fastest pair that fits the memory limit. Only the ratios between
strategies matter for the choice, so the nominal rates need not match a given machine closely.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from kernreg.backend import CPU, Device, in_gib
from kernreg.backend.memory import MEMORY_FRACTION, available_memory
from kernreg.solvers.blocks.dask_rows import current_client, worker_memory_limit
from kernreg.solvers.blocks.iterative import VALIDATION_CHUNK

#: Nominal rates of a small machine (2 cores, AVX-512): float64 GEMM flop/s (float32 runs at
#: twice this), exp/s, and streaming bytes/s.
GEMM_FLOPS = 1e11
EXP_PER_S = 2e9
BANDWIDTH = 3e10
F64 = 8
#: Products with a few vectors (GEMV, or GEMM with a chunk of iterates) run far below the GEMM
#: rate; m × m matrices that stay in the last-level cache stream several times faster.
SKINNY_FLOPS = GEMM_FLOPS / 4
CACHE_BYTES = 32 * 2**20
CACHE_SPEEDUP = 4.0

#: Seconds of one product's round trip to the Dask workers and back (scheduling, a tree of
#: additions), and the network's bytes/s: nominal, a loaded LAN.
ROUND_TRIP = 5e-3
NETWORK_BYTES = 1e9

#: Lanczos products for the step size (top_eigenvalue's small Krylov basis converges in ~7).
STEP_SIZE_PRODUCTS = 8

STRATEGIES = ("memory", "blocked", "gram")
#: What a NYTRO config or estimator may ask for (``strategy``, ``validation_strategy``): one of
#: the strategies, or ``"auto"``, the cost model's choice.
STRATEGY_CHOICES = ("auto", *STRATEGIES)


@dataclass(frozen=True)
class StrategyCost:
    """Estimated seconds and peak bytes (of the kernel-related arrays) of a strategy pair."""

    name: str
    validation: str
    seconds: float
    peak_bytes: int

    @property
    def label(self) -> str:
        """``"memory"`` when both parts agree, else ``"memory/blocked"`` (training/validation)."""
        return self.name if self.name == self.validation else f"{self.name}/{self.validation}"


def _kernel_seconds(rows: int, m: int, d: int, gemm_rate: float) -> float:
    # the GEMM of the distance expansion, the exponential, ~5 elementwise passes over the block
    return 2.0 * rows * m * d / gemm_rate + rows * m / EXP_PER_S + 5 * rows * m * F64 / BANDWIDTH


def _mm_pass(m: int) -> float:
    """Seconds of one read of an ``m × m`` float64 matrix (faster when G, G_v and R together
    stay in the last-level cache)."""
    seconds = m * m * F64 / BANDWIDTH
    return seconds / CACHE_SPEEDUP if 3 * m * m * F64 <= CACHE_BYTES else seconds


def _part_costs(rows: int, m: int, d: int, normal_passes: float, scorings: float,
                itemsize: int, gram_buffers: int) -> dict[str, tuple[float, int]]:
    """(seconds, peak bytes) of each strategy for ``rows`` rows that take ``normal_passes``
    products ``K_rmᵀ(K_rm v − y)`` (training iterations, step-size products) and are scored
    ``scorings`` times (validation errors, in chunks of :data:`VALIDATION_CHUNK`);
    ``gram_buffers``: ``m × m`` float64 arrays the ``gram`` strategy holds."""
    gemm_rate = GEMM_FLOPS * F64 / itemsize  # single precision runs about twice as fast
    once = _kernel_seconds(rows, m, d, gemm_rate)
    stored = rows * m * itemsize
    mm_pass = _mm_pass(m)
    skinny = 2.0 * rows * m / SKINNY_FLOPS  # one product of the rows' kernel with a vector
    # A normal pass: K v and Kᵀr (one fused pass over the stored or re-evaluated kernel), or
    # one read of G. (Counting G as three reads and the memory strategy's solves with R as
    # free picked `memory` from m = 1600 on cpuSmall (n = 5243), 2.4× slower than `gram`
    # measured: NYTRO Figure 2.)
    normal = {"memory": stored / BANDWIDTH, "blocked": once + 2.0 * skinny, "gram": mm_pass}
    # A scoring: K_vm α for a chunk of iterates, or the quadratic form's one m × m product
    score = {"memory": stored / BANDWIDTH / VALIDATION_CHUNK + skinny,
             "blocked": once / VALIDATION_CHUNK + skinny, "gram": mm_pass}
    # always float64 (see Nytro._gram_kernel): kernel evaluation, then syrk's rows·m² flops
    setup = {"memory": (once, stored), "blocked": (0.0, 0),
             "gram": (_kernel_seconds(rows, m, d, GEMM_FLOPS) + rows * m * m / GEMM_FLOPS,
                      gram_buffers * m * m * F64)}
    return {name: (setup[name][0] + normal_passes * normal[name] + scorings * score[name],
                   setup[name][1]) for name in STRATEGIES}


def nytro_costs(n: int, n_val: int, m: int, d: int, max_iter: int, itemsize: int,
                block_bytes: int, val_step_rows: bool = False, workers: int = 1
                ) -> dict[tuple[str, str], StrategyCost]:
    """Cost of each (training, validation) strategy pair for ``n`` training and ``n_val``
    validation rows, ``m`` centers, ``d`` features and at most ``max_iter`` iterations
    (``itemsize``: kernel dtype bytes; ``block_bytes``: one kernel block; ``val_step_rows``:
    the step size's products also pass over the validation rows). Over ``workers`` Dask
    workers (the ``dask`` backend) the rows are split among them: seconds and peak bytes are
    per worker, and every product adds a round trip of m-vectors (:data:`ROUND_TRIP`)."""
    # the step size γ = 1/‖A‖² costs about STEP_SIZE_PRODUCTS more normal passes
    normal_passes = max_iter + STEP_SIZE_PRODUCTS
    rows, rows_val = -(-n // workers), -(-n_val // workers)
    train = _part_costs(rows, m, d, normal_passes, 0, itemsize, gram_buffers=4)
    val = _part_costs(rows_val, m, d, STEP_SIZE_PRODUCTS if val_step_rows else 0, max_iter,
                      itemsize, gram_buffers=1)
    if workers > 1:  # the iterate out and a tree of m-vector sums back, per product
        trip = ROUND_TRIP + 8.0 * m * 3 / NETWORK_BYTES
        for name in ("memory", "blocked"):  # gram's m × m products run in the driver
            train[name] = (train[name][0] + normal_passes * trip, train[name][1])
            val[name] = (val[name][0] + max_iter * trip / VALIDATION_CHUNK, val[name][1])
    # In every case: K_mm's Cholesky; the solves with R and Rᵀ of each training normal pass
    # (two triangles, one m × m read); K_mm, R and their work buffers (m × m, float64) and
    # one kernel block.
    common = (m**3 / 3.0 / GEMM_FLOPS + normal_passes * _mm_pass(m),
              2 * m * m * F64 + block_bytes)
    costs = {}
    for t_name, v_name in product(STRATEGIES, STRATEGIES):
        (t_s, t_b), (v_s, v_b) = train[t_name], val[v_name]
        costs[t_name, v_name] = StrategyCost(t_name, v_name, common[0] + t_s + v_s,
                                             common[1] + t_b + v_b)
    return costs


def choose_strategy(costs: dict[tuple[str, str], StrategyCost], memory_limit: int,
                    training: str = "auto", validation: str = "auto") -> StrategyCost:
    """The fastest pair whose peak fits ``memory_limit`` (else the smallest one), among those
    that agree with the given ``training`` and ``validation`` strategies (``"auto"``: any)."""
    fitting, allowed = _ranked(costs, memory_limit, training, validation)
    return fitting[0] if fitting else min(allowed, key=lambda c: c.peak_bytes)


def strategy_reason(costs: dict[tuple[str, str], StrategyCost], memory_limit: int,
                    training: str = "auto", validation: str = "auto") -> str:
    """What :func:`choose_strategy` chooses with these arguments and why, in words (``-v``)."""
    fitting, _ = _ranked(costs, memory_limit, training, validation)
    chosen = choose_strategy(costs, memory_limit, training, validation)
    if fitting:
        runner_up = (f"; next {fitting[1].label} ≈ {fitting[1].seconds:.3g} s"
                     if len(fitting) > 1 else "")
        why = (f"the fastest estimate of the {len(fitting)} pairs within "
               f"{in_gib(memory_limit):.3g} GiB{runner_up}")
    else:
        why = f"no pair fits {in_gib(memory_limit):.3g} GiB: the smallest peak"
    return (f"{chosen.label} (training/validation rows): ≈ {chosen.seconds:.3g} s, peak "
            f"{in_gib(chosen.peak_bytes):.3g} GiB — {why}")


def _ranked(costs: dict[tuple[str, str], StrategyCost], memory_limit: int, training: str,
            validation: str) -> tuple[list[StrategyCost], list[StrategyCost]]:
    """(the allowed pairs that fit ``memory_limit``, fastest first; every allowed pair)."""
    allowed = [c for c in costs.values()
               if training in ("auto", c.name) and validation in ("auto", c.validation)]
    fitting = sorted((c for c in allowed if c.peak_bytes <= memory_limit),
                     key=lambda c: c.seconds)
    return fitting, allowed


def plan_strategies(n: int, n_val: int, m: int, d: int, max_iter: int, itemsize: int,
                    block_bytes: int, memory_limit: int, strategy: str = "auto",
                    validation_strategy: str = "auto", val_step_rows: bool = False,
                    workers: int = 1
                    ) -> tuple[StrategyCost, dict[tuple[str, str], StrategyCost]]:
    """The (training, validation) strategies NYTRO runs with: the given ones, ``"auto"`` parts
    filled in by the cost model within ``memory_limit`` (per worker, over ``workers`` Dask
    workers); and every pair's estimate. The one plan behind both ``fit`` and the memory
    preflight."""
    costs = nytro_costs(n, max(n_val, 1), m, d, max_iter, itemsize, block_bytes,
                        val_step_rows=val_step_rows, workers=workers)
    return choose_strategy(costs, memory_limit, strategy, validation_strategy), costs


def strategy_memory(max_memory: int | None, backend: str, device: Device = CPU
                    ) -> tuple[int, int]:
    """``(bytes, workers)``: the memory the strategies' kernel arrays may take, per worker, and
    the number of workers. ``max_memory``, else
    :data:`~kernreg.backend.memory.MEMORY_FRACTION` of the memory available now (on a device
    other than ``cpu``, its :meth:`~kernreg.backend.Device.memory_budget`); on a Dask cluster
    each worker's own limit, or its share of this host's."""
    limit = max_memory
    if limit is None and not device.is_numpy:
        limit = device.memory_budget()
    if limit is None:
        limit = int(MEMORY_FRACTION * available_memory())
    workers = 1
    if backend == "dask":
        workers, per_worker = worker_memory_limit(current_client(), limit)
        limit = per_worker if max_memory is None else limit
    return limit, workers
