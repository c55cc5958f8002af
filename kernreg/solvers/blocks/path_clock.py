"""The clock of a fit: when each point of its validated path was reached.

A fit starts a :class:`FitClock` (:func:`timing_fit`); the loops of its path stamp their points
with it — an iteration path each scored chunk (:func:`~kernreg.solvers.blocks.iterative.\
run_validated`), a Cholesky-per-λ path each solved λ (:func:`mark_point`) — and the estimator
stores the seconds beside the validation errors, ``path_["seconds"]``, shaped like
``path_["val_rmse"]``. The clock counts from the start of ``fit``, where a trial's
model-selection clock starts (:func:`kernreg.experiment.trial.run_trial`), so the last point of
a path reads about the trial's model-selection time (less what follows the path: a refit).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

__all__ = ["FitClock", "level_seconds", "mark_point", "running_clock", "scored_seconds",
           "timing_fit"]

_RUNNING: ContextVar[FitClock | None] = ContextVar("kernreg_fit_clock", default=None)


class FitClock:
    """Seconds since a fit started, less the time it spent on what is not model selection.

    Parameters
    ----------
    excluded : callable, optional
        Seconds spent inside the fit so far on work that is no part of the model selection
        (a test path's evaluation, timed apart): subtracted from every reading.

    Attributes
    ----------
    marks : list of float
        Readings taken by :func:`mark_point` (the moments path points' models were ready).
    """

    def __init__(self, excluded: Callable[[], float] | None = None) -> None:
        self.start = time.perf_counter()
        self.excluded = excluded
        self.marks: list[float] = []

    def __call__(self) -> float:
        """Seconds since the fit started (less the excluded time)."""
        elapsed = time.perf_counter() - self.start
        return elapsed - self.excluded() if self.excluded is not None else elapsed

    def mark(self) -> None:
        """Record the present reading in :attr:`marks`."""
        self.marks.append(self())


@contextmanager
def timing_fit(excluded: Callable[[], float] | None = None) -> Iterator[FitClock]:
    """Start a fit's clock: inside the block :func:`running_clock` gives it (a fit inside it
    starts its own and hands this one back when it ends)."""
    clock = FitClock(excluded)
    token = _RUNNING.set(clock)
    try:
        yield clock
    finally:
        _RUNNING.reset(token)


def running_clock() -> FitClock | None:
    """The clock of the fit running in this context, or None outside a timed fit."""
    return _RUNNING.get()


def mark_point() -> None:
    """Mark that a path point's model is ready (no-op outside a timed fit): for loops deep
    inside a path (one Cholesky per λ) that cannot hand times back."""
    clock = _RUNNING.get()
    if clock is not None:
        clock.mark()


def scored_seconds(ready: Sequence[float], scored_at: float) -> np.ndarray:
    """Seconds of path points whose models were ready at ``ready`` (in path order) and then
    scored on the validation rows together, the scoring ending at ``scored_at``.

    Each point gets its ready time plus the whole scoring's time (``scored_at`` − the last
    ready time): when its validation error would have been known had the path been cut
    there. The last point gets ``scored_at``, the moment every error was known.
    """
    ready = np.asarray(ready, dtype=np.float64)
    if ready.size == 0:
        return ready
    return ready + (scored_at - ready.max())


def level_seconds(started: float, solved: float, level_costs: np.ndarray, scored_at: float
                  ) -> np.ndarray:
    """Seconds of the levels of a path solved in another order than its levels (every level
    of one λ, then the next λ), then scored together.

    The solve ran from ``started`` to ``solved``; ``level_costs`` ``(M,)`` are the seconds it
    spent on each level (over every λ). Level k gets the time at which all its points would
    have been ready had the levels been solved one after another — ``started`` plus the share
    of the solve's time that levels 1…k took — plus the scoring's time (``scored_at`` −
    ``solved``): the last level gets ``scored_at``. Returns ``(M,)``.
    """
    costs = np.asarray(level_costs, dtype=np.float64)
    total = costs.sum()
    shares = np.cumsum(costs) / total if total > 0 else np.linspace(1.0, 1.0, costs.size)
    return started + (solved - started) * shares + (scored_at - solved)
