"""Dask: trials as tasks equal the local run, data-parallel NKRLS and NYTRO equal the local
solvers, a worker killed mid-run costs a retry, never a lost or duplicated trial, and Ctrl-C
on a LocalCluster run prints one line and leaves a run that --resume finishes; every worker,
one that joins later included, warms the compiled layer up before its first task; the
scheduler is found from --scheduler-file or Dask's configuration, refused with one message
naming what is wrong.

A LocalCluster of 2 worker processes × 1 thread (this machine has 2 cores); data from
scikit-learn's bundled breast cancer table and generated problems (no mirror needed).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kernreg.config import load_experiment
from kernreg.errors import ConfigError
from kernreg.experiment import run_experiment
from kernreg.experiment.distributed import WarmUpPlugin, dask_client, resolve_scheduler
from kernreg.kernels import GaussianKernel, jit_enabled
from kernreg.kernels.compiled import compiled_signatures
from kernreg.solvers import NystromKRLS, Nytro
from kernreg.solvers.blocks.dask_rows import DistributedRows, worker_memory_limit
from kernreg.solvers.blocks.distinct import merged_rows, merging

distributed = pytest.importorskip("distributed")

CONFIG = """
name: dsk
dataset: {name: breast_cancer, n_train: 200, n_test: 100}
algorithms:
  - {name: nkrls, m: 30, lambdas: {logspace: [1e-6, 1e-1, 6]}}
  - {name: nytro, m: 30, max_iter: 40}
protocol: {trials: 4}
budget: {blas_threads: 1}
"""
EXACT = ["seed", "selected", "test_rmse", "test_error", "n_path_points"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[distributed.LocalCluster]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        yield cluster


def _table(result: pd.DataFrame) -> pd.DataFrame:
    return result.sort_values(["label", "trial"]).reset_index(drop=True)[["label", "trial",
                                                                          *EXACT]]


def test_trials_on_a_local_cluster_equal_the_local_run(tmp_path: Path) -> None:
    config = tmp_path / "dsk.yaml"
    config.write_text(CONFIG)
    local = run_experiment(load_experiment(config), tmp_path / "local", progress=False)
    dask = run_experiment(load_experiment(config, {"execution": {"scheduler": "local:2"}}),
                          tmp_path / "dask", progress=False)
    pd.testing.assert_frame_equal(_table(local), _table(dask))
    # the execution does not enter the config hash: the two runs are one experiment
    assert local["config_hash"].iloc[0] == dask["config_hash"].iloc[0]


@pytest.fixture(scope="module")
def problem() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(3)
    X, X_val, X_test = (rng.uniform(-1, 1, size=(n, 4)) for n in (900, 300, 200))
    f = lambda Z: np.sin(3 * Z[:, 0]) + Z[:, 1] * Z[:, 2]  # noqa: E731
    y, y_val = f(X) + 0.1 * rng.standard_normal(900), f(X_val) + 0.1 * rng.standard_normal(300)
    return X, y, X_val, y_val, X_test


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def test_data_parallel_nkrls_equals_local(cluster, problem) -> None:
    X, y, X_val, y_val, X_test = problem
    kw = {"sigma": 0.7, "m": 80, "lambdas": np.logspace(-6, -1, 8), "random_state": 1,
          "refit": True}
    with distributed.Client(cluster):
        dask = NystromKRLS(backend="dask", **kw).fit(X, y, X_val, y_val)
    local = NystromKRLS(**kw).fit(X, y, X_val, y_val)
    np.testing.assert_allclose(dask.path_["val_rmse"], local.path_["val_rmse"], rtol=1e-10)
    assert dask.best_lambda_ == local.best_lambda_
    assert _rel(dask.predict(X_test), local.predict(X_test)) < 1e-10


@pytest.mark.parametrize("strategy", ["memory", "blocked", "gram"])
def test_data_parallel_nytro_equals_local(cluster, problem, strategy: str) -> None:
    X, y, X_val, y_val, X_test = problem
    kw = {"sigma": 0.7, "m": 80, "max_iter": 60, "random_state": 1, "strategy": strategy,
          "validation_strategy": strategy, "step_rows": "all", "stopping_rule": "none"}
    with distributed.Client(cluster):
        dask = Nytro(backend="dask", **kw).fit(X, y, X_val, y_val)
    local = Nytro(**kw).fit(X, y, X_val, y_val)
    assert dask.step_size_ == pytest.approx(local.step_size_, rel=1e-10)
    np.testing.assert_allclose(dask.path_["val_rmse"], local.path_["val_rmse"], rtol=1e-10)
    assert _rel(dask.predict(X_test), local.predict(X_test)) < 1e-10


@pytest.fixture(scope="module")
def repeated(problem) -> tuple[np.ndarray, ...]:
    """The problem with 300 of its 900 training rows repeating others (own noisy targets)."""
    X, y, X_val, y_val, X_test = problem
    rng = np.random.default_rng(5)
    X, y = X.copy(), y.copy()
    X[600:] = X[rng.integers(0, 300, size=300)]
    y[600:] += 0.1 * rng.standard_normal(300)
    return X, y, X_val, y_val, X_test


def test_data_parallel_solvers_merge_repeated_rows(cluster, repeated, monkeypatch) -> None:
    """On the cluster too, repeated rows enter once, weighted: NKRLS (with its refit) and NYTRO
    (every strategy) send only the distinct fit rows and answer as the local solvers on all
    the rows, unmerged."""
    X, y, X_val, y_val, X_test = repeated
    sent = []
    init = DistributedRows.__init__

    def recording(self, kernel, X, *args, **kwargs):
        sent.append(X.shape[0])
        init(self, kernel, X, *args, **kwargs)

    monkeypatch.setattr(DistributedRows, "__init__", recording)
    nkrls = {"sigma": 0.7, "m": 80, "lambdas": np.logspace(-6, -1, 8), "random_state": 1,
             "refit": True}
    nytro = {"sigma": 0.7, "m": 80, "max_iter": 40, "random_state": 1, "step_rows": "all",
             "stopping_rule": "none"}
    with distributed.Client(cluster):
        dask = [NystromKRLS(backend="dask", **nkrls).fit(X, y, X_val, y_val)]
        dask += [Nytro(backend="dask", strategy=s, validation_strategy=s, **nytro)
                 .fit(X, y, X_val, y_val) for s in ("memory", "blocked", "gram")]
    u = merged_rows(X, y)[0].shape[0]
    assert u < X.shape[0] and X.shape[0] not in sent and u in sent
    with merging(False):
        local = [NystromKRLS(**nkrls).fit(X, y, X_val, y_val)]
        local += [Nytro(strategy=s, validation_strategy=s, **nytro).fit(X, y, X_val, y_val)
                  for s in ("memory", "blocked", "gram")]
    for d, loc in zip(dask, local, strict=True):
        np.testing.assert_allclose(d.path_["val_rmse"], loc.path_["val_rmse"], rtol=1e-9)
        assert _rel(d.predict(X_test), loc.predict(X_test)) < 1e-9


def test_the_parts_hold_the_distinct_rows_only(cluster, repeated) -> None:
    X, y = repeated[:2]
    X_u, y_u, scale = merged_rows(X, y)
    assert X_u.shape[0] < X.shape[0] and scale is not None
    C = X[:50]
    with distributed.Client(cluster):
        rows = DistributedRows(GaussianKernel(sigma=0.7), X_u, y_u, C, "memory",
                               row_scale=scale)
        try:
            parts = rows.client.gather(rows._parts)
            assert sum(p.rows.shape[0] for p in parts) == X_u.shape[0]
            G = rows.normal(np.eye(50))
        finally:
            rows.close()
    K = GaussianKernel(sigma=0.7)(X, C)
    np.testing.assert_allclose(G, K.T @ K, rtol=1e-10)


def test_a_data_parallel_config_runs_in_the_driver(tmp_path: Path) -> None:
    config = tmp_path / "dsk.yaml"
    config.write_text(CONFIG.replace("max_iter: 40}", "max_iter: 40, backend: dask}"))
    local = run_experiment(load_experiment(config.parent / _plain(config)), tmp_path / "local",
                           progress=False)
    dask = run_experiment(load_experiment(config, {"execution": {"scheduler": "local:2"}}),
                          tmp_path / "dask", progress=False)
    for column in ("selected", "n_path_points"):
        np.testing.assert_array_equal(_table(dask)[column], _table(local)[column])
    np.testing.assert_allclose(_table(dask)["test_rmse"], _table(local)["test_rmse"],
                               rtol=1e-10)


def _plain(config: Path) -> str:
    plain = config.with_name("plain.yaml")
    plain.write_text(CONFIG)
    return plain.name


def test_a_worker_killed_mid_run_costs_a_retry_not_a_trial(cluster, tmp_path: Path) -> None:
    config = tmp_path / "dsk.yaml"
    config.write_text(CONFIG.replace("trials: 4", "trials: 12"))
    exp = load_experiment(config, {"execution": {"scheduler": cluster.scheduler_address}})
    out = tmp_path / "out"
    result: dict[str, pd.DataFrame] = {}
    runner = threading.Thread(target=lambda: result.update(
        table=run_experiment(exp, out, progress=False)))
    runner.start()
    trials = out / "dsk" / "trials"
    deadline = time.monotonic() + 120
    while not (trials.is_dir() and any(trials.glob("*.h5"))) and time.monotonic() < deadline:
        time.sleep(0.05)
    with distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        os.kill(next(iter(pids.values())), signal.SIGKILL)  # the nanny starts a new worker
    runner.join(timeout=300)
    assert not runner.is_alive() and "table" in result
    files = sorted(p.name for p in trials.glob("*.h5"))
    assert len(files) == len(set(files)) == 24  # every trial once
    local = run_experiment(load_experiment(config), tmp_path / "local", progress=False)
    pd.testing.assert_frame_equal(_table(result["table"]), _table(local))


def test_ctrl_c_on_a_local_cluster_prints_one_line_and_resumes(tmp_path: Path) -> None:
    """Ctrl-C reaches a terminal's whole process group, the LocalCluster's worker processes
    included: only ``aborted`` is printed (no worker's KeyboardInterrupt traceback, no Dask
    warning about the trials it kills), the exit status is 130, and ``--resume`` finishes
    the run as if uninterrupted."""
    config = tmp_path / "dsk.yaml"
    config.write_text(CONFIG.replace("trials: 4", "trials: 100"))  # still running at Ctrl-C
    out = tmp_path / "out"
    command = [sys.executable, "-m", "kernreg", "run", str(config), "--scheduler", "local:2",
               "--out", str(out), "--no-progress"]
    # the child starts with SIGINT at its default, as from a terminal, even where this
    # process was started with it ignored (a background job of a script)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    finally:
        signal.signal(signal.SIGINT, handler)
    trials = out / "dsk" / "trials"
    try:
        deadline = time.monotonic() + 120
        while not any(trials.glob("*.h5")):
            assert run.poll() is None, run.communicate()[1]
            assert time.monotonic() < deadline, "no trial finished in 120 s"
            time.sleep(0.05)
        os.killpg(run.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _, stderr = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
    assert run.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert [line for line in stderr.splitlines() if line.strip()] == ["aborted"], stderr
    assert 0 < len(list(trials.glob("*.h5"))) < 200

    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    run_experiment(load_experiment(config), tmp_path / "local", progress=False)
    dask, local = (pd.read_csv(base / "dsk" / "results.csv") for base in (out,
                                                                          tmp_path / "local"))
    pd.testing.assert_frame_equal(_table(dask), _table(local))


def _scheduler_plugins(dask_scheduler) -> list[str]:
    return list(dask_scheduler.worker_plugins)


def test_every_worker_warms_up_before_its_first_task_one_joining_later_too() -> None:
    """The warm-up plugin is registered with the scheduler, so the worker there and one that
    joins afterwards (the cluster scaled up) have the compiled functions loaded before they
    run anything (without numba, or with it off, nothing is loaded)."""
    with dask_client("local:1") as client:
        assert WarmUpPlugin.name in client.run_on_scheduler(_scheduler_plugins)
        client.cluster.scale(2)
        client.wait_for_workers(2, timeout=120)
        loaded = client.run(compiled_signatures)
    assert len(loaded) == 2
    for signatures in loaded.values():
        if jit_enabled():
            assert signatures["distance_exp_f64"] >= 1 and signatures["normal_pass_single"] >= 1
        else:
            assert signatures == {}


def test_connecting_to_a_scheduler_says_where_and_how_many_workers(cluster, capsys) -> None:
    with dask_client(cluster.scheduler_address) as client:
        assert WarmUpPlugin.name in client.run_on_scheduler(_scheduler_plugins)
    line = re.escape(f"dask: connected to {cluster.scheduler_address}")
    assert re.fullmatch(line + r" \(dashboard: http://[^ ]+/status\), 2 workers\n",
                        capsys.readouterr().err)


def test_auto_blas_threads_on_a_cluster_is_called_out(cluster, tmp_path: Path, capsys) -> None:
    """budget.blas_threads: auto counts the driver's idle cores, not a worker's: a run on a
    scheduler's cluster says so (a LocalCluster's share of this machine is right as it is)."""
    config = tmp_path / "dsk.yaml"
    config.write_text(CONFIG.replace("trials: 4", "trials: 1").replace("blas_threads: 1",
                                                                       "blas_threads: auto"))
    exp = load_experiment(config, {"execution": {"scheduler": cluster.scheduler_address}})
    run_experiment(exp, tmp_path / "out", progress=False)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"dask: connected to {cluster.scheduler_address}")
    assert err[1].startswith("dask: budget.blas_threads is auto, this machine's ")
    assert err[1].endswith("set budget.blas_threads to the cores of one worker process")
    assert len(err) == 2


def _scheduler_file(tmp_path: Path, content: str) -> Path:
    path = tmp_path / "scheduler.json"
    path.write_text(content)
    return path


def test_a_scheduler_file_gives_the_address(tmp_path: Path) -> None:
    """The file that `dask scheduler --scheduler-file` writes: its address is the scheduler."""
    written = tmp_path / "written.json"
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp",
                                  dashboard_address=":0",
                                  scheduler_kwargs={"scheduler_file": str(written)}) as cluster:
        assert resolve_scheduler(None, written) == cluster.scheduler_address
    path = _scheduler_file(tmp_path, '{"type": "Scheduler", "id": "Scheduler-1", "address": '
                                     '"tcp://10.1.2.3:8786", "services": {"dashboard": 8787}}')
    assert resolve_scheduler(None, path) == "tcp://10.1.2.3:8786"
    assert resolve_scheduler(None, str(path)) == "tcp://10.1.2.3:8786"
    assert resolve_scheduler("local:2") == "local:2"  # anything else is the config's to check
    assert resolve_scheduler(None) is None  # neither: the config's execution.scheduler stands


@pytest.mark.parametrize("content,message", [
    (None, "no such file; `dask scheduler --scheduler-file"),
    ("", "is not a Dask scheduler file"),
    ("{'address': 'tcp://h:8786'}", "is not a Dask scheduler file"),  # not JSON
    ('["tcp://h:8786"]', "no \"address\" in it"),
    ('{"id": "Scheduler-1"}', "no \"address\" in it"),
    ('{"address": "ucx://h:8786"}', "its address 'ucx://h:8786': expected"),
    ('{"address": "tcp://h:99999"}', "the port must be a number in 1-65535"),
])
def test_a_bad_scheduler_file_is_refused_naming_it(tmp_path: Path, content: str | None,
                                                  message: str) -> None:
    path = tmp_path / "scheduler.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ConfigError, match=f"^--scheduler-file {path}") as refused:
        resolve_scheduler(None, path)
    assert message in str(refused.value)


def test_an_unreadable_scheduler_file_and_two_schedulers_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=f"--scheduler-file {tmp_path}: cannot read it: "):
        resolve_scheduler(None, tmp_path)  # a folder
    path = _scheduler_file(tmp_path, '{"address": "tcp://h:8786"}')
    with pytest.raises(ConfigError, match="both name a scheduler"):
        resolve_scheduler("local:2", path)


def test_scheduler_dask_is_where_dask_s_configuration_points(monkeypatch) -> None:
    """``--scheduler dask``: DASK_SCHEDULER_ADDRESS (read when asked, as Dask's Client() does),
    then Dask's scheduler-address; with neither, one message saying what to set."""
    import dask

    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://10.1.2.3:8786")
    assert resolve_scheduler("dask") == "tcp://10.1.2.3:8786"
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "10.1.2.3:8786")  # Dask's default scheme
    assert resolve_scheduler("dask") == "tcp://10.1.2.3:8786"
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "inproc://10.1.2.3/1/2")
    with pytest.raises(ConfigError, match="DASK_SCHEDULER_ADDRESS 'inproc://"):
        resolve_scheduler("dask")
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS")
    with dask.config.set({"scheduler-address": "tls://sched.example.org:8786"}):
        assert resolve_scheduler("dask") == "tls://sched.example.org:8786"
    with dask.config.set({"scheduler-address": None}), \
            pytest.raises(ConfigError, match="names no scheduler: set DASK_SCHEDULER_ADDRESS"):
        resolve_scheduler("dask")


def test_the_rows_are_spread_over_every_worker_beyond_five() -> None:
    """Dask 2025.4 to 2026.3 list only 5 workers in ``scheduler_info()`` unless asked for all:
    on 7 workers the data-parallel rows still go to all 7, and all 7 count in the memory plan.
    (Thread workers: cheap to start.)"""
    X = np.random.default_rng(0).uniform(-1, 1, size=(70, 3))
    with distributed.LocalCluster(n_workers=7, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        assert worker_memory_limit(client, 2**30)[0] == 7
        rows = DistributedRows(GaussianKernel(sigma=1.0), X, X[:, 0], X[:10], "memory",
                               client=client)
        try:
            holders = client.who_has(rows._parts)
        finally:
            rows.close()
    assert len({w for where in holders.values() for w in where}) == 7
