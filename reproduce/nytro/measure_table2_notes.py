"""Measurements behind the notes of NYTRO Table 2 (configs/table2.yaml, docs/nytro.md).

Each subcommand fits trial 0's split of a Table 2 config and prints what the notes quote
(``python -m reproduce.nytro.measure_table2_notes SUBCOMMAND``):

    kols      # Insurance KOLS against the pinv cut-off
    kols-cutoffs # Ijcnn1 KOLS under other cut-offs, from one tridiagonalization
    nytro     # Ijcnn1 NYTRO's test RMSE along its path
    es-step   # Ijcnn1 ES with the framework's step 1/n
    eigh      # the Ijcnn1 KOLS/KRLS blocker at n = 6000
    kols-time # where Insurance KOLS's seconds go (trials 0-4)
    es-time   # where Ijcnn1 ES's seconds go: the kernel, and each iteration's pass over it
    es-tstar  # Adult ES t* over 20 splits, θ ± 5%
    es-paper-tstar # Ijcnn1 ES at the paper's t* and at the cap; the θ that stops there

``--smoke`` runs the same fits on tiny data in seconds (the configs at ``kernreg run
--smoke`` size: 400 rows; 40 centers, at most 20 iterations, a 200-row eigendecomposition);
its numbers mean nothing.

The Ijcnn1 NKRLS validation/test curve is reproduce/nytro/nkrls_lambda_curve.py.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.linalg as la
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from kernreg.config import load_experiment
from kernreg.config.smoke import SMOKE_CENTERS, SMOKE_ITERATIONS, SMOKE_ROWS
from kernreg.datasets import load_dataset
from kernreg.experiment import prepare_data, trial_split
from kernreg.experiment.resources import gemm_gflops
from kernreg.kernels import make_kernel
from kernreg.solvers import KOLS, KernelLandweber, Nytro, rmse
from kernreg.solvers.blocks.distinct import repeated_rows
from kernreg.solvers.blocks.min_norm import default_rcond, min_norm_solve
from kernreg.solvers.blocks.stopping import (
    StoppingRule,
    least_squares_slope,
    select_iteration,
)
from kernreg.solvers.blocks.tridiagonal import tridiagonal_min_norm_cutoffs, tridiagonalize

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
IJCNN1_N = 39992  # Ijcnn1's fit rows: 80% of 49990
#: The sizes each measurement uses: NYTRO's centers and the iterations it is read at, ES's
#: iteration cap, the rows of the eigendecomposition; full (the notes') and --smoke.
SIZES = {
    False: {"m": 5000, "nytro_iters": (329, 344, 400, 500), "es_iters": 500, "eigh_n": 6000},
    True: {"m": SMOKE_CENTERS, "nytro_iters": (5, 10, 15, SMOKE_ITERATIONS),
           "es_iters": SMOKE_ITERATIONS, "eigh_n": SMOKE_ROWS // 2},
}
#: Relative pseudo-inverse cut-offs read on Ijcnn1 (``None``: the default ``n · eps``; 0: every
#: eigenvalue inverted, the rounding's included).
KOLS_RCONDS = (1e-10, None, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 0.0)
#: Ijcnn1 ES: the paper's t* and the configs' iteration cap.
PAPER_ES_TSTAR, ES_CAP = 489, 500
#: Test rows predicted at once (a 2000 × 39992 kernel block: 640 MB).
TEST_BLOCK = 2000


def _trial0(config: str, smoke: bool = False):
    exp = load_experiment(CONFIGS / config, smoke=smoke)
    data = prepare_data(exp)
    seed, split = trial_split(exp, data, 0)
    return exp, data, seed, split


def kols(smoke: bool = False) -> None:
    exp, data, _, (X_fit, y_fit, _, _) = _trial0("insurance_all.yaml", smoke)
    for rcond in (None, 1e-10, 1e-12, 1e-14, 1e-16, 0.0):
        est = KOLS(sigma=exp.kernel["sigma"], rcond=rcond).fit(X_fit, y_fit)
        print(f"insurance KOLS rcond={rcond}: rank {est.rank_}, "
              f"test RMSE {rmse(data.y_test, est.predict(data.X_test)):.4g}", flush=True)


def kols_cutoffs(smoke: bool = False) -> None:
    """Ijcnn1 KOLS trial 0 (the cell's fit) under each of :data:`KOLS_RCONDS`: one
    tridiagonalization of the 39992² kernel in its own memory, every cut-off's ``α`` from it,
    and the test RMSE of each (the test kernel in blocks)."""
    exp, data, _, (X_fit, y_fit, _, _) = _trial0("ijcnn1_kols.yaml", smoke)
    if repeated_rows(X_fit) is not None:  # the cell's KOLS would merge them first
        raise SystemExit("trial 0's fit rows repeat: this check assumes distinct rows")
    kernel = make_kernel("gaussian", exp.kernel["sigma"])
    intercept = float(y_fit.mean())  # KOLS's fit_intercept
    rconds = [default_rcond(len(y_fit)) if r is None else r for r in KOLS_RCONDS]
    print(f"host GEMM {gemm_gflops():.0f} GF/s (float64, 2 BLAS threads)", flush=True)
    start = time.perf_counter()
    tri = tridiagonalize(kernel(X_fit))
    reduced = time.perf_counter() - start
    alphas, ranks, cutoffs = tridiagonal_min_norm_cutoffs(tri, y_fit - intercept, rconds)
    values = tri.eigenvalues()
    del tri
    solved = time.perf_counter() - start - reduced
    predicted = np.vstack([kernel(data.X_test[i:i + TEST_BLOCK], X_fit) @ alphas
                           for i in range(0, len(data.y_test), TEST_BLOCK)]) + intercept
    errors = np.sqrt(np.mean((predicted - data.y_test[:, None]) ** 2, axis=0))
    print(f"ijcnn1 KOLS trial 0: n = {len(y_fit)}, kernel and tridiagonalization {reduced:.0f} s, "
          f"every cut-off's α {solved:.0f} s; eigenvalues {values.min():.3g} … "
          f"{values.max():.4g}, {int(np.sum(values <= 0))} at or below 0", flush=True)
    for rcond, label, rank, cutoff, error, alpha in zip(
            rconds, KOLS_RCONDS, ranks, cutoffs, errors, alphas.T, strict=True):
        name = f"{rcond:.3g} (n·eps, the default)" if label is None else f"{rcond:.3g}"
        print(f"ijcnn1 KOLS rcond = {name}: cut-off {cutoff:.3g}, rank {rank}, "
              f"max |α| {np.abs(alpha).max():.3g}, test RMSE {error:.6g}", flush=True)


def nytro(smoke: bool = False) -> None:
    exp, data, seed, split = _trial0("ijcnn1_nytro.yaml", smoke)
    threshold_free = {"stopping_rule": "none", "select": "stop", "step_rows": "all"}
    for t in SIZES[smoke]["nytro_iters"]:
        est = Nytro(sigma=exp.kernel["sigma"], m=SIZES[smoke]["m"], max_iter=t, random_state=seed,
                    **threshold_free).fit(*split)
        print(f"ijcnn1 NYTRO t={t}: val {est.path_['val_rmse'][-1]:.4f} "
              f"test {rmse(data.y_test, est.predict(data.X_test)):.4f}", flush=True)


def es_step(smoke: bool = False) -> None:
    exp, data, _, split = _trial0("ijcnn1_es.yaml", smoke)
    start = time.perf_counter()
    est = KernelLandweber(sigma=exp.kernel["sigma"], max_iter=SIZES[smoke]["es_iters"],
                          step_rule="n", stopping_rule="window_slope",
                          threshold=0.000835).fit(*split)
    print(f"ijcnn1 ES step 1/n: t* {est.best_iter_}, "
          f"test {rmse(data.y_test, est.predict(data.X_test)):.4f}, "
          f"{time.perf_counter() - start:.0f} s", flush=True)


def eigh(smoke: bool = False) -> None:
    """Time (×(N/n)³ to Ijcnn1's N) and float32 precision of the kernel eigendecomposition."""
    n = SIZES[smoke]["eigh_n"]
    ds = load_dataset("ijcnn1")
    rows = np.random.default_rng(0).choice(len(ds.y_train), n, replace=False)
    K = make_kernel("gaussian", 1.0)(ds.X_train[rows])
    scale = (IJCNN1_N / n) ** 3
    reference = None
    for label, dtype, driver in (("float64 evr (A + Z: 2n²)", np.float64, "evr"),
                                 ("float64 ev, in place (n²)", np.float64, "ev"),
                                 ("float32 evd (A + work: 3n²)", np.float32, "evd"),
                                 ("float32 evr", np.float32, "evr")):
        A = K.astype(dtype)
        start = time.perf_counter()
        s, _ = la.eigh(A, driver=driver, overwrite_a=True, check_finite=False)
        seconds = time.perf_counter() - start
        reference = s if reference is None else reference
        print(f"{label}: {seconds:.1f} s at n = {n}; ×{scale:.0f} -> "
              f"{seconds * scale / 3600:.2f} h at n = {IJCNN1_N}", flush=True)
        if dtype == np.float32:
            err = np.abs(s.astype(np.float64) - reference).max()
            print(f"   float32 eigenvalue error: max {err:.2e}, top eigenvalue "
                  f"{reference[-1]:.1f}; λ*n at the paper's λ* 1.07e-8: "
                  f"{1.07e-8 * IJCNN1_N:.1e}", flush=True)


def kols_time(smoke: bool = False) -> None:
    """Insurance KOLS per trial: the fit's seconds, and those of its parts on the same rows
    (duplicate merge, kernel of the distinct rows, then min_norm_solve's own clock)."""
    exp = load_experiment(CONFIGS / "insurance_all.yaml", smoke=smoke)
    data = prepare_data(exp)
    sigma = exp.kernel["sigma"]
    kernel = make_kernel("gaussian", sigma)
    _, warm = trial_split(exp, data, 0)
    KOLS(sigma=sigma).fit(*warm)  # compiled kernels and BLAS threads started before timing
    print(f"host GEMM {gemm_gflops():.0f} GF/s (float64, 2 BLAS threads)", flush=True)
    for trial in range(1 if smoke else 5):
        _, (X_fit, y_fit, X_val, y_val) = trial_split(exp, data, trial)
        start = time.perf_counter()
        KOLS(sigma=sigma).fit(X_fit, y_fit, X_val, y_val)
        whole = time.perf_counter() - start
        start = time.perf_counter()
        rows = repeated_rows(X_fit)
        merge = time.perf_counter() - start
        X_u = X_fit if rows is None else X_fit[rows.first]
        start = time.perf_counter()
        K = kernel(X_u)
        evaluation = time.perf_counter() - start
        y_u = y_fit if rows is None else rows.reduce(y_fit)
        solution = min_norm_solve(K.copy, y_u, rcond=default_rcond(len(y_fit)),
                                  scale=None if rows is None else rows.scale)
        parts = ", ".join(f"{k} {v:.3f}" for k, v in solution.seconds.items())
        print(f"insurance KOLS trial {trial}: fit {whole:.3f} s; rows {len(y_fit)} "
              f"({len(y_u)} distinct, merge {merge:.3f} s), kernel {evaluation:.3f} s, "
              f"{solution.factorization}: {parts}", flush=True)


def es_time(smoke: bool = False) -> None:
    """Ijcnn1 ES trial 0: the kernel's evaluation, one Landweber iteration (a pass over the
    stored K and the validation block) and the read bandwidth of a plain sum over K."""
    exp, _, _, (X_fit, y_fit, X_val, _) = _trial0("ijcnn1_es.yaml", smoke)
    kernel = make_kernel("gaussian", exp.kernel["sigma"])
    print(f"host GEMM {gemm_gflops():.0f} GF/s (float64, 2 BLAS threads)", flush=True)
    start = time.perf_counter()
    K = kernel(X_fit)
    evaluation = time.perf_counter() - start
    K_val = kernel(X_val, X_fit)
    alpha = np.zeros(len(y_fit))
    times = []
    for _ in range(5):
        start = time.perf_counter()
        alpha -= 1e-5 * (K @ alpha - y_fit)
        K_val @ alpha
        times.append(time.perf_counter() - start)
    start = time.perf_counter()
    K.sum()
    summed = time.perf_counter() - start
    gib = (K.nbytes + K_val.nbytes) / 2**30
    print(f"ijcnn1 ES trial 0: n = {len(y_fit)}, kernel {evaluation:.1f} s; one iteration "
          f"(K and K_val, {gib:.1f} GiB) median {np.median(times):.3f} s "
          f"= {gib / np.median(times):.1f} GiB/s; a sum over K {summed:.3f} s "
          f"= {K.nbytes / 2**30 / summed:.1f} GiB/s", flush=True)


def es_tstar(smoke: bool = False) -> None:
    """Adult ES t* (window-slope rule, the authors' θ and θ ± 5%) on 20 splits: each trial's
    validation path run without stopping, the rule applied to it."""
    exp = load_experiment(CONFIGS / "adult_all.yaml", smoke=smoke)
    data = prepare_data(exp)
    es = next(a for a in exp.algorithms if a.name == "es").params["stopping"]
    theta, window = float(es["threshold"]), int(es["window"])
    paths = []
    for trial in range(2 if smoke else 20):
        _, split = trial_split(exp, data, trial)
        est = KernelLandweber(sigma=exp.kernel["sigma"], max_iter=SIZES[smoke]["es_iters"]
                              if smoke else 80, stopping_rule="none").fit(*split)
        paths.append(np.asarray(est.path_["val_rmse"], dtype=float))
    for name, th in (("θ", theta), ("θ − 5%", 0.95 * theta), ("θ + 5%", 1.05 * theta)):
        t = [select_iteration(p, StoppingRule("window_slope", window, th, "stop"))[0]
             for p in paths]
        for trials, chosen in (("0-4", t[:5]), (f"0-{len(t) - 1}", t)):
            values, counts = np.unique(chosen, return_counts=True)
            print(f"adult ES t*, {name} = {th:.5g}, trials {trials}: "
                  f"{np.mean(chosen):.1f} ± {np.std(chosen):.1f} ("
                  + ", ".join(f"{v}×{c}" for v, c in zip(values, counts, strict=True)) + ")",
                  flush=True)


def es_paper_tstar(smoke: bool = False) -> None:
    """Ijcnn1 ES trial 0 run without stopping to the paper's t* (489) and to the configs' cap
    (500): the test RMSE there, and the threshold θ below which the window-slope rule (the
    config's window) would not have stopped before t = 489 on this validation path."""
    exp, data, _, split = _trial0("ijcnn1_es.yaml", smoke)
    es = next(a for a in exp.algorithms if a.name == "es").params["stopping"]
    theta, window = float(es["threshold"]), int(es["window"])
    stops = (SIZES[smoke]["es_iters"] - 2, SIZES[smoke]["es_iters"]) if smoke else \
        (PAPER_ES_TSTAR, ES_CAP)
    path = None
    for t in stops:
        with warnings.catch_warnings():  # stopping at max_iter is the point here
            warnings.simplefilter("ignore", ConvergenceWarning)
            est = KernelLandweber(sigma=exp.kernel["sigma"], max_iter=t, stopping_rule="none",
                                  select="stop").fit(*split)
        path = np.asarray(est.path_["val_rmse"], dtype=float)
        print(f"ijcnn1 ES t = {t}: val {path[-1]:.4f}, "
              f"test {rmse(data.y_test, est.predict(data.X_test)):.4f}", flush=True)
    # window_slope fires at the first t whose window's slope b1 >= −θ/w: it runs past t = T
    # exactly when θ < min over t < T of −w·b1(t)
    slopes = np.array([least_squares_slope(path[t - window:t])
                       for t in range(window, len(path) + 1)])
    needed = -window * slopes  # θ at or above which the rule fires at t = window, window + 1, …
    _, t_stop, fired = select_iteration(path, StoppingRule("window_slope", window, theta, "stop"))
    before = needed[: stops[0] - window]  # the windows ending at t < stops[0]
    stopped = f"stops at t = {t_stop}" if fired else f"does not stop by t = {t_stop}"
    print(f"ijcnn1 ES window-slope, w = {window}: θ = {theta:.4g} {stopped}; "
          f"to run to t = {stops[0]} θ must be below {before.min():.3g} "
          f"({before.min() / theta:.3g} θ, the smallest −w·slope before it, at t = "
          f"{int(np.argmin(before)) + window})", flush=True)


def main() -> None:
    commands = {"kols": kols, "kols-cutoffs": kols_cutoffs, "nytro": nytro,
                "es-step": es_step, "eigh": eigh, "kols-time": kols_time, "es-time": es_time,
                "es-tstar": es_tstar, "es-paper-tstar": es_paper_tstar}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=list(commands))
    parser.add_argument("--smoke", action="store_true",
                        help="tiny data and sizes: seconds, numbers that mean nothing")
    args = parser.parse_args()
    with threadpool_limits(limits=2):
        commands[args.what](args.smoke)


if __name__ == "__main__":
    main()
