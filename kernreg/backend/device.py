"""Devices: ``cpu`` (numpy, the default), ``torch`` (PyTorch on the CPU) and ``cuda[:N]``.

A :class:`Device` moves host arrays to itself and back and says how much memory it has; the
solvers do their heavy products there and keep their ``m``-sized work on the host. ``torch``
runs the device code on the CPU build of PyTorch: it is how the tests check, on any machine,
that the code a GPU runs equals the numpy path, and a choice of its own where PyTorch's
threaded elementwise kernels beat numpy's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernreg.backend.memory import MEMORY_FRACTION, available_memory

__all__ = ["CPU", "DEVICE_NAMES", "Device", "get_device"]

#: The device names a config's ``device:`` and ``--device`` take (``cuda:N``: GPU N).
DEVICE_NAMES = ("cpu", "torch", "cuda")
_CUDA = re.compile(r"cuda(:\d+)?")


@dataclass(frozen=True)
class Device:
    """Where a solver's heavy arrays live.

    Attributes
    ----------
    name : str
        ``"cpu"`` (numpy), ``"torch"`` (PyTorch on the CPU) or ``"cuda"``/``"cuda:N"``.
    memory_bytes : int or None
        The device memory kernreg may fill (``budget.gpu_memory_gb``); ``None``: the fraction
        :data:`~kernreg.backend.memory.MEMORY_FRACTION` of what is free when asked
        (:meth:`memory_budget`).
    tf32 : bool
        Allow TensorFloat-32 in float32 products on a GPU (off unless a config asks: it
        keeps 10 mantissa bits, not 23).
    """

    name: str = "cpu"
    memory_bytes: int | None = None
    tf32: bool = False
    _torch: Any = field(default=None, repr=False, compare=False)

    @property
    def is_numpy(self) -> bool:
        """True for the numpy host path (``cpu``)."""
        return self.name == "cpu"

    @property
    def is_gpu(self) -> bool:
        return self.name.startswith("cuda")

    @property
    def torch(self) -> Any:
        """The ``torch`` module (``ValueError`` on the numpy device)."""
        if self._torch is None:
            raise ValueError("the cpu device has no torch arrays")
        return self._torch

    @property
    def torch_device(self) -> Any:
        return self.torch.device("cpu" if self.name == "torch" else self.name)

    @property
    def xp(self) -> Any:
        """The array namespace of this device's arrays (array_api_compat's wrapper)."""
        if self.is_numpy:
            import array_api_compat.numpy as xp
        else:
            import array_api_compat.torch as xp
        return xp

    def asarray(self, a: Any, dtype: Any = np.float64) -> Any:
        """``a`` (a host array, or already this device's) on this device in ``dtype``."""
        if self.is_numpy:
            return np.asarray(a, dtype=dtype)
        torch, tdtype = self.torch, self.torch_dtype(dtype)
        if isinstance(a, torch.Tensor):
            return a.to(device=self.torch_device, dtype=tdtype)
        host = np.ascontiguousarray(a, dtype=np.dtype(dtype))
        return torch.from_numpy(host).to(self.torch_device)

    def to_numpy(self, a: Any) -> np.ndarray:
        """A host float64 copy (or view, on the CPU) of this device's array ``a``."""
        if isinstance(a, np.ndarray):
            return np.asarray(a, dtype=np.float64)
        return a.detach().to(device="cpu", dtype=self.torch.float64).numpy()

    def zeros(self, shape: tuple[int, ...], dtype: Any = np.float64) -> Any:
        if self.is_numpy:
            return np.zeros(shape, dtype=dtype)
        return self.torch.zeros(shape, dtype=self.torch_dtype(dtype), device=self.torch_device)

    def torch_dtype(self, dtype: Any) -> Any:
        return self.torch.float64 if np.dtype(dtype) == np.float64 else self.torch.float32

    def memory_budget(self) -> int:
        """Bytes of device memory kernreg's arrays may take: ``memory_bytes``, else
        :data:`~kernreg.backend.memory.MEMORY_FRACTION` of the device's free memory now,
        counting what PyTorch's allocator holds unused (the host's available memory for
        ``cpu`` and ``torch``)."""
        if self.memory_bytes is not None:
            return int(self.memory_bytes)
        if self.is_gpu:
            free, _ = self.torch.cuda.mem_get_info(self.torch_device)
            # blocks torch's caching allocator holds unused are free to kernreg's next arrays
            cached = self.torch.cuda.memory_reserved(self.torch_device) \
                - self.torch.cuda.memory_allocated(self.torch_device)
            return int(MEMORY_FRACTION * (free + cached))
        return int(MEMORY_FRACTION * available_memory())

    def synchronize(self) -> None:
        """Wait for the device's queued work (timings of GPU code need it)."""
        if self.is_gpu:
            self.torch.cuda.synchronize(self.torch_device)

    def __deepcopy__(self, memo: dict) -> Device:
        return self  # immutable (scikit-learn's clone deep-copies parameters)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # sent to a Dask worker by name: the worker resolves its own torch and GPU
        return _by_name, (self.name, self.memory_bytes, self.tf32)

    def describe(self) -> str:
        """The device in words, for records: ``cpu``, ``torch 2.13.0 (cpu)`` or the GPU's
        name."""
        if self.is_numpy:
            return "cpu"
        if self.is_gpu:
            return f"{self.torch.cuda.get_device_name(self.torch_device)} (torch " \
                   f"{self.torch.__version__})"
        return f"torch {self.torch.__version__} (cpu)"


def _by_name(name: str, memory_bytes: int | None, tf32: bool) -> Device:
    return get_device(name, memory_bytes=memory_bytes, tf32=tf32)


#: The numpy host device, every estimator's default.
CPU = Device()


def get_device(spec: Any = "cpu", *, memory_bytes: int | None = None,
               tf32: bool = False) -> Device:
    """The device named ``spec`` (a name of :data:`DEVICE_NAMES`, ``cuda:N`` or a
    :class:`Device`), checked: PyTorch importable for ``torch``/``cuda``, a GPU present for
    ``cuda``.

    Raises
    ------
    ValueError
        Naming ``device`` and what is missing.
    """
    if isinstance(spec, Device):
        return spec
    if not isinstance(spec, str) or not (spec in ("cpu", "torch") or _CUDA.fullmatch(spec)):
        raise ValueError(f"device must be one of cpu, torch, cuda or cuda:N, got {spec!r}")
    if spec == "cpu":
        return Device("cpu", memory_bytes, tf32) if memory_bytes or tf32 else CPU
    try:
        import torch
    except ImportError:
        raise ValueError(f"device {spec!r} needs PyTorch (pip install torch), which is not "
                         "installed") from None
    except OSError as exc:  # installed, but a library it links (a CUDA build's) is missing
        raise ValueError(f"device {spec!r}: PyTorch is installed but does not load ({exc}); "
                         f"install the build for this machine (docs/gpu.md)") from None
    if spec.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(f"device {spec!r}: no CUDA GPU is visible to this PyTorch "
                             f"({torch.__version__})")
        index = int(spec.split(":")[1]) if ":" in spec else 0
        if index >= torch.cuda.device_count():
            raise ValueError(f"device {spec!r}: this machine has "
                             f"{torch.cuda.device_count()} GPU(s)")
        # TensorFloat-32 only when asked: float32 products keep their 23 mantissa bits
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
    return Device(spec, memory_bytes, tf32, torch)
