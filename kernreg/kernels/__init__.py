"""Kernels evaluated block-wise under a memory budget, and their registry.

* :mod:`~kernreg.kernels.base` — the :class:`Kernel` base class with the block machinery and
  the fused products (``K_nmᵀK_nm``, ``K_nm v``, ...), :class:`DistanceKernel`;
* :mod:`~kernreg.kernels.registry` — :class:`KernelSpec`, :func:`register`,
  :func:`make_kernel`: a kernel is its class plus one registration;
* :mod:`~kernreg.kernels.compiled` — the compiled layer (numba, with a numpy fallback): the
  fused distance/exp pass of the distance kernels' blocks and the one-read gradient pass
  :func:`normal_pass` (``Kᵀ(Kβ − y)`` for several right-hand sides);
* one module per kernel (``gaussian``, ``laplacian``, ``linear``, ``matern``, ``spline``: the
  periodic kernels on [0, 1]), each ending with its ``register(KernelSpec(...))``.

To add a kernel: write ``kernreg/kernels/<name>.py`` (class + registration) and import it
below (docs/architecture.md, "How to add a kernel").
"""

from kernreg.kernels.base import DEFAULT_MEMORY_BUDGET, DistanceKernel, Kernel
from kernreg.kernels.compiled import active_path, jit_enabled, normal_pass, use_jit

# each kernel module registers its kernel when imported, in this (the registry's) order
from kernreg.kernels.gaussian import GaussianKernel
from kernreg.kernels.laplacian import LaplacianKernel
from kernreg.kernels.linear import LinearKernel
from kernreg.kernels.matern import (
    Matern12Kernel,
    Matern32Kernel,
    Matern52Kernel,
    MaternKernel,
)
from kernreg.kernels.registry import (
    KERNELS,
    KernelSpec,
    get_kernel_spec,
    kernel_names,
    make_kernel,
    register,
    unregister,
)
from kernreg.kernels.spline import PeriodicExponentialKernel, PeriodicSplineKernel

__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "KERNELS",
    "DistanceKernel",
    "GaussianKernel",
    "Kernel",
    "KernelSpec",
    "LaplacianKernel",
    "LinearKernel",
    "Matern12Kernel",
    "Matern32Kernel",
    "Matern52Kernel",
    "MaternKernel",
    "PeriodicExponentialKernel",
    "PeriodicSplineKernel",
    "active_path",
    "get_kernel_spec",
    "jit_enabled",
    "kernel_names",
    "make_kernel",
    "normal_pass",
    "register",
    "unregister",
    "use_jit",
]
