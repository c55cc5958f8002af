"""Running an experiment: every (algorithm, trial) pair, resumable, with a progress bar."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from itertools import groupby
from pathlib import Path

import pandas as pd
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from kernreg.backend import Device, MemoryBudget
from kernreg.config import Algorithm, Experiment
from kernreg.config.experiment import trial_rows
from kernreg.errors import ConfigError
from kernreg.experiment.devices import check_device_support, experiment_device, run_memory
from kernreg.experiment.preflight import check_device_memory, check_memory, check_numerics
from kernreg.experiment.provenance import source_commit, utc_now
from kernreg.experiment.resources import environment, gemm_gflops, resolve_blas_threads
from kernreg.experiment.trial import PreparedData, prepare_data, run_trial
from kernreg.kernels.compiled import warm_up
from kernreg.progress import progress_sink
from kernreg.results.store import RunStore
from kernreg.results.tables import parameter_symbol
from kernreg.solvers import reuse_buffers
from kernreg.switches import check_environment

log = logging.getLogger(__name__)
#: Seconds between two updates of a trial's progress on the bar, and between two ``-v`` lines.
BAR_INTERVAL = 0.5
LOG_INTERVAL = 5.0


def run_dir_for(exp: Experiment, out: str | Path) -> Path:
    """Folder of an experiment's results under the output folder ``out``."""
    return Path(out) / exp.name


def select_algorithms(exp: Experiment, only: tuple[str, ...]) -> tuple[Algorithm, ...]:
    """The algorithms of ``exp`` whose labels are in ``only`` (all when ``only`` is empty)."""
    labels = [a.label for a in exp.algorithms]
    unknown = sorted(set(only) - set(labels))
    if unknown:
        raise ConfigError(f"--only: {', '.join(unknown)} not in {exp.name}; its algorithms "
                          f"are: {', '.join(labels)}")
    return tuple(a for a in exp.algorithms if not only or a.label in only)


def run_experiment(
    exp: Experiment,
    out: str | Path,
    *,
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
    only: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Run all trials of all algorithms of ``exp``; return the tidy results table.

    Finished trials are stored one file each as soon as they end, so an interrupted run
    continues with ``resume=True`` without redoing or losing any trial. ``only`` restricts the
    run to the algorithms with these labels (the others can be run later with ``resume``);
    with ``force`` only their earlier trials are deleted when the config is unchanged.
    Before anything runs, each algorithm's peak memory is estimated against
    ``budget.memory_gb`` and, on a device other than ``cpu`` (``exp.device``), the device is
    looked for, every algorithm must take it, and those holding the n × n kernel there must
    fit its budget (:mod:`kernreg.experiment.devices`). With ``exp.execution["scheduler"]``
    other than ``"local"`` the trials run as Dask tasks
    (:mod:`kernreg.experiment.distributed`), stored the same way.

    The run holds the run folder's lock throughout (a second run on the folder is refused);
    the data, memory and numeric checks and the connection to a Dask scheduler all come
    before the first write, and first of all the ``KERNREG_*`` switches
    (:func:`kernreg.switches.check_environment`).
    """
    check_environment()  # a misspelt switch would otherwise surface mid-run, or be guessed
    algorithms = select_algorithms(exp, only)
    memory = run_memory(exp)  # the one budget of the run, handed down
    device = experiment_device(exp, memory)  # PyTorch and the GPU there, before the run folder
    check_device_support(exp, algorithms, device)
    store = RunStore(run_dir_for(exp, out))
    with store.lock():
        return _run_locked(exp, store, algorithms, device, memory, resume=resume,
                           force=force, progress=progress, only=only)


def _run_locked(exp: Experiment, store: RunStore, algorithms: tuple[Algorithm, ...],
                device: Device, memory: MemoryBudget, *, resume: bool, force: bool,
                progress: bool,
                only: tuple[str, ...]) -> pd.DataFrame:
    started_at = utc_now()
    with threadpool_limits(limits=resolve_blas_threads(exp.budget["blas_threads"])):
        clock = time.perf_counter()
        data = prepare_data(exp)
        _, n_fit, n_val = trial_rows(exp.protocol, len(data.y_train))
        log.info("data: %s, %d training rows (%s), %d test rows, d = %d, %s; read in %.2f s "
                 "(source: %s)", exp.dataset_name, len(data.y_train),
                 f"{exp.protocol['folds']} folds of up to {n_val} rows, then all"
                 if exp.protocol.get("selection") == "kfold"
                 else f"{n_fit} fit + {n_val} validation per trial",
                 len(data.y_test), data.X_train.shape[1], data.task,
                 time.perf_counter() - clock, data.source)
        check_numerics(exp, algorithms, data.X_train, data.X_test, n_fit)
        outputs = len(data.codes) if data.task == "multiclass" else 1  # one per class
        estimates = check_memory(exp, algorithms, n_fit, n_val, len(data.y_test),
                                 data.X_train.shape[1], device, memory, outputs)
        for estimate in estimates:
            log.info("memory plan: %s (budget %s)", estimate.describe(), memory.describe())
        check_device_memory(exp, algorithms, n_fit, n_val, len(data.y_test),
                            data.X_train.shape[1], device)
        # numba loaded (compiled where its cache is cold) before the first timed fit, and
        # before the manifest records the kernel path: a numba that fails to load shows there
        warm_up()
        manifest = {
            "experiment": exp.name,
            "config": exp.as_dict(),
            "config_hash": exp.config_hash(),
            "config_file": str(exp.path) if exp.path else "",
            "dataset": exp.dataset_name,
            "dataset_sha256": data.sha256,
            "dataset_source": data.source,
            **({"dataset_file": data.about} if data.about else {}),
            "environment": environment(device),
            # the source the numbers came from, and when (a --resume restamps them)
            "git_commit": source_commit(),
            "started_at": started_at,
            "settings": list(exp.settings),
        }
        scheduler = exp.execution["scheduler"]
        connection: AbstractContextManager = nullcontext()
        if scheduler != "local":
            from kernreg.experiment.distributed import dask_client  # Dask: optional

            connection = dask_client(scheduler)  # reached before the manifest is written
        with connection as client:
            fresh = not store.has_results()  # a run refused before its first trial leaves none
            store.open(manifest, resume=resume, force=force, redo=only)
            todo = [(algo, t) for algo in algorithms for t in range(exp.protocol["trials"])
                    if not store.completed(algo.label, t)]
            if todo and scheduler != "local":
                from kernreg.experiment.distributed import run_trials_on_dask

                with _unstarted_unless_trials(store, fresh):
                    run_trials_on_dask(exp, todo, data, store.save_trial, progress=progress,
                                       peaks={e.label: e.peak_bytes for e in estimates},
                                       client=client)
                store.update_manifest(finished_at=utc_now())
                return store.finalize()
        # the yardstick of this process's times (hosts differ 2.5× on the same run); a smoke
        # run's times mean nothing
        gflops = gemm_gflops() if todo and not exp.smoke else None
        # disable=None: tqdm draws on a terminal only, never frames into a file or a pipe
        bar = tqdm(todo, desc=exp.name, unit="trial", disable=None if progress else True,
                   leave=False)
        with _unstarted_unless_trials(store, fresh):
            for _, trials in groupby(bar, key=lambda todo_item: todo_item[0].label):
                # one algorithm's trials hand their big kernel arrays on
                # (kernreg.solvers.blocks.buffers)
                with reuse_buffers():
                    for algo, trial in trials:
                        _run_one(exp, algo, trial, data, gflops, memory, store, bar)
    store.update_manifest(finished_at=utc_now())
    return store.finalize()


def _run_one(exp: Experiment, algo: Algorithm, trial: int, data: PreparedData,
             gflops: float | None, memory: MemoryBudget, store: RunStore, bar: tqdm) -> None:
    """Run and store one trial, its progress on the bar and in the ``-v`` log."""
    where = f"{algo.label} trial {trial}"
    bar.set_postfix_str(where)
    # "auto" threads follow the load trial by trial; the record keeps the count
    with threadpool_limits(limits=resolve_blas_threads(exp.budget["blas_threads"])), \
            progress_sink(_show_progress(bar, where), BAR_INTERVAL):
        record = run_trial(exp, algo, data, trial, gflops, memory)
    store.save_trial(record)
    log.info("%s: %s in %.3g s (fit and selection), test RMSE %.4g%s", where,
             _selected_text(record.param_name, record.selected), record.model_selection_time,
             record.test_rmse, "; t* is max_iter: the path ended at its cap"
             if record.info.get("stopped_at_cap") else "")


@contextmanager
def _unstarted_unless_trials(store: RunStore, fresh: bool) -> Iterator[None]:
    """A new run that ends (refused, failed or interrupted) before its first trial is stored
    takes its manifest back (:meth:`~kernreg.results.run_folder.RunFolder.unstart`): the
    folder is as it found it, and the next run needs no ``--force``."""
    try:
        yield
    except BaseException:
        if fresh:
            store.unstart()
        raise


def _selected_text(param_name: str | None, selected: float) -> str:
    """``t* = 42``, ``λ* = 5.1e-05``: what a trial selected."""
    if not param_name:
        return "nothing selected"
    return f"{parameter_symbol(param_name)} = {selected:.3g}"


def _show_progress(bar: tqdm, where: str) -> Callable[[str], None]:
    """Where a trial is: on the progress bar, and every :data:`LOG_INTERVAL` seconds in the
    ``-v`` log, with the seconds since the trial began."""
    start = time.perf_counter()
    logged = float("-inf")

    def show(message: str) -> None:
        nonlocal logged
        elapsed = time.perf_counter() - start
        bar.set_postfix_str(f"{where}: {message}", refresh=True)
        if elapsed - logged >= LOG_INTERVAL and log.isEnabledFor(logging.INFO):
            logged = elapsed
            log.info("%s: %s (%.1f s)", where, message, elapsed)

    return show
