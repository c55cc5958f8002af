"""The NYTRO cost model: estimates scale as the strategies' work does; choice under a limit."""

from __future__ import annotations

from kernreg.solvers._strategy import choose_strategy, nytro_costs

GiB = 2**30


def test_gram_chosen_for_few_centers_and_many_iterations() -> None:
    costs = nytro_costs(n=26049, n_val=6513, m=1000, d=123, max_iter=500, itemsize=8,
                        block_bytes=256 * 2**20)
    assert choose_strategy(costs, 20 * GiB) == "gram"
    assert costs["blocked"].seconds > costs["memory"].seconds > costs["gram"].seconds


def test_memory_limit_excludes_stored_kernel() -> None:
    # covtype at m = 10000: K_nm of the training and validation rows alone is ~39 GiB.
    costs = nytro_costs(n=418328, n_val=104582, m=10000, d=54, max_iter=500, itemsize=8,
                        block_bytes=256 * 2**20)
    assert costs["memory"].peak_bytes > 20 * GiB
    assert choose_strategy(costs, 20 * GiB) in ("gram", "blocked")
    assert choose_strategy(costs, 1 * GiB) == "blocked"  # nothing fits: the smallest


def test_few_iterations_favour_memory_over_gram() -> None:
    costs = nytro_costs(n=100000, n_val=25000, m=5000, d=20, max_iter=5, itemsize=8,
                        block_bytes=256 * 2**20)
    assert choose_strategy(costs, 20 * GiB) == "memory"
