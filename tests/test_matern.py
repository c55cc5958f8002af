"""The Matérn kernels: equal to scikit-learn's ``Matern`` to 1e-12 for ν = 1/2, 3/2, 5/2 and a
general ν, dense/sparse/float32 blocks, positive semi-definiteness, the registry (``matern``
with ν, the fixed-ν ``matern12/32/52`` for estimators that take σ only) and the config."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.gaussian_process.kernels import Matern

from kernreg.config import load_experiment, make_estimator
from kernreg.errors import ConfigError
from kernreg.kernels import (
    Matern12Kernel,
    Matern32Kernel,
    Matern52Kernel,
    MaternKernel,
    get_kernel_spec,
    kernel_names,
    make_kernel,
)
from kernreg.kernels.registry import POSITIVE


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5, 0.8, 3.7])
@pytest.mark.parametrize("sigma", [0.3, 1.0, 4.2])
def test_equals_sklearn_matern(nu: float, sigma: float) -> None:
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(60, 7)), rng.normal(size=(25, 7))
    ref = Matern(length_scale=sigma, nu=nu)
    np.testing.assert_allclose(make_kernel("matern", sigma, nu=nu)(X, Y), ref(X, Y),
                               rtol=0, atol=1e-12)
    K = make_kernel("matern", sigma, nu=nu)(X)
    np.testing.assert_allclose(K, ref(X), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(np.diag(K), 1.0)  # coincident points: exactly 1


@pytest.mark.parametrize("name,cls,nu", [("matern12", Matern12Kernel, 0.5),
                                         ("matern32", Matern32Kernel, 1.5),
                                         ("matern52", Matern52Kernel, 2.5)])
def test_fixed_nu_registrations(name: str, cls: type, nu: float) -> None:
    X = np.random.default_rng(1).normal(size=(30, 4))
    kern = make_kernel(name, 1.7)
    assert type(kern) is cls and kern.nu == nu and kern.sigma == 1.7
    np.testing.assert_allclose(kern(X), Matern(length_scale=1.7, nu=nu)(X), rtol=0, atol=1e-12)
    assert get_kernel_spec(name).parameters == ("sigma",)


def test_general_nu_at_large_distances_is_zero_not_nan() -> None:
    X = np.array([[0.0], [1e4]])
    K = make_kernel("matern", 0.1, nu=0.8)(X)
    assert np.isfinite(K).all() and K[0, 1] == 0.0


def test_blocks_sparse_and_float32() -> None:
    rng = np.random.default_rng(2)
    X = sp.random(50, 9, density=0.3, format="csr", random_state=3)
    C = rng.normal(size=(12, 9))
    ref = Matern(length_scale=0.9, nu=1.5)(X.toarray(), C)
    kern = MaternKernel(0.9, 1.5, memory_budget=8 * 12 * 7)  # 7 rows a block
    np.testing.assert_allclose(kern(X, C), ref, rtol=0, atol=1e-12)
    blocks = list(kern.blocks(X, C))
    assert len(blocks) == 8
    np.testing.assert_allclose(np.vstack([b for _, b in blocks]), ref, rtol=0, atol=1e-12)
    K32 = MaternKernel(0.9, 2.5, dtype="float32")(X.toarray(), C)
    assert K32.dtype == np.float32
    np.testing.assert_allclose(K32, Matern(length_scale=0.9, nu=2.5)(X.toarray(), C),
                               atol=1e-5)
    v = rng.normal(size=12)
    np.testing.assert_allclose(kern.matvec(X, C, v), ref @ v, atol=1e-12)


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5, 1.1])
def test_gram_is_positive_semi_definite(nu: float) -> None:
    X = np.random.default_rng(4).normal(size=(80, 3))
    eig = np.linalg.eigvalsh(make_kernel("matern", 1.3, nu=nu)(X))
    assert eig.min() > -1e-10 * eig.max()


def test_registry_and_checks() -> None:
    assert {"matern", "matern12", "matern32", "matern52"} <= set(kernel_names())
    spec = get_kernel_spec("matern")
    assert spec.kernel is MaternKernel and spec.parameters == ("sigma", "nu")
    assert spec.schema["nu"] == POSITIVE and spec.defaults == {"nu": 1.5}
    assert make_kernel("matern", 2.0).nu == 1.5
    assert repr(make_kernel("matern", 2.0, nu=0.5)).startswith("MaternKernel(nu=0.5, sigma=2.0")
    with pytest.raises(ValueError, match="nu"):
        make_kernel("matern", 1.0, nu=0.0)
    with pytest.raises(ValueError, match=r"takes the parameters \['sigma'\], got \['nu'\]"):
        make_kernel("matern32", 1.0, nu=2.5)


CONFIG = """
name: matern_cfg
dataset: {name: breast_cancer}
kernel: KERNEL
algorithms:
  - {name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1e-1, 6]}}
protocol: {trials: 1}
"""


def test_config_takes_the_fixed_nu_kernels_and_nu_only_for_estimators_taking_it(
        tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(CONFIG.replace("KERNEL", "{name: matern32, sigma: 2.0}"))
    exp = load_experiment(path)
    assert exp.kernel == {"name": "matern32", "sigma": 2.0}
    # NKRLS takes the kernel's parameters (kernel_params): ν reaches its kernel
    path.write_text(CONFIG.replace("KERNEL", "{name: matern, nu: 2.5}"))
    exp = load_experiment(path)
    estimator = make_estimator(exp.algorithms[0], exp, random_state=0)
    assert estimator.kernel_params == {"nu": 2.5} and estimator._make_kernel().nu == 2.5
    # NYTRO's own `nu` (the ν-method) is not the kernel's: the kernel's ν never reaches it
    path.write_text(CONFIG.replace("KERNEL", "{name: matern, nu: 2.5}")
                    .replace("{name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1e-1, 6]}}",
                             "{name: nytro, m: 20}"))
    with pytest.raises(ConfigError, match=r"kernel.nu: the nytro estimator takes no kernel "
                                          r"parameter 'nu'"):
        load_experiment(path)
