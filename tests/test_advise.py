"""The regime advisor: degrees of freedom, the map's regions, λ*, and `kernreg advise`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from kernreg.advise import (
    REGIMES,
    c1_curve,
    c2_curve,
    degrees_of_freedom,
    estimate_regime,
    flat_path_lambda,
    iterations_to_reach,
    predict_fastest,
)
from kernreg.cli import main
from kernreg.kernels import make_kernel
from kernreg.solvers.blocks.leverage import exact_leverage_scores


@pytest.fixture
def small_kernel() -> np.ndarray:
    X = np.random.default_rng(0).uniform(size=(150, 3))
    return make_kernel("gaussian", 0.3)(X)


def test_degrees_of_freedom_match_their_definitions(small_kernel: np.ndarray) -> None:
    K, n = small_kernel, small_kernel.shape[0]
    lambdas = np.array([1e-7, 1e-4, 1e-2, 1.0])
    d_eff, d_max = degrees_of_freedom(K, lambdas)
    for j, lam in enumerate(lambdas):
        hat = K @ np.linalg.inv(K + lam * n * np.eye(n))
        assert d_eff[j] == pytest.approx(np.trace(hat), rel=1e-8)
        assert d_max[j] == pytest.approx(n * exact_leverage_scores(K, lam).max(), rel=1e-8)
    assert np.all(np.diff(d_eff) < 0) and np.all(d_eff <= d_max) and np.all(d_max <= n)


def test_map_regions_follow_the_two_curves() -> None:
    n = 10_000
    snr = 1e3  # c1 = 1e4 / log(1e7) = 620.4, c2 = 1e3 / log(1e3) = 144.8
    assert float(c1_curve(snr, n)) == pytest.approx(n / math.log(1e7))
    assert float(c2_curve(snr)) == pytest.approx(1e3 / math.log(1e3))
    assert list(predict_fastest(snr, [50, 300, 1000], n)) == ["nkrls", "nytro", "es"]
    # above c1, c2 splits the exact methods too: KRLS below it (d = n < c2(1e6) = 72382) ...
    assert predict_fastest(1e6, n, n) == "krls"
    # ... and near SNR = 1, where c2 peaks (the paper's "KRLS only when SNR ≈ 1, d close to n")
    assert float(c2_curve(1.00005)) > n and predict_fastest(1.00005, 0.9 * n, n) == "krls"
    assert predict_fastest(1e4, 0.9 * n, n) == "es"  # SNR < n yet above c2: early stopping
    # the noisy side: NYTRO for SNR ≤ 1 (away from the peak), ES once d reaches c1
    assert list(predict_fastest(0.1, [2, 100, 1000], n)) == ["nytro", "nytro", "nytro"]
    assert float(c1_curve(0.01, n)) == pytest.approx(n / math.log(100))
    assert predict_fastest(0.01, 5000, n) == "es"
    # every point of a grid gets one of the four solvers
    grid = predict_fastest(*np.meshgrid(np.logspace(0.1, 8, 30), np.logspace(0, 4, 30)), n)
    assert set(grid.ravel()) == set(REGIMES)


def test_flat_path_lambda_takes_the_largest_lambda_as_good_as_the_best() -> None:
    lambdas = np.array([1e-8, 1e-6, 1e-4, 1e-2])
    assert flat_path_lambda(lambdas, [1.0, 1.0, 1.005, 1.2], 0.01) == 1e-4
    assert flat_path_lambda(lambdas, [1.0, 1.0, 1.005, 1.2], 0.0) == 1e-6
    assert flat_path_lambda(lambdas, [np.nan, 2.0, 1.0, np.nan], 0.01) == 1e-4
    with pytest.raises(ValueError, match="no finite value"):
        flat_path_lambda(lambdas, [np.nan] * 4, 0.01)


def test_noisier_targets_give_a_lower_snr() -> None:
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(1200, 2))
    f = np.sin(4 * X[:, 0]) + np.cos(3 * X[:, 1])
    clean = estimate_regime(X, f + 0.01 * rng.standard_normal(1200), sigma=0.3, m=200,
                            subsample=400, seed=0)
    noisy = estimate_regime(X, f + 1.0 * rng.standard_normal(1200), sigma=0.3, m=200,
                            subsample=400, seed=0)
    assert clean.snr > 100 * noisy.snr
    # more regularization, fewer degrees of freedom
    assert noisy.d_eff < clean.d_eff <= clean.subsample
    assert clean.predicted in REGIMES and clean.n == 960
    # and fewer iterations for NYTRO to match NKRLS
    assert noisy.nytro_iterations is not None
    assert noisy.t_measured < clean.t_measured


def test_iterations_to_reach_is_the_first_iteration_at_or_below_target() -> None:
    val = np.array([3.0, 2.0, 1.5, 1.6, 1.2])
    assert iterations_to_reach(val, 1.5) == 3
    assert iterations_to_reach(val, 3.0) == 1
    assert iterations_to_reach(val, 1.0) is None


def test_advise_command_writes_text_json_and_map(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    main(["advise", "breast_cancer", "--subsample", "200", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "predicted fastest:" in out and "SNR ≈ 1/λ*" in out
    saved = json.loads((tmp_path / "breast_cancer.json").read_text())
    assert saved["predicted"] in REGIMES and saved["sigma"] == 0.9
    assert saved["subsample"] == 200 and saved["blas_threads"]
    assert saved["predicted_measured_t"] in REGIMES and saved["t_measured"] >= 1
    assert (tmp_path / "breast_cancer.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args, message", [
    (["nosuchdata"], "nosuchdata"),
    (["breast_cancer", "--m", "0"], "--m must be > 0"),
    (["breast_cancer", "--tolerance", "-1"], "--tolerance must be > 0"),
    # the paper σ's one rule (kernreg.datasets.paper_default), in the config loader's words
    (["cpu_act"], "--sigma: required, dataset cpu_act has no paper default"),
])
def test_advise_rejects_bad_input_with_one_message(args: list[str], message: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["advise", *args, "--out", str(tmp_path)])
    assert exit_info.value.code != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())


def test_the_drawn_map_is_the_predictor_on_a_grid() -> None:
    from kernreg.advise import Advice
    from kernreg.advise.figure import regime_map_figure

    advice = Advice(dataset="toy", n=5000, d=3, sigma=1.0, m=100, lam_best=1e-4, lam_star=1e-3,
                    tolerance=0.01, val_rmse=0.5, subsample=1000, d_eff=40.0, d_max=300.0,
                    d_eff_half=39.0, nytro_iterations=20, max_iter=500, path_seconds=0.1,
                    nytro_seconds=0.1, dof_seconds=0.1)
    fig = regime_map_figure(advice, grid=60)
    ax = fig.axes[0]
    mesh = ax.collections[0]
    snr, dof = np.logspace(-3, 6, 60), np.logspace(0, np.log10(5000), 60)  # SNR_MIN … 100·n
    expected = np.vectorize(REGIMES.index)(predict_fastest(*np.meshgrid(snr, dof), 5000))
    assert np.array_equal(np.asarray(mesh.get_array()).reshape(60, 60), expected)
    # the advice's points sit where its predictions say
    points = {line.get_marker(): line.get_xydata()[0] for line in ax.lines
              if len(line.get_xydata()) == 1}
    assert tuple(points["o"]) == (1e3, 40.0) and tuple(points["D"]) == (20.0, 40.0)
    assert predict_fastest(1e3, 40.0, 5000) == advice.predicted


def _strict_json(text: str) -> dict:
    """JSON as other programs read it: ``NaN``/``Infinity`` are not JSON."""
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not valid JSON")
    return json.loads(text, parse_constant=refuse)


def test_a_sigma_whose_kernel_is_the_identity_is_refused_before_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """σ = 1e-140 on standardized data: every kernel value between two distinct rows
    underflows, the NKRLS path is flat at λ = 1 and c2 = SNR/|log SNR| is infinite — advice
    that means nothing is refused, naming --sigma and the bound, before any file."""
    with pytest.raises(SystemExit) as exit_info:
        main(["advise", "breast_cancer", "--sigma", "1e-140", "--subsample", "200",
              "--out", str(tmp_path / "a")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --sigma 1e-140 is below ") and "Traceback" not in err
    assert "kernel matrix is the identity" in err and len(err.strip().splitlines()) == 1
    bound = float(err.split("is below ")[1].split()[0])
    assert 1e-3 < bound < 0.9  # the paper's σ = 0.9 is well above it
    assert not (tmp_path / "a").exists()


def test_advice_at_a_pole_of_the_map_writes_null_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """λ* = 1 (the top of the λ grid: a path flat everywhere) gives SNR = 1, c2's pole: the JSON
    stays valid JSON, c2 is null and the file says why."""
    import kernreg.advise as advise_module
    from kernreg.advise import Advice

    flat = Advice(dataset="breast_cancer", n=320, d=30, sigma=0.9, m=200, lam_best=1e-15,
                  lam_star=1.0, tolerance=0.01, val_rmse=1.0, subsample=200, d_eff=0.6,
                  d_max=0.9, d_eff_half=0.7, nytro_iterations=1, max_iter=500,
                  path_seconds=0.1, nytro_seconds=0.1, dof_seconds=0.1)
    monkeypatch.setattr(advise_module, "estimate_regime", lambda *a, **k: flat)
    main(["advise", "breast_cancer", "--subsample", "200", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    saved = _strict_json((tmp_path / "breast_cancer.json").read_text())
    assert saved["c2"] is None and saved["snr"] == 1.0
    assert "pole" in saved["undefined"]["c2"] and "SNR = 1" in saved["undefined"]["c2"]
    assert saved["c1"] == pytest.approx(320 / math.log(320)) and "c1" not in saved["undefined"]
    assert saved["predicted"] in REGIMES
    assert "c2 = SNR/|log SNR| = ∞" in out


def test_advice_json_is_strict_json() -> None:
    from kernreg.advise import Advice

    finite = Advice(dataset="toy", n=5000, d=3, sigma=1.0, m=100, lam_best=1e-4,
                    lam_star=1e-3, tolerance=0.01, val_rmse=0.5, subsample=1000, d_eff=40.0,
                    d_max=300.0, d_eff_half=39.0, nytro_iterations=None, max_iter=500,
                    path_seconds=0.1, nytro_seconds=0.1, dof_seconds=0.1)
    saved = _strict_json(json.dumps(finite.to_dict(), allow_nan=False))
    assert saved["undefined"] == {} and saved["c2"] == pytest.approx(1e3 / math.log(1e3))


def test_the_advice_says_when_no_t_was_measured() -> None:
    from dataclasses import replace

    from kernreg.advise import Advice

    advice = Advice(dataset="toy", n=5000, d=3, sigma=1.0, m=100, lam_best=1e-4,
                    lam_star=1e-3, tolerance=0.01, val_rmse=0.5, subsample=1000, d_eff=40.0,
                    d_max=300.0, d_eff_half=39.0, nytro_iterations=None, max_iter=500,
                    path_seconds=0.1, nytro_seconds=0.1, dof_seconds=0.1)
    last = advice.to_text().splitlines()[-1]
    # SNR = 1/λ* = 1000 stands in for t: never called a measured t
    assert last.startswith("no t measured (NYTRO did not get there in 500 iterations): t ≥ 500,"
                           " at t ≈ max(SNR, 500) = 1e+03: ")
    measured = replace(advice, nytro_iterations=42).to_text().splitlines()[-1]
    assert measured.startswith("with t measured instead of t ≈ SNR: ")
    assert measured.endswith("(at t = 42, d_eff)")
