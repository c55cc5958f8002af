"""Exact KRLS by randomly-pivoted-Cholesky-preconditioned CG: KRLS's solution at every λ (no
Nyström approximation), fewer iterations the more of K the factor captures, the same with K
stored or re-evaluated, and a λ path selected as KRLS's."""

from __future__ import annotations

import numpy as np
import pytest

from kernreg import KRLS, RPCholeskyPCG


def _data(n: int = 500, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    X, X_val = rng.standard_normal((n, 3)), rng.standard_normal((150, 3))
    return (X, np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n), X_val, np.sin(X_val[:, 0]))


@pytest.mark.parametrize("lam", [1e-3, 1e-5, 1e-7])
def test_it_converges_to_krls(lam: float) -> None:
    X, y, X_val, _ = _data()
    exact = KRLS(sigma=1.0, lam=lam).fit(X, y).predict(X_val)
    fit = RPCholeskyPCG(sigma=1.0, lam=lam, rank=100, max_iter=500, tol=1e-12,
                        random_state=0).fit(X, y)
    np.testing.assert_allclose(fit.predict(X_val), exact, rtol=0,
                               atol=1e-6 * np.abs(exact).max())
    assert fit.n_iter_ < 500  # stopped by tol, not by the cap


def test_a_larger_factor_takes_fewer_iterations() -> None:
    X, y, _, _ = _data()
    iterations = [RPCholeskyPCG(sigma=1.0, lam=1e-5, rank=rank, max_iter=2000, tol=1e-10,
                                random_state=0).fit(X, y).n_iter_ for rank in (1, 20, 100)]
    assert iterations[0] > iterations[1] > iterations[2]


def test_a_stored_kernel_and_its_blocks_give_the_same_path() -> None:
    X, y, X_val, y_val = _data(300)
    fits = [RPCholeskyPCG(sigma=1.0, rank=50, lambdas=np.logspace(-6, 0, 4), max_iter=20,
                          strategy=strategy, random_state=1).fit(X, y, X_val, y_val)
            for strategy in ("memory", "blocked")]
    np.testing.assert_allclose(fits[0].path_["val_rmse"], fits[1].path_["val_rmse"], rtol=1e-10)
    np.testing.assert_allclose(fits[0].predict(X_val), fits[1].predict(X_val), rtol=1e-10)
    # auto: stored where K and K_vm fit twice over, else re-evaluated
    est = RPCholeskyPCG(max_memory=2 * (300 + 150) * 300 * 8)
    assert est._storage(300, 150) == "memory" and est._storage(301, 150) == "blocked"


def test_the_lambda_path_selects_as_krls_does() -> None:
    X, y, X_val, y_val = _data()
    lambdas = np.logspace(-8, 0, 9)
    fit = RPCholeskyPCG(sigma=1.0, rank=100, lambdas=lambdas, max_iter=200, tol=1e-12,
                        stopping_rule="none", random_state=0).fit(X, y, X_val, y_val)
    exact = KRLS(sigma=1.0, lambdas=lambdas).fit(X, y, X_val, y_val)
    assert fit.best_lambda_ == exact.best_lambda_
    # a λ's error is its best iterate's: at most the converged solution's, equal to it where
    # the iterations approach it from above (the larger λ)
    assert np.all(fit.path_["val_rmse"] <= exact.path_["val_rmse"] * (1 + 1e-9))
    np.testing.assert_allclose(fit.path_["val_rmse"][-3:], exact.path_["val_rmse"][-3:],
                               rtol=1e-6)
    assert set(fit.path_) >= {"lambdas", "val_rmse", "iterations", "seconds"}


def test_it_runs_from_a_config(tmp_path, kernreg_cli) -> None:
    config = tmp_path / "rpc.yaml"
    config.write_text("name: rpc\ndataset: {name: breast_cancer}\nalgorithms:\n"
                      "  - {name: rpcholesky_pcg, rank: 50, max_iter: 30}\n"
                      "protocol: {trials: 1}\nbudget: {blas_threads: 1}\n")
    code, out, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "runs"),
                                  "--no-progress"])
    assert code == 0, err
    assert "RPCholesky PCG" in out
