"""Trials as Dask tasks: on a LocalCluster (``local:N``) or a running scheduler's cluster.

The driver (the ``kernreg run`` process) owns the run store exactly as a local run does: it
submits one task per unfinished trial, and writes each trial's record when its task finishes —
atomically, once per trial — so ``--resume``, ``--force``, ``--only`` and the tables behave as
with ``local``. A worker that dies mid-trial costs that trial a retry (Dask reschedules it on
another worker), never a lost or a duplicated record. The prepared data are sent to each worker
once (a broadcast), not once per task; each task limits BLAS to the budget's threads (for
``local:N`` the budget's threads are shared among the N workers). Every worker, those that join
later included, makes its compiled kernel layer ready before its first task
(:class:`WarmUpPlugin`), so that no trial's timed fit pays numba's loading. Dask is an optional
dependency (``pip install 'kernreg[dask]'``); it is imported only here (and by the data-parallel
solvers, :mod:`kernreg.solvers.blocks.dask_rows`).

Where to connect: :func:`resolve_scheduler` turns ``kernreg run``'s ``--scheduler`` and
``--scheduler-file`` into the address of ``execution.scheduler``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import psutil
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from kernreg.backend import gib
from kernreg.config import Algorithm, Experiment
from kernreg.config.loader import scheduler_problem
from kernreg.errors import ConfigError, KernregError, MissingDependencyError
from kernreg.experiment.resources import gemm_gflops, resolve_blas_threads
from kernreg.experiment.trial import PreparedData, run_trial
from kernreg.kernels.compiled import warm_up
from kernreg.plugins import load_installed_plugins, load_plugins
from kernreg.results.record import TrialRecord

try:  # optional: without Dask, dask_client says how to install it
    from distributed import WorkerPlugin
except ImportError:
    WorkerPlugin = object  # type: ignore[assignment,misc]

if TYPE_CHECKING:
    from distributed import Client, LocalCluster, Worker

__all__ = ["WarmUpPlugin", "admissions", "dask_client", "local_workers", "resolve_scheduler",
           "run_trials_on_dask", "trial_task", "worker_blas_threads"]

log = logging.getLogger("kernreg.experiment")

#: ``--scheduler dask``: the scheduler that Dask's own configuration names, as Dask's
#: ``Client()`` finds it (``DASK_SCHEDULER_ADDRESS``, or ``scheduler-address`` in a Dask config
#: file).
FROM_DASK_CONFIG = "dask"
#: A scheduler file is a few hundred bytes of JSON; a larger file is not one.
MAX_SCHEDULER_FILE_BYTES = 2**20


def resolve_scheduler(scheduler: str | None,
                      scheduler_file: str | os.PathLike[str] | None = None) -> str | None:
    """Where ``kernreg run`` sends its trials, from its ``--scheduler`` and ``--scheduler-file``.

    Parameters
    ----------
    scheduler : str or None
        ``--scheduler``: ``local``, ``local:N``, an address (``tcp://host:8786``), or ``dask``
        for the scheduler that Dask's configuration names (``DASK_SCHEDULER_ADDRESS``, or
        ``scheduler-address`` in a Dask config file), which Dask's own ``Client()`` connects
        to; ``None`` when not given.
    scheduler_file : path-like or None
        ``--scheduler-file``: the JSON file that ``dask scheduler --scheduler-file PATH``
        writes as it starts; its ``address`` is the scheduler's.

    Returns
    -------
    str or None
        The value of ``execution.scheduler`` (an address without a scheme gets ``tcp://``, as
        in Dask); ``None`` when neither option is given: the config's ``execution.scheduler``
        stands (by default ``local``, even where ``DASK_SCHEDULER_ADDRESS`` is set: a cluster
        is used only when asked for).

    Raises
    ------
    ConfigError
        Both options given; ``dask`` with no scheduler in Dask's configuration; a scheduler
        file that is missing, unreadable or not a scheduler file (the message names it); an
        address that is not ``tcp://host:port`` or ``tls://host:port``.
    MissingDependencyError
        ``dask`` without Dask installed.
    """
    if scheduler_file is not None:
        if scheduler:
            raise ConfigError("--scheduler and --scheduler-file both name a scheduler: give "
                              "one of them")
        return _checked(_address_in(Path(scheduler_file)),
                        f"--scheduler-file {scheduler_file}: its address")
    if scheduler != FROM_DASK_CONFIG:
        return scheduler or None
    # the variable first, as Dask ranks it (read now: Dask's copy dates from its import)
    source = "DASK_SCHEDULER_ADDRESS"
    address = os.environ.get(source, "").strip()
    if not address:
        try:
            import dask.config
        except ImportError:
            raise MissingDependencyError("--scheduler dask", "Dask", "dask") from None
        source = "Dask's scheduler-address"
        address = dask.config.get("scheduler-address", None)
    if not address:
        raise ConfigError("--scheduler dask: Dask's configuration names no scheduler: set "
                          "DASK_SCHEDULER_ADDRESS=tcp://HOST:8786 (or scheduler-address in a "
                          "Dask config file), or give --scheduler-file or the address itself")
    return _checked(str(address), f"--scheduler dask: {source}")


def _address_in(path: Path) -> str:
    """The ``address`` of the scheduler file ``path``."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_SCHEDULER_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"--scheduler-file {path}: no such file; `dask scheduler "
                          f"--scheduler-file {path}` writes it as the scheduler starts (started? "
                          f"on storage this machine sees?)") from None
    except OSError as exc:
        raise ConfigError(f"--scheduler-file {path}: cannot read it: "
                          f"{exc.strerror or exc}") from None
    not_one = (f"--scheduler-file {path} is not a Dask scheduler file (JSON with the "
               f"scheduler's \"address\", as `dask scheduler --scheduler-file` writes)")
    if len(raw) > MAX_SCHEDULER_FILE_BYTES:
        raise ConfigError(f"{not_one}: over {MAX_SCHEDULER_FILE_BYTES // 2**10} KiB")
    try:
        content = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{not_one}: {exc}") from None
    address = content.get("address") if isinstance(content, dict) else None
    if not isinstance(address, str) or not address:
        raise ConfigError(f"{not_one}: no \"address\" in it")
    return address


def _checked(address: str, source: str) -> str:
    """``address`` with ``tcp://`` where it names no scheme, checked as a config's scheduler is;
    ``source`` says where it came from."""
    address = address.strip()
    if "://" not in address:
        address = f"tcp://{address}"
    problem = scheduler_problem(address)
    if problem:
        raise ConfigError(f"{source} {problem}")
    return address


class WarmUpPlugin(WorkerPlugin):
    """A Dask worker plugin that makes the worker's compiled kernel layer ready
    (:func:`kernreg.kernels.compiled.warm_up`) before the worker takes its first task.

    :func:`dask_client` registers it with the scheduler, which runs it on the workers there
    and on every worker that joins later (Dask sets a joining worker's plugins up before it
    handles any task); registered again (a second run on the cluster), it replaces itself.
    """

    name = "kernreg-warm-up"

    async def setup(self, worker: Worker) -> None:
        """Warm up in a thread: compiling may take seconds, and the worker's event loop must
        keep up its heartbeats meanwhile."""
        try:
            await asyncio.to_thread(warm_up)
        except Exception as exc:  # its trials meet the same problem and report it
            log.warning("kernreg: the compiled kernels were not warmed up on %s: %s",
                        worker.address, exc)


def local_workers(scheduler: str) -> int | None:
    """N of ``local:N`` (a LocalCluster on this machine); ``None`` for any other scheduler."""
    return int(scheduler.split(":", 1)[1]) if scheduler.startswith("local:") else None


def worker_blas_threads(scheduler: str, blas_threads: int) -> int:
    """BLAS threads of each task: the budget's, shared among the workers of ``local:N`` (they
    share this machine's cores); a remote cluster's workers each get the budget's."""
    workers = local_workers(scheduler)
    return blas_threads if workers is None else max(1, blas_threads // workers)


@contextmanager
def dask_client(scheduler: str) -> Iterator[Client]:
    """A client of ``scheduler``: ``local:N`` starts a LocalCluster of N single-threaded
    worker processes (closed on exit); an address connects to a running scheduler, and says
    so on stderr (``dask: connected to tcp://… (dashboard: http://…/status), 4 workers``).
    Either way the workers' compiled kernel layer is made ready (:class:`WarmUpPlugin`)
    before the client is handed on.

    Raises
    ------
    MissingDependencyError
        Dask is not installed.
    ConfigError
        The scheduler cannot be reached.
    """
    try:
        from distributed import Client
    except ImportError:
        raise MissingDependencyError(f"--scheduler {scheduler}", "Dask", "dask") from None
    # Dask's own INFO lines (worker registration, dashboard hints) are not kernreg's output
    logging.getLogger("distributed").setLevel(logging.WARNING)
    workers = local_workers(scheduler)
    if workers is not None:
        with _local_cluster(workers) as cluster, Client(cluster) as client:
            _register_warm_up(client)
            yield client
        return
    _probe(scheduler)
    try:
        client = Client(scheduler, timeout="20s")
    except Exception as exc:  # Dask raises OSError, TypeError (TLS settings), ValueError
        why = str(exc).split("\n")[0] or type(exc).__name__
        if "TLS" in why or "ssl" in why:
            why += "; a tls:// address needs Dask's TLS settings (distributed.comm.tls)"
        raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {why}; start it "
                          f"(`dask scheduler`) and its workers (`dask worker {scheduler}`) "
                          f"first") from None
    try:
        _register_warm_up(client)
        _announce(client, scheduler)
        yield client
    finally:
        client.close()


def _register_warm_up(client: Client) -> None:
    """Register :class:`WarmUpPlugin`: its setup runs on the workers there before this
    returns, and on each worker that joins later before its first task."""
    client.register_plugin(WarmUpPlugin())


def _announce(client: Client, scheduler: str) -> None:
    """One line on stderr (where the progress bar goes): the scheduler, its dashboard, its
    workers — none yet means the trials wait for some to join."""
    try:
        dashboard = client.dashboard_link  # None, or KeyError, without a dashboard
    except Exception:
        dashboard = None
    workers = len(client.nthreads())  # every worker (scheduler_info() may list only five)
    line = f"dask: connected to {scheduler}"
    if dashboard:
        line += f" (dashboard: {dashboard})"
    line += f", {workers} worker{'s' if workers != 1 else ''}"
    if not workers:
        line += "; the trials wait for workers to join"
    print(line, file=sys.stderr, flush=True)


@contextmanager
def _local_cluster(workers: int) -> Iterator[LocalCluster]:
    """A LocalCluster of ``workers`` single-threaded worker processes, closed on exit.

    A terminal's Ctrl-C goes to its whole process group: each worker would die of it printing
    a KeyboardInterrupt traceback. So SIGINT is blocked in this thread while the cluster
    starts: its event loop thread starts then and inherits the mask, and so do the worker
    processes its nannies spawn, now or on a restart (a signal mask survives fork and exec).
    Only this process takes Ctrl-C (one pressed during the start once the cluster is up: a
    half-started cluster would not close) and closes the cluster quietly
    (:func:`_quiet_once_interrupted`, :func:`dask_teardown`).
    """
    from multiprocessing import resource_tracker

    from distributed import LocalCluster

    with _quiet_once_interrupted():
        cluster = None
        try:
            # starting the tracker unblocks SIGINT in the thread that starts it: start it first
            resource_tracker.ensure_running()
            with _interrupts_held(), _blocked(signal.SIGINT):
                # Dask's default gives each worker total/N bytes and restarts a worker above
                # 95% of it: a Covertype NYTRO trial (17.9 GB) on local:2 would be killed
                # over and over. Memory is shared here and kernreg admits trials by their
                # estimated peaks (admissions), so each worker may use the whole machine.
                # The scheduler's HTTP server takes a free port: on 8787, taken by any other
                # Dask cluster, Dask warns.
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       silence_logs=logging.ERROR,
                                       scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                       memory_limit=psutil.virtual_memory().total,
                                       preload=[__name__])  # its dask_teardown
            yield cluster
        finally:
            if cluster is not None:
                cluster.close()


@contextmanager
def _blocked(signum: int) -> Iterator[None]:
    """Block ``signum`` in this thread (and in the threads and processes it starts)."""
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signum})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back until the end of the block, then handle the first: this
    process's other threads (BLAS's) take a signal that the main thread blocks, and Python
    still raises it in the main thread."""
    handlers = _python_handlers()
    held: list[int] = []
    for signum in handlers:
        signal.signal(signum, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    if held:
        handlers[held[0]](held[0], None)


@contextmanager
def _quiet_once_interrupted() -> Iterator[None]:
    """From Ctrl-C (or SIGTERM, which the CLI handles alike) to the end of the block, this
    process logs nothing: the interrupted call and the close kill the trials under way, and
    Dask's threads log what they make of that (cancelled calls, lost results, workers killed
    after a timeout), racing the KeyboardInterrupt that the handlers in place still raise."""
    disabled = logging.root.manager.disable
    handlers = _python_handlers()

    def quiet(handler: Callable[[int, FrameType | None], Any]
              ) -> Callable[[int, FrameType | None], Any]:
        def handle(signum: int, frame: FrameType | None) -> Any:
            logging.disable(logging.CRITICAL)
            return handler(signum, frame)
        return handle

    for signum, handler in handlers.items():
        signal.signal(signum, quiet(handler))
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        logging.disable(disabled)


def _python_handlers() -> dict[int, Callable[[int, FrameType | None], Any]]:
    """The Python handlers of SIGINT and SIGTERM; none outside the main thread, where
    handlers cannot be set."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    return {signum: handler for signum, handler in handlers.items() if callable(handler)}


def dask_teardown(worker: Worker) -> None:
    """Silence the logging of a worker of ``local:N`` (its own process) as it starts to close.

    Dask calls this preload hook at the start of the worker's close. The workers close when
    the run ends or is interrupted (Ctrl-C), with trials under way or not; what Dask logs
    then goes straight to the terminal and is no news to the user (a heartbeat cut off by
    the close logs an ERROR with a traceback).
    """
    logging.disable(logging.CRITICAL)


def _probe(scheduler: str) -> None:
    """Refuse at once an address where nothing listens (Dask itself retries until its
    timeout): one TCP connection to host:port, 5 s at most."""
    import socket

    host, _, port = scheduler.partition("://")[2].rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=5):
            pass
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {why or 'no answer'}"
                          f"; start it (`dask scheduler`) and its workers (`dask worker "
                          f"{scheduler}`) first") from None


@functools.lru_cache(maxsize=4)
def _host_gemm(threads: int) -> float:
    """This worker's GEMM rate under ``threads`` BLAS threads, measured once per process."""
    with threadpool_limits(limits=threads):
        return gemm_gflops()


def trial_task(exp: Experiment, algo: Algorithm, data: PreparedData, trial: int,
               blas_threads: int, admission: tuple[str, int] | None = None) -> TrialRecord:
    """One trial on a worker, its BLAS limited as the driver said (a Dask task). With
    ``admission = (name, k)`` it first takes a lease of the cluster-wide semaphore ``name``
    that lets ``k`` such trials hold memory at once. The installed plugins and the config's
    ``plugins:`` are imported first (a worker is a process of its own)."""
    # the algorithms, kernels and feature maps a plugin registers, registered here too
    load_installed_plugins()
    load_plugins(exp.plugins, exp.path)
    lease: AbstractContextManager[Any] = nullcontext()
    if admission is not None:
        from distributed import Semaphore

        name, leases = admission
        lease = Semaphore(max_leases=leases, name=name)
    with lease, threadpool_limits(limits=blas_threads):
        return run_trial(exp, algo, data, trial, _host_gemm(blas_threads))


def admissions(scheduler: str, budget_bytes: float, peaks: dict[str, int]
               ) -> dict[str, int]:
    """How many trials of each label may run at once on a LocalCluster (``local:N``): its
    workers share this machine's memory, so a label whose estimated peak fits the budget k
    times runs at most k trials at once (at least 1). A remote cluster's workers each have
    their own memory: no limit."""
    workers = local_workers(scheduler)
    if workers is None:
        return {}
    limits = {label: max(1, int(budget_bytes // peak)) for label, peak in peaks.items()
              if peak > 0}
    return {label: k for label, k in limits.items() if k < workers}


def run_trials_on_dask(exp: Experiment, todo: Sequence[tuple[Algorithm, int]],
                       data: PreparedData, save: Callable[[TrialRecord], Any], *,
                       peaks: dict[str, int] | None = None, progress: bool = True,
                       client: Client | None = None) -> None:
    """Run the ``todo`` trials as tasks on ``exp.execution["scheduler"]`` (through ``client``
    when given: the runner connects before it writes anything) and ``save`` each record in
    the driver as its task finishes. ``peaks`` (label: estimated peak bytes, from
    the preflight) limits how many trials of a label share a LocalCluster's memory at once;
    such a trial gets the BLAS threads of the workers it keeps idle.

    Raises
    ------
    KernregError
        A trial's worker kept dying (e.g. out of memory): the finished trials are saved, the
        message says which failed; ``--resume`` runs it again.
    Exception
        A trial raised: re-raised as it is (a bug, or a data error the local run would raise
        too) after the other trials finished and were saved.
    """
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    scheduler = exp.execution["scheduler"]
    budget_threads = resolve_blas_threads(exp.budget["blas_threads"])  # "auto": idle cores now
    threads = worker_blas_threads(scheduler, budget_threads)
    # a data-parallel fit (backend: dask) runs in the driver and spreads its rows itself
    in_driver = [(a, t) for a, t in todo if a.params.get("backend") == "dask"]
    as_tasks = [(a, t) for a, t in todo if a.params.get("backend") != "dask"]
    # the config's budget per worker: the workers' machines, not this one's, hold the trials
    limits = admissions(scheduler, gib(exp.budget["memory_gb"]), peaks or {})
    if exp.budget["blas_threads"] == "auto" and local_workers(scheduler) is None and as_tasks:
        # "auto" counts this machine's idle cores, which say nothing of the workers'
        print(f"dask: budget.blas_threads is auto, this machine's {budget_threads} idle cores: "
              f"each trial on the cluster takes {budget_threads} BLAS threads; set "
              f"budget.blas_threads to the cores of one worker process", file=sys.stderr,
              flush=True)
    with (nullcontext(client) if client is not None else dask_client(scheduler)) as client:
        for algo, trial in in_driver:
            with threadpool_limits(limits=budget_threads):
                save(run_trial(exp, algo, data, trial, _host_gemm(budget_threads)))
        shared = client.scatter(data, broadcast=True, hash=False)  # once per worker
        futures = {}
        for algo, trial in as_tasks:
            admission, task_threads = None, threads
            if algo.label in limits:
                k = limits[algo.label]
                admission = (f"kernreg-{exp.name}-{algo.label}-memory", k)
                task_threads = max(1, budget_threads // k)
            future = client.submit(trial_task, exp, algo, shared, trial, task_threads,
                                   admission, key=f"kernreg-{exp.name}-{algo.label}-"
                                   f"t{trial:03d}", pure=False)
            futures[future] = (algo.label, trial)
        failed: list[tuple[str, int, BaseException]] = []
        bar = tqdm(total=len(futures), desc=f"{exp.name} on {scheduler}", unit="trial",
                   disable=None if progress else True, leave=False)
        for done, future in enumerate(as_completed(futures), start=1):
            label, trial = futures[future]
            if future.status == "error":
                failed.append((label, trial, future.exception()))
            else:
                save(future.result())
            bar.update()
            bar.set_postfix(running=len(futures) - done, failed=len(failed))
        bar.close()
    for *_, exc in failed:
        if not isinstance(exc, KilledWorker):
            raise exc
    if failed:
        which = ", ".join(f"{label} trial {trial}" for label, trial, _ in failed)
        raise KernregError(f"{which}: the workers running it died repeatedly (out of memory? "
                           f"see the workers' logs); the other trials are saved: run again "
                           f"with --resume")
