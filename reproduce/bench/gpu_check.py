"""The GPU check: NYTRO Table 2 cells on a GPU and on the CPU, and whether they agree.

Each cell is run twice through kernreg's own command, on the device and on the CPU::

    kernreg run CONFIG --only LABEL --device DEVICE --trials K --out WORK/DEVICE --force \\
        --no-progress --set name=CELL --set budget.blas_threads=THREADS

then its trials are read back from the run's ``results.csv``. One CSV row per cell and device
gives the median test RMSE, t*/λ* and model-selection time over the trials; the device's row
adds the equality with the CPU, trial by trial: the largest relative difference of the test
RMSE, whether every trial selected the same t*/λ*, and the verdict against the tolerance of
the cell's dtype.

    python reproduce/bench/gpu_check.py                              # every cell, cuda and cpu
    python reproduce/bench/gpu_check.py --device cuda:1 --cells adult_nytro --trials 5
    python reproduce/bench/gpu_check.py --device torch --smoke       # any machine, a minute

The CSV goes to ``--csv``, else ``gpu_check.csv`` in ``--out``, else in ``$OUT`` when it is
set, else ``results/gpu_check.csv``. The exit status is 1 when a run failed or a cell's two
devices disagree, 2 when the device cannot be used. docs/gpu.md says what the columns mean.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]

#: cell -> (config in configs/, algorithm label): the cells of Table 2's runs
#: (configs/table2.yaml) whose algorithm takes a device and whose CPU trial takes seconds to
#: minutes, not hours (results/table2_trials.csv).
CELLS = {
    "adult_nytro": ("adult_all.yaml", "nytro"),
    "adult_nkrls": ("adult_all.yaml", "nkrls"),
    "insurance_nytro": ("insurance_all.yaml", "nytro"),
    "insurance_nkrls": ("insurance_all.yaml", "nkrls"),
    "ijcnn1_nytro": ("ijcnn1_nytro.yaml", "nytro"),
    "ijcnn1_nkrls": ("ijcnn1_nkrls.yaml", "nkrls"),
    "covtype_nytro": ("covtype_nytro.yaml", "nytro"),
}

#: The largest relative difference of a trial's test RMSE between the device and the CPU that
#: counts as equal. The tests hold the device code on PyTorch's CPU build to 1e-10 (float64)
#: and 1e-4 (float32 errors); a GPU's BLAS sums in another order, so float64 gets room.
RTOL = {"float64": 1e-6, "float32": 1e-4}

#: The variables that size the BLAS, OpenMP (PyTorch's CPU threads too) and numba pools: those
#: of reproduce/bench/threads.py, repeated so that the script runs as a file from any folder.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMBA_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")

COLUMNS = ("cell", "config", "label", "dtype", "device", "device_name", "status", "trials",
           "test_rmse", "param_name", "selected", "median_s", "speedup_vs_cpu",
           "rmse_max_rel_diff", "same_selected", "rtol", "equal", "blas_threads",
           "torch_threads")


def run_cell(cell: str, device: str, args: argparse.Namespace, work: Path,
             env: dict[str, str]) -> tuple[str, list[dict[str, str]]]:
    """Run ``cell`` on ``device`` with kernreg's command; its status and trials, by trial."""
    config, label = CELLS[cell]
    command = [sys.executable, "-m", "kernreg", "run", f"configs/{config}", "--only", label,
               "--device", device, "--trials", str(args.trials), "--out", str(work / device),
               "--force", "--no-progress", "-q", "--set", f"name={cell}",
               "--set", f"budget.blas_threads={args.threads}"]
    if args.smoke:
        command.append("--smoke")
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()] or ["no message"]
        return f"failed (exit {done.returncode}): {lines[-1]}", []
    with open(work / device / cell / "results.csv", newline="", encoding="utf-8") as f:
        trials = [row for row in csv.DictReader(f) if row["label"] == label]
    return "ok", sorted(trials, key=lambda row: int(row["trial"]))


def summary(trials: list[dict[str, str]]) -> dict[str, object]:
    """The medians over the trials, and the threads they recorded."""
    if not trials:
        return {"trials": 0}
    median = lambda column: statistics.median(float(t[column]) for t in trials)  # noqa: E731
    return {"trials": len(trials), "device_name": trials[0]["device"],
            "test_rmse": median("test_rmse"), "param_name": trials[0]["param_name"],
            "selected": median("selected"), "median_s": median("model_selection_time"),
            "blas_threads": max(int(float(t["blas_threads"])) for t in trials)}


def equality(device: list[dict[str, str]], cpu: list[dict[str, str]],
             rtol: float) -> dict[str, object]:
    """Trial by trial: the largest relative difference of the test RMSE, whether each trial
    selected the same t*/λ*, and whether both hold within ``rtol``."""
    by_trial = {t["trial"]: t for t in cpu}
    if not device or sorted(by_trial) != sorted(t["trial"] for t in device):
        return {"rmse_max_rel_diff": float("inf"), "same_selected": False, "equal": "no"}
    pairs = [(t, by_trial[t["trial"]]) for t in device]
    diff = max(abs(float(d["test_rmse"]) - float(c["test_rmse"])) / abs(float(c["test_rmse"]))
               for d, c in pairs)
    same = all(float(d["selected"]) == float(c["selected"]) for d, c in pairs)
    return {"rmse_max_rel_diff": diff, "same_selected": same,
            "equal": "yes" if same and diff <= rtol else "no"}


def run_environment(threads: int) -> dict[str, str]:
    """This environment with every thread pool of the runs sized to ``threads``."""
    return {**os.environ, **dict.fromkeys(THREAD_VARIABLES, str(threads))}


def torch_threads(device: str, env: dict[str, str]) -> str:
    """PyTorch's CPU threads under ``env`` ("" without PyTorch); exits 2 when ``device`` is a
    GPU that PyTorch cannot see, before anything runs."""
    probe = "import torch; print(torch.get_num_threads(), torch.cuda.is_available())"
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True)
    threads, gpu = done.stdout.split() if done.returncode == 0 else ("", "False")
    if device.startswith("cuda") and gpu != "True":
        print(f"device {device}: PyTorch is missing or sees no CUDA GPU; install the CUDA "
              "build of PyTorch (docs/gpu.md)", file=sys.stderr)
        sys.exit(2)
    return threads


def csv_path(args: argparse.Namespace) -> Path:
    if args.csv:
        return Path(args.csv)
    out = args.out or os.environ.get("OUT")
    return Path(out) / "gpu_check.csv" if out else REPO / "results" / "gpu_check.csv"


def write_csv(path: Path, rows: list[dict[str, object]]) -> None:
    # rewritten after each cell: a run stopped half-way keeps the cells it finished
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()}
                         for row in rows)


@contextlib.contextmanager
def work_folder(work: str | None) -> Iterator[Path]:
    """``work`` (kept for inspection), else a temporary folder removed after."""
    if work:
        yield Path(work).resolve()
        return
    with tempfile.TemporaryDirectory(prefix="gpu_check-") as tmp:
        yield Path(tmp)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda",
                        help="cuda, cuda:N, or torch (PyTorch on the CPU); default cuda")
    parser.add_argument("--cells", default=",".join(CELLS),
                        help=f"comma-separated cells (default all): {', '.join(CELLS)}")
    parser.add_argument("--trials", type=int, default=3,
                        help="trials per cell and device (default 3; Table 2 has 5)")
    parser.add_argument("--smoke", action="store_true",
                        help="kernreg's smoke size (400 rows, m ≤ 40): seconds per run")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="BLAS, OpenMP, numba and torch threads (default: every core)")
    parser.add_argument("--out", help="folder of gpu_check.csv (default $OUT, else results/)")
    parser.add_argument("--csv", help="the CSV's path (overrides --out)")
    parser.add_argument("--work", help="folder of the runs, kept (default: a temporary one)")
    args = parser.parse_args(argv)
    args.cells = [c.strip() for c in args.cells.split(",") if c.strip()]
    unknown = sorted(set(args.cells) - set(CELLS))
    if unknown:
        parser.error(f"unknown cells {unknown}; choose from {', '.join(CELLS)}")
    return args


def cell_rows(cell: str, runs: dict[str, tuple[str, list[dict[str, str]]]],
              torch_threads: str) -> list[dict[str, object]]:
    """The CSV rows of ``cell`` from its runs (device -> status and trials); the rows of a
    device other than cpu carry the equality with cpu and the speed-up over it."""
    config, label = CELLS[cell]
    dtype = yaml.safe_load((REPO / "configs" / config).read_text())["dataset"] \
        .get("dtype", "float64")
    cpu_trials = runs["cpu"][1]
    cpu_seconds = summary(cpu_trials).get("median_s")
    rows = []
    for device, (status, trials) in runs.items():
        row = {"cell": cell, "config": f"configs/{config}", "label": label, "dtype": dtype,
               "device": device, "status": status, "torch_threads": torch_threads,
               **summary(trials)}
        if device != "cpu":
            row.update(equality(trials, cpu_trials, RTOL[dtype]), rtol=RTOL[dtype])
            if cpu_seconds and row.get("median_s"):
                row["speedup_vs_cpu"] = cpu_seconds / row["median_s"]
        rows.append(row)
    return rows


def line(row: dict[str, object]) -> str:
    nan = float("nan")
    return (f"{row['cell']:<16} {row['device']:<7} {row['status']}: {row['trials']} trials, "
            f"test RMSE {row.get('test_rmse', nan):.6g}, {row.get('param_name', '')} "
            f"{row.get('selected', nan):.4g}, median {row.get('median_s', nan):.3g} s, "
            f"equal to cpu: {row.get('equal', '-')}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    env = run_environment(args.threads)
    threads = torch_threads(args.device, env)
    devices = [args.device] if args.device == "cpu" else [args.device, "cpu"]
    path, rows = csv_path(args), []
    with work_folder(args.work) as work:
        for cell in args.cells:
            runs = {device: run_cell(cell, device, args, work, env) for device in devices}
            for row in cell_rows(cell, runs, threads):
                print(line(row), flush=True)
                rows.append(row)
            write_csv(path, rows)
    print(f"written: {path}")
    passed = all(r["status"] == "ok" and r.get("equal", "yes") == "yes" for r in rows)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
