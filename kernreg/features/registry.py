"""The feature-map registry: a feature map is its class plus one :func:`register` call.

A :class:`FeatureMapSpec` names the map, its class, the kernel it approximates (a name of the
kernel registry) and its parameters with their JSON-schema fragments and defaults. A primal
solver builds its features with :func:`make_feature_map` and may use any map whose
:attr:`~FeatureMapSpec.kernel` is the experiment's kernel (:func:`feature_maps_for`).
Parameters that the map shares with its kernel (``sigma``) take the kernel's values.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kernreg.features.base import FeatureMap
from kernreg.kernels import get_kernel_spec, kernel_names

__all__ = [
    "FeatureMapSpec",
    "feature_map_names",
    "feature_maps_for",
    "get_feature_map_spec",
    "make_feature_map",
    "register",
    "unregister",
]

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_SPECS: dict[str, FeatureMapSpec] = {}


@dataclass(frozen=True)
class FeatureMapSpec:
    """What the rest of kernreg knows about a feature map.

    Attributes
    ----------
    name : str
        Name used by :func:`make_feature_map` and in configs (``features:`` of an ``rf``
        entry); lower case, letters, digits and ``_``.
    feature_map : type of FeatureMap
        The class; built as ``feature_map(n_features, random_state=..., **parameters)``.
    kernel : str
        The registered kernel whose values the features' products approximate.
    schema : mapping of str to dict
        JSON-schema fragment of each parameter besides ``n_features`` and ``random_state``.
    defaults : mapping of str to object
        Defaults of parameters that may be left out.
    summary : str
        One line for the docs.
    """

    name: str
    feature_map: type[FeatureMap]
    kernel: str
    schema: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ValueError(f"feature map name must match {_NAME.pattern}, got {self.name!r}")
        if not (isinstance(self.feature_map, type) and issubclass(self.feature_map, FeatureMap)):
            raise ValueError(f"feature map {self.name!r}: feature_map must be a FeatureMap "
                             f"subclass, got {self.feature_map!r}")
        extra = sorted(set(self.defaults) - set(self.schema))
        if extra:
            raise ValueError(f"feature map {self.name!r}: defaults for parameters without a "
                             f"schema: {extra}")
        accepted = inspect.signature(self.feature_map).parameters
        missing = [p for p in self.schema if p not in accepted]
        if missing:
            raise ValueError(f"feature map {self.name!r}: {self.feature_map.__name__} does not "
                             f"accept the parameters {missing}")

    @property
    def parameters(self) -> tuple[str, ...]:
        """The map's parameters besides ``n_features`` and ``random_state``."""
        return tuple(self.schema)

    @property
    def kernel_parameters(self) -> tuple[str, ...]:
        """The parameters shared with its kernel (they take the kernel's values)."""
        return tuple(p for p in self.schema if p in get_kernel_spec(self.kernel).parameters)

    def config_schema(self) -> dict[str, Any]:
        """JSON Schema of a mapping ``{name, <parameters>}`` naming this map."""
        return {
            "type": "object",
            "additionalProperties": False,
            "properties": {"name": {"const": self.name}, **self.schema},
        }


def register(spec: FeatureMapSpec) -> FeatureMapSpec:
    """Add ``spec`` to the registry (a name may be registered once; its kernel must be
    registered)."""
    if spec.name in _SPECS:
        raise ValueError(f"feature map {spec.name!r} is already registered")
    if spec.kernel not in kernel_names():
        raise ValueError(f"feature map {spec.name!r}: kernel must be one of "
                         f"{sorted(kernel_names())}, got {spec.kernel!r}")
    _SPECS[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove a feature map (tests' toys; a plugin unloading)."""
    _SPECS.pop(name, None)


def feature_map_names() -> list[str]:
    """Registered feature-map names, in registration order."""
    return list(_SPECS)


def feature_maps_for(kernel: str) -> list[str]:
    """Names of the registered maps that approximate ``kernel``."""
    return [name for name, spec in _SPECS.items() if spec.kernel == kernel]


def get_feature_map_spec(name: Any) -> FeatureMapSpec:
    """The spec of a registered feature map.

    Raises
    ------
    ValueError
        If ``name`` is not registered (the message lists the registered names).
    """
    if not isinstance(name, str) or name not in _SPECS:
        raise ValueError(f"feature map must be one of {sorted(_SPECS)}, got {name!r}")
    return _SPECS[name]


def make_feature_map(name: str, n_features: int, *, random_state: Any = None,
                     **params: Any) -> FeatureMap:
    """Build a registered feature map by name (parameters not drawn yet: call ``draw(d)``).

    Parameters
    ----------
    name : str
        One of :func:`feature_map_names`.
    n_features : int
        Number of features ``D``.
    random_state : None, int or numpy.random.Generator
    **params
        The map's parameters; those left out take the registered defaults.

    Raises
    ------
    ValueError
        If ``name`` is unknown, a parameter is not one of the map's or is missing, or a value
        is invalid (the map's own checks).
    """
    spec = get_feature_map_spec(name)
    unknown = sorted(set(params) - set(spec.parameters))
    if unknown:
        raise ValueError(f"feature map {name!r} takes the parameters {list(spec.parameters)}, "
                         f"got {unknown}")
    kwargs = {**spec.defaults, **params}
    missing = [p for p in spec.parameters if p not in kwargs]
    if missing:
        raise ValueError(f"feature map {name!r}: parameters {missing} are required")
    return spec.feature_map(n_features, random_state=random_state, **kwargs)
