"""When each point of a validated path was reached (``path_["seconds"]``,
``TrialRecord.path_seconds``) and the figure of error against time that they allow."""

from __future__ import annotations

import shutil
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from kernreg.config import load_experiment
from kernreg.experiment import run_experiment
from kernreg.experiment.trial import path_seconds
from kernreg.results.figures import captioned_figures
from kernreg.results.numbers import format_number
from kernreg.results.record import TrialRecord
from kernreg.results.store import RunData, RunStore, load_run, tidy_row
from kernreg.solvers.algorithms.incremental import IncrementalNystromKRLS
from kernreg.solvers.algorithms.krls import KRLS
from kernreg.solvers.algorithms.nkrls import NystromKRLS
from kernreg.solvers.algorithms.nytro import Nytro
from kernreg.solvers.algorithms.pcg import NystromPCG
from kernreg.solvers.algorithms.random_features import RandomFeaturesKRLS
from kernreg.solvers.algorithms.sgm import OnePassSGM
from kernreg.solvers.algorithms.sigm import MultiPassSGM
from kernreg.solvers.blocks.iterative import run_validated
from kernreg.solvers.blocks.path_clock import level_seconds, scored_seconds, timing_fit
from kernreg.solvers.blocks.sigma_search import SigmaSearch
from kernreg.solvers.blocks.stopping import get_stopping_rule

OLD_RUN = Path(__file__).resolve().parent / "reference" / "old_format" / "run"
LAMBDAS = np.logspace(-6, 0, 5)


@pytest.fixture(autouse=True)
def _close_figures() -> object:
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    X, X_val = rng.normal(size=(200, 3)), rng.normal(size=(60, 3))
    return X, np.sin(X[:, 0]), X_val, np.sin(X_val[:, 0])


def _fitted(est: object, data: tuple[np.ndarray, ...], classes: bool = False) -> dict:
    X, y, X_val, y_val = data
    if classes:
        y, y_val = np.where(y > 0, 1.0, -1.0), np.where(y_val > 0, 1.0, -1.0)
    est.fit(X, y, X_val, y_val)
    path = est.path_
    assert path["seconds"].shape == np.shape(path["val_rmse"])
    assert np.all(np.isfinite(path["seconds"])) and np.all(path["seconds"] > 0)
    return path


# ------------------------------------------------------------------- what the solvers record
@pytest.mark.parametrize("make", [lambda: Nytro(m=20, max_iter=35),
                                  lambda: MultiPassSGM(max_iter=4)])
def test_an_iteration_path_records_non_decreasing_times(make, data) -> None:
    path = _fitted(make(), data, classes=isinstance(make(), MultiPassSGM))
    assert np.all(np.diff(path["seconds"]) >= 0)


def test_iterates_of_one_chunk_share_the_moment_their_chunk_was_scored() -> None:
    coef = np.zeros(2)

    def step() -> np.ndarray:
        coef[:] += 1.0
        return coef

    rule = get_stopping_rule("none", 10, 0.0, "best")
    res = run_validated(step, lambda c: np.ones(c.shape[1]), rule, max_iter=25, chunk=10)
    assert res.seconds.shape == (25,)
    # chunks of 10, 10 and 5 iterations: three moments, non-decreasing
    assert [np.unique(part).size for part in np.split(res.seconds, [10, 20])] == [1, 1, 1]
    assert np.all(np.diff(res.seconds) >= 0)


@pytest.mark.parametrize("make", [lambda: NystromKRLS(m=20, lambdas=LAMBDAS),
                                  lambda: KRLS(lambdas=LAMBDAS),
                                  lambda: OnePassSGM(etas=[0.1, 0.5])])
def test_points_solved_together_share_one_time(make, data) -> None:
    path = _fitted(make(), data, classes=isinstance(make(), OnePassSGM))
    assert np.unique(path["seconds"]).size == 1


def test_a_cholesky_per_lambda_path_accumulates(data) -> None:
    path = _fitted(NystromKRLS(m=20, lambdas=LAMBDAS, path_method="cholesky"), data)
    assert np.all(np.diff(path["seconds"]) > 0)


def test_a_pcg_walk_is_timed_in_its_own_order_largest_lambda_first(data) -> None:
    path = _fitted(NystromPCG(m=20, lambdas=LAMBDAS, max_iter=5), data)
    assert np.all(np.diff(path["seconds"]) < 0)  # reported in increasing λ


@pytest.mark.parametrize("make", [
    lambda: IncrementalNystromKRLS(m=30, lambdas=LAMBDAS, m_values=[10, 20, 30]),
    lambda: IncrementalNystromKRLS(m=30, lambdas=LAMBDAS, m_values=[10, 20, 30],
                                   update="rank_one"),
    lambda: RandomFeaturesKRLS(n_components=30, lambdas=LAMBDAS, d_values=[10, 20, 30])])
def test_a_path_over_levels_is_timed_level_by_level(make, data) -> None:
    seconds = _fitted(make(), data)["seconds"]
    assert seconds.shape == (LAMBDAS.size, 3)
    assert np.all(seconds == seconds[0])  # every λ of a level together
    assert np.all(np.diff(seconds[0]) > 0)


def test_scored_and_level_seconds_end_when_every_error_was_known() -> None:
    np.testing.assert_allclose(scored_seconds([1.0, 2.0, 4.0], 5.0), [2.0, 3.0, 5.0])
    np.testing.assert_allclose(level_seconds(1.0, 3.0, np.array([1.0, 3.0]), 4.0),
                               [2.5, 4.0])


def test_a_fit_inside_a_timed_fit_counts_from_its_own_start(data) -> None:
    with timing_fit() as outer:
        while outer() < 0.05:
            pass
        path = _fitted(Nytro(m=20, max_iter=5), data)
    assert path["seconds"][-1] < outer()


def test_a_trial_records_the_path_times_but_not_those_of_a_sigma_search(data) -> None:
    X, y, X_val, y_val = data
    est = NystromKRLS(m=20, lambdas=LAMBDAS).fit(X, y, X_val, y_val)
    np.testing.assert_array_equal(path_seconds(est, (LAMBDAS.size,)), est.path_["seconds"])
    assert path_seconds(est, (LAMBDAS.size + 1,)).size == 0  # not the validation path's shape
    search = SigmaSearch(NystromKRLS(m=20, lambdas=LAMBDAS), sigmas=[0.5, 1.0])
    search.fit(X, y, X_val, y_val)
    assert path_seconds(search, (LAMBDAS.size,)).size == 0  # σ*'s own fit is not the clock


# ------------------------------------------------------------------- records and figures
def _record(trial: int, label: str, algorithm: str, param: str, x: np.ndarray,
            val: np.ndarray, selected: float, seconds: np.ndarray | None) -> TrialRecord:
    return TrialRecord(algorithm=algorithm, label=label, trial=trial, seed=trial,
                       param_name=param, selected=float(selected),
                       path_values=np.asarray(x, dtype=float),
                       val_rmse=np.asarray(val, dtype=float), model_selection_time=1.0,
                       predict_time=0.1, test_rmse=0.5 + 0.01 * trial, test_error=np.nan,
                       peak_rss=2**20, n_fit=80, n_val=20, n_test=50,
                       path_seconds=np.zeros(0) if seconds is None else np.asarray(seconds))


def _synthetic_run(records: list[TrialRecord]) -> RunData:
    table = pd.DataFrame([tidy_row(r, {"experiment": "synthetic", "dataset": "toy", "m": 20})
                          for r in records])
    return RunData("synthetic", "toy", records, table, Path("synthetic"))


def test_path_seconds_survive_the_trial_file(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.trials_dir.mkdir(parents=True)
    t = np.arange(1.0, 6.0)
    record = _record(0, "nytro", "nytro", "iterations", t, 1 / t, 5, 0.01 * t)
    store.save_trial(record)
    back = store.read_trial(store.trial_path("nytro", 0))
    np.testing.assert_array_equal(back.path_seconds, record.path_seconds)
    untimed = _record(1, "nytro", "nytro", "iterations", t, 1 / t, 5, None)
    store.save_trial(untimed)
    assert store.read_trial(store.trial_path("nytro", 1)).path_seconds.shape == (0,)


def test_old_trial_files_load_without_times_and_skip_the_figure(tmp_path: Path) -> None:
    run = tmp_path / "ci_cpusmall"
    shutil.copytree(OLD_RUN, run)
    RunStore(run).finalize()
    data = load_run(run)
    assert all(r.path_seconds.size == 0 for r in data.records)
    figures, skipped = captioned_figures(data)
    assert "error_vs_time" not in figures
    assert "no trial recorded when its path points were reached" in skipped["error_vs_time"]


def _curves(ax) -> dict[str, list]:
    """The trials' curves of an axes by label (each label's first curve carries its legend
    entry, the others its colour)."""
    lines = ax.get_lines()
    first = {ln.get_label().split(" ")[0]: ln for ln in lines if not ln.get_label().startswith("_")}
    return {label: [ln for ln in lines if ln.get_color() == head.get_color()]
            for label, head in first.items()}


def test_the_time_figure_draws_each_trial_at_its_recorded_times() -> None:
    t = np.arange(1.0, 5.0)
    records = [_record(k, "nytro", "nytro", "iterations", t, 0.6 + 0.1 / t + 0.01 * k, 3,
                       (1 + k) * 0.01 * t) for k in range(2)]
    records += [_record(k, "nkrls", "nkrls", "lambda", LAMBDAS[:3], [0.7, 0.65, 0.9],
                        LAMBDAS[1], np.full(3, 0.2 + k * 0.1)) for k in range(2)]
    figures, _ = captioned_figures(_synthetic_run(records))
    drawn = figures["error_vs_time"]
    ax = drawn.figure.axes[0]
    curves = _curves(ax)
    assert set(curves) == {"nytro", "nkrls"} and ax.get_xscale() == "log"  # 0.01 to 0.3 s
    for k, line in enumerate(curves["nytro"]):  # each trial its own times and errors
        np.testing.assert_allclose(line.get_xdata(), (1 + k) * 0.01 * t)
        np.testing.assert_allclose(line.get_ydata(), 0.6 + 0.1 / t + 0.01 * k)
    np.testing.assert_allclose(curves["nkrls"][0].get_xdata(), [0.2] * 3)  # every λ at once
    assert f"test RMSE {format_number(0.505, 0.005)}" in curves["nytro"][0].get_label()
    # each trial's selected point, on its own curve
    assert len(ax.collections) == 4
    picked = np.array([c.get_offsets()[0] for c in ax.collections])
    assert np.isclose(picked, [0.03, 0.6 + 0.1 / 3]).all(axis=1).any()  # trial 0's t* = 3
    assert drawn.caption.startswith("Validation RMSE against the time at which it was known")
    assert "one curve per trial" in drawn.caption
    assert len(drawn.figure.axes) == 1  # no test path recorded


def test_a_recorded_test_path_is_drawn_against_the_same_times() -> None:
    test = {"rmse": np.array([0.8, 0.6, 0.95])}
    records = [_record(k, "nkrls", "nkrls", "lambda", LAMBDAS[:3], [0.7, 0.65, 0.9],
                       LAMBDAS[1], np.array([0.1, 0.2, 0.3])) for k in range(2)]
    for r in records:
        r.test_path = test
    t = np.arange(1.0, 4.0)  # NYTRO records no test path: its test curve is left out
    records.append(_record(0, "nytro", "nytro", "iterations", t, 0.7 / t, 3, 0.1 * t))
    drawn = captioned_figures(_synthetic_run(records))[0]["error_vs_time"]
    val_ax, test_ax = drawn.figure.axes
    for curve in test_ax.get_lines():  # the two NKRLS trials
        np.testing.assert_allclose(curve.get_xdata(), [0.1, 0.2, 0.3])
        np.testing.assert_allclose(curve.get_ydata(), test["rmse"])
    assert len(test_ax.get_lines()) == 2 and len(val_ax.get_lines()) == 3
    assert "test RMSE" in drawn.caption
    # 0.1 to 0.3 s: less than a decade, a linear axis (a narrow log axis crowds its labels)
    assert val_ax.get_xscale() == "linear" and "linear scale" in drawn.caption


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> RunData:
    root = tmp_path_factory.mktemp("times")
    config = root / "times.yaml"
    config.write_text("""
name: times
dataset: {name: breast_cancer}
algorithms:
  - {name: nkrls, m: 20, lambdas: {logspace: [1e-8, 1, 9]}}
  - {name: nytro, m: 20, max_iter: 30}
protocol: {trials: 2}
budget: {blas_threads: 1}
""")
    run_experiment(load_experiment(config), root / "results", progress=False)
    return load_run(root / "results" / "times")


def test_a_real_run_records_times_and_draws_them(small_run: RunData) -> None:
    for r in small_run.records:
        assert r.path_seconds.shape == r.val_rmse.shape and np.all(r.path_seconds > 0)
        # on the model-selection clock: a path ends before its fit does
        assert r.path_seconds.max() <= r.model_selection_time + r.info.get(
            "test_path_seconds", 0.0)
    figures, _ = captioned_figures(small_run)
    fig = figures["error_vs_time"].figure
    assert len(fig.axes) == 1  # no test path recorded
    curves = _curves(fig.axes[0])
    assert set(curves) == {"nkrls", "nytro"}
    nytro = [r for r in small_run.records if r.label == "nytro"]
    for record, line in zip(nytro, curves["nytro"], strict=True):
        np.testing.assert_allclose(line.get_xdata(), np.sort(record.path_seconds))
