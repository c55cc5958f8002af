"""Where arrays live: the numpy host path or PyTorch arrays (a GPU, or torch on the CPU).

:mod:`kernreg.backend.device` names a device and moves arrays to and from it;
:mod:`kernreg.backend.linalg` holds the few operations the Python array API standard lacks
(Cholesky, triangular solves, the symmetric eigendecomposition) for numpy and torch alike. The
rest of kernreg writes device code once, against the array namespace
(``array_api_compat.array_namespace``). PyTorch is imported only when a device other than
``cpu`` is asked for. :mod:`kernreg.backend.memory` holds the one memory budget of a run.
"""

from kernreg.backend.device import CPU, DEVICE_NAMES, Device, get_device
from kernreg.backend.memory import GIB, MEMORY_FRACTION, MemoryBudget, gib, in_gib

__all__ = ["CPU", "DEVICE_NAMES", "GIB", "MEMORY_FRACTION", "Device", "MemoryBudget",
           "get_device", "gib", "in_gib"]
