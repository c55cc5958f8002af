"""Figures, the HTML report and LiM Table 1 from stored runs (breast cancer ships with
scikit-learn, so these run without the dataset mirror)."""

from __future__ import annotations

from pathlib import Path

import h5py
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from kernreg.cli import main
from kernreg.results.figures import captioned_figures, loglog_slope, path_figure
from kernreg.results.record import TrialRecord
from kernreg.results.store import RunData, tidy_row

CONFIG = """
name: small_lim
dataset: {name: breast_cancer}
algorithms:
  - {name: inkrls, m: [40, 80], m_values: {linspace: [10, 80, 8]},
     lambdas: {logspace: [1e-8, 1, 9]}}
  - {name: nkrls, m: {range: [20, 80, 20]}, lambdas: {logspace: [1e-8, 1, 9]}}
  - {name: nytro, m: 60, max_iter: 30}
protocol: {trials: 2, refit: true}
budget: {blas_threads: 1}
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("figures")
    config = root / "small_lim.yaml"
    config.write_text(CONFIG)
    main(["run", str(config), "--out", str(root / "results"), "--no-progress"])
    return root / "results" / "small_lim"


def test_incremental_grid_is_stored_per_trial(run_dir: Path) -> None:
    with h5py.File(run_dir / "results.h5", "r") as f:
        trial = f["inkrls_m80/trial_000"]
        assert trial["val_rmse"].shape == (9, 8)
        assert list(trial["m_values"][()]) == [10, 20, 30, 40, 50, 60, 70, 80]
        # the m40 entry of the sweep validates only the levels it reaches
        assert list(f["inkrls_m40/trial_000/m_values"][()]) == [10, 20, 30, 40]
        assert f["nytro/trial_000/m_values"].shape == (0,)


def test_plot_writes_every_figure_in_both_formats(run_dir: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    main(["plot", str(run_dir)])
    written = {Path(line).name for line in capsys.readouterr().out.split()}
    # 6 labels: one path per 1-D label, the heat map of the largest incremental m, time vs m
    stems = {"time_vs_m", "heatmap_inkrls_m80", "path_nytro", "path_nkrls_m20",
             "path_nkrls_m80", "error_vs_time"}
    assert {f"{s}.{ext}" for s in stems for ext in ("png", "pdf")} <= written
    png = (run_dir / "figures" / "heatmap_inkrls_m80.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_report_is_one_self_contained_html_file(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    main(["report", str(run_dir), "-o", str(out), "--title", "small"])
    text = out.read_text()
    assert text.count("data:image/png;base64,") >= 4
    assert "src=\"http" not in text and "<link" not in text
    assert "Incremental NKRLS" in text and "<th>m*</th>" in text


def test_lim_table1_puts_paper_values_beside_ours(run_dir: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    main(["table", str(run_dir), "--table", "lim_table1"])
    out = capsys.readouterr().out
    assert "| dataset | n_fit | d | m | trials | m* (median)" in out
    assert "Breast Cancer" in out or "breast" in out.lower()


def test_plot_of_a_folder_without_results_fails_cleanly(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["plot", str(tmp_path)])
    assert exit_info.value.code != 0
    err = capsys.readouterr().err
    assert "is not a run folder" in err and "Traceback" not in err


def test_loglog_slope_recovers_powers() -> None:
    m = np.arange(100, 4001, 100, dtype=float)
    assert loglog_slope(m, 3e-4 * m) == pytest.approx(1.0)
    assert loglog_slope(m, 1e-6 * m**2 + 0.0) == pytest.approx(2.0)


FIG53 = """
name: small_fig53
dataset: {name: breast_cancer}
algorithms:
  - {name: rf, n_components: 60, d_values: [10, 30, 60], lambdas: [1.0e-2]}
  - {name: inkrls, m: 60, m_values: [10, 30, 60], lambdas: [1.0e-2]}
protocol: {trials: 2, record_test_path: true}
budget: {blas_threads: 1}
"""


def test_a_recorded_test_path_over_m_draws_test_error_against_m(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kernreg.results.figures import plan_figures, test_path_figure
    from kernreg.results.store import load_run

    config = tmp_path / "small_fig53.yaml"
    config.write_text(FIG53)
    main(["run", str(config), "--out", str(tmp_path / "results"), "--no-progress"])
    run = load_run(tmp_path / "results" / "small_fig53")
    figures, skipped = plan_figures(run)
    # one λ: a curve per label in the test figure, no heat map and no path figure (the
    # error against time is drawn for every run that recorded path times)
    assert set(figures) == {"test_vs_m", "error_vs_time"}
    assert not any(k.startswith("heat") for k in skipped)
    ax = test_path_figure(run).axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_label().startswith(("random", "Nyström"))]
    assert len(lines) == 2 and ax.get_ylabel() == "test classification error"
    nystrom = next(ln for ln in lines if ln.get_label().startswith("Nyström"))
    expected = np.mean([r.test_path["error"][0] for r in run.records if r.algorithm == "inkrls"],
                       axis=0)
    np.testing.assert_allclose(nystrom.get_ydata(), expected)
    np.testing.assert_array_equal(nystrom.get_xdata(), [10, 30, 60])


# ------------------------------------------------------------------- trials of other lengths
def _record(trial: int, x: np.ndarray, val: np.ndarray, selected: float, *,
            label: str = "nytro", algorithm: str = "nytro", param: str = "iterations",
            **fields: object) -> TrialRecord:
    """A stored trial as a run writes one, with the fields the figures read."""
    return TrialRecord(algorithm=algorithm, label=label, trial=trial, seed=trial,
                       param_name=param, selected=float(selected),
                       path_values=np.asarray(x, dtype=float),
                       val_rmse=np.asarray(val, dtype=float), model_selection_time=1.0 + trial,
                       predict_time=0.1, test_rmse=0.60 + 0.01 * trial, test_error=np.nan,
                       peak_rss=2**20, n_fit=80, n_val=20, n_test=50, **fields)


def _synthetic_run(records: list[TrialRecord]) -> RunData:
    table = pd.DataFrame([tidy_row(r, {"experiment": "synthetic", "dataset": "toy", "m": 40})
                          for r in records])
    return RunData("synthetic", "toy", records, table, Path("synthetic"))


def _early_stopped_run() -> RunData:
    """NYTRO-like trials whose stopping rule fired at t = 42, 42, 44, 44 and 50."""
    records = []
    for trial, stop in enumerate([42, 42, 44, 44, 50]):
        t = np.arange(1.0, stop + 1)
        records.append(_record(trial, t, 0.7 + 0.3 / t + 0.01 * trial, stop))
    return _synthetic_run(records)


def _band_x(ax: plt.Axes) -> np.ndarray:
    (band,) = ax.collections
    return band.get_paths()[0].vertices[:, 0]


def test_a_path_figure_draws_every_trial_to_its_own_end() -> None:
    run = _early_stopped_run()
    ax = path_figure(run, "nytro").axes[0]
    own = [ln for ln in ax.get_lines() if ln.get_alpha() is not None]
    assert len(own) == 5  # one thin line per trial, each to where it stopped
    assert sorted(ln.get_xdata()[-1] for ln in own) == [42, 42, 44, 44, 50]
    median = next(ln for ln in ax.get_lines() if "median" in ln.get_label())
    np.testing.assert_array_equal(median.get_xdata(), np.arange(1, 51))
    values = np.full((5, 50), np.nan)
    for k, r in enumerate(run.records):
        values[k, :r.val_rmse.size] = r.val_rmse
    # at each t: the median of the trials still running there (t = 50: the last one alone)
    np.testing.assert_allclose(median.get_ydata(), np.nanmedian(values, axis=0))
    assert median.get_ydata()[-1] == pytest.approx(run.records[4].val_rmse[-1])
    assert _band_x(ax).min() == 1 and _band_x(ax).max() == 50
    assert "over the trials reaching each t" in median.get_label()
    title = ax.get_legend().get_title().get_text()
    assert title == "5 trials; 1 reaches t = 50, the shortest ends at t = 42"


def test_every_selected_point_is_on_its_own_path() -> None:
    run = _early_stopped_run()
    ax = path_figure(run, "nytro").axes[0]
    (marks,) = [ln for ln in ax.get_lines() if ln.get_marker() == "v"]
    assert len(marks.get_xdata()) == 5
    for r, x, y in zip(run.records, marks.get_xdata(), marks.get_ydata(), strict=True):
        assert x == r.selected == r.path_values[-1] and y == r.val_rmse[-1]


def test_trials_of_equal_length_draw_as_before() -> None:
    lambdas = np.logspace(-6, 0, 7)
    curves = [0.5 + (np.log10(lambdas) + 3) ** 2 / 30 + 0.02 * k for k in range(3)]
    run = _synthetic_run([_record(k, lambdas, c, lambdas[3], label="nkrls", algorithm="nkrls",
                                  param="lambda") for k, c in enumerate(curves)])
    ax = path_figure(run, "nkrls").axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == [
        "validation RMSE (median)", "selected (test RMSE 0.6100 ± 0.0082)"]
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), np.median(curves, axis=0))
    (band,) = ax.collections
    assert band.get_label() == "min–max over 3 trials"
    edge = band.get_paths()[0].vertices
    assert edge[:, 1].min() == pytest.approx(np.min(curves)) and \
        edge[:, 1].max() == pytest.approx(np.max(curves))
    assert ax.get_legend().get_title().get_text() == ""


def test_lambda_grids_that_differ_are_aligned_and_counted() -> None:
    full = np.logspace(-6, 0, 7)
    records = [
        _record(0, full, np.linspace(1.0, 0.4, 7), full[-1], param="lambda"),
        # the same grid recomputed: equal to 1e-12, one point each
        _record(1, full * (1 + 1e-12), np.linspace(1.1, 0.5, 7), full[-1], param="lambda"),
        _record(2, full[2:], np.linspace(0.9, 0.3, 5), full[-1], param="lambda"),
    ]
    ax = path_figure(_synthetic_run(records), "nytro").axes[0]
    median = next(ln for ln in ax.get_lines() if "median" in ln.get_label())
    np.testing.assert_allclose(median.get_xdata(), full)
    assert median.get_ydata()[0] == pytest.approx(1.05)  # two trials at λ = 1e-6
    assert ax.get_legend().get_title().get_text() == \
        "3 trials; 2 to 3 with a value at each λ"


def test_captions_say_what_each_figure_shows() -> None:
    figures, _ = captioned_figures(_early_stopped_run())
    caption = figures["path_nytro"].caption
    assert caption.startswith("Validation RMSE of NYTRO (label nytro) against iteration t")
    assert "5 trials; 1 reaches t = 50, the shortest ends at t = 42" in caption
    assert "20 rows held out" in caption and "selected t*" in caption


def test_the_heat_map_and_test_path_keep_trials_over_other_levels() -> None:
    lambdas = np.array([1e-6, 1e-3])
    test = {"rmse": np.array([[0.5, 0.4, 0.3], [0.6, 0.5, 0.4]])}
    records = [
        _record(0, lambdas, test["rmse"], 1e-6, label="inkrls", algorithm="inkrls",
                param="lambda", m_values=np.array([10, 20, 30]), test_path=test,
                info={"m_selected": 30}),
        _record(1, lambdas, test["rmse"][:, :2] + 0.1, 1e-6, label="inkrls",
                algorithm="inkrls", param="lambda", m_values=np.array([10, 20]),
                test_path={"rmse": test["rmse"][:, :2] + 0.1}, info={"m_selected": 20}),
    ]
    run = _synthetic_run(records)
    figures, _ = captioned_figures(run)
    assert set(figures) == {"heatmap_inkrls", "test_vs_m"}
    heatmap = figures["heatmap_inkrls"].figure
    assert "(2 trials, 1 to 2 per cell)" in heatmap.axes[1].get_ylabel()
    mesh = heatmap.axes[0].collections[0]
    np.testing.assert_allclose(mesh.get_array().reshape(2, 3),
                               [[0.55, 0.45, 0.3], [0.65, 0.55, 0.4]])
    ax = figures["test_vs_m"].figure.axes[0]
    curves = [ln for ln in ax.get_lines() if ln.get_label().startswith("Nyström")]
    np.testing.assert_array_equal(curves[0].get_xdata(), [10, 20, 30])
    np.testing.assert_allclose(curves[0].get_ydata(), [0.55, 0.45, 0.3])
    assert "inkrls 2 trials, 1 to 2 at each (m, λ)" in figures["test_vs_m"].caption


SEVEN = """
name: seven_paths
dataset: {name: breast_cancer}
algorithms:
""" + "".join(f"  - {{name: krls, label: krls_{i}, lambdas: {{logspace: [1.0e-{i + 2}, 1, 4]}}}}\n"
              for i in range(7)) + """protocol: {trials: 1}
budget: {blas_threads: 1}
"""


def test_many_algorithms_without_an_m_sweep_each_get_their_path_figure(tmp_path: Path) -> None:
    """More labels than MAX_PATH_FIGURES is not an m sweep when no time against m is drawn:
    every label's path figure, and no "(an m sweep)" reason."""
    from kernreg.results.figures import MAX_PATH_FIGURES, plan_figures
    from kernreg.results.store import load_run

    config = tmp_path / "seven_paths.yaml"
    config.write_text(SEVEN)
    main(["run", str(config), "--out", str(tmp_path / "results"), "--no-progress"])
    figures, skipped = plan_figures(load_run(tmp_path / "results" / "seven_paths"))
    assert 7 > MAX_PATH_FIGURES
    assert {f"path_krls_{i}" for i in range(7)} <= set(figures)
    assert "path_*" not in skipped
