"""Shared test set-up: offline mode, a private cache, and the dataset mirror when present."""

from __future__ import annotations

import os
import signal
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
# CI checks the project out with ../shared beside it; KERNREG_MIRROR may point elsewhere.
MIRROR = Path(os.environ.get("KERNREG_MIRROR") or REPO.parent / "shared" / "datasets")


def isolate_data_env(monkeypatch: pytest.MonkeyPatch,
                     tmp_path_factory: pytest.TempPathFactory) -> None:
    """Never touch the network or the user's cache from a test."""
    monkeypatch.setenv("KERNREG_OFFLINE", "1")
    monkeypatch.setenv("KERNREG_DOWNLOAD_RETRIES", "0")  # loopback failures are not flaky
    monkeypatch.setenv("KERNREG_CACHE", str(tmp_path_factory.getbasetemp() / "kernreg-cache"))
    if MIRROR.is_dir():
        monkeypatch.setenv("KERNREG_MIRROR", str(MIRROR))
    else:
        monkeypatch.delenv("KERNREG_MIRROR", raising=False)


@pytest.fixture(autouse=True)
def _isolated_data_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory):
    isolate_data_env(monkeypatch, tmp_path_factory)


@pytest.fixture(autouse=True)
def _signal_handlers_kept(request: pytest.FixtureRequest):
    """A test leaves the process's SIGINT and SIGTERM handlers as it found them
    (tests/test_interrupt.py needs Python's own SIGINT handler): one that does not is named in
    a warning, and they are put back."""
    before = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    yield
    after = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    if after != before:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGTERM, before[1])
        warnings.warn(f"{request.node.nodeid} left the SIGINT/SIGTERM handlers changed: "
                      f"{after} (put back)", stacklevel=1)


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The offline dataset mirror; tests that need it are skipped without it."""
    if not MIRROR.is_dir():
        pytest.skip(f"dataset mirror not found at {MIRROR} (set KERNREG_MIRROR)")
    return MIRROR


@pytest.fixture
def kernreg_cli(capsys: pytest.CaptureFixture[str]):
    """``kernreg ARGS`` in this process: ``(exit status, stdout, stderr)``; no traceback may
    reach stderr."""
    from cli_runner import run_kernreg

    return lambda args: run_kernreg(args, capsys)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    """The expected failures once per reason (pytest's -rx prints one line per test: 54 lines
    of scikit-learn conformance checks that buried the counts)."""
    xfailed = terminalreporter.stats.get("xfailed", [])
    if not xfailed:
        return
    reasons = Counter(str(getattr(report, "wasxfail", "")).split(";")[0][:110]
                      for report in xfailed)
    terminalreporter.section(f"{len(xfailed)} expected failures (xfail), by reason", sep="-")
    for reason, count in reasons.most_common():
        terminalreporter.line(f"{count:3d} x {reason}")
