"""LiM Figure 1 as the authors drew it: the breast-cancer heat map coloured by the validation
classification error (reproduce/lim/lim_fig1_heatmaps.py), the one-factor experiment on its
m = 300 cell (reproduce/lim/lim_fig1_m300.py) and its docs table. Breast cancer ships with
scikit-learn: no mirror needed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kernreg.config import experiment_task, load_experiment, make_estimator
from kernreg.experiment.trial import prepare_data, trial_split
from kernreg.results.figures import captioned_figures, heatmap_figure
from reproduce.docs_tables.paper_tables import render_lim_fig1_m300
from reproduce.lim import lim_fig1_heatmaps, lim_fig1_m300

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def val_error_run():
    return lim_fig1_heatmaps.val_error_run(lim_fig1_heatmaps.VAL_ERROR_STEM, smoke=True)


def test_authors_pick_is_their_loop_order() -> None:
    val = np.array([[0.2, 0.1, 0.1],   # λ index 0 (the smallest)
                    [0.3, 0.1, 0.05],
                    [0.1, 0.2, 0.05]])  # λ index 2 (the largest)
    # m ascending, λ from the largest down, strict <: the first 0.05 met is (λ 2, m 2)
    assert lim_fig1_heatmaps.authors_pick(val) == (2, 2)
    assert lim_fig1_heatmaps.authors_pick(val[:, :2]) == (2, 0)  # the fewest centers first
    assert lim_fig1_heatmaps.authors_pick(val[:2, :2]) == (1, 1)  # a tie: the larger λ


def test_the_heat_map_colours_the_validation_classification_error(val_error_run) -> None:
    run = val_error_run
    recs = run.records
    assert all(r.val_measure == "error" and r.task == "binary" for r in recs)
    fig = heatmap_figure(run, recs[0].label)
    mesh = fig.axes[0].collections[0]
    grids = np.stack([r.val_rmse for r in recs])
    np.testing.assert_allclose(np.asarray(mesh.get_array()).reshape(grids.shape[1:]),
                               grids.mean(axis=0))
    assert fig.axes[1].get_ylabel().startswith("validation classification error, mean of")
    # errors of n_val rows: multiples of 1/n_val
    n_val = recs[0].n_val
    np.testing.assert_allclose(grids * n_val, np.round(grids * n_val), atol=1e-9)
    caption = captioned_figures(run)[0][f"heatmap_{recs[0].label}"].caption
    assert caption.startswith("Validation classification error of Incremental NKRLS")


def test_each_cell_is_the_error_of_that_model_alone(val_error_run) -> None:
    """A cell of the re-scored grid equals the validation classification error of the
    incremental estimator fitted at that one (λ, m') (same split, same centers)."""
    exp = load_experiment(ROOT / "configs" / f"{lim_fig1_heatmaps.VAL_ERROR_STEM}.yaml",
                          smoke=True)
    data = prepare_data(exp)
    task = experiment_task(exp.task, exp.dataset["name"])
    rec = val_error_run.records[0]
    seed, (X_fit, y_fit, X_val, y_val) = trial_split(exp, data, 0)
    for j, k in [(0, 0), (1, 2), (2, 1)]:
        est = make_estimator(exp.algorithms[0], exp, random_state=seed)
        est.set_params(lambdas=[rec.path_values[j]], m_values=[int(rec.m_values[k])])
        est.fit(X_fit, y_fit, X_val, y_val)
        error = task.evaluate(y_val, est.predict(X_val), data.codes)["error"]
        assert rec.val_rmse[j, k] == pytest.approx(error)
    # the selection circled: the authors' pick on the grid, its test error recorded
    j, k = lim_fig1_heatmaps.authors_pick(rec.val_rmse)
    assert rec.selected == rec.path_values[j] and rec.info["m_selected"] == rec.m_values[k]
    assert rec.test_error == pytest.approx(rec.test_path["error"][j, k])


def test_an_rmse_run_keeps_its_colour_title(val_error_run) -> None:
    rec = val_error_run.records[0]
    rmse = type(val_error_run)(val_error_run.name, val_error_run.dataset,
                               [type(rec)(**{**rec.__dict__, "val_measure": "rmse"})],
                               val_error_run.table.iloc[:1], val_error_run.run_dir)
    fig = heatmap_figure(rmse, rec.label)
    assert fig.axes[1].get_ylabel() == "validation RMSE, mean of 1 trial"


def test_m300_base_is_the_points_run_and_variants_change_one_factor() -> None:
    base = lim_fig1_m300.run_variant("base", 2, smoke=True)
    # the base is configs/lim_fig1_points_breast_cancer_fitrows.yaml's cell, trial by trial
    exp = load_experiment(lim_fig1_m300.CONFIG, smoke=True)
    algo = next(a for a in exp.algorithms if a.label == lim_fig1_m300.LABEL)
    from kernreg.experiment.trial import run_trial
    data = prepare_data(exp)
    for row in base:
        record = run_trial(exp, algo, data, row["trial"])
        assert row["test_error"] == pytest.approx(record.test_error)
        assert (row["penalty"], row["refit"], row["n_fit"], row["n_test"]) == \
            ("identity", False, 320, 169)
    kmm = lim_fig1_m300.run_variant("kmm_penalty", 1, smoke=True)[0]
    assert kmm["penalty"] == "kmm" and kmm["seed"] == base[0]["seed"]
    refit = lim_fig1_m300.run_variant("refit", 1, smoke=True)[0]
    assert refit["refit"] is True
    down = lim_fig1_m300.run_variant("lambda_down", 1, smoke=True)[0]
    up = lim_fig1_m300.run_variant("lambda_up", 1, smoke=True)[0]
    assert down["lambda"] < base[0]["lambda"] < up["lambda"]
    assert base[0]["lambda"] == pytest.approx(4.28e-6, rel=1e-3)
    moved = lim_fig1_m300.run_variant("random_test", 1, smoke=True)[0]
    assert moved["n_test"] == 169 and moved["n_fit"] == 320


def test_the_m300_table_renders_blocks_of_twenty(tmp_path: Path) -> None:
    rows = [{"variant": "base", "trial": t, "test_error": e, "test_errors": round(e * 169),
             "n_test": 169} for t, e in enumerate([3 / 169, 2 / 169])]
    rows += [{"variant": "trials_1000", "trial": t, "test_error": (t // 20 + 1) / 169,
              "test_errors": t // 20 + 1, "n_test": 169} for t in range(60)]
    path = tmp_path / "lim_fig1_m300.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    text = render_lim_fig1_m300(path)
    assert "| base | the authors' script" in text and "| 2 | 0.0148 ± 0.0030 |" in text
    assert "2.50 of 169" in text
    assert "in 3 disjoint blocks of 20" in text
    assert "block means 0.00592 … 0.01775" in text
    assert "2 of 3 blocks at or below the paper's 0.0124" in text


def test_the_costs_table_gives_the_ratios_of_the_means(tmp_path: Path) -> None:
    from reproduce.docs_tables.paper_tables import render_lim_fig1_costs

    rows = []
    for t in range(2):
        for role, label, seconds, grown in (("small", "m62", 1.0 + t, 10 * 2**20),
                                            ("large", "m1000", 4.0 + 2 * t, 40 * 2**20)):
            rows.append({"dataset": "pumadyn32nh", "pair": "3-fold speed-up", "role": role,
                         "label": label, "trial": t, "seconds": seconds,
                         "rss_before": 100 * 2**20, "peak_rss": 100 * 2**20 + grown})
    path = tmp_path / "lim_fig1_costs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    text = render_lim_fig1_costs(path)
    # times 1.5 ± 0.5 against 5 ± 1: ratio 0.30; memory 10 against 40 MiB: 0.25
    assert "| pumadyn-32nh | 3-fold speed-up | m62 / m1000 | 2 |" in text
    assert "| 0.30 |" in text and "| 0.25 |" in text


def test_inkrls_selects_by_classification_error_when_asked() -> None:
    """``validation_measure="error"``: the (λ, m') path holds the validation classification
    error of every model, the threshold at the middle of the two codes ({0, 1} here)."""
    import numpy as np
    from sklearn.datasets import load_breast_cancer

    from kernreg.solvers import get_algorithm

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    y = y.astype(float)  # {0, 1}
    fit, val = slice(0, 320), slice(320, 400)
    cls = get_algorithm("inkrls")
    kwargs = {"m": 30, "sigma": 0.9, "lambdas": [1e-6, 1e-3], "m_values": [10, 30],
              "penalty": "identity", "random_state": 0}
    est = cls(validation_measure="error", **kwargs).fit(X[fit], y[fit], X[val], y[val])
    errors = est.path_["val_rmse"]
    assert errors.shape == (2, 2) and np.all((errors >= 0) & (errors <= 1))
    assert np.allclose(errors * 80, np.round(errors * 80))  # whole mistakes of 80 rows
    # the selected model (no refit) makes exactly the path's smallest error
    wrong = np.mean((est.predict(X[val]) >= 0.5) != (y[val] > 0.5))
    assert errors.min() == pytest.approx(wrong)
    assert est.path_["val_rmse"].min() == errors[est.path_["lambdas"].tolist().index(
        est.best_lambda_), est.path_["m_values"].tolist().index(est.best_m_)]
    rmse = cls(**kwargs).fit(X[fit], y[fit], X[val], y[val]).path_["val_rmse"]
    assert not np.allclose(rmse, errors)  # the default still scores RMSE
    with pytest.raises(ValueError, match="validation_measure"):
        cls(validation_measure="hinge", **kwargs).fit(X[fit], y[fit], X[val], y[val])
