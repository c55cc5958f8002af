"""Losses, tasks and measures on hand-computed cases: values and (sub)gradients, target
coding and decoding round trips, the measures of known predictions, the registries."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg.losses import (
    Loss,
    Measure,
    get_loss,
    get_measure,
    get_task,
    loss_names,
    measure_names,
    register_loss,
    task_names,
    unregister_loss,
)
from kernreg.losses.task import default_task
from kernreg.solvers import misclassification_rate, rmse


def test_registries_hold_the_builtin_parts() -> None:
    assert {"square", "hinge"} <= set(loss_names())
    assert {"regression", "binary", "multiclass"} <= set(task_names())
    assert {"rmse", "mse", "error", "hinge", "accuracy", "per_class_accuracy"} <= \
        set(measure_names())
    with pytest.raises(ValueError, match=r"unknown loss 'absolute'; registered: .*hinge"):
        get_loss("absolute")
    with pytest.raises(ValueError, match="unknown task 'ranking'"):
        get_task("ranking")
    with pytest.raises(ValueError, match="registered twice"):
        register_loss(get_loss("square"))


def test_square_loss_by_hand() -> None:
    square = get_loss("square")
    y, f = np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.0, 1.0])
    assert square.value(y, f) == pytest.approx((0.25 + 0.0 + 4.0) / 3)
    np.testing.assert_array_equal(square.gradient(y, f), [1.0, 0.0, -4.0])


def test_hinge_loss_and_its_subgradient_at_the_kink() -> None:
    hinge = get_loss("hinge")
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    f = np.array([2.0, 1.0, 0.5, -3.0, -1.0])  # margins y f: 2, 1 (kink), -0.5, 3, -1
    assert hinge.value(y, f) == pytest.approx((0 + 0 + 1.5 + 0 + 2.0) / 5)
    # -y inside the margin, 0 outside it and 0 exactly on it (the documented choice)
    np.testing.assert_array_equal(hinge.gradient(y, f), [0.0, 0.0, 1.0, 0.0, -1.0])
    np.testing.assert_array_equal(hinge.gradient([-1.0], [-1.0]), [0.0])


def test_hinge_subgradient_is_a_subgradient() -> None:
    """V(y, g) >= V(y, f) + V'(y, f)(g − f) for every g: the defining inequality."""
    hinge = get_loss("hinge")
    rng = np.random.default_rng(0)
    y = rng.choice([-1.0, 1.0], 200)
    f = np.concatenate([rng.normal(size=100), y[100:]])  # half of them exactly on the kink
    g = rng.normal(scale=3, size=(50, 1)) + np.zeros(200)
    lhs = hinge.pointwise(y, g)
    rhs = hinge.pointwise(y, f) + hinge.gradient(y, f) * (g - f)
    assert np.all(lhs >= rhs - 1e-12)


def test_two_dimensional_outputs_sum_over_columns() -> None:
    hinge = get_loss("hinge")
    Y = np.array([[1.0, -1.0], [-1.0, 1.0]])
    F = np.array([[0.0, 0.0], [-2.0, 0.5]])
    assert hinge.value(Y, F) == pytest.approx((1 + 1 + 0 + 0.5) / 2)
    with pytest.raises(ValueError, match="rows"):
        hinge.value([1.0, 1.0], [0.0])


def test_binary_coding_round_trip_and_midpoint() -> None:
    task = get_task("binary")
    labels = np.array([1.0, -1.0, -1.0, 1.0])
    for codes in ((-1.0, 1.0), (0.0, 1.0)):
        coded = task.encode(labels, codes)
        assert set(coded) == set(codes)
        np.testing.assert_array_equal(task.decode(coded, codes), coded)
    np.testing.assert_array_equal(task.decode([0.0, -1e-12, 0.5, 0.49], (0.0, 1.0)),
                                  [0.0, 0.0, 1.0, 0.0])  # the midpoint counts as positive
    np.testing.assert_array_equal(task.decode([0.0, -1e-12]), [1.0, -1.0])
    with pytest.raises(ValueError, match="must be ±1"):
        task.encode([0.0, 1.0])
    with pytest.raises(ValueError, match="negative < positive"):
        task.decode([0.0], (1.0, 0.0))


def test_multiclass_one_vs_all_round_trip() -> None:
    task = get_task("multiclass")
    classes = np.array([7, 1, 3])
    y = np.array([3, 1, 7, 3, 1])
    Y = task.encode(y, classes)
    np.testing.assert_array_equal(Y[0], [-1.0, 1.0, -1.0])  # columns: sorted classes 1, 3, 7
    assert Y.shape == (5, 3) and np.all(Y.sum(axis=1) == -1.0)
    np.testing.assert_array_equal(task.decode(Y, classes), y)
    np.testing.assert_array_equal(task.decode([[0.2, 0.2, 0.1]], classes), [1])  # first on ties
    with pytest.raises(ValueError, match="not among the classes"):
        task.encode([2], classes)
    with pytest.raises(ValueError, match=r"must be \(n, 3\)"):
        task.decode([[0.1, 0.2]], classes)


def test_regression_measures_of_known_predictions() -> None:
    got = get_task("regression").evaluate([1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 3.0, 2.0])
    assert got == {"rmse": pytest.approx(np.sqrt(5 / 4)), "mse": pytest.approx(5 / 4)}


def test_binary_measures_of_known_predictions() -> None:
    task = get_task("binary")
    y = np.array([1.0, -1.0, 1.0, -1.0])
    f = np.array([0.5, -2.0, -0.5, 0.9])
    got = task.evaluate(y, f)
    assert got["error"] == 0.5  # the last two are on the wrong side
    assert got["hinge"] == pytest.approx((0.5 + 0.0 + 1.5 + 1.9) / 4)
    assert got["rmse"] == pytest.approx(np.sqrt((0.25 + 1 + 2.25 + 3.61) / 4))
    # {0, 1} codes: the same classifier written on the 0/1 scale has the same error and hinge
    zero_one = task.evaluate((y + 1) / 2, (f + 1) / 2, (0.0, 1.0))
    assert zero_one["error"] == got["error"]
    assert zero_one["hinge"] == pytest.approx(got["hinge"])
    assert zero_one["rmse"] == pytest.approx(got["rmse"] / 2)


def test_measures_equal_the_solvers_own_to_the_last_digit() -> None:
    """Records keep their digits: test_rmse and test_error as kernreg computed them before."""
    rng = np.random.default_rng(1)
    y = rng.choice([-1.0, 1.0], 1001)
    f = y + rng.normal(size=1001)
    got = get_task("binary").evaluate(y, f)
    assert got["rmse"] == rmse(y, f)
    assert got["error"] == misclassification_rate(y, f)
    assert get_task("binary").evaluate((y + 1) / 2, f, (0.0, 1.0))["error"] == \
        misclassification_rate((y + 1) / 2, f, (0.0, 1.0))


def test_multiclass_accuracy_total_and_per_class() -> None:
    task = get_task("multiclass")
    classes = np.array([0, 1, 2])
    y = np.array([0, 0, 0, 1, 2, 2])
    predicted = np.array([0, 0, 1, 1, 2, 0])
    F = task.encode(predicted, classes) + 0.1  # outputs whose argmax is `predicted`
    got = task.evaluate(y, F, classes)
    assert got == {"accuracy": pytest.approx(4 / 6), "accuracy_class_0": pytest.approx(2 / 3),
                   "accuracy_class_1": 1.0, "accuracy_class_2": 0.5}
    absent = task.evaluate(np.array([0, 0]), F[:2], classes)
    assert np.isnan(absent["accuracy_class_1"])  # no point of class 1: no accuracy


def test_measure_directions_and_paper_units() -> None:
    error = Measure("error_percent_toy", "error", "toy", lambda *a: 0.0, paper_scale=100.0)
    assert error.to_paper(0.148) == pytest.approx(14.8)
    assert error.relative_gap(0.15, 15.0) == pytest.approx(0.0)
    assert get_measure("rmse").better(0.4, 0.5) and not get_measure("rmse").better(0.5, 0.4)
    assert get_measure("accuracy").better(0.9, 0.8)


def test_default_tasks_follow_the_dataset_kind() -> None:
    assert default_task("regression").name == "regression"
    assert default_task("classification").name == "binary"
    with pytest.raises(ValueError, match="no registered task"):
        default_task("ranking")


class AbsoluteLoss(Loss):
    """|y − f| with the subgradient 0 at y = f."""

    name = "absolute_toy"

    def pointwise(self, y: np.ndarray, f: np.ndarray) -> np.ndarray:
        return np.abs(y - f)

    def derivative(self, y: np.ndarray, f: np.ndarray) -> np.ndarray:
        return np.sign(f - y)


def test_a_loss_registered_at_run_time() -> None:
    register_loss(AbsoluteLoss())
    try:
        loss = get_loss("absolute_toy")
        assert loss.value([0.0, 1.0], [2.0, 1.0]) == 1.0
        np.testing.assert_array_equal(loss.gradient([0.0, 1.0, 2.0], [2.0, 1.0, 0.0]),
                                      [1.0, 0.0, -1.0])
        assert "absolute_toy" in loss_names()
    finally:
        unregister_loss("absolute_toy")
    assert "absolute_toy" not in loss_names()
