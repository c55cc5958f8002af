"""``rf`` on every registered feature map: paths over D' equal refits, map parameters in configs.

* Every level ``D'`` of a one-pass path (random Fourier features, Fastfood Walsh–Hadamard,
  Fastfood FFT, Fastfood Matérn, random Fourier Matérn) equals a direct fit with ``D'``
  features of the same seed: the same features, the same weights, the same validation error.
* ``features: {name: fastfood, variant: fft}`` carries a map's own parameters; the kernel's
  (σ, ν) come from the kernel, the Matérn maps serve ``matern12/32/52`` with their ν; bad
  entries are refused naming the key, exit status 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kernreg.cli import main
from kernreg.config import load_experiment
from kernreg.errors import ConfigError
from kernreg.features import feature_maps_for, serves
from kernreg.solvers import RandomFeaturesKRLS, rmse

#: (kernel, features) of every map family the LiM Table 1 columns use
MAPS = [
    ("gaussian", "rff"),
    ("gaussian", "fastfood"),
    ("gaussian", {"name": "fastfood", "variant": "fft"}),
    ("matern32", "fastfood_matern"),
    ("matern52", "rff_matern"),
]
IDS = ["rff", "fastfood", "fastfood_fft", "fastfood_matern", "rff_matern"]
D, LEVELS, LAMBDAS = 96, [7, 32, 33, 96], np.array([1e-6, 1e-4, 1e-2])


@pytest.fixture(scope="module")
def problem() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(7)
    X, X_val = rng.uniform(-1, 1, size=(150, 5)), rng.uniform(-1, 1, size=(60, 5))

    def f(Z: np.ndarray) -> np.ndarray:
        return np.sin(2 * Z[:, 0]) + Z[:, 1] * Z[:, 2]

    return X, f(X) + 0.05 * rng.standard_normal(150), X_val, f(X_val)


def _rf(kernel: str, features: Any, **params: Any) -> RandomFeaturesKRLS:
    return RandomFeaturesKRLS(kernel=kernel, features=features, sigma=0.8, random_state=3,
                              **params)


@pytest.mark.parametrize(("kernel", "features"), MAPS, ids=IDS)
def test_every_level_of_the_path_equals_a_refit_with_that_many_features(
    problem, kernel: str, features: Any
) -> None:
    X, y, X_val, y_val = problem
    path = _rf(kernel, features, n_components=D, d_values=LEVELS, lambdas=LAMBDAS).fit(
        X, y, X_val, y_val)
    assert path.path_["val_rmse"].shape == (LAMBDAS.size, len(LEVELS))
    for k, level in enumerate(LEVELS):  # 33: an odd level splits a Fastfood cos/sin pair
        for j, lam in enumerate(LAMBDAS):
            one = _rf(kernel, features, n_components=level, lam=lam).fit(X, y)
            # the path's coefficient at (λ, D'): a path restricted to that one point
            point = _rf(kernel, features, n_components=D, d_values=[level],
                        lambdas=[lam]).fit(X, y, X_val, y_val)
            assert point.best_n_components_ == one.feature_map_.n_components == level
            np.testing.assert_allclose(point.feature_map_.transform(X_val),
                                       one.feature_map_.transform(X_val), rtol=0, atol=1e-12)
            np.testing.assert_allclose(point.coef_, one.coef_, rtol=1e-7,
                                       atol=1e-9 * np.abs(one.coef_).max())
            assert rmse(y_val, one.predict(X_val)) == pytest.approx(
                path.path_["val_rmse"][j, k], rel=1e-8)


def test_the_path_selects_the_best_pair_and_predicts_with_it(problem) -> None:
    X, y, X_val, y_val = problem
    est = _rf("gaussian", {"name": "fastfood", "variant": "fft"}, n_components=D,
              d_values=LEVELS, lambdas=LAMBDAS).fit(X, y, X_val, y_val)
    j, k = np.unravel_index(np.argmin(est.path_["val_rmse"]), est.path_["val_rmse"].shape)
    assert (est.best_lambda_, est.best_n_components_) == (LAMBDAS[j], LEVELS[k])
    assert rmse(y_val, est.predict(X_val)) == pytest.approx(est.path_["val_rmse"][j, k],
                                                             rel=1e-10)


def test_map_parameters_come_from_the_entry_and_the_kernel(problem) -> None:
    X, y, _, _ = problem
    fft = _rf("gaussian", {"name": "fastfood", "variant": "fft"}, n_components=20).fit(X, y)
    assert fft.feature_map_.variant == "fft" and fft.feature_map_.sigma == 0.8
    assert _rf("gaussian", "fastfood", n_components=20).fit(X, y).feature_map_.variant \
        == "hadamard"
    for kernel, nu in (("matern12", 0.5), ("matern32", 1.5), ("matern52", 2.5)):
        fmap = _rf(kernel, "fastfood_matern", n_components=20).fit(X, y).feature_map_
        assert (fmap.nu, fmap.sigma, fmap.variant) == (nu, 0.8, "hadamard")
        assert serves("fastfood_matern", kernel) and serves("rff_matern", kernel)
    fmap = _rf("matern32", {"name": "fastfood_matern", "variant": "fft"}, n_components=20) \
        .fit(X, y).feature_map_
    assert (fmap.nu, fmap.variant) == (1.5, "fft")
    assert feature_maps_for("gaussian") == ["rff", "fastfood"]
    assert feature_maps_for("matern32") == ["rff_matern", "fastfood_matern"]
    assert not serves("fastfood", "matern32") and not serves("fastfood_matern", "gaussian")


@pytest.mark.parametrize(("kernel", "features", "message"), [
    ("gaussian", {"name": "fastfood", "variant": "dct"},
     r"features \(fastfood\): variant must be one of \['hadamard', 'fft'\], got 'dct'"),
    ("gaussian", {"name": "fastfood", "nu": 1.5},
     r"features\.nu: fastfood takes no parameter 'nu'; its own parameters: \['variant'\]"),
    ("gaussian", {"name": "fastfood", "sigma": 2.0},
     r"features\.sigma: sigma of fastfood is a parameter of the gaussian kernel"),
    ("matern32", {"name": "fastfood_matern", "nu": 2.5},
     r"features\.nu: nu of fastfood_matern is a parameter of the matern kernel and takes the "
     r"kernel's value"),
    ("gaussian", {"variant": "fft"}, r"features: a mapping needs name: "),
    ("gaussian", {"name": "fastfud"}, r"features\.name must be one of \['rff'.*got 'fastfud'"),
    ("gaussian", "fastfood_matern",
     r"features: 'fastfood_matern' approximates the matern kernel, not gaussian; feature maps "
     r"of the gaussian kernel: \['rff', 'fastfood'\]"),
    ("matern32", "fastfood",
     r"features: 'fastfood' approximates the gaussian kernel, not matern32; feature maps of "
     r"the matern32 kernel: \['rff_matern', 'fastfood_matern'\]"),
])
def test_the_estimator_refuses_bad_features_naming_the_key(kernel: str, features: Any,
                                                          message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _rf(kernel, features, n_components=8).fit(np.zeros((6, 3)), np.zeros(6))


CONFIG = """\
name: rf_maps
dataset: {{name: breast_cancer, n_train: 120, n_test: 60}}
kernel: {{name: {kernel}, sigma: 2.0}}
algorithms:
  - {{name: rf, n_components: 40, d_values: [20, 40], features: {features},
     lambdas: {{logspace: [1e-6, 1e-1, 4]}}}}
protocol: {{trials: 1}}
budget: {{blas_threads: 1}}
"""


def _config(tmp_path: Path, features: str, kernel: str = "gaussian") -> Path:
    path = tmp_path / "rf_maps.yaml"
    path.write_text(CONFIG.format(kernel=kernel, features=features))
    return path


def test_a_config_carries_the_map_parameters(tmp_path: Path) -> None:
    exp = load_experiment(_config(tmp_path, "{name: fastfood, variant: fft}"))
    assert exp.algorithms[0].params["features"] == {"name": "fastfood", "variant": "fft"}
    exp = load_experiment(_config(tmp_path, "{name: fastfood_matern}", kernel="matern52"))
    assert exp.algorithms[0].params["features"] == {"name": "fastfood_matern"}


@pytest.mark.parametrize(("features", "kernel", "message"), [
    ("{name: fastfood, variant: dct}", "gaussian",
     r"algorithms[0].features.variant: 'dct' is not allowed; allowed values: hadamard, fft"),
    ("{name: fastfood, varient: fft}", "gaussian",
     r"algorithms[0].features.varient: fastfood takes no parameter 'varient'; its own "
     r"parameters: ['variant']"),
    ("{name: fastfood_matern, nu: 2.5}", "matern32",
     r"algorithms[0].features.nu: nu of fastfood_matern is a parameter of the matern kernel"),
    ("{variant: fft}", "gaussian", r"algorithms[0].features: 'name' is required"),
    ("{name: fastfud}", "gaussian",
     r"algorithms[0].features.name: 'fastfud' is not allowed; allowed values: rff, "),
    ("fastfood", "matern32",
     r"algorithms[0].features: 'fastfood' approximates the gaussian kernel, not matern32"),
    ("7", "gaussian", r"algorithms[0].features: 7 is not allowed; allowed values: rff, "),
])
def test_bad_features_exit_2_naming_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            features: str, kernel: str, message: str) -> None:
    path = _config(tmp_path, features, kernel)
    with pytest.raises(ConfigError) as info:
        load_experiment(path)
    assert message in str(info.value)
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(path), "--out", str(tmp_path / "out"), "--no-progress"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err and not (tmp_path / "out" / "rf_maps").exists()
