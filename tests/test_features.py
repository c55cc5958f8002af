"""Feature maps: the same random Fourier features as the rf algorithm, convergence of the
empirical kernel at the Monte-Carlo rate, prefix consistency, the registry and a toy map
registered at run time (random Fourier features of the Laplacian kernel)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from toy_feature_maps import LaplacianFourierFeatures

from kernreg.features import (
    FeatureMapSpec,
    RandomFourierFeatures,
    feature_map_names,
    feature_maps_for,
    get_feature_map_spec,
    make_feature_map,
    register,
    unregister,
)
from kernreg.kernels import make_kernel
from kernreg.kernels.registry import POSITIVE
from kernreg.solvers import get_algorithm

TOY = FeatureMapSpec(name="toy_laplace_rff", feature_map=LaplacianFourierFeatures,
                     kernel="laplacian", schema={"sigma": POSITIVE}, defaults={"sigma": 1.0},
                     summary="a toy")


@pytest.fixture
def toy() -> Iterator[FeatureMapSpec]:
    register(TOY)
    yield TOY
    unregister(TOY.name)


# ------------------------------------------------------------- same numbers as the rf algorithm
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("seed", [0, 12345, "generator"])
def test_rff_gives_the_rf_algorithms_features(sparse: bool, seed: Any) -> None:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(97, 6))
    if sparse:
        X = sp.random(97, 6, density=0.4, format="csr", random_state=4)
    y = rng.normal(size=97)
    D, sigma, budget = 40, 0.8, 8 * 40 * 13  # 13 rows per block

    def state() -> Any:
        return np.random.default_rng(99) if seed == "generator" else seed

    est = get_algorithm("rf")(n_components=D, sigma=sigma, random_state=state(), lam=1e-3,
                              memory_budget=budget, fit_intercept=False).fit(X, y)
    fmap = make_feature_map("rff", D, sigma=sigma, random_state=state()).draw(6)
    assert np.array_equal(est.frequencies_, fmap.frequencies_)
    assert np.array_equal(est.phases_, fmap.phases_)
    pred = np.concatenate([U @ est.coef_ for _, U in fmap.blocks(X, budget)])
    assert np.array_equal(est.predict(X), pred)  # the same features, bit for bit


# ------------------------------------------------------------- convergence to the kernel
def _ratios(name: str, kernel: str, sigma: float, *, map_sigma: float | None = None,
            levels: tuple[int, ...] = (16, 64, 256, 1024), seeds: int = 200
            ) -> np.ndarray:
    """``D · MSE(D) / v̄`` per level ``D``: the empirical kernel's mean squared error over the
    off-diagonal pairs of 40 points and ``seeds`` draws, times D, over its exact value.

    Each feature's product ``t = ψ(x)ψ(x') = cos(wᵀδ) + cos(wᵀ(x + x') + 2b)`` is unbiased for
    ``k(δ)`` with variance ``v = ½(1 + k(2δ)) − k(δ)² + ½``, so ``MSE(D) = v̄/D`` and the ratio
    is 1 at every D (a biased map's ratio grows like D)."""
    X = np.random.default_rng(0).normal(size=(40, 5)) * 0.5
    iu = np.triu_indices(40, 1)
    k = make_kernel(kernel, sigma)(X)[iu]
    k2 = make_kernel(kernel, sigma)(2 * X)[iu]  # k(2δ)
    v = np.mean(0.5 * (1 + k2) - k**2 + 0.5)
    ratios = np.zeros(len(levels))
    for s in range(seeds):
        for i, D in enumerate(levels):
            fmap = make_feature_map(name, D, sigma=map_sigma or sigma, random_state=s).draw(5)
            ratios[i] += D * np.mean((fmap.kernel(X)[iu] - k) ** 2) / v
    return ratios / seeds


def _check_monte_carlo_rate(ratios: np.ndarray, levels: tuple[int, ...]) -> None:
    # 200 draws give each ratio a standard error of ~0.025: ±0.12 is ~5 of them
    assert np.all(np.abs(ratios - 1) < 0.12), ratios
    rmse = np.sqrt(ratios / np.asarray(levels))
    slope = np.polyfit(np.log(levels), np.log(rmse), 1)[0]
    assert abs(slope + 0.5) < 0.03, slope  # error ∝ 1/√D


#: Four levels of D over a factor 64 for the rate's slope (a fifth, 4096, took three quarters
#: of the draws' time).
LEVELS = (16, 64, 256, 1024)


def test_rff_empirical_kernel_converges_at_the_monte_carlo_rate() -> None:
    _check_monte_carlo_rate(_ratios("rff", "gaussian", 0.9), LEVELS)


def test_the_rate_check_catches_a_wrong_bandwidth() -> None:
    """Features of σ·1.05 against the kernel of σ: a bias that does not shrink with D."""
    ratios = _ratios("rff", "gaussian", 0.9, map_sigma=0.945, levels=(1024, 4096), seeds=50)
    assert ratios[-1] > 3, ratios


def test_toy_map_registered_at_run_time_converges_to_its_kernel(toy: FeatureMapSpec) -> None:
    _check_monte_carlo_rate(_ratios(toy.name, "laplacian", 1.3), LEVELS)


# ------------------------------------------------------------- prefix consistency
@pytest.mark.parametrize("name", ["rff", "toy_laplace_rff"])
@pytest.mark.parametrize("seed", [7, "generator"])
def test_prefix_consistency(toy: FeatureMapSpec, name: str, seed: Any) -> None:
    X = np.random.default_rng(8).normal(size=(23, 3))

    def state() -> Any:
        return np.random.default_rng(42) if seed == "generator" else seed

    full = make_feature_map(name, 50, sigma=0.6, random_state=state()).draw(3)
    U = full.transform(X)
    for D in (1, 17, 50):
        small = make_feature_map(name, D, sigma=0.6, random_state=state()).draw(3)
        prefix = full.prefix(D)
        for attr in vars(small):  # the drawn parameters: bit for bit
            if attr.endswith("_") and attr != "n_features_in_":
                np.testing.assert_array_equal(getattr(prefix, attr), getattr(small, attr))
                np.testing.assert_array_equal(getattr(full, attr)[:D], getattr(small, attr))
        # the features: to the rounding of the product, whose BLAS path depends on D
        np.testing.assert_allclose(U[:, :D], small.transform(X), rtol=0, atol=1e-14)
        np.testing.assert_array_equal(prefix.transform(X), small.transform(X))
    assert full.prefix(17).n_components == 17 and full.n_components == 50


# ------------------------------------------------------------- registry
def test_registry_round_trip(toy: FeatureMapSpec) -> None:
    assert feature_map_names()[0] == "rff" and feature_map_names()[-1] == toy.name
    spec = get_feature_map_spec("rff")
    assert spec.feature_map is RandomFourierFeatures and spec.kernel == "gaussian"
    assert spec.parameters == ("sigma",) and spec.kernel_parameters == ("sigma",)
    assert spec.config_schema()["properties"]["sigma"] == POSITIVE
    assert feature_maps_for("gaussian")[0] == "rff"  # and fastfood (tests/test_fastfood.py)
    assert feature_maps_for("laplacian") == [toy.name]
    built = make_feature_map(toy.name, 5, random_state=1)
    assert isinstance(built, LaplacianFourierFeatures) and built.sigma == 1.0  # its default
    assert repr(make_feature_map("rff", 5, sigma=2.0)).startswith(
        "RandomFourierFeatures(sigma=2.0, n_components=5")
    unregister(toy.name)
    assert toy.name not in feature_map_names() and feature_maps_for("laplacian") == []
    with pytest.raises(ValueError, match="unknown feature map 'toy_laplace_rff'"):
        make_feature_map(toy.name, 5)


def test_registration_and_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match="feature map 'rff' is registered twice"):
        register(FeatureMapSpec(name="rff", feature_map=RandomFourierFeatures,
                                kernel="gaussian", schema={"sigma": POSITIVE}))
    with pytest.raises(ValueError, match="kernel must be one of"):
        register(FeatureMapSpec(name="toy_x", feature_map=RandomFourierFeatures, kernel="rbf"))
    with pytest.raises(ValueError, match="does not accept the parameters"):
        FeatureMapSpec(name="toy_x", feature_map=RandomFourierFeatures, kernel="gaussian",
                       schema={"nu": POSITIVE})
    with pytest.raises(ValueError, match="must be a FeatureMap subclass"):
        FeatureMapSpec(name="toy_x", feature_map=dict, kernel="gaussian")
    with pytest.raises(ValueError, match=r"takes the parameters \['sigma'\], got \['gamma'\]"):
        make_feature_map("rff", 5, gamma=1.0)
    with pytest.raises(ValueError, match="sigma"):
        make_feature_map("rff", 5, sigma=0.0)
    with pytest.raises(ValueError, match="n_components"):
        make_feature_map("rff", 0, sigma=1.0)
    with pytest.raises(ValueError, match=r"parameters \['sigma'\] are required"):
        make_feature_map("rff", 5)  # the kernel's σ, never a silent 1.0
    fmap = make_feature_map("rff", 5, sigma=1.0)
    with pytest.raises(ValueError, match="call draw"):
        fmap.transform(np.ones((2, 3)))
    fmap.draw(3)
    with pytest.raises(ValueError, match="shape mismatch"):
        fmap.transform(np.ones((2, 4)))
    with pytest.raises(ValueError, match="at most 5"):
        fmap.prefix(6)
