"""``--smoke``: every config of the project at smoke size, checked like the file itself."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from shipped_configs import needs_absent_mirror

from kernreg.config import HOLDOUT, load_experiment, protocol_kind
from kernreg.config.loader import parse_experiment, read_yaml
from kernreg.config.smoke import (
    SMOKE_CENTERS,
    SMOKE_GRID_POINTS,
    SMOKE_ITERATIONS,
    SMOKE_ROWS,
    SMOKE_TEST_ROWS,
    smoke_config,
)
from kernreg.experiment.protocol import get_protocol, load_protocol_config

REPO = Path(__file__).resolve().parents[1]
CONFIGS = sorted(p for p in (REPO / "configs").glob("*.yaml")
                 if "runs" not in yaml.safe_load(p.read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_every_config_validates_at_smoke_size(path: Path) -> None:
    if needs_absent_mirror(path):
        pytest.skip(f"{path.name} reads the offline mirror's files, absent here")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    kind = protocol_kind(data)
    if kind != HOLDOUT:
        cfg = load_protocol_config(get_protocol(kind), path, smoke=True)
        if kind == "online_regression":  # thesis ch. 8: its script's smoke size
            assert cfg.simulation["n_samples"] <= 300 and cfg.protocol["n_parts"] <= 3
            assert all(a.params.get("n_components", 0) <= SMOKE_CENTERS
                       for a in cfg.algorithms)
            return
        assert cfg.protocol["trials"] == 1
        assert cfg.protocol["n_bal"] <= 36 and max(cfg.protocol["record_at"]) <= 10
        return
    exp = load_experiment(path, smoke=True)
    assert exp.protocol["trials"] == 1
    assert exp.dataset["n_train"] <= SMOKE_ROWS and exp.dataset["n_test"] <= SMOKE_TEST_ROWS
    full = load_experiment(path)
    assert {a.name for a in exp.algorithms} == {a.name for a in full.algorithms}
    for algo in exp.algorithms:
        for key in ("m", "n_components"):
            if isinstance(algo.params.get(key), int):
                assert algo.params[key] <= SMOKE_CENTERS
        if "max_iter" in algo.params:
            assert algo.params["max_iter"] <= SMOKE_ITERATIONS


def test_sizes_scale_together_and_grids_keep_their_ends() -> None:
    data = {"dataset": {"name": "cpusmall"},
            "algorithms": [{"name": "inkrls", "m": 2048, "m_values": {"linspace": [64, 2048, 32]},
                            "lambdas": [1e-12, 1e-9, 1e-6, 1e-3, 1]},
                           {"name": "nkrls", "m": {"range": [20, 1000, 20]},
                            "lambdas": {"logspace": [1e-12, 1, 100]}}],
            "protocol": {"trials": 5, "seed": 3}}
    small = smoke_config(data)
    inkrls, nkrls = small["algorithms"]
    assert inkrls["m"] == SMOKE_CENTERS
    assert inkrls["m_values"] == {"linspace": [4, SMOKE_CENTERS, SMOKE_GRID_POINTS]}
    assert inkrls["lambdas"] == [1e-12, 1e-6, 1]
    assert nkrls["m"]["range"][1] == SMOKE_CENTERS
    assert nkrls["lambdas"] == {"logspace": [1e-12, 1, SMOKE_GRID_POINTS]}
    assert small["protocol"] == {"trials": 1, "seed": 3}
    assert data["algorithms"][0]["m"] == 2048  # the input is not modified


def test_a_config_without_a_protocol_runs_one_trial_at_smoke_size() -> None:
    data = {"dataset": {"name": "cpusmall"}, "algorithms": [{"name": "nkrls", "m": 100}]}
    exp = parse_experiment(data, Path("bare.yaml"), smoke=True)
    assert exp.protocol["trials"] == 1 and parse_experiment(data, Path("b.yaml")).protocol[
        "trials"] > 1


def test_command_line_overrides_apply_after_the_smoke_size() -> None:
    data = read_yaml(REPO / "configs" / "ci_cpusmall.yaml")
    exp = parse_experiment(data, Path("ci_cpusmall.yaml"), {"protocol": {"trials": 2}}, smoke=True)
    assert exp.protocol["trials"] == 2 and exp.dataset["n_train"] == SMOKE_ROWS


def test_a_smoke_run_writes_its_own_run_folder(kernreg_cli, mirror, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = kernreg_cli(["run", str(REPO / "configs" / "ci_cpusmall.yaml"), "--smoke",
                                  "--no-progress"])
    assert code == 0, err
    run_dir = tmp_path / "results" / "smoke" / "ci_cpusmall"
    results = pd.read_csv(run_dir / "results.csv")
    assert set(results["trial"]) == {0}
    saved = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["config"]
    assert saved["dataset"]["n_train"] == SMOKE_ROWS
    assert not (tmp_path / "results" / "ci_cpusmall").exists()
    assert results["gemm_gflops"].isna().all()  # a smoke run's times mean nothing
    assert load_experiment(REPO / "configs" / "ci_cpusmall.yaml", smoke=True).smoke
    assert not load_experiment(REPO / "configs" / "ci_cpusmall.yaml").smoke
