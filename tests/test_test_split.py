"""``protocol.test_split``: the dataset's own training and test rows (``fixed``, the default,
hash unchanged) or a fresh split of all rows per trial (``per_trial``): the same sizes, the
same rows for every algorithm of a trial, other rows in another trial, and the runner tests
each trial on its own test rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kernreg.config import load_experiment, make_estimator
from kernreg.experiment import prepare_data, run_experiment, trial_data, trial_split
from kernreg.solvers import rmse

CONFIG = """
name: split_run
dataset: {name: breast_cancer}
kernel: {sigma: 0.9}
algorithms:
  - {name: krls, lambdas: [1.0e-6, 1.0e-3, 1.0e-1]}
  - {name: nkrls, m: 50, lambdas: [1.0e-6, 1.0e-3]}
protocol: {trials: 2, seed: 4, test_split: per_trial}
budget: {blas_threads: 1}
"""


def _rows(X: np.ndarray) -> set[bytes]:
    return {row.tobytes() for row in X}


def test_per_trial_splits_redraw_all_rows_into_the_same_sizes(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(CONFIG)
    exp = load_experiment(config)
    data = prepare_data(exp)
    first, again, second = (trial_data(exp, data, t) for t in (0, 0, 1))
    assert len(first.y_train) == 400 and len(first.y_test) == 169
    np.testing.assert_array_equal(first.X_test, again.X_test)  # one trial, one split
    every = _rows(np.concatenate([data.X_train, data.X_test]))
    assert _rows(first.X_train) | _rows(first.X_test) == every
    assert not _rows(first.X_train) & _rows(first.X_test)
    assert _rows(first.X_test) != _rows(second.X_test)
    assert _rows(first.X_test) != _rows(data.X_test)  # not the file's last 169 rows
    # fixed is the default and leaves the hash as it was
    fixed = tmp_path / "fixed.yaml"
    fixed.write_text(CONFIG.replace("test_split: per_trial", "test_split: fixed"))
    plain = tmp_path / "plain.yaml"
    plain.write_text(CONFIG.replace(", test_split: per_trial", ""))
    assert load_experiment(fixed).config_hash() == load_experiment(plain).config_hash()
    assert load_experiment(fixed).config_hash() != exp.config_hash()
    assert trial_data(load_experiment(plain), data, 1) is data


def test_each_trial_is_tested_on_its_own_rows(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(CONFIG)
    exp = load_experiment(config)
    trials = run_experiment(exp, tmp_path / "out", progress=False)
    data = prepare_data(exp)
    for row in trials[trials["label"] == "krls"].itertuples():
        rows = trial_data(exp, data, int(row.trial))
        # the trial's model, selected on its own fit and validation rows, on its own test rows
        seed, (X_fit, y_fit, X_val, y_val) = trial_split(exp, data, int(row.trial))
        model = make_estimator(exp.algorithms[0], exp, random_state=seed)
        model.fit(X_fit, y_fit, X_val, y_val)
        assert row.n_test == 169 and model.best_lambda_ == row.selected
        assert np.isclose(rmse(rows.y_test, model.predict(rows.X_test)), row.test_rmse,
                          rtol=1e-8)
