"""The shipped configs: listed, shown and run by name from any folder (kernreg.config.library,
``kernreg configs``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from shipped_configs import needs_absent_mirror

from kernreg.config import load_experiment
from kernreg.config.library import (
    config_entries,
    config_reference,
    resolve_config,
    shipped_configs_dir,
)
from kernreg.errors import ConfigError
from kernreg.experiment.protocol import get_protocol, load_protocol_config
from kernreg.results.tables import load_table_config

REPO = Path(__file__).resolve().parents[1]
CONFIG_FILES = sorted((REPO / "configs").glob("*.yaml"))


def test_every_config_of_the_repository_is_shipped_and_loads_as_its_kind() -> None:
    assert shipped_configs_dir() == REPO / "configs"  # a checkout: its own configs/
    entries = config_entries()
    assert [e.name for e in entries] == [p.stem for p in CONFIG_FILES]
    kinds = {e.kind for e in entries}
    assert kinds == {"experiment", "table", "streaming", "online_regression"}
    for entry in entries:
        assert entry.summary, entry.name  # every config says what it is
        if entry.kind == "table":
            assert load_table_config(entry.path)["runs"]
        elif entry.kind != "experiment":
            assert load_protocol_config(get_protocol(entry.kind), entry.path).name
        elif not needs_absent_mirror(entry.path):
            assert load_experiment(entry.path).dataset_name == entry.dataset


@pytest.mark.parametrize("name", ["adult_nytro", "adult_nytro.yaml", "table2"])
def test_a_bare_name_is_the_shipped_config(name: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # an empty folder: nothing there by that name
    assert resolve_config(name) == REPO / "configs" / f"{Path(name).stem}.yaml"


def test_a_file_of_that_name_in_the_working_folder_wins(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adult_nytro.yaml").write_text("name: mine\n")
    assert resolve_config("adult_nytro.yaml") == Path("adult_nytro.yaml")
    assert resolve_config("adult_nytro") == REPO / "configs" / "adult_nytro.yaml"


def test_a_path_is_never_read_as_a_name() -> None:
    assert resolve_config("elsewhere/adult_nytro.yaml") == Path("elsewhere/adult_nytro.yaml")


def test_an_unknown_name_suggests_close_ones() -> None:
    with pytest.raises(ConfigError, match=r"config 'adult_nytr': no such file, and no shipped "
                                          r"config of that name; did you mean adult_nytro"):
        resolve_config("adult_nytr")


def test_config_reference_is_what_to_type_here(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = REPO / "configs" / "covtype_nytro.yaml"
    monkeypatch.chdir(REPO)
    assert config_reference(shipped) == "configs/covtype_nytro.yaml"
    monkeypatch.chdir(tmp_path)
    assert config_reference(shipped) == "covtype_nytro"
    assert config_reference(tmp_path.parent / "x.yaml") == str(tmp_path.parent / "x.yaml")


def test_kernreg_configs_lists_shows_and_locates(kernreg_cli) -> None:
    code, out, _ = kernreg_cli(["configs", "--all"])
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["config", "kind", "trials", "×", "size", "memory", "about"]
    listed = [line.split()[0] for line in lines[1:len(CONFIG_FILES) + 1]]
    assert listed == [p.stem for p in CONFIG_FILES]
    assert f"{len(CONFIG_FILES)} configs in {REPO / 'configs'};" in out
    # a hold-out config shows what it runs and its preflight's largest estimate
    adult = next(line for line in lines if line.startswith("adult_nytro "))
    assert "5 × 32561 rows, m ≤ 1000" in adult and " GiB " in adult
    code, out, _ = kernreg_cli(["configs"])  # the test suite's own configs left out
    ci = [p.stem for p in CONFIG_FILES if p.stem.startswith("ci_")]
    assert ci and not any(line.startswith(tuple(ci)) for line in out.splitlines())
    assert f"{len(CONFIG_FILES) - len(ci)} configs in {REPO / 'configs'} ({len(ci)} kept " \
           f"for the test suite: --all lists them)" in out
    code, out, _ = kernreg_cli(["configs", "adult_nytro"])
    assert code == 0 and out == (REPO / "configs" / "adult_nytro.yaml").read_text()
    code, out, _ = kernreg_cli(["configs", "adult_nytro", "--path"])
    assert code == 0 and out.strip() == str(REPO / "configs" / "adult_nytro.yaml")


def test_an_unknown_config_name_exits_2_with_one_line(kernreg_cli, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for args in (["configs", "nosuch"], ["run", "nosuch"], ["table", "nosuch"]):
        code, _, err = kernreg_cli(args)
        assert code == 2, args
        assert err.strip().splitlines() == [
            "error: config 'nosuch': no such file, and no shipped config of that name "
            "(`kernreg configs` lists them)"], args
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.usefixtures("mirror")
def test_a_shipped_config_runs_by_name_from_an_empty_folder(kernreg_cli, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = kernreg_cli(["run", "adult_nytro", "--smoke", "--no-progress"])
    assert code == 0, err
    assert "| t* |" in out  # the selected parameter named
    assert (tmp_path / "results" / "smoke" / "adult_nytro" / "results.csv").is_file()


def test_a_shipped_config_is_named_by_its_name_in_messages(kernreg_cli, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """From another folder, a shipped config's problem names it as the command did
    (``adult_nytro``), not by the path of the installed file."""
    monkeypatch.chdir(tmp_path)
    code, _, err = kernreg_cli(["run", "adult_nytro", "--set", "protocol.trials=0"])
    assert code == 2
    assert err.startswith("error: adult_nytro: invalid config:"), err
    assert str(REPO) not in err
