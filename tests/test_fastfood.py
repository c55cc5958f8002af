"""Fastfood (Walsh–Hadamard and FFT) and Matérn random features: the fast transform against the
dense Hadamard product, features against their dense frequencies, convergence of the empirical
kernel to the Gaussian (Matérn) kernel at the Monte-Carlo rate with power checks, prefix
consistency along a D path, the registry."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import hadamard

from kernreg.features import (
    Fastfood,
    FastfoodMatern,
    MaternFourierFeatures,
    feature_map_names,
    feature_maps_for,
    get_feature_map_spec,
    make_feature_map,
)
from kernreg.features.fastfood import fwht
from kernreg.kernels import make_kernel


# ------------------------------------------------------------- the Walsh–Hadamard transform
@pytest.mark.parametrize("p", [1, 2, 4, 8, 32, 128])
def test_fwht_equals_the_dense_hadamard_product(p: int) -> None:
    A = np.random.default_rng(p).normal(size=(7, p))
    expected = A @ hadamard(p)
    out = fwht(A)
    assert out is A  # in place
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12 * p)


def test_fwht_refuses_what_it_cannot_transform() -> None:
    with pytest.raises(ValueError, match="power of two"):
        fwht(np.ones((2, 6)))
    with pytest.raises(ValueError, match="C-contiguous"):
        fwht(np.ones((8, 2)).T)


# ------------------------------------------------------------- features = dense frequencies
@pytest.mark.parametrize("name,params", [
    ("fastfood", {"variant": "hadamard"}),
    ("fastfood", {"variant": "fft"}),
    ("fastfood_matern", {"nu": 1.5, "variant": "hadamard"}),
])
@pytest.mark.parametrize("sparse", [False, True])
def test_features_are_cos_sin_pairs_of_the_dense_frequencies(name: str, params: dict[str, Any],
                                                             sparse: bool) -> None:
    X = np.random.default_rng(1).normal(size=(31, 11))
    if sparse:
        X = sp.random(31, 11, density=0.3, format="csr", random_state=2)
    fmap = make_feature_map(name, 45, sigma=0.7, random_state=3, **params).draw(11)
    W = fmap.frequencies()  # the dense V, never formed by transform
    assert W.shape == (23, 11)
    theta = np.asarray(X @ W.T) + fmap.phases_
    U = fmap.transform(X)
    assert U.shape == (31, 45)
    np.testing.assert_allclose(U[:, 0::2], np.sqrt(2) * np.cos(theta), atol=1e-12)
    np.testing.assert_allclose(U[:, 1::2], np.sqrt(2) * np.sin(theta[:, :22]), atol=1e-12)
    blocks = list(fmap.blocks(X, 8 * 45 * 4))  # 4 rows a block
    assert len(blocks) == 8
    np.testing.assert_array_equal(np.concatenate([b for _, b in blocks]), U)


def test_hadamard_stacks_pad_to_a_power_of_two_and_fft_stacks_do_not() -> None:
    had = make_feature_map("fastfood", 100, sigma=1.0, random_state=0).draw(11)
    fft = make_feature_map("fastfood", 100, sigma=1.0, variant="fft", random_state=0).draw(11)
    assert had.stack_size_ == 16 and had.signs_.shape == (4, 16)  # 50 frequencies, 4 stacks
    assert fft.stack_size_ == 22 and fft.signs_.shape == (3, 11)  # 2d real rows a stack
    assert np.iscomplexobj(fft.gaussians_) and not np.iscomplexobj(had.gaussians_)
    # unpadded, a Hadamard row has norm s/σ, s ~ χ(p): S = s/‖G‖ undoes ‖row‖ = √p‖G‖
    had = make_feature_map("fastfood", 100, sigma=0.5, random_state=0).draw(16)
    norms = np.linalg.norm(had.frequencies(), axis=1)
    s = np.sqrt(np.random.default_rng(  # the χ stream: the 4th of the map's six seeds
        np.random.default_rng(0).integers(0, 2**63, size=6)[3]).chisquare(16, size=(4, 16)))
    np.testing.assert_allclose(norms, s.ravel()[:50] / 0.5, rtol=1e-12)


# ------------------------------------------------------------- convergence to the kernel
def _mse(name: str, kernel: str, params: dict[str, Any], levels: tuple[int, ...], *,
         sigma: float = 0.9, map_sigma: float | None = None, seeds: int = 150,
         cls: type | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``D · MSE(D)`` of the empirical kernel over the off-diagonal pairs of 40 points, averaged
    over ``seeds`` draws, per level; and the largest bias z-score at the last level."""
    X = np.random.default_rng(0).normal(size=(40, 5)) * 0.5
    iu = np.triu_indices(40, 1)
    kparams = {"nu": params["nu"]} if kernel == "matern" else {}
    k = make_kernel(kernel, sigma, **kparams)(X)[iu]
    scaled = np.zeros(len(levels))
    last = np.zeros((seeds, k.size))
    for s in range(seeds):
        for i, D in enumerate(levels):
            if cls is None:
                fmap = make_feature_map(name, D, sigma=map_sigma or sigma, random_state=s,
                                        **params)
            else:
                fmap = cls(D, map_sigma or sigma, random_state=s, **params)
            est = fmap.draw(5).kernel(X)[iu]
            scaled[i] += D * np.mean((est - k) ** 2)
            if i == len(levels) - 1:
                last[s] = est
    z = (last.mean(0) - k) / (last.std(0, ddof=1) / np.sqrt(seeds))
    return scaled / seeds, z


def _check_rate(scaled: np.ndarray, z: np.ndarray, levels: tuple[int, ...]) -> None:
    # stacks are independent, so D·MSE(D) is the same at every D that fills whole stacks (the
    # value is a stack's variance, not one feature's: rows of a stack are dependent)
    assert np.all(np.abs(scaled / scaled.mean() - 1) < 0.12), scaled
    slope = np.polyfit(np.log(levels), np.log(np.sqrt(scaled / np.asarray(levels))), 1)[0]
    assert abs(slope + 0.5) < 0.03, slope  # error ∝ 1/√D
    assert np.abs(z).max() < 5.0, np.abs(z).max()  # unbiased, pair by pair


# Hadamard: d = 5 pads to p = 8, a stack is 16 features; FFT: p = 5, a stack is 20 features
HADAMARD_LEVELS = (16, 64, 256, 1024)
FFT_LEVELS = (20, 80, 320, 1280)


@pytest.mark.parametrize("variant,levels", [("hadamard", HADAMARD_LEVELS),
                                            ("fft", FFT_LEVELS)])
def test_fastfood_converges_to_the_gaussian_kernel_at_the_monte_carlo_rate(
        variant: str, levels: tuple[int, ...]) -> None:
    _check_rate(*_mse("fastfood", "gaussian", {"variant": variant}, levels), levels)


@pytest.mark.parametrize("name,params,levels", [
    ("rff_matern", {"nu": 0.5}, HADAMARD_LEVELS),
    ("rff_matern", {"nu": 2.5}, HADAMARD_LEVELS),
    ("fastfood_matern", {"nu": 1.5, "variant": "hadamard"}, HADAMARD_LEVELS),
    ("fastfood_matern", {"nu": 0.5, "variant": "fft"}, FFT_LEVELS),
])
def test_matern_features_converge_to_the_matern_kernel(name: str, params: dict[str, Any],
                                                       levels: tuple[int, ...]) -> None:
    _check_rate(*_mse(name, "matern", params, levels, seeds=100), levels)


class _FixedNormFastfood(Fastfood):
    """Broken on purpose: every row of norm √p/σ (S = √p/‖G‖ instead of χ(p)/‖G‖)."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        super()._draw(d, rng)
        p = self.signs_.shape[1]
        self.scales_ = np.repeat(1.0 / (self.sigma * np.linalg.norm(self.gaussians_, axis=1)),
                                 p).reshape(self.scales_.shape)


@pytest.mark.parametrize("case", ["wrong sigma", "fixed norm S", "gaussian map, matern kernel"])
def test_the_rate_check_has_power(case: str) -> None:
    """Biased maps fail the check: D·MSE grows with D instead of staying put."""
    levels = (64, 2048)
    if case == "wrong sigma":
        scaled, z = _mse("fastfood", "gaussian", {}, levels, map_sigma=0.945, seeds=40)
    elif case == "fixed norm S":
        scaled, z = _mse("", "gaussian", {}, levels, seeds=40, cls=_FixedNormFastfood)
    else:
        scaled, z = _mse("fastfood_matern", "gaussian", {"nu": 4.0}, levels, sigma=0.9,
                         seeds=40)
    assert scaled[-1] > 2 * scaled[0] and np.abs(z).max() > 5, (scaled, np.abs(z).max())


# ------------------------------------------------------------- prefix consistency
@pytest.mark.parametrize("name,params", [
    ("fastfood", {"variant": "hadamard"}),
    ("fastfood", {"variant": "fft"}),
    ("fastfood_matern", {"nu": 2.5, "variant": "fft"}),
    ("rff_matern", {"nu": 1.5}),
])
@pytest.mark.parametrize("seed", [7, "generator"])
def test_prefix_consistency(name: str, params: dict[str, Any], seed: Any) -> None:
    X = np.random.default_rng(8).normal(size=(23, 3))

    def state() -> Any:
        return np.random.default_rng(42) if seed == "generator" else seed

    full = make_feature_map(name, 101, sigma=0.6, random_state=state(), **params).draw(3)
    U = full.transform(X)
    for D in (1, 2, 7, 8, 16, 17, 50, 101):  # inside a stack, at and across stack ends
        small = make_feature_map(name, D, sigma=0.6, random_state=state(), **params).draw(3)
        prefix = full.prefix(D)
        drawn = [a for a in vars(small) if a.endswith("_") and a != "n_features_in_"]
        assert drawn
        for attr in drawn:  # the drawn parameters: bit for bit
            np.testing.assert_array_equal(getattr(prefix, attr), getattr(small, attr))
        np.testing.assert_allclose(U[:, :D], small.transform(X), rtol=0, atol=1e-13)
        np.testing.assert_array_equal(prefix.transform(X), small.transform(X))


def test_an_odd_prefix_stays_unbiased() -> None:
    """The lone cos of an odd D carries a phase: E[2cos(θ+b)cos(θ'+b)] = E cos(θ − θ')."""
    X = np.random.default_rng(0).normal(size=(12, 4)) * 0.4
    k = make_kernel("gaussian", 1.0)(X)
    est = np.mean([make_feature_map("fastfood", 1, sigma=1.0, random_state=s).draw(4).kernel(X)
                   for s in range(2000)], axis=0)
    assert np.abs(est - k).max() < 0.12  # without the phase the bias is k(x + x'), up to ~0.9


# ------------------------------------------------------------- registry
def test_registry_round_trip() -> None:
    assert {"fastfood", "fastfood_matern", "rff_matern"} <= set(feature_map_names())
    assert feature_maps_for("gaussian")[:2] == ["rff", "fastfood"]
    assert set(feature_maps_for("matern")) == {"rff_matern", "fastfood_matern"}
    spec = get_feature_map_spec("fastfood")
    assert spec.feature_map is Fastfood and spec.kernel == "gaussian"
    assert spec.parameters == ("sigma", "variant") and spec.kernel_parameters == ("sigma",)
    assert spec.config_schema()["properties"]["variant"] == {"enum": ["hadamard", "fft"]}
    spec = get_feature_map_spec("fastfood_matern")
    assert spec.feature_map is FastfoodMatern and spec.kernel_parameters == ("sigma", "nu")
    assert get_feature_map_spec("rff_matern").feature_map is MaternFourierFeatures
    built = make_feature_map("fastfood", 10, sigma=2.0)
    assert built.variant == "hadamard"  # the registered default
    assert repr(make_feature_map("fastfood_matern", 4, sigma=1.0, nu=0.5)).startswith(
        "FastfoodMatern(nu=0.5, sigma=1.0, variant='hadamard', n_components=4")
    with pytest.raises(ValueError, match=r"variant must be one of \['hadamard', 'fft'\]"):
        make_feature_map("fastfood", 10, sigma=1.0, variant="dct")
    with pytest.raises(ValueError, match="nu"):
        make_feature_map("rff_matern", 10, sigma=1.0, nu=0.0)
    with pytest.raises(ValueError, match="shape mismatch"):
        make_feature_map("fastfood", 10, sigma=1.0).draw(3).transform(np.ones((2, 4)))
