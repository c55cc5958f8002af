"""EigenPro and ASkotch: both converge to KRLS's solution (EigenPro with the full batch, its
ridge part preconditioned; ASkotch accelerated or not), EigenPro gains from each flattened
eigen-direction and follows its batch/step rules, both select an epoch/pass on validation
data and run from a config."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg import KRLS
from kernreg.solvers import ASkotch, EigenPro
from kernreg.solvers.blocks.block_coordinate import nystrom_block
from kernreg.solvers.blocks.eigenpro import subsample_size


def _data(n: int = 300, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    X, X_val = rng.standard_normal((n, 3)), rng.standard_normal((150, 3))
    return (X, np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n), X_val,
            np.sin(X_val[:, 0]) + 0.1 * rng.standard_normal(150))


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


@pytest.mark.parametrize("lam", [1e-2, 1e-3])
def test_eigenpro_full_batch_converges_to_krls(lam: float) -> None:
    X, y, X_val, _ = _data()
    exact = KRLS(sigma=1.0, lam=lam).fit(X, y).predict(X_val)
    fit = EigenPro(sigma=1.0, lam=lam, batch_size=300, subsample=300, max_iter=300,
                   random_state=0).fit(X, y)
    assert _relative(fit.predict(X_val), exact) < 1e-6


def test_eigenpro_gains_from_each_flattened_direction() -> None:
    X, y, X_val, _ = _data(400)
    exact = KRLS(sigma=1.0, lam=1e-4).fit(X, y).predict(X_val)
    errors = [_relative(EigenPro(sigma=1.0, lam=1e-4, batch_size=400, subsample=400, top_q=q,
                                 max_iter=60, random_state=0).fit(X, y).predict(X_val), exact)
              for q in (1, 10, 50)]
    assert errors[0] > errors[1] > errors[2]


def test_eigenpro_batch_and_step_rules() -> None:
    X, y, _, _ = _data()
    fit = EigenPro(sigma=1.0, max_iter=1, random_state=0).fit(X, y)
    # the default batch is the critical one (capped by the subsample), the step its rule's
    assert 1 <= fit.batch_size_ <= subsample_size(300) == 300
    small = EigenPro(sigma=1.0, max_iter=1, batch_size=2, random_state=0).fit(X, y)
    assert small.step_size_ == pytest.approx(2 / 1.0)  # b/β below the critical batch, β = 1
    capped = EigenPro(sigma=1.0, max_iter=1, max_memory=4 * 300 * 8 * 10,
                      random_state=0).fit(X, y)
    assert capped.batch_size_ <= 10  # a quarter of the budget per b × n block
    assert subsample_size(99_999) == 2000 and subsample_size(100_000) == 12_000
    with pytest.raises(ValueError, match="damping"):
        EigenPro(damping=1.5).fit(X, y)
    with pytest.raises(ValueError, match="lam"):
        EigenPro(lam=-1.0).fit(X, y)


@pytest.mark.parametrize("accelerated", [True, False])
def test_askotch_converges_to_krls(accelerated: bool) -> None:
    X, y, X_val, _ = _data()
    exact = KRLS(sigma=1.0, lam=1e-3).fit(X, y).predict(X_val)
    fit = ASkotch(sigma=1.0, lam=1e-3, block_size=60, rank=20, max_iter=100,
                  accelerated=accelerated, random_state=0).fit(X, y)
    assert _relative(fit.predict(X_val), exact) < 1e-6
    assert fit.block_size_ == 60


def test_a_nystrom_block_preconditioner_is_exact_at_full_rank() -> None:
    rng = np.random.default_rng(0)
    A = rng.standard_normal((40, 40))
    K = A @ A.T / 40
    pre = nystrom_block(K, 0.1, 40, rng)
    # full rank: P = K + ρI (ρ = 0.1 + λ_min) up to the sketch's shift, and the step is
    # 1/λ_max(P⁻¹(K + 0.1·I)) by power iteration
    g = rng.standard_normal(40)
    solved = pre.solve(g)
    np.testing.assert_allclose(solved, np.linalg.solve(K + pre.rho * np.eye(40), g),
                               rtol=1e-6, atol=1e-8)
    k = np.linalg.eigvalsh(K)
    assert pre.step == pytest.approx(1 / np.max((k + 0.1) / (k + pre.rho)), rel=1e-3)


@pytest.mark.parametrize("estimator", [
    EigenPro(sigma=1.0, max_iter=40, random_state=0),
    ASkotch(sigma=1.0, lam=1e-6, block_size=30, max_iter=40, random_state=0),
])
def test_a_validated_path_selects_its_lowest_error(estimator) -> None:
    X, y, X_val, y_val = _data()
    fit = estimator.fit(X, y, X_val, y_val)
    errors = fit.path_["val_rmse"]
    assert len(errors) == fit.n_iter_ and len(fit.path_["seconds"]) == fit.n_iter_
    assert fit.best_iter_ == int(np.argmin(errors)) + 1
    assert np.sqrt(np.mean((fit.predict(X_val) - y_val) ** 2)) == pytest.approx(errors.min())


@pytest.mark.parametrize("entry", ["{name: eigenpro, max_iter: 20}",
                                   "{name: askotch, lam: 1.0e-6, max_iter: 10}"])
def test_they_run_from_a_config(tmp_path, kernreg_cli, entry: str) -> None:
    config = tmp_path / "exact.yaml"
    config.write_text("name: exact\ndataset: {name: breast_cancer}\nalgorithms:\n"
                      f"  - {entry}\nprotocol: {{trials: 1}}\nbudget: {{blas_threads: 1}}\n")
    code, out, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                  "--no-progress"])
    assert code == 0, err
    assert ("EigenPro" if "eigenpro" in entry else "ASkotch") in out


def test_a_partial_last_batch_keeps_the_step_stable() -> None:
    # 300 rows in batches of 298: the last batch's 2 rows move by η/298 per residual, as the
    # reference does (η/2 diverges: the step is sized for 298 rows)
    X, y, _, _ = _data()
    fit = EigenPro(sigma=1.0, batch_size=298, max_iter=50, random_state=0).fit(X, y)
    assert fit.score(X, y) > 0.9


def test_askotch_blocks_fit_a_quarter_of_the_memory() -> None:
    from kernreg.solvers.algorithms.askotch import default_block

    assert default_block(100_000, None, None) == 1000  # the paper's n/100
    assert default_block(4657, None, None) == 100 and default_block(60, None, None) == 60
    assert default_block(464_328, None, 20e9) == int(20e9) // (4 * 464_328 * 8)  # 1346 rows
    assert default_block(300, 60, 1.0) == 60  # a given size stands
    X, y, _, _ = _data()
    assert ASkotch(max_iter=1, max_memory=4 * 300 * 8 * 2,
                   random_state=0).fit(X, y).block_size_ == 2
