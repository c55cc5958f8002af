"""Kernels: blocked evaluation against a cdist reference, memory budget, fused products."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from kernreg.kernels import (
    GaussianKernel,
    LaplacianKernel,
    LinearKernel,
    compiled,
    make_kernel,
)
from kernreg.solvers.blocks.centers import SAMPLERS, CenterSampler, UniformSampler, get_sampler
from kernreg.solvers.blocks.knm import make_knm


def _reference(name: str, X: np.ndarray, Y: np.ndarray, sigma: float) -> np.ndarray:
    if name == "gaussian":
        return np.exp(-cdist(X, Y, "sqeuclidean") / (2 * sigma**2))
    if name == "laplacian":
        return np.exp(-cdist(X, Y, "euclidean") / sigma)
    return X @ Y.T


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(53, 7))
    Y = rng.normal(size=(17, 7))
    return X, Y


@pytest.fixture
def sparse_data() -> tuple[sp.csr_matrix, sp.csr_matrix]:
    X = sp.random(61, 30, density=0.2, format="csr", random_state=1)
    Y = sp.random(13, 30, density=0.2, format="csr", random_state=2)
    return X, Y


@pytest.mark.parametrize("name", ["gaussian", "laplacian", "linear"])
@pytest.mark.parametrize("budget", [8 * 17 * 5, 2**20])  # 5 rows per block / one block
def test_dense_blocked_equals_cdist(data, name, budget):
    X, Y = data
    kern = make_kernel(name, 1.3, memory_budget=budget)
    ref = _reference(name, X, Y, 1.3)
    np.testing.assert_allclose(kern(X, Y), ref, rtol=1e-12, atol=1e-12)
    parts = list(kern.blocks(X, Y))
    assert np.vstack([b for _, b in parts]).shape == ref.shape
    for sl, block in parts:
        np.testing.assert_allclose(block, ref[sl], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["gaussian", "laplacian", "linear"])
@pytest.mark.parametrize("mode", ["both_sparse", "sparse_x", "sparse_y", "y_not_densified"])
def test_sparse_blocked_equals_cdist(sparse_data, name, mode):
    Xs, Ys = sparse_data
    X, Y = Xs.toarray(), Ys.toarray()
    # "y_not_densified": a budget smaller than dense Y keeps Y sparse (sparse @ sparse path)
    budget = 8 * 13 * 3 if mode == "y_not_densified" else 8 * 13 * 4
    kern = make_kernel(name, 0.9, memory_budget=budget)
    a = {"both_sparse": Xs, "sparse_x": Xs, "sparse_y": X, "y_not_densified": Xs}[mode]
    b = {"both_sparse": Ys, "sparse_x": Y, "sparse_y": Ys, "y_not_densified": Ys}[mode]
    np.testing.assert_allclose(kern(a, b), _reference(name, X, Y, 0.9), rtol=1e-12, atol=1e-12)


def test_symmetric_call_and_diag(data):
    X, _ = data
    for kern in (GaussianKernel(2.0), LaplacianKernel(2.0)):
        K = kern(X)
        np.testing.assert_allclose(np.diag(K), kern.diag(X), atol=1e-12)
        np.testing.assert_allclose(K, K.T, atol=1e-14)
    lin = LinearKernel()
    np.testing.assert_allclose(lin.diag(X), np.diag(X @ X.T), rtol=1e-12)
    np.testing.assert_allclose(lin.diag(sp.csr_matrix(X)), np.diag(X @ X.T), rtol=1e-12)


def test_float32_close_to_float64(data):
    X, Y = data
    k64 = GaussianKernel(1.5)
    k32 = GaussianKernel(1.5, dtype="float32")
    K64, K32 = k64(X, Y), k32(X, Y)
    assert K32.dtype == np.float32
    np.testing.assert_allclose(K32, K64, atol=1e-5)
    v = np.linspace(-1, 1, Y.shape[0])
    np.testing.assert_allclose(k32.matvec(X, Y, v), K64 @ v, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype,itemsize", [("float64", 8), ("float32", 4)])
def test_memory_budget_sets_block_rows(data, dtype, itemsize):
    X, Y = data  # 53 x 17
    budget = 1000
    kern = GaussianKernel(1.0, dtype=dtype, memory_budget=budget)
    rows = budget // (17 * itemsize)
    assert kern.block_rows(17) == rows
    blocks = list(kern.blocks(X, Y))
    assert len(blocks) == math.ceil(53 / rows)
    for _, block in blocks:
        assert block.nbytes <= budget
        assert block.dtype == np.dtype(dtype)
    # a single row wider than the budget still gives blocks of one row
    assert GaussianKernel(1.0, memory_budget=8).block_rows(17) == 1
    assert kern.block_rows(17, n_rows=3) == 3


def test_reuse_buffer_blocks_equal(data):
    X, Y = data
    kern = GaussianKernel(1.0, memory_budget=8 * 17 * 4)
    fresh = [b.copy() for _, b in kern.blocks(X, Y)]
    reused = [b.copy() for _, b in kern.blocks(X, Y, reuse_buffer=True)]
    for a, b in zip(fresh, reused, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", ["gaussian", "laplacian", "linear"])
def test_fused_products_equal_dense(name, sparse):
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(101, 6))
    C = X[rng.choice(101, 23, replace=False)]
    y = rng.normal(size=101)
    v = rng.normal(size=23)
    V = rng.normal(size=(23, 4))
    kern = make_kernel(name, 0.7, memory_budget=8 * 23 * 10)  # 10 rows per block
    K = _reference(name, X, C, 0.7)
    Xin = sp.csr_matrix(X) if sparse else X
    Cin = sp.csr_matrix(C) if sparse else C
    G, b = kern.gram_products(Xin, Cin, y)
    np.testing.assert_allclose(G, K.T @ K, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(b, K.T @ y, rtol=1e-11, atol=1e-11)
    G_only, none = kern.gram_products(Xin, Cin)
    assert none is None
    np.testing.assert_allclose(G_only, G, rtol=0, atol=0)
    np.testing.assert_allclose(kern.matvec(Xin, Cin, v), K @ v, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(kern.matvec(Xin, Cin, V), K @ V, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(kern.rmatvec(Xin, Cin, y), K.T @ y, rtol=1e-11, atol=1e-11)
    grad, resid = kern.normal_matvec(Xin, Cin, v, y)
    np.testing.assert_allclose(resid, K @ v - y, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(grad, K.T @ (K @ v - y), rtol=1e-10, atol=1e-10)


def test_kernel_parameter_errors(data):
    X, Y = data
    with pytest.raises(ValueError, match="sigma"):
        GaussianKernel(0.0)
    with pytest.raises(ValueError, match="sigma"):
        make_kernel("laplacian", -1.0)
    with pytest.raises(ValueError, match="unknown kernel 'rbf'"):
        make_kernel("rbf")
    with pytest.raises(ValueError, match="dtype"):
        GaussianKernel(1.0, dtype="int32")
    with pytest.raises(ValueError, match="memory_budget"):
        GaussianKernel(1.0, memory_budget=0)
    with pytest.raises(ValueError, match="shape mismatch"):
        GaussianKernel(1.0)(X, Y[:, :3])
    with pytest.raises(ValueError, match="shape mismatch"):
        GaussianKernel(1.0).matvec(X, Y, np.ones(3))


def test_uniform_sampler_seeded_without_replacement():
    X = np.zeros((50, 2))
    sampler = get_sampler("uniform")
    assert isinstance(sampler, UniformSampler) and {"uniform", "leverage"} <= set(SAMPLERS)
    a = sampler.select(X, 20, 7)
    b = sampler.select(X, 20, np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    assert np.unique(a).size == 20 and a.min() >= 0 and a.max() < 50
    assert not np.array_equal(a, sampler.select(X, 20, 8))
    np.testing.assert_array_equal(np.sort(sampler.select(X, 50, 0)), np.arange(50))
    with pytest.raises(ValueError, match="m"):
        sampler.select(X, 51, 0)
    with pytest.raises(ValueError, match="sampler must be one of"):
        get_sampler("kmeans")
    assert get_sampler(sampler) is sampler


def test_custom_sampler_is_checked():
    class Bad(CenterSampler):
        def _select(self, X, m, rng, kernel):
            return np.zeros(m, dtype=int)  # duplicates

    with pytest.raises(RuntimeError, match="invalid index set"):
        Bad().select(np.zeros((10, 1)), 3, 0)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("storage", ["memory", "blocked"])
def test_knm_operators_equal_dense(storage, dtype, monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(203, 5))
    C = X[rng.choice(203, 31, replace=False)]
    y, v, V = rng.normal(size=203), rng.normal(size=31), rng.normal(size=(31, 3))
    K = _reference("gaussian", X, C, 0.8)
    # 7 rows per fused block (float64), so the gradient is summed over many blocks
    monkeypatch.setattr(compiled, "NUMPY_PASS_BYTES", 8 * 31 * 7)
    op = make_knm(storage, GaussianKernel(0.8, dtype=dtype, memory_budget=8 * 31 * 9), X, C)
    if storage == "memory":
        assert op.K.dtype == np.dtype(dtype)  # float32 storage halves memory and bandwidth
    tol = 1e-11 if dtype == "float64" else 2e-5
    for got, want in [(op.matvec(v), K @ v), (op.matvec(V), K @ V), (op.rmatvec(y), K.T @ y)]:
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    grad, resid = op.normal_matvec(v, y)
    np.testing.assert_allclose(resid, K @ v - y, rtol=tol, atol=tol)
    np.testing.assert_allclose(grad, K.T @ (K @ v - y), rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize("density", [0.3, 0.005])  # densified block / kept sparse
def test_sparse_rows_densified_or_not_give_the_same_kernel(density):
    Xs = sp.random(400, 20, density=density, format="csr", random_state=4)
    Y = np.random.default_rng(5).normal(size=(50, 20))  # d = 20 <= 50 columns per block
    kern = make_kernel("gaussian", 1.1, memory_budget=8 * 50 * 64)
    ref = _reference("gaussian", Xs.toarray(), Y, 1.1)
    np.testing.assert_allclose(kern(Xs, Y), ref, rtol=1e-12, atol=1e-12)
    for sl, block in kern.blocks(Xs, Y):
        np.testing.assert_allclose(block, ref[sl], rtol=1e-12, atol=1e-12)


def test_with_dtype_copies_the_kernel():
    kern = make_kernel("gaussian", 0.7, dtype="float32")
    k64 = kern.with_dtype("float64")
    assert k64 is not kern and kern.dtype == np.float32 and k64.dtype == np.float64
    assert k64.sigma == 0.7 and k64.memory_budget == kern.memory_budget
    X = np.random.default_rng(0).normal(size=(9, 4))
    assert k64(X).dtype == np.float64 and kern(X).dtype == np.float32
