"""The measurements behind docs/thesis_ch6.md's reasons for Table 6.2 cells more than 10%
from the paper: every number is a re-fit of the runner's trials (same config, trial seeds and
splits through ``kernreg.experiment.trial_split``), with the one parameter named changed::

    .venv/bin/python -m reproduce.thesis_ch6.thesis_ch6_checks > results/thesis_ch6_checks.txt

(about 10 minutes on one core). ``--smoke``: the same re-fits on the configs at smoke size
(:mod:`kernreg.config.smoke`: 400 training rows, 200 test, 1 trial, 20 epochs, 2 passes, 40
random features), seconds, to check the script runs end to end (its numbers mean nothing)::

    .venv/bin/python -m reproduce.thesis_ch6.thesis_ch6_checks --smoke
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from kernreg.config import load_experiment
from kernreg.config.smoke import SMOKE_CENTERS, SMOKE_ITERATIONS, SMOKE_PASSES
from kernreg.experiment import prepare_data, trial_split
from kernreg.kernels import make_kernel
from kernreg.solvers import FeatureSGM, LibSVM, MultiPassSGM, OnePassSGM
from kernreg.solvers.algorithms.libsvm import DEFAULT_CS

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
TRIALS = 10
#: SIGM's epochs along the test path, SGM's most passes and sgm_rf's random features
#: (--smoke: the smoke caps).
EPOCHS = 100
PASSES = 5
FEATURES = 1000


def hinge_losses(y: np.ndarray, F: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, 1.0 - y[:, None] * F).mean(axis=0)


def error_rates(y: np.ndarray, F: np.ndarray) -> np.ndarray:
    return (np.where(F >= 0, 1.0, -1.0) != y[:, None]).mean(axis=0)


def row_trials(row: str, smoke: bool = False) -> Iterator[tuple]:
    """The runner's trials of Table 6.2's row ``row`` (its 10, or the smoke config's one):
    ``(σ, data, seed, (X_fit, y_fit, X_val, y_val))``."""
    exp = load_experiment(CONFIGS / f"thesis_table6_{row}.yaml", smoke=smoke)
    data = prepare_data(exp)
    for trial in range(exp.protocol["trials"] if smoke else TRIALS):
        seed, split = trial_split(exp, data, trial)
        yield float(exp.kernel["sigma"]), data, seed, split


def sigm_test_path(row: str, eta: float | None, theta: float, epochs: int,
                   smoke: bool = False) -> np.ndarray:
    """Mean over trials of SIGM's test hinge loss and error per epoch, shape (2, epochs)."""
    out = []
    for sigma, data, seed, (X, y, _, _) in row_trials(row, smoke):
        est = MultiPassSGM(sigma=sigma, step_size=eta or 1 / np.sqrt(len(y)), theta=theta,
                           max_iter=epochs, stopping_rule="none", random_state=seed)
        pair = []
        for measure in ("hinge", "error"):
            est.set_params(validation_measure=measure)
            pair.append(est.fit(X, y, data.X_test, data.y_test).path_["val_rmse"])
        out.append(pair)
    return np.mean(out, axis=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true",
                        help="the configs at smoke size, 1 trial, the smoke caps: seconds")
    smoke = parser.parse_args().smoke
    epochs, most_passes, features = ((SMOKE_ITERATIONS, SMOKE_PASSES, SMOKE_CENTERS) if smoke
                                     else (EPOCHS, PASSES, FEATURES))
    print("test positive fraction: " + ", ".join(
        f"{row} {np.mean(next(row_trials(row, smoke))[1].y_test > 0):.4f}"
        for row in ("breast_cancer", "adult_1000", "ijcnn1_1000")))
    for row, label, eta, theta in (("breast_cancer", "SIGM D", 0.25, 0.5),
                                   ("adult_1000", "SIGM D", 0.25, 0.5),
                                   ("ijcnn1_1000", "SIGM C", None, 0.0),
                                   ("ijcnn1_1000", "SIGM D", 0.25, 0.5)):
        h, e = sigm_test_path(row, eta, theta, epochs, smoke)
        marks = ", ".join(f"epoch {k}: {h[k - 1]:.3f} / {100 * e[k - 1]:.2f}%"
                          for k in (1, 5, 8, 10, 20, 28, 40, 76, 100) if k <= epochs)
        print(f"{row} {label} mean test hinge / error along the path: {marks}")
    for row in ("breast_cancer", "adult_1000", "ijcnn1_1000"):
        res: dict[str, list[float]] = {}
        for sigma, data, seed, (X, y, Xv, yv) in row_trials(row, smoke):
            yt, Kt = data.y_test, make_kernel("gaussian", sigma)(data.X_test, X)
            for sched in ("constant", "decaying"):
                for passes in (1, most_passes):
                    est = OnePassSGM(sigma=sigma, schedule=sched, passes=passes,
                                     random_state=seed).fit(X, y, Xv, yv)
                    test = hinge_losses(yt, Kt @ est.coef_path_)
                    key = f"SGM {sched}, {passes} pass(es)"
                    res.setdefault(key + ": selected guess", []).append(
                        test[int(np.argmin(est.path_["val_rmse"]))])
                    res.setdefault(key + ": best guess on the test set", []).append(test.min())
            f = FeatureSGM(sigma=sigma, n_components=features, random_state=seed).fit(
                X, y, Xv, yv).decision_function(data.X_test)
            res.setdefault(f"sgm_rf (D = {features}, constant): test hinge", []).append(
                float(hinge_losses(yt, f[:, None])[0]))
            res.setdefault(f"sgm_rf (D = {features}, constant): test error %", []).append(
                100 * float(error_rates(yt, f[:, None])[0]))
            errs = [100 * float(error_rates(yt, LibSVM(sigma=sigma, Cs=[C]).fit(X, y)
                                            .decision_function(data.X_test)[:, None])[0])
                    for C in DEFAULT_CS]
            for C, err in zip(DEFAULT_CS, errs, strict=True):
                res.setdefault(f"LIBSVM C = {C:.3g} fixed: test error %", []).append(err)
        for key, values in res.items():
            print(f"{row} {key}: {np.mean(values):.3f} ± {np.std(values):.3f}")


if __name__ == "__main__":
    main()
