"""The record of one trial: what a run stores for every (algorithm, trial) pair."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ADDED_FIELDS", "TrialRecord"]

#: Fields absent from trial files stored before they existed: reading such a file fills them
#: from the fields it has (see :meth:`TrialRecord.__post_init__`).
ADDED_FIELDS = ("m_values", "task", "val_measure", "measures", "test_path", "sigma_values",
                "sigma_val_rmse", "path_seconds")


@dataclass
class TrialRecord:
    """Everything measured in one trial of one algorithm.

    ``test_rmse`` and ``test_error`` (classification error, NaN for regression) are kept for
    the readers of earlier results; ``measures`` holds every test-set measure of the run's
    ``task`` (:mod:`kernreg.losses`), those two included, and ``val_measure`` names what the
    validation path ``val_rmse`` holds (the square-loss algorithms validate by RMSE).
    ``info`` holds the fit's scalar facts (stored as JSON), among them ``kernel_path``: the
    kernel loops that ran this trial, ``"numba"`` or ``"numpy"``, and ``device``: where it
    ran, ``"cpu"`` (numpy), ``"torch 2.13.0 (cpu)"`` or the GPU's name (both absent from
    trial files written before they were recorded).
    """

    algorithm: str
    label: str
    trial: int
    seed: int
    param_name: str | None
    selected: float
    path_values: np.ndarray
    val_rmse: np.ndarray
    model_selection_time: float
    predict_time: float
    test_rmse: float
    test_error: float
    peak_rss: int
    n_fit: int
    n_val: int
    n_test: int
    blas: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    #: Levels m' of a two-parameter path; ``val_rmse`` is then (len(path_values), len(m_values)).
    m_values: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: sha256 of the config that produced the trial (``Experiment.config_hash``): a trial file
    #: says which run it belongs to; empty in files written before it was recorded.
    config_hash: str = ""
    #: The task's name (regression, binary, multiclass).
    task: str = ""
    #: The measure along the validation path (``val_rmse``) the selection used.
    val_measure: str = "rmse"
    #: Every test-set measure of the task: ``{name: value}`` (per class: ``<prefix>_<class>``).
    measures: dict[str, float] = field(default_factory=dict)
    #: Every test measure along the validated path, ``{name: array shaped like val_rmse}``:
    #: the models the validation error scored (fitted on the fit rows), on the test rows.
    #: Recorded when the config asks (``protocol: {record_test_path: true}``), else empty.
    test_path: dict[str, np.ndarray] = field(default_factory=dict)
    #: The σ grid of a run that selects σ (``kernel: {sigma: [...]}``) and the validation path
    #: of every σ, ``(S, *val_rmse.shape)``; σ* is ``info["sigma_selected"]``. Else empty.
    sigma_values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sigma_val_rmse: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: When each point of the validation path was reached: seconds from the start of the fit
    #: (the start of ``model_selection_time``'s clock) at which the point's validation error
    #: was known, shaped like ``val_rmse`` (the estimator's ``path_["seconds"]``; see
    #: :mod:`kernreg.solvers.blocks.path_clock` for what a point's time is on each kind of
    #: path). Empty where none was recorded: trial files written before it was, estimators
    #: that record none, and a σ selection (σ*'s own fit is not the selection's clock).
    path_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self) -> None:
        # records stored before tasks existed: regression, or binary where an error was kept
        if not self.task:
            self.task = "regression" if np.isnan(self.test_error) else "binary"
        if not self.measures:
            self.measures = {"rmse": float(self.test_rmse)}
            if not np.isnan(self.test_error):
                self.measures["error"] = float(self.test_error)
