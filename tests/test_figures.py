"""Figures, the HTML report and LiM Table 1 from stored runs (breast cancer ships with
scikit-learn, so these run without the dataset mirror)."""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest

from kernreg.cli import main
from kernreg.results.figures import loglog_slope

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
             "path_nkrls_m80"}
    assert {f"{s}.{ext}" for s in stems for ext in ("png", "pdf")} <= written
    png = (run_dir / "figures" / "heatmap_inkrls_m80.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_report_is_one_self_contained_html_file(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    main(["report", str(run_dir), "-o", str(out), "--title", "small"])
    text = out.read_text()
    assert text.count("data:image/png;base64,") >= 4
    assert "src=\"http" not in text and "<link" not in text
    assert "Incremental NKRLS" in text and "m* (median)" in text


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
  - {name: rf, n_features: 60, d_values: [10, 30, 60], lambdas: [1.0e-2]}
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
    # one λ: a curve per label in the test figure, no heat map and no path figure
    assert set(figures) == {"test_vs_m"} and not any(k.startswith("heat") for k in skipped)
    ax = test_path_figure(run).axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_label().startswith(("random", "Nyström"))]
    assert len(lines) == 2 and ax.get_ylabel() == "test classification error"
    nystrom = next(ln for ln in lines if ln.get_label().startswith("Nyström"))
    expected = np.mean([r.test_path["error"][0] for r in run.records if r.algorithm == "inkrls"],
                       axis=0)
    np.testing.assert_allclose(nystrom.get_ydata(), expected)
    np.testing.assert_array_equal(nystrom.get_xdata(), [10, 30, 60])
