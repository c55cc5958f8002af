"""An iteration path cut by ``max_iter`` is said so: a ``ConvergenceWarning`` from the
estimator, ``stopped_at_cap`` in the runner's results, a ``‡`` and a note in Table 2 and the
report — never a t* that reads like a stop."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from kernreg import KernelLandweber, Nytro
from kernreg.results.record import TrialRecord
from kernreg.results.store import stopped_at_cap
from kernreg.solvers.blocks.iterative import ended_at_cap


def _data(n: int = 300, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n)
    cut = int(0.8 * n)
    return X[:cut], y[:cut], X[cut:], y[cut:]


@pytest.mark.parametrize("make", [lambda: Nytro(m=50, max_iter=5, sigma=2.0),
                                  lambda: KernelLandweber(max_iter=5, sigma=2.0)],
                         ids=["nytro", "landweber"])
def test_a_path_cut_at_max_iter_warns_and_says_so(make) -> None:
    X, y, X_val, y_val = _data()
    with pytest.warns(ConvergenceWarning, match="selected its last iteration, max_iter=5"):
        est = make().fit(X, y, X_val, y_val)
    assert est.stopped_at_cap_ and est.best_iter_ == 5
    assert est.selection().info["stopped_at_cap"] is True


def test_a_path_the_rule_stopped_does_not_warn() -> None:
    X, y, X_val, y_val = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = Nytro(m=50, max_iter=5000, sigma=2.0, acceleration="nu").fit(X, y, X_val, y_val)
    assert not est.stopped_at_cap_ and est.best_iter_ < 5000


def test_max_iter_without_validation_is_the_regularization_asked_for() -> None:
    X, y, _, _ = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = Nytro(m=50, max_iter=5, sigma=2.0).fit(X, y)
    assert est.stopped_at_cap_ is False and est.n_iter_ == 5


@pytest.mark.parametrize("selected, n_iter, stopped, diverged, expected", [
    (5, 5, False, False, True),    # ran out of iterations at the selection
    (3, 5, False, False, False),   # the minimum lies inside the path
    (5, 5, True, False, False),    # the rule fired at the last iterate
    (5, 5, False, True, False),    # a divergence ended it
    (0, 0, False, False, False),   # no iteration
])
def test_the_cap_rule(selected, n_iter, stopped, diverged, expected) -> None:
    assert ended_at_cap(selected, n_iter, stopped, diverged) is expected


def test_a_trial_stored_before_the_flag_is_read_from_its_path() -> None:
    record = TrialRecord(algorithm="nytro", label="nytro", trial=0, seed=0,
                         param_name="iterations", selected=40.0,
                         path_values=np.arange(1, 41.0), val_rmse=np.linspace(1, 0.5, 40),
                         model_selection_time=1.0, predict_time=0.1, test_rmse=0.5,
                         test_error=float("nan"), peak_rss=0, n_fit=10, n_val=5, n_test=5,
                         blas={}, info={"stopped": False, "diverged": False})
    assert stopped_at_cap(record)
    record.info["stopped"] = True
    assert not stopped_at_cap(record)


def test_the_runner_records_and_marks_a_cut_path(tmp_path: Path, kernreg_cli) -> None:
    X, y, X_val, y_val = _data(400)
    frame = pd.DataFrame(np.vstack([X, X_val]), columns=["a", "b", "c"])
    frame.assign(y=np.concatenate([y, y_val])).to_csv(tmp_path / "sine.csv", index=False)
    config = tmp_path / "capped.yaml"
    config.write_text("name: capped\ndataset: {file: sine.csv}\nkernel: {sigma: 2.0}\n"
                      "algorithms:\n  - {name: nytro, m: 40, max_iter: 4}\n"
                      "  - {name: nkrls, m: 40}\nprotocol: {trials: 2}\n")
    code, out, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                  "--no-progress"])
    assert code == 0, err
    assert "ConvergenceWarning" not in err  # recorded and marked, not warned per trial
    results = pd.read_csv(tmp_path / "runs" / "capped" / "results.csv")
    assert results.set_index("label")["stopped_at_cap"].to_dict() == {"nytro": True,
                                                                      "nkrls": False}
    assert "4.0±0.0 ‡" in out
    assert "‡ sine.csv m=40, NYTRO: t* is max_iter in 2 of 2 trials" in out
