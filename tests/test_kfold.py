"""k-fold model selection (``protocol: {selection: kfold, folds: K}``): every fold's whole path
from one fit, the mean validation error over the folds, one fit on all training rows at the
selection — equal to doing it by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kernreg import IncrementalNystromKRLS, KernelLandweber, NystromKRLS
from kernreg.config import load_experiment
from kernreg.errors import ConfigError
from kernreg.solvers.blocks.cross_validation import cross_validate, fold_indices


def _data(n: int = 240, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    return X, np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.2 * rng.standard_normal(n)


def test_a_lambda_path_by_kfold_is_the_folds_by_hand() -> None:
    X, y = _data()
    lambdas = np.logspace(-8, 0, 9)

    def make() -> NystromKRLS:
        return NystromKRLS(m=40, sigma=1.5, lambdas=lambdas, random_state=3)

    done = cross_validate(make, X, y, folds=4, seed=11, stratify=False)
    paths = []
    for fit, val in fold_indices(y, 4, 11, stratify=False):
        paths.append(make().fit(X[fit], y[fit], X[val], y[val]).path_["val_rmse"])
    mean = np.mean(paths, axis=0)
    np.testing.assert_allclose(done.selection.val_rmse, mean, rtol=1e-12)
    assert done.selection.selected == lambdas[int(np.argmin(mean))]
    by_hand = make().set_params(lam=done.selection.selected).fit(X, y)
    np.testing.assert_allclose(done.estimator.predict(X), by_hand.predict(X), rtol=1e-10)
    assert (done.n_fit, done.n_val) == (180, 60)
    assert done.selection.info["folds"] == 4


def test_an_iteration_path_is_averaged_over_the_iterations_every_fold_reached() -> None:
    X, y = _data()

    def make() -> KernelLandweber:
        return KernelLandweber(sigma=1.5, max_iter=400, stopping_rule="window_simple",
                               window=5)

    done = cross_validate(make, X, y, folds=3, seed=2, stratify=False)
    paths = [make().fit(X[f], y[f], X[v], y[v]).path_["val_rmse"]
             for f, v in fold_indices(y, 3, 2, stratify=False)]
    reached = min(len(p) for p in paths)
    mean = np.mean([p[:reached] for p in paths], axis=0)
    np.testing.assert_allclose(done.selection.val_rmse, mean, rtol=1e-12)
    t = int(np.argmin(mean)) + 1
    assert done.selection.selected == t and done.estimator.n_iter_ == t


def test_a_two_parameter_path_refits_at_its_level() -> None:
    X, y = _data()

    def make() -> IncrementalNystromKRLS:
        return IncrementalNystromKRLS(m=30, sigma=1.5, lambdas=[1e-6, 1e-3], random_state=0)

    done = cross_validate(make, X, y, folds=3, seed=5, stratify=False)
    grid = done.selection.val_rmse
    k, j = np.unravel_index(int(np.nanargmin(grid.T)), grid.T.shape)  # fewest levels on ties
    assert done.selection.info["m_selected"] == done.selection.m_values[k]
    assert done.estimator.get_params()["m"] == done.selection.m_values[k]
    assert done.estimator.get_params()["lam"] == done.selection.selected == [1e-6, 1e-3][j]


def test_classes_are_stratified_over_the_folds() -> None:
    y = np.array([1.0] * 30 + [-1.0] * 10)
    for _, val in fold_indices(y, 5, 0, stratify=True):
        assert (y[val] == -1).sum() == 2


GOOD = """
name: folds
dataset: {name: breast_cancer}
algorithms:
  - {name: nkrls, m: 40}
protocol: {trials: 1, selection: kfold, folds: 3}
"""


@pytest.mark.parametrize("change, words", [
    ("protocol: {trials: 1, folds: 3}", "protocol.folds: only with protocol.selection: kfold"),
    ("protocol: {selection: kfold, validation_fraction: 0.3}",
     "protocol.validation_fraction: k-fold selection validates on each fold"),
    ("protocol: {selection: kfold, record_test_path: true}",
     "protocol.record_test_path: k-fold selection tests one model"),
    ("protocol: {selection: kfold, folds: 1}", "protocol.folds: must be >= 2"),
])
def test_settings_that_do_not_fit_kfold_are_refused(tmp_path: Path, change: str,
                                                    words: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(GOOD.replace("protocol: {trials: 1, selection: kfold, folds: 3}", change))
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(")", r"\)")):
        load_experiment(config)


def test_an_algorithm_kfold_cannot_refit_and_a_sigma_grid_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(GOOD.replace("  - {name: nkrls, m: 40}", "  - {name: sgm}")
                      + "kernel: {sigma: [1.0, 3.0]}\n")
    with pytest.raises(ConfigError) as caught:
        load_experiment(config)
    assert "algorithms[0].name: sgm selects step" in str(caught.value)
    assert "kernel.sigma: a σ grid is selected on the hold-out split" in str(caught.value)


def test_the_hold_out_written_out_keeps_the_hash(tmp_path: Path) -> None:
    plain, said = tmp_path / "a.yaml", tmp_path / "b.yaml"
    plain.write_text(GOOD.replace(", selection: kfold, folds: 3", ""))
    said.write_text(GOOD.replace("selection: kfold, folds: 3", "selection: holdout"))
    assert load_experiment(plain).config_hash() == load_experiment(said).config_hash()
    assert "selection" not in load_experiment(said).protocol


def test_a_kfold_run_goes_through_the_runner(tmp_path: Path, kernreg_cli) -> None:
    X, y = _data(300)
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(y=y).to_csv(tmp_path / "d.csv",
                                                                index=False)
    config = tmp_path / "kf.yaml"
    config.write_text("name: kf\ndataset: {file: d.csv}\nkernel: {sigma: 1.5}\n"
                      "algorithms:\n  - {name: nkrls, m: 40}\n"
                      "  - {name: nytro, m: 40, max_iter: 300, acceleration: nu}\n"
                      "protocol: {trials: 2, selection: kfold, folds: 4}\n")
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                "--no-progress"])
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "runs" / "kf" / "results.csv")
    assert len(frame) == 4 and np.isfinite(frame["test_rmse"]).all()
    # each fold fits 3/4 of the 240 training rows and validates on a quarter
    assert set(frame["n_fit"]) == {180} and set(frame["n_val"]) == {60}


def test_path_cv_is_the_runner_s_kfold_in_a_pipeline() -> None:
    """PathCV in a Pipeline: the folds split the scaled rows, the selection is the mean path's,
    the model a fit on all rows at it; importable from the package."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from kernreg import PathCV

    X, y = _data(300)
    X = 100.0 * X + 7.0
    lambdas = np.logspace(-8, 0, 9)
    base = NystromKRLS(m=40, lambdas=lambdas, random_state=1)
    piped = make_pipeline(StandardScaler(), PathCV(base, cv=4, random_state=0)).fit(X, y)
    cv = piped[-1]
    scaled = StandardScaler().fit_transform(X)
    seed = int(np.random.default_rng(0).integers(2**32))
    done = cross_validate(lambda: NystromKRLS(m=40, lambdas=lambdas, random_state=1), scaled, y,
                          folds=4, seed=seed, stratify=False)
    np.testing.assert_allclose(cv.selection().val_rmse, done.selection.val_rmse, rtol=1e-12)
    assert cv.best_params_ == {"lam": done.selection.selected}
    np.testing.assert_allclose(piped.predict(X), done.estimator.predict(scaled), rtol=1e-10)


def test_path_cv_refuses_a_path_it_cannot_refit_and_warns_at_the_cap() -> None:
    from sklearn.exceptions import ConvergenceWarning

    from kernreg import Nytro, OnePassSGM, PathCV

    X, y = _data(120)
    labels = np.where(y > np.median(y), 1, -1)
    with pytest.raises(ValueError, match="k-fold selection refits at a λ or an iteration count; "
                                         "this path is over step"):
        PathCV(OnePassSGM(), cv=3, random_state=0).fit(X, labels)
    with pytest.warns(ConvergenceWarning, match="lowest at the last iteration every fold"):
        PathCV(Nytro(m=30, max_iter=3), cv=3, random_state=0).fit(X, y)


def test_path_cv_takes_several_outputs_where_its_estimator_does() -> None:
    from kernreg import PathCV

    X, y = _data(200)
    Y = np.column_stack([y, 2.0 * y + 1.0])
    lambdas = np.logspace(-8, 0, 9)
    cv = PathCV(NystromKRLS(m=40, sigma=1.5, lambdas=lambdas, random_state=0), cv=3,
                random_state=0).fit(X, Y)
    assert cv.predict(X).shape == (200, 2)
    from kernreg import MultiPassSGM

    with pytest.raises(ValueError, match="y should be a 1d array"):  # a hinge-loss model
        PathCV(MultiPassSGM(sigma=1.5), cv=3, random_state=0).fit(X, np.sign(Y))
