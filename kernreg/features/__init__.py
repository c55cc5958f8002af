"""Explicit feature maps whose products approximate a kernel, and their registry.

* :mod:`~kernreg.features.base` — the :class:`FeatureMap` base class (draw from a seed for
  input dimension ``d``, transform, prefix consistency);
* :mod:`~kernreg.features.registry` — :class:`FeatureMapSpec`, :func:`register`,
  :func:`make_feature_map`: a map is its class plus one registration, naming the kernel it
  approximates;
* one module per map (``fourier``: random Fourier features of the Gaussian kernel), each
  ending with its ``register(FeatureMapSpec(...))``.

To add a feature map: write ``kernreg/features/<name>.py`` (class + registration) and import it
below (docs/architecture.md, "How to add a feature map").
"""

from kernreg.features.base import FeatureMap

# each map's module registers it when imported, in this (the registry's) order
from kernreg.features.fourier import RandomFourierFeatures
from kernreg.features.registry import (
    FeatureMapSpec,
    feature_map_names,
    feature_maps_for,
    get_feature_map_spec,
    make_feature_map,
    register,
    unregister,
)

__all__ = [
    "FeatureMap",
    "FeatureMapSpec",
    "RandomFourierFeatures",
    "feature_map_names",
    "feature_maps_for",
    "get_feature_map_spec",
    "make_feature_map",
    "register",
    "unregister",
]
