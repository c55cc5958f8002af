"""The kernel registry: a kernel is its class plus one :func:`register` call.

A :class:`KernelSpec` names the kernel, its class and its parameters with their JSON-schema
fragments and defaults. Everything else derives from the registered specs: :func:`make_kernel`,
the ``kernel:`` section of the config schema (:meth:`KernelSpec.config_schema`), the names a
config may use. A kernel registered later (a plugin, a test's toy) is accepted like the
built-in ones.

``sigma`` is the bandwidth: without a registered default it comes from the dataset's paper σ
(the config loader fills it in), so a kernel that has one lists ``sigma`` in its schema and,
normally, no default for it.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kernreg.kernels.base import DEFAULT_MEMORY_BUDGET, Kernel
from kernreg.registry import Registry

__all__ = [
    "KERNELS",
    "POSITIVE",
    "KernelSpec",
    "get_kernel_spec",
    "kernel_names",
    "make_kernel",
    "register",
    "unregister",
]

#: Schema fragment of a positive number (a bandwidth, a scale).
POSITIVE: dict[str, Any] = {"type": "number", "exclusiveMinimum": 0}

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_KERNELS: Registry[KernelSpec] = Registry("kernel", lambda spec: spec.name)


@dataclass(frozen=True)
class KernelSpec:
    """What the rest of kernreg knows about a kernel.

    Attributes
    ----------
    name : str
        Name used in configs (``kernel: {name: ...}``) and by :func:`make_kernel`; lower case,
        letters, digits and ``_``.
    kernel : type of Kernel
        The class; it is built as ``kernel(**parameters, dtype=..., memory_budget=...)``.
    schema : mapping of str to dict
        JSON-schema fragment of each parameter (its keys are the kernel's parameters, in the
        order of the constructor's arguments).
    defaults : mapping of str to object
        Defaults of parameters a config may leave out (filled into the experiment, so the run's
        manifest records them). ``sigma`` without a default takes the dataset's paper σ; any
        other parameter without a default is required.
    summary : str
        One line for the docs and ``--help`` texts.
    """

    name: str
    kernel: type[Kernel]
    schema: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ValueError(f"kernel name must match {_NAME.pattern}, got {self.name!r}")
        if not (isinstance(self.kernel, type) and issubclass(self.kernel, Kernel)):
            raise ValueError(f"kernel {self.name!r}: kernel must be a Kernel subclass, got "
                             f"{self.kernel!r}")
        extra = sorted(set(self.defaults) - set(self.schema))
        if extra:
            raise ValueError(f"kernel {self.name!r}: defaults for parameters without a schema: "
                             f"{extra}")
        accepted = inspect.signature(self.kernel).parameters
        missing = [p for p in self.schema if p not in accepted]
        if missing:
            raise ValueError(f"kernel {self.name!r}: {self.kernel.__name__} does not accept "
                             f"the parameters {missing}")

    @property
    def parameters(self) -> tuple[str, ...]:
        """The kernel's parameters (the config keys besides ``name``)."""
        return tuple(self.schema)

    def config_schema(self) -> dict[str, Any]:
        """JSON Schema of a config's ``kernel:`` section naming this kernel."""
        return {
            "type": "object",
            "additionalProperties": False,
            "properties": {"name": {"const": self.name}, **self.schema},
        }


#: Add a kernel (a name once); the spec of a registered kernel (else a ``ValueError`` naming
#: the registered ones); the registered names, in registration order.
register, get_kernel_spec, kernel_names = _KERNELS.register, _KERNELS.get, _KERNELS.names


def unregister(name: str) -> None:
    """Remove a kernel (tests' toys; a plugin unloading); nothing if it is not registered."""
    _KERNELS.unregister(name, missing_ok=True)


def make_kernel(
    name: str,
    sigma: float | None = 1.0,
    *,
    dtype: Any = "float64",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    device: Any = "cpu",
    **params: Any,
) -> Kernel:
    """Build a registered kernel by name.

    Parameters
    ----------
    name : str
        One of :func:`kernel_names`.
    sigma : float or None, default 1.0
        Bandwidth, for kernels that have one; ignored by the others (e.g. ``linear``), so that
        every kernel can be built from the same arguments.
    dtype, memory_budget
        See :class:`~kernreg.kernels.base.Kernel`.
    device : str or Device, default "cpu"
        Where the fused products run (:meth:`~kernreg.kernels.base.Kernel.to`).
    **params
        The kernel's other parameters; those left out take the registered defaults.

    Raises
    ------
    ValueError
        If ``name`` is unknown (the message lists the registered names), a parameter is not one
        of the kernel's, or a value is invalid (the kernel's own checks).
    """
    spec = get_kernel_spec(name)
    unknown = sorted(set(params) - set(spec.parameters))
    if unknown:
        raise ValueError(f"kernel {name!r} takes the parameters {list(spec.parameters)}, got "
                         f"{unknown}")
    kwargs = {**spec.defaults, **params}
    if "sigma" in spec.parameters:
        kwargs["sigma"] = sigma
    missing = [p for p in spec.parameters if p not in kwargs]
    if missing:
        raise ValueError(f"kernel {name!r}: parameters {missing} are required")
    kernel = spec.kernel(**kwargs, dtype=dtype, memory_budget=memory_budget)
    return kernel if device == "cpu" else kernel.to(device)


class _KernelClasses(Mapping[str, type[Kernel]]):
    """Read-only, live view ``name → class`` of the registry (the former ``KERNELS`` dict)."""

    def __getitem__(self, name: str) -> type[Kernel]:
        return _KERNELS.as_mapping()[name].kernel

    def __iter__(self) -> Iterator[str]:
        return iter(_KERNELS.names())

    def __len__(self) -> int:
        return len(_KERNELS)

    def __repr__(self) -> str:
        return f"KERNELS({ {k: v.__name__ for k, v in self.items()} })"


#: Kernel classes by name (a live view of the registry).
KERNELS: Mapping[str, type[Kernel]] = _KernelClasses()
