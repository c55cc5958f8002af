"""Benchmark: the KRLS λ path and KOLS's minimum-norm solve by ``eigh`` against the same by one
tridiagonalization in the kernel's own memory, side by side.

On Ijcnn1 (trial 0's fit rows of configs/ijcnn1_krls.yaml, σ = the paper's) subsampled to each
of ``--sizes`` rows, the kernel matrix is evaluated once and both paths run on copies of it,
alternating, ``--repeats`` times, over the config's 100 λ. Printed: the median seconds of each
and their ratio, the float64 arrays each holds at its peak (``eigh``: the kernel and its
eigenvectors; tridiagonal: the kernel, one chunk of the tridiagonal's eigenvectors and the
path twice), and how far the tridiagonal path's validation predictions (trial 0's validation
rows) are from ``eigh``'s: at the λ ``eigh`` selects, and the largest over λ ≥ 1e-10; with
``--kols`` the same for KOLS's minimum-norm solve (``eigh``'s rule against the tridiagonal
one; no pivoted Cholesky). BLAS threads and the host's rates (before and after the run:
reproduce.bench.skeleton) are printed beside the times.

    python -m reproduce.bench.bench_spectral_path --sizes 6000,10000 --repeats 2 --kols
    python -m reproduce.bench.bench_spectral_path --sizes 200 --repeats 1 --kols --smoke
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from kernreg.config import load_experiment
from kernreg.experiment import prepare_data, trial_split
from kernreg.experiment.resources import blas_description
from kernreg.solvers import KRLS, NystromKRLS, rmse
from kernreg.solvers.blocks.lambda_path import eigen_path_coefs
from kernreg.solvers.blocks.linalg import eigh_inplace, sym_inplace
from kernreg.solvers.blocks.min_norm import default_rcond, eigh_min_norm
from kernreg.solvers.blocks.tridiagonal import (
    CHUNK,
    tridiagonal_min_norm,
    tridiagonal_path_coefs,
    tridiagonalize,
)
from reproduce.bench.skeleton import Bench
from reproduce.bench.smoke import add_smoke_option, smoke_run

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "ijcnn1_krls.yaml"
GIB = 2**30


def _eigh_path(K: np.ndarray, y: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    s, U = eigh_inplace(K)
    return eigen_path_coefs(s, U, y, shifts)


def _tridiagonal_path(K: np.ndarray, y: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    return tridiagonal_path_coefs(tridiagonalize(K), y, shifts)


def bench_size(n: int, split: tuple, lambdas: np.ndarray, sigma: float, repeats: int,
               kols: bool) -> None:
    X, y, X_val, y_val = split
    rows = np.sort(np.random.default_rng(n).choice(X.shape[0], n, replace=False))
    Xn, yn = X[rows], y[rows]
    est = KRLS(sigma=sigma)
    est.kernel_ = est._make_kernel()
    K = sym_inplace(np.asarray(est.kernel_(Xn), dtype=np.float64))
    K_val = np.asarray(est.kernel_(X_val, Xn), dtype=np.float64)
    shifts = lambdas * n
    times = Bench.side_by_side({"eigh": lambda A: _eigh_path(A, yn, shifts),
                                "tridiagonal": lambda A: _tridiagonal_path(A, yn, shifts)},
                               repeats, warmup=0, setup=K.copy)
    ours, theirs = (K_val @ times[name].result for name in ("tridiagonal", "eigh"))
    errors = np.sqrt(np.mean((theirs - y_val[:, None]) ** 2, axis=0))
    best = int(np.argmin(errors))
    relative = np.abs(ours - theirs).max(axis=0) / np.abs(theirs).max(axis=0)
    t_eigh, t_tri = times["eigh"].median, times["tridiagonal"].median
    path = n * lambdas.size * 8
    print(f"n = {n}: KRLS λ path ({lambdas.size} λ) eigh {t_eigh:.2f} s, tridiagonal "
          f"{t_tri:.2f} s, ratio {t_eigh / t_tri:.2f}x (medians of {repeats}); float64 "
          f"arrays at the peak: eigh {(2 * n * n * 8 + path) / GIB:.2f} GiB, tridiagonal "
          f"{(n * n * 8 + n * CHUNK * 8 + 2 * path) / GIB:.2f} GiB", flush=True)
    print(f"  validation predictions, tridiagonal against eigh: {relative[best]:.1e} at "
          f"eigh's λ* {lambdas[best]:.3g} (validation RMSE {errors[best]:.4f}), at most "
          f"{relative[lambdas >= 1e-10].max():.1e} over λ ≥ 1e-10, "
          f"{relative.max():.1e} over all λ", flush=True)
    if kols:
        rcond = default_rcond(n)
        solved = Bench.side_by_side(
            {"eigh": lambda A: eigh_min_norm(A, yn, rcond).alpha,
             "tridiagonal": lambda A: tridiagonal_min_norm(tridiagonalize(A), yn, rcond)[0]},
            repeats, warmup=0, setup=K.copy)
        ours, theirs = (K_val @ solved[name].result for name in ("tridiagonal", "eigh"))
        print(f"  KOLS min-norm: eigh {solved['eigh'].median:.2f} s, tridiagonal "
              f"{solved['tridiagonal'].median:.2f} s; validation predictions relative "
              f"difference {np.abs(ours - theirs).max() / np.abs(theirs).max():.1e}, "
              f"validation RMSE eigh {rmse(y_val, theirs):.4f}, tridiagonal "
              f"{rmse(y_val, ours):.4f}", flush=True)


def bench_nkrls(m: int, split: tuple, lambdas: np.ndarray, sigma: float, repeats: int) -> None:
    X, y, X_val, y_val = split

    def fit(method: str) -> NystromKRLS:
        return NystromKRLS(sigma=sigma, m=m, lambdas=lambdas, path_method=method,
                           random_state=0).fit(X, y, X_val, y_val)

    fits = Bench.side_by_side({method: lambda method=method: fit(method)
                               for method in ("eigh", "tridiagonal")}, repeats, warmup=0)
    theirs, ours = (fits[name].result.predict_path(X_val) for name in ("eigh", "tridiagonal"))
    relative = np.abs(ours - theirs).max(axis=0) / np.abs(theirs).max(axis=0)
    chosen = {name: fits[name].result.best_lambda_ for name in fits}
    best = int(np.flatnonzero(lambdas == chosen["eigh"])[0])
    t_eigh, t_tri = fits["eigh"].median, fits["tridiagonal"].median
    print(f"NKRLS m = {m}, n = {X.shape[0]}: whole fit ({lambdas.size} λ) with the path by eigh "
          f"{t_eigh:.2f} s, tridiagonal {t_tri:.2f} s, ratio {t_eigh / t_tri:.2f}x (medians of "
          f"{repeats}); λ* {chosen['eigh']:.3g} and {chosen['tridiagonal']:.3g}", flush=True)
    print(f"  validation predictions, tridiagonal against eigh: {relative[best]:.1e} at "
          f"eigh's λ*, at most {relative[lambdas >= 1e-10].max():.1e} over λ ≥ 1e-10, "
          f"{relative.max():.1e} over all λ", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,4000", help="comma-separated subsample sizes")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2, help="BLAS threads")
    parser.add_argument("--kols", action="store_true", help="also KOLS's minimum-norm solve")
    parser.add_argument("--nkrls", default="", help="comma-separated NKRLS center counts m")
    add_smoke_option(parser)
    args = parser.parse_args()
    with smoke_run(args.smoke):
        exp = load_experiment(CONFIG, smoke=args.smoke)
        data = prepare_data(exp)
        _, split = trial_split(exp, data, 0)
        split = tuple(np.asarray(part) for part in split)
        lambdas = exp.algorithms[0].lambdas()
        with Bench("reproduce/bench/bench_spectral_path.py", threads=args.threads):
            print(f"BLAS: {blas_description()}, {args.threads} thread(s)", flush=True)
            for n in (int(v) for v in args.sizes.split(",") if v and int(v)):
                bench_size(min(n, split[0].shape[0]), split, lambdas, exp.kernel["sigma"],
                           args.repeats, args.kols)
            for m in (int(v) for v in args.nkrls.split(",") if v):
                bench_nkrls(min(m, split[0].shape[0]), split, lambdas, exp.kernel["sigma"],
                            args.repeats)


if __name__ == "__main__":
    main()
