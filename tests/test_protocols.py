"""A protocol is one registration: a toy protocol registered at run time runs end to end through
``kernreg run`` (resume, force, smoke, --set, the preflight), and ``kernreg table``, ``plot``
and ``report`` summarise its run folder by it; the registry type under every registry."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from kernreg.config.loader import raise_problems, schema_problems
from kernreg.errors import ConfigError
from kernreg.experiment.protocol import (
    ProtocolSpec,
    get_protocol,
    protocol_names,
    register_protocol,
    unregister_protocol,
)
from kernreg.registry import Registry

KIND = "toy_means"
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["name", "protocol"],
          "properties": {
              "name": {"type": "string"},
              "protocol": {"type": "object", "additionalProperties": False,
                           "required": ["kind"],
                           "properties": {"kind": {"const": KIND},
                                          "trials": {"type": "integer", "minimum": 1},
                                          "seed": {"type": "integer", "minimum": 0},
                                          "n": {"type": "integer", "minimum": 1}}}}}


@dataclass(frozen=True)
class ToyConfig:
    name: str
    protocol: dict[str, Any]
    path: Path | None = None
    budget: dict[str, Any] = field(default_factory=lambda: {"blas_threads": 1})

    @property
    def trials(self) -> int:
        return self.protocol["trials"]

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "protocol": dict(self.protocol)}

    def config_hash(self) -> str:
        payload = copy.deepcopy(self.as_dict())
        del payload["name"], payload["protocol"]["trials"]
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _load(data: Any, path: Path) -> ToyConfig:
    raise_problems(path, schema_problems(data, SCHEMA, []))
    return ToyConfig(data["name"], {"trials": 3, "seed": 0, "n": 50, **data["protocol"]}, path)


def _preflight(cfg: ToyConfig, prepared: Any) -> None:
    if cfg.protocol["n"] > 10**6:
        raise ConfigError(f"protocol.n: {cfg.protocol['n']} draws per trial; at most 10**6")


def _trial(cfg: ToyConfig, prepared: Any, k: int) -> dict[str, Any]:
    rng = np.random.default_rng([cfg.protocol["seed"], k])
    return {"attrs": {"trial": k, "config_hash": cfg.config_hash()},
            "draws": {"values": rng.standard_normal(cfg.protocol["n"])}}


def _table(config: Mapping[str, Any], records: Sequence[dict[str, Any]]) -> str:
    means = [float(np.mean(r["draws"]["values"])) for r in records]
    return (f"# {config['name']}\n\n| trial | mean |\n|---|---|\n"
            + "".join(f"| {r['attrs']['trial']} | {m:.6f} |\n"
                      for r, m in zip(records, means, strict=True)))


def _figures(config: Mapping[str, Any], records: Sequence[dict[str, Any]]) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.hist(np.concatenate([r["draws"]["values"] for r in records]), bins=10)
    return {"draws.png": fig}


def _files(config: Mapping[str, Any], records: Sequence[dict[str, Any]]) -> dict[str, str]:
    return {"draws.csv": "trial,value\n" + "".join(
        f"{r['attrs']['trial']},{v!r}\n" for r in records for v in r["draws"]["values"])}


def _smoke(data: Any) -> Any:
    data = copy.deepcopy(data)
    data["protocol"]["n"] = min(data["protocol"].get("n", 50), 5)
    data["protocol"]["trials"] = 1
    return data


@pytest.fixture
def toy_protocol():
    spec = register_protocol(ProtocolSpec(
        kind=KIND, description="toy: the mean of seeded normal draws", load=_load,
        smoke=_smoke, prepare=lambda cfg: None, preflight=_preflight, trial=_trial,
        table=_table, figures=_figures, figure_files=("draws.png",), files=_files,
        data_files=("draws.csv",)))
    yield spec
    unregister_protocol(KIND)


def _config(tmp_path: Path, **protocol: Any) -> Path:
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump({"name": "toy", "protocol": {"kind": KIND, **protocol}}))
    return path


def test_a_registered_protocol_runs_end_to_end(toy_protocol, tmp_path: Path,
                                               kernreg_cli) -> None:
    config, out = _config(tmp_path, trials=2, seed=4), tmp_path / "out"
    code, printed, err = kernreg_cli(["run", str(config), "--out", str(out), "--no-progress"])
    assert code == 0, err
    run = out / "toy"
    assert sorted(p.name for p in (run / "trials").iterdir()) == ["t000.h5", "t001.h5"]
    assert {"table.md", "draws.png", "draws.csv", "manifest.json"} <= \
        {p.name for p in run.iterdir()}
    table = (run / "table.md").read_text()
    assert table in printed and "2 trials in" in printed
    expected = np.mean(np.random.default_rng([4, 1]).standard_normal(50))
    assert f"| 1 | {expected:.6f} |" in table
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["config"]["protocol"]["kind"] == KIND and manifest["finished_at"]
    # resumed: trial 0 and 1 kept (their files untouched), trial 2 added
    stamp = (run / "trials" / "t000.h5").stat().st_mtime_ns
    code, printed, _ = kernreg_cli(["run", str(config), "--out", str(out), "--no-progress",
                                    "--resume", "--trials", "3"])
    assert code == 0 and "3 trials in" in printed and "(2 resumed)" in printed
    assert (run / "trials" / "t000.h5").stat().st_mtime_ns == stamp
    # what reads a run folder summarises it through the protocol
    code, printed, _ = kernreg_cli(["table", str(run)])
    assert code == 0 and printed == (run / "table.md").read_text()
    code, printed, err = kernreg_cli(["plot", str(run), "--format", "png"])
    assert code == 0 and (run / "figures" / "draws.png").stat().st_size > 0, err
    code, _, err = kernreg_cli(["report", str(run), "-o", str(tmp_path / "r.html")])
    html = (tmp_path / "r.html").read_text()
    assert code == 0 and "<td>2</td>" in html and "draws.png" in html, err
    # --force deletes the run's own files and starts again
    (run / "mine.txt").write_text("kept")
    code, printed, _ = kernreg_cli(["run", str(config), "--out", str(out), "--no-progress",
                                    "--force", "--trials", "1"])
    assert code == 0 and "1 trial in" in printed and (run / "mine.txt").read_text() == "kept"
    assert sorted(p.name for p in (run / "trials").iterdir()) == ["t000.h5"]


def test_smoke_set_and_the_preflight_reach_a_registered_protocol(toy_protocol, tmp_path: Path,
                                                                 kernreg_cli) -> None:
    config, out = _config(tmp_path, n=500), tmp_path / "out"
    code, _, err = kernreg_cli(["run", str(config), "--out", str(out), "--smoke",
                                      "--no-progress"])
    assert code == 0, err
    manifest = json.loads((out / "toy" / "manifest.json").read_text())
    assert manifest["config"]["protocol"]["n"] == 5 and manifest["config"]["protocol"][
        "trials"] == 1
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "o2"),
                                "--set", "protocol.n=10000000"])
    assert code == 2 and "protocol.n: 10000000 draws" in err
    assert not (tmp_path / "o2").exists()  # refused before anything was written
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "o3"),
                                "--set", "protocol.colour=red"])
    assert code == 2 and "protocol" in err and "(the config with --set protocol.colour=red)" \
        in err and not (tmp_path / "o3").exists()
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "o4"),
                                "--only", "x"])
    assert code == 2 and "--only: a toy means run" in err


def test_a_config_of_an_unregistered_protocol_is_named(tmp_path: Path, kernreg_cli) -> None:
    config = _config(tmp_path)
    code, _, err = kernreg_cli(["run", str(config), "--out", str(tmp_path / "out")])
    assert code == 2 and "unknown protocol 'toy_means'" in err and "streaming" in err
    assert not (tmp_path / "out").exists()


def test_the_registry_refuses_twice_and_suggests() -> None:
    assert protocol_names()[:1] == ["holdout"]
    assert {"streaming", "online_regression"} <= set(protocol_names())
    with pytest.raises(ConfigError, match="did you mean streaming"):
        get_protocol("streamin")
    registry: Registry[tuple[str, int]] = Registry("part", lambda item: item[0])
    registry.register(("a", 1))
    with pytest.raises(ValueError, match="part 'a' is registered twice"):
        registry.register(("a", 2))
    assert registry.get("a") == ("a", 1) and "a" in registry and len(registry) == 1
    registry.unregister("a")
    with pytest.raises(ValueError, match="unknown part 'a'; registered: none"):
        registry.get("a")
    with pytest.raises(ValueError, match="the core's"):
        register_protocol(ProtocolSpec(kind="holdout", description="", load=_load,
                                       smoke=_smoke, prepare=lambda cfg: None,
                                       preflight=_preflight, trial=_trial, table=_table,
                                       figures=_figures, figure_files=()))


def test_the_registry_folds_names_and_finds_aliases() -> None:
    # a dataset-like registry: case-insensitive names, each part with its aliases
    registry: Registry[tuple[str, tuple[str, ...]]] = Registry(
        "part", lambda item: item[0], KeyError, fold=str.lower,
        aliases_of=lambda item: item[1])
    adult = registry.register(("Adult", ("a9a",)))
    assert registry.get("ADULT") is adult and registry.get("A9A") is adult and "a9a" in registry
    assert registry.names() == ["Adult"] and list(registry) == [adult]
    assert dict(registry.as_mapping()) == {"adult": adult}
    with pytest.raises(ValueError, match="part 'A9a' is registered twice"):
        registry.register(("other", ("A9a",)))
    with pytest.raises(KeyError, match=r"unknown part 'adulte' \(did you mean Adult\?\)"):
        registry.get("adulte")
    registry.unregister("a9a")  # by an alias: the part and all its names go
    assert "adult" not in registry and "a9a" not in registry and len(registry) == 0
    with pytest.raises(KeyError):
        registry.unregister("adult")
    registry.unregister("adult", missing_ok=True)
