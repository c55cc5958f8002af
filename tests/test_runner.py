"""Running experiments: reproducibility, committed reference, resume after interruption,
results files and tables."""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

import kernreg.experiment.runner as runner_module
from kernreg.cli import main
from kernreg.config import load_experiment
from kernreg.experiment import run_experiment
from kernreg.solvers.blocks.strategy import STRATEGIES

REPO = Path(__file__).resolve().parents[1]
CI_CONFIG = REPO / "configs" / "ci_cpusmall.yaml"
REFERENCE = REPO / "tests" / "reference" / "ci_cpusmall.csv"
# What must reproduce exactly (same seed, same machine) and what must stay close to the
# committed reference (other BLAS builds may round differently).
KEYS = ["label", "trial"]
EXACT = ["seed", "selected", "test_rmse", "test_error", "n_fit", "n_val", "n_test",
         "n_path_points"]
REFERENCE_RTOL = 1e-3

pytestmark = pytest.mark.mirror


def _table(tmp_path: Path, name: str, **kwargs: object) -> pd.DataFrame:
    exp = load_experiment(CI_CONFIG)
    return run_experiment(exp, tmp_path / name, progress=False, **kwargs).sort_values(KEYS)


def test_same_seed_gives_identical_numbers(mirror: Path, tmp_path: Path) -> None:
    first, second = _table(tmp_path, "a"), _table(tmp_path, "b")
    assert len(first) == 5 * 2
    pd.testing.assert_frame_equal(first[KEYS + EXACT].reset_index(drop=True),
                                  second[KEYS + EXACT].reset_index(drop=True))


def test_matches_committed_reference(mirror: Path, tmp_path: Path) -> None:
    got = _table(tmp_path, "ref").set_index(KEYS)
    reference = pd.read_csv(REFERENCE).set_index(KEYS)
    assert sorted(got.index) == sorted(reference.index)
    for column in ("selected", "test_rmse", "test_error", "n_path_points"):
        np.testing.assert_allclose(got.loc[reference.index, column], reference[column],
                                   rtol=REFERENCE_RTOL, err_msg=column)


def test_resume_after_interruption_equals_uninterrupted_run(
    mirror: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_run_trial = runner_module.run_trial
    calls = {"n": 0}

    def interrupted(*args: object, **kwargs: object):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt  # as if Ctrl-C hit the fourth trial
        return real_run_trial(*args, **kwargs)

    monkeypatch.setattr(runner_module, "run_trial", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _table(tmp_path, "resumed")
    run_dir = tmp_path / "resumed" / "ci_cpusmall"
    assert len(list((run_dir / "trials").glob("*.h5"))) == 3
    assert not (run_dir / "results.csv").exists()

    monkeypatch.setattr(runner_module, "run_trial", real_run_trial)
    done_before = {p.name: p.stat().st_mtime_ns for p in (run_dir / "trials").glob("*.h5")}
    resumed = _table(tmp_path, "resumed", resume=True)
    for name, mtime in done_before.items():  # finished trials were not redone
        assert (run_dir / "trials" / name).stat().st_mtime_ns == mtime
    whole = _table(tmp_path, "whole")
    assert len(resumed) == len(whole) == 10
    pd.testing.assert_frame_equal(resumed[KEYS + EXACT].reset_index(drop=True),
                                  whole[KEYS + EXACT].reset_index(drop=True))


def test_existing_results_need_resume_or_force(mirror: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    main(["run", str(CI_CONFIG), "--out", str(out), "--trials", "1", "--no-progress"])
    printed = capsys.readouterr().out
    assert "| cpuSmall m=150 | time (s) |" in printed and "NYTRO" in printed
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(CI_CONFIG), "--out", str(out), "--trials", "1", "--no-progress"])
    assert exit_info.value.code == 2
    assert "use --resume" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:  # a different config cannot be resumed
        main(["run", str(CI_CONFIG), "--out", str(out), "--trials", "1", "--seed", "3",
              "--resume", "--no-progress"])
    assert exit_info.value.code == 2
    assert "different config" in capsys.readouterr().err
    main(["run", str(CI_CONFIG), "--out", str(out), "--trials", "1", "--seed", "3", "--force",
          "--no-progress"])
    assert pd.read_csv(out / "ci_cpusmall" / "results.csv")["trial"].tolist() == [0] * 5


def test_results_files_hold_paths_and_metadata(mirror: Path, tmp_path: Path) -> None:
    table = _table(tmp_path, "files")
    run_dir = tmp_path / "files" / "ci_cpusmall"
    with h5py.File(run_dir / "results.h5", "r") as f:
        config = json.loads(f.attrs["config"])
        assert config["dataset"]["name"] == "cpusmall"
        assert len(f.attrs["dataset_sha256"]) == 64
        nkrls = f["nkrls/trial_001"]
        assert nkrls["path_values"].shape == (17,) and nkrls["val_rmse"].shape == (17,)
        assert nkrls.attrs["selected"] in nkrls["path_values"][()]
        nytro = f["nytro/trial_000"]
        best = int(nytro.attrs["selected"])
        assert nytro["val_rmse"][best - 1] == nytro["val_rmse"][()].min()
        assert json.loads(nytro.attrs["info"])["strategy"] in STRATEGIES
    assert set(table.loc[table["label"] == "nytro", "strategy"]) <= set(STRATEGIES)
    for column in ("model_selection_time", "peak_rss_mb", "blas_threads", "config_hash",
                   "dataset_sha256", "kernreg_version", "sigma"):
        assert table[column].notna().all(), column
    assert (table["blas_threads"] == 1).all()
    assert table.loc[table["label"] == "nytro", "m"].eq(150).all()


def test_table_command_renders_paper_layout(mirror: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    _table(tmp_path, "tab")
    run_dir = tmp_path / "tab" / "ci_cpusmall"
    for fmt, marker in (("md", "| cpuSmall m=150 | time (s) |"), ("latex", r"\toprule"),
                        ("csv", "dataset,,KOLS,KRLS,ES,NKRLS,NYTRO")):
        main(["table", str(run_dir), "--format", fmt])
        assert marker in capsys.readouterr().out
    main(["table", str(run_dir), "--table", "table1"])
    assert "| cpuSmall (Delve comp-activ, 12 attributes) | 6554 | 1638 | 12 |" in \
        capsys.readouterr().out


def test_memory_preflight_stops_before_writing(mirror: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "big.yaml"
    config.write_text(CI_CONFIG.read_text().replace("blas_threads: 1", "blas_threads: 1, "
                                                    "memory_gb: 0.05"))
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(config), "--out", str(tmp_path / "out"), "--no-progress"])
    assert exit_info.value.code == 2  # cannot run here
    err = capsys.readouterr().err
    assert "estimated peak memory exceeds the budget of 0.05 GiB" in err
    assert "krls: ~" in err and "K + eigenvectors" in err
    assert not (tmp_path / "out").exists()


def test_only_then_resume_completes_the_run(mirror: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    main(["run", str(CI_CONFIG), "--out", str(out), "--only", "nytro", "--no-progress"])
    capsys.readouterr()
    main(["table", str(CI_CONFIG), "--results-dir", str(out)])
    captured = capsys.readouterr()
    assert "not run yet (kernreg run" in captured.out and "KRLS: NA" in captured.out
    assert "ci_cpusmall/krls: no results" in captured.err
    main(["run", str(CI_CONFIG), "--out", str(out), "--resume", "--no-progress"])
    table = pd.read_csv(out / "ci_cpusmall" / "results.csv")
    assert sorted(table["label"].unique()) == ["es", "kols", "krls", "nkrls", "nytro"]
    assert len(table) == 10
    # More trials extend the run: trial k depends only on (seed, k).
    main(["run", str(CI_CONFIG), "--out", str(out), "--trials", "3", "--only", "nytro",
          "--resume", "--no-progress"])
    table = pd.read_csv(out / "ci_cpusmall" / "results.csv")
    assert len(table) == 11 and table.loc[table["label"] == "nytro", "trial"].max() == 2
    capsys.readouterr()
    main(["table", str(out / "ci_cpusmall")])
    assert "NYTRO: 3 trials (most cells: 2)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(CI_CONFIG), "--out", str(out), "--only", "svm", "--resume"])
    assert exit_info.value.code == 2
    assert "--only: svm not in ci_cpusmall" in capsys.readouterr().err


def test_fallback_rows_stand_in_for_runs_not_made_here(mirror: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """``kernreg table --fallback CSV``: a table refreshed run by run — the labels with a run
    folder come from it, the others from the committed trials; ``--trials-out`` writes the
    rows behind the table."""
    main(["run", str(CI_CONFIG), "--out", str(tmp_path / "earlier"), "--trials", "1",
          "--no-progress"])
    earlier = pd.read_csv(tmp_path / "earlier" / "ci_cpusmall" / "results.csv")
    earlier["test_rmse"] = np.where(earlier["label"] == "nytro", 9.99, 7.77)  # tell them apart
    # a run the config does not name, in the same CSV: not this table's
    pd.concat([earlier, earlier.assign(experiment="another_run")]).to_csv(
        tmp_path / "trials.csv", index=False)
    out = tmp_path / "out"
    main(["run", str(CI_CONFIG), "--out", str(out), "--trials", "1", "--only", "nytro",
          "--no-progress"])
    capsys.readouterr()
    main(["table", str(CI_CONFIG), "--results-dir", str(out), "--fallback",
          str(tmp_path / "trials.csv"), "--trials-out", str(tmp_path / "behind.csv"),
          "-o", str(tmp_path / "t.md")])
    err = capsys.readouterr().err
    assert f"ci_cpusmall/krls: no results in {out / 'ci_cpusmall'} (made by: " in err
    assert "(rows from" in err
    text = (tmp_path / "t.md").read_text()
    assert "not run yet" not in text and "7.7700" in text and "9.99" not in text
    behind = pd.read_csv(tmp_path / "behind.csv").sort_values("label")
    assert list(behind["label"]) == ["es", "kols", "krls", "nkrls", "nytro"]
    assert set(behind["experiment"]) == {"ci_cpusmall"}
    fresh = pd.read_csv(out / "ci_cpusmall" / "results.csv")
    assert behind.loc[behind["label"] == "nytro", "test_rmse"].item() == \
        fresh["test_rmse"].item()
    assert (behind.loc[behind["label"] != "nytro", "test_rmse"] == 7.77).all()
    # every run present: the fallback (the table's own pairs only) stands in for nothing
    earlier.to_csv(tmp_path / "own.csv", index=False)
    main(["table", str(CI_CONFIG), "--results-dir", str(tmp_path / "earlier"), "--fallback",
          str(tmp_path / "own.csv"), "-o", str(tmp_path / "all.md")])
    assert "7.7700" not in (tmp_path / "all.md").read_text()


def test_run_table_config_skips_what_cannot_run(mirror: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    text = CI_CONFIG.read_text().replace("trials: 2", "trials: 1")
    (tmp_path / "small.yaml").write_text(text.replace("name: ci_cpusmall", "name: small"))
    (tmp_path / "huge.yaml").write_text(text.replace("name: ci_cpusmall", "name: huge")
                                        .replace("blas_threads: 1", "memory_gb: 0.01"))
    (tmp_path / "t.yaml").write_text("table: table2\nruns: [small.yaml, huge.yaml]\n")
    main(["run", str(tmp_path / "t.yaml"), "--out", str(tmp_path / "out"), "--no-progress"])
    captured = capsys.readouterr()
    assert "huge: not run: huge: estimated peak memory exceeds the budget" in captured.err
    assert "| cpuSmall m=150 | time (s) |" in captured.out
    assert (tmp_path / "out" / "small" / "results.csv").is_file()
    assert not (tmp_path / "out" / "huge").exists()
    # the same finished run, one row per dataset and label (nothing is recomputed)
    (tmp_path / "s.yaml").write_text("table: summary\nruns: [small.yaml]\n")
    main(["run", str(tmp_path / "s.yaml"), "--out", str(tmp_path / "out"), "--no-progress"])
    out = capsys.readouterr().out
    assert out.startswith("| dataset | label | algorithm | m | trials | time (s) | test RMSE |")
    assert out.count("| cpusmall |") == 5  # one per algorithm
    # `labels:` keeps only those rows (and names no other label as not run)
    (tmp_path / "l.yaml").write_text("table: summary\nlabels: [nkrls, nytro]\n"
                                     "runs: [small.yaml]\n")
    main(["table", str(tmp_path / "l.yaml"), "--results-dir", str(tmp_path / "out")])
    captured = capsys.readouterr()
    rows = [line for line in captured.out.splitlines() if line.startswith("| cpusmall |")]
    assert [row.split("|")[2].strip() for row in rows] == ["nkrls", "nytro"]
    assert "no results" not in captured.err
    # and `kernreg run` on it runs only those algorithms
    main(["run", str(tmp_path / "l.yaml"), "--out", str(tmp_path / "fresh"), "--no-progress"])
    trials = sorted(p.name for p in (tmp_path / "fresh" / "small" / "trials").glob("*.h5"))
    assert trials == ["nkrls__t000.h5", "nytro__t000.h5"]


def test_table_config_of_unknown_kind_is_refused(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t.yaml").write_text("table: t\nruns: [small.yaml]\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(tmp_path / "t.yaml"), "--out", str(tmp_path / "out")])
    assert exit_info.value.code != 0
    err = capsys.readouterr().err
    assert "table" in err and "summary" in err and "Traceback" not in err


def test_force_with_only_redoes_just_those_algorithms(mirror: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["run", str(CI_CONFIG), "--out", str(out), "--trials", "1", "--no-progress"]
    main(args)
    trials = out / "ci_cpusmall" / "trials"
    before = {p.name: p.stat().st_mtime_ns for p in trials.glob("*.h5")}
    main([*args, "--force", "--only", "nytro"])
    after = {p.name: p.stat().st_mtime_ns for p in trials.glob("*.h5")}
    assert after.keys() == before.keys()
    changed = {name for name in after if after[name] != before[name]}
    assert changed == {"nytro__t000.h5"}
    # a changed config cannot keep the other algorithms' trials: everything goes
    main([*args, "--seed", "3", "--force", "--only", "nytro"])
    assert [p.name for p in trials.glob("*.h5")] == ["nytro__t000.h5"]


def test_an_algorithms_trials_hand_their_kernel_arrays_on(mirror: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """ES's second trial writes its n × n kernel into the first trial's array (no fresh memory
    to touch), and nothing stays kept once the run is over."""
    import kernreg.solvers.algorithms.landweber as landweber
    import kernreg.solvers.blocks.buffers as buffers

    handed: list[np.ndarray] = []  # held, so that a fresh array cannot reuse an address

    def spy(shape: tuple[int, ...], dtype: object) -> np.ndarray:
        handed.append(buffers.take(shape, dtype))
        return handed[-1]

    monkeypatch.setattr(landweber, "take", spy)
    _table(tmp_path, "handed", only=("es",))
    assert len(handed) == 2 * 2  # K and the validation kernel, in each of the 2 trials
    K1, V1, K2, V2 = handed
    assert K2 is K1 and V2 is V1
    assert not buffers._kept and buffers._depth == 0
