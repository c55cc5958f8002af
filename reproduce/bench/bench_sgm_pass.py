"""Benchmark: one pass of the kernel SGM/SIGM in the dual, a product per step against a product
per block of steps, side by side on the same rows.

The per-step pass reads the visited point's kernel row and multiplies it with the coefficients
at every step (what kernreg did before: ``n`` products ``K(x_j, X) @ A`` a pass, each a Python
call); the blocked pass (:func:`kernreg.solvers.blocks.stochastic.dual_pass`) multiplies a
block's rows once with the coefficients at the block's start and adds the block's own steps
back through its ``B × B`` kernel. The two iterates agree to rounding (printed). The rows are
trial 0's fit rows of a Table 6.2 full-row config; the kernel is stored or re-evaluated as that
config's memory budget decides. ``c = 1`` is SIGM's one column, ``c = 30`` SGM's 30 step-size
guesses. Medians of ``--repeats``, wall seconds, BLAS threads and host GEMM printed beside,
and written to ``--csv`` (default results/bench_sgm_pass.csv, replacing the rows of the same
row and guesses: :func:`reproduce.bench.record.record_row`; rendered in docs/thesis_ch6.md
by ``make docs``).

    python -m reproduce.bench.bench_sgm_pass --config configs/thesis_table6_adult.yaml --repeats 3
    python -m reproduce.bench.bench_sgm_pass --config configs/thesis_table6_adult.yaml \\
        --repeats 1 --smoke --csv /tmp/bench_sgm_pass.csv  # the config at smoke size
"""

from __future__ import annotations

import argparse
import time
from functools import partial
from pathlib import Path

import numpy as np

from kernreg.config import load_experiment
from kernreg.experiment import prepare_data, trial_split
from kernreg.kernels import make_kernel
from kernreg.losses import get_loss
from kernreg.solvers.blocks.stochastic import KernelRows, dual_pass, loss_step, step_sizes
from reproduce.bench.record import add_csv_options
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import add_smoke_option, host_gemm, smoke_run

ROOT = Path(__file__).resolve().parents[2]
CSV_KEY = ("row", "guesses")
CSV_COLUMNS = ("row", "dtype", "stored", "n_fit", "guesses", "repeats", "per_step_copied_s",
               "per_step_in_place_s", "blocked_s", "max_abs_diff", "sign_flips", "blas_threads",
               "host_gemm_gflops", "source")


#: This script, as the rows' ``source`` names it.
SCRIPT = "reproduce/bench/bench_sgm_pass.py"


def per_step_pass(rows: KernelRows, order: np.ndarray, y: np.ndarray, A: np.ndarray,
                  steps: np.ndarray, grad, gather: bool) -> None:
    """The reference: one row–coefficients product per step, on a copy of each block's rows
    (``gather``: what kernreg's pass read before it kept the kernel in the visiting order) or
    on the rows in place."""
    perm = rows.perm
    coefs = A if perm is None else A[perm]
    positions = rows.positions(order)
    k = 0
    for _, R in rows.blocks(positions):
        if gather and rows.K is not None:
            R = rows.K[positions[k:k + R.shape[0]]]
        for r in range(R.shape[0]):
            coefs[positions[k]] -= steps[k] * grad(y[order[k]], R[r] @ coefs)
            k += 1
    if perm is not None:
        A[perm] = coefs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "thesis_table6_adult.yaml"))
    parser.add_argument("--columns", default="1,30", help="coefficient columns per pass")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    add_csv_options(parser, ROOT / "results" / "bench_sgm_pass.csv")
    add_smoke_option(parser)
    args = parser.parse_args()
    with smoke_run(args.smoke):
        _bench(args)


def _bench(args: argparse.Namespace) -> None:
    exp = load_experiment(Path(args.config), smoke=args.smoke)
    data = prepare_data(exp)
    _, (X, y, _, _) = trial_split(exp, data, 0)
    kernel = make_kernel(exp.kernel["name"], exp.kernel["sigma"], dtype=exp.dataset["dtype"],
                         memory_budget=int(exp.budget["block_mb"] * 2**20))
    grad = loss_step(get_loss("hinge"), "authors")
    n = X.shape[0]
    order = np.random.default_rng(0).permutation(n)
    with Bench(SCRIPT, threads=args.threads, csv=args.csv, key=CSV_KEY, columns=CSV_COLUMNS,
               rates=False) as bench:
        rate = host_gemm()
        print(f"{exp.name}: n_fit {n}, d {X.shape[1]}, {exp.dataset['dtype']} kernel; "
              f"BLAS threads {args.threads}; "
              f"host GEMM {rate:.0f} GF/s")
        start = time.perf_counter()
        rows = KernelRows(kernel, X, int(exp.budget["memory_gb"] * 2**30) // 2, order=order)
        print(f"kernel {'stored' if rows.stored else 'rows re-evaluated every pass'} "
              f"({time.perf_counter() - start:.1f} s), block {rows.block} rows")
        sweeps = {"per step, rows copied": lambda *a: per_step_pass(*a, gather=True),
                  "per step, rows in place": lambda *a: per_step_pass(*a, gather=False),
                  "blocked": dual_pass}
        for c in (int(v) for v in args.columns.split(",")):
            steps = step_sizes(np.logspace(-3, 0, c)[None, :], 0.0,
                               np.arange(1, n + 1)[:, None])
            timings = bench.side_by_side(  # each pass from A = 0, made untimed
                {name: partial(_swept, sweep=sweep, data=(rows, order, y), steps=steps,
                               grad=grad) for name, sweep in sweeps.items()},
                args.repeats, warmup=0, setup=partial(np.zeros, (n, c)))
            times = {name: t.median for name, t in timings.items()}
            results = {name: t.result for name, t in timings.items()}
            blocked = times["blocked"]
            reference = results["per step, rows copied"]
            print(f"c = {c} (median of {args.repeats}): " + "; ".join(
                f"{name} {t:.2f} s ({t / blocked:.1f}x)" for name, t in times.items()))
            diff = np.abs(results["blocked"] - reference).max()
            flips = _sign_flips(rows, reference, results["blocked"])
            print(f"  max |ΔA| blocked vs per step {diff:.1e}"
                  f" (max |A| {np.abs(reference).max():.3g}); signs of Kα that differ: {flips}")
            bench.record({
                "row": exp.dataset["name"], "dtype": exp.dataset["dtype"],
                "stored": rows.stored, "n_fit": n, "guesses": c, "repeats": args.repeats,
                **{f"{key}_s": f"{times[name]:.4f}" for key, name in (
                    ("per_step_copied", "per step, rows copied"),
                    ("per_step_in_place", "per step, rows in place"),
                    ("blocked", "blocked"))},
                "max_abs_diff": f"{diff:.3g}", "sign_flips": flips,
                "host_gemm_gflops": f"{rate:.1f}"})


def _swept(A: np.ndarray, sweep, data: tuple, steps: np.ndarray, grad) -> np.ndarray:
    """``A`` after one ``sweep`` from it over ``data`` (rows, order, y)."""
    rows, order, y = data
    sweep(rows, order, y, A, steps, grad)
    return A


def _sign_flips(rows: KernelRows, A: np.ndarray, B: np.ndarray) -> int:
    """Fit rows where the two iterates classify differently (any column)."""
    if rows.K is None:
        return -1
    perm = rows.perm
    a, b = (M if perm is None else M[perm] for M in (A, B))
    return int(np.any(np.sign(rows.K @ a) != np.sign(rows.K @ b), axis=1).sum())


if __name__ == "__main__":
    main()
