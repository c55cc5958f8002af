"""Measurements behind the notes of NYTRO Table 2 (configs/table2.yaml, docs/reproduction.md).

Each subcommand fits trial 0's split of a Table 2 config and prints what the notes quote
(``python -m reproduce.nytro.measure_table2_notes SUBCOMMAND``):

    kols      # Insurance KOLS against the pinv cut-off
    nytro     # Ijcnn1 NYTRO's test RMSE along its path
    es-step   # Ijcnn1 ES with the framework's step 1/n
    eigh      # the Ijcnn1 KOLS/KRLS blocker at n = 6000

The Ijcnn1 NKRLS validation/test curve is reproduce/nytro/nkrls_lambda_curve.py.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.linalg as la
from threadpoolctl import threadpool_limits

from kernreg.config import load_experiment
from kernreg.datasets import load_dataset
from kernreg.experiment import prepare_data, trial_split
from kernreg.kernels import make_kernel
from kernreg.solvers import KOLS, KernelLandweber, Nytro, rmse

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
IJCNN1_N = 39992  # Ijcnn1's fit rows: 80% of 49990


def _trial0(config: str):
    exp = load_experiment(CONFIGS / config)
    data = prepare_data(exp)
    seed, split = trial_split(exp, data, 0)
    return exp, data, seed, split


def kols() -> None:
    exp, data, _, (X_fit, y_fit, _, _) = _trial0("insurance_all.yaml")
    for rcond in (None, 1e-10, 1e-12, 1e-14, 1e-16, 0.0):
        est = KOLS(sigma=exp.kernel["sigma"], rcond=rcond).fit(X_fit, y_fit)
        print(f"insurance KOLS rcond={rcond}: rank {est.rank_}, "
              f"test RMSE {rmse(data.y_test, est.predict(data.X_test)):.4g}", flush=True)


def nytro() -> None:
    exp, data, seed, split = _trial0("ijcnn1_nytro.yaml")
    threshold_free = {"stopping_rule": "none", "select": "stop", "step_rows": "all"}
    for t in (329, 344, 400, 500):
        est = Nytro(sigma=exp.kernel["sigma"], m=5000, max_iter=t, random_state=seed,
                    **threshold_free).fit(*split)
        print(f"ijcnn1 NYTRO t={t}: val {est.path_['val_rmse'][-1]:.4f} "
              f"test {rmse(data.y_test, est.predict(data.X_test)):.4f}", flush=True)


def es_step() -> None:
    exp, data, _, split = _trial0("ijcnn1_es.yaml")
    start = time.perf_counter()
    est = KernelLandweber(sigma=exp.kernel["sigma"], max_iter=500, step_rule="n",
                          stopping_rule="window_slope", threshold=0.000835).fit(*split)
    print(f"ijcnn1 ES step 1/n: t* {est.best_iter_}, "
          f"test {rmse(data.y_test, est.predict(data.X_test)):.4f}, "
          f"{time.perf_counter() - start:.0f} s", flush=True)


def eigh(n: int = 6000) -> None:
    """Time (×(N/n)³ to Ijcnn1's N) and float32 precision of the kernel eigendecomposition."""
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


def main() -> None:
    commands = {"kols": kols, "nytro": nytro, "es-step": es_step, "eigh": eigh}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=list(commands))
    args = parser.parse_args()
    with threadpool_limits(limits=2):
        commands[args.what]()


if __name__ == "__main__":
    main()
