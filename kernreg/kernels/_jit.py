"""numba kernels of :mod:`kernreg.kernels.compiled`, imported on first use (importing numba takes
a second or more: ``import kernreg`` does not pay it).

Nothing here is public: :mod:`kernreg.kernels.compiled` chooses between these kernels and their
numpy equivalents, sets the threads and checks the arguments.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, prange
from numba.core import types as nbtypes
from numba.extending import intrinsic


@intrinsic
def _bits_to_f64(typingctx: Any, bits: Any) -> Any:
    """Reinterpret an int64's bits as a float64 (what C does with a union)."""
    sig = nbtypes.float64(nbtypes.int64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen


@intrinsic
def _bits_to_f32(typingctx: Any, bits: Any) -> Any:
    """Reinterpret an int32's bits as a float32."""
    sig = nbtypes.float32(nbtypes.int32)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(args[0], ir.FloatType())

    return sig, codegen


@njit(inline="always", cache=True)
def _exp_f64(x: float) -> float:
    """exp(x) for x ≤ 0 within a few ulp, branch-free so that loops over it vectorize.

    x = k·ln2 + r with |r| ≤ ln2/2; exp(r) by its Taylor polynomial to degree 13 (remainder
    < 5e-18); 2^k built from its exponent bits in two halves, so that results in the
    subnormal range (x < −708) come out right and x < −745 gives 0.
    """
    x = max(x, -1000.0)
    k = np.floor(x * 1.4426950408889634 + 0.5)
    r = x - k * 0.6931471803691238  # ln2 split in two (Cody–Waite): k·hi is exact
    r = r - k * 1.9082149292705877e-10
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    ki = np.int64(k)
    k1 = ki // 2
    k2 = ki - k1
    return p * _bits_to_f64((k1 + 1023) << 52) * _bits_to_f64((k2 + 1023) << 52)


@njit(inline="always", cache=True)
def _exp_f32(x: np.float32) -> np.float32:
    """exp(x) in float32 for x ≤ 0 (degree-7 polynomial, remainder < 6e-9 relative)."""
    x = max(x, np.float32(-150.0))
    k = np.floor(x * np.float32(1.442695) + np.float32(0.5))
    r = x - k * np.float32(0.693359375)  # ln2 = hi + lo, k·hi exact for |k| < 2^9
    r = r - k * np.float32(-2.12194440e-4)
    p = np.float32(1.0 / 5040.0)
    p = p * r + np.float32(1.0 / 720.0)
    p = p * r + np.float32(1.0 / 120.0)
    p = p * r + np.float32(1.0 / 24.0)
    p = p * r + np.float32(1.0 / 6.0)
    p = p * r + np.float32(0.5)
    p = p * r + np.float32(1.0)
    p = p * r + np.float32(1.0)
    ki = np.int32(k)
    k1 = ki // np.int32(2)
    k2 = ki - k1
    return (p * _bits_to_f32((k1 + np.int32(127)) << np.int32(23))
            * _bits_to_f32((k2 + np.int32(127)) << np.int32(23)))


@njit(parallel=True, cache=True, fastmath={"contract"})
def distance_exp_f64(out, xx, yy, profile, scale, noise):
    rows, cols = out.shape
    for i in prange(rows):
        xi = xx[i]
        if profile == 0:
            for j in range(cols):
                s = max(xi + yy[j] - 2.0 * out[i, j], 0.0)
                out[i, j] = _exp_f64(-scale * s)
        else:
            for j in range(cols):
                s = max(xi + yy[j] - 2.0 * out[i, j], 0.0)
                if s <= noise:
                    s = 0.0
                t = scale * np.sqrt(s)
                # LAPLACIAN (Matérn ν = 1/2): e^−t; ν = 3/2: (1 + t) e^−t; ν = 5/2: + t²/3
                poly = 1.0 if profile == 1 else (1.0 + t if profile == 2
                                                 else 1.0 + t + t * t / 3.0)
                out[i, j] = poly * _exp_f64(-t)


@njit(parallel=True, cache=True, fastmath={"contract"})
def distance_exp_f32(out, xx, yy, profile, scale, noise):
    rows, cols = out.shape
    sc = np.float32(scale)
    nz = np.float32(noise)
    two = np.float32(2.0)
    zero = np.float32(0.0)
    one = np.float32(1.0)
    for i in prange(rows):
        xi = xx[i]
        if profile == 0:
            for j in range(cols):
                s = max(xi + yy[j] - two * out[i, j], zero)
                out[i, j] = _exp_f32(-sc * s)
        else:
            for j in range(cols):
                s = max(xi + yy[j] - two * out[i, j], zero)
                if s <= nz:
                    s = zero
                t = sc * np.sqrt(s)
                poly = one if profile == 1 else (one + t if profile == 2
                                                 else one + t + t * t / np.float32(3.0))
                out[i, j] = poly * _exp_f32(-t)


# reassoc lets the dot products run in SIMD lanes (a reordered sum: float64 rounding of the
# same size as BLAS's, which also reorders); contract fuses multiply-adds
@njit(parallel=True, cache=True, fastmath={"contract", "reassoc"})
def normal_pass_kernel(K, beta, y, grad_parts, resid):
    """Rows split into one contiguous chunk per part; each part accumulates its own
    gradient (float64), summed by the caller. Row i is read for r_i = K_i β − y_i and at
    once for g += K_iᵀ r_i, while it is in L1. ``y`` has k columns or one (shared); one
    column (k = 1) goes to :func:`normal_pass_single`."""
    n, m = K.shape
    k = beta.shape[1]
    shared_y = y.shape[1] == 1
    parts = grad_parts.shape[0]
    chunk = (n + parts - 1) // parts
    for p in prange(parts):
        g = grad_parts[p]
        r = np.empty(k)
        for i in range(p * chunk, min(n, (p + 1) * chunk)):
            Ki = K[i]
            for c in range(k):
                r[c] = -y[i, 0] if shared_y else -y[i, c]
            for j in range(m):
                kij = np.float64(Ki[j])
                for c in range(k):
                    r[c] += kij * beta[j, c]
            for c in range(k):
                resid[i, c] = r[c]
            for j in range(m):
                kij = np.float64(Ki[j])
                for c in range(k):
                    g[j, c] += kij * r[c]


@njit(parallel=True, cache=True, fastmath={"contract", "reassoc"})
def normal_pass_single(K, beta, y, grad_parts, resid):
    """:func:`normal_pass_kernel` for one right-hand side (``beta``, ``y``, ``resid`` 1-D;
    ``grad_parts`` of shape (parts, m)), four rows at a time: their four dot products share
    each load of ``β``, and one update of ``g`` takes all four rows, so ``g`` (in L1) is read
    and written once per four rows instead of once per row. Still float64 arithmetic."""
    n, m = K.shape
    parts = grad_parts.shape[0]
    chunk = (n + parts - 1) // parts
    for p in prange(parts):
        g = grad_parts[p]
        i = p * chunk
        hi = min(n, (p + 1) * chunk)
        while i + 4 <= hi:
            K0, K1, K2, K3 = K[i], K[i + 1], K[i + 2], K[i + 3]
            a0 = a1 = a2 = a3 = 0.0
            for j in range(m):
                bj = beta[j]
                a0 += np.float64(K0[j]) * bj
                a1 += np.float64(K1[j]) * bj
                a2 += np.float64(K2[j]) * bj
                a3 += np.float64(K3[j]) * bj
            r0, r1, r2, r3 = a0 - y[i], a1 - y[i + 1], a2 - y[i + 2], a3 - y[i + 3]
            resid[i], resid[i + 1], resid[i + 2], resid[i + 3] = r0, r1, r2, r3
            for j in range(m):
                g[j] += ((np.float64(K0[j]) * r0 + np.float64(K1[j]) * r1)
                         + (np.float64(K2[j]) * r2 + np.float64(K3[j]) * r3))
            i += 4
        while i < hi:  # the last rows of the part
            Ki = K[i]
            acc = 0.0
            for j in range(m):
                acc += np.float64(Ki[j]) * beta[j]
            ri = acc - y[i]
            resid[i] = ri
            for j in range(m):
                g[j] += np.float64(Ki[j]) * ri
            i += 1
