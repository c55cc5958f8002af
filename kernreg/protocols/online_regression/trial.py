"""The trial of the online regression protocol of thesis Section 8.3 (Figure 8.4): one part of
the test plane run test-then-update from the trained state.

Data: the generated source :mod:`~kernreg.protocols.online_regression.icub_arm_sim` — a
SIMULATION on the iCub's published URDF standing in for the thesis's private recordings — two
planes of circles (XY, XZ) of ``simulation.n_samples`` samples each. Protocol, as the thesis's:

1. the estimators see the inputs standardized by the training plane's mean and std (the
   parametric regressor undoes it);
2. their hyperparameters are chosen on the training plane alone
   (:class:`~kernreg.solvers.online.selection.HoldoutSelection`, the grids of ``selection``);
3. every estimator starts at zero and learns the whole training plane sample by sample;
4. the test plane is split into ``protocol.n_parts`` sequential parts; **a trial is one part**:
   a copy of every trained estimator runs it test-then-update (predict a sample, then learn
   it), and the trial records the RMSE over a trailing ``protocol.window`` of samples, of the
   force and of the torque, after each sample.

Steps 1–3 are the state every trial starts from (:func:`prepare`); it is deterministic in the
config, so it is computed once per invocation and a resumed run's parts equal an uninterrupted
run's. A run folder's trials take it from :class:`LazyState`, which computes it only when a
trial is run (a resumed run with every part finished simulates nothing). The thesis's 10 parts
are the repetitions the mean ± std are taken over. ``reproduce/thesis_ch8/thesis_fig8_4.py``
runs the same code without a run folder (:func:`online_trials`).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from kernreg.protocols.online_regression.config import OnlineAlgorithm, OnlineRegressionConfig
from kernreg.protocols.online_regression.icub_arm_sim import (
    LABEL,
    OUTPUT_GROUPS,
    ArmModel,
    robot_modules,
    simulate,
)
from kernreg.protocols.online_regression.preflight import check_memory
from kernreg.solvers.online import HoldoutSelection, get_online_spec, windowed_rmse
from kernreg.solvers.online.base import OnlineRegressor

__all__ = ["LazyState", "TrainedState", "online_trials", "prepare", "run_part", "select_params",
           "start", "trial"]

#: A trial's record (:data:`~kernreg.results.trial_store.Record`): ``attrs`` (the trial, the
#: config hash, the part's rows, every label's name and selected hyperparameters, the window,
#: the CAD model's RMSE, the planes and their trajectories' facts, the data's label, seconds
#: per label) and, per label, ``{"force", "torque"}``: the windowed RMSE after each sample.
Trial = dict[str, Any]


@dataclass
class TrainedState:
    """What every trial starts from: the test plane (standardized inputs, wrench), each
    label's estimator trained on the training plane and its parameters, the facts a trial
    records."""

    cfg: OnlineRegressionConfig
    Z_test: np.ndarray
    y_test: np.ndarray
    trained: dict[str, OnlineRegressor]
    selected: dict[str, dict[str, Any]]
    cad_rmse: dict[str, float]
    trajectories: dict[str, dict[str, float]]


def select_params(algo: OnlineAlgorithm, holdout: HoldoutSelection,
                  selection: dict[str, Any]) -> dict[str, Any]:
    """``algo``'s complete parameters: those it sets, and those it leaves out chosen on
    ``holdout`` from their ``selection`` grids (by its spec's ``select``).

    Parameters
    ----------
    algo : OnlineAlgorithm
        A config entry.
    holdout : HoldoutSelection
        The training plane split for selection.
    selection : dict
        The config's ``selection`` (the grids).

    Returns
    -------
    dict
        Parameter → value, every parameter of the estimator's spec that has one.
    """
    if not algo.selected:
        return dict(algo.params)
    spec = get_online_spec(algo.name)
    candidates = {p: [algo.params[p]] if p in algo.params else list(selection[grid])
                  for p, grid in spec.selected.items()}
    return {**algo.params, **spec.select(candidates, holdout, algo.params)}


def prepare(cfg: OnlineRegressionConfig, model: ArmModel | None = None) -> TrainedState:
    """Check the memory budget, then simulate the planes, standardize, select every label's
    parameters on the training plane and train its estimator on it (steps 1–3 of the
    protocol).

    Raises
    ------
    BudgetError
        The estimated peak memory exceeds ``budget.memory_gb`` (:mod:`.preflight`).
    DataError
        The robot extra (idyntree, icub-models) is missing.
    """
    check_memory(cfg)  # before the simulation allocates anything
    p = cfg.protocol
    model, _, planes = simulate(cfg.simulation["n_samples"], cfg.simulation["seed"], model)
    train, test = planes[p["train_plane"]], planes[p["test_plane"]]
    mean, std = train.inputs.mean(0), train.inputs.std(0)
    Z_train, Z_test = (train.inputs - mean) / std, (test.inputs - mean) / std

    def regressor(Z: np.ndarray) -> np.ndarray:  # the estimators see standardized inputs
        return model.regressor(np.atleast_2d(Z) * std + mean)

    specs = {a.label: get_online_spec(a.name) for a in cfg.algorithms}
    rows = None
    if any(specs[a.label].uses_regressor and a.selected for a in cfg.algorithms):
        rows = model.regressor(train.inputs)
    holdout = HoldoutSelection(Z_train, train.wrench, rows, cfg.selection["train_fraction"])
    selected, trained = {}, {}
    for algo in cfg.algorithms:
        spec = specs[algo.label]
        selected[algo.label] = select_params(algo, holdout, cfg.selection)
        estimator = spec.build(selected[algo.label], regressor if spec.uses_regressor else None)
        trained[algo.label] = estimator.partial_fit(Z_train, train.wrench)
    cad = {g: float(np.sqrt(np.mean((test.cad_wrench[:, a:b] - test.wrench[:, a:b]) ** 2)))
           for g, ((a, b), _) in OUTPUT_GROUPS.items()}
    return TrainedState(cfg, Z_test, test.wrench, trained, selected, cad,
                        {"train": train.info, "test": test.info})


def run_part(state: TrainedState, part: int) -> Trial:
    """Trial ``part``: every trained estimator (a copy) runs that part of the test plane
    test-then-update; its record (:data:`Trial`)."""
    cfg = state.cfg
    n, window = cfg.part_length, cfg.protocol["window"]
    rows = slice(part * n, (part + 1) * n)
    record: Trial = {"attrs": {
        "trial": part, "config_hash": cfg.config_hash(), "rows": [part * n, (part + 1) * n],
        "labels": [a.label for a in cfg.algorithms],
        "names": {a.label: a.name for a in cfg.algorithms},
        "selected": state.selected, "window": window, "cad_rmse": state.cad_rmse,
        "planes": {"train": cfg.protocol["train_plane"], "test": cfg.protocol["test_plane"]},
        "trajectories": state.trajectories, "data": LABEL, "seconds": {}}}
    y = state.y_test[rows]
    for label, estimator in state.trained.items():
        begin = time.perf_counter()
        prediction = copy.deepcopy(estimator).predict_update(state.Z_test[rows], y)
        record["attrs"]["seconds"][label] = time.perf_counter() - begin
        record[label] = {g: windowed_rmse(prediction[:, a:b] - y[:, a:b], window)
                         for g, ((a, b), _) in OUTPUT_GROUPS.items()}
    return record


def online_trials(cfg: OnlineRegressionConfig, parts: Sequence[int] | None = None,
                  progress: bool = False) -> Iterator[Trial]:
    """The records of ``parts`` (default: the first ``protocol.trials``), computed without a
    run folder (what ``reproduce/thesis_ch8/thesis_fig8_4.py`` runs), with the config's BLAS
    threads (``budget.blas_threads``, 1 by default: the small-λ recursions' last digits
    depend on how a product is split between threads, and the numbers should not depend on
    the machine's cores)."""
    parts = range(cfg.protocol["trials"]) if parts is None else parts
    if not parts:
        return
    with threadpool_limits(limits=cfg.budget["blas_threads"]):
        state = prepare(cfg)
        for part in tqdm(parts, desc=cfg.name, unit="part",
                         disable=None if progress else True,  # a terminal's only
                         leave=False):
            yield run_part(state, part)


class LazyState:
    """The :class:`TrainedState` of ``cfg``, computed (:func:`prepare`) when a trial first
    asks for it: the run loop prepares before it knows which trials are finished, and the
    simulation and training cost minutes."""

    def __init__(self, cfg: OnlineRegressionConfig) -> None:
        self.cfg = cfg
        self._state: TrainedState | None = None

    @property
    def state(self) -> TrainedState:
        if self._state is None:
            self._state = prepare(self.cfg)
        return self._state


def start(cfg: OnlineRegressionConfig) -> LazyState:
    """The protocol's ``prepare`` (:class:`~kernreg.experiment.protocol.ProtocolSpec`): check
    the budget and the robot extra — cheap, before the run folder is written — and defer the
    rest to the first trial.

    Raises
    ------
    BudgetError
        The estimated peak memory exceeds ``budget.memory_gb``.
    DataError
        The robot extra (idyntree, icub-models) is missing: ``pip install 'kernreg[robot]'``.
    """
    check_memory(cfg)
    robot_modules()
    return LazyState(cfg)


def trial(cfg: OnlineRegressionConfig, prepared: LazyState, k: int) -> Trial:
    """The protocol's ``trial``: part ``k`` of the test plane (:func:`run_part`)."""
    return run_part(prepared.state, k)
