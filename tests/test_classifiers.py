"""The hinge-loss algorithms (SGM, SIGM, SGM on random features, LIBSVM) are scikit-learn
classifiers: any two labels, ``classes_``, labels from ``predict``, the real-valued output from
``decision_function``, accuracy from ``score``, more than two classes refused; LIBSVM takes CSR
input; a trial measures the real-valued output."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import is_classifier, is_regressor
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV

from kernreg.experiment.trial import real_outputs
from kernreg.solvers import FeatureSGM, LibSVM, MultiPassSGM, OnePassSGM, algorithm_specs
from kernreg.solvers.blocks.sigma_search import SigmaSearch

CLASSIFIER_NAMES = ("sgm", "sigm", "sgm_rf", "libsvm")
#: Each classifier, small and seeded, and a grid of one of its parameters.
CASES = {
    "sgm": (OnePassSGM(random_state=0), {"eta": [0.1, 1.0]}),
    "sigm": (MultiPassSGM(max_iter=5, random_state=0), {"step_size": [0.05, 0.5]}),
    "sgm_rf": (FeatureSGM(n_components=50, random_state=0), {"eta": [0.1, 1.0]}),
    "libsvm": (LibSVM(), {"Cs": [[0.1], [10.0]]}),
}


def _data(n: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)


def _fresh(name: str):
    return CASES[name][0].__sklearn_clone__()


def test_the_hinge_methods_are_classifiers_and_the_square_loss_ones_regressors() -> None:
    kinds = {spec.name: (is_classifier(spec.estimator()), is_regressor(spec.estimator()))
             for spec in algorithm_specs()}
    for name, kind in kinds.items():
        assert kind == ((True, False) if name in CLASSIFIER_NAMES else (False, True)), name
    assert set(CLASSIFIER_NAMES) <= set(kinds)


@pytest.mark.parametrize("name", CLASSIFIER_NAMES)
def test_grid_search_by_accuracy_scores_every_split(name: str) -> None:
    X, y = _data(60)
    est, grid = CASES[name]
    search = GridSearchCV(est, grid, scoring="accuracy", cv=3).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert scores.shape == (2,) and np.all(np.isfinite(scores))
    assert search.best_score_ > 0.7  # x₀'s sign, 30% noise in the threshold: well above chance
    best = search.best_estimator_
    assert best.score(X, y) == accuracy_score(y, best.predict(X))


@pytest.mark.parametrize("name", CLASSIFIER_NAMES)
@pytest.mark.parametrize("labels", [("no", "yes"), (0, 1), (3, 7), (False, True)],
                         ids=["strings", "zero-one", "ints", "bools"])
def test_any_two_labels_fit_as_their_plus_minus_one_margins(name: str, labels: tuple) -> None:
    X, y = _data(50)
    X_val, y_val = _data(20, seed=1)
    coded = lambda v: np.where(v > 0, labels[1], labels[0])  # noqa: E731 (the larger is +1)
    pm1 = _fresh(name).fit(X, y, X_val, y_val)
    other = _fresh(name).fit(X, coded(y), X_val, coded(y_val))
    np.testing.assert_array_equal(other.classes_, np.array(labels))
    np.testing.assert_array_equal(pm1.classes_, [-1.0, 1.0])
    np.testing.assert_array_equal(other.decision_function(X_val), pm1.decision_function(X_val))
    np.testing.assert_array_equal(other.path_["val_rmse"], pm1.path_["val_rmse"])
    assert other.selection().selected == pm1.selection().selected
    np.testing.assert_array_equal(other.predict(X_val), coded(pm1.predict(X_val)))


@pytest.mark.parametrize("name", CLASSIFIER_NAMES)
def test_predict_gives_labels_of_classes_by_the_sign_of_the_decision(name: str) -> None:
    X, y = _data(50)
    labels = np.where(y > 0, "spam", "ham")
    est = _fresh(name).fit(X, labels)
    decision = est.decision_function(X)
    predicted = est.predict(X)
    assert predicted.dtype == est.classes_.dtype and set(predicted) <= {"ham", "spam"}
    np.testing.assert_array_equal(predicted, np.where(decision > 0, "spam", "ham"))
    assert est.score(X, labels) == np.mean(predicted == labels)


@pytest.mark.parametrize("name", CLASSIFIER_NAMES)
def test_more_than_two_classes_are_refused(name: str) -> None:
    X, _ = _data(30)
    y = np.arange(30) % 3
    with pytest.raises(ValueError, match=r"Only binary classification is supported\. The type "
                                         r"of the target is multiclass: y has 3 classes "
                                         r"\(0, 1, 2\)"):
        _fresh(name).fit(X, y)
    with pytest.raises(ValueError, match=r"y has one class \(1\)"):
        _fresh(name).fit(X, np.ones(30, dtype=int))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        _fresh(name).fit(X, X[:, 0])


def test_validation_labels_outside_the_classes_are_refused() -> None:
    X, y = _data(30)
    with pytest.raises(ValueError, match=r"y_val has labels that are not among the classes of y "
                                         r"\('a', 'b'\): 'c'"):
        OnePassSGM().fit(X, np.where(y > 0, "b", "a"), X[:4], ["a", "c", "b", "c"])


def test_libsvm_on_csr_input_equals_dense() -> None:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 6)) * (rng.uniform(size=(120, 6)) < 0.4)  # 60% zeros
    y = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0)
    X_fit, y_fit, X_val, y_val, X_test = X[:70], y[:70], X[70:100], y[70:100], X[100:]
    Cs = [0.1, 1.0, 10.0]
    dense = LibSVM(Cs=Cs).fit(X_fit, y_fit, X_val, y_val)
    csr = LibSVM(Cs=Cs).fit(sp.csr_matrix(X_fit), y_fit, sp.csr_matrix(X_val), y_val)
    assert sp.issparse(csr.centers_) and not sp.issparse(dense.centers_)
    np.testing.assert_allclose(csr.centers_.toarray(), dense.centers_, rtol=0, atol=0)
    np.testing.assert_allclose(csr.alpha_, dense.alpha_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(csr.path_["val_rmse"], dense.path_["val_rmse"])
    assert csr.best_param_ == dense.best_param_
    reference = dense.decision_function(X_test)
    for rows in (sp.csr_matrix(X_test), X_test):  # CSR model, either input
        np.testing.assert_allclose(csr.decision_function(rows), reference, rtol=1e-10,
                                   atol=1e-12)
    np.testing.assert_array_equal(csr.predict(sp.csr_matrix(X_test)), dense.predict(X_test))
    # mixed: CSR fit rows with dense validation rows, and the other way round
    mixed = LibSVM(Cs=Cs).fit(sp.csr_matrix(X_fit), y_fit, X_val, y_val)
    np.testing.assert_allclose(mixed.path_["val_rmse"], dense.path_["val_rmse"])
    mixed = LibSVM(Cs=Cs).fit(X_fit, y_fit, sp.csr_matrix(X_val), y_val)
    np.testing.assert_allclose(mixed.path_["val_rmse"], dense.path_["val_rmse"])


@pytest.mark.parametrize("name", CLASSIFIER_NAMES)
def test_a_trial_measures_the_real_valued_output(name: str) -> None:
    X, y = _data(50)
    X_val, y_val = _data(20, seed=1)
    est = _fresh(name).fit(X, y, X_val, y_val)
    np.testing.assert_array_equal(real_outputs(est, X_val), est.decision_function(X_val))
    assert not np.isin(real_outputs(est, X_val), [-1.0, 1.0]).all()  # not labels
    search = SigmaSearch(_fresh(name), [0.5, 2.0]).fit(X, y, X_val, y_val)
    np.testing.assert_array_equal(real_outputs(search, X_val),
                                  search.best_estimator_.decision_function(X_val))
