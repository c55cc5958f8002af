"""A config's hash survives a renamed key, so its run folder still resumes.

tests/reference/config_hashes.json holds the hashes of every committed config as they were
before the number of random features was named ``n_components`` everywhere (it was
``n_features`` in ``rf`` and ``sgm_rf`` entries, ``size`` in the stream's ``model.features``):
each config still hashes to its record, in the new spelling. A config in the earlier spelling
loads with a note and is the same config (hash, normalised config, estimator); a run folder
whose manifest has the earlier spelling resumes and reads its model sizes.
"""

from __future__ import annotations

import json
import logging
import re
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_kernreg

from kernreg.config import (
    HOLDOUT,
    algorithm_hashes,
    load_experiment,
    make_estimator,
    protocol_kind,
    read_yaml,
)
from kernreg.errors import ConfigError
from kernreg.experiment.protocol import get_protocol, load_protocol_config
from kernreg.protocols.class_incremental import load_config as load_stream
from kernreg.protocols.class_incremental.config import current_features

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "configs"
RECORDED = json.loads((Path(__file__).resolve().parent / "reference" / "config_hashes.json")
                      .read_text())


def _hashes(path: Path) -> dict[str, object]:
    """What the record holds of a config: a table config's runs; a hold-out config's hash and
    its algorithms' hashes; another protocol's hash."""
    data = read_yaml(path)
    if "runs" in data:
        return {"runs": list(data["runs"])}
    kind = protocol_kind(data)
    if kind != HOLDOUT:
        return {"config_hash": load_protocol_config(get_protocol(kind), path).config_hash()}
    exp = load_experiment(path)
    return {"config_hash": exp.config_hash(), "algorithms": algorithm_hashes(exp.as_dict())}


def test_the_record_covers_the_renamed_keys() -> None:
    """Every config the rename touched is recorded: 14 with ``rf`` or ``sgm_rf`` entries, the
    Nyström stream, and Chapter 8's online config, whose key was already ``n_components``."""
    renamed = [name for name in RECORDED if re.search(
        r"n_components:|kind: nystrom, m:", (CONFIGS / name).read_text())]
    assert len(renamed) == 16


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_every_committed_config_hashes_as_recorded(name: str,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    path = CONFIGS / name
    assert path.is_file(), f"{name} is recorded in tests/reference/config_hashes.json"
    with caplog.at_level(logging.WARNING, logger="kernreg.config"):
        assert _hashes(path) == RECORDED[name]
    assert "read as" not in caplog.text  # committed configs are in the current spelling


OLD = """
name: renamed
dataset: {name: breast_cancer, n_train: 120, n_test: 60}
algorithms:
  - {name: rf, n_features: 40, d_values: [20, 40], lambdas: [1e-3, 1e-1]}
  - {name: nkrls, m: 20, lambdas: [1e-3, 1e-1]}
  - {name: sgm_rf, n_features: 30}
protocol: {trials: 2}
budget: {blas_threads: 1}
"""
NEW = OLD.replace("n_features:", "n_components:")


def _config(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def _params(estimator: object) -> dict[str, object]:
    return {k: v.tolist() if isinstance(v, np.ndarray) else v
            for k, v in estimator.get_params().items()}


def test_the_earlier_n_features_is_read_as_n_components(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    new = load_experiment(_config(tmp_path, NEW, "new.yaml"))
    assert "read as" not in caplog.text
    with caplog.at_level(logging.WARNING, logger="kernreg.config"):
        old = load_experiment(_config(tmp_path, OLD, "old.yaml"))
    notes = [r.getMessage() for r in caplog.records if r.name == "kernreg.config"]
    assert len(notes) == 2 and "algorithms[0].n_features is read as n_components" in notes[0]
    assert "algorithms[2].n_features is read as n_components" in notes[1]
    assert old.config_hash() == new.config_hash()
    assert algorithm_hashes(old.as_dict()) == algorithm_hashes(new.as_dict())
    assert old.as_dict() == new.as_dict()
    for a, b in zip(old.algorithms, new.algorithms, strict=True):
        assert "n_features" not in a.params
        assert _params(make_estimator(a, old, random_state=0)) == \
            _params(make_estimator(b, new, random_state=0))
    assert make_estimator(old.algorithms[0], old, random_state=0).n_components == 40
    assert make_estimator(old.algorithms[2], old, random_state=0).n_components == 30
    # at smoke size too (both spellings shrink alike)
    smoke = load_experiment(tmp_path / "old.yaml", smoke=True)
    assert smoke.config_hash() == load_experiment(tmp_path / "new.yaml", smoke=True).config_hash()


@pytest.mark.parametrize("entry, message", [
    ("{name: rf, n_features: 40, n_components: 40}",
     r"algorithms\[0\]: n_features and n_components are one parameter"),
    ("{name: nkrls, m: 20, n_features: 40}", r"algorithms\[0\]: unknown key 'n_features'"),
])
def test_the_earlier_name_where_it_does_not_apply_is_refused(tmp_path: Path, entry: str,
                                                             message: str) -> None:
    text = f"dataset: {{name: breast_cancer}}\nalgorithms:\n  - {entry}\n"
    with pytest.raises(ConfigError, match=message):
        load_experiment(_config(tmp_path, text, "bad.yaml"))


def test_a_run_folder_of_the_earlier_spelling_resumes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run started with ``n_features`` (its manifest says so) resumes under the new spelling:
    its trials are kept byte for byte and its rows carry the model size ``m``."""
    out = tmp_path / "out"
    code, _, err = run_kernreg(["run", str(_config(tmp_path, OLD, "old.yaml")), "--out",
                                str(out), "--no-progress", "--trials", "1"], capsys)
    assert code == 0, err
    run = out / "renamed"
    manifest_path = run / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    assert [a.get("n_components") for a in manifest["config"]["algorithms"]] == [40, None, 30]
    for entry in manifest["config"]["algorithms"]:  # as a run folder begun before the rename
        if "n_components" in entry:
            entry["n_features"] = entry.pop("n_components")
    manifest_path.write_text(json.dumps(manifest))
    kept = {p.name: p.read_bytes() for p in (run / "trials").glob("*.h5")}
    assert len(kept) == 3
    code, _, err = run_kernreg(["run", str(_config(tmp_path, NEW, "new.yaml")), "--out",
                                str(out), "--no-progress", "--resume"], capsys)
    assert code == 0, err
    assert all((run / "trials" / name).read_bytes() == data for name, data in kept.items())
    assert len(list((run / "trials").glob("*.h5"))) == 6
    table = pd.read_csv(run / "results.csv")
    assert dict(zip(table.label, table.m, strict=True)) == {"rf": 40, "nkrls": 20, "sgm_rf": 30}


#: The Nyström stream's α grid when the hashes below were recorded (it is 0.001 steps now).
_ALPHAS_THEN = "alphas: [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]"


def _stream(tmp_path: Path, features: str, name: str) -> Path:
    text = (CONFIGS / "thesis_table7_nystrom.yaml").read_text()
    assert "features: {kind: nystrom, m: 1000, sigma: 5.0}" in text
    text = re.sub(r"alphas: .*", _ALPHAS_THEN, text)
    return _config(tmp_path, text.replace("kind: nystrom, m: 1000", features), name)


@pytest.mark.parametrize("kind, key, recorded", [
    # the committed config with its earlier α grid, hashed by the code before the rename
    ("nystrom", "m", "932e942ed4f79179e3c1eb9e735f7042fd74bde49baa33b0cabc8314668c9271"),
    # the same config with rff features, hashed by the code before the rename
    ("rff", "n_components", "6f773cf0bb11da6c221d74ec5ead99e056fca0092663f0079cb9b104eb6fbec5"),
])
def test_the_streams_earlier_size_is_read_as_its_kinds_key(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str, key: str,
        recorded: str) -> None:
    new = load_stream(_stream(tmp_path, f"kind: {kind}, {key}: 1000", "new.yaml"))
    assert "read as" not in caplog.text
    with caplog.at_level(logging.WARNING, logger="kernreg.config"):
        old = load_stream(_stream(tmp_path, f"kind: {kind}, size: 1000", "old.yaml"))
    assert f"model.features.size is read as model.features.{key} for {kind}" in caplog.text
    assert old.model == new.model and old.model["features"] == {"kind": kind, key: 1000,
                                                                 "sigma": 5.0}
    assert old.config_hash() == new.config_hash() == recorded
    assert load_stream(tmp_path / "old.yaml", smoke=True).config_hash() == \
        load_stream(tmp_path / "new.yaml", smoke=True).config_hash()
    # a stored manifest of either spelling reads the same
    assert current_features({"kind": kind, "size": 1000}) == {"kind": kind, key: 1000}
    assert current_features({"kind": kind, key: 1000}) == {"kind": kind, key: 1000}


@pytest.mark.parametrize("features, message", [
    ("kind: rff, m: 1000", "model.features.n_components: required for rff features"),
    ("kind: nystrom, n_components: 1000", "model.features.m: required for nystrom features"),
    ("kind: rff, n_components: 1000, m: 10", "model.features.m: the size of nystrom features"),
    ("kind: linear, size: 1000", "unknown key 'size'"),
])
def test_the_streams_sizes_are_checked_by_kind(tmp_path: Path, features: str,
                                               message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_stream(_stream(tmp_path, features, "bad.yaml"))
