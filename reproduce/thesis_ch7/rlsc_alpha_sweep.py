"""Why Algorithm 7.1's α selection matters: for trials of a streaming config, the balanced
classes' validation accuracy (what the selection rule sees) and the test accuracies on the
new and the balanced classes, for every α of a grid, at a fixed λ and a few n_imb.

    python -m reproduce.thesis_ch7.rlsc_alpha_sweep \\
        configs/thesis_table7.yaml --trials 0 1 --lam 1e3

``--smoke``: the config at smoke size (as ``kernreg run --smoke``: 36 examples per balanced
class, at most 10 streamed, 3 α), seconds, to check the script runs end to end (its numbers
mean nothing; the default n_imb are those within the smoke stream)::

    python -m reproduce.thesis_ch7.rlsc_alpha_sweep \\
        configs/thesis_table7.yaml --smoke --trials 0 --n-imb 5 10
"""

from __future__ import annotations

import argparse

import numpy as np

from kernreg.datasets import load_dataset
from kernreg.protocols.class_incremental import load_config
from kernreg.protocols.class_incremental.config import SMOKE_STREAMED
from kernreg.protocols.class_incremental.trial import draw_trial, stream_seed
from kernreg.solvers.blocks.rlsc import IncrementalRLSC

N_IMB = [10, 50, 100, 500]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--trials", type=int, nargs="+", default=[0])
    parser.add_argument("--lam", type=float, default=1e3)
    parser.add_argument("--n-imb", type=int, nargs="+", default=None,
                        help=f"streamed examples to report at (default: {N_IMB})")
    parser.add_argument("--alpha-step", type=float, default=0.1,
                        help="the α printed: every this step of [0, 1] (the config's grid may "
                             "be finer)")
    parser.add_argument("--smoke", action="store_true",
                        help="the config at smoke size (at most 10 streamed): seconds")
    args = parser.parse_args()
    if args.n_imb is None:
        args.n_imb = [n for n in N_IMB if n <= SMOKE_STREAMED] if args.smoke else N_IMB
    cfg = load_config(args.config, smoke=args.smoke)
    ds = load_dataset(cfg.dataset)
    p = cfg.protocol
    for trial in args.trials:
        rows = draw_trial(ds.y_train, ds.y_test, p, np.random.default_rng(stream_seed(p, trial)))
        imb = rows["imbalanced"]
        model = IncrementalRLSC([args.lam]).fit(ds.X_train[rows["fit"]], ds.y_train[rows["fit"]])
        stream = rows["stream"][~rows["stream_held"]]
        X_val, y_val = ds.X_train[rows["val"]], ds.y_train[rows["val"]]
        X_te, y_te = ds.X_test[rows["test"]], ds.y_test[rows["test"]]
        new = y_te == imb
        done = 0
        for n in sorted(args.n_imb):
            model.partial_fit(ds.X_train[stream[done:n]], ds.y_train[stream[done:n]])
            done = n
            W, gamma = model.coef(0.0)[0], model.recoding(1.0)
            print(f"\ntrial {trial}, digit {imb:g}, n_imb = {n}, λ = {args.lam:g}")
            print("| α | val. acc. balanced | test acc. new class | test acc. balanced |")
            print("|---|---|---|---|")
            for alpha in np.round(np.arange(0.0, 1.0 + 1e-9, args.alpha_step), 6):
                scale = gamma**alpha
                pv = model.classes_[np.argmax(X_val @ W * scale, axis=1)]
                pt = model.classes_[np.argmax(X_te @ W * scale, axis=1)]
                print(f"| {alpha:g} | {np.mean(pv == y_val):.4f} | {np.mean(pt[new] == imb):.3f} "
                      f"| {np.mean(pt[~new] == y_te[~new]):.4f} |")


if __name__ == "__main__":
    main()
