"""The prepared GPU check (issue 38, item 5): NYTRO Table 2's cells on a GPU and on the same
machine's CPU cores in one run, with the numpy-vs-device equality first, under 8 minutes.

It takes what it needs from one folder beside the project (``gpu_carry/``, filled by ``make
gpu-check-pack``: the wheels kernreg needs that the GPU image lacks, and the mirror files of
Adult, Ijcnn1 and Covertype laid out as the mirror) and runs in stages:

(a) the environment: torch and CUDA versions, the GPU's name and free memory, CPU cores, the
    BLAS/OpenMP/numba/torch threads (set explicitly to ``--threads``, default every core), and
    each device's rates measured in about a second (GEMM float64/float32, one streaming read);
(b) the numpy-vs-device equality on one small cell (NYTRO and NKRLS on a few thousand Adult
    rows, trial 0's split): the largest relative difference of the validation paths, and the
    same λ*/t* on both;
(c) the Table 2 cells on the device, cheapest first, one trial each with a time cap per cell
    (the run stays under ``--budget-s``), then more trials, up to Table 2's 5, while time is
    left: the median over the trials is reported and a cell with fewer than 5 is marked;
(d) the same cells on the machine's CPU cores (device ``cpu``: numpy, the compiled numba
    layer) where they fit the time left (Ijcnn1 KOLS/KRLS/ES are not run there: hours).

Every cell runs through the runner (``kernreg run <config> --device NAME --trials K
--resume``, in a worker process that warmed the device and the algorithm up on a small
subsample first; a cell over its cap is stopped with the worker, and the trials it finished
are kept), from a config derived from the repo's (``configs/`` is never edited; Ijcnn1 KOLS
and KRLS, which have no config, are derived from ``configs/ijcnn1_nkrls.yaml`` with the
algorithm swapped). The trials are read back with ``kernreg.results.store.RunStore``.

Each finished cell rewrites the results CSV at once (a cut-off run keeps its rows):
``gpu_check.csv`` in ``--out``, else in ``$OUT`` when ``OUT`` is set (the device tool returns
what is written there), else ``results/gpu_check.csv``; ``--csv`` overrides. Beside it
``gpu_check_env.json`` (the environment record) and, under ``--out`` or ``$OUT``,
``gpu_check.log`` (the workers' output).

``--smoke`` (the tests' run, on PyTorch's CPU device) runs every stage at kernreg's smoke size
(400 rows, m ≤ 40, one trial) with the jobs in this process instead of a worker process (no
worker to start, so no time cap per cell): seconds.

    python reproduce/bench/gpu_check.py                         # on a GPU machine (make gpu-check)
    python reproduce/bench/gpu_check.py \\
        --device torch --quick  # dry run here: tiny subsets, seconds
    python reproduce/bench/gpu_check.py --device torch --smoke --cells adult_nytro \\
        --work /tmp/gpu_check --out /tmp/gpu_check_out
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs"
CARRY = REPO / "gpu_carry"
#: The packages kernreg imports that the GPU image lacks (travel as wheels in gpu_carry/).
CARRIED_MODULES = ("pooch", "rdata", "jsonschema", "array_api_compat")
#: The mirror files the cells read (paths inside the mirror).
MIRROR_FILES = ("libsvm/a9a", "libsvm/a9a.t", "ijcnn1/ijcnn1.trn.bz2", "ijcnn1/ijcnn1.tst.bz2",
                "covtype-derived/covertype.rda")
#: The wheels of the carried modules and what they need beyond the GPU image's packages
#: (each wheel's Requires-Dist checked by ``--pack``), at the versions installed here.
CARRIED_WHEELS = ("pooch", "platformdirs", "rdata", "jsonschema", "jsonschema-specifications",
                  "referencing", "rpds-py", "array-api-compat")
#: What those wheels require that the GPU image has (/work/.library/device/KINDS.md).
IMAGE_HAS = ("attrs", "packaging", "requests", "numpy", "xarray", "pandas",
             "typing-extensions")
#: The device tool's limit on what travels (the repo's files and the carry folder).
TRAVEL_LIMIT = 64 * 2**20
TABLE2_TRIALS = 5
LOGSPACE = {"logspace": [1e-15, 1, 100]}

COLUMNS = (
    "cell", "dataset", "algorithm", "device", "device_kind", "status", "trials",
    "table2_trials", "fewer_trials", "median_s", "min_s", "max_s", "trial_seconds",
    "test_rmse", "test_error", "param_name", "selected", "paper_s", "repo_2core_s",
    "max_rel_diff", "selected_numpy", "gemm_gflops_f64", "gemm_gflops_f32", "stream_gbs",
    "blas_threads", "gpu_peak_gb", "peak_rss_gb", "strategy", "kernel_path", "cap_s",
    "wall_s", "config", "host", "started", "note",
)


@dataclass(frozen=True)
class Cell:
    """One Table 2 cell: an algorithm (``label``) of a repo config.

    ``derive`` replaces the config's algorithm entry (a cell with no config of its own),
    ``budget`` overrides budget keys; ``gpu_cap``/``cpu_cap`` are the seconds one call may
    take on each device (``cpu_cap`` None: not run on the CPU); ``trials`` how many trials
    the check aims for (Table 2 has 5).
    """

    name: str
    config: str
    label: str
    gpu_cap: float
    cpu_cap: float | None
    trials: int = TABLE2_TRIALS
    derive: dict[str, Any] | None = None
    budget: dict[str, Any] = field(default_factory=dict)
    #: Why the cell is not run on the CPU (``cpu_cap`` None).
    cpu_note: str = ""


NO_CPU_KERNEL = ("not run on the CPU in this check: the 39992² kernel's eigendecomposition "
                 "takes hours there (configs/table2.yaml)")

#: Cheapest first (on a GPU, as far as can be told without one).
CELLS = (
    Cell("adult_nytro", "adult_all.yaml", "nytro", 60, 60),
    Cell("adult_nkrls", "adult_all.yaml", "nkrls", 60, 60),
    Cell("ijcnn1_nytro", "ijcnn1_nytro.yaml", "nytro", 60, 90),
    Cell("ijcnn1_nkrls", "ijcnn1_nkrls.yaml", "nkrls", 60, 90),
    Cell("adult_es", "adult_all.yaml", "es", 60, 90),
    Cell("covtype_nytro", "covtype_nytro.yaml", "nytro", 90, 150),
    Cell("adult_kols", "adult_all.yaml", "kols", 90, 120),
    Cell("covtype_nkrls", "covtype_nkrls.yaml", "nkrls", 120, 240),
    Cell("adult_krls", "adult_all.yaml", "krls", 120, 240),
    # the n × n kernel of 39992 rows: no config in the repo (Table 2 marks them not run)
    Cell("ijcnn1_kols", "ijcnn1_nkrls.yaml", "kols", 150, None, trials=1,
         derive={"name": "kols"}, budget={"memory_gb": 100}, cpu_note=NO_CPU_KERNEL),
    Cell("ijcnn1_krls", "ijcnn1_nkrls.yaml", "krls", 150, None, trials=1,
         derive={"name": "krls", "lambdas": LOGSPACE}, budget={"memory_gb": 100},
         cpu_note=NO_CPU_KERNEL),
    # in Table 2 (configs/ijcnn1_es.yaml), not among the GPU targets: last
    Cell("ijcnn1_es", "ijcnn1_es.yaml", "es", 90, None, budget={"memory_gb": 100},
         cpu_note="not run on the CPU in this check: 220 s a trial on the repo's 2-core "
                  "host (results/table2_trials.csv); the GPU's budget comes first"),
)
#: A cell whose further trials take at most this many seconds gets them right after its
#: first (the expensive cells then get their first trial before the cheap ones' medians).
INLINE_EXTRA_S = 20.0
CELL_NAMES = tuple(c.name for c in CELLS)
#: Quick mode (a dry run): rows and centers of the subsets, trials aimed for, the cap per cell.
QUICK = {"n_train": 2000, "n_test": 500, "m": 150, "trials": 2, "cap": 90}
#: Smoke mode (``--smoke``): kernreg's smoke size (kernreg.config.smoke), one trial.
SMOKE = {"n_train": 400, "n_test": 200, "m": 40, "trials": 1, "cap": 90}
#: The equality cell: rows of Adult and the centers of NYTRO and NKRLS (quick, smoke: smaller).
EQUALITY = {"n_train": 4000, "n_test": 1000, "m": 300}
EQUALITY_QUICK = {"n_train": 1500, "n_test": 500, "m": 100}
EQUALITY_SMOKE = {"n_train": 400, "n_test": 200, "m": 40}
#: The warm-up run before a cell's first (smoke: smaller than the smoke cell).
WARM = {"n_train": 1200, "n_test": 300, "m": 100}
WARM_SMOKE = {"n_train": 200, "n_test": 100, "m": 20}


# ------------------------------------------------------------------------------ set-up
def setup_threads(threads: int) -> None:
    """Every thread pool of this process and its workers set to ``threads`` (before numpy
    is imported; after :func:`repo_importable`, which makes the layer importable)."""
    from reproduce.bench.threads import set_thread_variables

    set_thread_variables(threads)


def repo_importable() -> None:
    """This checkout's ``kernreg`` first on the path, here and in the workers (the GPU
    machine has it uninstalled: PYTHONPATH is how it imports there)."""
    sys.path.insert(0, str(REPO))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)


def carried_imports(carry: Path, site: Path) -> str:
    """Make the carried wheels importable when a module kernreg needs is missing: install
    them (no index, no dependencies) into ``site`` and put it on the path, here and in the
    workers. Returns what was done, for the record."""
    import importlib.util

    missing = [m for m in CARRIED_MODULES if importlib.util.find_spec(m) is None]
    if not missing:
        return "all present"
    wheels = sorted((carry / "wheels").glob("*.whl"))
    if not wheels:
        raise SystemExit(f"missing modules {missing} and no wheels in {carry}/wheels "
                         "(make gpu-check-pack)")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps",
                    "--no-compile", "--no-cache-dir", "--upgrade", "--target", str(site),
                    *map(str, wheels)], check=True)
    sys.path.insert(0, str(site))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return f"installed {len(wheels)} wheels into {site} for {', '.join(missing)}"


def setup_data_env(mirror: str | None, cache: Path) -> str:
    """Offline data: ``--mirror``, else the carried mirror, else ``$KERNREG_MIRROR``;
    ``$KERNREG_CACHE``, else a cache in the work folder. Returns the mirror used."""
    found = mirror or (str(CARRY / "datasets") if (CARRY / "datasets").is_dir() else None) \
        or os.environ.get("KERNREG_MIRROR") or str(REPO.parent / "shared" / "datasets")
    missing = [f for f in MIRROR_FILES if not (Path(found) / f).is_file()]
    if missing:
        print(f"warning: mirror {found} lacks {', '.join(missing)}", flush=True)
    os.environ["KERNREG_MIRROR"] = str(Path(found).resolve())
    os.environ["KERNREG_CACHE"] = os.environ.get("KERNREG_CACHE") or str(cache)
    os.environ["KERNREG_OFFLINE"] = "1"
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    return os.environ["KERNREG_MIRROR"]


def output_paths(csv: str | None, out: str | None = None) -> tuple[Path, Path | None]:
    """The results CSV and the log's folder (``out``, else ``$OUT`` when set, else none: the
    work folder)."""
    out = out or os.environ.get("OUT")
    if csv:
        return Path(csv), Path(out) if out else None
    if out:
        return Path(out) / "gpu_check.csv", Path(out)
    return REPO / "results" / "gpu_check.csv", None


# ---------------------------------------------------------------------------- pack
def pack(carry: Path, mirror: str | None) -> None:
    """Fill ``carry`` (``make gpu-check-pack``): the wheels of :data:`CARRIED_WHEELS` for
    CPython 3.12 on manylinux x86-64 at the versions installed here, and the mirror files of
    :data:`MIRROR_FILES` laid out as the mirror; ``/gpu_carry/`` put in .git/info/exclude;
    the sizes that will travel printed."""
    import re
    import zipfile
    from importlib.metadata import version

    exclude = REPO / ".git" / "info" / "exclude"
    if (REPO / ".git").is_dir():
        exclude.parent.mkdir(exist_ok=True)
        lines = exclude.read_text().splitlines() if exclude.is_file() else []
        if f"/{carry.name}/" not in lines:
            exclude.write_text("\n".join([*lines, f"/{carry.name}/"]) + "\n")
    wheels = carry / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wanted = {name: version(name) for name in CARRIED_WHEELS}
    for old in wheels.glob("*.whl"):  # one version of each: two stop the whole install
        name, ver = old.name.split("-")[:2]
        if wanted.get(name.replace("_", "-").lower()) != ver:
            old.unlink()
    platforms = [arg for tag in ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64",
                                 "manylinux_2_17_x86_64", "manylinux2014_x86_64",
                                 "manylinux1_x86_64") for arg in ("--platform", tag)]
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                    "--only-binary=:all:", "--python-version", "3.12", "--implementation",
                    "cp", *platforms, "-d", str(wheels),
                    *(f"{n}=={v}" for n, v in wanted.items())], check=True)
    carried = {n.lower() for n in CARRIED_WHEELS}
    for wheel in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(wheel) as z:
            meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
            text = z.read(meta).decode()
        for req in re.findall(r"^Requires-Dist: (.+)$", text, re.MULTILINE):
            if "extra ==" in req:
                continue
            name = re.split(r"[\s<>=!~;\[(]", req, maxsplit=1)[0].replace("_", "-").lower()
            if name not in carried and name not in IMAGE_HAS:
                print(f"warning: {wheel.name} requires {req}, neither carried nor known on "
                      "the GPU image")
    source = Path(mirror or os.environ.get("KERNREG_MIRROR")
                  or REPO.parent / "shared" / "datasets")
    for rel in MIRROR_FILES:
        src, dst = source / rel, carry / "datasets" / rel
        if not src.is_file():
            raise SystemExit(f"{src} not found: point --mirror or KERNREG_MIRROR at the mirror")
        if not dst.is_file() or dst.stat().st_size != src.stat().st_size:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
    carry_bytes = sum(p.stat().st_size for p in carry.rglob("*") if p.is_file())
    travels = travelling_bytes()
    print(f"{carry}: {len(list(wheels.glob('*.whl')))} wheels, {len(MIRROR_FILES)} mirror "
          f"files, {carry_bytes / 2**20:.1f} MiB; with the repo's other travelling files "
          f"({travels / 2**20:.1f} MiB) {(carry_bytes + travels) / 2**20:.1f} MiB of the "
          f"{TRAVEL_LIMIT // 2**20} MiB limit")
    if carry_bytes + travels > TRAVEL_LIMIT:
        raise SystemExit("too large to travel")


def travelling_bytes() -> int:
    """Bytes of the files that travel without ``carry``: tracked, and untracked but not
    ignored (0 outside a git checkout)."""
    try:
        out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached",
                              "--others", "--exclude-standard"], capture_output=True,
                             check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    paths = (REPO / p for p in out.decode().split("\0") if p)
    return sum(p.stat().st_size for p in paths if p.is_file())


# -------------------------------------------------------------------------- configs
def read_yaml(path: Path) -> dict[str, Any]:
    import yaml

    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def write_yaml(path: Path, config: dict[str, Any]) -> Path:
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def small(entry: dict[str, Any], m: int) -> dict[str, Any]:
    entry = dict(entry)
    if "m" in entry:
        entry["m"] = min(int(entry["m"]), m)
    return entry


def derive_config(cell: Cell, threads: int, subset: dict[str, Any] | None, *,
                  name: str | None = None, rows: tuple[int, int] | None = None,
                  m: int | None = None) -> dict[str, Any]:
    """The cell's config: the repo config with the cell's algorithm alone (or ``derive``),
    BLAS threads set to ``threads``; in quick or smoke mode (``subset``: :data:`QUICK`,
    :data:`SMOKE`) or with ``rows`` on a subsample with at most ``m`` centers."""
    base = read_yaml(CONFIGS / cell.config)
    if cell.derive is not None:
        entry = dict(cell.derive)
    else:
        entries = [a for a in base["algorithms"] if a.get("label", a["name"]) == cell.label]
        if len(entries) != 1:
            raise SystemExit(f"{cell.config} has no single algorithm labelled {cell.label}")
        entry = dict(entries[0])
    config = {k: v for k, v in base.items() if k not in ("name", "algorithms", "device")}
    config["name"] = name or f"gpu_check_{cell.name}"
    config["dataset"] = dict(base["dataset"])
    config["budget"] = {**base.get("budget", {}), **cell.budget, "blas_threads": threads}
    if subset is not None and rows is None:
        rows, m = (subset["n_train"], subset["n_test"]), subset["m"]
    if rows is not None:
        config["dataset"].update(n_train=rows[0], n_test=rows[1])
        entry = small(entry, m or QUICK["m"])
    config["algorithms"] = [entry]
    return config


def equality_config(threads: int, quick: bool, smoke: bool = False) -> dict[str, Any]:
    """NYTRO and NKRLS of Adult's Table 2 cells on a few thousand rows (float64)."""
    size = EQUALITY_SMOKE if smoke else EQUALITY_QUICK if quick else EQUALITY
    base = read_yaml(CONFIGS / "adult_all.yaml")
    entries = [small(a, size["m"]) for a in base["algorithms"] if a["name"] in ("nytro", "nkrls")]
    return {"name": "gpu_check_equality",
            "dataset": {**base["dataset"], "n_train": size["n_train"],
                        "n_test": size["n_test"]},
            "algorithms": entries, "protocol": base["protocol"],
            "budget": {**base.get("budget", {}), "blas_threads": threads}}


# --------------------------------------------------------------------------- worker
class Worker:
    """A worker process on one device: it warms the device up, then runs jobs (one JSON
    line each way) until stopped; a job over its time is stopped with the worker."""

    def __init__(self, device: str, threads: int, log: Path) -> None:
        self.device, self.threads, self.log = device, threads, log
        self.proc: subprocess.Popen | None = None
        self.hello: dict[str, Any] = {}
        self._buffer = b""

    def start(self, timeout: float) -> dict[str, Any]:
        # its own process group, to be stopped with what it started, but the same session:
        # whatever ends this check's session (a tool's timeout) ends the worker too
        group = {"process_group": 0} if sys.version_info >= (3, 11) else \
            {"preexec_fn": os.setpgrp}
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--worker",
                 "--device", self.device, "--threads", str(self.threads)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, cwd=REPO,
                **group)
        self._buffer = b""
        reply = self._read(timeout)
        if reply is None or not reply.get("ok"):
            self.stop()
            raise RuntimeError(f"worker on {self.device} did not start: "
                               f"{(reply or {}).get('error', 'no answer in time')}")
        self.hello = reply
        return reply

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        """End the worker (its own process group, which it leads)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        self.proc = None

    def close(self) -> None:
        if self.alive:
            with contextlib.suppress(OSError):
                self.proc.stdin.write(b'{"kind": "exit"}\n')
                self.proc.stdin.flush()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.stop()

    def call(self, job: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """The job's reply, or None when it ran past ``timeout`` (the worker is stopped) or
        the worker died (``{"ok": False, "error": ...}``)."""
        try:
            self.proc.stdin.write((json.dumps(job) + "\n").encode())
            self.proc.stdin.flush()
        except (OSError, AttributeError):
            return {"ok": False, "error": "worker gone"}
        reply = self._read(timeout)
        if reply is None:
            if self.alive:
                self.stop()
                return None
            code = self.proc.returncode if self.proc else None
            self.stop()
            return {"ok": False, "error": f"worker died (exit status {code}); see the log"}
        return reply

    def _read(self, timeout: float) -> dict[str, Any] | None:
        end = time.monotonic() + max(timeout, 0.0)
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = end - time.monotonic()
                if left <= 0 or not sel.select(left):
                    return None
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)


def worker_main(device_name: str, threads: int) -> None:
    """The worker's loop: the protocol on the original stdout, everything else to stderr."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    sys.stdout.flush()
    os.dup2(2, 1)

    def say(message: dict[str, Any]) -> None:
        proto.write(json.dumps(message, default=float) + "\n")
        proto.flush()

    try:
        state = WorkerState(device_name, threads)
        say({"ok": True, **state.hello()})
    except Exception as exc:  # the parent records why the device could not be used
        say({"ok": False, "error": f"{type(exc).__name__}: {exc}"})
        return
    for line in sys.stdin:
        job = json.loads(line)
        if job["kind"] == "exit":
            return
        say(answer(state, job))


def answer(state: WorkerState, job: dict[str, Any]) -> dict[str, Any]:
    """The reply to ``job``: what it returned, or why it failed, and its seconds."""
    start = time.perf_counter()
    try:
        reply = {"ok": True, **state.do(job)}
    except BaseException as exc:  # a job's failure is a row of the CSV, not the end
        if isinstance(exc, KeyboardInterrupt):
            raise
        reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}".strip()}
    reply["job_s"] = time.perf_counter() - start
    state.after_job(reply)
    return reply


class InlineWorker(Worker):
    """A :class:`Worker` whose jobs run in this process (``--smoke``): the same device
    warm-up, jobs and replies (through JSON, as a worker's), with no process to start and no
    time cap (a job runs to its end). Stopping it gives PyTorch its threads back."""

    def __init__(self, device: str, threads: int, log: Path) -> None:
        super().__init__(device, threads, log)
        self.state: WorkerState | None = None
        self._torch_threads: int | None = None

    def start(self, timeout: float) -> dict[str, Any]:
        if device_kind(self.device) != "cpu":  # a torch device sets torch's threads
            import torch

            self._torch_threads = torch.get_num_threads()
        try:
            self.state = WorkerState(self.device, self.threads)
            # the caller's heap: a full collection costs seconds in a test process and frees
            # little that reference counting has not
            self.state.collect = False
            self.hello = {"ok": True, **self.state.hello()}
        except Exception as exc:
            self.stop()
            raise RuntimeError(f"worker on {self.device} did not start: "
                               f"{type(exc).__name__}: {exc}") from exc
        return self.hello

    @property
    def alive(self) -> bool:
        return self.state is not None

    def stop(self) -> None:
        self.state = None
        if self._torch_threads is not None:
            import torch

            torch.set_num_threads(self._torch_threads)
            self._torch_threads = None

    def close(self) -> None:
        self.stop()

    def call(self, job: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        if self.state is None:
            return {"ok": False, "error": "worker gone"}
        return json.loads(json.dumps(answer(self.state, job), default=float))


class WorkerState:
    """What a worker holds: its device (warmed up) and the algorithms it warmed up."""

    def __init__(self, device_name: str, threads: int) -> None:
        import numpy as np  # noqa: F401  (after the thread variables)

        from kernreg.backend import get_device

        self.threads = threads
        self.device = get_device(device_name)
        self.warm: set[tuple[str, str]] = set()
        #: Collect garbage after each job (a worker's own heap; not a shared process's).
        self.collect = True
        if not self.device.is_numpy:
            torch = self.device.torch
            torch.set_num_threads(threads)
            a = torch.randn(256, 256, dtype=torch.float64, device=self.device.torch_device)
            spd = a @ a.T + 256 * torch.eye(256, dtype=a.dtype, device=a.device)
            torch.linalg.cholesky(spd)
            torch.linalg.eigh(spd)
            self.device.synchronize()

    def hello(self) -> dict[str, Any]:
        from kernreg.cli.run import run

        info = {"describe": self.device.describe(), "pid": os.getpid(),
                "cli_device": any("--device" in p.opts for p in run.params)}
        if not self.device.is_numpy:
            torch = self.device.torch
            info.update(torch=torch.__version__, torch_threads=torch.get_num_threads(),
                        torch_cuda=torch.version.cuda)
            if self.device.is_gpu:
                free, total = torch.cuda.mem_get_info(self.device.torch_device)
                props = torch.cuda.get_device_properties(self.device.torch_device)
                info.update(gpu_name=props.name, gpu_free_gb=free / 2**30,
                            gpu_total_gb=total / 2**30, gpu_sms=props.multi_processor_count,
                            gpu_capability=f"{props.major}.{props.minor}")
        return info

    def after_job(self, reply: dict[str, Any]) -> None:
        import gc

        if self.collect:
            gc.collect()
        if self.device.is_gpu:
            torch = self.device.torch
            reply["gpu_peak_gb"] = torch.cuda.max_memory_allocated(
                self.device.torch_device) / 2**30
            torch.cuda.empty_cache()  # the next cell plans within the free memory
            torch.cuda.reset_peak_memory_stats(self.device.torch_device)

    def do(self, job: dict[str, Any]) -> dict[str, Any]:
        kind = job["kind"]
        if kind == "rates":
            return self.rates(job.get("quick", False), job.get("smoke", False))
        if kind == "prepare":
            return self.prepare(job["datasets"])
        if kind == "equality":
            return {"rows": self.equality(job["config"])}
        if kind == "cell":
            warm_s = 0.0
            key = (job["algorithm"], job["dtype"])
            if job.get("warm_config") and key not in self.warm:
                start = time.perf_counter()
                self.run_config(job["warm_config"], job["warm_out"], 1, force=True)
                warm_s = time.perf_counter() - start
                self.warm.add(key)
            self.run_config(job["config"], job["out"], job["trials"])
            return {"warm_s": warm_s}
        raise ValueError(f"unknown job {kind!r}")

    def run_config(self, config: str, out: str, trials: int, force: bool = False) -> None:
        """``kernreg run CONFIG --device NAME --trials K --out OUT --resume`` in this
        process (the device stays warm); a refusal or failure raises with its message."""
        from kernreg.cli import main

        args = ["run", config, "--out", out, "--trials", str(trials), "--no-progress",
                "--device", self.device.name, "--force" if force else "--resume"]
        captured = io.StringIO()
        with contextlib.redirect_stderr(Tee(sys.stderr, captured)):
            try:
                main(args)
            except SystemExit as exc:
                if exc.code not in (0, None):
                    lines = [s for s in captured.getvalue().splitlines() if s.strip()]
                    raise RuntimeError(" | ".join(lines[-3:]) or f"exit {exc.code}") from None

    def prepare(self, datasets: list[list[str]]) -> dict[str, Any]:
        from kernreg.datasets import load_dataset

        seconds = {}
        for name, dtype in datasets:
            start = time.perf_counter()
            load_dataset(name, dtype=dtype)
            seconds[f"{name}/{dtype}"] = round(time.perf_counter() - start, 2)
        return {"seconds": seconds}

    def rates(self, quick: bool, smoke: bool = False) -> dict[str, Any]:
        if self.device.is_numpy:
            from reproduce.bench.floor import HostRates

            n = 128 if smoke else 512 if quick else (2048 if self.threads >= 8 else 1024)
            mb = 4 if smoke else 64 if quick else 256
            r64 = HostRates.measure("float64", n=n, stream_mb=mb, repeats=2)
            r32 = HostRates.measure("float32", n=n, stream_mb=mb, repeats=2)
            return {"gemm_gflops_f64": r64.gemm / 1e9, "gemm_gflops_f32": r32.gemm / 1e9,
                    "stream_gbs": max(r64.stream, r32.stream) / 1e9}
        return device_rates(self.device, quick, smoke)

    def equality(self, config: str) -> list[dict[str, Any]]:
        return equality_rows(config, self.device)


class Tee(io.TextIOBase):
    def __init__(self, *streams: Any) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for s in self.streams:
            s.write(text)
        return len(text)

    def flush(self) -> None:
        for s in self.streams:
            s.flush()


def device_rates(device: Any, quick: bool = False, smoke: bool = False) -> dict[str, Any]:
    """GEMM (float64, float32) and one streaming read (a GEMV over a large matrix) on a torch
    device, each the best of a few after a warm-up: about a second (smoke: milliseconds)."""
    torch = device.torch
    where = device.torch_device
    gpu = device.is_gpu
    out: dict[str, Any] = {}

    def best(fn: Any, repeats: int) -> float:
        fn()
        device.synchronize()
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            device.synchronize()
            times.append(time.perf_counter() - start)
        return min(times)

    n = 8192 if gpu else (128 if smoke else 512 if quick else 1024)
    for name, dtype in (("f64", torch.float64), ("f32", torch.float32)):
        a = torch.randn(n, n, dtype=dtype, device=where)
        b = torch.randn(n, n, dtype=dtype, device=where)
        out[f"gemm_gflops_{name}"] = 2.0 * n**3 / best(lambda a=a, b=b: a @ b, 3) / 1e9
        del a, b
    rows = (2**30 if gpu else 2**22 if smoke else 2**26 if quick else 2**28) // (4 * 4096)
    big = torch.randn(rows, 4096, dtype=torch.float32, device=where)
    v = torch.randn(4096, dtype=torch.float32, device=where)
    out["stream_gbs"] = big.numel() * 4 / best(lambda: big @ v, 5) / 1e9
    return out


def rel_diff(a: Any, b: Any) -> float:
    """Largest elementwise |a − b| / |b| (inf where the shapes differ)."""
    import numpy as np

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    scale = np.maximum(np.abs(b), np.finfo(np.float64).tiny)
    return float(np.max(np.abs(a - b) / scale))


def equality_rows(config: str, device: Any) -> list[dict[str, Any]]:
    """Each algorithm of ``config`` fitted on trial 0's split with numpy and on ``device``:
    the validation paths' largest relative difference, λ*/t* of both, the test RMSEs."""
    import numpy as np

    from kernreg.config import load_experiment, make_estimator, takes_device
    from kernreg.experiment import prepare_data, trial_split

    exp = load_experiment(config)
    data = prepare_data(exp)
    seed, (X_fit, y_fit, X_val, y_val) = trial_split(exp, data, 0)
    rows = []
    for algo in exp.algorithms:
        row = {"algorithm": algo.name, "label": algo.label, "n_fit": len(y_fit),
               "m": algo.params.get("m")}
        if not takes_device(algo.name):
            rows.append({**row, "status": f"not run: {algo.name} takes no device"})
            continue
        fitted, seconds = [], []
        for dev in ("cpu", device):
            est = make_estimator(algo, exp, random_state=seed, device=device_of(dev))
            start = time.perf_counter()
            est.fit(X_fit, y_fit, X_val, y_val)
            seconds.append(time.perf_counter() - start)
            fitted.append(est)
        host, dev = (est.selection() for est in fitted)
        pred = [est.predict(data.X_test) for est in fitted]
        rmse = [float(np.sqrt(np.mean((p - data.y_test) ** 2))) for p in pred]
        diff = rel_diff(dev.val_rmse, host.val_rmse)
        where = worst_point(dev.val_rmse, host.val_rmse, host.path_values)
        same = host.selected == dev.selected or (np.isnan(host.selected)
                                                 and np.isnan(dev.selected))
        rows.append({**row, "max_rel_diff": diff, "selected": float(dev.selected),
                     "selected_numpy": float(host.selected), "param_name": host.param_name,
                     "same_selected": bool(same), "path_points": int(host.val_rmse.size),
                     "test_rmse": rmse[1], "test_rmse_numpy": rmse[0],
                     "pred_rel_diff": rel_diff(pred[1], pred[0]), "worst_at": where,
                     "seconds": seconds[1], "seconds_numpy": seconds[0]})
    return rows


def worst_point(a: Any, b: Any, values: Any) -> float | None:
    """The path value (λ or t) where ``a`` and ``b`` differ most, relatively."""
    import numpy as np

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if a.shape != b.shape or a.size == 0 or values.shape[:1] != a.shape[:1]:
        return None
    rel = np.abs(a - b) / np.maximum(np.abs(b), np.finfo(np.float64).tiny)
    return float(values[int(np.argmax(rel.reshape(len(values), -1).max(axis=1)))])


def device_of(name: Any) -> Any:
    from kernreg.backend import get_device

    return get_device(name)


# --------------------------------------------------------------------------- parent
class Results:
    """The CSV: one row per (cell, device kind), rewritten atomically after each change."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[tuple[str, str], dict[str, Any]] = {}

    def put(self, row: dict[str, Any]) -> None:
        self.rows[(row["cell"], row["device_kind"])] = row
        self.write()

    def write(self) -> None:
        import csv

        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
            writer.writeheader()
            for row in self.rows.values():
                writer.writerow({k: fmt(row.get(k)) for k in COLUMNS})
        os.replace(tmp, self.path)


def fmt(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return value


def paper_seconds() -> dict[tuple[str, str], float]:
    """The NYTRO paper's Table 2 times (``kernreg/paper/nytro_table2.csv``)."""
    import pandas as pd

    from kernreg.results.tables import paper_file

    with paper_file("nytro_table2.csv").open() as f:
        table = pd.read_csv(f)
    table = table[table["quantity"] == "time"]
    return {(r.dataset, r.algorithm): float(r.mean) for r in table.itertuples()}


def repo_seconds() -> dict[tuple[str, str], float]:
    """The repo's Table 2 times on its 2-core host: the median trial of each (experiment,
    label) of ``results/table2_trials.csv``."""
    import pandas as pd

    path = REPO / "results" / "table2_trials.csv"
    if not path.is_file():
        return {}
    table = pd.read_csv(path)
    medians = table.groupby(["experiment", "label"])["model_selection_time"].median()
    return {key: float(v) for key, v in medians.items()}


class Check:
    """The staged run (parent side)."""

    def __init__(self, args: argparse.Namespace, work: Path, csv: Path, log: Path,
                 t0: float) -> None:
        self.args, self.work, self.log = args, work, log
        self.t0 = t0  # the script's start: the budget counts the wheels' install too
        self.deadline = self.t0 + args.budget_s
        self.results = Results(csv)
        self.cells = [c for c in CELLS if c.name in args.cells]
        #: The cells' subsets (None: the configs' rows) and the warm-up's.
        self.subset = SMOKE if args.smoke else QUICK if args.quick else None
        self.warm = WARM_SMOKE if args.smoke else WARM
        self.host = socket.gethostname()
        self.paper = paper_seconds()
        self.repo = repo_seconds()
        self.rates: dict[str, dict[str, Any]] = {}
        self.done: dict[tuple[str, str], list[Any]] = {}  # (cell, kind) -> trial records
        self.wall: dict[tuple[str, str], float] = {}  # (cell, kind) -> seconds of its calls
        self.warm_s: dict[tuple[str, str], float] = {}  # (cell, kind) -> its warm-up
        self.workers: dict[str, Worker] = {}
        self.describe: dict[str, str] = {}
        self.env: dict[str, Any] = {}
        self.start_error = ""

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def say(self, text: str) -> None:
        print(f"[{time.monotonic() - self.t0:6.1f} s] {text}", flush=True)

    # -- workers
    def worker(self, device: str) -> Worker | None:
        w = self.workers.get(device)
        if w is not None and w.alive:
            return w
        w = (InlineWorker if self.args.smoke else Worker)(device, self.args.threads, self.log)
        try:
            hello = w.start(timeout=min(120.0, max(self.left(), 1.0)))
        except RuntimeError as exc:
            self.start_error = str(exc)
            self.say(self.start_error)
            return None
        self.workers[device] = w
        self.describe[device] = hello["describe"]
        return w

    def close_worker(self, device: str) -> None:
        w = self.workers.pop(device, None)
        if w is not None:
            w.close()

    # -- stages
    def environment(self, carry_note: str, mirror: str) -> None:
        import numpy as np  # noqa: F401  (after the thread variables)
        import psutil
        from threadpoolctl import threadpool_info

        from reproduce.bench.threads import THREAD_VARIABLES

        env = {
            "started": time.strftime("%Y-%m-%d %H:%M:%S %z"),
            "host": self.host, "python": platform.python_version(),
            "cpu_cores_logical": os.cpu_count(),
            "cpu_cores_physical": psutil.cpu_count(logical=False),
            "cpu_model": cpu_model(), "host_memory_gb": psutil.virtual_memory().total / 2**30,
            "threads_set": self.args.threads,
            "thread_variables": {k: os.environ.get(k) for k in THREAD_VARIABLES},
            "blas": [f"{lib['internal_api']} {lib.get('version')} ×{lib['num_threads']}"
                     for lib in threadpool_info()],
            "carried": carry_note, "mirror": mirror, "cache": os.environ["KERNREG_CACHE"],
            "budget_s": self.args.budget_s, "quick": self.args.quick, "smoke": self.args.smoke,
            "git": git_head(), "nvidia_smi": nvidia_smi(),
            "versions": versions(),
        }
        self.env = env
        self.write_env()
        self.say(f"host {self.host}: {env['cpu_cores_logical']} cores ({env['cpu_model']}), "
                 f"threads set to {self.args.threads}; {carry_note}")

    def write_env(self) -> None:
        path = self.results.path.with_name("gpu_check_env.json")
        path.write_text(json.dumps(self.env, indent=1, default=str) + "\n", encoding="utf-8")

    def device_stage(self, device: str) -> bool:
        """Start the device's worker, record it and its rates; False if it cannot run."""
        kind = device_kind(device)
        w = self.worker(device)
        if w is None:
            self.results.put({"cell": "environment", "device_kind": kind, "device": device,
                              "status": "device unavailable", "host": self.host,
                              "note": self.start_error or "see the log"})
            return False
        hello = w.hello
        self.env.setdefault("devices", {})[device] = hello
        reply = w.call({"kind": "rates", "quick": self.args.quick, "smoke": self.args.smoke},
                       timeout=min(60.0, self.left()))
        rates = {k: v for k, v in (reply or {}).items() if k.startswith(("gemm", "stream"))}
        self.rates[kind] = rates
        self.env["devices"][device]["rates"] = rates
        self.write_env()
        if not hello.get("cli_device"):
            self.say("this kernreg's `kernreg run` has no --device option")
            return False
        note = {k: hello[k] for k in ("torch", "torch_cuda", "torch_threads", "gpu_free_gb",
                                       "gpu_total_gb", "gpu_sms", "gpu_capability")
                if k in hello}
        self.results.put({"cell": "environment", "device_kind": kind,
                          "device": hello["describe"], "status": "ok", **rates,
                          "blas_threads": self.args.threads, "host": self.host,
                          "started": self.env["started"],
                          "note": json.dumps(note, default=str)})
        self.say(f"{device}: {hello['describe']}; rates " + ", ".join(
            f"{k} {v:.0f}" for k, v in rates.items()))
        return True

    def prepare(self, device: str) -> None:
        needed = sorted({(read_yaml(CONFIGS / c.config)["dataset"]["name"],
                          read_yaml(CONFIGS / c.config)["dataset"].get("dtype", "float64"))
                         for c in self.cells} | {("adult", "float64")})
        w = self.worker(device)
        if w is None:
            return
        reply = w.call({"kind": "prepare", "datasets": [list(n) for n in needed]},
                       timeout=min(180.0, self.left()))
        self.env["data_prepare"] = reply
        self.write_env()
        self.say(f"data ready: {(reply or {}).get('seconds', reply)}")

    def equality(self, device: str) -> bool:
        w = self.worker(device)
        if w is None:
            return False
        path = write_yaml(self.work / "configs" / "equality.yaml",
                          equality_config(self.args.threads, self.args.quick, self.args.smoke))
        reply = w.call({"kind": "equality", "config": str(path)},
                       timeout=min(120.0, self.left()))
        kind = device_kind(device)
        if reply is None or not reply.get("ok"):
            error = "time cap" if reply is None else reply.get("error")
            self.results.put({"cell": "equality", "device_kind": kind,
                              "device": self.describe.get(device, device),
                              "status": f"FAIL: {error}", "host": self.host})
            self.say(f"equality: {error}")
            return False
        ok = True
        for r in reply["rows"]:
            passed = "max_rel_diff" in r and r["same_selected"] and \
                r["max_rel_diff"] <= self.args.eq_tol
            ok &= passed or "max_rel_diff" not in r
            status = r.get("status") or ("pass" if passed else "FAIL")
            self.results.put({
                "cell": f"equality_{r['label']}", "dataset": "adult",
                "algorithm": r["algorithm"], "device": self.describe.get(device, device),
                "device_kind": kind, "status": status, "trials": 1,
                "test_rmse": r.get("test_rmse"), "param_name": r.get("param_name"),
                "selected": r.get("selected"), "selected_numpy": r.get("selected_numpy"),
                "max_rel_diff": r.get("max_rel_diff"), "median_s": r.get("seconds"),
                "host": self.host, "config": str(path.relative_to(self.work)),
                "note": (f"n_fit {r['n_fit']}, m {r['m']}, float64, trial 0's split; "
                         f"{r.get('path_points')} path points, largest difference at "
                         f"{r.get('param_name')} = {r.get('worst_at')}; numpy "
                         f"{r.get('seconds_numpy', float('nan')):.3f} s, test RMSE "
                         f"numpy {r.get('test_rmse_numpy', float('nan')):.6g}; predictions "
                         f"max rel diff {r.get('pred_rel_diff', float('nan')):.3g}; "
                         f"tolerance {self.args.eq_tol:g}")})
            self.say(f"equality {r['label']}: {status} (max rel diff "
                     f"{r.get('max_rel_diff', float('nan')):.3g}, selected "
                     f"{r.get('selected')} vs numpy {r.get('selected_numpy')})")
        return ok

    def run_cell(self, cell: Cell, device: str, trials: int, cap: float) -> None:
        """Run ``cell`` on ``device`` up to ``trials`` trials within ``cap`` seconds, then
        write its row from the trial files."""
        kind = device_kind(device)
        base = read_yaml(CONFIGS / cell.config)
        config = derive_config(cell, self.args.threads, self.subset)
        path = write_yaml(self.work / "configs" / f"{cell.name}.yaml", config)
        warm = derive_config(cell, self.args.threads, None, name=f"gpu_check_warm_{cell.name}",
                             rows=(self.warm["n_train"], self.warm["n_test"]),
                             m=self.warm["m"])
        warm_path = write_yaml(self.work / "configs" / f"warm_{cell.name}.yaml", warm)
        out = self.work / "runs" / kind
        algorithm = config["algorithms"][0]["name"]
        row = {"cell": cell.name, "dataset": base["dataset"]["name"], "algorithm": algorithm,
               "device_kind": kind, "table2_trials": TABLE2_TRIALS, "cap_s": cap,
               "config": str(path.relative_to(self.work)), "host": self.host,
               "paper_s": self.paper.get((base["dataset"]["name"], algorithm)),
               "repo_2core_s": self.repo.get((base["name"], cell.label)),
               "blas_threads": self.args.threads, **self.rates.get(kind, {})}
        w = self.worker(device)
        if w is None:
            self.results.put({**row, "device": device, "status": "device unavailable"})
            return
        row["device"] = self.describe[device]
        start = time.monotonic()
        reply = w.call({"kind": "cell", "config": str(path), "out": str(out),
                        "trials": trials, "algorithm": algorithm,
                        "dtype": config["dataset"].get("dtype", "float64"),
                        "warm_config": str(warm_path),
                        "warm_out": str(self.work / "warm" / kind)}, timeout=cap)
        key = (cell.name, kind)
        self.wall[key] = self.wall.get(key, 0.0) + time.monotonic() - start
        row["wall_s"] = self.wall[key]
        records = read_trials(out / config["name"],
                              config["algorithms"][0].get("label", algorithm))
        self.done[(cell.name, kind)] = records
        if reply is None:
            status = f"cut at the {cap:.0f} s cap"
        elif not reply.get("ok"):
            status = f"failed: {reply.get('error')}"
        else:
            status = "ok"
        row.update(summarize(records))
        if reply:
            row["gpu_peak_gb"] = reply.get("gpu_peak_gb")
            if reply.get("warm_s"):
                self.warm_s[key] = reply["warm_s"]
        if key in self.warm_s:
            row["note"] = (f"warm-up on {self.warm['n_train']} rows first, "
                           f"{self.warm_s[key]:.1f} s (not in the trials' times)")
        if reply is None and not records:
            row["note"] = f"no trial finished within {cap:.0f} s: more than that per trial"
        row["status"] = status
        row["fewer_trials"] = bool(row.get("trials", 0) < TABLE2_TRIALS)
        row["started"] = time.strftime("%H:%M:%S")
        self.results.put(row)
        median = row.get("median_s")
        self.say(f"{kind:>9} {cell.name:<14} {status}: {row.get('trials', 0)} trial(s), "
                 f"median {median if median is None else f'{median:.3f}'} s, test RMSE "
                 f"{row.get('test_rmse')}, {row.get('param_name')} {row.get('selected')} "
                 f"(paper {row.get('paper_s')} s)")

    def skip(self, cell: Cell, device: str, reason: str) -> None:
        base = read_yaml(CONFIGS / cell.config)
        kind = device_kind(device)
        if (cell.name, kind) in self.results.rows:
            return
        self.results.put({"cell": cell.name, "dataset": base["dataset"]["name"],
                          "algorithm": (cell.derive or {}).get("name", cell.label),
                          "device": self.describe.get(device, device), "device_kind": kind,
                          "status": f"not run: {reason}", "trials": 0,
                          "table2_trials": TABLE2_TRIALS, "host": self.host})

    def phase(self, device: str, end: float, extra_end: float, cpu: bool) -> None:
        """Pass 1, cheapest first until ``end``: one trial of each cell, and at once the
        others where they are cheap (:data:`INLINE_EXTRA_S`); then more trials of the rest
        while ``extra_end`` allows."""
        kind = device_kind(device)
        cells = [c for c in self.cells if not cpu or c.cpu_cap is not None]
        for cell in self.cells:
            if cpu and cell.cpu_cap is None:
                self.skip(cell, device, cell.cpu_note)
        for cell in cells:
            cap = self.subset["cap"] if self.subset else (cell.cpu_cap if cpu else cell.gpu_cap)
            cap = min(cap, end - time.monotonic(), self.left() - 5)
            if cap < 10:
                self.skip(cell, device, "the check's time budget was spent")
                continue
            self.run_cell(cell, device, 1, cap)
            self.more_trials(cell, device, min(end, extra_end), INLINE_EXTRA_S)
        for cell in sorted(cells, key=lambda c: self.per_trial(c, kind)):
            self.more_trials(cell, device, extra_end, float("inf"))

    def per_trial(self, cell: Cell, kind: str) -> float:
        records = self.done.get((cell.name, kind)) or []
        return statistics.median(r.model_selection_time for r in records) if records \
            else float("inf")

    def more_trials(self, cell: Cell, device: str, end: float, at_most: float) -> None:
        """Extend ``cell`` towards its target trials when the estimate (its median trial ×
        1.3 + the call's overhead per trial) fits before ``end`` and within ``at_most``."""
        kind = device_kind(device)
        target = self.subset["trials"] if self.subset else cell.trials
        done = len(self.done.get((cell.name, kind)) or [])
        if not done or done >= target:
            return
        each = self.per_trial(cell, kind) * 1.3 + 1.0
        room = min(end - time.monotonic(), self.left() - 5, at_most) - 6.0
        more = min(target - done, int(room // each))
        if more >= 1:
            self.run_cell(cell, device, done + more, cap=6.0 + 2.0 * each * more + 10)

    def summary(self) -> None:
        print("\ncell            device     status   trials  median s   paper s  test RMSE  "
              "selected")
        for (name, kind), r in self.results.rows.items():
            if name == "environment":
                continue
            print(f"{name:<15} {kind:<10} {str(r.get('status'))[:8]:<8} "
                  f"{r.get('trials', ''):>6} {num(r.get('median_s')):>9} "
                  f"{num(r.get('paper_s')):>9} {num(r.get('test_rmse')):>10} "
                  f"{num(r.get('selected'))}")
        print(f"\nCSV: {self.results.path}", flush=True)


def num(value: Any) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def device_kind(device: str) -> str:
    return "gpu" if device.startswith("cuda") else ("torch-cpu" if device == "torch" else "cpu")


def read_trials(run_dir: Path, label: str) -> list[Any]:
    """The finished trials of ``label`` in ``run_dir`` (none when there is no run)."""
    from kernreg.errors import KernregError
    from kernreg.results.store import RunStore

    if not (run_dir / "manifest.json").is_file():
        return []
    try:
        records = RunStore(run_dir).load_trials()
    except (KernregError, OSError, ValueError, KeyError) as exc:
        print(f"warning: reading {run_dir}: {exc}", flush=True)
        return []
    return sorted((r for r in records if r.label == label), key=lambda r: r.trial)


def summarize(records: list[Any]) -> dict[str, Any]:
    import numpy as np

    if not records:
        return {"trials": 0}
    times = [r.model_selection_time for r in records]
    mid = sorted(records, key=lambda r: r.model_selection_time)[(len(records) - 1) // 2]
    strategy = "/".join(s for s in (mid.info.get("strategy"),
                                    mid.info.get("validation_strategy")) if s)
    return {"trials": len(records), "median_s": statistics.median(times),
            "min_s": min(times), "max_s": max(times),
            "trial_seconds": " ".join(f"{t:.3f}" for t in times),
            "test_rmse": float(np.median([r.test_rmse for r in records])),
            "test_error": float(np.median([r.test_error for r in records])),
            "param_name": mid.param_name or "",
            "selected": float(np.median([r.selected for r in records])),
            "peak_rss_gb": max(r.peak_rss for r in records) / 2**30,
            # what the runner set (budget.blas_threads), as each trial recorded it
            "blas_threads": max((max(r.blas.values(), default=0) for r in records),
                                default=0) or None,
            "strategy": strategy, "kernel_path": mid.info.get("kernel_path", "")}


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def git_head() -> str:
    try:
        out = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "no git"
    head = out.stdout.strip() or "no git"
    return head + (" (modified)" if dirty.stdout.strip() else "")


def nvidia_smi() -> str:
    if shutil.which("nvidia-smi") is None:
        return "not found"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,"
                              "memory.used,clocks.sm,clocks.max.sm,temperature.gpu",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"failed: {exc}"
    return out.stdout.strip() or out.stderr.strip()


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in ("torch", "numpy", "scipy", "scikit-learn", "numba", "h5py", "pandas",
                 "array-api-compat", "cupy-cuda13x", "cupy-cuda12x"):
        with contextlib.suppress(PackageNotFoundError):
            found[name] = version(name)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda",
                        help="the accelerator: cuda, cuda:N, or torch (PyTorch on the CPU, "
                             "a dry run); default cuda")
    parser.add_argument("--quick", action="store_true",
                        help="tiny subsets (2000 rows, m ≤ 150), 2 trials: seconds per cell")
    parser.add_argument("--smoke", action="store_true",
                        help="smoke size (400 rows, m ≤ 40, 1 trial; implies --quick), the "
                             "jobs in this process (no worker process, no cap per cell): the "
                             "tests' run, on --device torch")
    parser.add_argument("--cells", default=",".join(CELL_NAMES),
                        help=f"comma-separated cells (default all): {', '.join(CELL_NAMES)}")
    parser.add_argument("--no-cpu", action="store_true", help="skip stage (d), the CPU cells")
    parser.add_argument("--budget-s", type=float, default=450.0,
                        help="wall seconds for the whole check (default 450: under 8 min)")
    parser.add_argument("--gpu-share", type=float, default=0.72,
                        help="fraction of the budget by which the device's first pass ends "
                             "(its extra trials end at 0.55 of it); the CPU cells get the "
                             "rest")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="BLAS/OpenMP/numba/torch threads (default: every core)")
    parser.add_argument("--eq-tol", type=float, default=1e-6,
                        help="largest relative difference of the validation paths that "
                             "passes the equality (default 1e-6; float64)")
    parser.add_argument("--csv", help="results CSV (default gpu_check.csv in --out or $OUT, "
                                      "else results/gpu_check.csv)")
    parser.add_argument("--out", help="folder of the CSV, its environment record and the log "
                                      "(default $OUT)")
    parser.add_argument("--work", help="work folder (default /tmp/kernreg_gpu_check)")
    parser.add_argument("--mirror", help="dataset mirror (default gpu_carry/datasets, else "
                                         "$KERNREG_MIRROR)")
    parser.add_argument("--pack", action="store_true",
                        help="fill gpu_carry/ (wheels + mirror files) instead of checking "
                             "(make gpu-check-pack; needs PyPI)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.quick = args.quick or args.smoke
    with restored_environment():
        run_check(parser, args)


@contextlib.contextmanager
def restored_environment() -> Iterator[None]:
    """The environment variables and ``sys.path`` as they were, after the check (which sets
    the thread pools', the data's and the workers' import path): a smoke run shares its
    interpreter with what comes after."""
    env, path = dict(os.environ), list(sys.path)
    try:
        yield
    finally:
        for name in set(os.environ) - set(env):
            del os.environ[name]
        os.environ.update(env)
        sys.path[:] = path


def run_check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The check (or ``--pack``, or a worker's loop) for the parsed ``args``."""
    t0 = time.monotonic()
    if args.pack:
        pack(CARRY, args.mirror)
        return
    repo_importable()
    setup_threads(args.threads)
    if args.worker:
        worker_main(args.device, args.threads)
        return
    args.cells = [c.strip() for c in args.cells.split(",") if c.strip()]
    unknown = sorted(set(args.cells) - set(CELL_NAMES))
    if unknown:
        parser.error(f"unknown cells {unknown}; choose from {', '.join(CELL_NAMES)}")

    work = Path(args.work or "/tmp/kernreg_gpu_check").resolve()
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    carry_note = carried_imports(CARRY, work / "site")
    mirror = setup_data_env(args.mirror, work / "cache")
    csv, log_dir = output_paths(args.csv, args.out)
    log = (log_dir or work) / "gpu_check.log"
    check = Check(args, work, csv, log, t0)
    check.results.write()
    check.environment(carry_note, mirror)
    gpu_end = check.t0 + args.gpu_share * args.budget_s
    extra_end = check.t0 + 0.55 * args.budget_s
    equal, device_ok = True, True
    try:
        device_ok = check.device_stage(args.device)
        if device_ok:
            check.prepare(args.device)
            equal = check.equality(args.device)
            check.phase(args.device, gpu_end, extra_end, cpu=False)
        else:
            for cell in check.cells:
                check.skip(cell, args.device, "device unavailable (see environment row)")
        check.close_worker(args.device)
        # the CPU cells, unless the device was the CPU already
        if not args.no_cpu and device_kind(args.device) != "cpu" and check.device_stage("cpu"):
            check.phase("cpu", check.deadline, check.deadline, cpu=True)
    finally:
        for device in list(check.workers):
            check.close_worker(device)
        check.env["elapsed_s"] = time.monotonic() - check.t0
        check.write_env()
    check.summary()
    check.say("done" if equal and device_ok else
              "done; the equality FAILED (see its rows)" if device_ok else
              f"done; device {args.device} was unavailable: nothing measured on it")
    if not equal:
        sys.exit(1)
    if not device_ok:
        sys.exit(2)


if __name__ == "__main__":
    main()
