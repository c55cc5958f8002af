"""What one trial of a full Table 6.2 row (adult 32562, ijcnn1 49990) costs, measured in parts
where the whole trial does not fit the session: on trial 0's split of
``configs/thesis_table6_<row>.yaml`` (the runner's seed and split),

* ``libsvm``: one SVM per C of the LIBSVM cell's grid
  (:data:`kernreg.solvers.algorithms.libsvm.DEFAULT_CS`, 13 values; the kernel cache the
  config's memory budget gives the cell), in ascending order, each
  with its fit time, validation error and support vectors (``--test``: and its test error,
  untimed); no new fit starts once
  ``--budget-s`` seconds are spent (one trial is the sum over the grid); ``--fit-on-all``:
  each C fitted on the fit and validation rows together (the whole training file, as a refit
  after the hold-out would be), so without a validation error;
* ``sigm``: the first ``--epochs`` epochs of a SIGM cell (``--label SIGM_C`` or ``SIGM_D``, the
  cell's own parameters and kernel storage), each epoch's wall and CPU seconds (a trial runs up
  to ``max_iter`` = 100 epochs, fewer when the stopping rule fires).

Wall and process-CPU seconds are both printed: on a loaded host the CPU seconds are the cost,
the wall seconds what this run waited. Rows go to ``--csv`` (replacing the same row and part
measured before; :func:`reproduce.bench.record.record_row`)::

    .venv/bin/python -m reproduce.thesis_ch6.thesis_ch6_full_costs adult libsvm --budget-s 1200 \\
        --csv results/thesis_table6_full_costs.csv
    .venv/bin/python -m reproduce.thesis_ch6.thesis_ch6_full_costs ijcnn1 sigm \\
        --label SIGM_C --epochs 2 --csv results/thesis_table6_full_costs.csv

``--smoke``: the same parts on the config at smoke size (:mod:`kernreg.config.smoke`: 400
training rows, 200 test; the host's GEMM rate on 256 × 256 products), seconds, to check the
script runs end to end (its numbers mean nothing)::

    .venv/bin/python -m reproduce.thesis_ch6.thesis_ch6_full_costs adult libsvm --smoke \\
        --test --csv /tmp/smoke/thesis_table6_full_costs.csv
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from kernreg.config import load_experiment, make_estimator
from kernreg.experiment import prepare_data, trial_split
from kernreg.experiment.resources import gemm_gflops
from kernreg.solvers import LibSVM
from kernreg.solvers.algorithms.libsvm import DEFAULT_CS
from reproduce.bench.record import record_row, today_source

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
CSV_KEY = ["row", "part"]
CSV_COLUMNS = ["part", "wall_s", "cpu_s", "row", "n_fit", "host_gemm_gflops", "n_support",
               "val_error", "val_hinge", "test_error", "source"]


class Clock:
    """Wall and process-CPU seconds of a block."""

    def __enter__(self) -> Clock:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu


def libsvm_rows(row: str, sigma: float, split: tuple, cs: list[float], budget_s: float,
                max_memory: int, test: tuple | None = None, fit_on_all: bool = False
                ) -> list[dict]:
    X, y, X_val, y_val = split
    if fit_on_all:
        X, y = np.concatenate([X, X_val]), np.concatenate([y, y_val])
    rows, spent = [], 0.0
    for C in sorted(cs):
        if spent > budget_s:
            print(f"C = {C:g}: not started ({spent:.0f} s spent > budget {budget_s:g} s)")
            continue
        with Clock() as fit:
            svc = LibSVM(sigma=sigma, Cs=[C], max_memory=max_memory)._svc(C, len(y)).fit(X, y)
        if fit_on_all:  # the validation rows were fitted: no validation error
            measured = {"part": f"libsvm C = {C:g}, fit on all {len(y)} rows",
                        "wall_s": fit.wall, "cpu_s": fit.cpu}
            spent += fit.wall
        else:
            with Clock() as val:
                f = svc.decision_function(X_val)
            spent += fit.wall + val.wall
            measured = {"part": f"libsvm C = {C:g}", "wall_s": fit.wall + val.wall,
                        "cpu_s": fit.cpu + val.cpu,
                        "val_error": float(np.mean(np.where(f >= 0, 1.0, -1.0) != y_val)),
                        "val_hinge": float(np.mean(np.maximum(0.0, 1.0 - y_val * f)))}
        rows.append({**measured, "n_support": int(svc.n_support_.sum())})
        if test is not None:  # what each C gives on the test rows (outside the timings)
            f_test = svc.decision_function(test[0])
            rows[-1]["test_error"] = float(np.mean(np.where(f_test >= 0, 1.0, -1.0) != test[1]))
        found = ("" if fit_on_all else f", validation error {rows[-1]['val_error']:.4f}, "
                 f"hinge {rows[-1]['val_hinge']:.4f}")
        tested = f", test error {rows[-1]['test_error']:.4f}" if test is not None else ""
        print(f"{rows[-1]['part']}: {rows[-1]['wall_s']:.1f} s wall / "
              f"{rows[-1]['cpu_s']:.1f} s CPU, {rows[-1]['n_support']} support vectors"
              f"{found}{tested}", flush=True)
    return rows


def sigm_rows(exp, label: str, seed: int, split: tuple, epochs: int) -> list[dict]:
    X, y, X_val, y_val = split
    algo = next(a for a in exp.algorithms if a.label == label)
    est = make_estimator(algo, exp, random_state=seed)
    est.set_params(max_iter=epochs, stopping_rule="none")
    times: list[tuple[float, float]] = []
    with Clock() as total:
        # time each epoch through the validation scorer, which the loop calls once per epoch
        est._start_fit(X, y, X_val, y_val)
        est._held, est._eval_rows, est._eval = [], None, None
        with Clock() as setup:
            it = est._start_iterations(X, y, X_val, y_val)
        for _ in range(epochs):
            with Clock() as epoch:
                it.val_rmse(it.step()[:, None].copy())
            times.append((epoch.wall, epoch.cpu))
        est._hand_on()
    rows = [{"part": f"{label} set-up (kernels stored: K {est.kernel_stored_})",
             "wall_s": setup.wall, "cpu_s": setup.cpu}]
    for e, (wall, cpu) in enumerate(times, 1):
        rows.append({"part": f"{label} epoch {e} (+ validation)", "wall_s": wall, "cpu_s": cpu})
        print(f"{label} epoch {e}: {wall:.1f} s wall / {cpu:.1f} s CPU", flush=True)
    print(f"{label}: set-up {setup.wall:.1f} s wall / {setup.cpu:.1f} s CPU, K stored: "
          f"{est.kernel_stored_}; {epochs} epochs in {total.wall:.1f} s wall", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("row", choices=["adult", "ijcnn1", "adult_1000", "ijcnn1_1000"])
    parser.add_argument("what", choices=["libsvm", "sigm"])
    parser.add_argument("--budget-s", type=float, default=1200.0,
                        help="libsvm: no new fit starts after this many seconds")
    parser.add_argument("--cs", type=float, nargs="*", default=list(DEFAULT_CS))
    parser.add_argument("--label", default="SIGM_C", help="sigm: the cell's label")
    parser.add_argument("--epochs", type=int, default=2, help="sigm: epochs timed")
    parser.add_argument("--test", action="store_true",
                        help="libsvm: also the test error of every C (untimed)")
    parser.add_argument("--fit-on-all", action="store_true",
                        help="libsvm: fit each C on the fit and validation rows together")
    parser.add_argument("--csv", type=Path, default=None,
                        help="append the rows here (replacing earlier rows of the same part)")
    parser.add_argument("--smoke", action="store_true",
                        help="the config at smoke size (400 training rows, 200 test): seconds")
    args = parser.parse_args()
    exp = load_experiment(CONFIGS / f"thesis_table6_{args.row}.yaml", smoke=args.smoke)
    data = prepare_data(exp)
    seed, split = trial_split(exp, data, 0)
    sigma = float(exp.kernel["sigma"])
    rate = gemm_gflops(256 if args.smoke else 1024)  # smoke: the yardstick in ms, not 0.5 s
    print(f"{args.row}: {split[0].shape[0]} fit rows, {split[2].shape[0]} validation, "
          f"σ = {sigma}; host GEMM {rate:.1f} GF/s (1 thread)", flush=True)
    if args.what == "libsvm":
        rows = libsvm_rows(args.row, sigma, split, args.cs, args.budget_s,
                           int(exp.budget["memory_gb"] * 2**30),
                           (data.X_test, data.y_test) if args.test else None,
                           fit_on_all=args.fit_on_all)
    else:
        rows = sigm_rows(exp, args.label, seed, split, args.epochs)
    if args.csv is not None:
        fitted = split[0].shape[0] + (split[2].shape[0] if args.fit_on_all else 0)
        source = today_source("reproduce/thesis_ch6/thesis_ch6_full_costs.py")
        for row in rows:  # replaces the (row, part) rows measured before, keeps the others
            record_row(args.csv, {**{k: _six_digits(v) for k, v in row.items()},
                                  "row": args.row, "n_fit": fitted,
                                  "host_gemm_gflops": _six_digits(rate), "source": source},
                       CSV_KEY, CSV_COLUMNS)


def _six_digits(value: object) -> object:
    return f"{value:.6g}" if isinstance(value, float | np.floating) else value


if __name__ == "__main__":
    main()
