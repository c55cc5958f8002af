"""One trial of the protocol: hold-out split, fit over the whole path, test evaluation."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import is_classifier
from sklearn.exceptions import ConvergenceWarning

from kernreg.backend import MemoryBudget
from kernreg.config import Algorithm, Experiment, experiment_task, make_estimator
from kernreg.config.file_dataset import file_spec_of
from kernreg.datasets import load_dataset
from kernreg.datasets.files import FileData
from kernreg.datasets.loader import combined_sha256
from kernreg.datasets.own import SPEC_TASKS, load_file_data, median_sigma_text
from kernreg.errors import DataError, DegenerateError
from kernreg.experiment.devices import experiment_device, run_memory
from kernreg.experiment.resources import PeakMemory, Stopwatch, blas_threads
from kernreg.kernels.compiled import active_path
from kernreg.losses import Task, get_measure
from kernreg.results.record import TrialRecord
from kernreg.solvers import holdout_split
from kernreg.solvers.blocks.cross_validation import cross_validate


@dataclass
class PreparedData:
    """The dataset of an experiment after the config's optional subsampling."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    task: str
    sha256: str
    source: str
    #: (negative, positive) class codes of the targets (classification); the sorted class
    #: labels (multiclass).
    codes: tuple[float, ...] = (-1.0, 1.0)
    #: A data file's description for the run's manifest (:func:`file_description`); empty
    #: for a registered dataset.
    about: dict[str, Any] = field(default_factory=dict)


#: Class codes by ``dataset.target_coding`` (datasets are prepared with ±1 classes).
TARGET_CODES = {"pm1": (-1.0, 1.0), "zero_one": (0.0, 1.0)}


def prepare_data(exp: Experiment) -> PreparedData:
    """Load the dataset — a registered one, or a data file (read once, checked against the
    sha256 the config recorded, described for the manifest) —; draw the config's
    ``n_train``/``n_test`` subsamples (seeded by the protocol seed, the same for every trial
    and algorithm); recode ±1 classes as the config's ``target_coding`` says (a multiclass
    dataset keeps its labels, the sorted classes its coding)."""
    about: dict[str, Any] = {}
    if "file" in exp.dataset:
        data = load_file_data(file_spec_of(exp.dataset), seed=exp.protocol["seed"],
                              dtype=exp.dataset["dtype"], memory=run_memory(exp))
        check_same_files(exp.dataset, data)
        X_train, y_train, X_test, y_test = data.X_train, data.y_train, data.X_test, data.y_test
        # the registered datasets' kind and digest of their files (one digest of the sorted)
        task, sha256, source = SPEC_TASKS[data.task], combined_sha256(data.sha256.values()), "file"
        about = file_description(exp, data)
    else:
        ds = load_dataset(exp.dataset["name"], dtype=exp.dataset["dtype"])
        X_train, y_train, X_test, y_test = ds.X_train, ds.y_train, ds.X_test, ds.y_test
        task, sha256, source = ds.task, ds.sha256, ds.source
    rng = subsample_rng(exp.protocol["seed"])
    X_tr, y_tr = subsample_rows(X_train, y_train, exp.dataset.get("n_train"), rng)
    X_te, y_te = subsample_rows(X_test, y_test, exp.dataset.get("n_test"), rng)
    if task == "multiclass":  # the labels as they are; the classes are the coding
        return PreparedData(X_tr, y_tr, X_te, y_te, task, sha256, source,
                            tuple(np.unique(y_tr).tolist()), about)
    codes = TARGET_CODES[exp.dataset["target_coding"]]
    if codes != TARGET_CODES["pm1"]:  # ±1 → codes: y ↦ low + (y + 1)/2·(high − low)
        low, high = codes
        y_tr, y_te = (low + (y + 1.0) / 2.0 * (high - low) for y in (y_tr, y_te))
    return PreparedData(X_tr, y_tr, X_te, y_te, task, sha256, source, codes, about)


def check_same_files(section: dict[str, Any], data: FileData) -> None:
    """The files read now are those the config was checked on (their sha256 in the
    normalised section): a file changed in between is refused, never mixed into a run."""
    for key, digest in section["sha256"].items():
        now = data.sha256[section[key]]
        if now != digest:
            raise DataError(f"dataset.{key}: {section[key]} changed after the config was read "
                            f"(sha256 {digest[:12]}…, now {now[:12]}…); run again")


def file_description(exp: Experiment, data: FileData) -> dict[str, Any]:
    """What a run records of its data file: each file and its sha256, the format, the task
    and how its labels were coded, the sizes, and where the kernel's σ came from."""
    if data.task == "binary":
        labels: Any = {"-1": data.labels[0], "+1": data.labels[1]}
    elif data.task == "multiclass":
        labels = list(data.labels)
    else:
        labels = None
    origin = exp.sigma_source
    if origin == "dataset":
        origin = "dataset.sigma" if exp.dataset.get("sigma") is not None else \
            median_sigma_text(exp.protocol["seed"])
    return {"files": dict(data.sha256), "format": data.format, "task": data.task,
            "labels": labels, "rows": data.n_rows, "columns": data.n_columns,
            "sparsity": data.sparsity, "training_rows": int(data.X_train.shape[0]),
            "test_rows": int(data.X_test.shape[0]),
            "preprocessing": list(exp.dataset.get("preprocessing", [])),
            "sigma": {"value": exp.kernel.get("sigma"), "from": origin},
            "median_sigma": data.suggested_sigma}


def subsample_rng(seed: int) -> np.random.Generator:
    """The generator of the data subsamples of a run with protocol seed ``seed``."""
    return np.random.default_rng([seed, 0xDA7A])


def subsample_rows(X: Any, y: np.ndarray, size: int | None, rng: np.random.Generator
                   ) -> tuple[Any, np.ndarray]:
    """``size`` rows of ``(X, y)`` drawn uniformly without replacement, in their file order;
    all rows when ``size`` is ``None`` or not smaller than ``len(y)``."""
    if size is None or size >= len(y):
        return X, y
    keep = np.sort(rng.choice(len(y), size, replace=False))
    return X[keep], y[keep]


def trial_seed(seed: int, trial: int) -> int:
    """Seed of trial ``trial``: independent streams per trial, the same for every algorithm,
    so NKRLS and NYTRO of one trial see the same split and the same centers."""
    return int(np.random.SeedSequence([seed, trial]).generate_state(1)[0])


def trial_data(exp: Experiment, data: PreparedData, trial: int) -> PreparedData:
    """The training and test rows of trial ``trial``: the dataset's own split, or with
    ``protocol.test_split: per_trial`` a fresh split of all its rows into the same two sizes,
    drawn from the trial's seed (the same for every algorithm of the trial)."""
    if exp.protocol.get("test_split", "fixed") != "per_trial":
        return data
    n_train = len(data.y_train)
    X = (sp.vstack([data.X_train, data.X_test], format="csr") if sp.issparse(data.X_train)
         else np.concatenate([data.X_train, data.X_test]))
    y = np.concatenate([data.y_train, data.y_test])
    order = np.random.default_rng([trial_seed(exp.protocol["seed"], trial), 0x7E57]) \
        .permutation(len(y))
    train, test = np.sort(order[:n_train]), np.sort(order[n_train:])
    return replace(data, X_train=X[train], y_train=y[train], X_test=X[test], y_test=y[test])


def trial_split(exp: Experiment, data: PreparedData, trial: int
                ) -> tuple[int, tuple[Any, np.ndarray, Any, np.ndarray]]:
    """Trial ``trial``'s seed and its hold-out split ``(X_fit, y_fit, X_val, y_val)`` of its
    training rows (:func:`trial_data`): what the runner fits, for scripts that re-fit one
    trial."""
    return _holdout(exp, trial_data(exp, data, trial), trial)


def _holdout(exp: Experiment, data: PreparedData, trial: int
             ) -> tuple[int, tuple[Any, np.ndarray, Any, np.ndarray]]:
    seed = trial_seed(exp.protocol["seed"], trial)
    split = holdout_split(data.X_train, data.y_train, exp.protocol["validation_fraction"],
                          random_state=np.random.default_rng(seed))
    return seed, split


def run_trial(exp: Experiment, algo: Algorithm, data: PreparedData, trial: int,
              gemm_gflops: float | None = None, memory: MemoryBudget | None = None
              ) -> TrialRecord:
    """Run trial ``trial`` of ``algo``.

    The model-selection time is the wall time of ``fit``: kernel evaluations, the whole
    regularization path and the validation predictions of every path point (and the refit when
    the protocol asks for one); loading the data is excluded. ``gemm_gflops``, this host's
    measured GEMM rate, is recorded beside the times, ``info["kernel_path"]`` names the
    kernel loops that ran (``"numba"`` or ``"numpy"``, :func:`kernreg.kernels.active_path`)
    and ``info["device"]`` the device (``cpu``, ``torch 2.13.0 (cpu)`` or the GPU's name,
    :meth:`kernreg.backend.Device.describe`), resolved where the trial runs (a Dask worker
    included). ``path_seconds`` says when each path point's validation error was known, on
    the same clock as the model-selection time (:func:`path_seconds`). ``memory``: the run's
    budget (:func:`~kernreg.experiment.devices.run_memory`; by default this machine's).

    Raises
    ------
    DegenerateError
        The fit, the selection, the predictions or a test measure met non-finite values
        (:func:`check_finite_result`, :func:`check_finite_measures`): nothing is returned.
    """
    memory = memory or run_memory(exp)
    device = experiment_device(exp, memory)
    where = f"{algo.label} trial {trial}"
    data = trial_data(exp, data, trial)
    # the test rows along the path: evaluated inside fit, their time taken out of fit's
    eval_rows = {"X_eval": data.X_test} if exp.protocol.get("record_test_path") else {}
    kfold = exp.protocol.get("selection") == "kfold"
    if kfold:
        seed = trial_seed(exp.protocol["seed"], trial)
    else:
        seed, (X_fit, y_fit, X_val, y_val) = _holdout(exp, data, trial)
    budget = memory  # the name `memory` is the peak-memory probe inside the block below

    def configured() -> Any:
        return make_estimator(algo, exp, random_state=seed, device=device, memory=budget)

    try:
        with PeakMemory() as memory, Stopwatch() as fit_clock, warnings.catch_warnings():
            # a path that ended at max_iter is recorded (stopped_at_cap) and marked in the
            # tables, not warned about once per trial
            warnings.simplefilter("ignore", ConvergenceWarning)
            if kfold:
                folded = cross_validate(configured, data.X_train, data.y_train,
                                        exp.protocol["folds"], seed,
                                        stratify=data.task != "regression")
                estimator, n_fit, n_val = folded.estimator, folded.n_fit, folded.n_val
            else:
                estimator = configured()
                estimator.fit(X_fit, y_fit, X_val, y_val, **eval_rows)
                n_fit, n_val = len(y_fit), len(y_val)
        with Stopwatch() as predict_clock:
            y_pred = real_outputs(estimator, data.X_test)
    except (np.linalg.LinAlgError, FloatingPointError, ZeroDivisionError,
            OverflowError) as exc:
        raise DegenerateError(f"{where}: {type(exc).__name__}: {exc}") from None
    except ValueError as exc:  # LAPACK wrappers refuse NaN/inf input with a ValueError
        if "infs or nans" not in str(exc).lower() and "finite" not in str(exc).lower():
            raise
        raise DegenerateError(f"{where}: non-finite values reached a factorization "
                              f"({exc})") from None
    # after the fit: a numba that failed to load has fallen back to numpy by now
    kernel_path = active_path()
    chosen = folded.selection if kfold else estimator.selection()
    check_finite_result(where, chosen.selected if chosen.param_name else None,
                        chosen.val_rmse, y_pred, path_values=chosen.path_values,
                        m_values=chosen.m_values, m_selected=chosen.info.get("m_selected"))
    task = experiment_task(exp.task, exp.dataset)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is checked just below
        measures = task.evaluate(data.y_test, y_pred, data.codes)
        measures.update({name: float(get_measure(name).compute(task, data.y_test, y_pred,
                                                               data.codes))
                         for name in exp.measures})  # the config's own, beside the task's
        test_rmse = measures["rmse"] if "rmse" in measures else _coded_rmse(task, data, y_pred)
    test_error = measures.get("error", float("nan"))
    check_finite_measures(where, measures, test_rmse, test_error,
                          undefined_ok=per_class_prefixes(task))
    info = dict(chosen.info)
    info["kernel_path"] = kernel_path
    info["device"] = device.describe()
    test_path: dict[str, np.ndarray] = {}
    selection_seconds = fit_clock.seconds
    if eval_rows:
        test_path = path_measures(task, data, estimator.eval_outputs_, chosen.val_rmse.shape)
        selection_seconds -= estimator.eval_seconds_
        info["test_path_seconds"] = float(estimator.eval_seconds_)
    if gemm_gflops is not None:
        info["gemm_gflops"] = float(gemm_gflops)
    return TrialRecord(
        algorithm=algo.name,
        label=algo.label,
        trial=trial,
        seed=seed,
        param_name=chosen.param_name,
        selected=chosen.selected,
        path_values=chosen.path_values,
        val_rmse=chosen.val_rmse,
        model_selection_time=selection_seconds,
        predict_time=predict_clock.seconds,
        test_rmse=test_rmse,
        test_error=test_error,
        peak_rss=memory.peak_bytes,
        n_fit=n_fit,
        n_val=n_val,
        n_test=len(data.y_test),
        blas=blas_threads(),
        info=info,
        m_values=chosen.m_values,
        config_hash=exp.config_hash(),
        task=task.name,
        val_measure=getattr(estimator, "validation_measure", "rmse"),
        measures=measures,
        test_path=test_path,
        sigma_values=chosen.sigma_values,
        sigma_val_rmse=chosen.sigma_val_rmse,
        path_seconds=path_seconds(estimator, chosen.val_rmse.shape),
    )


def path_seconds(estimator: Any, shape: tuple[int, ...]) -> np.ndarray:
    """When each point of the fitted ``estimator``'s validation path was known: its
    ``path_["seconds"]``, seconds from the start of ``fit`` — the start of the trial's
    model-selection clock — shaped like the path (``shape``); empty where the estimator
    recorded none, or selected σ (the times of σ*'s own fit would leave out the other σ's)."""
    if "best_estimator_" in vars(estimator):
        return np.zeros(0)
    path = getattr(estimator, "path_", None) or {}
    seconds = np.asarray(path.get("seconds", []), dtype=np.float64)
    return seconds if seconds.shape == tuple(shape) and seconds.size else np.zeros(0)


def real_outputs(estimator: Any, X: Any) -> np.ndarray:
    """The fitted estimator's real-valued outputs on ``X``, what a trial's measures take: a
    classifier's ``decision_function`` (its ``predict`` gives labels), a regressor's
    ``predict``. A σ search answers with its estimator at σ* (``best_estimator_``)."""
    model = getattr(estimator, "best_estimator_", estimator)
    return model.decision_function(X) if is_classifier(model) else estimator.predict(X)


def path_measures(task: Task, data: PreparedData, outputs: np.ndarray,
                  shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    """Every test measure of ``task`` for each model of a path: ``outputs`` (L, M, n_test)
    → ``{measure: array of shape`` ``shape`` ``}`` (the validation path's shape), NaN where the
    path has no model."""
    L, M = outputs.shape[:2]
    paths: dict[str, np.ndarray] = {}
    for j in range(L):
        for k in range(M):
            if not np.all(np.isfinite(outputs[j, k])):
                continue
            for name, value in task.evaluate(data.y_test, outputs[j, k], data.codes).items():
                paths.setdefault(name, np.full((L, M), np.nan))[j, k] = value
    return {name: grid.reshape(shape) for name, grid in paths.items()}


def check_finite_result(where: str, selected: Any, val_rmse: np.ndarray, y_pred: np.ndarray,
                        *, path_values: Any = None, m_values: Any = None,
                        m_selected: Any = None) -> None:
    """A trial whose selection, validation path or predictions are not finite is refused
    (:class:`~kernreg.errors.DegenerateError`), never stored.

    A path may hold NaN or ∞ at points that were not reached (a stopped iteration path, the
    empty cells of a two-parameter grid) or that diverged without being selected: only a path
    with no finite value, or a selected point whose own validation value is not finite, is
    refused. The selected point is found by ``selected`` in ``path_values`` (and
    ``m_selected`` in ``m_values`` for a two-parameter path); where it cannot be located, only
    the other checks apply.
    """
    val = np.asarray(val_rmse, dtype=np.float64)
    if val.size and not np.isfinite(val).any():
        raise DegenerateError(f"{where}: every validation RMSE of the path is NaN or infinite")
    if selected is not None and not np.isfinite(float(selected)):
        raise DegenerateError(f"{where}: the selected parameter is {selected}")
    value = selected_value(selected, val, path_values, m_values, m_selected)
    if value is not None and not np.isfinite(value):
        at_m = f" (m = {m_selected})" if val.ndim == 2 else ""
        raise DegenerateError(f"{where}: the validation value at the selected point "
                              f"{float(selected):g}{at_m} is {value}")
    if not np.all(np.isfinite(np.asarray(y_pred))):
        raise DegenerateError(f"{where}: the test predictions are not finite (overflow)")


def selected_value(selected: Any, val_rmse: np.ndarray, path_values: Any, m_values: Any = None,
                   m_selected: Any = None) -> float | None:
    """The validation value of the selected point of a path: ``val_rmse`` at the entry of
    ``path_values`` equal to ``selected`` (and, for an ``(L, M)`` path, the column of
    ``m_values`` equal to ``m_selected``); ``None`` where the point cannot be located (no
    selection, no path, a value not on the grid)."""
    val = np.asarray(val_rmse, dtype=np.float64)
    if selected is None or path_values is None or val.size == 0:
        return None
    values = np.asarray(path_values, dtype=np.float64).ravel()
    rows = np.flatnonzero(values == float(selected))
    if rows.size != 1 or val.shape[0] != values.size or val.ndim > 2:
        return None
    if val.ndim == 1:
        return float(val[rows[0]])
    if m_selected is None or m_values is None:
        return None
    levels = np.asarray(m_values).ravel()
    cols = np.flatnonzero(levels == m_selected)
    if cols.size != 1 or val.shape[1] != levels.size:
        return None
    return float(val[rows[0], cols[0]])


def per_class_prefixes(task: Task) -> tuple[str, ...]:
    """Name prefixes of ``task``'s per-class measures (``accuracy_class_``): their value is
    NaN, legitimately, for a class absent from the test rows."""
    return tuple(f"{get_measure(name).per_class}_" for name in task.measures
                 if get_measure(name).per_class)


def check_finite_measures(where: str, measures: Mapping[str, float], test_rmse: float,
                          test_error: float, undefined_ok: tuple[str, ...] = ()) -> None:
    """Every test measure a trial stores must be finite.

    Finite predictions can still give an infinite measure — outputs of about 1e298 (a step
    size of 1e300) square to ∞ — so the measures are checked themselves, not only the
    predictions.

    Parameters
    ----------
    where : str
        ``"<label> trial <k>"``, the message's subject.
    measures : mapping
        The task's test measures (``Task.evaluate``).
    test_rmse, test_error : float
        The record's RMSE and classification error; ``test_error`` may be NaN when the task has
        no ``error`` measure (regression).
    undefined_ok : tuple of str
        Prefixes of measures that may be NaN (never ∞): a per-class measure of a class that
        is not in the test rows (:func:`per_class_prefixes`).

    Raises
    ------
    DegenerateError
        Naming the first measure that is not finite and its value.
    """
    values = [*measures.items(), ("rmse", test_rmse)]
    if "error" in measures or not np.isnan(test_error):
        values.append(("error", test_error))
    for name, value in values:
        value = float(value)
        if np.isfinite(value) or (np.isnan(value) and name.startswith(undefined_ok)
                                  and name not in ("rmse", "error")):
            continue
        raise DegenerateError(f"{where}: the test {name} is {value}, not finite (the measure "
                              f"overflows on these finite predictions)")


def _coded_rmse(task: Task, data: PreparedData, y_pred: np.ndarray) -> float:
    """RMSE of the outputs against the coded targets, for a task that does not record RMSE
    (every record keeps ``test_rmse``)."""
    targets = task.encode(data.y_test, data.codes)
    return float(np.sqrt(np.mean((np.asarray(y_pred, dtype=np.float64) - targets) ** 2)))
