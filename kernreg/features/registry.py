"""The feature-map registry: a feature map is its class plus one :func:`register` call.

A :class:`FeatureMapSpec` names the map, its class, the kernel it approximates (a name of the
kernel registry) and its parameters with their JSON-schema fragments and defaults. A primal
solver builds its features with :func:`make_feature_map_for` and may use any map that serves the
experiment's kernel (:func:`serves`, :func:`feature_maps_for`): the map's
:attr:`~FeatureMapSpec.kernel`, or a kernel whose class specialises it (``matern32`` is the
``matern`` kernel with ν = 3/2). Parameters that the map shares with its kernel (``sigma``,
``nu``) take the kernel's values; its own (Fastfood's ``variant``) come from a config's
``features: {name: <map>, <parameter>: <value>}`` or the registered defaults.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kernreg.features.base import FeatureMap
from kernreg.kernels import Kernel, get_kernel_spec, kernel_names
from kernreg.registry import Registry

__all__ = ["FeatureMapSpec", "feature_map_names", "feature_map_problem", "feature_maps_for",
           "get_feature_map_spec", "make_feature_map", "make_feature_map_for", "register",
           "serves", "split_features", "unregister"]

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_FEATURE_MAPS: Registry[FeatureMapSpec] = Registry("feature map", lambda spec: spec.name)


@dataclass(frozen=True)
class FeatureMapSpec:
    """What the rest of kernreg knows about a feature map.

    Attributes
    ----------
    name : str
        Name used by :func:`make_feature_map` and in configs (``features:`` of an ``rf``
        entry); lower case, letters, digits and ``_``.
    feature_map : type of FeatureMap
        The class; built as ``feature_map(n_components, random_state=..., **parameters)``.
    kernel : str
        The registered kernel whose values the features' products approximate.
    schema : mapping of str to dict
        JSON-schema fragment of each parameter besides ``n_components`` and ``random_state``.
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
        """The map's parameters besides ``n_components`` and ``random_state``."""
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
    if spec.kernel not in kernel_names():
        raise ValueError(f"feature map {spec.name!r}: kernel must be one of "
                         f"{sorted(kernel_names())}, got {spec.kernel!r}")
    return _FEATURE_MAPS.register(spec)


def unregister(name: str) -> None:
    """Remove a feature map (tests' toys; a plugin unloading); nothing if it is not
    registered."""
    _FEATURE_MAPS.unregister(name, missing_ok=True)


#: The registered names, in registration order; the spec of a registered map (else a
#: ``ValueError`` naming the registered ones).
feature_map_names, get_feature_map_spec = _FEATURE_MAPS.names, _FEATURE_MAPS.get


def serves(name: str, kernel: str) -> bool:
    """Whether the registered map ``name`` approximates the registered kernel ``kernel``: the
    map's own kernel, or one whose class specialises it (``matern12/32/52`` fix the ν of
    ``matern``), whose parameter values the map then reads off the kernel."""
    own = get_kernel_spec(get_feature_map_spec(name).kernel).kernel
    return issubclass(get_kernel_spec(kernel).kernel, own)


def feature_maps_for(kernel: str) -> list[str]:
    """Names of the registered maps that approximate ``kernel`` (:func:`serves`)."""
    return [name for name in feature_map_names() if serves(name, kernel)]


def split_features(features: Any) -> tuple[str, dict[str, Any]]:
    """The map's name and own parameters from a ``features`` value: a registered name, or a
    mapping ``{name: <map>, <parameter>: <value>, ...}`` (Fastfood FFT:
    ``{name: fastfood, variant: fft}``).

    Parameters the map shares with its kernel (``sigma``, ``nu``) are not taken here: they are
    the kernel's.

    Raises
    ------
    ValueError
        Naming ``features`` or ``features.<key>``: an unknown map, a mapping without ``name``,
        a key the map does not take or one that belongs to the kernel.
    """
    if isinstance(features, Mapping):
        if "name" not in features:
            raise ValueError("features: a mapping needs name: <a registered feature map>, one "
                             f"of {feature_map_names()}")
        name = features["name"]
        params = {k: v for k, v in features.items() if k != "name"}
        where = "features.name"
    else:
        name, params, where = features, {}, "features"
    if name not in _FEATURE_MAPS:
        raise ValueError(f"{where} must be one of {feature_map_names()}, got {name!r}")
    spec = _FEATURE_MAPS.get(name)
    own = [p for p in spec.parameters if p not in spec.kernel_parameters]
    for key in params:
        if key in spec.kernel_parameters:
            raise ValueError(f"features.{key}: {key} of {name} is a parameter of the "
                             f"{spec.kernel} kernel and takes the kernel's value; set it in "
                             f"the kernel: section (ν fixed: matern12, matern32, matern52)")
        if key not in own:
            raise ValueError(f"features.{key}: {name} takes no parameter {key!r}; its own "
                             f"parameters: {own or 'none'}")
    return name, params


def feature_map_problem(features: Any, kernel: str) -> str | None:
    """Why ``features`` (a name or a mapping, :func:`split_features`) cannot stand for the
    registered ``kernel``; None when it can."""
    try:
        name, _ = split_features(features)
    except ValueError as exc:
        return str(exc)
    if serves(name, kernel):
        return None
    approximated = _FEATURE_MAPS.get(name).kernel
    return (f"features: {name!r} approximates the {approximated} kernel, not {kernel}; "
            f"feature maps of the {kernel} kernel: {feature_maps_for(kernel) or 'none'}")


def make_feature_map_for(features: Any, kernel: Kernel, n_components: int, *,
                         random_state: Any = None) -> FeatureMap:
    """The map named by ``features`` for the built ``kernel`` (not drawn yet).

    Parameters shared with the kernel take the kernel's values (read off the kernel object:
    ``matern32`` gives ν = 1.5), the map's own ones the entry's values or the registered
    defaults.

    Parameters
    ----------
    features : str or mapping
        A registered name or ``{name: <map>, <own parameter>: <value>, ...}``.
    kernel : Kernel
        The kernel to approximate; its registered class must be the map's kernel or a
        subclass of it.
    n_components : int
        Number of features ``D``.
    random_state : None, int or numpy.random.Generator

    Raises
    ------
    ValueError
        Naming ``features`` (or ``features.<key>``) when the map does not serve the kernel or
        a parameter is refused.
    """
    name, params = split_features(features)
    spec = _FEATURE_MAPS.get(name)
    if not isinstance(kernel, get_kernel_spec(spec.kernel).kernel):
        raise ValueError(f"features: {name!r} approximates the {spec.kernel} kernel, not "
                         f"{getattr(kernel, 'name', type(kernel).__name__)}")
    shared = {p: getattr(kernel, p) for p in spec.kernel_parameters}
    try:
        return make_feature_map(name, n_components, random_state=random_state, **shared,
                                **params)
    except ValueError as exc:
        raise ValueError(f"features ({name}): {exc}") from None


def make_feature_map(name: str, n_components: int, *, random_state: Any = None,
                     **params: Any) -> FeatureMap:
    """Build a registered feature map by name (parameters not drawn yet: call ``draw(d)``).

    Parameters
    ----------
    name : str
        One of :func:`feature_map_names`.
    n_components : int
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
    return spec.feature_map(n_components, random_state=random_state, **kwargs)
