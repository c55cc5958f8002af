"""The device of a run (``device:``, ``--device``): built from the config, checked before
anything is written.

``cpu`` is numpy on the host, every estimator's default. On ``torch`` (PyTorch on the CPU) or
``cuda[:N]`` the algorithms whose estimator takes a ``device`` run there
(:func:`kernreg.config.takes_device`); any other algorithm of the run is refused, as is a
device this machine does not have. The device's memory budget is ``budget.gpu_memory_gb``,
else, on ``torch`` (whose arrays are in host memory), the run's host budget
(:class:`~kernreg.backend.MemoryBudget`), else a fraction of the GPU's free memory when asked
(:meth:`~kernreg.backend.Device.memory_budget`).
"""

from __future__ import annotations

from kernreg.backend import CPU, Device, MemoryBudget, get_device
from kernreg.config import Algorithm, Experiment, device_algorithms, make_estimator, takes_device
from kernreg.config.task import experiment_task
from kernreg.errors import ConfigError

__all__ = ["check_device_support", "device_memory_bytes", "experiment_device", "run_memory"]


def run_memory(exp: Experiment) -> MemoryBudget:
    """The run's memory budget on this machine: its config's ``budget.memory_gb`` (capped by
    the machine's memory) and ``budget.gpu_memory_gb``."""
    return MemoryBudget.of_config(exp.budget)


def device_memory_bytes(exp: Experiment, memory: MemoryBudget | None = None) -> int | None:
    """The device memory a run's arrays may fill: ``budget.gpu_memory_gb``, else on ``torch``
    the host budget, else ``None`` (the GPU's free memory, when asked)."""
    memory = memory or run_memory(exp)
    if memory.device is not None:
        return memory.device
    if exp.device == "torch":
        return memory.host
    return None


def experiment_device(exp: Experiment, memory: MemoryBudget | None = None) -> Device:
    """The run's :class:`~kernreg.backend.Device` with its memory budget and TF32 setting.

    Raises
    ------
    ConfigError
        The device needs PyTorch, which is not installed, or a GPU this machine does not
        have (:func:`~kernreg.backend.get_device`'s message).
    """
    if exp.device == "cpu":
        return CPU
    try:
        return get_device(exp.device, memory_bytes=device_memory_bytes(exp, memory),
                          tf32=exp.tf32)
    except ValueError as exc:
        raise ConfigError(f"{exc}; run on device cpu (device: cpu, or --device cpu)") from None


def check_device_support(exp: Experiment, algorithms: tuple[Algorithm, ...],
                         device: Device) -> None:
    """Refuse, before anything is written, a run on a device other than ``cpu`` with an
    algorithm whose estimator takes no device, then each estimator's own objection to the
    device (a kernel without a device path, ``backend: dask``); and a GPU shared by the
    workers of ``local:N`` without ``budget.gpu_memory_gb`` to split its memory.

    Raises
    ------
    ConfigError
        One line naming the algorithms (labels) and the device.
    """
    if device.is_numpy:
        return
    if experiment_task(exp.task, exp.dataset).name == "multiclass":
        raise ConfigError(f"{exp.name}: a multiclass task fits one output per class, on the "
                          f"cpu (device {device.name!r} takes one output): run it with "
                          f"device: cpu")
    scheduler = exp.execution["scheduler"]
    workers = int(scheduler.split(":", 1)[1]) if scheduler.startswith("local:") else 1
    if device.is_gpu and workers > 1 and exp.budget.get("gpu_memory_gb") is None:
        # each worker would plan against the same share of the one GPU's free memory
        raise ConfigError(
            f"{exp.name}: scheduler {scheduler} starts {workers} workers on this machine, which "
            f"share its GPU: give each worker its share with budget.gpu_memory_gb (at most "
            f"1/{workers} of the GPU's memory), or run with scheduler local")
    refused = [f"{a.label} ({a.name})" if a.label != a.name else a.label
               for a in algorithms if not takes_device(a.name)]
    if refused:
        raise ConfigError(
            f"{exp.name}: {', '.join(refused)} cannot run on device {device.name!r} (its "
            f"estimator takes no device); on a device run only "
            f"{', '.join(device_algorithms()) or 'none'}: run the others with device: cpu")
    for algo in algorithms:
        try:
            make_estimator(algo, exp, random_state=0, device=device).check_params()
        except ValueError as exc:
            raise ConfigError(f"{exp.name}: {algo.label} on device {device.name!r}: {exc}"
                              ) from None
