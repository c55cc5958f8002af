"""Adding an algorithm touches its own file, its registration and its tests — nothing else.

A toy algorithm is defined and registered here, at run time, without editing any kernreg
module; a config naming it then goes through validation (its schema and defaults), the memory
preflight (its estimate), trials (its ``selection()``), the run store, and the tables (its
title), exactly as a built-in algorithm does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kernreg.config import load_experiment
from kernreg.errors import ConfigError
from kernreg.experiment import run_experiment
from kernreg.experiment.preflight import check_memory
from kernreg.results.store import load_run
from kernreg.results.tables import Collected, load_table_config, render_table
from kernreg.solvers import (
    AlgorithmSpec,
    KernelEstimator,
    MemoryProblem,
    algorithm_names,
    register,
    rmse,
    unregister,
)
from kernreg.solvers.blocks.params import LAMBDAS, POSITIVE_INT


class ToyRidge(KernelEstimator):
    """Ridge regression on the kernel columns of the first ``n_columns`` training rows."""

    path_parameter = "lambda"

    def __init__(self, kernel: str = "gaussian", sigma: float = 1.0, lambdas: Any = None,
                 n_columns: int = 5, dtype: str = "float64", memory_budget: int = 2**26):
        self.kernel = kernel
        self.sigma = sigma
        self.lambdas = lambdas
        self.n_columns = n_columns
        self.dtype = dtype
        self.memory_budget = memory_budget

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> ToyRidge:
        X, y, X_val, y_val = self._start_fit(X, y, X_val, y_val)
        C = X[: self.n_columns]
        K = self.kernel_(X, C)
        lambdas = np.asarray(self.lambdas if self.lambdas is not None else [1e-3])
        alphas = np.column_stack([np.linalg.solve(K.T @ K + lam * len(y) * np.eye(len(C)),
                                                  K.T @ y) for lam in lambdas])
        val = rmse(y_val, self.kernel_(X_val, C) @ alphas)
        best = int(np.argmin(val))
        self.centers_, self.alpha_, self.best_lambda_ = C, alphas[:, best], float(lambdas[best])
        self.path_ = {"lambdas": lambdas, "val_rmse": val}
        return self

    def _fit_info(self) -> dict[str, Any]:
        return {"columns": self.n_columns}


def _memory(params: dict[str, Any], problem: MemoryProblem) -> dict[str, int]:
    return {"toy columns": problem.n_fit * params["n_columns"] * 8}


TOY = AlgorithmSpec(
    name="toy",
    estimator=ToyRidge,
    title="Toy ridge",
    schema={"lambdas": LAMBDAS, "n_columns": POSITIVE_INT},
    config_defaults=("lambdas", "n_columns"),
    memory=_memory,
)


@pytest.fixture
def toy() -> Iterator[AlgorithmSpec]:
    register(TOY)
    yield TOY
    unregister(TOY.name)


CONFIG = """
name: toy_run
dataset: {name: breast_cancer}
algorithms:
  - {name: toy, n_columns: 8, lambdas: {logspace: [1e-6, 1e-1, 6]}}
  - {name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1e-1, 6]}}
protocol: {trials: 2}
budget: {blas_threads: 1}
"""


def test_a_registered_toy_runs_through_preflight_trials_store_and_tables(
    toy: AlgorithmSpec, tmp_path: Path
) -> None:
    assert algorithm_names()[-1] == "toy"  # tables list it after the built-in algorithms
    config = tmp_path / "toy.yaml"
    config.write_text(CONFIG)
    exp = load_experiment(config)
    entry = exp.algorithms[0]
    assert entry.params["n_columns"] == 8 and entry.lambdas().size == 6
    assert load_experiment(_with(tmp_path, "n_columns: 8, ", "")).algorithms[0].params[
        "n_columns"] == 5  # the estimator's default, filled in by the config
    estimates = check_memory(exp, exp.algorithms, 320, 80, 169, 30)
    assert estimates[0].parts["toy columns"] == 320 * 8 * 8

    results = run_experiment(exp, tmp_path / "out", progress=False)
    toy_rows = results[results["algorithm"] == "toy"]
    assert len(toy_rows) == 2 and set(toy_rows["param_name"]) == {"lambda"}
    assert (toy_rows["n_path_points"] == 6).all()
    run = load_run(tmp_path / "out" / "toy_run")
    assert {r.info["columns"] for r in run.records if r.algorithm == "toy"} == {8}

    table = render_table("table2", Collected(results))
    assert "| dataset |  | NKRLS | Toy ridge |" in table
    table_config = tmp_path / "table.yaml"
    table_config.write_text("table: table2\nruns: [toy.yaml]\nnotes:\n"
                            "  - {dataset: breast_cancer, algorithm: toy, note: a toy}\n")
    assert load_table_config(table_config)["notes"][0]["algorithm"] == "toy"


def test_its_schema_rejects_unknown_keys_with_its_own_key_list(
    toy: AlgorithmSpec, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=r"algorithms\[0\]: unknown key 'columns' \(did you "
                                          r"mean 'n_columns'\?\); allowed keys: label, "
                                          r"lambdas, n_columns, name"):
        load_experiment(_with(tmp_path, "n_columns: 8", "columns: 8"))


def test_unregistered_it_is_unknown(tmp_path: Path) -> None:
    assert "toy" not in algorithm_names()
    with pytest.raises(ConfigError, match="'toy' is not allowed"):
        load_experiment(_with(tmp_path, "", ""))


def _with(tmp_path: Path, old: str, new: str) -> Path:
    path = tmp_path / f"variant{abs(hash((old, new)))}.yaml"
    path.write_text(CONFIG.replace(old, new) if old else CONFIG)
    return path
