"""The measured-number tables of README.md and docs/*.md are rendered from results/.

Each such table is a ``<!-- kernreg:table NAME -->`` block; its committed text must equal what
``reproduce.docs_tables`` renders from its committed results files (``make docs``). A block with
an unknown name or a missing source fails; a table outside any block must be one that reports
no measured numbers (listed below with the reason).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from kernreg.errors import ResultsError
from reproduce.bench.record import parse_assignments, record_row
from reproduce.docs_tables import (
    BLOCK,
    CODE_TABLES,
    DOC_TABLES,
    blocks,
    doc_files,
    read_md_tables,
    render_block,
    render_docs,
    render_text,
    split_row,
)
from reproduce.docs_tables.read import md_table

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "results"

# Tables outside marker blocks, by their header row: none of them reports a measured number.
NOT_MEASURED = {
    "| | |": "README: where to go next (links)",
    "| floor | package | owns |": "architecture.md: the floors",
    "| to add | you write | guarded by |": "architecture.md: where each part goes, its tests",
    "| status | meaning |": "usage.md: exit statuses",
    "| what | float64 | float32 |": "gpu.md: the tolerances the device tests hold",
    "| you give | kernreg connects to |": "distributed.md: how the scheduler is named",
    "| what | the simulation |": "thesis_ch8.md: the simulation's assumptions (its inputs)",
    "| thesis finding (Fig. 8.4) | the simulation (the table above) |":
        "thesis_ch8.md: the thesis's qualitative findings beside the rendered table's",
    "| limit | value |": "usage.md: the config loader's limits (constants, checked below)",
    "| what | the paper's text | the authors' code (used by `configs/table2.yaml`) "
    "| kernreg option |": "protocol.md: the protocol as read from the papers and the code",
    "| dataset | σ | λ | script (Enitor commit, date) |":
        "protocol.md: the authors' hyperparameters, read from their scripts",
    "| piece | where |": "thesis_ch7.md: what is implemented, and in which files",
    "| piece | where | tested by |": "theory.md: what is implemented, in which files, tested how",
    "| key | what it says | default |": "own_data.md: the keys of a data file's dataset block",
    "| function | spec |": "own_data.md: the public registration functions",
}


def _header_lines(text: str) -> list[str]:
    """The header row of every Markdown table of ``text`` outside marker blocks."""
    outside = BLOCK.sub("", text)
    lines = outside.splitlines()
    return [lines[i].strip() for i in range(len(lines) - 1)
            if lines[i].lstrip().startswith("|") and re.fullmatch(r"\s*\|(\s*-+\s*\|)+\s*",
                                                                   lines[i + 1])]


def _copy_tree(tmp_path: Path) -> Path:
    """README.md, docs/ and results/ (its committed files) under ``tmp_path``."""
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    shutil.copy(REPO / "README.md", root / "README.md")
    for path in (REPO / "docs").glob("*.md"):
        shutil.copy(path, root / "docs" / path.name)
    (root / "results").mkdir()
    for path in RESULTS.iterdir():
        if path.is_file():
            shutil.copy(path, root / "results" / path.name)
    (root / "results" / "figures").mkdir()
    for path in (RESULTS / "figures").glob("*.json"):  # the figures' data (docs/bach.md, …)
        shutil.copy(path, root / "results" / "figures" / path.name)
    return root


@pytest.mark.parametrize("path", doc_files(REPO), ids=lambda p: p.name)
def test_docs_tables_equal_what_their_results_render(path):
    text = path.read_text(encoding="utf-8")
    for name, body in blocks(text):
        rendered = render_block(name, RESULTS, path.name)
        assert body == rendered, (
            f"{path.name}: table {name!r} differs from what "
            f"{', '.join({**DOC_TABLES, **CODE_TABLES}[name].sources) or 'the code'} renders; "
            "run `make docs`\n"
            f"--- in the file:\n{body}--- rendered:\n{rendered}")
    assert render_text(text, RESULTS, path.name) == text


def test_every_docs_table_is_used_and_every_source_is_committed():
    used = {name for path in doc_files(REPO) for name, _ in blocks(path.read_text("utf-8"))}
    assert used == set(DOC_TABLES) | set(CODE_TABLES), \
        "a docs table no file shows, or a block of no table"
    tracked = subprocess.run(["git", "ls-files", "results"], cwd=REPO, capture_output=True,
                             text=True).stdout.split()
    if tracked:  # inside a git checkout: the sources must be committed, not just present
        for table in DOC_TABLES.values():
            for source in table.sources:
                assert f"results/{source}" in tracked, f"results/{source} is not committed"


@pytest.mark.parametrize("path", doc_files(REPO), ids=lambda p: p.name)
def test_tables_outside_blocks_report_no_measured_numbers(path):
    for header in _header_lines(path.read_text(encoding="utf-8")):
        assert header in NOT_MEASURED, (
            f"{path.name}: the table with header {header!r} is not rendered from results/: "
            "put it in a <!-- kernreg:table NAME --> block with an entry in "
            "reproduce.docs_tables.DOC_TABLES, or, if it reports no measured number, "
            "add it to NOT_MEASURED here with the reason")


def test_a_hand_edit_inside_a_block_is_caught():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    _, body = blocks(text)[0]
    row = next(line for line in body.splitlines() if re.search(r"\d\.\d", line))
    edited = text.replace(row, re.sub(r"(\d)\.(\d)", r"\1.9", row, count=1))
    assert edited != text
    assert render_text(edited, RESULTS, "README.md") == text


def test_a_changed_result_changes_the_docs(tmp_path):
    root = _copy_tree(tmp_path)
    bench = root / "results" / "bench_table2.csv"
    # the Ijcnn1 NYTRO float64 cell's median (the 6th field) becomes 17.3 s, whatever it was
    row = re.compile(r"^(ijcnn1,nytro,float64,[^,]*,[^,]*,)[^,]*,", re.MULTILINE)
    text, count = row.subn(r"\g<1>17.3,", bench.read_text())
    assert count == 1
    bench.write_text(text)
    table2 = root / "results" / "table2.md"
    table2.write_text(table2.read_text().replace("**0.9178±0.0002**", "**0.9012±0.0002**"))
    changed = render_docs(root)
    assert {p.name for p in changed} == {"README.md", "speed.md", "nytro.md"}
    readme = (root / "README.md").read_text()
    assert re.search(r"\| Ijcnn1 NYTRO, float64[^|]* \| 17\.3 \| 80\.9 \|", readme)
    assert "0.9012 / 0.918" in readme
    speed = (root / "docs" / "speed.md").read_text()
    assert re.search(r"\| NYTRO \(t\\\* 357\) \| 17\.3 \(", speed)
    assert render_docs(root) == []  # idempotent: a second run changes nothing


def test_a_block_whose_source_is_missing_fails(tmp_path):
    root = _copy_tree(tmp_path)
    (root / "results" / "lim_table1.md").unlink()
    with pytest.raises(ResultsError, match=r"lim_table1.*lim_table1\.md.*missing"):
        render_docs(root)
    text = "<!-- kernreg:table beyond -->\n<!-- /kernreg:table -->\n"
    with pytest.raises(ResultsError, match="beyond.md"):
        render_text(text, tmp_path / "nothing", "x.md")


def test_unknown_names_and_unpaired_markers_fail():
    with pytest.raises(ResultsError, match="unknown docs table 'nope'"):
        render_text("<!-- kernreg:table nope -->\n<!-- /kernreg:table -->\n", RESULTS, "x.md")
    with pytest.raises(ResultsError, match="do not pair up"):
        render_text("<!-- kernreg:table beyond -->\n| a |\n", RESULTS, "x.md")
    with pytest.raises(ResultsError, match="do not pair up"):
        render_text("text\n<!-- /kernreg:table -->\n", RESULTS, "x.md")


def test_a_damaged_source_is_named(tmp_path):
    bad = tmp_path / "beyond.md"
    bad.write_text("no table here\n")
    with pytest.raises(ResultsError, match="beyond.md: expected at least 1 Markdown table"):
        DOC_TABLES["beyond"].render(bad)
    csv = tmp_path / "bench_table2.csv"
    csv.write_text("dataset,algorithm\nadult,nytro\n")
    with pytest.raises(ResultsError, match="bench_table2.csv: missing columns"):
        DOC_TABLES["speed_table2"].render(csv)


def test_markdown_rows_keep_escaped_bars():
    assert split_row(r"| a \| b | c |") == ["a | b", "c"]
    assert split_row("| x |  | z |") == ["x", "", "z"]


def test_results_tables_are_read_in_file_order(tmp_path):
    path = tmp_path / "t.md"
    path.write_text("intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- note\n\n| c |\n|---|\n| 3 |\n")
    assert read_md_tables(path) == [(["a", "b"], [["1", "2"]]), (["c"], [["3"]])]


def test_the_bench_writes_what_the_docs_render(tmp_path):
    """reproduce/bench/bench_table2.py's record() replaces its cell's row and keeps the others as
    written; the speed tables then show the new numbers."""
    spec = importlib.util.spec_from_file_location("bench_table2",
                                                  REPO / "reproduce" / "bench" / "bench_table2.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    csv = tmp_path / "bench_table2.csv"
    shutil.copy(RESULTS / "bench_table2.csv", csv)
    before = csv.read_text().splitlines()
    row = {"dataset": "adult", "algorithm": "nytro", "dtype": "float64", "max_iter": None,
           "repeats": 5, "median_s": 0.61, "first_s": 0.62, "paper_s": 0.85,
           "over_paper": 0.61 / 0.85, "floor_s": 0.5, "over_floor": 1.22, "strategy": "gram",
           "validation_strategy": "gram", "selected": 42, "test_rmse": 0.6885,
           "peak_rss_gib": 0.4, "host_gemm_gflops_min": 101.0, "host_gemm_gflops_max": 101.0,
           "host_stream_gbs_min": 30.0, "host_stream_gbs_max": 30.0, "blas_threads": 2,
           "source": "reproduce/bench/bench_table2.py 2026-01-01"}
    bench.record(csv, row)
    bench.record(csv, row)  # the same cell again: replaced, not added
    after = csv.read_text().splitlines()
    assert len(after) == len(before)
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 1 and changed[0][0].startswith("adult,nytro,float64,")
    assert "| Adult NYTRO, float64 | 0.61 | 0.85 | 0.72 | 1.2 | gram/gram |" in (
        DOC_TABLES["speed_summary"].render(csv))
    assert "| 0.61 (0.62) |" in DOC_TABLES["speed_table2"].render(csv)


def test_make_docs_script_checks_and_exits_2_on_a_missing_source(tmp_path):
    root = _copy_tree(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    script = [sys.executable, "-m", "reproduce.render_docs", "--root", str(root)]
    ok = subprocess.run([*script, "--check"], capture_output=True, text=True, env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    readme = root / "README.md"
    readme.write_text(readme.read_text().replace("| Adult, m = 1000 |", "| Adult, m = 999 |"))
    stale = subprocess.run([*script, "--check"], capture_output=True, text=True, env=env)
    assert stale.returncode == 1 and "README.md" in stale.stdout
    (root / "results" / "table2.md").unlink()
    missing = subprocess.run(script, capture_output=True, text=True, env=env)
    assert missing.returncode == 2
    assert "table2.md" in missing.stderr and "Traceback" not in missing.stderr


def test_markers_inside_fenced_code_are_examples():
    text = ("```markdown\n<!-- kernreg:table NAME -->\n<!-- /kernreg:table -->\n```\n\n"
            "<!-- kernreg:table samplers -->\nold\n<!-- /kernreg:table -->\n")
    assert [name for name, _ in blocks(text)] == ["samplers"]
    out = render_text(text, RESULTS, "x.md")
    assert out.startswith("```markdown\n<!-- kernreg:table NAME -->\n")
    assert "old" not in out and "| m | uniform: test RMSE / time (s)" in out


def test_benchmark_params_are_read_as_yaml_values():
    assert parse_assignments(["strategy=memory", "max_iter=60", "merge_duplicates=false",
                              "sigma=1e-1"]) == {"strategy": "memory", "max_iter": 60,
                                                 "merge_duplicates": False, "sigma": 0.1}
    for bad in ("strategy", "=memory"):
        with pytest.raises(ValueError, match="KEY=VALUE"):
            parse_assignments([bad])


def test_record_row_replaces_its_key_and_keeps_the_rest(tmp_path):
    path = tmp_path / "b.csv"
    columns = ["dataset", "m", "seconds", "source"]
    path.write_text('# what the file is\n# Rows with source "old" are from the docs\n'
                    "dataset,m,seconds,source\nadult,1000,0.80,old\nijcnn1,5000,20.10,old\n")
    record_row(path, {"dataset": "adult", "m": 1000, "seconds": 0.5, "source": "new"},
               ["dataset", "m"], columns)
    assert path.read_text() == ('# what the file is\n# Rows with source "old" are from the '
                                "docs\ndataset,m,seconds,source\nadult,1000,0.5,new\n"
                                "ijcnn1,5000,20.10,old\n")  # 20.10 kept as written
    record_row(path, {"dataset": "ijcnn1", "m": 5000, "seconds": 19, "source": "new"},
               ["dataset", "m"], columns)
    record_row(path, {"dataset": "covtype", "m": 10000, "seconds": None, "source": "new"},
               ["dataset", "m"], [*columns[:3], "floor", "source"])  # a new column
    lines = path.read_text().splitlines()
    assert lines[0] == "# what the file is"
    assert not any("old" in line for line in lines)  # no row is "old": its note goes too
    assert lines[1:] == ["dataset,m,seconds,floor,source", "adult,1000,0.5,,new",
                         "ijcnn1,5000,19,,new", "covtype,10000,,,new"]
    with pytest.raises(ValueError, match="source"):
        record_row(path, {"dataset": "x"}, ["dataset"], ["dataset", "m"])


@pytest.mark.mirror
def test_run_summary_writes_one_row_per_label_and_m(mirror, tmp_path):
    """reproduce/beyond/run_summary.py (make samplers): an m sweep's runs become rows (label,
    m) with the mean and std over trials of the run's own tidy table."""
    from kernreg.config import load_experiment
    from kernreg.experiment import run_experiment

    config = tmp_path / "sweep.yaml"
    config.write_text("name: sweep\ndataset: {name: cpusmall, n_train: 600, n_test: 300}\n"
                      "kernel: {sigma: 0.2}\nalgorithms:\n"
                      "  - {name: nkrls, label: uniform, m: [20, 40],"
                      " lambdas: {logspace: [1e-6, 1e-2, 5]}}\n"
                      "protocol: {trials: 2, seed: 3}\nbudget: {blas_threads: 1}\n")
    table = run_experiment(load_experiment(config), tmp_path / "runs", progress=False)
    out = tmp_path / "summary.csv"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    script = [sys.executable, "-m", "reproduce.beyond.run_summary"]
    done = subprocess.run([*script, str(tmp_path / "runs" / "sweep"), "-o", str(out)],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    summary = pd.read_csv(out, comment="#")
    assert list(summary["label"]) == ["uniform", "uniform"]
    assert sorted(summary["m"]) == [20, 40]
    for _, row in summary.iterrows():
        trials = table[table["m"] == row["m"]]
        assert row["trials"] == len(trials) == 2
        assert row["test_rmse_mean"] == pytest.approx(trials["test_rmse"].mean(), rel=1e-3)
    missing = subprocess.run([*script, str(tmp_path / "nothing"), "-o", str(out)],
                             capture_output=True, text=True, env=env)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_usage_limits_table_matches_the_loader() -> None:
    """The limits usage.md documents are the loader's constants."""
    import re

    from kernreg.config import loader

    text = (REPO / "docs" / "usage.md").read_text(encoding="utf-8")
    documented = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 2 and (number := re.match(r"\d[\d ]*", cells[1])):
            documented[cells[0]] = int(number.group().replace(" ", ""))
    expected = {"config file size": loader.MAX_CONFIG_BYTES // 1024,
                "nesting of lists and mappings": loader.MAX_DEPTH,
                "alias references (`*name`)": loader.MAX_ALIASES,
                "values once aliases are expanded": loader.MAX_NODES,
                "items of one list or mapping": loader.MAX_LIST,
                "points of a grid (`logspace`, `linspace`, `m: {range: …}`)": loader.MAX_LIST,
                "`protocol.trials` (and `--trials`), of any protocol": loader.MAX_TRIALS}
    assert {key: documented.get(key) for key in expected} == expected


def test_table7_tables_read_their_results_files(tmp_path: Path) -> None:
    """The thesis Table 7.1 renderers take the cells as a stream's run wrote them; the
    kernel table refuses a linear baseline over other trials; the update-time table reads the
    benchmark's rows."""
    kernel = DOC_TABLES["thesis_table7_nystrom"].render
    with pytest.raises(ResultsError, match="different numbers of trials"):
        kernel(RESULTS / "thesis_table7_nystrom.md", RESULTS / "thesis_table7.md")
    rc = DOC_TABLES["thesis_table7_threshold10"].render(RESULTS / "thesis_table7_threshold10.md")
    _, rows = read_md_tables(RESULTS / "thesis_table7_threshold10.md")[0]
    total_rc = rows[0][3]  # "78.5 ± 1.2 / 79.7 ± 0.6"
    mean, thesis = total_rc.split(" / ")
    assert f"| Total RC, ours / thesis | {mean.split(' ±')[0]} / {thesis.split(' ±')[0]} |" in rc
    bench = tmp_path / "bench_rlsc_update.csv"
    record_row(bench, {"data": "mnist", "n": 500, "d": 784, "lam": 1000, "threads": 1,
                       "updates": 5, "repeats": 1, "update_ms": 1.26, "update_w_ms": 2.0,
                       "rb_ms": 30.0, "rb_over_update_w": 15.0, "source": "a test"},
               ["data", "n", "lam", "threads"],
               ["data", "n", "d", "lam", "threads", "updates", "repeats", "update_ms",
                "update_w_ms", "rb_ms", "rb_over_update_w", "host_gemm_gflops", "source"])
    text = DOC_TABLES["bench_rlsc_update"].render(bench)
    assert "| 500 | 1.3 | 2.0 | 30 | 15.0 |" in text and "(measured by: a test)" in text
    bench.write_text("data,n\nmnist,500\n")
    with pytest.raises(ResultsError, match="missing columns"):
        DOC_TABLES["bench_rlsc_update"].render(bench)


def test_the_bench_exp_rate_and_noisy_host_columns_leave_the_docs_unchanged(tmp_path):
    """The columns bench_table2.py added for the exp rate and the noisy-host flag are recorded
    but do not change the rendered speed tables."""
    spec = importlib.util.spec_from_file_location("bench_table2",
                                                  REPO / "reproduce" / "bench" / "bench_table2.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    row = {"dataset": "adult", "algorithm": "nytro", "dtype": "float64", "max_iter": None,
           "repeats": 5, "median_s": 0.61, "first_s": 0.62, "paper_s": 0.85,
           "over_paper": 0.61 / 0.85, "floor_s": 0.5, "over_floor": 1.22, "strategy": "gram",
           "validation_strategy": "gram", "selected": 42, "test_rmse": 0.6885,
           "peak_rss_gib": 0.4, "host_gemm_gflops_min": 95.0, "host_gemm_gflops_max": 101.0,
           "host_stream_gbs_min": 30.0, "host_stream_gbs_max": 30.0, "blas_threads": 2,
           "source": "reproduce/bench/bench_table2.py 2026-01-01"}
    rendered = []
    for extra in ({}, {"host_exp_geps_min": 1.9, "host_exp_geps_max": 2.4,
                       "noisy_host": "gemm exp"}):
        csv = tmp_path / f"bench{len(rendered)}.csv"
        shutil.copy(RESULTS / "bench_table2.csv", csv)
        bench.record(csv, {**row, **extra})
        header = next(line for line in csv.read_text().splitlines() if not line.startswith("#"))
        assert ("noisy_host" in header) and (
            not extra or ",1.9,2.4,gemm exp" in csv.read_text())
        rendered.append([DOC_TABLES[name].render(csv)
                         for name in ("speed_summary", "speed_table2")])
    assert rendered[0] == rendered[1]


def test_theory_tables_read_their_figures_json(tmp_path: Path) -> None:
    """The theory figures' tables (docs/bach.md, thesis_ch5.md, beyond.md) follow the JSON the
    figure scripts write: a changed rank moves its ratios, a setting without a run is listed as
    not measured with Theorem 11's exponents, a damaged file is named, a deterministic sampler
    shows one number."""
    import json

    fig3 = tmp_path / "bach_fig3.json"
    data = json.loads((RESULTS / "figures" / "bach_fig3.json").read_text())
    last = data["pumadyn32fh"]["rows"][-1]
    last["rank_greedy"] = last["d_ave"] * 3  # p_greedy / d_ave at the largest n: 3.00
    fig3.write_text(json.dumps(data))
    row = next(line for line in DOC_TABLES["bach_fig3"].render(fig3).splitlines()
               if line.startswith("| 32fh |"))
    assert split_row(row)[7].endswith("→ 3.00")
    fig2 = tmp_path / "bach_fig2.json"
    fig2.write_text(json.dumps({"noise": 0.5, "ratios": [
        {"beta": 2, "n": n, "d": 10.0, "d_ave": 5.0, "rank_random": [8, 12, None],
         "rank_rpcholesky": [10], "rank_greedy": 5} for n in (64, 128)]}))
    assert DOC_TABLES["bach_fig2_ratios"].render(fig2).splitlines()[-1] == (
        "| 0.5 | 2 | 1.00 | 2.00 | 0.50 | 1.00 | 2.00 | 2.00 |")
    fig5 = tmp_path / "thesis_fig5_2.json"
    fig5.write_text("[]")
    text = DOC_TABLES["thesis_fig5_2"].render(fig5)
    assert "| (11/16, 1/8) | excess risk / λ_n / m_n | not measured" in text
    assert text.endswith("| −7/8, −1/2, +1/2 | — | — |")
    # a run: the means' slope against Theorem 11, its interval, and the ±0.1 verdict
    ns = [1000, 10000]
    fig5.write_text(json.dumps([{
        "r": 0.875, "gamma": 0.25, "n": ns, "reps": 7,
        "predicted": {"lambda": -0.5, "m": 0.5, "risk": -0.875},
        "mean": [[1e-2, 1e-3, 10.0], [1e-3, 1e-4, 100.0]],
        "std": [[0, 0, 5.0], [0, 0, 20.0]],
        "measured_slope": {"lambda": -1.0, "risk": -1.0, "m": 1.0},
        "slope_interval": {"m": [0.75, 1.25]}}]))
    lines = DOC_TABLES["thesis_fig5_2"].render(fig5).splitlines()
    assert lines[2] == "| (7/8, 1/4) | excess risk | −1.000 | — | −7/8 = −0.875 | no (0.125) | 7 |"
    assert lines[4] == ("|  | m_n (std 0.20–0.50 × mean) | +1.000 [+0.750, +1.250] | — "
                        "| +1/2 = +0.500 | no (0.500) | |")
    assert "| (11/16, 1/8) | excess risk / λ_n / m_n | not measured" in lines[5]
    fig5.write_text("{not json")
    with pytest.raises(ResultsError, match="thesis_fig5_2.json: not readable JSON"):
        DOC_TABLES["thesis_fig5_2"].render(fig5)
    fig3.write_text(json.dumps({"pumadyn32fh": {"sigma": 6.0, "rows": [{"n": 256}]}}))
    with pytest.raises(ResultsError, match="bach_fig3.json: a record has no 'd'"):
        DOC_TABLES["bach_fig3"].render(fig3)
    ranks = DOC_TABLES["sampler_ranks"].render(RESULTS / "sampler_ranks.md")
    assert "| cpusmall (0.1) |" in ranks and "| 1288 |" in ranks and "1288 (" not in ranks


def test_nytro_fig1_datasets_table_reads_the_advice_comparison(tmp_path: Path) -> None:
    """docs/nytro.md's Table 2 datasets on NYTRO Figure 1 come from results/advise_table2.md:
    the map's verdicts there (at our SNR and at the paper's λ*) and the paper's winners."""
    source = tmp_path / "advise_table2.md"
    text = (RESULTS / "advise_table2.md").read_text()
    source.write_text(text)
    rendered = DOC_TABLES["nytro_fig1_datasets"].render(source).splitlines()
    header, rows = md_table(RESULTS / "advise_table2.md")
    assert len(rendered) == 2 + len(rows)
    insurance = split_row(next(r for r in rendered if r.startswith("| Insurance (")))
    cells = dict(zip(header, next(r for r in rows if r[0] == "insurance"), strict=True))
    verdict = cells["paper's λ* (SNR): map at d_eff / d̃"]
    assert insurance[1] == cells["SNR"] and insurance[4].endswith(verdict.partition(": ")[2])
    assert insurance[5] == "ES / ES"  # the paper's fastest / at equal accuracy
    # a changed verdict in the source changes the docs; a missing column is named
    source.write_text(text.replace(verdict, verdict.partition(": ")[0] + ": KRLS / KRLS"))
    assert "KRLS / KRLS" in DOC_TABLES["nytro_fig1_datasets"].render(source)
    source.write_text(text.replace("paper's λ* (SNR)", "paper λ"))
    with pytest.raises(ResultsError, match="advise_table2.md: no column"):
        DOC_TABLES["nytro_fig1_datasets"].render(source)


#: Words of the project's own bookkeeping: the docs, configs, package and README say what is
#: true now, for a user; history goes to CHANGELOG.md.
_BOOKKEEPING = re.compile(r"\bissues? ?#?[0-9]+|\bsessions?\b|\bthe issue'?s\b|\bwork items?\b",
                          re.IGNORECASE)


def test_no_text_for_users_speaks_of_work_items() -> None:
    files = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")),
             *sorted((REPO / "configs").glob("*.yaml")), *sorted((REPO / "kernreg").rglob("*.py"))]
    found = [f"{path.relative_to(REPO)}:{number}: {line.strip()}"
             for path in files
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if _BOOKKEEPING.search(line)]
    assert found == [], "\n".join(found)


def test_datasets_table_lists_every_registered_dataset() -> None:
    """docs/datasets.md's block is rendered from the dataset registry (no results file): every
    registered dataset has its row, with its sizes and whether the offline mirror holds it."""
    from kernreg.datasets import dataset_names, get_spec

    assert CODE_TABLES["datasets"].sources == () and "datasets" not in DOC_TABLES
    body = dict(blocks((REPO / "docs" / "datasets.md").read_text(encoding="utf-8")))["datasets"]
    rows = {split_row(line)[0].split("`")[1]: split_row(line) for line in body.splitlines()
            if line.startswith("| `") and ": " in split_row(line)[0]}
    assert set(rows) == set(dataset_names()) and len(rows) >= 13
    for name, row in rows.items():
        spec = get_spec(name)
        assert row[2] == f"{spec.n_train} / {spec.n_test}" and row[3] == str(spec.d)
    assert rows["adult"][-1].startswith("yes") and rows["yearprediction"][-1].startswith("no")
    assert rows["ct_slices"][-1].startswith("no")


def test_the_mirror_list_of_the_datasets_table_is_the_mirror(mirror: Path) -> None:
    """The files the datasets table counts as mirrored are the registry's mirror paths that
    the offline mirror holds."""
    from kernreg.datasets import dataset_names, get_spec
    from reproduce.docs_tables.dataset_tables import MIRROR_FILES

    held = {path for name in dataset_names() for source in get_spec(name).sources
            for rf in source.files for path in rf.mirror_paths if (mirror / path).is_file()}
    assert held == MIRROR_FILES


def test_the_costs_table_shows_a_fit_on_all_rows_without_a_validation_error(tmp_path):
    """A LIBSVM fit on the fit and validation rows together has no validation error: its row
    still shows its support vectors and test error; a SIGM part shows nothing found."""
    from reproduce.docs_tables.paper_tables import render_thesis_table6_costs
    path = tmp_path / "costs.csv"
    path.write_text(
        "part,wall_s,cpu_s,row,n_fit,host_gemm_gflops,n_support,val_error,val_hinge,test_error,"
        "source\n"
        "libsvm C = 10,4.8,4.8,ijcnn1,39992,67,2617,0.0119,0.03,0.0104,s\n"
        "\"libsvm C = 10, fit on all 49990 rows\",6.1,6.0,ijcnn1,39992,67,3000,,,0.0098,s\n"
        "SIGM_C epoch 1 (+ validation),1.2,1.5,ijcnn1,39992,81,,,,,s\n", encoding="utf-8")
    rows = [line.split(" | ") for line in render_thesis_table6_costs(path).splitlines()[2:]]
    assert rows[0][4] == "validation error 1.19 %, 2617 SVs; test error 1.04 %"
    assert rows[1][4] == "3000 SVs; test error 0.98 %"
    assert rows[2][4] == ""
