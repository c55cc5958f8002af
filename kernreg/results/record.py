"""The record of one trial: what a run stores for every (algorithm, trial) pair."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["TrialRecord"]


@dataclass
class TrialRecord:
    """Everything measured in one trial of one algorithm."""

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
