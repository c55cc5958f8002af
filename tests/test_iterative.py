"""The shared validation loop: chunked scoring gives exactly the unchunked path."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg.solvers.blocks.iterative import run_validated
from kernreg.solvers.blocks.stopping import get_stopping_rule

# Validation errors that fall, then rise from iteration 13 on: window_simple (w = 5) fires at 15.
ERRORS = np.concatenate([np.linspace(1.0, 0.5, 12), np.linspace(0.52, 0.8, 20)])


def _counter():
    """A 'solver' whose coefficient after t steps is [t, 0] (so iterates are identifiable)."""
    coef = np.zeros(2)

    def step() -> np.ndarray:
        coef[0] += 1
        return coef  # the same array every time, as the real solvers do

    return step


def _errors_of(coefs: np.ndarray) -> np.ndarray:
    return ERRORS[coefs[0].astype(int) - 1]


@pytest.mark.parametrize("chunk", [1, 3, 7, 10, 50])
def test_chunked_scoring_gives_the_unchunked_path(chunk: int) -> None:
    rule = get_stopping_rule("window_simple", window=5, threshold=0.0)
    res = run_validated(_counter(), _errors_of, rule, max_iter=len(ERRORS), chunk=chunk)
    assert res.stopped and res.n_iter == 15  # mid-chunk for chunk = 10 and 50
    np.testing.assert_array_equal(res.val_rmse, ERRORS[:15])
    assert res.best_iter == 12 and res.best_coef[0] == 12


@pytest.mark.parametrize("chunk", [1, 4, 10])
def test_chunked_scoring_runs_to_max_iter_without_a_rule(chunk: int) -> None:
    res = run_validated(_counter(), _errors_of, get_stopping_rule("none"), max_iter=23,
                        chunk=chunk)
    assert not res.stopped and res.n_iter == 23
    np.testing.assert_array_equal(res.val_rmse, ERRORS[:23])


def test_divergence_inside_a_chunk_stops_there() -> None:
    errors = np.array([1.0, 0.9, np.inf, 0.1, 0.1])

    with pytest.warns(RuntimeWarning, match="iteration 3"):
        res = run_validated(_counter(), lambda c: errors[c[0].astype(int) - 1],
                            get_stopping_rule("none"), max_iter=5, chunk=4)
    assert res.diverged and res.n_iter == 3 and res.best_iter == 2


@pytest.mark.parametrize("chunk", [1, 3, 10])
def test_select_stop_returns_the_iterate_at_which_the_rule_fired(chunk: int) -> None:
    rule = get_stopping_rule("window_simple", window=5, threshold=0.0, select="stop")
    res = run_validated(_counter(), _errors_of, rule, max_iter=len(ERRORS), chunk=chunk)
    assert res.stopped and res.n_iter == 15
    assert res.best_iter == 15 and res.best_coef[0] == 15  # not the arg-min, 12


def test_select_stop_without_firing_returns_the_last_iterate() -> None:
    rule = get_stopping_rule("window_slope", window=5, threshold=0.0)
    res = run_validated(_counter(), _errors_of, rule, max_iter=10, chunk=4)  # still falling
    assert not res.stopped and res.best_iter == 10 and res.best_coef[0] == 10


def _counting_counter():
    """:func:`_counter` that also counts its steps."""
    step, calls = _counter(), []

    def counted() -> np.ndarray:
        calls.append(1)
        return step()

    return counted, calls


@pytest.mark.parametrize("chunk", [1, 3, 4, 10])
def test_unspeculative_chunks_never_step_past_the_stop(chunk: int) -> None:
    """``speculate=False`` (PCG: a step costs more than a validation read): chunks only while
    the rule's window is filling, so exactly the steps of the one-by-one loop are taken, and the
    iterate at the stop is handed back as ``last_coef`` (the next λ's warm start)."""
    rule = get_stopping_rule("window_simple", window=5, threshold=0.0)
    reads = []

    def scored(coefs: np.ndarray) -> np.ndarray:
        reads.append(coefs.shape[1])
        return _errors_of(coefs)

    step, calls = _counting_counter()
    res = run_validated(step, scored, rule, max_iter=len(ERRORS), chunk=chunk, speculate=False)
    assert res.stopped and res.n_iter == 15 and len(calls) == 15
    np.testing.assert_array_equal(res.val_rmse, ERRORS[:15])
    assert res.best_iter == 12 and res.best_coef[0] == 12 and res.last_coef[0] == 15
    # the first window = 5 iterates (only the 5th may fire) share reads; then one per read
    assert sum(reads) == 15 and len(reads) == -(-5 // chunk) + 10


@pytest.mark.parametrize("chunk", [1, 4, 10])
def test_done_is_checked_before_every_step_of_a_chunk(chunk: int) -> None:
    """A solver that converges mid-chunk (CG at ``tol``) takes no further step."""
    step, calls = _counting_counter()
    res = run_validated(step, _errors_of, get_stopping_rule("none"), max_iter=20, chunk=chunk,
                        done=lambda: len(calls) >= 7, speculate=False)
    assert len(calls) == 7 and res.n_iter == 7 and res.last_coef[0] == 7
    np.testing.assert_array_equal(res.val_rmse, ERRORS[:7])
