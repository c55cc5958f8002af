"""Explicit feature maps whose products approximate a kernel, and their registry.

* :mod:`~kernreg.features.base` — the :class:`FeatureMap` base class (draw from a seed for
  input dimension ``d``, transform, prefix consistency);
* :mod:`~kernreg.features.registry` — :class:`FeatureMapSpec`, :func:`register`,
  :func:`make_feature_map`: a map is its class plus one registration, naming the kernel it
  approximates;
* one module per map (``fourier``: random Fourier features of the Gaussian and Matérn kernels;
  ``fastfood``: Fastfood, Walsh–Hadamard or FFT, Gaussian and Matérn), each
  ending with its ``register(FeatureMapSpec(...))``.

To add a feature map: write ``kernreg/features/<name>.py`` (class + registration) and import it
below (docs/architecture.md, "How to add a feature map").
"""

# each map's module registers it when imported, in this (the registry's) order: rff first
from kernreg.features.base import FeatureMap  # noqa: I001
from kernreg.features.fourier import MaternFourierFeatures, RandomFourierFeatures
from kernreg.features.fastfood import Fastfood, FastfoodMatern
from kernreg.features.registry import (
    FeatureMapSpec,
    feature_map_names,
    feature_map_problem,
    feature_maps_for,
    get_feature_map_spec,
    make_feature_map,
    make_feature_map_for,
    register,
    serves,
    split_features,
    unregister,
)

__all__ = [
    "Fastfood",
    "FastfoodMatern",
    "FeatureMap",
    "FeatureMapSpec",
    "MaternFourierFeatures",
    "RandomFourierFeatures",
    "feature_map_names",
    "feature_map_problem",
    "feature_maps_for",
    "get_feature_map_spec",
    "make_feature_map",
    "make_feature_map_for",
    "register",
    "serves",
    "split_features",
    "unregister",
]
