"""Kernel arrays handed from one fit to the next (kernreg.solvers.blocks.buffers): the same
numbers as fresh arrays, the same memory handed on, and nothing kept outside the runner's scope."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg.solvers import KernelLandweber, NystromPCG, Nytro, reuse_buffers
from kernreg.solvers.blocks import buffers as _buffers


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 4))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(300)
    return X[:240], y[:240], X[240:], y[240:]


def test_take_hands_back_the_released_array_of_its_shape() -> None:
    with reuse_buffers():
        a = _buffers.take((50, 20), np.float32)
        _buffers.release(a)
        _buffers.release(a)  # twice: still handed out once
        assert _buffers.take((50, 20), np.float32) is a
        assert _buffers.take((50, 20), np.float32) is not a
        _buffers.release(a)
        assert _buffers.take((50, 20), np.float64) is not a  # another dtype: a new array
        assert not _buffers._kept  # and the mismatch freed what was kept
    b = _buffers.take((50, 20), np.float32)
    _buffers.release(b)  # outside the scope nothing is kept
    assert not _buffers._kept


def test_views_are_not_kept() -> None:
    with reuse_buffers():
        a = np.empty((10, 10))
        _buffers.release(a[:5])
        assert not _buffers._kept


@pytest.mark.parametrize("make", [
    lambda: Nytro(sigma=1.5, m=40, max_iter=60, random_state=1, strategy="memory",
                  validation_strategy="memory", dtype="float32"),
    lambda: Nytro(sigma=1.5, m=40, max_iter=60, random_state=1, strategy="memory",
                  validation_strategy="memory", refit=True),
    lambda: NystromPCG(sigma=1.5, m=40, lambdas=[1e-6, 1e-3], max_iter=10, random_state=1),
    lambda: KernelLandweber(sigma=1.5, max_iter=60),
], ids=["nytro-float32", "nytro-refit", "pcg", "landweber"])
def test_reused_arrays_give_the_fresh_arrays_numbers(make, data) -> None:
    """Fits in the runner's scope — the second one writing into the first one's arrays — give
    exactly the numbers of a fit with fresh arrays, and the arrays are handed on."""
    X, y, X_val, y_val = data
    fresh = make().fit(X, y, X_val, y_val)
    with reuse_buffers():
        make().fit(X[::-1], -y[::-1], X_val, y_val)  # other values in the same shapes
        kept = [id(a) for a in _buffers._kept]
        assert kept  # the fit gave its stored kernel arrays back
        reused = make().fit(X, y, X_val, y_val)
        assert set(kept) == {id(a) for a in _buffers._kept}  # the same memory, handed on
    assert not _buffers._kept
    np.testing.assert_array_equal(reused.alpha_, fresh.alpha_)
    np.testing.assert_array_equal(reused.predict(X_val), fresh.predict(X_val))
