"""The NYTRO cost model: estimates scale as the strategies' work does; choice under a limit."""

from __future__ import annotations

import pytest

from kernreg.solvers.blocks.strategy import STRATEGIES, choose_strategy, nytro_costs

GiB = 2**30
BLOCK = 256 * 2**20


def test_every_pair_is_costed() -> None:
    costs = nytro_costs(n=1000, n_val=250, m=100, d=5, max_iter=50, itemsize=8,
                        block_bytes=BLOCK)
    assert set(costs) == {(t, v) for t in STRATEGIES for v in STRATEGIES}
    assert costs["memory", "blocked"].label == "memory/blocked"
    assert costs["gram", "gram"].label == "gram"


def test_gram_chosen_for_few_centers_and_many_iterations() -> None:
    costs = nytro_costs(n=26049, n_val=6513, m=1000, d=123, max_iter=500, itemsize=8,
                        block_bytes=BLOCK)
    assert choose_strategy(costs, 20 * GiB).name == "gram"
    seconds = {t: costs[t, "gram"].seconds for t in STRATEGIES}
    assert seconds["blocked"] > seconds["memory"] > seconds["gram"]


@pytest.mark.parametrize("itemsize", [8, 4])
def test_covtype_at_m_10000_fits_20_gib(itemsize: int) -> None:
    # covtype at m = 10000: K_nm of the 418328 training rows is 33.5 GB in float64 and
    # 16.7 GB in float32; with K_vm (another 4.2 GB in float32) it would not fit.
    costs = nytro_costs(n=418328, n_val=104582, m=10000, d=54, max_iter=500,
                        itemsize=itemsize, block_bytes=BLOCK)
    chosen = choose_strategy(costs, 20 * GiB)
    assert chosen.peak_bytes <= 20 * GiB
    assert costs["memory", "memory"].peak_bytes > 20 * GiB
    # float64: K_nm does not fit, and one n·m² Gram beats 500 re-evaluations; float32: 500
    # passes over the stored 16.7 GB K_nm beat the Gram (always float64: see
    # RowProducts.gram_kernel)
    assert chosen.name == ("gram" if itemsize == 8 else "memory")


def test_few_iterations_favour_streaming_a_stored_float32_knm() -> None:
    # covtype as in the paper (t* ≈ 39): 50 passes over a float32 K_nm beat the Gram, and the
    # validation kernel is re-evaluated per chunk since storing it too would exceed 20 GiB.
    costs = nytro_costs(n=418328, n_val=104582, m=10000, d=54, max_iter=50, itemsize=4,
                        block_bytes=BLOCK)
    chosen = choose_strategy(costs, 20 * GiB)
    assert (chosen.name, chosen.validation) == ("memory", "blocked")


def test_fixed_parts_are_respected_and_nothing_fitting_gives_the_smallest() -> None:
    costs = nytro_costs(n=418328, n_val=104582, m=10000, d=54, max_iter=500, itemsize=8,
                        block_bytes=BLOCK)
    assert choose_strategy(costs, 20 * GiB, training="blocked").name == "blocked"
    assert choose_strategy(costs, 20 * GiB, validation="memory").validation == "memory"
    smallest = choose_strategy(costs, 1 * GiB)
    assert smallest.peak_bytes == min(c.peak_bytes for c in costs.values())
    assert smallest.name == "blocked"


def test_few_iterations_favour_memory_over_gram() -> None:
    costs = nytro_costs(n=100000, n_val=25000, m=5000, d=20, max_iter=5, itemsize=8,
                        block_bytes=BLOCK)
    assert choose_strategy(costs, 20 * GiB).name == "memory"


@pytest.mark.parametrize(("n", "m"), [(4657, 2000), (5243, 1600)])
def test_gram_chosen_while_m_is_well_below_n(n: int, m: int) -> None:
    # Insurance (m = 2000) and cpuSmall (m = 1600) at 500 iterations: `gram` measured 1.9× and
    # 2.9× faster than `memory` (README, speed section); the model once picked `memory`.
    costs = nytro_costs(n=n, n_val=n // 4, m=m, d=85, max_iter=500, itemsize=8,
                        block_bytes=BLOCK)
    assert choose_strategy(costs, 20 * GiB).name == "gram"
