"""Several outputs in one fit and least-squares classification of any number of classes: the k
columns of ``y`` from one factorization equal k single-output fits; the one-vs-all classifiers
are those fits of the coded classes."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from kernreg import (
    KOLS,
    KRLS,
    IncrementalNystromKRLS,
    KernelLandweber,
    KRLSClassifier,
    NystromKRLS,
    NystromKRLSClassifier,
    NystromPCG,
    Nytro,
    OnePassSGM,
    RandomFeaturesKRLS,
)
from kernreg.solvers.classifiers import CLASSIFIER_FORMS


def _problem(n: int = 240, k: int = 4, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n + 80, 3))
    W = rng.standard_normal((3, k))
    Y = np.sin(X @ W) + 10.0 * np.arange(k) + 0.1 * rng.standard_normal((n + 80, k))
    return X[:n], Y[:n], X[n:], Y[n:]


@pytest.mark.parametrize("make", [
    lambda **kw: NystromKRLS(m=60, sigma=1.5, random_state=2, **kw),
    lambda **kw: KRLS(sigma=1.5, **kw),
], ids=["NystromKRLS", "KRLS"])
def test_k_outputs_are_k_single_fits(make) -> None:
    X, Y, X_val, Y_val = _problem()
    lambdas = np.logspace(-8, 0, 9)
    joint = make(lambdas=lambdas).fit(X, Y, X_val, Y_val)
    assert joint.alpha_.shape[1] == 4 and joint.intercept_.shape == (4,)
    for j in range(4):  # at the jointly selected λ, each column alone
        alone = make(lam=joint.best_lambda_).fit(X, Y[:, j])
        np.testing.assert_allclose(joint.predict(X_val)[:, j], alone.predict(X_val),
                                   rtol=1e-10, atol=1e-10)
    # the joint path's error is the RMSE over every validation row and output
    paths = make(lambdas=lambdas).fit(X, Y, X_val, Y_val)
    outputs = paths.predict_path(X_val) if hasattr(paths, "predict_path") else None
    if outputs is not None:
        rmse = np.sqrt(((outputs - Y_val[:, None, :]) ** 2).mean(axis=(0, 2)))
        np.testing.assert_allclose(paths.path_["val_rmse"], rmse, rtol=1e-10)


def test_one_column_as_a_matrix_is_the_vector_fit() -> None:
    X, Y, X_val, _ = _problem(k=1)
    matrix = NystromKRLS(m=40, sigma=1.5, lam=1e-4, random_state=0).fit(X, Y)
    vector = NystromKRLS(m=40, sigma=1.5, lam=1e-4, random_state=0).fit(X, Y[:, 0])
    np.testing.assert_allclose(matrix.predict(X_val)[:, 0], vector.predict(X_val), rtol=1e-12)


def test_what_a_multi_output_fit_does_not_take_is_named() -> None:
    X, Y, X_val, Y_val = _problem(n=60, k=2)
    with pytest.raises(ValueError, match="precision='mixed' refines one output"):
        NystromKRLS(m=20, precision="mixed").fit(X, Y)
    with pytest.raises(ValueError, match=r"y_val has 1 output\(s\) but y has 2"):
        NystromKRLS(m=20).fit(X, Y, X_val, Y_val[:, 0])
    with pytest.raises(ValueError, match="y should be a 1d array"):
        OnePassSGM().fit(X, np.sign(Y))  # a hinge-loss model fits one output: refused


def test_nystrom_krls_classifier_at_its_defaults_on_digits() -> None:
    X, y = load_digits(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X / 16, y, test_size=0.3, random_state=0)
    clf = NystromKRLSClassifier(random_state=0).fit(X_tr, y_tr)
    assert clf.score(X_te, y_te) >= 0.98
    assert clf.decision_function(X_te).shape == (len(y_te), 10)
    np.testing.assert_array_equal(clf.classes_, np.arange(10))


def test_the_classifier_is_the_regressor_of_the_coded_classes() -> None:
    rng = np.random.default_rng(4)
    X = rng.standard_normal((150, 2))
    labels = np.array(["ant", "bee", "cat"])[np.argmax(X @ rng.standard_normal((2, 3)), axis=1)]
    for coding, other in (("pm1", -1.0), ("balanced", -0.5)):
        clf = KRLSClassifier(sigma=1.0, lam=1e-3, coding=coding).fit(X, labels)
        Y = np.where(labels[:, None] == clf.classes_[None, :], 1.0, other)
        reg = KRLS(sigma=1.0, lam=1e-3).fit(X, Y)
        np.testing.assert_allclose(clf.decision_function(X), reg.predict(X), rtol=1e-10)
        np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(reg.predict(X), 1)])
    # two classes: one ±1 column, its sign the class
    two = KRLSClassifier(sigma=1.0, lam=1e-3).fit(X, labels == "ant")
    assert two.decision_function(X).shape == (150,)
    np.testing.assert_array_equal(two.predict(X), two.decision_function(X) > 0)


def test_validation_rows_select_the_classifier_s_lambda() -> None:
    X, y = load_digits(return_X_y=True)
    X_fit, X_val, y_fit, y_val = train_test_split(X / 16, y, test_size=0.25, random_state=1)
    clf = NystromKRLSClassifier(m=200, lambdas=np.logspace(-8, 0, 9), random_state=0).fit(
        X_fit, y_fit, X_val, y_val)
    assert clf.path_["val_rmse"].shape == (9,)
    assert clf.best_lambda_ == clf.path_["lambdas"][int(np.argmin(clf.path_["val_rmse"]))]
    with pytest.raises(ValueError, match="y_val has labels"):
        NystromKRLSClassifier(m=50).fit(X_fit, y_fit, X_val, np.where(y_val == 3, 11, y_val))


def _blobs(tmp_path, n: int = 300):
    """Three well-separated classes in a CSV, text labels."""
    import pandas as pd

    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    label = rng.integers(0, 3, n)
    X = centres[label] + rng.standard_normal((n, 2))
    names = np.array(["ant", "bee", "cat"])[label]
    pd.DataFrame(X, columns=["a", "b"]).assign(kind=names).to_csv(tmp_path / "blobs.csv",
                                                                   index=False)


def test_a_multiclass_file_runs_through_the_runner(tmp_path, kernreg_cli) -> None:
    import pandas as pd

    _blobs(tmp_path)
    config = tmp_path / "blobs.yaml"
    config.write_text("name: blobs\ndataset: {file: blobs.csv, target: kind}\n"
                      "algorithms:\n  - {name: nkrls, m: 40}\n  - {name: krls}\n"
                      "  - {name: kols}\n  - {name: es}\n  - {name: nytro, m: 40}\n"
                      "  - {name: inkrls, m: 40}\n  - {name: rf, n_components: 100}\n"
                      "  - {name: pcg, m: 40}\nprotocol: {trials: 2}\n")
    code, out, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                  "--no-progress"])
    assert code == 0, err
    assert "accuracy |" in out
    frame = pd.read_csv(tmp_path / "runs" / "blobs" / "results.csv")
    assert set(frame["task"]) == {"multiclass"}
    assert set(frame["algorithm"]) == {"nkrls", "krls", "kols", "es", "nytro", "inkrls", "rf",
                                       "pcg"}
    assert (frame["test_accuracy"] > 0.9).all()
    # the per-class accuracy of each class (coded by their index in the sorted labels)
    assert {"test_accuracy_class_0", "test_accuracy_class_2"} <= set(frame.columns)
    kfold = config.read_text().replace("trials: 2}", "trials: 1, selection: kfold, folds: 3}")
    kfold = kfold.replace("  - {name: kols}\n", "")  # nothing to select: hold-out only
    config.write_text(kfold.replace("name: blobs", "name: blobs_kfold"))
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                "--no-progress"])
    assert code == 0, err


def test_an_algorithm_without_a_classifier_form_is_refused_for_classes(tmp_path,
                                                                       kernreg_cli) -> None:
    _blobs(tmp_path)
    config = tmp_path / "blobs.yaml"
    config.write_text("name: blobs\ndataset: {file: blobs.csv, target: kind}\n"
                      "algorithms:\n  - {name: sgm}\n")
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs")])
    assert code == 2
    assert "algorithms[0].name: sgm fits one output; file:blobs.csv is multiclass" in err
    assert "kols, krls, es, nkrls, nytro, inkrls, rf, pcg" in err
    assert not (tmp_path / "runs").exists()
    # what fits one output is named: mixed precision, the Dask rows, a device
    config.write_text(config.read_text().replace("{name: sgm}",
                                                 "{name: nkrls, m: 40, precision: mixed}"))
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs")])
    assert code == 2 and "algorithms[0].precision: mixed fits one output" in err
    config.write_text(config.read_text().replace("precision: mixed", "backend: dask"))
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                "--scheduler", "local:1"])
    assert code == 2 and "algorithms[0].backend: dask fits one output" in err
    config.write_text(config.read_text().replace(", backend: dask", ""))
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                "--device", "torch"])
    assert code == 2 and "a multiclass task fits one output per class, on the cpu" in err
    assert not (tmp_path / "runs").exists()


@pytest.mark.mirror
def test_mnist_runs_as_a_multiclass_task_in_both_selections(mirror, tmp_path,
                                                            kernreg_cli) -> None:
    """The registered MNIST through the runner: NKRLS as one-vs-all RLSC, hold-out and 3-fold
    selection (at 2000 training rows and m = 300 here; 20000 and m = 2000 reach 96.9 %)."""
    import pandas as pd

    config = tmp_path / "mnist.yaml"
    config.write_text("name: mnist\ndataset: {name: mnist, n_train: 2000, n_test: 1000}\n"
                      "task: multiclass\nkernel: {sigma: 7.0}\n"
                      "algorithms:\n  - {name: nkrls, m: 300}\nprotocol: {trials: 1}\n")
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                "--no-progress"])
    assert code == 0, err
    accuracy = pd.read_csv(tmp_path / "runs" / "mnist" / "results.csv")["test_accuracy"]
    assert accuracy.iloc[0] > 0.88
    config.write_text(config.read_text().replace("trials: 1}", "trials: 1, selection: kfold, "
                                                 "folds: 3}").replace("name: mnist\n",
                                                                      "name: mnist_kf\n"))
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                "--no-progress"])
    assert code == 0, err


@pytest.mark.parametrize("strategy", ["gram", "memory", "blocked"])
@pytest.mark.parametrize("acceleration", ["none", "nu"])
def test_nytro_iterates_k_outputs_as_k_single_fits(strategy: str, acceleration: str) -> None:
    """Every column of ``y`` in the same iterations (each strategy's products, both updates):
    the joint path's t*, then each column alone for t* iterations at the same step size."""
    X, Y, X_val, Y_val = _problem(k=3)
    joint = Nytro(m=50, sigma=1.5, max_iter=60, strategy=strategy, acceleration=acceleration,
                  stopping_rule="none", random_state=0).fit(X, Y, X_val, Y_val)
    assert joint.alpha_.shape == (50, 3)
    for j in range(3):
        alone = Nytro(m=50, sigma=1.5, max_iter=joint.best_iter_, strategy=strategy,
                      acceleration=acceleration, stopping_rule="none", random_state=0,
                      step_size=joint.step_size_).fit(X, Y[:, j])
        np.testing.assert_allclose(joint.predict(X_val)[:, j], alone.predict(X_val),
                                   rtol=1e-9, atol=1e-9)


def test_nytro_classifier_at_its_defaults_on_digits() -> None:
    from kernreg import NytroClassifier

    X, y = load_digits(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X / 16, y, test_size=0.3, random_state=0)
    clf = NytroClassifier(random_state=0).fit(X_tr, y_tr)
    assert clf.score(X_te, y_te) >= 0.98
    assert clf.decision_function(X_te).shape == (len(y_te), 10)


@pytest.mark.parametrize("merge", [True, False])
def test_landweber_iterates_k_outputs_as_k_single_fits(merge: bool) -> None:
    """Every column in the same iterations, repeated rows merged or not."""
    X, Y, X_val, Y_val = _problem(k=3)
    X, Y = np.vstack([X, X[:30]]), np.vstack([Y, Y[:30]])
    joint = KernelLandweber(sigma=1.5, max_iter=80, stopping_rule="none",
                            merge_duplicates=merge).fit(X, Y, X_val, Y_val)
    for j in range(3):
        alone = KernelLandweber(sigma=1.5, max_iter=joint.best_iter_, stopping_rule="none",
                                merge_duplicates=merge, step_size=joint.step_size_).fit(X, Y[:, j])
        np.testing.assert_allclose(joint.predict(X_val)[:, j], alone.predict(X_val),
                                   rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("solver", ["pivoted_cholesky", "eigh"])
@pytest.mark.parametrize("merge", [True, False])
def test_kols_solves_k_outputs_with_one_factorization(solver: str, merge: bool) -> None:
    X, Y, X_val, Y_val = _problem(n=150, k=3)
    X, Y = np.vstack([X, X[:20]]), np.vstack([Y, Y[:20]])  # repeated rows, merged or not
    joint = KOLS(sigma=0.3, solver=solver, merge_duplicates=merge).fit(X, Y, X_val, Y_val)
    assert joint.alpha_.shape == (170, 3)
    alone = [KOLS(sigma=0.3, solver=solver, merge_duplicates=merge).fit(X, Y[:, j], X_val,
                                                                        Y_val[:, j])
             for j in range(3)]
    for j, fit in enumerate(alone):
        np.testing.assert_allclose(joint.predict(X_val)[:, j], fit.predict(X_val),
                                   rtol=1e-10, atol=1e-10)
    joint_rmse = np.sqrt(np.mean([fit.path_["val_rmse"][0] ** 2 for fit in alone]))
    np.testing.assert_allclose(joint.path_["val_rmse"], [joint_rmse], rtol=1e-10)


@pytest.mark.parametrize("make", [
    lambda **kw: IncrementalNystromKRLS(m=60, sigma=1.5, random_state=2, **kw),
    lambda **kw: IncrementalNystromKRLS(m=60, sigma=1.5, random_state=2, update="rank_one",
                                        **kw),
    lambda **kw: RandomFeaturesKRLS(n_components=60, sigma=1.5, random_state=2,
                                    **{("d_values" if key == "m_values" else key): value
                                       for key, value in kw.items()}),
], ids=["inkrls", "inkrls-rank_one", "rf"])
def test_a_two_parameter_path_of_k_outputs_is_k_paths(make) -> None:
    """Every (λ, level) of the joint path scores the RMSE over all outputs: its square is the
    mean of the columns' own squares; at the joint selection each column alone (a one-point
    grid there) predicts what the joint model's column does."""
    X, Y, X_val, Y_val = _problem(k=3)
    grid = {"lambdas": np.logspace(-8, 0, 5), "m_values": [20, 40, 60]}
    joint = make(**grid).fit(X, Y, X_val, Y_val)
    alone = [make(**grid).fit(X, Y[:, j], X_val, Y_val[:, j]) for j in range(3)]
    squares = np.mean([fit.path_["val_rmse"] ** 2 for fit in alone], axis=0)
    np.testing.assert_allclose(joint.path_["val_rmse"] ** 2, squares, rtol=1e-9)
    level = getattr(joint, "best_m_", getattr(joint, "best_n_components_", None))
    point = {"lambdas": [joint.best_lambda_], "m_values": [level]}
    for j in range(3):
        fit = make(**point).fit(X, Y[:, j], X_val, Y_val[:, j])
        np.testing.assert_allclose(joint.predict(X_val)[:, j], fit.predict(X_val),
                                   rtol=1e-10, atol=1e-10)
    refitted = make(**grid, refit=True).fit(X, Y, X_val, Y_val)
    for j in range(3):  # the refit on all rows, column by column
        fit = make(**point, refit=True).fit(X, Y[:, j], X_val, Y_val[:, j])
        np.testing.assert_allclose(refitted.predict(X_val)[:, j], fit.predict(X_val),
                                   rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("strategy", ["memory", "blocked", "gram"])
@pytest.mark.parametrize("preconditioner", ["falkon", "nystrom"])
def test_pcg_runs_k_conjugate_gradients_in_lockstep(strategy: str, preconditioner: str) -> None:
    """Each column's own CG: the validated path of one λ, and fits stopped by ``tol`` where the
    columns converge after different numbers of iterations (one held, the others going on)."""
    X, Y, X_val, Y_val = _problem(k=3)

    def make(**kw):
        return NystromPCG(m=50, sigma=1.5, random_state=0, strategy=strategy,
                          preconditioner=preconditioner, **kw)

    joint = make(lambdas=[1e-2], max_iter=6, stopping_rule="none").fit(X, Y, X_val, Y_val)
    assert joint.alpha_.shape == (50, 3)
    for j in range(3):
        alone = make(lam=1e-2, max_iter=joint.best_iter_).fit(X, Y[:, j])
        np.testing.assert_allclose(joint.predict(X_val)[:, j], alone.predict(X_val),
                                   rtol=1e-10, atol=1e-10)
    if preconditioner == "nystrom":
        return  # K_mm⁻¹'s conditioning grows rounding ×20 an iteration here: 1e-6 at 12
    Y[:, 2] = X[:, 0]  # a smoother column, which reaches tol = 1e-6 an iteration later
    for tol, counts in ((1e-3, [6, 6, 6]), (1e-6, [11, 11, 12])):
        joint = make(lam=1e-2, max_iter=50, tol=tol).fit(X, Y)
        alone = [make(lam=1e-2, max_iter=50, tol=tol).fit(X, Y[:, j]) for j in range(3)]
        assert [fit.n_iter_ for fit in alone] == counts and joint.n_iter_ == max(counts)
        for j, fit in enumerate(alone):
            np.testing.assert_allclose(joint.predict(X_val)[:, j], fit.predict(X_val),
                                       rtol=1e-10, atol=1e-10)


def test_a_constant_output_is_held_from_the_start() -> None:
    """A column with nothing to fit (constant, centred away) converges before any step: CG
    holds it at its warm start while the others iterate."""
    X, Y, X_val, _ = _problem(k=2)
    Y[:, 1] = 5.0
    fit = NystromPCG(m=50, sigma=1.5, lam=1e-2, max_iter=10, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(fit.alpha_[:, 1], 0.0)
    np.testing.assert_allclose(fit.predict(X_val)[:, 1], 5.0)
    alone = NystromPCG(m=50, sigma=1.5, lam=1e-2, max_iter=10, random_state=0).fit(X, Y[:, 0])
    np.testing.assert_allclose(fit.predict(X_val)[:, 0], alone.predict(X_val), rtol=1e-10)


@pytest.mark.parametrize("regressor", sorted(CLASSIFIER_FORMS, key=lambda cls: cls.__name__),
                         ids=lambda cls: cls.__name__)
def test_every_classifier_form_is_its_regressor_of_the_coded_classes(regressor) -> None:
    """Each least-squares classifier is its regressor fitted on the ±1 (or balanced) coded
    classes, with the same parameters; its labels are the largest output's class."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((150, 2))
    labels = np.array(["ant", "bee", "cat"])[np.argmax(X @ rng.standard_normal((2, 3)), axis=1)]
    params = {key: value for key, value in {"sigma": 1.0, "random_state": 0, "m": 40,
                                            "n_components": 60, "max_iter": 30}.items()
              if key in regressor().get_params()}
    for coding, other in (("pm1", -1.0), ("balanced", -0.5)):
        clf = CLASSIFIER_FORMS[regressor](coding=coding, **params).fit(X, labels)
        Y = np.where(labels[:, None] == clf.classes_[None, :], 1.0, other)
        shared = {key: value for key, value in clf.get_params().items() if key != "coding"}
        reg = regressor(**shared).fit(X, Y)  # the classifier's own defaults (m, steps) too
        np.testing.assert_allclose(clf.decision_function(X), reg.predict(X), rtol=1e-10,
                                   atol=1e-10)
        np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(reg.predict(X), 1)])
        assert clf.score(X, labels) > 0.9


@pytest.mark.parametrize("name", ["KOLSClassifier", "IncrementalNystromKRLSClassifier",
                                  "NystromPCGClassifier", "RandomFeaturesKRLSClassifier"])
def test_the_other_classifier_forms_at_their_defaults_on_digits(name: str) -> None:
    import kernreg

    X, y = load_digits(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X / 16, y, test_size=0.3, random_state=0)
    cls = getattr(kernreg, name)
    clf = cls(**({"random_state": 0} if "random_state" in cls().get_params() else {}))
    assert clf.fit(X_tr, y_tr).score(X_te, y_te) >= 0.98


@pytest.mark.parametrize("name, params", [
    ("krls", {"lambdas": None}), ("nkrls", {"m": 100, "lambdas": None}),
    ("inkrls", {"m": 100, "lambdas": None}), ("rf", {"n_components": 100, "lambdas": None})])
def test_the_memory_plan_holds_a_path_per_class(name: str, params: dict) -> None:
    """A multiclass run's preflight counts every class's coefficients along the path."""
    from kernreg.solvers import get_algorithm_spec
    from kernreg.solvers.registry import MemoryProblem

    spec = get_algorithm_spec(name)
    one, ten = (spec.memory(params, MemoryProblem(5000, 1000, 1000, 20, 2**24, 2**34,
                                                  outputs=k))
                for k in (1, 10))
    assert ten["path"] == 10 * one["path"]
    assert {key: value for key, value in ten.items() if key != "path"} == \
        {key: value for key, value in one.items() if key != "path"}


def test_top_k_accuracy_counts_the_class_among_the_k_largest_outputs() -> None:
    from kernreg.losses import get_measure, get_task

    task, classes = get_task("multiclass"), ("ant", "bee", "cat")
    outputs = np.array([[0.1, 0.5, 0.4], [0.9, 0.0, 0.1], [0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    labels = np.array(["ant", "cat", "bee", "ant"])
    assert get_measure("accuracy").compute(task, labels, outputs, classes) == 0.25
    assert get_measure("top_2_accuracy").compute(task, labels, outputs, classes) == 0.75
    assert get_measure("top_3_accuracy").compute(task, labels, outputs, classes) == 1.0
    with pytest.raises(ValueError, match=r"one output per class, \(n, 3\)"):
        get_measure("top_2_accuracy").compute(task, labels, outputs[:, :2], classes)


def test_a_config_asks_for_top_k_beside_the_task_s_measures(tmp_path, kernreg_cli) -> None:
    import pandas as pd

    _blobs(tmp_path)
    config = tmp_path / "blobs.yaml"
    config.write_text("name: blobs\ndataset: {file: blobs.csv, target: kind}\n"
                      "measures: [top_2_accuracy]\n"
                      "algorithms:\n  - {name: nkrls, m: 40}\nprotocol: {trials: 1}\n")
    code, out, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                  "--no-progress"])
    assert code == 0, err
    assert "| top-2 accuracy |" in out
    frame = pd.read_csv(tmp_path / "runs" / "blobs" / "results.csv")
    assert (frame["test_top_2_accuracy"] >= frame["test_accuracy"]).all()
    code, out, err = kernreg_cli(["table", str(tmp_path / "runs" / "blobs")])
    assert code == 0 and "top-2 accuracy" in out, err
    # a measure of classes on a regression run is named, nothing written
    rows = np.random.default_rng(0).standard_normal((60, 3))
    np.savetxt(tmp_path / "reg.csv", rows, delimiter=",", header="a,b,t", comments="")
    config.write_text("name: reg\ndataset: {file: reg.csv, target: t}\n"
                      "measures: [top_2_accuracy]\nalgorithms:\n  - {name: krls}\n")
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "reg")])
    assert code == 2
    assert "measures[0]: top_2_accuracy reads the outputs of a multiclass task" in err
    assert not (tmp_path / "reg").exists()


def test_a_classifier_names_labels_that_do_not_match_the_rows() -> None:
    X = np.random.default_rng(0).standard_normal((6, 2))
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[6, 0\]"):
        NystromKRLSClassifier(m=3).fit(X, np.zeros(0))
    with pytest.raises(ValueError, match="X: Found array with 0 sample"):
        NystromKRLSClassifier(m=3).fit(X[:0], np.zeros(0))
