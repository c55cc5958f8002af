"""Regression: real-valued targets, the prediction is the output itself; records RMSE (the
papers' Table 2 measure, the default) and MSE (the square loss's empirical risk)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernreg.losses.task import Task, register_task


class Regression(Task):
    name = "regression"
    title = "regression"
    # a classification dataset's ±1 codes may be regressed on too (RMSE of the output)
    dataset_tasks = ("regression", "classification")
    default_for = ("regression",)
    measures = ("rmse", "mse")
    default_measure = "rmse"
    table_measures = ("rmse",)  # the MSE is the RMSE squared: a summary shows one

    def decode(self, f: Any, coding: Any = None) -> np.ndarray:
        return np.asarray(f, dtype=np.float64)


register_task(Regression())
