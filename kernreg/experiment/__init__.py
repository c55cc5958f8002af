"""Running experiments: trials of the hold-out protocol, resumable, measured."""

from kernreg.config import make_estimator
from kernreg.experiment.devices import experiment_device
from kernreg.experiment.resources import (
    PeakMemory,
    Stopwatch,
    blas_description,
    blas_threads,
    gemm_gflops,
    idle_cores,
    resolve_blas_threads,
)
from kernreg.experiment.runner import run_dir_for, run_experiment
from kernreg.experiment.trial import (
    PreparedData,
    prepare_data,
    real_outputs,
    run_trial,
    subsample_rng,
    subsample_rows,
    trial_data,
    trial_seed,
    trial_split,
)

__all__ = ["PeakMemory", "PreparedData", "Stopwatch", "blas_description", "blas_threads",
           "experiment_device", "gemm_gflops", "idle_cores", "make_estimator", "prepare_data",
           "real_outputs", "resolve_blas_threads", "run_dir_for", "run_experiment", "run_trial",
           "subsample_rng", "subsample_rows", "trial_data", "trial_seed", "trial_split"]
