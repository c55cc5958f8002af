"""Fastfood (Le, Sarlós & Smola, ICML 2013): random Fourier features whose frequencies are a
product of diagonal, permutation and fast orthogonal transforms, ``O(D log d)`` per point.

``variant="hadamard"`` (Fastfood RBF): the input is padded with zeros to ``p = 2^⌈log₂ d⌉``
and each stack of ``p`` frequencies is ``V = (1/(σ√p)) S H G Π H B``: ``B`` random signs, ``H``
the (unnormalised) Walsh–Hadamard matrix, ``Π`` a random permutation, ``G`` standard normal,
``S = s/‖G‖`` with ``s ~ χ(p)`` per row. Given ``B`` and ``Π`` a row of ``H G Π H B`` is
``N(0, pI)`` and its norm is exactly ``√p‖G‖``: each row of ``V`` is an isotropic direction times
``s/σ``, i.e. exactly ``N(0, σ⁻²I)`` (unbiased for the Gaussian kernel); rows of one stack are
dependent, stacks independent. The authors' code (Enitor, ``FastfoodPara``/``FastfoodForKernel``)
uses the same scaling (its stacks reuse the previous stack's signed input, which leaves the
distribution of the signs unchanged).

``variant="fft"`` (Fastfood FFT): both Walsh–Hadamard transforms replaced by the discrete Fourier
transform ``F`` (entries of modulus 1; any dimension, no padding: ``p = d``) with ``G`` circular
complex normal. Given ``B`` and ``Π``, the real and the imaginary part of a row of ``F G Π F B``
are independent ``N(0, (p/2)I)``, so a stack gives ``2p`` frequencies ``√(2/p)/σ · [Re; Im]``,
each exactly ``N(0, σ⁻²I)``; the row norms already differ, so ``S`` carries no norm correction.
Neither the authors' code nor the text available here spells Le et al.'s FFT variant out: this
is kernreg's reading of "the Hadamard transform replaced by the FFT", chosen to stay unbiased.

Matérn (``fastfood_matern``): ``S`` gains the radial factor ``√(2ν/g)``, ``g ~ χ²(2ν)``, per row,
which turns the Gaussian rows into the Matérn spectral density (a multivariate Student t).

Features: frequency ``f`` gives the pair ``√2 cos(θ_f + b_f)``, ``√2 sin(θ_f + b_f)`` (features
``2f`` and ``2f + 1``) with ``θ = Vx`` and a uniform phase ``b_f``. A full pair's product is
``2cos(θ_f − θ'_f)`` whatever ``b_f`` (Le et al.'s ``[cos, sin]`` map), and the phase keeps a lone
``cos`` of an odd prefix unbiased. Parameters are drawn stack by stack from one stream per kind
(signs, permutations, G, χ norms, phases, radial factors), so draws are prefix-consistent.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from kernreg._validation import check_positive
from kernreg.features.base import FeatureMap, matern_radial_scales
from kernreg.features.registry import FeatureMapSpec, register
from kernreg.kernels.base import Data
from kernreg.kernels.registry import POSITIVE

__all__ = ["Fastfood", "FastfoodMatern", "fwht"]

VARIANTS = ("hadamard", "fft")


#: Size of the innermost Walsh–Hadamard stages done as one small dense product: numpy's
#: butterflies over runs of fewer than ~32 contiguous entries are dominated by loop overhead,
#: a (rows, 32) × (32, 32) GEMM is not (3–6× faster on (5822, 128) blocks).
_DENSE_STAGES = 32


def fwht(A: np.ndarray) -> np.ndarray:
    """Unnormalised fast Walsh–Hadamard transform of the rows of ``A``, in place.

    ``A`` is a C-contiguous float array of shape ``(n, p)`` with ``p`` a power of two; the
    result is ``A @ H`` with ``H = scipy.linalg.hadamard(p)`` (Sylvester order, ``H = Hᵀ``,
    ``H H = pI``). ``H_p = H_{p/q} ⊗ H_q``: the innermost ``log₂ q`` stages (``q ≤ 32``) are one
    product with the dense ``H_q`` per run of ``q`` entries, the others vectorised butterfly
    passes over the whole block, ``O(n p (q + log p))`` in all and never a ``p × p`` matrix.

    Returns
    -------
    A
    """
    n, p = A.shape
    if p & (p - 1):
        raise ValueError(f"the Walsh–Hadamard transform needs a power of two columns, got {p}")
    if not A.flags.c_contiguous:
        raise ValueError("fwht works in place on a C-contiguous array")
    q = min(p, _DENSE_STAGES)
    if q > 1:
        runs = A.reshape(-1, q)
        runs[...] = runs @ _hadamard(q, A.dtype)
    tmp = np.empty(n * (p // 2), dtype=A.dtype)
    h = q
    while h < p:
        v = A.reshape(n, p // (2 * h), 2, h)
        top, bottom = v[:, :, 0, :], v[:, :, 1, :]
        t = tmp.reshape(n, p // (2 * h), h)
        np.copyto(t, top)
        top += bottom                      # a + b
        np.subtract(t, bottom, out=bottom)  # a − b
        h *= 2
    return A


def _hadamard(q: int, dtype: Any) -> np.ndarray:
    """The ``q × q`` Sylvester Hadamard matrix (``q`` a power of two)."""
    H = np.ones((1, 1), dtype=dtype)
    while H.shape[0] < q:
        H = np.block([[H, H], [H, -H]])
    return H


class Fastfood(FeatureMap):
    """Fastfood features of the Gaussian kernel of bandwidth σ.

    Parameters
    ----------
    n_components : int
        Number of features ``D`` (``⌈D/2⌉`` frequencies, a cos/sin pair each).
    sigma : float, default 1.0
        Bandwidth σ > 0 of the Gaussian kernel approximated.
    variant : {"hadamard", "fft"}, default "hadamard"
        Walsh–Hadamard (Fastfood RBF, input padded to a power of two) or discrete Fourier
        transform (Fastfood FFT, any dimension).
    random_state : None, int or numpy.random.Generator
        Seed of the draw.

    Attributes
    ----------
    stack_size_ : int
        Frequencies per stack: ``p`` (Hadamard, ``p`` the padded dimension) or ``2d`` (FFT).
    signs_ : ndarray of shape (n_stacks, p)
        ``B``.
    permutations_ : ndarray of shape (n_stacks, p)
        ``Π`` (``(Πv)_i = v[permutations_[s, i]]``).
    gaussians_ : ndarray of shape (n_stacks, p), float (Hadamard) or complex (FFT)
        ``G``.
    scales_ : ndarray of shape (n_stacks, stack_size_)
        Row factors of the stack's frequencies: ``S/(σ√p)`` (Hadamard) or ``√(2/p)/σ`` (FFT),
        times the radial factors of :class:`FastfoodMatern`.
    phases_ : ndarray of shape (⌈D/2⌉,)
        ``b``, entries ``~ U[0, 2π)``.
    """

    def __init__(self, n_components: int, sigma: float = 1.0, *, variant: str = "hadamard",
                 random_state: Any = None):
        super().__init__(n_components, random_state=random_state)
        self.sigma = check_positive(sigma, "sigma")
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {list(VARIANTS)}, got {variant!r}")
        self.variant = variant

    # ----------------------------------------------------------------- draw
    @property
    def _n_freq(self) -> int:
        return (self.n_components + 1) // 2

    def _radial(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray | float:
        """Per-row factor on top of the Gaussian rows (1: the Gaussian kernel)."""
        return 1.0

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        fft = self.variant == "fft"
        p = d if fft else 1 << (d - 1).bit_length()
        self.stack_size_ = 2 * p if fft else p
        n_stacks = -(-self._n_freq // self.stack_size_)
        signs, perms, gauss, norms, phases, radial = (
            np.random.default_rng(s) for s in rng.integers(0, 2**63, size=6))
        self.signs_ = signs.integers(0, 2, size=(n_stacks, p)) * 2.0 - 1.0
        self.permutations_ = np.stack([perms.permutation(p) for _ in range(n_stacks)])
        if fft:
            g = gauss.standard_normal((n_stacks, p, 2))
            self.gaussians_ = (g[..., 0] + 1j * g[..., 1]) / np.sqrt(2.0)
            scales = np.full((n_stacks, 2 * p), np.sqrt(2.0 / p) / self.sigma)
        else:
            self.gaussians_ = gauss.standard_normal((n_stacks, p))
            s = np.sqrt(norms.chisquare(p, size=(n_stacks, p)))  # χ(p): a N(0, I_p) norm
            scales = s / np.linalg.norm(self.gaussians_, axis=1)[:, None] / (self.sigma
                                                                              * np.sqrt(p))
        self.scales_ = scales * self._radial(radial, scales.shape)
        self.phases_ = phases.uniform(0.0, 2.0 * np.pi, self._n_freq)

    def _prefix(self, n_components: int) -> None:
        n_stacks = -(-self._n_freq // self.stack_size_)  # n_components is already the new D
        for name in ("signs_", "permutations_", "gaussians_", "scales_"):
            setattr(self, name, getattr(self, name)[:n_stacks])
        self.phases_ = self.phases_[:self._n_freq]

    # ----------------------------------------------------------------- features
    def projections(self, X: Any) -> np.ndarray:
        """``θ = VX``: the ``⌈D/2⌉`` projections of every row (float64, no phase)."""
        return self._projections(self._check_X(X))

    def frequencies(self) -> np.ndarray:
        """The dense ``(⌈D/2⌉, d)`` frequency matrix ``V`` (for tests and inspection: the
        features never form it)."""
        self._check_drawn()
        return self._projections(np.eye(self.n_features_in_)).T.copy()

    def _projections(self, Xb: Data) -> np.ndarray:
        X = Xb.toarray() if sp.issparse(Xb) else Xb
        X = np.asarray(X, dtype=np.float64)
        n, d = X.shape
        n_stacks, p = self.signs_.shape
        k = self.stack_size_
        theta = np.empty((n, n_stacks * k))
        if self.variant == "fft":
            for s in range(n_stacks):
                t = np.fft.fft(X * self.signs_[s], axis=1)[:, self.permutations_[s]]
                t *= self.gaussians_[s]
                t = np.fft.fft(t, axis=1)
                theta[:, s * k:s * k + p] = t.real
                theta[:, s * k + p:(s + 1) * k] = t.imag
        else:
            padded = np.zeros((n, p))
            padded[:, :d] = X
            buf, t = np.empty((n, p)), np.empty((n, p))
            for s in range(n_stacks):
                np.multiply(padded, self.signs_[s], out=buf)
                fwht(buf)
                np.take(buf, self.permutations_[s], axis=1, out=t)
                t *= self.gaussians_[s]
                theta[:, s * k:(s + 1) * k] = fwht(t)
        theta *= self.scales_.ravel()
        return theta[:, :self._n_freq]

    def _features(self, Xb: Data) -> np.ndarray:
        theta = self._projections(Xb)
        theta += self.phases_
        out = np.empty((theta.shape[0], self.n_components))
        np.cos(theta, out=out[:, 0::2])
        np.sin(theta[:, :self.n_components // 2], out=out[:, 1::2])
        out *= np.sqrt(2.0)
        return out

    def _params(self) -> dict[str, Any]:
        return {"sigma": self.sigma, "variant": self.variant, **super()._params()}


class FastfoodMatern(Fastfood):
    """Fastfood features of the Matérn kernel of smoothness ν and length scale σ.

    The Gaussian rows of :class:`Fastfood` times ``√(2ν/g)``, ``g ~ χ²(2ν)`` per row: the
    frequencies follow the Matérn spectral density (a multivariate Student t with ``2ν``
    degrees of freedom).

    Parameters
    ----------
    n_components : int
    sigma : float, default 1.0
        Length scale σ > 0.
    nu : float, default 1.5
        Smoothness ν > 0.
    variant : {"hadamard", "fft"}, default "hadamard"
    random_state : None, int or numpy.random.Generator
    """

    def __init__(self, n_components: int, sigma: float = 1.0, nu: float = 1.5, *,
                 variant: str = "hadamard", random_state: Any = None):
        super().__init__(n_components, sigma, variant=variant, random_state=random_state)
        self.nu = check_positive(nu, "nu")

    def _radial(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray | float:
        return matern_radial_scales(rng, self.nu, shape)

    def _params(self) -> dict[str, Any]:
        return {"nu": self.nu, **super()._params()}


_VARIANT = {"enum": list(VARIANTS)}

register(FeatureMapSpec(
    name="fastfood",
    feature_map=Fastfood,
    kernel="gaussian",
    schema={"sigma": POSITIVE, "variant": _VARIANT},
    defaults={"variant": "hadamard"},
    summary="Fastfood V = S H G Π H B/(σ√d) (Walsh–Hadamard, or the DFT with variant: fft), "
            "cos/sin pairs",
))
register(FeatureMapSpec(
    name="fastfood_matern",
    feature_map=FastfoodMatern,
    kernel="matern",
    schema={"sigma": POSITIVE, "nu": POSITIVE, "variant": _VARIANT},
    defaults={"nu": 1.5, "variant": "hadamard"},
    summary="Fastfood with Matérn radial scaling S (Student-t frequencies), cos/sin pairs",
))
