"""One memory budget per run: the config's ``budget.memory_gb`` capped by a fraction of the
machine's physical memory, handed to the preflight and the estimators; a refusal names both."""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

import kernreg.backend.memory as memory_module
from kernreg.backend import GIB, MEMORY_FRACTION, MemoryBudget
from kernreg.config import load_experiment, make_estimator

CONFIG = """
name: small
dataset: {name: breast_cancer, n_train: 120, n_test: 60}
algorithms:
  - {name: nytro, m: 20, max_iter: 30}
protocol: {trials: 1}
budget: {blas_threads: 1, memory_gb: 20}
"""


def _machine(monkeypatch: pytest.MonkeyPatch, total: int) -> None:
    """This process sees a machine of ``total`` bytes of memory."""
    monkeypatch.setattr(memory_module.psutil, "virtual_memory",
                        lambda: SimpleNamespace(total=total, available=total))


def test_the_host_budget_is_the_smaller_and_says_both() -> None:
    roomy = MemoryBudget(20 * GIB, 64 * GIB)
    assert roomy.host == 20 * GIB
    assert roomy.describe() == "20 GiB (budget.memory_gb; 90% of this machine's 64 GiB is " \
                               "57.6 GiB)"
    laptop = MemoryBudget(20 * GIB, 16 * GIB)
    assert laptop.host == int(MEMORY_FRACTION * 16 * GIB) < 20 * GIB
    assert laptop.describe() == "14.4 GiB (90% of this machine's 16 GiB is 14.4 GiB, less " \
                                "than budget.memory_gb, 20 GiB)"


def test_the_estimators_plan_within_the_machine(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "small.yaml"
    path.write_text(textwrap.dedent(CONFIG))
    exp = load_experiment(path)
    _machine(monkeypatch, 8 * GIB)
    estimator = make_estimator(exp.algorithms[0], exp, random_state=0)
    assert estimator.max_memory == int(MEMORY_FRACTION * 8 * GIB)
    _machine(monkeypatch, 64 * GIB)
    assert make_estimator(exp.algorithms[0], exp, random_state=0).max_memory == 20 * GIB


def test_a_config_beyond_this_machine_is_refused_naming_both(tmp_path: Path, kernreg_cli,
                                                             monkeypatch) -> None:
    path = tmp_path / "small.yaml"
    path.write_text(textwrap.dedent(CONFIG))
    _machine(monkeypatch, 2**24)  # 16 MiB: less than one 256 MiB kernel block
    code, _, err = kernreg_cli(["run", str(path), "--out", str(tmp_path / "out")])
    assert code == 2 and "exceeds the budget of 0.0141 GiB (90% of this machine's 0.0156 GiB" \
        in err and "less than budget.memory_gb, 20 GiB" in err
    assert not (tmp_path / "out").exists()
