"""The configs shipped with kernreg: every paper experiment, runnable by name.

The repository's ``configs/`` travels in the wheel as ``kernreg/configs`` (``setup.py``), so
``kernreg run adult_nytro`` works from any folder after ``pip install``. In a source checkout
(an editable install) the same files are read from the checkout's ``configs/``.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

from kernreg.config.experiment import HOLDOUT, protocol_kind
from kernreg.config.loader import read_yaml
from kernreg.config.shipped import SUFFIXES as _SUFFIXES
from kernreg.config.shipped import config_reference, shipped_configs_dir
from kernreg.datasets.own import file_dataset_name
from kernreg.errors import ConfigError

__all__ = ["ConfigEntry", "config_entries", "config_reference", "resolve_config",
           "shipped_configs_dir"]

def _shipped_names() -> dict[str, Path]:
    folder = shipped_configs_dir()
    if folder is None:
        return {}
    return {p.stem: p for p in sorted(folder.iterdir()) if p.suffix in _SUFFIXES}


def resolve_config(name_or_path: str | os.PathLike[str]) -> Path:
    """The config file a command-line CONFIG names.

    A path that exists is itself; a bare name (no folder, with or without ``.yaml``) is the
    shipped config of that name (``adult_nytro``, ``table2``).

    Raises
    ------
    ConfigError
        Neither a file nor a shipped config; close shipped names are suggested.
    """
    path = Path(name_or_path)
    if path.exists() or len(path.parts) != 1:
        return path  # a path, found or not: the loader names what is wrong with it
    stem = path.stem if path.suffix in _SUFFIXES else path.name
    shipped = _shipped_names()
    if stem in shipped:
        return shipped[stem]
    close = difflib.get_close_matches(stem, shipped, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise ConfigError(f"config {str(name_or_path)!r}: no such file, and no shipped config of "
                      f"that name{hint} (`kernreg configs` lists them)")


@dataclass(frozen=True)
class ConfigEntry:
    """One shipped config, as ``kernreg configs`` lists it."""

    name: str
    kind: str  #: "experiment" (hold-out), "table" or a registered protocol's kind
    dataset: str  #: the dataset's name in results ("" for a table config)
    summary: str  #: the first sentence of its description
    path: Path


def _summary(path: Path, data: dict) -> str:
    """The config's ``description:``, else its leading comment block, to the first period."""
    text = data.get("description")
    if not isinstance(text, str):
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            lines.append(line.lstrip("#").strip())
        text = " ".join(lines)
    text = " ".join(text.split())
    end = text.find(". ")
    return text[:end + 1] if end >= 0 else text


def _kind(data: dict) -> str:
    if "table" in data:
        return "table"
    kind = protocol_kind(data)
    return "experiment" if kind == HOLDOUT else kind


def _dataset_name(dataset: object) -> str:
    """A config's dataset as results name it: the registered name, ``file:<file name>``."""
    if not isinstance(dataset, dict):
        return ""
    if isinstance(dataset.get("file"), str):
        return file_dataset_name(dataset["file"])
    return str(dataset.get("name", ""))


def config_entries() -> list[ConfigEntry]:
    """Every shipped config, by name."""
    entries = []
    for name, path in _shipped_names().items():
        data = read_yaml(path)
        dataset = data.get("dataset")
        entries.append(ConfigEntry(
            name=name, kind=_kind(data),
            dataset=_dataset_name(dataset),
            summary=_summary(path, data), path=path))
    return entries
