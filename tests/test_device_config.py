"""The one device switch, end to end: ``device:`` in the config and ``--device`` on ``kernreg
run``, checked before anything is written (PyTorch and a GPU there, every algorithm taking a
device, the n × n kernel within the device's budget), recorded with every trial, and kept out
of the config hash.

``torch`` (PyTorch on the CPU) runs the device code on any machine; ``cuda`` is refused here
unless a GPU is visible. Data: scikit-learn's bundled breast cancer table (no mirror needed).
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pandas as pd
import pytest
from cli_runner import run_kernreg

from kernreg.backend import CPU, Device
from kernreg.config import (
    algorithm_hashes,
    device_algorithms,
    estimator_params,
    load_experiment,
    takes_device,
)
from kernreg.errors import ConfigError
from kernreg.experiment.devices import (
    check_device_support,
    device_memory_bytes,
    experiment_device,
)
from kernreg.experiment.preflight import BudgetError, check_device_memory, check_memory
from kernreg.results.store import RunStore, load_run
from kernreg.solvers import AlgorithmSpec, KernelEstimator, register, unregister

REPO = Path(__file__).resolve().parents[1]
OLD = REPO / "tests" / "reference" / "old_format"

CONFIG = """
name: small
dataset: {name: breast_cancer, n_train: 300, n_test: 120}
algorithms:
  - {name: nytro, m: 40, max_iter: 60}
protocol: {trials: 2, seed: 5}
budget: {blas_threads: 1}
"""


def _config(tmp_path: Path, text: str = CONFIG, name: str = "small.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def _written(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() \
        else []


# ------------------------------------------------------------------ the config's keys
def test_the_defaults_are_cpu_without_tf32_or_a_device_budget(tmp_path: Path) -> None:
    exp = load_experiment(_config(tmp_path))
    assert exp.device == "cpu" and exp.tf32 is False
    assert "gpu_memory_gb" not in exp.budget
    assert exp.as_dict()["device"] == "cpu" and exp.as_dict()["tf32"] is False
    assert experiment_device(exp) is CPU


@pytest.mark.parametrize("device", ["cpu", "torch", "cuda", "cuda:0", "cuda:3"])
def test_the_device_names_are_accepted(device: str, tmp_path: Path) -> None:
    text = CONFIG + f"device: {device}\ntf32: true\n"
    exp = load_experiment(_config(tmp_path, text.replace("blas_threads: 1",
                                                         "blas_threads: 1, gpu_memory_gb: 2.5")))
    # a config is valid on any machine: whether this one has the device is the run's check
    assert exp.device == device and exp.tf32 is True and exp.budget["gpu_memory_gb"] == 2.5
    assert exp.as_dict()["device"] == device


@pytest.mark.parametrize("line,message", [
    ("device: gpu", "device: 'gpu' is not valid; expected cpu (numpy, the default), torch"),
    ("device: cuda:x", "device: 'cuda:x' is not valid"),
    ("device: CUDA", "device: 'CUDA' is not valid"),
    ("device: 3", "device: expected string, got 3"),
    ("device: [cpu]", "device: expected string"),
    ("tf32: yes please", "tf32: expected boolean, got 'yes please'"),
    ("tf32: 1", "tf32: expected boolean, got 1"),
    ("budget: {gpu_memory_gb: 0}", "budget.gpu_memory_gb: must be > 0, got 0"),
    ("budget: {gpu_memory_gb: -4}", "budget.gpu_memory_gb: must be > 0, got -4"),
    ("budget: {gpu_memory_gb: 4GB}", "budget.gpu_memory_gb: expected number, got '4GB'"),
    ("budget: {gpu_memory_gb: .inf}", "budget.gpu_memory_gb: must be a finite number"),
    ("budget: {gpu_memroy_gb: 4}", "budget: unknown key 'gpu_memroy_gb' (did you mean "
                                   "'gpu_memory_gb'?); allowed keys: blas_threads, block_mb, "
                                   "gpu_memory_gb, memory_gb"),
])
def test_bad_device_keys_exit_2_naming_the_key_and_write_nothing(
    line: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, CONFIG.replace("budget: {blas_threads: 1}\n", "") + line + "\n")
    with pytest.raises(ConfigError, match="invalid config"):
        load_experiment(config)
    out = tmp_path / "out"
    code, _, err = run_kernreg(["run", str(config), "--out", str(out), "--no-progress"],
                               capsys)
    assert code == 2 and message in err
    assert not out.exists()


# ------------------------------------------------------------------ the config hash
def test_the_committed_config_hash_is_unchanged_and_ignores_the_device(tmp_path: Path) -> None:
    """Results are the same numbers up to rounding on every device: a run folder started on
    one resumes on another; each trial records its own device."""
    config = REPO / "configs" / "ci_cpusmall.yaml"
    exp = load_experiment(config)
    committed = json.loads((OLD / "run" / "manifest.json").read_text())["config_hash"]
    assert exp.config_hash() == committed == \
        "4cc7c967ddd70f3a13326e32a5f638897c6ffe040d79709d84b59444af946dd3"
    text = config.read_text().replace("budget: {blas_threads: 1}",
                                      "budget: {blas_threads: 1, gpu_memory_gb: 3}\n"
                                      "device: cuda:1\ntf32: true")
    on_gpu = load_experiment(_config(tmp_path, text, "ci_cpusmall.yaml"))
    assert on_gpu.device == "cuda:1" and on_gpu.tf32
    assert on_gpu.config_hash() == exp.config_hash()
    assert algorithm_hashes(on_gpu.as_dict()) == algorithm_hashes(exp.as_dict())
    assert load_experiment(config, {"device": "torch"}).config_hash() == exp.config_hash()


# ------------------------------------------------------------------ --device
def test_the_device_option_overrides_the_config(tmp_path: Path) -> None:
    config = _config(tmp_path, CONFIG + "device: cuda\n")
    assert load_experiment(config).device == "cuda"
    assert load_experiment(config, {"device": "cpu"}).device == "cpu"
    assert load_experiment(_config(tmp_path), {"device": "torch"}).device == "torch"
    with pytest.raises(ConfigError, match="device: 'gpu' is not valid"):
        load_experiment(config, {"device": "gpu"})


@pytest.mark.parametrize("name", ["gpu", "cuda:", "cuda:one", "Torch", ""])
def test_an_unknown_device_option_exits_2_naming_the_option(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, _, err = run_kernreg(["run", str(_config(tmp_path)), "--out", str(out),
                                "--device", name], capsys)
    assert code == 2 and "Invalid value for '--device'" in err
    assert "expected cpu (numpy), torch (PyTorch on the CPU), cuda or cuda:N" in err
    assert not out.exists()


def test_cuda_without_a_gpu_exits_2_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is visible: cuda runs here")
    out = tmp_path / "out"
    for args in (["--device", "cuda"], ["--device", "cuda:1"]):
        code, _, err = run_kernreg(["run", str(_config(tmp_path)), "--out", str(out),
                                    "--no-progress", *args], capsys)
        assert code == 2, err
        assert "no CUDA GPU is visible to this PyTorch" in err and "--device cpu" in err
        assert len(err.strip().splitlines()) == 1
        assert not out.exists()
    # the config's own key, the same
    code, _, err = run_kernreg(["run", str(_config(tmp_path, CONFIG + "device: cuda\n")),
                                "--out", str(out)], capsys)
    assert code == 2 and "device 'cuda': no CUDA GPU" in err and not out.exists()


def test_a_device_without_pytorch_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` fails as if not installed
    out = tmp_path / "out"
    code, _, err = run_kernreg(["run", str(_config(tmp_path)), "--out", str(out),
                                "--device", "torch"], capsys)
    assert code == 2 and "device 'torch' needs PyTorch (pip install torch)" in err
    assert not out.exists()


# ------------------------------------------------------------------ algorithms without a device
class HostOnlyRidge(KernelEstimator):
    """An estimator without a ``device`` parameter (a plugin written before devices)."""

    path_parameter = "lambda"

    def __init__(self, kernel: str = "gaussian", sigma: float = 1.0, dtype: str = "float64",
                 memory_budget: int = 2**26):
        self.kernel = kernel
        self.sigma = sigma
        self.dtype = dtype
        self.memory_budget = memory_budget

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> HostOnlyRidge:
        raise AssertionError("never fitted: refused before the run")


@pytest.fixture
def host_only() -> Any:
    register(AlgorithmSpec(name="host_only", estimator=HostOnlyRidge, title="Host only"))
    yield "host_only"
    unregister("host_only")


def test_which_algorithms_take_a_device_comes_from_their_estimators(host_only: str) -> None:
    assert takes_device("nytro") and not takes_device(host_only)
    assert "nytro" in device_algorithms() and host_only not in device_algorithms()


def test_an_algorithm_without_a_device_is_refused_naming_it_and_nothing_is_written(
    host_only: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    text = CONFIG.replace("algorithms:\n", "algorithms:\n  - {name: host_only, label: mine}\n")
    config = _config(tmp_path, text)
    out = tmp_path / "out"
    code, _, err = run_kernreg(["run", str(config), "--out", str(out), "--no-progress",
                                "--device", "torch"], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "mine (host_only) cannot run on device 'torch'" in err
    assert f"on a device run only {', '.join(device_algorithms())}" in err
    assert not out.exists()


def test_an_estimator_refusing_the_device_stops_the_run_naming_the_algorithm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    # a Matérn kernel of ν other than 1/2, 3/2, 5/2 has no device path (its kernel says so)
    text = CONFIG.replace("dataset: {name: breast_cancer, n_train: 300, n_test: 120}",
                          "dataset: {name: breast_cancer, n_train: 300, n_test: 120}\n"
                          "kernel: {name: matern, sigma: 5, nu: 0.7}") \
        .replace("{name: nytro, m: 40, max_iter: 60}", "{name: krls}")
    out = tmp_path / "out"
    code, _, err = run_kernreg(["run", str(_config(tmp_path, text)), "--out", str(out),
                                "--device", "torch"], capsys)
    assert code == 2 and "small: krls on device 'torch'" in err and "no device path" in err
    assert not out.exists()


# ------------------------------------------------------------------ device memory
KRLS = CONFIG.replace("  - {name: nytro, m: 40, max_iter: 60}",
                      "  - {name: krls, lambdas: {logspace: [1e-6, 1e-1, 6]}}\n"
                      "  - {name: nytro, m: 40, max_iter: 60}")


def test_the_device_budget(tmp_path: Path) -> None:
    base = load_experiment(_config(tmp_path))
    assert device_memory_bytes(load_experiment(_config(tmp_path), {"device": "cuda"})) is None
    torch_run = load_experiment(_config(tmp_path), {"device": "torch"})
    assert device_memory_bytes(torch_run) == int(base.budget["memory_gb"] * 2**30)
    given = _config(tmp_path, CONFIG.replace("blas_threads: 1",
                                             "blas_threads: 1, gpu_memory_gb: 0.5"))
    assert device_memory_bytes(load_experiment(given, {"device": "cuda"})) == 2**29


def test_a_full_kernel_over_the_device_budget_is_refused_and_nystrom_is_not(
    tmp_path: Path,
) -> None:
    torch = pytest.importorskip("torch")
    del torch
    config = _config(tmp_path, KRLS.replace("blas_threads: 1",
                                            "blas_threads: 1, gpu_memory_gb: 0.0005"))
    exp = load_experiment(config, {"device": "torch"})
    device = experiment_device(exp)
    assert device.memory_budget() == round(0.0005 * 2**30)
    krls, nytro = exp.algorithms
    assert check_device_memory(exp, (krls,), 240, 60, 120, 30, CPU) == []  # cpu: host check
    # NYTRO plans K_nm within the device's memory (row blocks from the host): not refused
    assert check_device_memory(exp, (nytro,), 6000, 1500, 120, 30, device) == []
    with pytest.raises(BudgetError) as refused:
        check_device_memory(exp, (krls,), 6000, 1500, 120, 30, device)
    message = str(refused.value)
    # K and its eigenvectors: 2·6000²·8 bytes, beside the path and one kernel block
    assert "krls: needs" in message and "K + eigenvectors 576,000,000" in message
    assert "budget of 536,871 bytes" in message and "budget.gpu_memory_gb" in message


def test_workers_sharing_one_gpu_need_its_share(tmp_path: Path) -> None:
    """local:N on a GPU machine: N workers each planning against 90% of one GPU's free memory
    would run out of it mid-trial; budget.gpu_memory_gb splits it (no GPU needed to check)."""
    gpu = Device("cuda:0")  # the name alone: the check happens before the device is touched
    exp = load_experiment(_config(tmp_path), {"execution": {"scheduler": "local:2"}})
    with pytest.raises(ConfigError, match="2 workers on this machine, which share its GPU"):
        check_device_support(exp, exp.algorithms, gpu)
    shared = load_experiment(_config(tmp_path, CONFIG.replace(
        "blas_threads: 1", "blas_threads: 1, gpu_memory_gb: 30")),
        {"execution": {"scheduler": "local:2"}})
    check_device_support(shared, shared.algorithms, gpu)


def test_the_host_check_leaves_the_device_kernel_out(tmp_path: Path) -> None:
    """On a device KRLS's n × n kernel is there, not in host memory: the host's estimate
    keeps the data (the device's check counts the kernel)."""
    pytest.importorskip("torch")
    exp = load_experiment(_config(tmp_path, KRLS.replace(
        "blas_threads: 1", "blas_threads: 1, memory_gb: 0.5")), {"device": "torch"})
    krls = exp.algorithms[0]
    with pytest.raises(BudgetError, match="krls"):
        check_memory(exp, (krls,), 12000, 3000, 120, 30)  # cpu: 2·12000² floats on the host
    (host,) = check_memory(exp, (krls,), 12000, 3000, 120, 30, experiment_device(exp))
    assert host.parts == {"data": (12000 + 3000 + 120) * 30 * 8 * 2}


def test_krls_over_a_tiny_device_budget_exits_2_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    config = _config(tmp_path, KRLS.replace("blas_threads: 1",
                                            "blas_threads: 1, gpu_memory_gb: 0.001"))
    out = tmp_path / "out"
    code, _, err = run_kernreg(["run", str(config), "--out", str(out), "--device", "torch",
                                "--no-progress"], capsys)
    assert code == 2, err
    assert "estimated peak memory on device torch exceeds its budget of 1,073,742 bytes" in err
    assert "budget.gpu_memory_gb" in err and "krls: needs" in err and "bytes" in err
    assert "nytro" not in err.split("budget.gpu_memory_gb")[1]  # only KRLS is refused
    assert not out.exists()


# ------------------------------------------------------------------ a real run on torch
def _trial_devices(run: Path) -> set[str]:
    devices = set()
    for path in (run / "trials").glob("*.h5"):
        with h5py.File(path, "r") as f:
            devices.add(json.loads(f.attrs["info"])["device"])
    return devices


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-10), ("float32", 1e-5)])
def test_a_torch_run_records_its_device_and_equals_the_cpu_run(
    dtype: str, rtol: float, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = pytest.importorskip("torch")
    algorithms = ["  - {name: nytro, m: 40, max_iter: 60}",
                  "  - {name: nkrls, m: 40, lambdas: {logspace: [1e-6, 1e-1, 6]}}",
                  "  - {name: krls, lambdas: {logspace: [1e-6, 1e-1, 6]}}",
                  "  - {name: es, max_iter: 40}"]
    text = CONFIG.replace(algorithms[0], "\n".join(algorithms)) \
        .replace("n_test: 120}", f"n_test: 120, dtype: {dtype}}}") + "device: cuda\n"
    config = _config(tmp_path, text)  # the config's cuda, overridden both ways
    tables = {}
    for device in ("cpu", "torch"):
        out = tmp_path / device
        code, _, err = run_kernreg(["run", str(config), "--out", str(out), "--device", device,
                                    "--no-progress"], capsys)
        assert code == 0, err
        run = out / "small"
        tables[device] = pd.read_csv(run / "results.csv").sort_values(["label", "trial"]) \
            .reset_index(drop=True)
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["config"]["device"] == device
        expected = "cpu" if device == "cpu" else f"torch {torch.__version__} (cpu)"
        assert manifest["environment"]["device_at_start"] == expected
        assert set(tables[device]["device"]) == {expected} == _trial_devices(run)
        assert {r.info["device"] for r in load_run(run).records} == {expected}
    cpu, on_torch = tables["cpu"], tables["torch"]
    assert len(cpu) == 2 * len(algorithms)
    assert (cpu["config_hash"] == on_torch["config_hash"]).all()
    for column in ("selected", "test_rmse", "test_error", "n_path_points"):
        np.testing.assert_allclose(on_torch[column], cpu[column], rtol=rtol, err_msg=column)
    # the validation paths too
    for label, trial in zip(cpu["label"], cpu["trial"], strict=True):
        paths = []
        for device in ("cpu", "torch"):
            with h5py.File(tmp_path / device / "small" / "results.h5", "r") as f:
                paths.append(f[f"{label}/trial_{trial:03d}/val_rmse"][()])
        # float32 kernel values differ by ~1e-7 between the paths; KRLS's smallest λ (n·λ =
        # 2.4e-4) magnifies that on its first path point to ~1e-4
        tol = 1e-3 if dtype == "float32" and label == "krls" else rtol
        np.testing.assert_allclose(paths[1], paths[0], rtol=tol, err_msg=label)


def test_a_run_resumed_on_another_device_keeps_each_trials_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = pytest.importorskip("torch")
    config = _config(tmp_path)
    out = tmp_path / "out"
    args = ["run", str(config), "--out", str(out), "--no-progress"]
    assert run_kernreg([*args, "--trials", "1"], capsys)[0] == 0
    code, _, err = run_kernreg([*args, "--trials", "2", "--resume", "--device", "torch"],
                               capsys)
    assert code == 0, err
    table = pd.read_csv(out / "small" / "results.csv").sort_values("trial")
    assert table["device"].tolist() == ["cpu", f"torch {torch.__version__} (cpu)"]


def test_the_estimators_get_the_device_and_its_budget(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    del torch
    exp = load_experiment(_config(tmp_path, CONFIG + "tf32: true\n"), {"device": "torch"})
    device = experiment_device(exp)
    assert device.name == "torch" and device.tf32 and device.memory_bytes == 20 * 2**30
    (nytro,) = exp.algorithms
    on_device = estimator_params(nytro, exp, 0, device)
    assert on_device["device"] is device and on_device["max_memory"] == device.memory_bytes
    on_cpu = estimator_params(nytro, exp, 0)
    assert "device" not in on_cpu and on_cpu["max_memory"] == 20 * 2**30
    assert estimator_params(nytro, exp, 0, CPU) == on_cpu  # numpy: the estimator's default


# ------------------------------------------------------------------ earlier results
def test_trials_stored_before_devices_read_as_cpu(tmp_path: Path) -> None:
    run = tmp_path / "ci_cpusmall"
    shutil.copytree(OLD / "run", run)
    table = RunStore(run).finalize()
    assert set(table["device"]) == {"cpu"}
    assert "device" not in pd.read_csv(OLD / "ci_cpusmall.csv").columns  # tables: old CSVs


def test_a_pytorch_that_does_not_load_exits_2_naming_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CUDA build without its libraries fails `import torch` with an OSError."""
    import builtins

    real_import = builtins.__import__

    def broken(name, *args, **kwargs):
        if name == "torch":
            raise OSError("libcudart.so.12: cannot open shared object file")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.setattr(builtins, "__import__", broken)
    out = tmp_path / "out"
    code, _, err = run_kernreg(["run", str(_config(tmp_path)), "--out", str(out),
                                "--device", "torch"], capsys)
    assert code == 2
    assert "device 'torch': PyTorch is installed but does not load (libcudart.so.12" in err
    assert not out.exists()
