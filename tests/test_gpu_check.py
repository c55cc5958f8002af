"""reproduce/bench/gpu_check.py, the prepared GPU check (docs/gpu.md), end to end in its dry run:
quick mode on PyTorch's CPU build (device torch) with Adult from the mirror — the environment
record, the numpy-vs-device equality, one cell on the device and on the CPU, the CSV under $OUT."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "reproduce" / "bench" / "gpu_check.py"


def _script():  # a script, not a module of the layer: load the check by its path
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.mirror
def test_quick_dry_run_writes_the_csv_and_the_equality_passes(tmp_path: Path,
                                                               mirror: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "torch", "--quick", "--cells", "adult_nytro",
         "--threads", "2", "--mirror", str(mirror), "--work", str(tmp_path / "work"),
         "--budget-s", "120"],
        env={**os.environ, "OUT": str(out)}, capture_output=True, text=True, timeout=300)
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stdout + done.stderr
    with open(out / "gpu_check.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert tuple(reader.fieldnames) == _script().COLUMNS
    by = {(r["cell"], r["device_kind"]): r for r in rows}

    # (a) the environment: each device with its measured rates and the threads set
    for kind in ("torch-cpu", "cpu"):
        env_row = by[("environment", kind)]
        assert env_row["status"] == "ok"
        assert float(env_row["gemm_gflops_f64"]) > 0 and float(env_row["stream_gbs"]) > 0
        assert env_row["blas_threads"] == "2"
    record = json.loads((out / "gpu_check_env.json").read_text())
    assert record["threads_set"] == 2 and record["devices"]["torch"]["cli_device"]
    assert (out / "gpu_check.log").is_file()

    # (b) the equality: same λ*/t*, paths equal far below the tolerance
    for algorithm in ("nytro", "nkrls"):
        eq = by[(f"equality_{algorithm}", "torch-cpu")]
        assert eq["status"] == "pass", eq
        assert float(eq["max_rel_diff"]) < 1e-9
        assert float(eq["selected"]) == float(eq["selected_numpy"])
        assert eq["device"].startswith("torch ")

    # (c), (d): the cell on the device and on the CPU, both trials of quick mode, the same
    # iterates (t*, test RMSE), the paper's time beside, marked as fewer trials than Table 2's
    device, host = by[("adult_nytro", "torch-cpu")], by[("adult_nytro", "cpu")]
    for row in (device, host):
        assert row["status"] == "ok", row
        assert row["trials"] == "2" and row["fewer_trials"] == "True"
        assert float(row["median_s"]) > 0 and len(row["trial_seconds"].split()) == 2
        assert float(row["paper_s"]) == 0.85 and row["algorithm"] == "nytro"
        assert row["param_name"] == "iterations" and row["blas_threads"] == "2"
    assert host["device"] == "cpu" and device["device"].startswith("torch ")
    assert device["selected"] == host["selected"]
    assert abs(float(device["test_rmse"]) - float(host["test_rmse"])) < 1e-9
    print(f"quick dry run: {seconds:.1f} s")
