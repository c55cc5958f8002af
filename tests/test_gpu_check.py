"""reproduce/bench/gpu_check.py, the GPU check (docs/gpu.md): end to end at smoke size on
PyTorch's CPU build (``--device torch``) with Adult from the mirror — the CSV's columns, its
numbers read back from the two runs, their equality — and the equality's verdict on trials that
differ, which a real GPU may give."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from reproduce.bench import gpu_check

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "reproduce" / "bench" / "gpu_check.py"
#: The CSV's format, as docs/gpu.md describes it.
COLUMNS = ("cell", "config", "label", "dtype", "device", "device_name", "status", "trials",
           "test_rmse", "param_name", "selected", "median_s", "speedup_vs_cpu",
           "rmse_max_rel_diff", "same_selected", "rtol", "equal", "blas_threads",
           "torch_threads")


@pytest.mark.mirror
def test_smoke_run_on_torch_writes_both_devices_and_their_equality(tmp_path: Path,
                                                                   mirror: Path) -> None:
    out, work = tmp_path / "out", tmp_path / "work"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "torch", "--smoke", "--cells", "adult_nytro",
         "--trials", "2", "--threads", "1", "--work", str(work)],
        env={**os.environ, "OUT": str(out)}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(out / "gpu_check.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = {row["device"]: row for row in reader}
    assert tuple(reader.fieldnames) == COLUMNS == gpu_check.COLUMNS
    assert set(rows) == {"torch", "cpu"}
    names = {"torch": f"torch {torch.__version__} (cpu)", "cpu": "cpu"}
    for device, row in rows.items():
        assert (row["cell"], row["config"], row["label"], row["dtype"]) == \
            ("adult_nytro", "configs/adult_all.yaml", "nytro", "float64")
        assert row["status"] == "ok" and row["device_name"] == names[device]
        # the threads asked for reached the runs: each trial's BLAS pool, and PyTorch's
        assert row["blas_threads"] == "1" and row["torch_threads"] == "1"
        # the numbers are the run's own: the medians of its results.csv
        trials = pd.read_csv(work / device / "adult_nytro" / "results.csv")
        assert row["trials"] == "2" and len(trials) == 2
        assert set(trials["device"]) == {names[device]}
        assert float(row["test_rmse"]) == pytest.approx(trials["test_rmse"].median(), rel=1e-5)
        assert float(row["selected"]) == trials["selected"].median()
        assert row["param_name"] == "iterations"
        assert float(row["median_s"]) == pytest.approx(
            trials["model_selection_time"].median(), rel=1e-5)

    device, cpu = rows["torch"], rows["cpu"]
    assert device["equal"] == "yes" and device["same_selected"] == "True"
    assert float(device["rmse_max_rel_diff"]) < 1e-10 and float(device["rtol"]) == 1e-6
    assert float(device["speedup_vs_cpu"]) == pytest.approx(
        float(cpu["median_s"]) / float(device["median_s"]), rel=1e-4)
    assert cpu["equal"] == cpu["rmse_max_rel_diff"] == cpu["speedup_vs_cpu"] == ""


def _trials(*values: tuple[float, float]) -> list[dict[str, str]]:
    return [{"trial": str(i), "test_rmse": str(rmse), "selected": str(selected)}
            for i, (rmse, selected) in enumerate(values)]


def test_the_equality_fails_on_another_selection_a_larger_difference_or_a_missing_trial(
) -> None:
    cpu = _trials((0.5, 20.0), (0.4, 30.0))
    assert gpu_check.equality(_trials((0.5, 20.0), (0.4, 30.0)), cpu, 1e-6) == \
        {"rmse_max_rel_diff": 0.0, "same_selected": True, "equal": "yes"}
    # one trial stops one iteration later: not equal, whatever its RMSE
    later = gpu_check.equality(_trials((0.5, 20.0), (0.4, 31.0)), cpu, 1e-6)
    assert later["same_selected"] is False and later["equal"] == "no"
    # the same selections, an RMSE off by 1e-5 relative: within float32's room, not float64's
    off = _trials((0.5, 20.0), (0.4 * (1 + 1e-5), 30.0))
    assert gpu_check.equality(off, cpu, gpu_check.RTOL["float64"])["equal"] == "no"
    assert gpu_check.equality(off, cpu, gpu_check.RTOL["float32"])["equal"] == "yes"
    assert gpu_check.equality(off, cpu, 1.0)["rmse_max_rel_diff"] == pytest.approx(1e-5)
    # a device run that lost a trial (or failed: none) is never equal
    assert gpu_check.equality(off[:1], cpu, 1.0)["equal"] == "no"
    assert gpu_check.equality([], cpu, 1.0)["equal"] == "no"


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is visible here")
def test_cuda_without_a_gpu_stops_before_any_run(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--device", "cuda", "--out",
                           str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "device cuda: PyTorch is missing or sees no CUDA GPU" in done.stderr
    assert list(tmp_path.iterdir()) == []
