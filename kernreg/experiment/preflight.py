"""Memory preflight: estimate each algorithm's peak memory before anything is computed.

The estimates count the large arrays each solver holds at its peak (each algorithm's
:class:`~kernreg.solvers.AlgorithmSpec` says which), plus the data and one kernel block; they are
meant to stop a run that cannot fit *before* the operating system kills it, and to say why.
On a device other than ``cpu`` (:mod:`kernreg.experiment.devices`) the algorithms without
Nyström centers (KOLS, KRLS, ES, ...) hold their whole working set there — the n × n kernel and
its eigenvectors — and are checked against the device's budget too
(:func:`check_device_memory`), and the host's estimate keeps their data only; the Nyström
algorithms plan their ``K_nm`` within the device's memory, re-evaluating it there block by
block when it does not fit (their host estimate is kept as on ``cpu``: an upper bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from kernreg.backend import CPU, MEMORY_FRACTION, Device, MemoryBudget, in_gib
from kernreg.config import Algorithm, Experiment, expand_m, takes_device
from kernreg.errors import ConfigError, KernregError
from kernreg.grid import grid_values, is_grid
from kernreg.kernels import get_kernel_spec, make_kernel
from kernreg.solvers import MemoryProblem, get_algorithm_spec
from kernreg.solvers.blocks.holdout import centers_problem

_F64 = 8


class BudgetError(KernregError):
    """An algorithm's estimated peak memory exceeds the configured budget."""


@dataclass(frozen=True)
class Estimate:
    """Estimated peak bytes of one algorithm and what they consist of."""

    label: str
    peak_bytes: int
    parts: dict[str, int]

    def describe(self) -> str:
        parts = ", ".join(f"{k} {in_gib(v):.2f} GiB" for k, v in self.parts.items())
        return f"{self.label}: ~{in_gib(self.peak_bytes):.1f} GiB ({parts})"


def estimate(algo: Algorithm, n_fit: int, n_val: int, n_test: int, d: int,
             block_bytes: int, memory_limit: int, dtype: str = "float64",
             device: Device = CPU, outputs: int = 1) -> Estimate:
    """Peak-memory estimate of ``algo`` on ``n_fit`` training and ``n_val`` validation rows
    (of ``outputs`` target columns): the data, one kernel block, and the algorithm's own
    arrays (its spec's estimate). On a
    device other than ``cpu`` an algorithm without Nyström centers that runs there holds its
    kernel arrays on the device (:func:`check_device_memory`): the host keeps the data."""
    parts = {"data": (n_fit + n_val + n_test) * d * _F64 * 2, "kernel block": block_bytes}
    spec = get_algorithm_spec(algo.name)
    if not device.is_numpy and not spec.takes_centers and takes_device(algo.name):
        return Estimate(algo.label, parts["data"], {"data": parts["data"]})
    if spec.memory is not None:
        problem = MemoryProblem(n_fit, n_val, n_test, d, block_bytes, memory_limit, dtype,
                                outputs)
        parts.update(spec.memory(algo.params, problem))
    return Estimate(algo.label, sum(parts.values()), parts)


def check_memory(exp: Experiment, algorithms: tuple[Algorithm, ...], n_fit: int, n_val: int,
                 n_test: int, d: int, device: Device = CPU, memory: MemoryBudget | None = None,
                 outputs: int = 1) -> list[Estimate]:
    """Host-memory estimates of ``algorithms`` on targets of ``outputs`` columns (those
    holding their kernel arrays on ``device`` count the data only); raise
    :class:`BudgetError` if one exceeds the run's host budget (``memory``: by default
    ``budget.memory_gb`` capped by this machine's memory)."""
    memory = memory or MemoryBudget.of_config(exp.budget)
    budget = memory.host
    block = int(exp.budget["block_mb"] * 2**20)
    estimates = [estimate(a, n_fit, n_val, n_test, d, block, budget,
                          exp.dataset["dtype"], device, outputs) for a in algorithms]
    over = [e for e in estimates if e.peak_bytes > budget]
    if over:
        lines = "\n  ".join(e.describe() for e in over)
        raise BudgetError(
            f"{exp.name}: estimated peak memory exceeds the budget of {memory.describe()}:"
            f"\n  {lines}\nNothing was run. Raise budget.memory_gb only if the machine has the "
            "memory."
        )
    return estimates


def check_device_memory(exp: Experiment, algorithms: tuple[Algorithm, ...], n_fit: int,
                        n_val: int, n_test: int, d: int, device: Device) -> list[Estimate]:
    """Device-memory estimates of the algorithms that hold their whole working set on
    ``device`` (those without Nyström centers: their spec's estimate plus one kernel block);
    raise :class:`BudgetError` naming each one over the device's budget
    (``budget.gpu_memory_gb``, else :meth:`~kernreg.backend.Device.memory_budget`). Nothing
    to check on ``cpu``; the Nyström algorithms size their ``K_nm`` plan within the device's
    memory themselves (row blocks streamed from the host when it does not fit)."""
    if device.is_numpy:
        return []
    budget = device.memory_budget()
    # a kernel block, never larger than the whole kernel between these rows
    block = min(int(exp.budget["block_mb"] * 2**20), max(n_fit, n_val) * n_fit * _F64)
    estimates = []
    for algo in algorithms:
        spec = get_algorithm_spec(algo.name)
        if spec.takes_centers or spec.memory is None:
            continue
        problem = MemoryProblem(n_fit, n_val, n_test, d, block, budget, exp.dataset["dtype"],
                                device=device.name)
        parts = {"kernel block": block, **spec.memory(algo.params, problem)}
        estimates.append(Estimate(algo.label, sum(parts.values()), parts))
    over = [e for e in estimates if e.peak_bytes > budget]
    if over:
        source = ("budget.gpu_memory_gb" if exp.budget.get("gpu_memory_gb") is not None else
                  "the host budget" if device.name == "torch" else
                  f"{MEMORY_FRACTION:.0%} of the device's free memory")
        lines = "\n  ".join(f"{e.label}: needs {e.peak_bytes:,} bytes (" + ", ".join(
            f"{k} {v:,}" for k, v in e.parts.items()) + ")" for e in over)
        raise BudgetError(
            f"{exp.name}: estimated peak memory on device {device.name} exceeds its budget of "
            f"{budget:,} bytes ({in_gib(budget):.3g} GiB, {source}):\n  {lines}\n"
            "Nothing was run. These algorithms hold the n × n kernel on the device: run them "
            "with device: cpu, on fewer rows (dataset.n_train), or where the device has the "
            "memory."
        )
    return estimates


def _max_row_norm_sq(X: Any) -> float:
    """Largest squared row norm of ``X`` (dense or sparse), computed in float64."""
    if X.shape[0] == 0:
        return 0.0
    if sp.issparse(X):
        return float(np.max(np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64)))
    peak = 0.0
    for start in range(0, X.shape[0], 65536):  # blocks: bounded extra memory
        block = np.asarray(X[start:start + 65536], dtype=np.float64)
        peak = max(peak, float(np.max(np.einsum("ij,ij->i", block, block))))
    return peak


def _kernel_data_problems(exp: Experiment, X: Any, sigma: float | None) -> list[str]:
    """The configured kernel evaluated on two training rows: a kernel that cannot take these
    data (the periodic kernels on [0, 1] take one column) says so before any trial does."""
    name = exp.kernel["name"]
    params = {k: v for k, v in exp.kernel.items() if k not in ("name", "sigma")}
    try:
        # only whether the kernel takes the data is asked here: a σ that overflows is the
        # scale check's to report (check_numerics), without numpy's warning beside it
        with np.errstate(over="ignore", invalid="ignore"):
            make_kernel(name, sigma, dtype=exp.dataset["dtype"], **params)(X[:2])
    except ValueError as err:
        return [f"kernel.name: the {name} kernel cannot take these data: {err}"]
    return []


def check_numerics(exp: Experiment, algorithms: tuple[Algorithm, ...], X_train: Any,
                   X_test: Any, n_fit: int) -> None:
    """Refuse, before anything is written, what the data make impossible: an m above the rows
    left for fitting by the hold-out split (its own rounding: ``n_fit``), a σ so small that
    the kernel's scaled products ``‖x‖²/σ²`` overflow the data's dtype (then NaN reaches every
    factorization), and data the kernel cannot take (a periodic kernel on several columns).

    Raises
    ------
    ConfigError
        Naming the key, the value and the bound.
    """
    problems = []
    for algo in algorithms:
        for m in expand_m(algo.params.get("m")) or []:
            problem = centers_problem(m, n_fit)
            if problem:
                problems.append(f"{algo.label}: m = {problem}")
    sigma = exp.kernel.get("sigma")
    if is_grid(sigma):  # its smallest σ overflows first
        sigma = float(grid_values(sigma).min())
    if sigma is not None and "sigma" in get_kernel_spec(exp.kernel["name"]).parameters:
        r2 = max(_max_row_norm_sq(X_train), _max_row_norm_sq(X_test))
        largest = float(np.finfo(exp.dataset["dtype"]).max) / 16
        # Gaussian: x/σ² and ‖x‖²/(2σ²) in the data's dtype; Laplacian: ‖x − y‖/σ ≤ 2R/σ
        scale = max(r2, np.sqrt(r2)) / sigma**2
        if not np.isfinite(scale) or scale > largest:
            smallest = np.sqrt(max(r2, np.sqrt(r2)) / largest)
            problems.append(f"kernel.sigma: {sigma!r} is too small for these data in "
                            f"{exp.dataset['dtype']} (‖x‖²/σ² = {scale:.3g} overflows); σ must "
                            f"be at least {smallest:.3g} here")
    problems += _kernel_data_problems(exp, X_train, sigma)
    if problems:
        where = f"{exp.path}: " if exp.path else ""
        raise ConfigError(where + "cannot run on these data:\n  " + "\n  ".join(problems))
