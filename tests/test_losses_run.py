"""The task decides what a trial records: runs of configs/ci_cpusmall.yaml (regression) and
configs/ci_classification.yaml (binary) store every measure of their task per trial, tables
show them, and a toy task and measure registered at run time go through config validation,
trials, the store and the tables with no kernreg file edited."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pandas as pd
import pytest

from kernreg.cli import main
from kernreg.config import load_experiment, make_estimator
from kernreg.errors import ConfigError
from kernreg.experiment import run_experiment
from kernreg.experiment.trial import prepare_data, trial_split
from kernreg.losses import (
    Measure,
    Task,
    register_measure,
    register_task,
    unregister_measure,
    unregister_task,
)
from kernreg.results.store import load_run
from kernreg.results.tables import Collected, render_table

pytestmark = pytest.mark.mirror

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "tests" / "reference" / "ci_cpusmall.csv"


def test_regression_records_rmse_and_mse_with_the_reference_numbers(
    mirror: Path, tmp_path: Path
) -> None:
    exp = load_experiment(REPO / "configs" / "ci_cpusmall.yaml")
    assert exp.task is None and "task" not in exp.as_dict()  # the dataset's default
    table = run_experiment(exp, tmp_path, progress=False).set_index(["label", "trial"])
    reference = pd.read_csv(REFERENCE).set_index(["label", "trial"])
    np.testing.assert_allclose(table.loc[reference.index, "test_rmse"], reference["test_rmse"],
                               rtol=1e-3)
    assert set(table["task"]) == {"regression"} and set(table["val_measure"]) == {"rmse"}
    np.testing.assert_allclose(table["test_mse"], table["test_rmse"] ** 2, rtol=1e-12)
    assert table["test_error"].isna().all()
    with h5py.File(tmp_path / "ci_cpusmall" / "trials" / "nytro__t000.h5") as f:
        assert f.attrs["task"] == "regression" and "mse" in f.attrs["measures"]


def test_binary_classification_records_error_and_hinge(
    mirror: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = REPO / "configs" / "ci_classification.yaml"
    exp = load_experiment(config)
    table = run_experiment(exp, tmp_path, progress=False)
    assert len(table) == 6 and set(table["task"]) == {"binary"}
    for column in ("test_rmse", "test_error", "test_hinge"):
        assert table[column].notna().all(), column
    # the hinge loss bounds the 0/1 loss point by point, so its mean bounds the error
    assert (table["test_hinge"] >= table["test_error"]).all()

    # recomputed by hand from a re-fit of one trial
    row = table[(table["label"] == "nkrls") & (table["trial"] == 1)].iloc[0]
    data = prepare_data(exp)
    seed, (X_fit, y_fit, X_val, y_val) = trial_split(exp, data, 1)
    algo = next(a for a in exp.algorithms if a.label == "nkrls")
    f = make_estimator(algo, exp, random_state=seed).fit(X_fit, y_fit, X_val, y_val) \
        .predict(data.X_test)
    y = data.y_test
    assert row["test_error"] == pytest.approx(np.mean(np.where(f >= 0, 1.0, -1.0) != y))
    assert row["test_hinge"] == pytest.approx(np.mean(np.maximum(0.0, 1.0 - y * f)))
    assert row["test_rmse"] == pytest.approx(np.sqrt(np.mean((f - y) ** 2)))

    summary = render_table("summary", Collected(table))
    assert "| test RMSE | test error | test hinge loss |" in summary
    main(["table", str(REPO / "configs" / "ci_classification.table.yaml"), "--results-dir",
          str(tmp_path)])
    text = capsys.readouterr().out
    assert "|  | error |" in text and "|  | hinge loss |" in text and "|  | RMSE |" in text


def test_regression_task_on_a_classification_dataset(mirror: Path, tmp_path: Path) -> None:
    config = tmp_path / "reg.yaml"
    text = (REPO / "configs" / "ci_classification.yaml").read_text()
    config.write_text(text.replace("task: binary", "task: regression"))
    exp = load_experiment(config)
    assert exp.task == "regression"
    assert exp.config_hash() != load_experiment(REPO / "configs" / "ci_classification.yaml") \
        .config_hash()
    with pytest.raises(ConfigError, match="task: 'multiclass' does not apply to "
                                          "breast_cancer, a classification dataset"):
        config.write_text(text.replace("task: binary", "task: multiclass"))
        load_experiment(config)


def _mae(task: Task, y: Any, f: Any, coding: Any) -> float:
    return float(np.mean(np.abs(np.asarray(f) - np.asarray(y))))


class ToyRegression(Task):
    """Regression judged by the mean absolute error."""

    name = "toy_mae"
    title = "toy regression"
    dataset_tasks = ("regression",)
    measures = ("rmse", "mae_toy")
    default_measure = "mae_toy"

    def decode(self, f: Any, coding: Any = None) -> np.ndarray:
        return np.asarray(f, dtype=np.float64)


@pytest.fixture
def toy_task() -> Iterator[None]:
    register_measure(Measure("mae_toy", "MAE", "mean absolute error", _mae))
    register_task(ToyRegression())
    yield
    unregister_task("toy_mae")
    unregister_measure("mae_toy")


def test_a_toy_task_registered_at_run_time(toy_task: None, mirror: Path,
                                           tmp_path: Path) -> None:
    config = tmp_path / "toy.yaml"
    config.write_text("task: toy_mae\ndataset: {name: cpusmall, n_train: 400, n_test: 200}\n"
                      "kernel: {sigma: 0.2}\nalgorithms:\n"
                      "  - {name: nkrls, m: 40, lambdas: {logspace: [1e-6, 1e-1, 4]}}\n"
                      "protocol: {trials: 2}\nbudget: {blas_threads: 1}\n")
    exp = load_experiment(config)
    assert exp.as_dict()["task"] == "toy_mae"
    table = run_experiment(exp, tmp_path / "out", progress=False)
    assert set(table["task"]) == {"toy_mae"} and table["test_mae_toy"].notna().all()
    assert (table["test_mae_toy"] <= table["test_rmse"]).all()  # mean |e| <= sqrt(mean e²)
    run = load_run(tmp_path / "out" / "toy")
    assert set(run.records[0].measures) == {"rmse", "mae_toy"}
    assert "| test RMSE | test MAE |" in render_table("summary", Collected(table))
    table2 = render_table("table2", Collected(table, measures=["mae_toy"]))
    assert "|  | MAE |" in table2 and "RMSE" not in table2
    # on a classification dataset the toy task does not apply
    config.write_text(config.read_text().replace("cpusmall, n_train: 400, n_test: 200",
                                                 "breast_cancer"))
    with pytest.raises(ConfigError, match="allowed values: binary, regression"):
        load_experiment(config)
