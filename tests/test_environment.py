"""Environment switches (KERNREG_JIT, KERNREG_JIT_PASS, KERNREG_OFFLINE) are read like config
keys: the documented values only, anything else refused with one message before a run writes;
and every trial records the kernel path that ran it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import h5py
import pytest

from kernreg.errors import ConfigError
from kernreg.kernels.compiled import HAVE_NUMBA, active_path, compiled_pass_enabled, jit_enabled

CONFIG = """
name: small
dataset: {name: breast_cancer, n_train: 120, n_test: 60}
algorithms:
  - {name: nytro, m: 20, max_iter: 20}
protocol: {trials: 1}
budget: {blas_threads: 1}
"""


@pytest.fixture
def run_cli(kernreg_cli):
    """``kernreg ARGS``: exit status and stderr."""
    def run(args: list[str]) -> tuple[int, str]:
        code, _, err = kernreg_cli(args)
        return code, err
    return run


@pytest.mark.parametrize("value,expected", [
    (None, None), ("", None), ("  ", None),
    ("1", True), ("true", True), ("YES", True), (" On ", True), ("True\n", True),
    ("0", False), ("false", False), ("No", False), (" OFF ", False),
])
def test_the_documented_values_are_accepted(value: str | None, expected: bool | None,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from kernreg.switches import SWITCHES, check_environment, env_switch

    assert set(SWITCHES) == {"KERNREG_JIT", "KERNREG_JIT_PASS", "KERNREG_OFFLINE"}
    for name in SWITCHES:
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
        assert env_switch(name) is expected
    check_environment()


@pytest.mark.parametrize("name", ["KERNREG_JIT", "KERNREG_JIT_PASS", "KERNREG_OFFLINE"])
@pytest.mark.parametrize("value", ["fasle", "2", "enabled", "1.0", "y", "tru e"])
def test_any_other_value_is_refused_naming_variable_value_and_choices(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kernreg.switches import check_environment

    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as info:
        check_environment()
    message = str(info.value)
    assert message.startswith(f"environment variable {name}={value!r} is not a switch value")
    assert "1, true, yes, on" in message and "0, false, no, off" in message
    assert "unset or empty" in message and "\n" not in message


def test_library_calls_refuse_a_bad_value_instead_of_picking_a_path(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KERNREG_JIT", "fasle")  # was: anything not 0/false/no/off is "on"
    with pytest.raises(ConfigError, match=r"KERNREG_JIT='fasle'"):
        jit_enabled()
    with pytest.raises(ConfigError, match=r"KERNREG_JIT='fasle'"):
        active_path()
    monkeypatch.setenv("KERNREG_JIT", "off")
    assert active_path() == "numpy"
    monkeypatch.setenv("KERNREG_JIT_PASS", "maybe")
    with pytest.raises(ConfigError, match=r"KERNREG_JIT_PASS='maybe'"):
        compiled_pass_enabled(16)
    monkeypatch.setenv("KERNREG_JIT_PASS", " ON ")
    assert compiled_pass_enabled(16)


@pytest.mark.parametrize("args", [["run", "CONFIG", "--out", "OUT", "--no-progress"],
                                  ["data", "list"],
                                  ["advise", "breast_cancer", "--out", "OUT"]])
def test_every_command_refuses_a_bad_switch_before_writing(
    args: list[str], tmp_path: Path, run_cli,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "small.yaml"
    config.write_text(textwrap.dedent(CONFIG))
    out = tmp_path / "out"
    monkeypatch.setenv("KERNREG_JIT", "fasle")
    args = [str(config) if a == "CONFIG" else str(out) if a == "OUT" else a for a in args]
    code, err = run_cli(args)
    assert code == 2
    assert err.startswith("error: environment variable KERNREG_JIT='fasle' is not a switch")
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def _kernel_paths(run: Path) -> dict[str, str]:
    paths = {}
    for path in sorted((run / "trials").glob("*.h5")):
        with h5py.File(path, "r") as f:
            paths[path.stem] = json.loads(f.attrs["info"])["kernel_path"]
    return paths


def test_each_trial_records_the_kernel_path_that_ran_it_across_a_resume(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "small.yaml"
    config.write_text(textwrap.dedent(CONFIG))
    out = tmp_path / "out"
    monkeypatch.setenv("KERNREG_JIT", "1")
    first = active_path()
    assert first == ("numba" if HAVE_NUMBA else "numpy")
    code, err = run_cli(["run", str(config), "--out", str(out), "--no-progress"])
    assert code == 0, err
    monkeypatch.setenv("KERNREG_JIT", "0")
    code, err = run_cli(["run", str(config), "--out", str(out), "--no-progress", "--resume",
                      "--trials", "3"])
    assert code == 0, err
    run = out / "small"
    assert _kernel_paths(run) == {"nytro__t000": first, "nytro__t001": "numpy",
                                  "nytro__t002": "numpy"}
    environment = json.loads((run / "manifest.json").read_text())["environment"]
    # the manifest describes this invocation's start, not every trial
    assert environment["kernel_path_at_start"] == "numpy" and "kernel_path" not in environment
