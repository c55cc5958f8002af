"""Adding a kernel touches its own file and its registration — nothing else.

A toy kernel (Cauchy, ``1 / (1 + ‖x − x'‖²/σ²)``) is defined and registered here, at run time,
without editing any kernreg module; a config naming it goes through validation (its schema,
σ from the dataset), trials of built-in algorithms (which build it by name), the run store and
the tables, exactly as a built-in kernel does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from kernreg.config import load_experiment
from kernreg.errors import ConfigError
from kernreg.experiment import run_experiment
from kernreg.kernels import (
    DistanceKernel,
    KernelSpec,
    get_kernel_spec,
    kernel_names,
    make_kernel,
    register,
    unregister,
)
from kernreg.kernels.base import DEFAULT_MEMORY_BUDGET, Data
from kernreg.kernels.registry import POSITIVE
from kernreg.results.store import load_run
from kernreg.results.tables import Collected, render_table


class CauchyKernel(DistanceKernel):
    """``k(x, x') = (1 + ‖x − x'‖²/σ²)^(−power)``; counts the blocks it fills."""

    filled = 0

    def __init__(self, sigma: float = 1.0, power: float = 1.0, *, dtype: Any = "float64",
                 memory_budget: int = DEFAULT_MEMORY_BUDGET):
        super().__init__(sigma, dtype=dtype, memory_budget=memory_budget)
        self.power = power

    def _fill(self, Xb: Data, Y: Data, aux: np.ndarray, out: np.ndarray) -> np.ndarray:
        type(self).filled += 1
        self._sq_dist(Xb, Y, aux, out)
        out *= 1.0 / self.sigma**2
        out += 1.0
        np.power(out, -self.power, out=out)
        return out


CAUCHY = KernelSpec(name="toy_cauchy", kernel=CauchyKernel, schema={"sigma": POSITIVE},
                    summary="a toy")
# the same class with a second parameter and its default
POWERED = KernelSpec(name="toy_powered", kernel=CauchyKernel,
                     schema={"sigma": POSITIVE, "power": POSITIVE}, defaults={"power": 2.0})


@pytest.fixture
def toys() -> Iterator[None]:
    register(CAUCHY)
    register(POWERED)
    yield
    unregister(CAUCHY.name)
    unregister(POWERED.name)


CONFIG = """
name: toy_kernel_run
dataset: {name: breast_cancer}
kernel: {name: toy_cauchy}
algorithms:
  - {name: kols}
  - {name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1e-1, 6]}}
protocol: {trials: 2}
budget: {blas_threads: 1}
"""


def _config(tmp_path: Path, kernel: str) -> Path:
    path = tmp_path / f"k{abs(hash(kernel))}.yaml"
    path.write_text(CONFIG.replace("kernel: {name: toy_cauchy}", f"kernel: {kernel}"))
    return path


def test_a_registered_toy_kernel_runs_through_validation_trials_store_and_tables(
    toys: None, tmp_path: Path
) -> None:
    assert kernel_names()[-2:] == ["toy_cauchy", "toy_powered"]
    exp = load_experiment(_config(tmp_path, "{name: toy_cauchy}"))
    assert exp.kernel["name"] == "toy_cauchy"
    assert exp.kernel["sigma"] > 0  # the dataset's paper σ, as for the built-in kernels
    before = CauchyKernel.filled
    results = run_experiment(exp, tmp_path / "out", progress=False)
    assert CauchyKernel.filled > before  # the trials evaluated the toy, not a built-in kernel
    assert set(results["kernel"]) == {"toy_cauchy"} and len(results) == 4
    assert np.isfinite(results["test_rmse"]).all()
    assert {r.algorithm for r in load_run(tmp_path / "out" / "toy_kernel_run").records} == {
        "kols", "nkrls"}
    table = render_table("table2", Collected(results))
    assert "| dataset |  | KOLS | NKRLS |" in table and "Breast Cancer Wisconsin" in table


def test_its_schema_and_defaults_come_from_its_registration(toys: None, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="kernel.sigma: must be > 0, got 0"):
        load_experiment(_config(tmp_path, "{name: toy_cauchy, sigma: 0}"))
    with pytest.raises(ConfigError, match="kernel: unknown key 'power'; allowed keys: name, "
                                          "sigma"):
        load_experiment(_config(tmp_path, "{name: toy_cauchy, power: 2}"))
    assert get_kernel_spec("toy_powered").config_schema()["properties"]["power"] == POSITIVE
    # a parameter's default is filled in (the manifest records it); the built-in estimators
    # build their kernel from name and σ only, so they refuse a kernel parameter they would drop
    with pytest.raises(ConfigError, match=r"algorithms\[0\] \(kols\): kernel.power: the kols "
                                          r"estimator takes no kernel parameter 'power'"):
        load_experiment(_config(tmp_path, "{name: toy_powered, sigma: 2.0}"))


def test_make_kernel_builds_it_by_name_with_its_defaults(toys: None) -> None:
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(9, 3)), rng.normal(size=(4, 3))
    sq = cdist(X, Y, "sqeuclidean")
    np.testing.assert_allclose(make_kernel("toy_cauchy", 1.5)(X, Y), 1 / (1 + sq / 2.25),
                               rtol=1e-12)
    np.testing.assert_allclose(make_kernel("toy_powered", 1.5)(X, Y), (1 + sq / 2.25) ** -2.0,
                               rtol=1e-12)
    np.testing.assert_allclose(make_kernel("toy_powered", 1.5, power=0.5)(X, Y),
                               (1 + sq / 2.25) ** -0.5, rtol=1e-12)
    with pytest.raises(ValueError, match=r"takes the parameters \['sigma'\], got \['power'\]"):
        make_kernel("toy_cauchy", 1.5, power=2.0)


def test_registration_is_checked() -> None:
    with pytest.raises(ValueError, match="kernel 'gaussian' is registered twice"):
        register(KernelSpec(name="gaussian", kernel=CauchyKernel, schema={"sigma": POSITIVE}))
    with pytest.raises(ValueError, match="does not accept the parameters"):
        KernelSpec(name="toy_bad", kernel=CauchyKernel, schema={"nu": POSITIVE})
    with pytest.raises(ValueError, match="defaults for parameters without a schema"):
        KernelSpec(name="toy_bad", kernel=CauchyKernel, defaults={"sigma": 1.0})
    with pytest.raises(ValueError, match="must be a Kernel subclass"):
        KernelSpec(name="toy_bad", kernel=dict)
    with pytest.raises(ValueError, match="kernel name must match"):
        KernelSpec(name="Toy Bad", kernel=CauchyKernel)


def test_unregistered_it_is_unknown(tmp_path: Path) -> None:
    assert "toy_cauchy" not in kernel_names()
    with pytest.raises(ConfigError, match="kernel.name: 'toy_cauchy' is not allowed; allowed "
                                          "values: gaussian, laplacian"):
        load_experiment(_config(tmp_path, "{name: toy_cauchy}"))
    with pytest.raises(ValueError, match="unknown kernel 'toy_cauchy'"):
        make_kernel("toy_cauchy")
