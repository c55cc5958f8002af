"""The reproduction layer (reproduce/): one producer for every committed result.

Every committed file under ``results/`` is an output of exactly one artifact and every
declared output is committed; every step names files that exist; the docs tables an artifact
feeds are the ones its outputs are the sources of; every artifact is made through make;
``results/README.md`` is what the registry renders.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from reproduce import ARTIFACTS, SOURCES, Artifact, get_artifact
from reproduce.__main__ import main as reproduce_main
from reproduce.__main__ import make, split_redirect
from reproduce.docs_tables import DOC_TABLES
from reproduce.readme import render_readme
from reproduce.registry import load_artifacts

REPO = Path(__file__).resolve().parents[1]


def _committed_results() -> set[str]:
    """The files of ``results/`` that git tracks (paths relative to ``results/``)."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "results"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout.split()
    return {str(Path(p).relative_to("results").as_posix()) for p in listed} - {"README.md"}


def test_every_committed_result_has_exactly_one_producer_and_back() -> None:
    committed = _committed_results()
    declared = Counter(out for a in ARTIFACTS.values() for out in a.outputs)
    twice = sorted(out for out, count in declared.items() if count > 1)
    assert twice == [], f"outputs of more than one artifact: {twice}"
    orphans = sorted(committed - set(declared))
    assert orphans == [], f"committed results no artifact produces: {orphans}"
    absent = sorted(set(declared) - committed)
    assert absent == [], f"declared outputs that are not committed: {absent}"


def test_every_step_names_files_that_exist() -> None:
    for artifact in ARTIFACTS.values():
        for step in artifact.steps:
            words, stdout = split_redirect(step)
            assert stdout is None or stdout.startswith("results/"), (artifact.name, step)
            for word in words:
                if re.fullmatch(r"(configs|reproduce)/[\w./-]+\.(yaml|py)", word):
                    assert (REPO / word).is_file(), f"{artifact.name}: {word} does not exist"
            if words[:2] == ("python", "-m"):
                module = REPO / (words[2].replace(".", "/") + ".py")
                assert module.is_file(), f"{artifact.name}: no module {words[2]}"
        for path in artifact.inputs:
            assert (REPO / path).is_file(), f"{artifact.name} reads {path}, which does not exist"


def test_docs_tables_are_fed_by_the_artifacts_that_write_their_sources() -> None:
    feeds: dict[str, set[str]] = {}
    for artifact in ARTIFACTS.values():
        for name in artifact.doc_tables:
            assert name in DOC_TABLES, f"{artifact.name}: no docs table {name!r}"
            feeds.setdefault(name, set()).add(artifact.name)
    for name, table in DOC_TABLES.items():
        writers = {a.name for a in ARTIFACTS.values() if set(table.sources) & set(a.outputs)}
        assert writers, f"docs table {name}: no artifact writes {table.sources}"
        assert writers <= feeds.get(name, set()), \
            f"docs table {name} is fed by {sorted(writers)}, which do not list it"


def test_every_artifact_is_made_through_make() -> None:
    """``make NAME`` is ``python -m reproduce make NAME`` for every artifact (no target of the
    Makefile shadows one), ``make artifacts`` makes them all, and a ``NAME-render`` alias
    exists exactly for those with render-only steps."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    aliases = [name.replace("_", "-") for name in ARTIFACTS]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    python = Path(sys.prefix) / "bin" / "python"  # the Makefile's $(VENV)/bin/python

    def dry_run(*targets: str) -> list[str]:
        done = subprocess.run(["make", "-n", "--no-print-directory", f"VENV={sys.prefix}",
                               *targets], cwd=REPO, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    assert dry_run(*aliases) == [f"{python} -m reproduce make {a}" for a in aliases]
    if python.is_file():  # make artifacts asks that interpreter for the names
        (every,) = dry_run("artifacts")
        assert every.split()[:4] == [str(python), "-m", "reproduce", "make"]
        assert sorted(every.split()[4:]) == sorted(aliases)
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for artifact in ARTIFACTS.values():
        alias = artifact.name.replace("_", "-")
        has = f"{alias}-render:\n\t$(REPRODUCE) {alias} --render-only" in makefile
        assert has == (artifact.render_from is not None), alias


def test_results_readme_is_generated_from_the_registry() -> None:
    committed = (REPO / "results" / "README.md").read_text(encoding="utf-8")
    assert committed == render_readme(), "run: python -m reproduce readme"
    for artifact in ARTIFACTS.values():
        assert f"### {artifact.name}" in committed


def test_registry_refuses_bad_entries() -> None:
    with pytest.raises(ValueError, match="source must be one of"):
        Artifact("x", "nowhere", "", (), ())
    with pytest.raises(ValueError, match="starts with 'kernreg' or 'python'"):
        Artifact("x", "bench", "", (("bash", "-c", "true"),), ())
    assert set(a.source for a in ARTIFACTS.values()) <= set(SOURCES)
    assert get_artifact("thesis-table7") is get_artifact("thesis_table7")
    with pytest.raises(ValueError, match="render_from must index its steps"):
        Artifact("x", "bench", "", (("python", "x.py"),), (), render_from=1)
    with pytest.raises(KeyError, match="unknown artifact 'nope'"):
        get_artifact("nope")


def test_artifacts_yaml_entries_are_checked(tmp_path: Path, monkeypatch) -> None:
    """An entry with a field the registry does not know, or without a required one, is refused
    naming the file and the entry (a typo never drops an output silently)."""
    package = tmp_path / "toysource"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "artifacts.yaml").write_text(
        "- {name: toy, summary: x, steps: ['python -m x'], outputs: [], ouputs: [a]}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(SOURCES, "toysource", "a test source")
    with pytest.raises(ValueError, match=r"toysource/artifacts.yaml, entry 0 \(toy\): unknown "
                                         r"fields \['ouputs'\]"):
        load_artifacts("toysource")
    assert "toy" not in ARTIFACTS


def test_make_runs_the_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """NYTRO Table 1 needs only the configs: made into a fresh results folder it succeeds."""
    assert reproduce_main(["make", "table1", "--dry-run"]) == 0
    assert "kernreg table configs/table2.yaml --table table1" in capsys.readouterr().out
    assert reproduce_main(["make", "no_such_artifact"]) == 2
    assert reproduce_main(["make", "table2", "--render-only", "--dry-run"]) == 0
    assert capsys.readouterr().out.startswith("+ kernreg table configs/table2.yaml")
    assert reproduce_main(["make", "table1", "--render-only"]) == 2  # table1 has none
    assert reproduce_main(["owner", str(REPO / "results" / "table2.md")]) == 0
    assert capsys.readouterr().out.strip().endswith("table2")


def test_table1_renders_from_the_configs_alone(tmp_path: Path) -> None:
    out = tmp_path / "table1.md"
    done = subprocess.run([str(Path(sys.executable).with_name("kernreg")), "table",
                           "configs/table2.yaml", "--table", "table1", "--results-dir",
                           str(tmp_path / "no_runs"), "-o", str(out)],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == \
        (REPO / "results" / "table1.md").read_text(encoding="utf-8")


def test_table2_renders_from_the_committed_trials_to_the_committed_table(
        kernreg_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``make table2-render`` on a fresh clone (no run folders): the committed trials give the
    committed table and trials, to the byte (the table's numbers do not drift)."""
    monkeypatch.chdir(REPO)
    code, _, err = kernreg_cli(["table", "configs/table2.yaml", "--compare-paper", "--fallback",
                                "results/table2_trials.csv", "--results-dir",
                                str(tmp_path / "no_runs"), "--trials-out",
                                str(tmp_path / "trials.csv"), "-o", str(tmp_path / "table2.md")])
    assert code == 0, err
    for name, committed in (("table2.md", "table2.md"), ("trials.csv", "table2_trials.csv")):
        assert (tmp_path / name).read_bytes() == (REPO / "results" / committed).read_bytes()


def _table_steps() -> list[tuple[str, tuple[str, ...]]]:
    return [(a.name, step) for a in ARTIFACTS.values() for step in a.steps
            if step[:2] == ("kernreg", "table")]


@pytest.mark.parametrize("name, step", _table_steps(),
                         ids=[f"{n}:{s[2]}" for n, s in _table_steps()])
def test_a_table_without_its_runs_names_them_and_their_command(
        name: str, step: tuple[str, ...], kernreg_cli, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every table step on a fresh clone (no run folders) either renders (from the configs or
    a committed fallback) or exits 2 naming each missing run and the command that makes it."""
    monkeypatch.chdir(REPO)
    words = list(step[1:])
    for option in ("-o", "--trials-out"):  # into the test's folder, never results/
        if option in words:
            at = words.index(option) + 1
            words[at] = str(tmp_path / Path(words[at]).name)
    for at, word in enumerate(words):  # run folders named outright: absent, as on a fresh clone
        if word.startswith("results/") and words[at - 1] != "--fallback":
            words[at] = str(tmp_path / "no_runs" / Path(word).name)
    code, _, err = kernreg_cli([*words, "--results-dir", str(tmp_path / "no_runs")])
    if code == 0:
        return
    assert code == 2 and "Traceback" not in err
    lines = [line for line in err.splitlines() if "no results in" in line]
    assert lines and all("(made by: kernreg run configs/" in line for line in lines), err


def test_every_artifact_has_smoke_steps() -> None:
    assert [a.name for a in ARTIFACTS.values() if not a.smoke] == []


@pytest.mark.parametrize("name", sorted(ARTIFACTS))
def test_smoke_run_writes_exactly_the_declared_outputs(name: str, tmp_path: Path) -> None:
    """The artifact's smoke steps (tiny data) succeed, write every declared output and nothing
    else under the results folder they are given."""
    artifact = get_artifact(name)
    before = _tree_state(REPO / "results") | _tree_state(REPO / "tests" / "reference")
    assert make(artifact, smoke=tmp_path, in_process=True) == 0
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert written == set(artifact.outputs)
    # nothing of the repository's own results or references was touched
    assert _tree_state(REPO / "results") | _tree_state(REPO / "tests" / "reference") == before


def _tree_state(folder: Path) -> set[tuple[str, int, int]]:
    return {(str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in folder.rglob("*")
            if p.is_file()}


def test_a_listing_into_a_closed_pipe_ends_quietly() -> None:
    """``python -m reproduce list | head -1``: the reader stops early; no traceback."""
    listing = subprocess.Popen([sys.executable, "-m", "reproduce", "list"], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert listing.stdout is not None
    listing.stdout.close()  # as `head -1` does once it has its line: the listing writes after
    _, err = listing.communicate(timeout=60)
    assert listing.returncode == 0 and b"Traceback" not in err, err.decode()


@pytest.mark.parametrize("folder", ["", "results", ".", "reproduce/out"])
def test_a_smoke_run_never_writes_into_the_repository(folder: str) -> None:
    """Tiny numbers over the committed results, or files in the checkout: refused, exit 2."""
    before = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=REPO, capture_output=True, text=True).stdout
    done = subprocess.run([sys.executable, "-m", "reproduce", "make", "table1", "--smoke",
                           folder], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("reproduce: --smoke ")
    after = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                           cwd=REPO, capture_output=True, text=True).stdout
    assert after == before


@pytest.mark.parametrize("config, trials, table", [
    ("configs/lim_table1_full.yaml", "lim_table1_full_trials.csv", "lim_table1_full.md"),
    ("configs/lim_table1_selected.yaml", "lim_table1_full_trials.csv", "lim_table1_selected.md"),
    ("configs/thesis_table6.table.yaml", "thesis_table6_trials.csv", "thesis_table6.md"),
    ("configs/thesis_table6_full.table.yaml", "thesis_table6_full_trials.csv",
     "thesis_table6_full.md"),
    ("configs/thesis_table6_full_sigm_capped.table.yaml",
     "thesis_table6_full_sigm_capped_trials.csv", "thesis_table6_full_sigm_capped.md"),
])
def test_a_table_renders_from_its_committed_trials_to_the_committed_table(
        config: str, trials: str, table: str, kernreg_cli, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """LiM Table 1 in full, the paper's reading of it (only its column of the full runs'
    trials) and thesis Table 6.2's small and full rows (and the full rows' capped SIGM cells),
    on a fresh clone: the committed trials give the committed table, labels included, to the
    byte."""
    monkeypatch.chdir(REPO)
    code, _, err = kernreg_cli(["table", config, "--fallback", f"results/{trials}",
                                "--results-dir", str(tmp_path / "no_runs"), "-o",
                                str(tmp_path / table)])
    assert code == 0, err
    assert (tmp_path / table).read_bytes() == (REPO / "results" / table).read_bytes()
