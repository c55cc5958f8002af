"""Running experiments: trials of the hold-out protocol, resumable, measured."""

from kernreg.experiment.estimators import make_estimator
from kernreg.experiment.runner import run_dir_for, run_experiment
from kernreg.experiment.trial import (
    PreparedData,
    TrialRecord,
    prepare_data,
    run_trial,
    trial_seed,
)

__all__ = ["PreparedData", "TrialRecord", "make_estimator", "prepare_data", "run_dir_for",
           "run_experiment", "run_trial", "trial_seed"]
