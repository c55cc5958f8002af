"""Incremental RLSC with class extension and recoding (thesis Chapter 7) against batch
formulas computed here from scratch, and the model-selection rules of Section 7.6.3."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as la

from kernreg.losses import get_measure, get_task
from kernreg.solvers.blocks.rlsc import (
    IncrementalRLSC,
    RebalancedRLS,
    select_lambda,
    select_recoding,
)

LAMBDAS = [1e-3, 0.5, 20.0]


def _problem(n: int = 40, d: int = 6, classes: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.integers(0, classes, n).astype(float)


def _batch_coef(X, y, classes, lam, alpha=0.0):
    """(XᵀX + λI)⁻¹ Xᵀ Y Γ^α from scratch, Y one-hot in ``classes`` order."""
    Y = (y[:, None] == np.asarray(classes)[None]).astype(float)
    counts = Y.sum(axis=0)
    gamma = (len(y) / np.maximum(counts, 1)) ** alpha
    return np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ Y) * gamma


def test_every_incremental_update_equals_the_batch_solution() -> None:
    X, y = _problem()
    model = IncrementalRLSC(LAMBDAS)
    for k in range(len(y)):
        model.partial_fit(X[k], [y[k]])
        for alpha in (0.0, 0.6, 1.0):
            W = model.coef(alpha)
            for i, lam in enumerate(LAMBDAS):
                ref = _batch_coef(X[:k + 1], y[:k + 1], model.classes_, lam, alpha)
                np.testing.assert_allclose(W[i], ref, rtol=0, atol=1e-10)
        # the factor itself is that of XᵀX + λI
        np.testing.assert_allclose(model.R_[1].T @ model.R_[1],
                                   X[:k + 1].T @ X[:k + 1] + LAMBDAS[1] * np.eye(6), atol=1e-10)
    assert model.n_seen_ == len(y)
    np.testing.assert_array_equal(model.class_counts_,
                                  [np.sum(y == c) for c in model.classes_])


def test_batch_fit_then_updates_equals_updates_from_empty() -> None:
    X, y = _problem(seed=1)
    a = IncrementalRLSC(LAMBDAS).fit(X[:25], y[:25]).partial_fit(X[25:], y[25:])
    b = IncrementalRLSC(LAMBDAS).partial_fit(X, y)
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_allclose(a.coef(0.5), b.coef(0.5), rtol=0, atol=1e-10)


def test_adding_a_class_equals_training_with_it_from_the_start() -> None:
    X, y = _problem(n=60, classes=4, seed=2)
    old, new = y != 3, y == 3
    order = np.concatenate([np.flatnonzero(old), np.flatnonzero(new)])
    late = IncrementalRLSC(LAMBDAS).fit(X[old], y[old])
    assert 3.0 not in late.classes_
    b_before = late.b_.copy()
    late.partial_fit(X[new][:1], y[new][:1])  # the new class arrives: one zero column + x
    np.testing.assert_array_equal(late.b_[:, :-1], b_before)
    np.testing.assert_allclose(late.b_[:, -1], X[new][0])
    late.partial_fit(X[new][1:], y[new][1:])
    early = IncrementalRLSC(LAMBDAS).fit(X[order], y[order])  # all four classes from the start
    np.testing.assert_array_equal(late.classes_, early.classes_)
    for alpha in (0.0, 1.0):
        np.testing.assert_allclose(late.coef(alpha), early.coef(alpha), rtol=0, atol=1e-10)
    np.testing.assert_array_equal(late.predict(X, lambda_index=1),
                                  early.predict(X, lambda_index=1))


def test_recoding_with_alpha_zero_is_plain_rlsc() -> None:
    X, y = _problem(seed=3)
    model = IncrementalRLSC(LAMBDAS, alpha=0.0).fit(X, y)
    np.testing.assert_array_equal(model.recoding(0.0), np.ones(3))
    for i, lam in enumerate(LAMBDAS):
        np.testing.assert_allclose(model.coef()[i], _batch_coef(X, y, model.classes_, lam),
                                   rtol=0, atol=1e-10)
    recoded = IncrementalRLSC(LAMBDAS, alpha=1.0).fit(X, y)
    assert not np.allclose(recoded.coef(), model.coef())  # α matters when classes differ in size


def _cells(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inputs that are one-hot cell indicators; ``counts[j, t]`` examples of class t in cell j:
    with λ → 0 the least-squares fit is the per-cell minimizer, in closed form."""
    X, y = [], []
    for j, row in enumerate(counts):
        for t, c in enumerate(row):
            X += [np.eye(len(counts))[j]] * int(c)
            y += [float(t)] * int(c)
    return np.array(X), np.array(y)


COUNTS = np.array([[30, 3, 6], [10, 2, 12], [5, 1, 40]])


def test_recoded_minimizer_is_the_recoded_bayes_scores() -> None:
    # (7.12) multiclass: with c(e_t) = e_t / ρ̂(t), f_t(x) = ρ̂(t|x) / ρ̂(t)
    X, y = _cells(COUNTS)
    model = IncrementalRLSC([1e-10]).fit(X, y)
    rho_t_x = COUNTS / COUNTS.sum(axis=1, keepdims=True)
    rho_t = COUNTS.sum(axis=0) / COUNTS.sum()
    np.testing.assert_allclose(model.coef(1.0)[0], rho_t_x / rho_t, rtol=1e-7)
    np.testing.assert_allclose(model.coef(0.0)[0], rho_t_x, rtol=1e-7)


def test_rebalanced_loss_minimizer_matches_its_closed_form() -> None:
    # weighted square loss, w(t) = 1/ρ̂(t): per cell f_s = ρ̂(s|x) w(s) / Σ_t ρ̂(t|x) w(t) (7.10)
    X, y = _cells(COUNTS)
    rb = RebalancedRLS([1e-10]).fit(X, y, classes=[0.0, 1.0, 2.0])
    w = COUNTS.sum() / COUNTS.sum(axis=0)
    num = COUNTS / COUNTS.sum(axis=1, keepdims=True) * w
    np.testing.assert_allclose(rb.coef_[0], num / num.sum(axis=1, keepdims=True), rtol=1e-7)
    # on a general problem: the minimizer of Σ_i w_i ||e_{y_i} − Wᵀx_i||² + λ||W||², by lstsq
    X, y = _problem(n=50, seed=4)
    lam = 0.3
    rb = RebalancedRLS([lam]).fit(X, y, classes=[0.0, 1.0, 2.0])
    Y = (y[:, None] == np.arange(3)[None]).astype(float)
    w = len(y) / np.bincount(y.astype(int))[y.astype(int)]
    A = np.vstack([np.sqrt(w)[:, None] * X, np.sqrt(lam) * np.eye(6)])
    B = np.vstack([np.sqrt(w)[:, None] * Y, np.zeros((6, 3))])
    np.testing.assert_allclose(rb.coef_[0], la.lstsq(A, B)[0], rtol=0, atol=1e-10)
    with pytest.raises(ValueError, match="not in classes"):
        RebalancedRLS([lam]).fit(X, y, classes=[0.0, 1.0])


def test_rebalanced_weight_power_interpolates_between_plain_and_rebalanced_rls() -> None:
    # Σ_ii = (n/n_{y_i})^β: β = 0 is plain RLS, β = 1
    # the default, β = 0.5 the weighted least squares with the square-rooted weights
    X, y = _problem(n=60, seed=7)
    classes = [0.0, 1.0, 2.0]
    plain = RebalancedRLS(LAMBDAS, weight_power=0.0).fit(X, y, classes=classes)
    for i, lam in enumerate(LAMBDAS):
        np.testing.assert_allclose(plain.coef_[i], _batch_coef(X, y, classes, lam),
                                   rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(RebalancedRLS(LAMBDAS, weight_power=1.0).fit(X, y, classes).coef_,
                               RebalancedRLS(LAMBDAS).fit(X, y, classes).coef_)
    lam = 0.3
    half = RebalancedRLS([lam], weight_power=0.5).fit(X, y, classes=classes)
    Y = (y[:, None] == np.arange(3)[None]).astype(float)
    w = np.sqrt(len(y) / np.bincount(y.astype(int))[y.astype(int)])
    A = np.vstack([np.sqrt(w)[:, None] * X, np.sqrt(lam) * np.eye(6)])
    B = np.vstack([np.sqrt(w)[:, None] * Y, np.zeros((6, 3))])
    np.testing.assert_allclose(half.coef_[0], la.lstsq(A, B)[0], rtol=0, atol=1e-10)
    with pytest.raises(ValueError, match="weight_power"):
        RebalancedRLS([lam], weight_power=-1.0).fit(X, y, classes=classes)


def test_select_lambda_maximizes_accuracy_on_the_masked_rows() -> None:
    y_col = np.array([0, 1, 0, 1])
    scores = np.zeros((3, 4, 2))
    scores[0, :, 0] = 1.0  # always class 0: 2/4
    scores[1, np.arange(4), y_col] = 1.0  # all right
    scores[2] = scores[1]  # a tie: the larger λ wins
    assert select_lambda(scores, y_col, np.ones(4, bool)) == (2, 1.0)
    # only rows of class 0 count: every λ is perfect there, the largest is taken
    assert select_lambda(scores, y_col, y_col == 0) == (2, 1.0)
    with pytest.raises(ValueError, match="no validation example"):
        select_lambda(scores, y_col, np.zeros(4, bool))


def test_select_recoding_takes_the_largest_alpha_that_keeps_the_reference_accuracy() -> None:
    # two balanced classes (0, 1) and a new class 2 whose score is boosted by Γ^α
    y_col = np.array([0, 0, 1, 1])
    scores = np.zeros((1, 4, 3))
    scores[0, np.arange(4), y_col] = 1.0
    scores[0, :, 2] = [0.2, 0.6, 0.05, 0.9]
    gamma = np.array([1.0, 1.0, 4.0])  # Γ^α multiplies class 2's score by 4^α
    alphas = [0.0, 0.25, 0.5, 0.75, 1.0]
    alpha, lam, acc = select_recoding(scores, gamma, alphas, y_col, np.ones(4, bool))
    # 0.9·4^α > 1 from α ≈ 0.08: α = 0.25 already loses row 3; the rule keeps α = 0 …
    assert (alpha, lam) == (0.0, 0)
    # … unless row 3 is not a well-represented row: then 0.6·4^α > 1 from α ≈ 0.37 on
    alpha, _, acc = select_recoding(scores, gamma, alphas, y_col, np.array([1, 1, 1, 0], bool))
    assert alpha == 0.25
    np.testing.assert_allclose(acc[:, 0], [1.0, 1.0, 2 / 3, 2 / 3, 2 / 3])
    with pytest.raises(ValueError, match="must contain 0"):
        select_recoding(scores, gamma, [0.5, 1.0], y_col, np.ones(4, bool))


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="lambdas"):
        IncrementalRLSC([0.0]).fit(np.eye(3), [0, 1, 2])
    with pytest.raises(ValueError, match="alpha"):
        IncrementalRLSC(1.0, alpha=1.5).fit(np.eye(3), [0, 1, 2])
    model = IncrementalRLSC(1.0).fit(np.eye(3), [0, 1, 2])
    with pytest.raises(ValueError, match="fitted with 3"):
        model.partial_fit(np.ones((1, 4)), [0])
    with pytest.raises(ValueError, match="one label per row"):
        model.partial_fit(np.ones((2, 3)), [0])


def test_the_streaming_accuracies_are_the_multiclass_measures() -> None:
    # what the class-incremental stream records: total, per class, and a subset of classes
    # as the total accuracy on the rows of those classes
    task, coding = get_task("multiclass"), np.array([0, 1, 2, 3])
    y = np.array([0, 0, 1, 1, 2])
    pred = np.array([0, 2, 1, 1, 2])
    f = (pred[:, None] == coding[None, :]).astype(float)  # scores whose argmax is pred
    accuracy = get_measure("accuracy")
    assert accuracy.compute(task, y, f, coding) == 0.8
    per_class = get_measure("per_class_accuracy").compute(task, y, f, coding)
    assert [per_class[k] for k in "012"] == [0.5, 1.0, 1.0]
    assert np.isnan(per_class["3"])  # no example of class 3: NaN, never 0
    rows = np.isin(y, [0, 1])
    assert accuracy.compute(task, y[rows], f[rows], coding) == 0.75  # 2 predicted for a 0


def test_input_maps_give_the_nystrom_and_gaussian_kernels() -> None:
    from kernreg.kernels import GaussianKernel
    from kernreg.protocols.class_incremental.trial import input_map

    rng = np.random.default_rng(5)
    X = rng.standard_normal((30, 3))
    kernel = GaussianKernel(sigma=1.5)
    nys = input_map({"kind": "nystrom", "m": 30, "sigma": 1.5}, X, 0)
    F = nys(X)  # all rows are centers: φ(x)ᵀφ(x') = k(x, x') on them
    np.testing.assert_allclose(F @ F.T, kernel(X), atol=1e-6)
    Z = rng.standard_normal((4, 3))
    sub = input_map({"kind": "nystrom", "m": 10, "sigma": 1.5}, X, 1)
    C = X[np.random.default_rng(1).choice(30, 10, replace=False)]  # the uniform sampler's
    ref = kernel(Z, C) @ np.linalg.solve(kernel(C), kernel(C, Z))
    np.testing.assert_allclose(sub(Z) @ sub(Z).T, ref, atol=1e-6)
    rff = input_map({"kind": "rff", "n_components": 40000, "sigma": 1.5}, X, 2)
    G = rff(X[:5]) @ rff(X[:5]).T
    np.testing.assert_allclose(G, kernel(X[:5]), atol=0.03)  # Monte Carlo, D = 40000
    assert input_map({"kind": "linear"}, X, 0) is None
