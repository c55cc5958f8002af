"""Config validation: good configs get defaults, each bad input gets one message and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from kernreg.cli import main
from kernreg.config import load_experiment
from kernreg.errors import ConfigError

GOOD = """
dataset: {name: cpusmall, n_train: 1000}
algorithms:
  - {name: nkrls, m: 50, lambdas: {logspace: [1e-9, 1e-1, 5]}}
  - {name: nytro, m: 50, max_iter: 20}
protocol: {trials: 2}
"""


def _write(tmp_path: Path, text: str, name: str = "exp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_defaults_are_filled_in(tmp_path: Path) -> None:
    exp = load_experiment(_write(tmp_path, GOOD))
    assert exp.name == "exp"
    assert exp.kernel == {"name": "gaussian", "sigma": 0.1}  # cpusmall's paper σ
    assert exp.protocol == {"trials": 2, "validation_fraction": 0.2, "seed": 0, "refit": False}
    nkrls, nytro = exp.algorithms
    np.testing.assert_allclose(nkrls.lambdas(), np.logspace(-9, -1, 5))
    assert nytro.params["stopping"] == {"rule": "window_linear_fitting", "window": 10,
                                        "threshold": 0.0, "select": "best"}
    assert nytro.params["step_rows"] == "fit"
    assert exp.dataset["target_coding"] == "pm1"
    assert nytro.params["max_iter"] == 20 and nkrls.params["path_method"] == "eigh"


ADULT = """
dataset: {name: adult}
algorithms:
  - {name: nytro, stopping: {rule: window_slope}, step_rows: all}
  - {name: es, stopping: {rule: window_slope, threshold: 0.02, select: best}, step_rule: n}
"""


def test_window_slope_takes_the_datasets_threshold_unless_given(tmp_path: Path) -> None:
    nytro, es = load_experiment(_write(tmp_path, ADULT)).algorithms
    # the authors' threshold for Adult, reported at the firing iteration
    assert nytro.params["stopping"] == {"rule": "window_slope", "window": 10,
                                        "threshold": 0.0069, "select": "stop"}
    assert nytro.params["step_rows"] == "all" and nytro.params["m"] == 1000
    assert es.params["stopping"] == {"rule": "window_slope", "window": 10, "threshold": 0.02,
                                     "select": "best"}
    assert es.params["step_rule"] == "n"
    # absolute thresholds are in units of the error: a regression target may need θ >= 1
    big = ADULT.replace("threshold: 0.02", "threshold: 5")
    assert load_experiment(_write(tmp_path, big, "b.yaml")).algorithms[1].params[
        "stopping"]["threshold"] == 5


def test_target_coding_zero_one(tmp_path: Path) -> None:
    exp = load_experiment(_write(tmp_path, "dataset: {name: insurance, target_coding: zero_one}"
                                           "\nalgorithms: [{name: kols}]\n"))
    assert exp.dataset["target_coding"] == "zero_one"


def test_config_hash_tracks_results_relevant_changes(tmp_path: Path) -> None:
    base = load_experiment(_write(tmp_path, GOOD)).config_hash()
    more_memory = load_experiment(_write(tmp_path, GOOD + "budget: {memory_gb: 3}\n", "b.yaml"))
    assert more_memory.config_hash() == base
    other_seed = load_experiment(_write(tmp_path, GOOD.replace("trials: 2", "trials: 2, seed: 4"),
                                        "c.yaml"))
    assert other_seed.config_hash() != base
    more_trials = load_experiment(_write(tmp_path, GOOD.replace("trials: 2", "trials: 9"),
                                         "d.yaml"))
    assert more_trials.config_hash() == base  # trial k depends only on (seed, k)


def test_cli_override_is_validated(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"protocol\.trials: must be >= 1, got 0"):
        load_experiment(_write(tmp_path, GOOD), {"protocol": {"trials": 0}})


# (config text, expected fragment of the message)
BAD_CONFIGS = {
    "unknown top-level key": (GOOD + "trails: 3\n",
                              "(top level): unknown key 'trails' (did you mean "
                              "protocol.trials?); allowed keys: algorithms"),
    "misspelt algorithm key": (GOOD.replace("max_iter: 20", "max_iters: 20"),
                               "algorithms[1]: unknown key 'max_iters' (did you mean "
                               "'max_iter'?); allowed keys:"),
    "unknown algorithm": (GOOD.replace("name: nytro", "name: svm"),
                          "algorithms[1].name: 'svm' is not allowed; allowed values: kols, "
                          "krls, es, nkrls, nytro, inkrls, rf, pcg"),
    "unknown algorithm key": (GOOD.replace("max_iter: 20", "steps: 20"),
                              "algorithms[1]: unknown key 'steps'; allowed keys:"),
    "wrong type": (GOOD.replace("max_iter: 20", "max_iter: many"),
                   "algorithms[1].max_iter: expected integer, got 'many'"),
    "negative sigma": (GOOD + "kernel: {sigma: -1}\n", "kernel.sigma: must be > 0, got -1"),
    "validation fraction": (GOOD.replace("trials: 2", "trials: 2, validation_fraction: 1.5"),
                            "protocol.validation_fraction: must be < 1, got 1.5"),
    "unknown stopping rule": (GOOD.replace("max_iter: 20", "stopping: {rule: patience}"),
                              "algorithms[1].stopping.rule: 'patience' is not allowed"),
    "bad lambda grid": (GOOD.replace("logspace: [1e-9, 1e-1, 5]", "logspace: [1e-9, 5]"),
                        "algorithms[0].lambdas.logspace: [1e-09, 5] is too short "
                        "(algorithms[0].lambdas takes"),
    "decreasing logspace": (GOOD.replace("[1e-9, 1e-1, 5]", "[1e-1, 1e-9, 5]"),
                            "algorithms[0].lambdas.logspace: low (0.1) must be smaller"),
    "m too large": (GOOD.replace("m: 50, max_iter", "m: 900, max_iter"),
                    "algorithms[1].m: 900 exceeds the 800 rows left for fitting"),
    "unknown dataset": (GOOD.replace("cpusmall", "emnist"),
                        "dataset.name: unknown dataset 'emnist'"),
    "missing algorithms": ("dataset: {name: adult}\n", "(top level): 'algorithms' is required"),
    "duplicate key": (GOOD + "protocol: {trials: 3}\n", "duplicate key 'protocol'"),
    "invalid yaml": ("dataset: {name: adult\nalgorithms: []\n", "invalid YAML at line"),
    "not a mapping": ("- just\n- a list\n", "the config must be a mapping"),
    "sigma needed": (GOOD.replace("cpusmall", "cpu_act"),
                     "kernel.sigma: required, dataset cpu_act has no paper default"),
    "duplicate label": (GOOD.replace("{name: nytro, m: 50, max_iter: 20}", "{name: nkrls}"),
                        "algorithms[1].label: 'nkrls' is used twice"),
    "levels above m": (GOOD.replace("{name: nytro, m: 50, max_iter: 20}",
                                    "{name: inkrls, m: 50, m_values: [10, 60]}"),
                       "algorithms[1].m_values: levels up to 60 exceed m = 50"),
    "swept m too large": (GOOD.replace("m: 50, max_iter",
                                       "m: {range: [100, 900, 400]}, max_iter"),
                          "algorithms[1].m: 900 exceeds the 800 rows left for fitting"),
    "empty m range": (GOOD.replace("m: 50, max_iter", "m: {range: [300, 100, 100]}, max_iter"),
                      "algorithms[1].m.range: start exceeds stop"),
    "bad dtype": (GOOD.replace("n_train: 1000", "n_train: 1000, dtype: float16"),
                  "dataset.dtype: 'float16' is not allowed; allowed values: float64, float32"),
    "slope without threshold": (GOOD.replace("max_iter: 20", "stopping: {rule: window_slope}"),
                                "algorithms[1].stopping.threshold: required for window_slope; "
                                "dataset cpusmall has no threshold of the authors"),
    "relative threshold >= 1": (GOOD.replace("max_iter: 20", "stopping: {threshold: 1.5}"),
                                "algorithms[1].stopping.threshold: must be < 1, got 1.5"),
    "unknown selection": (GOOD.replace("max_iter: 20", "stopping: {select: last}"),
                          "algorithms[1].stopping.select: 'last' is not allowed; allowed "
                          "values: best, stop"),
    "unknown step rows": (GOOD.replace("max_iter: 20", "step_rows: val"),
                          "algorithms[1].step_rows: 'val' is not allowed; allowed values: all, "
                          "fit"),
    "zero_one on regression": (GOOD.replace("n_train: 1000", "n_train: 1000, target_coding: "
                                            "zero_one"),
                               "dataset.target_coding: cpusmall is a regression dataset"),
    "unknown task": (GOOD + "task: ranking\n",
                     "task: 'ranking' is not allowed; allowed values: binary, multiclass, "
                     "regression"),
    "task of another kind": (GOOD + "task: binary\n",
                             "task: 'binary' does not apply to cpusmall, a regression dataset; "
                             "allowed values: regression"),
    "unknown kols solver": (GOOD.replace("algorithms:\n",
                                         "algorithms:\n  - {name: kols, solver: qr}\n"),
                            "algorithms[0].solver: 'qr' is not allowed; allowed values: "
                            "pivoted_cholesky, eigh"),
    "negative kols rcond": (GOOD.replace("algorithms:\n",
                                         "algorithms:\n  - {name: kols, rcond: -1}\n"),
                            "algorithms[0].rcond: must be >= 0, got -1"),
    "unknown penalty": (GOOD.replace("lambdas: {", "penalty: ridge, lambdas: {"),
                        "algorithms[0].penalty: 'ridge' is not allowed; allowed values: kmm, "
                        "identity"),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config_exits_2_with_message_and_writes_nothing(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, fragment = BAD_CONFIGS[case]
    config = _write(tmp_path, text)
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(config), "--out", str(out), "--no-progress"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert str(config) in err or "dataset.name" in err
    assert "Traceback" not in err
    assert not out.exists()


def test_missing_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(tmp_path / "nope.yaml")])
    assert exit_info.value.code == 2
    assert "config file" in capsys.readouterr().err


def test_m_sweep_expands_into_labelled_entries(tmp_path: Path) -> None:
    text = GOOD.replace("m: 50, max_iter", "m: {range: [100, 300, 100]}, max_iter")
    text = text.replace("{name: nkrls, m: 50,", "{name: inkrls, m: [40, 80], m_values: "
                        "{linspace: [10, 40, 4]},")
    exp = load_experiment(_write(tmp_path, text))
    assert [(a.label, a.params["m"]) for a in exp.algorithms] == [
        ("inkrls_m40", 40), ("inkrls_m80", 80),
        ("nytro_m100", 100), ("nytro_m200", 200), ("nytro_m300", 300)]
    assert exp.algorithms[0].m_levels() == [10, 20, 30, 40]


def test_every_shipped_config_is_valid() -> None:
    configs = sorted(Path(__file__).resolve().parents[1].glob("configs/*.yaml"))
    assert configs
    from shipped_configs import needs_absent_mirror

    from kernreg.config import HOLDOUT, protocol_kind
    from kernreg.config.loader import read_yaml
    from kernreg.experiment.protocol import get_protocol, load_protocol_config
    from kernreg.results.tables import is_table_config, load_table_config

    for path in configs:
        kind = protocol_kind(read_yaml(path))
        if is_table_config(path):
            for run in load_table_config(path)["runs"]:
                load_experiment(path.parent / run)
        elif kind != HOLDOUT:
            load_protocol_config(get_protocol(kind), path)
        elif not needs_absent_mirror(path):
            load_experiment(path)


def test_the_dataset_default_task_written_out_keeps_the_config_hash(tmp_path: Path) -> None:
    implicit = load_experiment(_write(tmp_path, GOOD, "a.yaml"))
    explicit = load_experiment(_write(tmp_path, GOOD + "task: regression\n", "b.yaml"))
    assert implicit.task is explicit.task is None
    assert implicit.config_hash() == explicit.config_hash()


def test_a_table_config_names_registered_measures(tmp_path: Path) -> None:
    from kernreg.results.tables import load_table_config

    path = _write(tmp_path, "table: table2\nruns: [a.yaml]\nmeasures: [error, f1]\n", "t.yaml")
    with pytest.raises(ConfigError, match=r"measures\[1\]: 'f1' is not allowed; allowed values: "
                                          r"accuracy, error, hinge"):
        load_table_config(path)


@pytest.mark.parametrize("task", ["multiclass", None])
def test_a_multiclass_dataset_takes_the_least_squares_classifiers(tmp_path: Path,
                                                                  task) -> None:
    """MNIST in a hold-out config, with its task said or not: the one-vs-all classifier form of
    NKRLS; an algorithm without one, and another task, are one message each (never a
    traceback: no registered task was multiclass datasets' default)."""
    from kernreg.config import make_estimator
    from kernreg.solvers import NystromKRLSClassifier

    config = tmp_path / "mnist.yaml"
    text = ("dataset: {name: mnist, n_train: 500}\nkernel: {sigma: 6}\n"
            "algorithms:\n  - {name: nkrls, m: 50}\n" + (f"task: {task}\n" if task else ""))
    config.write_text(text)
    exp = load_experiment(config)
    assert isinstance(make_estimator(exp.algorithms[0], exp, random_state=0),
                      NystromKRLSClassifier)
    config.write_text(text.replace("name: nkrls, m: 50", "name: sgm"))
    with pytest.raises(ConfigError, match="sgm fits one output; mnist is multiclass"):
        load_experiment(config)
    config.write_text(text.replace(f"task: {task}", "task: binary") if task else
                      text + "task: binary\n")
    with pytest.raises(ConfigError, match="task: 'binary' does not apply to mnist"):
        load_experiment(config)


def test_print_config_shows_the_resolved_config_and_runs_nothing(tmp_path: Path,
                                                                  kernreg_cli) -> None:
    config = _write(tmp_path, GOOD)
    out = tmp_path / "out"
    code, printed, err = kernreg_cli(["run", str(config), "--print-config", "--out", str(out),
                                      "--set", "protocol.trials=3"])
    assert code == 0, err
    shown = yaml.safe_load(printed)
    exp = load_experiment(config, {"protocol": {"trials": 3}})
    assert shown == json.loads(json.dumps(exp.as_dict()))
    assert shown["protocol"]["trials"] == 3
    assert f"config hash {exp.config_hash()[:12]}" in printed.splitlines()[0]
    assert not out.exists()
