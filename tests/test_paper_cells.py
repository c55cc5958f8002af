"""The fast NYTRO Table 2 cells reproduce the paper, not only a frozen reference.

Adult and Insurance, NKRLS and NYTRO, run as the shipped Table 2 configs say (the authors'
protocol: ±1 / [−1, 1] features, window_slope stopping with the datasets' thresholds, NYTRO's
step over fit + validation rows), all 5 trials, about 40 s on 2 cores. Each assertion is one
of the paper's numbers (kernreg's package data, ``nytro_table2.csv``) with the tolerance the
reproduction promises (README, "Reproduced results"):

* test RMSE (mean over trials) within 1% of the paper on Adult, 2% on Insurance;
* NKRLS's λ* (mean) inside the paper's mean ± std;
* NYTRO's t* on Adult (mean) within 40–50 (paper 44.9 ± 0.3). Insurance's t* is not asserted:
  its validation curve is flat from t ≈ 300 on (slope −1e-5 → −5e-6 per iteration against a
  threshold of −5.1e-6), so t* lies anywhere in 290–470 while the RMSE stays within 0.1%.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import isolate_data_env

from kernreg.config import load_experiment
from kernreg.experiment import run_experiment
from kernreg.results.tables import paper_file

pytestmark = pytest.mark.mirror

REPO = Path(__file__).resolve().parents[1]
with paper_file("nytro_table2.csv").open() as _f:
    PAPER = pd.read_csv(_f, keep_default_na=False).set_index(["dataset", "algorithm", "quantity"])
RMSE_TOLERANCE = {"adult": 0.01, "insurance": 0.02}


def _paper(dataset: str, algorithm: str, quantity: str) -> tuple[float, float]:
    row = PAPER.loc[(dataset, algorithm, quantity)]
    return float(row["mean"]), float(row["std"] or 0.0)


@pytest.fixture(scope="module")
def cells(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("paper_cells")
    with pytest.MonkeyPatch.context() as monkeypatch:  # module scope: no per-test isolation
        isolate_data_env(monkeypatch, tmp_path_factory)
        tables = [run_experiment(load_experiment(REPO / "configs" / f"{name}_all.yaml"), out,
                                 progress=False, only=("nkrls", "nytro"))
                  for name in ("adult", "insurance")]
    results = pd.concat(tables)
    assert results.groupby(["dataset", "algorithm"]).size().eq(5).all()  # every trial ran
    return results.groupby(["dataset", "algorithm"])[["test_rmse", "selected"]].mean()


@pytest.mark.parametrize("dataset", ["adult", "insurance"])
@pytest.mark.parametrize("algorithm", ["nkrls", "nytro"])
def test_test_rmse_is_the_papers(cells: pd.DataFrame, dataset: str, algorithm: str) -> None:
    paper, _ = _paper(dataset, algorithm, "rmse")
    ours = cells.loc[(dataset, algorithm), "test_rmse"]
    assert abs(ours / paper - 1) <= RMSE_TOLERANCE[dataset], (ours, paper)


@pytest.mark.parametrize("dataset", ["adult", "insurance"])
def test_nkrls_lambda_is_inside_the_papers_range(cells: pd.DataFrame, dataset: str) -> None:
    mean, std = _paper(dataset, "nkrls", "par")
    ours = cells.loc[(dataset, "nkrls"), "selected"]
    assert mean - std <= ours <= mean + std, (ours, mean, std)


def test_adult_nytro_stops_where_the_paper_did(cells: pd.DataFrame) -> None:
    assert 40 <= cells.loc[("adult", "nytro"), "selected"] <= 50  # paper 44.9 ± 0.3
