"""The memory a run may fill: one budget, decided once from the config and the machine.

A config's ``budget.memory_gb`` says what its author planned for; the machine running it may
have less. The host budget is the smaller of the two: the config's bytes and
:data:`MEMORY_FRACTION` of the machine's physical memory — so a config written for a 24 GiB
host is refused on a 16 GB laptop by the preflight (naming both numbers), instead of passing
the check and then swapping. The same fraction is what kernreg fills of the memory available
now (a solver's kernel arrays without a budget) and of a GPU's free memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import psutil

__all__ = ["GIB", "MEMORY_FRACTION", "MemoryBudget", "available_memory", "gib", "in_gib"]

#: Bytes in a GiB (``budget.memory_gb`` counts GiB).
GIB = 2**30
#: The share of a memory kernreg plans to fill when nothing else says how much: of the host's
#: physical memory (the cap of the run's budget), of the memory available now, of a GPU's
#: free memory. The rest is left to the operating system, the interpreter and other processes.
MEMORY_FRACTION = 0.9


def gib(value: float) -> int:
    """``value`` GiB in bytes."""
    return round(value * GIB)


def in_gib(n_bytes: float) -> float:
    """``n_bytes`` in GiB."""
    return n_bytes / GIB


def available_memory() -> int:
    """Bytes of host memory available now (what the operating system could give without
    swapping)."""
    return int(psutil.virtual_memory().available)


@dataclass(frozen=True)
class MemoryBudget:
    """The memory a run may fill.

    Parameters
    ----------
    configured
        Bytes the config allows the host (``budget.memory_gb``).
    physical
        This machine's physical memory, bytes.
    device
        Bytes the config allows a GPU (``budget.gpu_memory_gb``); ``None``:
        :data:`MEMORY_FRACTION` of its free memory, asked when a fit plans.
    """

    configured: int
    physical: int
    device: int | None = None

    @classmethod
    def of(cls, memory_gb: float, gpu_memory_gb: float | None = None) -> MemoryBudget:
        """The budget of a config's ``memory_gb`` (and ``gpu_memory_gb``) on this machine."""
        return cls(gib(memory_gb), int(psutil.virtual_memory().total),
                   None if gpu_memory_gb is None else gib(gpu_memory_gb))

    @classmethod
    def of_config(cls, budget: Mapping[str, Any]) -> MemoryBudget:
        """The budget of a config's ``budget:`` section (``memory_gb``, and ``gpu_memory_gb``
        where given) on this machine."""
        return cls.of(budget["memory_gb"], budget.get("gpu_memory_gb"))

    @property
    def machine_cap(self) -> int:
        """:data:`MEMORY_FRACTION` of the machine's physical memory."""
        return int(MEMORY_FRACTION * self.physical)

    @property
    def host(self) -> int:
        """Bytes the run may fill on the host: the smaller of the config's and the cap."""
        return min(self.configured, self.machine_cap)

    def describe(self) -> str:
        """The host budget with where it comes from, both numbers named:
        ``20 GiB (budget.memory_gb; 90% of this machine's 23.5 GiB is 21.2 GiB)``."""
        machine = (f"{MEMORY_FRACTION:.0%} of this machine's {in_gib(self.physical):.3g} GiB "
                   f"is {in_gib(self.machine_cap):.3g} GiB")
        if self.configured <= self.machine_cap:
            return f"{in_gib(self.configured):.3g} GiB (budget.memory_gb; {machine})"
        return (f"{in_gib(self.machine_cap):.3g} GiB ({machine}, less than budget.memory_gb, "
                f"{in_gib(self.configured):.3g} GiB)")
