"""SGM, SIGM and the LIBSVM baseline (thesis Chapter 6): hand-computed steps, the one-step
identity with kernel Landweber, the hinge subgradient at the kink, determinism by seed."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

from kernreg.kernels import make_kernel
from kernreg.losses import get_loss
from kernreg.solvers import KernelLandweber, LibSVM, MultiPassSGM, OnePassSGM, get_algorithm
from kernreg.solvers.blocks.stochastic import (
    KernelRows,
    StepAverage,
    dual_pass,
    loss_step,
    step_sizes,
)


def _data(n: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def test_sgm_equals_three_hand_computed_steps() -> None:
    X = np.array([[0.0], [1.0], [3.0]])
    y = np.array([1.0, -1.0, 1.0])
    eta, theta, sigma = 0.5, 0.5, 1.0
    est = OnePassSGM(sigma=sigma, eta=eta, theta=theta, random_state=7).fit(X, y)
    j1, j2, j3 = np.random.default_rng(7).permutation(3)  # the pass' order
    K = np.exp(-((X - X.T) ** 2) / (2 * sigma**2))
    a = np.zeros(3)
    # t = 1: f = 0, y f = 0 ≤ 1, so α_j1 = η y_j1
    a[j1] = eta * y[j1]
    # t = 2: f = K[j2, j1] α_j1 (|f| < 1 here, so the margin is violated and the step is taken)
    f2 = K[j2, j1] * a[j1]
    assert y[j2] * f2 <= 1
    a[j2] += eta * 2 ** -theta * y[j2]
    f3 = K[j3] @ a
    assert y[j3] * f3 <= 1
    a[j3] += eta * 3 ** -theta * y[j3]
    np.testing.assert_allclose(est.alpha_, a, rtol=1e-14, atol=1e-15)


def test_hinge_subgradient_at_the_kink_as_the_authors() -> None:
    # two copies of one point, y = +1, η = 1: after the first step f(x) = K(x, x) · 1 = 1, so
    # the second visit lands exactly on the kink y f = 1; a far point of the other class
    # (K = exp(−5000) = 0 to it) takes its own step α = −1 and leaves the copies alone
    X, y = np.array([[0.0], [0.0], [100.0]]), np.array([1.0, 1.0, -1.0])
    authors = OnePassSGM(sigma=1.0, eta=1.0, theta=0.0, kink="authors", random_state=0).fit(X, y)
    strict = OnePassSGM(sigma=1.0, eta=1.0, theta=0.0, kink="zero", random_state=0).fit(X, y)
    assert sorted(authors.alpha_) == [-1.0, 1.0, 1.0]  # Enitor: update whenever y f ≤ 1
    assert sorted(strict.alpha_) == [-1.0, 0.0, 1.0]  # HingeLoss.derivative: 0 at the kink
    step = loss_step(get_loss("hinge"), "authors")
    np.testing.assert_array_equal(step(-1.0, np.array([-1.0, -0.5, -2.0])), [1.0, 1.0, 0.0])


def test_sigm_square_loss_one_step_is_landweber_on_the_visited_coordinate() -> None:
    # one incremental step at j changes α_j exactly as the j-th coordinate of a Landweber step
    # α ← α − η' (Kα − y) with η' = 2η (the square loss' derivative is 2 (f − y))
    X, y = _data(12)
    kernel = make_kernel("gaussian", 1.0)
    K = kernel(X)
    rng = np.random.default_rng(1)
    alpha = rng.normal(size=(12, 1))
    eta = 0.05
    for j in (0, 5, 11):
        a = alpha.copy()
        dual_pass(KernelRows(kernel, X, 2**30), np.array([j]), y, a,
                  np.full((1, 1), eta), loss_step(get_loss("square"), "authors"))
        landweber = alpha[:, 0] - 2 * eta * (K @ alpha[:, 0] - y)
        assert a[j, 0] == pytest.approx(landweber[j], rel=1e-13)
        np.testing.assert_array_equal(np.delete(a, j), np.delete(alpha, j))


def test_sigm_square_loss_follows_landweber_when_the_kernel_is_diagonal() -> None:
    # far-apart points and a tiny σ: K = I, the coordinates decouple and an epoch in any order is
    # one Landweber step with η' = 2η: the two paths coincide epoch by epoch (SIGM is a
    # classifier: its targets are two classes, fitted as the ±1 margins Landweber gets)
    X = 10.0 * np.arange(8, dtype=float)[:, None]
    y = np.array([1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0])
    for ordering in ("cyclic", "reshuffle"):
        for epochs in (1, 4):
            sigm = MultiPassSGM(sigma=0.1, loss="square", step_size=0.1, theta=0.0,
                                ordering=ordering, max_iter=epochs, random_state=3).fit(X, y)
            es = KernelLandweber(fit_intercept=False,
                                 sigma=0.1, step_size=0.2, max_iter=epochs).fit(X, y)
            np.testing.assert_allclose(sigm.alpha_, es.alpha_, rtol=1e-14)


def test_sgm_path_columns_equal_separate_fits_and_selection_is_the_best() -> None:
    X, y = _data(60)
    Xv, yv = _data(30, seed=1)
    etas = [0.01, 0.1, 1.0]
    path = OnePassSGM(sigma=1.0, etas=etas, random_state=2).fit(X, y, Xv, yv)
    for k, eta in enumerate(etas):
        one = OnePassSGM(sigma=1.0, etas=[eta], random_state=2).fit(X, y, Xv, yv)
        np.testing.assert_allclose(path.coef_path_[:, k], one.alpha_, rtol=1e-13)
    scores = path.path_["val_rmse"]
    assert path.best_param_ == etas[int(np.argmin(scores))]
    f = make_kernel("gaussian", 1.0)(Xv, X) @ path.alpha_
    assert scores.min() == pytest.approx(np.maximum(0, 1 - yv * f).mean(), rel=1e-12)
    sel = path.selection()
    assert sel.param_name == "step" and sel.selected == path.best_param_
    np.testing.assert_array_equal(sel.path_values, etas)


def test_decaying_schedule_uses_eta_and_the_theta_grid() -> None:
    X, y = _data(30)
    est = OnePassSGM(schedule="decaying", eta=0.25, thetas=[0.0, 1.0], random_state=0)
    est.fit(X, y, X, y)
    np.testing.assert_array_equal(est.path_["values"], [0.0, 1.0])
    np.testing.assert_allclose(step_sizes(0.25, 1.0, [1, 2, 4]), [0.25, 0.125, 0.0625])


@pytest.mark.parametrize("cls", [OnePassSGM, MultiPassSGM])
def test_determinism_by_seed(cls: type) -> None:
    X, y = _data(50)
    Xv, yv = _data(20, seed=4)
    extra = {"max_iter": 5} if cls is MultiPassSGM else {}
    a = cls(random_state=11, **extra).fit(X, y, Xv, yv).alpha_
    b = cls(random_state=11, **extra).fit(X, y, Xv, yv).alpha_
    c = cls(random_state=12, **extra).fit(X, y, Xv, yv).alpha_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_sigm_blocked_rows_equal_stored_kernel() -> None:
    X, y = _data(40)
    stored = MultiPassSGM(max_iter=3, random_state=0).fit(X, y)
    blocked = MultiPassSGM(max_iter=3, random_state=0, max_memory=1000,
                           memory_budget=8 * 40 * 7).fit(X, y)
    assert stored.kernel_stored_ and not blocked.kernel_stored_
    np.testing.assert_allclose(blocked.alpha_, stored.alpha_, rtol=1e-13)


def _per_step_reference(K: np.ndarray, order: np.ndarray, y: np.ndarray, A: np.ndarray,
                        steps: np.ndarray, grad) -> None:
    """The definition, one step at a time: α_j −= η_k g(y_j, K[j] @ α)."""
    for k, j in enumerate(order):
        A[j] -= steps[k] * grad(y[j], K[j] @ A)


@pytest.mark.parametrize("loss", ["square", "hinge"])
@pytest.mark.parametrize("layout", ["stored in the visiting order", "stored, other order",
                                    "stored unpermuted", "re-evaluated"])
@pytest.mark.parametrize("ordering", ["permutation", "iid"])
def test_blocked_dual_pass_is_the_per_step_pass(loss: str, layout: str, ordering: str) -> None:
    # a block's steps see each other through the block's own kernel columns: blocks of 7 of
    # 45 visited points (the last one short); iid draws repeat points inside a block
    X, y = _data(45, seed=3)
    rng = np.random.default_rng(5)
    order = rng.permutation(45) if ordering == "permutation" else rng.integers(0, 45, 45)
    if ordering == "iid":
        assert any(len(set(order[s:s + 7])) < len(order[s:s + 7]) for s in range(0, 45, 7))
    kernel = make_kernel("gaussian", 1.0, memory_budget=8 * 45 * 7)
    store, kept = (0, None) if layout == "re-evaluated" else (2**30, order)
    if layout == "stored, other order":
        kept = rng.permutation(45)
    elif layout == "stored unpermuted":
        kept = None
    if ordering == "iid" and kept is order:  # draws with repeats are no order to keep
        with pytest.raises(ValueError, match="permutation"):
            KernelRows(kernel, X, store, order=order)
        kept = rng.permutation(45)
    rows = KernelRows(kernel, X, store, order=kept)
    assert rows.block == 7 and rows.stored == (layout != "re-evaluated")
    steps = step_sizes(np.array([[0.05, 0.3, 1.0]]), np.array([[0.5]]), np.arange(1, 46)[:, None])
    grad = loss_step(get_loss(loss), "authors")
    start = rng.normal(scale=0.1, size=(45, 3))
    A, expected = start.copy(), start.copy()
    dual_pass(rows, order, y, A, steps, grad)
    _per_step_reference(kernel(X), order, y, expected, steps, grad)
    np.testing.assert_allclose(A, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("stored", [True, False])
@pytest.mark.parametrize("ordering", ["permutation", "iid"])
def test_the_averaged_iterate_is_eq_6_4_over_every_step(stored: bool, ordering: str) -> None:
    """Two passes of 45 steps (blocks of 7, the kernel stored in another order or
    re-evaluated): the running sum gives Σ_k η_k w_k / Σ_k η_k over w_1 = 0, …, w_{T+1}."""
    X, y = _data(45, seed=4)
    rng = np.random.default_rng(6)
    kernel = make_kernel("gaussian", 1.0, memory_budget=8 * 45 * 7)
    rows = KernelRows(kernel, X, 2**30 if stored else 0,
                      order=rng.permutation(45) if stored else None)
    grad = loss_step(get_loss("hinge"), "authors")
    etas = np.array([[0.05, 0.3]])
    A, average = np.zeros((45, 2)), StepAverage((45, 2))
    iterate, numerator, weight = np.zeros((45, 2)), np.zeros((45, 2)), np.zeros((1, 2))
    for epoch in range(2):
        order = rng.permutation(45) if ordering == "permutation" else rng.integers(0, 45, 45)
        t = np.arange(45 * epoch + 1, 45 * epoch + 46)[:, None]
        steps = step_sizes(etas, 0.5, t)
        dual_pass(rows, order, y, A, steps, grad, weighted=average.weighted(steps))
        for k, j in enumerate(order):  # the definition: w_k weighted by η_k, then the step
            numerator += steps[k] * iterate
            weight += steps[k]
            iterate[j] -= steps[k] * grad(y[j], kernel(X[j:j + 1], X)[0] @ iterate)
    last_eta = step_sizes(etas, 0.5, np.array([[91.0]]))
    expected = (numerator + last_eta * iterate) / (weight + last_eta)
    np.testing.assert_allclose(A, iterate, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(average.of(A, last_eta[0]), expected, rtol=1e-10, atol=1e-13)


def test_sigm_reports_the_averaged_iterate_on_request() -> None:
    """Three cyclic epochs, θ = 1/2: ``alpha_`` is Eq. 6.4's average of the 121 iterates the
    last-iterate fit passes through (one step at a time here), the steps themselves unchanged."""
    X, y = _data(40)
    params = {"sigma": 1.0, "max_iter": 3, "random_state": 0, "step_size": 0.3, "theta": 0.5}
    last = MultiPassSGM(**params).fit(X, y)
    average = MultiPassSGM(iterate="average", **params).fit(X, y)
    K, grad = make_kernel("gaussian", 1.0)(X), loss_step(get_loss("hinge"), "authors")
    order = np.random.default_rng(0).permutation(40)  # the cyclic order of random_state=0
    labels = np.where(y == last.classes_[1], 1.0, -1.0)
    w, numerator, weight, t = np.zeros(40), np.zeros(40), 0.0, 0
    for _ in range(3):
        for j in order:
            t += 1
            eta = 0.3 * t ** -0.5
            numerator, weight = numerator + eta * w, weight + eta
            w[j] -= eta * grad(labels[j], K[j] @ w)
    eta = 0.3 * (t + 1) ** -0.5
    np.testing.assert_allclose(last.alpha_, w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(average.alpha_, (numerator + eta * w) / (weight + eta),
                               rtol=1e-10, atol=1e-13)
    with pytest.raises(ValueError, match="iterate"):
        MultiPassSGM(iterate="mean").fit(X, y)


def test_float32_stores_the_kernel_in_half_the_bytes_and_keeps_the_path() -> None:
    # the store decision counts 4 bytes an entry: a float32 K fits where float64 does not
    X, y = _data(60)
    Xv, yv = _data(30, seed=1)
    kwargs = dict(loss="square", step_size=0.02, max_iter=5, stopping_rule="none",
                  random_state=0, max_memory=2 * 4 * 60 * 60)
    single = MultiPassSGM(dtype="float32", **kwargs).fit(X, y, Xv, yv)
    double = MultiPassSGM(dtype="float64", **kwargs).fit(X, y, Xv, yv)
    assert single.kernel_stored_ and not double.kernel_stored_
    assert single.alpha_.dtype == np.float64
    np.testing.assert_allclose(single.alpha_, double.alpha_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(single.path_["val_rmse"], double.path_["val_rmse"], rtol=1e-5)
    from kernreg.solvers.blocks.stochastic import kernel_memory
    assert kernel_memory(60, 30, 2 * 4 * 60 * 60, itemsize=4)["K (stored)"] == 4 * 60 * 60


def test_a_pass_in_the_stored_order_reads_the_kernel_in_place() -> None:
    # kept in the visiting order, every block of the pass is a view of the stored kernel
    X, _ = _data(30)
    order = np.random.default_rng(0).permutation(30)
    rows = KernelRows(make_kernel("gaussian", 1.0, memory_budget=8 * 30 * 8), X, 2**30,
                      order=order)
    blocks = list(rows.blocks(rows.positions(order)))
    assert [R.shape[0] for _, R in blocks] == [8, 8, 8, 6]
    assert all(isinstance(cols, slice) and np.shares_memory(R, rows.K) for cols, R in blocks)
    np.testing.assert_allclose(rows.K, make_kernel("gaussian", 1.0)(X[order]), rtol=1e-15)


def test_sigm_records_one_validation_score_per_epoch() -> None:
    X, y = _data(60)
    Xv, yv = _data(30, seed=1)
    est = MultiPassSGM(max_iter=7, stopping_rule="none", validation_measure="error",
                       random_state=0).fit(X, y, Xv, yv)
    assert est.path_["val_rmse"].shape == (7,)
    assert est.best_iter_ == int(np.argmin(est.path_["val_rmse"])) + 1
    assert est.validation_measure == "error"


def test_libsvm_is_svc_and_selects_c_on_validation_error() -> None:
    X, y = _data(80)
    Xv, yv = _data(40, seed=2)
    est = LibSVM(sigma=1.0, Cs=[0.01, 1.0, 100.0]).fit(X, y, Xv, yv)
    errors = [np.mean(np.where(SVC(C=C, gamma=0.5).fit(X, y).decision_function(Xv) >= 0,
                               1, -1) != yv) for C in (0.01, 1.0, 100.0)]
    np.testing.assert_allclose(est.path_["val_rmse"], errors)
    svc = SVC(C=est.best_param_, gamma=0.5).fit(X, y)
    np.testing.assert_allclose(est.decision_function(Xv), svc.decision_function(Xv),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xv), svc.predict(Xv))


def test_libsvm_kernel_cache_is_half_the_memory_allowance_capped_at_the_kernel() -> None:
    from kernreg.solvers.algorithms.libsvm import cache_bytes

    assert cache_bytes(None, 256 * 2**20, 10**5) == 256 * 2**20  # no allowance: the budget
    assert cache_bytes(16 * 2**30, 256 * 2**20, 26048) == 4 * 26048**2  # the whole kernel
    assert cache_bytes(2 * 2**30, 256 * 2**20, 10**5) == 2**30  # half the allowance
    assert cache_bytes(2**30, 256 * 2**20, 10) == 2**20  # at least 1 MiB
    X, y = _data(80)
    est = LibSVM(sigma=1.0, Cs=[1.0], max_memory=2**30).fit(X, y)
    assert est.cache_mb_ == 1.0
    big = LibSVM(sigma=1.0, Cs=[1.0], max_memory=2**30).fit(*_data(1000))
    assert big.cache_mb_ == pytest.approx(4 * 1000**2 / 2**20)


def test_sgm_with_passes_is_sigm_cyclic_per_guess() -> None:
    # passes > 1 cycle the same permutation with t going on: per guess, SIGM's cyclic path
    X, y = _data(50)
    Xv, yv = _data(25, seed=3)
    sgm = OnePassSGM(etas=[0.05, 0.3], passes=4, random_state=5).fit(X, y, Xv, yv)
    for k, eta in enumerate([0.05, 0.3]):
        sigm = MultiPassSGM(step_size=eta, theta=0.0, ordering="cyclic", max_iter=4,
                            stopping_rule="none", random_state=5).fit(X, y, Xv, yv)
        assert sgm.path_["val_rmse"][k] == pytest.approx(sigm.path_["val_rmse"].min(), rel=1e-12)
        if sgm.best_param_ == eta:
            assert sgm.best_pass_ == sigm.best_iter_
            np.testing.assert_allclose(sgm.alpha_, sigm.alpha_, rtol=1e-12)


def test_a_config_with_the_hinge_methods_on_regression_targets_is_refused(tmp_path) -> None:
    from kernreg.config import load_experiment
    from kernreg.errors import ConfigError

    config = tmp_path / "bad.yaml"
    config.write_text("name: bad\ndataset: {name: cpusmall}\nalgorithms:\n  - {name: libsvm}\n"
                      "  - {name: sigm}\n")
    with pytest.raises(ConfigError, match=r"algorithms\[0\]\.name: libsvm fits binary targets "
                                          r"coded ±1; this run is regression on cpusmall"):
        load_experiment(config)
    config.write_text("name: ok\ndataset: {name: breast_cancer}\nkernel: {sigma: 0.4}\n"
                      "algorithms:\n  - {name: sgm, schedule: decaying, passes: 2}\n")
    entry = load_experiment(config).algorithms[0]
    assert entry.params["passes"] == 2 and entry.params["kink"] == "authors"


class _GramRows:
    """Kernel rows of an explicit Gram matrix (the dual pass' interface)."""

    perm = None

    def __init__(self, K: np.ndarray):
        self.K = K

    def positions(self, order: np.ndarray) -> np.ndarray:
        return order

    def blocks(self, positions: np.ndarray):
        yield positions, self.K[positions]


def test_primal_pass_on_features_is_the_dual_pass_on_their_gram_matrix() -> None:
    # w_t = Zᵀ α_t: the primal iterate on features z is the dual iterate on K = ZZᵀ
    from kernreg.solvers.blocks.stochastic import primal_pass

    rng = np.random.default_rng(0)
    Z = rng.normal(size=(30, 7)) / 3
    y = np.where(rng.normal(size=30) > 0, 1.0, -1.0)
    order = rng.permutation(30)
    steps = step_sizes(np.array([[0.1, 0.5]]), np.array([[0.5]]), np.arange(1, 31)[:, None])
    grad = loss_step(get_loss("hinge"), "authors")
    A = np.zeros((30, 2))
    dual_pass(_GramRows(Z @ Z.T), order, y, A, steps, grad)
    W = np.zeros((7, 2))
    primal_pass(lambda idx: Z[idx], order, 4, y, W, steps, grad)
    np.testing.assert_allclose(W, Z.T @ A, rtol=1e-12, atol=1e-14)


def test_sgm_on_random_features_selects_and_predicts_with_its_features() -> None:
    from kernreg.solvers import FeatureSGM

    X, y = _data(80)
    Xv, yv = _data(40, seed=1)
    est = FeatureSGM(n_components=200, etas=[0.05, 0.5], random_state=0).fit(X, y, Xv, yv)
    Z = est.feature_map_.transform(Xv) * est.feature_map_.scale
    f = Z @ est.coef_
    np.testing.assert_allclose(est.decision_function(Xv), f)
    np.testing.assert_array_equal(est.predict(Xv), np.where(f > 0, 1.0, -1.0))
    assert est.path_["val_rmse"].min() == pytest.approx(np.maximum(0, 1 - yv * f).mean())
    again = FeatureSGM(n_components=200, etas=[0.05, 0.5], random_state=0).fit(X, y, Xv, yv)
    np.testing.assert_array_equal(again.coef_, est.coef_)


@pytest.mark.parametrize("name", ["sgm", "sigm"])
def test_memory_estimate_counts_the_kernel_only_where_it_is_stored(name: str) -> None:
    from kernreg.solvers import get_algorithm_spec
    from kernreg.solvers.registry import MemoryProblem

    spec = get_algorithm_spec(name)
    gib = 2**30
    # the full adult row (26050 fit rows) under 16 GiB stores K (5.1 GiB ≤ 8); ijcnn1's 39992
    # (11.9 GiB) re-evaluates its rows
    adult = spec.memory({}, MemoryProblem(26050, 6512, 16281, 123, 2**28, 16 * gib))
    assert adult["K (stored)"] == 8 * 26050**2
    ijcnn1 = spec.memory({}, MemoryProblem(39992, 9998, 91701, 22, 2**28, 16 * gib))
    assert "K (stored)" not in ijcnn1 and ijcnn1["K (rows re-evaluated, not stored)"] == 0
    assert ijcnn1["validation kernel"] == 8 * 9998 * 39992
    # what the estimator does with the same allowance (max_memory = the budget)
    X, y = _data(30)
    cls = get_algorithm(name)
    extra = {"max_iter": 1} if name == "sigm" else {}
    assert cls(max_memory=2 * 8 * 30**2, **extra).fit(X, y).kernel_stored_
    assert not cls(max_memory=2 * 8 * 30**2 - 2, **extra).fit(X, y).kernel_stored_
