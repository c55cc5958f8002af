"""Stopping rules on hand-made validation-error sequences."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg.solvers.blocks.stopping import (
    DEFAULT_STOPPING_RULE,
    STOPPING_RULES,
    StoppingRule,
    best_iteration,
    get_stopping_rule,
    select_iteration,
    window_linear_fitting,
)


def test_registry_and_default():
    assert set(STOPPING_RULES) == {
        "window_linear_fitting",
        "window_averaged",
        "window_median",
        "window_simple",
        "window_slope",
        "none",
    }
    rule = get_stopping_rule()
    assert rule == StoppingRule(DEFAULT_STOPPING_RULE, 10, 0.0)
    assert rule.name == "window_linear_fitting" and rule.select == "best"
    assert get_stopping_rule(rule) is rule
    # the rule behind NYTRO Table 2 reports the firing iteration unless told otherwise
    assert StoppingRule("window_slope").select == "stop"
    assert StoppingRule("window_slope", select="best").select == "best"


# ---------------------------------------------------------------- window_simple
def test_simple_stops_exactly():
    # windows of 3: [5,4,3] 0.6, [4,3,2] 0.5, [3,2,2.5] 0.83, [2,2.5,3] 1.5 >= 1 -> stop at t=6
    errors = [5, 4, 3, 2, 2.5, 3, 0.1, 0.1]
    t_star, t_stop, fired = select_iteration(errors, StoppingRule("window_simple", 3, 0.0))
    assert (t_star, t_stop, fired) == (4, 6, True)  # the later 0.1 is never seen


def test_simple_does_not_stop_on_decreasing():
    errors = np.linspace(10, 1, 50)
    assert select_iteration(errors, StoppingRule("window_simple", 3, 0.0)) == (50, 50, False)


def test_simple_threshold():
    # θ = 0.5: stop once last/first >= 0.5 within the window; [10,9,8] -> 0.8 at t=3
    assert select_iteration([10, 9, 8, 7], StoppingRule("window_simple", 3, 0.5)) == (3, 3, True)
    # θ = 0.1 needs ratio >= 0.9: [10,9.5,9.2] 0.92 fires at t=3; [10,8,7] 0.7 never fires
    assert select_iteration([10, 9.5, 9.2], StoppingRule("window_simple", 3, 0.1))[1:] == (3, True)
    assert select_iteration([10, 8, 7], StoppingRule("window_simple", 3, 0.1))[2] is False


def test_fires_only_with_full_window():
    rule = StoppingRule("window_simple", 5, 0.0)
    assert not rule.should_stop([1, 2, 3, 4])  # increasing, but only 4 < w errors
    assert rule.should_stop([1, 2, 3, 4, 5])


# ---------------------------------------------------------------- window_averaged / median
def test_averaged_stops_exactly():
    # w = 20 -> k = ceil(2.0) = 2 points at each end of the window
    rule = StoppingRule("window_averaged", 20, 0.0)
    errors = [*np.linspace(20, 2, 19).tolist(), 1.0, 1.5, 3.0, 29.0]  # 20, 19, ..., 2, then
    # t=20: first2 (20, 19) -> 19.5, last2 (2, 1) -> 1.5: no
    # t=21: first2 (19, 18), last2 (1, 1.5): no;  t=22: first2 (18, 17), last2 (1.5, 3): no
    # t=23: first2 (17, 16) -> 16.5, last2 (3, 29) -> 16 < 16.5: no
    assert select_iteration(errors, rule) == (20, 23, False)
    errors.append(40.0)  # t=24: first2 (16, 15) -> 15.5, last2 (29, 40) -> 34.5 >= 15.5
    assert select_iteration(errors, rule) == (20, 24, True)
    # the ratio test is ">= 1 − θ": equality fires (last2 (3, 30) -> 16.5 = 16.5 at t=23)
    assert select_iteration([*errors[:22], 30.0], rule) == (20, 23, True)


def test_median_ignores_an_outlier_that_averaged_sees():
    # w = 30 -> k = 3: first three [10,10,10], last three [1,1,100]
    window = [10.0, 10.0, 10.0, *([5.0] * 24), 1.0, 1.0, 100.0]
    assert StoppingRule("window_averaged", 30, 0.0).should_stop(window)  # mean 34 >= 10
    assert not StoppingRule("window_median", 30, 0.0).should_stop(window)  # median 1 < 10
    window[-2] = 12.0  # last three [1, 12, 100]: median 12 >= 10
    assert StoppingRule("window_median", 30, 0.0).should_stop(window)


def test_averaged_and_median_decreasing_never_stop():
    errors = 1.0 / np.arange(1, 200)
    for name in ("window_averaged", "window_median"):
        assert select_iteration(errors, StoppingRule(name, 10, 0.0)) == (199, 199, False)


# ---------------------------------------------------------------- window_linear_fitting
def test_linear_fitting_stops_exactly():
    rule = StoppingRule("window_linear_fitting", 5, 0.0)
    # t=5 [6,5,4,3,2] slope -1; t=6 [5,4,3,2,3] slope -0.6; t=7 [4,3,2,3,4] slope 0 >= 0
    errors = [6, 5, 4, 3, 2, 3, 4, 5, 6]
    assert select_iteration(errors, rule) == (5, 7, True)


def test_linear_fitting_threshold():
    # θ = 0.1: t=7 ratio 0 < 0.1; t=8 window [3,2,3,4,5]: b1 = 0.6, b0 = 2.2,
    # (w-1)·b1/b0 = 4·0.6/2.2 = 1.09 >= 0.1 -> stop at 8
    rule = StoppingRule("window_linear_fitting", 5, 0.1)
    assert select_iteration([6, 5, 4, 3, 2, 3, 4, 5, 6], rule) == (5, 8, True)
    # a fitted relative rise of exactly 1.09 does not reach θ = 1.2
    high = StoppingRule("window_linear_fitting", 5, 1.2)
    assert select_iteration([6, 5, 4, 3, 2, 3, 4, 5], high) == (5, 8, False)


def test_linear_fitting_does_not_stop_on_decreasing():
    errors = 1.0 + 1.0 / np.arange(1, 501)
    assert select_iteration(errors, StoppingRule("window_linear_fitting", 10, 0.0)) == (
        500,
        500,
        False,
    )


def test_linear_fitting_matches_polyfit():
    rng = np.random.default_rng(0)
    for _ in range(200):
        w = int(rng.integers(2, 15))
        window = rng.uniform(0.5, 2.0, size=w)
        theta = float(rng.uniform(-0.5, 0.5))
        b1, b0 = np.polyfit(np.arange(w), window, 1)
        ratio = (w - 1) * b1 / b0
        if abs(ratio - theta) > 1e-9:  # skip numerically tied cases
            assert window_linear_fitting(window, theta) == (ratio >= theta)


# ---------------------------------------------------------------- window_slope (absolute)
# w = 4: s = 1..4, centred s = (-1.5, -0.5, 0.5, 1.5), Σs² = 5, slope b1 = Σ s·e / 5.
# θ = 0.8 fires when b1 >= -0.8/4 = -0.2:
#   t=4 [10, 8, 6, 5]      Σ = -8.5  b1 = -1.70  no
#   t=5 [8, 6, 5, 4.6]     Σ = -5.6  b1 = -1.12  no
#   t=6 [6, 5, 4.6, 4.4]   Σ = -2.6  b1 = -0.52  no
#   t=7 [5, 4.6, 4.4, 4.3] Σ = -1.15 b1 = -0.23  no
#   t=8 [4.6, 4.4, 4.3, 4.35] Σ = -0.425 b1 = -0.085 >= -0.2: fire
SLOPE_ERRORS = [10, 8, 6, 5, 4.6, 4.4, 4.3, 4.35, 4.0, 3.0]


def test_slope_fires_at_the_hand_computed_iteration():
    stop = StoppingRule("window_slope", 4, 0.8)
    assert select_iteration(SLOPE_ERRORS, stop) == (8, 8, True)  # reports t itself
    best = StoppingRule("window_slope", 4, 0.8, select="best")
    assert select_iteration(SLOPE_ERRORS, best) == (7, 8, True)  # arg-min up to the stop
    # a looser threshold fires one iteration earlier (b1 = -0.23 >= -1.0/4)
    assert select_iteration(SLOPE_ERRORS, StoppingRule("window_slope", 4, 1.0))[:2] == (7, 7)


def test_slope_threshold_is_inclusive():
    # an exactly linear window with slope -0.25 (all values exact in binary)
    errors = [3.0, 2.75, 2.5, 2.25]
    assert StoppingRule("window_slope", 4, 1.0).should_stop(errors)  # -0.25 >= -1/4
    assert not StoppingRule("window_slope", 4, 0.96).should_stop(errors)  # -0.25 < -0.24


def test_slope_threshold_is_absolute_and_linear_fitting_relative():
    scaled = [10 * e for e in SLOPE_ERRORS]
    # the same curve ten times larger falls ten times faster: the absolute rule does not fire
    # within it, while the relative rule's decisions do not depend on the scale
    assert select_iteration(scaled, StoppingRule("window_slope", 4, 0.8)) == (10, 10, False)
    relative = StoppingRule("window_linear_fitting", 4, -0.05)
    assert select_iteration(scaled, relative) == select_iteration(SLOPE_ERRORS, relative)


def test_slope_never_fired_reports_the_last_iteration():
    errors = np.linspace(10, 1, 30)  # slope -0.31 per iteration throughout
    assert select_iteration(errors, StoppingRule("window_slope", 10, 0.5)) == (30, 30, False)


def _authors_window_linear_fitting(err, win_size, thres):
    """Port of windowLinearFitting.m as applied to NYTRO Table 2 (LCSL/NYTRO @ 5d5e953)."""
    t, t_star = win_size, len(err)
    while t < len(err):
        curr = np.asarray(err[t - win_size:t], dtype=float)
        X = np.column_stack([np.ones(win_size), np.arange(1, win_size + 1)])
        b = np.linalg.lstsq(X, curr, rcond=None)[0]
        if b[1] >= -(thres / win_size):
            t_star = t
            break
        t += 1
    return t_star


def test_slope_matches_the_authors_script_on_noisy_curves():
    rng = np.random.default_rng(1)
    for _ in range(100):
        t = np.arange(1, 501)
        errors = 0.6 + 0.4 * np.exp(-t / rng.uniform(5, 200)) + rng.normal(0, 1e-3, t.size)
        theta = float(rng.choice([0.0069, 0.013, 0.000835, 0.001]))
        t_star, _, _ = select_iteration(errors, StoppingRule("window_slope", 10, theta))
        assert t_star == _authors_window_linear_fitting(errors, 10, theta)


# ---------------------------------------------------------------- none, t*, errors
def test_none_never_stops():
    rule = StoppingRule("none")
    errors = [1.0, 2.0, 3.0, 4.0] * 30
    assert not any(rule.should_stop(errors[:t]) for t in range(1, len(errors) + 1))
    assert select_iteration(errors, rule) == (1, 120, False)


def test_best_iteration_first_minimum_and_non_finite():
    assert best_iteration([3.0, 1.0, 2.0, 1.0]) == 2
    assert best_iteration([np.nan, 2.0, np.inf, 1.5]) == 4
    assert best_iteration([np.nan, np.nan]) == 1


@pytest.mark.parametrize(
    "kwargs,param",
    [
        ({"name": "window_foo"}, "stopping_rule"),
        ({"name": "window_simple", "window": 0}, "window"),
        ({"name": "window_linear_fitting", "window": 1}, "window"),
        ({"name": "window_slope", "window": 1}, "window"),
        ({"name": "window_slope", "select": "last"}, "select"),
        ({"name": "window_simple", "window": 2.5}, "window"),
        ({"name": "window_simple", "threshold": float("nan")}, "threshold"),
        ({"name": "window_simple", "threshold": "0.1"}, "threshold"),
    ],
)
def test_invalid_rules(kwargs, param):
    with pytest.raises(ValueError, match=param):
        StoppingRule(**kwargs)
