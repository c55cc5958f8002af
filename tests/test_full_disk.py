"""A real full disk: `kernreg run` into a small tmpfs ends in exit status 2 with one message,
leaves no temporary and no damaged trial file, and `--resume` on a larger disk finishes the run
with the rows of an uninterrupted one.

The disk fills at a different write for each size (a trial file's creation, its middle, its
end); HDF5 files written through the library on such a disk crashed the interpreter at exit
(status 139) at about one size in three. Needs root (to mount a tmpfs); skipped otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import h5py
import pandas as pd
import pytest

CONFIG = """
name: small
dataset: {name: breast_cancer, n_train: 120, n_test: 60}
algorithms:
  - {name: nkrls, m: 10, lambdas: {logspace: [1e-6, 1e-1, 6]}}
protocol: {trials: 12}
budget: {blas_threads: 1}
"""
#: tmpfs sizes (KiB): the disk fills at different points of the trial files' writes
SIZES = (28, 36, 44, 60, 84)


def _mount(folder: Path, kib: int, remount: bool = False) -> bool:
    options = f"{'remount,' if remount else ''}size={kib}k"
    return subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
                          capture_output=True).returncode == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    if not _mount(disk, SIZES[0]):
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


def _kernreg(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KERNREG_CACHE": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "kernreg", *args], capture_output=True,
                          text=True, env=env, timeout=300)


def _rows(csv: Path) -> pd.DataFrame:
    columns = ["label", "trial", "selected", "test_rmse", "n_path_points"]
    return pd.read_csv(csv)[columns].sort_values(["label", "trial"]).reset_index(drop=True)


def test_a_full_disk_is_one_message_and_resume_completes(small_disk: Path,
                                                         tmp_path: Path) -> None:
    config = tmp_path / "small.yaml"
    config.write_text(textwrap.dedent(CONFIG))
    for kib in SIZES:
        assert _mount(small_disk, kib, remount=True)
        for entry in small_disk.iterdir():  # each size starts on an empty disk
            subprocess.run(["rm", "-rf", str(entry)], check=True)
        done = _kernreg(["run", str(config), "--out", str(small_disk), "--no-progress"],
                        tmp_path)
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert done.returncode == 2, (kib, done.returncode, done.stderr[-2000:])
        assert "Traceback" not in done.stderr and len(lines) == 1, (kib, done.stderr)
        assert lines[0].startswith("error: cannot write") and \
            "No space left on device" in lines[0] and "--resume" in lines[0]
        run = small_disk / "small"
        assert not list(run.rglob("*.tmp")), kib  # no temporary left behind
        trials = sorted((run / "trials").glob("*.h5"))
        assert 0 < len(trials) < 12
        for path in trials:  # every trial file kept is whole
            with h5py.File(path, "r") as f:
                assert "val_rmse" in f
    # the last size: more room, then --resume finishes with an uninterrupted run's rows
    assert _mount(small_disk, 1024, remount=True)
    done = _kernreg(["run", str(config), "--out", str(small_disk), "--no-progress",
                     "--resume"], tmp_path)
    assert done.returncode == 0, done.stderr
    whole = _kernreg(["run", str(config), "--out", str(tmp_path / "whole"), "--no-progress"],
                     tmp_path)
    assert whole.returncode == 0, whole.stderr
    pd.testing.assert_frame_equal(_rows(small_disk / "small" / "results.csv"),
                                  _rows(tmp_path / "whole" / "small" / "results.csv"))
