"""An output path that exists and is not a regular file is never replaced.

A FIFO or a device the user names is written through (as ``cat > PATH`` would), a symbolic link
is followed, and inside kernreg's own folders anything but a regular file or a link is refused.
Every atomic write is flushed to disk before and after its rename.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from cli_runner import run_kernreg

from kernreg.atomic import write_text
from kernreg.errors import OutputError

CONFIG = """name: small
dataset: {name: breast_cancer, n_train: 120, n_test: 60}
algorithms:
  - {name: nkrls, m: 20, lambdas: {logspace: [1e-6, 1e-1, 4]}}
protocol: {trials: 1}
budget: {blas_threads: 1}
"""


def _device(folder: Path, name: str, minor: int) -> Path:
    """A character device node with the numbers of /dev/null (minor 3) or /dev/full (7)."""
    path = folder / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


def _read_fifo(path: Path) -> tuple[threading.Thread, list[bytes]]:
    received: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as fifo:
            received.append(fifo.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, received


def test_a_fifo_is_written_through_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader, received = _read_fifo(fifo)
    write_text(fifo, "hello\n")
    reader.join(timeout=10)
    assert received == [b"hello\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_device_is_written_through_and_a_full_one_is_an_output_error(tmp_path: Path) -> None:
    null = _device(tmp_path, "null", 3)
    write_text(null, "discarded")
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    full = _device(tmp_path, "full", 7)
    with pytest.raises(OutputError, match="full"):
        write_text(full, "x" * 100_000)
    assert stat.S_ISCHR(os.lstat(full).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "null"]


def test_a_link_the_user_names_is_followed_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "real.md"
    target.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "made.md")
    write_text(dangling, "made")
    assert dangling.is_symlink() and (tmp_path / "made.md").read_text() == "made"


def test_a_link_to_a_device_is_written_through(tmp_path: Path) -> None:
    null = _device(tmp_path, "null", 3)
    link = tmp_path / "out.html"
    link.symlink_to(null)
    write_text(link, "discarded")
    assert link.is_symlink() and stat.S_ISCHR(os.lstat(null).st_mode)


def test_in_kernreg_folders_a_fifo_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "results.csv"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="not a regular file"):
        write_text(fifo, "a,b\n", root=tmp_path)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(OutputError, match="is a folder"):
        write_text(tmp_path, "x")


def test_every_atomic_write_is_flushed_with_its_folder(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    flushed: list[bool] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync",
                        lambda fd: (flushed.append(stat.S_ISDIR(os.fstat(fd).st_mode)),
                                    real(fd))[1])
    write_text(tmp_path / "f.txt", "x")
    assert flushed == [False, True]  # the file before its rename, the folder after


@pytest.fixture
def finished_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    config = tmp_path / "small.yaml"
    config.write_text(CONFIG)
    code, _, err = run_kernreg(["run", str(config), "--out", str(tmp_path / "out"),
                                "--no-progress"], capsys)
    assert code == 0, err
    return tmp_path / "out" / "small"


@pytest.mark.parametrize("command", [["report"], ["table"]])
def test_report_and_table_never_replace_a_device(finished_run: Path, tmp_path: Path,
                                                 command: list[str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    full = _device(tmp_path, "full", 7)
    code, _, err = run_kernreg([*command, str(finished_run), "-o", str(full)], capsys)
    assert code == 2 and f"cannot write {full}" in err and "Traceback" not in err
    assert stat.S_ISCHR(os.lstat(full).st_mode)
    null = _device(tmp_path, "null", 3)
    code, _, err = run_kernreg([*command, str(finished_run), "-o", str(null)], capsys)
    assert code == 0, err
    assert stat.S_ISCHR(os.lstat(null).st_mode)


def test_report_into_a_fifo_reaches_its_reader(finished_run: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "report.html"
    os.mkfifo(fifo)
    reader, received = _read_fifo(fifo)
    code, _, err = run_kernreg(["report", str(finished_run), "-o", str(fifo)], capsys)
    reader.join(timeout=30)
    assert code == 0, err
    assert received and received[0].startswith(b"<!DOCTYPE html>")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
