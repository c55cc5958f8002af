"""``--set KEY=VALUE``: one value of a config changed from the command line.

``KEY`` is a dotted path into the YAML (``protocol.trials``, ``kernel.sigma``,
``budget.memory_gb``); an entry of ``algorithms`` is named by its label or its algorithm name,
or by its position (``algorithms.nytro.max_iter``, ``algorithms.0.m``). ``VALUE`` is read as
YAML (``3``, ``1e-5``, ``[500, 1000]``, ``{rule: none}``, ``true``). The result is validated
exactly like the file (:func:`kernreg.config.loader.parse_experiment`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import yaml

from kernreg.errors import ConfigError

__all__ = ["apply_settings", "parse_setting"]

#: A ``--set`` longer than this is refused before it is parsed (bounded work on any input).
MAX_SETTING_CHARS = 10_000


def parse_setting(text: str) -> tuple[list[str], Any]:
    """``"a.b=VALUE"`` as ``(["a", "b"], value)``.

    Raises
    ------
    ConfigError
        No ``=``, an empty key or key part, or a value that is not YAML.
    """
    if len(text) > MAX_SETTING_CHARS:
        raise ConfigError(f"--set: longer than {MAX_SETTING_CHARS} characters")
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"--set {text!r}: expected KEY=VALUE (e.g. protocol.trials=3)")
    parts = key.split(".")
    if any(not p.strip() for p in parts):
        raise ConfigError(f"--set {key}: an empty part in the key")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"--set {key}: the value is not YAML: {problem}") from None
    if value is None:
        raise ConfigError(f"--set {key}: no value (give KEY=VALUE; the config's own value "
                          f"stays if --set is left out)")
    return [p.strip() for p in parts], value


def _list_index(items: list[Any], part: str, key: str) -> int:
    """The position in a config list (``algorithms``) that ``part`` names: an index, else the
    entry whose label, or else whose name, it is."""
    if part.lstrip("-").isdigit():
        index = int(part)
        inside = -len(items) <= index < len(items)
        labelled = [i for i, item in enumerate(items) if isinstance(item, dict)
                    and str(item.get("label", item.get("name"))) == part]
        if labelled and (not inside or labelled != [index % len(items)]):  # which one is meant?
            position = f"entry {index}" if inside else "no entry"
            raise ConfigError(f"--set {key}: {part!r} is the label of entry {labelled[0]} and "
                              f"the position of {position}; give that entry a label that is "
                              f"not a number")
        if not inside:
            raise ConfigError(f"--set {key}: no entry {index} (there are {len(items)})")
        return index
    for field in ("label", "name"):
        found = [i for i, item in enumerate(items)
                 if isinstance(item, dict) and item.get(field, item.get("name")) == part]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise ConfigError(f"--set {key}: {len(found)} entries have the {field} {part!r}; "
                              f"name one by its label or position")
    names = [str(item.get("label", item.get("name"))) for item in items
             if isinstance(item, dict)]
    raise ConfigError(f"--set {key}: no entry {part!r} (entries: {', '.join(names)})")


def apply_settings(data: dict[str, Any], settings: Sequence[str]) -> dict[str, Any]:
    """A copy of the raw config ``data`` with each ``KEY=VALUE`` of ``settings`` applied in
    turn (missing mappings on the way are made; a list is entered by label, name or index).

    Raises
    ------
    ConfigError
        A setting that cannot be parsed, or a key that goes through a value that is neither a
        mapping nor a list.
    """
    data = copy.deepcopy(data)
    for text in settings:
        parts, value = parse_setting(text)
        key = ".".join(parts)
        node: Any = data
        for depth, part in enumerate(parts):
            last = depth == len(parts) - 1
            if isinstance(node, list):
                index = _list_index(node, part, key)
                if last:
                    node[index] = value
                else:
                    node = node[index]
            elif isinstance(node, dict):
                if last:
                    node[part] = value
                else:
                    node = node.setdefault(part, {})
            else:
                where = ".".join(parts[:depth])
                raise ConfigError(f"--set {key}: {where} is a single value "
                                  f"({node!r}), not a section")
    return data
