"""Reading and validating experiment configs: YAML → schema → defaults → :class:`Experiment`.

Every problem becomes a :class:`~kernreg.errors.ConfigError` (exit status 2) whose message names
the file and the key path (``algorithms[1].stopping.window``) and says what is allowed.
"""

from __future__ import annotations

import copy
import difflib
import inspect
import logging
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from kernreg.atomic import path_component
from kernreg.config.estimators import make_estimator, multiclass_algorithms, takes_intercept
from kernreg.config.experiment import (
    HOLDOUT,
    LEGACY_KEYS,
    Algorithm,
    Experiment,
    expand_m,
    protocol_kind,
    trial_rows,
)
from kernreg.config.file_dataset import file_dataset_section
from kernreg.config.schema import experiment_schema
from kernreg.config.settings import apply_settings
from kernreg.config.shipped import config_reference
from kernreg.config.smoke import smoke_config
from kernreg.config.task import check_measures, check_task
from kernreg.datasets import DatasetSpec, get_spec, paper_default
from kernreg.errors import ConfigError, DataError
from kernreg.grid import is_grid
from kernreg.kernels import get_kernel_spec, kernel_names
from kernreg.losses import default_task
from kernreg.plugins import load_installed_plugins, load_plugins
from kernreg.solvers import AlgorithmSpec, algorithm_names, get_algorithm_spec
from kernreg.solvers.blocks.holdout import centers_problem
from kernreg.solvers.blocks.params import level_values
from kernreg.solvers.blocks.stopping import StoppingRule, default_selection

log = logging.getLogger("kernreg.config")

#: Limits of a config file (docs/usage.md): a real config is a few KB; past these a file is
#: refused before it can take seconds or gigabytes (PyYAML parses ~0.3 MB/s).
MAX_CONFIG_BYTES = 256 * 1024
MAX_DEPTH = 20          # nesting of lists and mappings
MAX_ALIASES = 100       # *alias references
MAX_NODES = 50_000      # values once aliases are expanded
MAX_LIST = 10_000       # items of one list, points of one grid (λ, m, levels)
MAX_TRIALS = 10_000
MAX_LOCAL_WORKERS = 1024
#: The most σ values a grid may hold (each is a full fit of every trial).
MAX_SIGMAS = 50
DEFAULT_PROTOCOL = {"trials": 5, "validation_fraction": 0.2, "seed": 0, "refit": False}
#: Folds of ``protocol: {selection: kfold}`` when ``folds`` is not given.
DEFAULT_FOLDS = 5
# BLAS threads "auto": the cores other processes leave idle when a trial starts (docs/speed.md)
DEFAULT_BUDGET = {"memory_gb": 20.0, "block_mb": 256.0, "blas_threads": "auto"}
MAX_REPORTED = 10
DEFAULT_KERNEL = "gaussian"


class _LimitExceeded(yaml.YAMLError):
    """A config passes one of the loader's limits (raised while composing)."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem)
        self.problem, self.problem_mark = problem, mark


class _UniqueKeyLoader(yaml.SafeLoader):
    """Safe YAML loader that refuses duplicate keys (PyYAML silently keeps the last one) and
    limits nesting depth and alias references while composing, before anything is built."""

    _depth = 0
    _aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise _LimitExceeded(f"more than {MAX_ALIASES} aliases (limit)",
                                     self.peek_event().start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _LimitExceeded(f"nested deeper than {MAX_DEPTH} levels (limit)",
                                     self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _check_graph(node: yaml.Node) -> None:
    """Refuse a recursive alias and a document whose aliases expand to more than
    :data:`MAX_NODES` values, or a list or mapping longer than :data:`MAX_LIST` (counted on the
    composed graph, shared nodes once: bounded time and memory)."""
    sizes: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:  # iterative: no recursion limit to reach
        current, done = stack.pop()
        key = id(current)
        children: list[yaml.Node] = []
        if isinstance(current, yaml.SequenceNode):
            children = list(current.value)
        elif isinstance(current, yaml.MappingNode):
            children = [n for pair in current.value for n in pair]
        if done:
            active.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_NODES:
                raise _LimitExceeded(f"aliases expand to more than {MAX_NODES} values (limit)",
                                     current.start_mark)
            continue
        if key in sizes:
            continue
        if key in active:
            raise _LimitExceeded("a recursive alias (a value that contains itself)",
                                 current.start_mark)
        if len(current.value) > MAX_LIST and not isinstance(current, yaml.ScalarNode):
            raise _LimitExceeded(f"a list or mapping of {len(current.value)} items; at most "
                                 f"{MAX_LIST} (limit)", current.start_mark)
        active.add(key)
        stack.append((current, True))
        for child in children:
            if id(child) in active:
                raise _LimitExceeded("a recursive alias (a value that contains itself)",
                                     child.start_mark)
            if id(child) not in sizes:
                stack.append((child, False))


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# YAML 1.1 reads `1e-15` (no dot) as a string; λ grids are written that way, so accept it.
_UniqueKeyLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def read_yaml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Parse a YAML mapping, with errors that name the file, line and column."""
    path = Path(path)
    try:
        with open(path, "rb") as f:  # never more than the limit into memory
            raw = f.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{config_reference(path)}: larger than "
                              f"{MAX_CONFIG_BYTES // 1024} KiB (the limit of a config file)")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {path} not found") from None
    except IsADirectoryError:
        raise ConfigError(f"config file {path} is a folder") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    try:
        loader = _UniqueKeyLoader(text)  # a SafeLoader subclass
        try:
            node = loader.get_single_node()
            if node is not None:
                _check_graph(node)
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except RecursionError:
        raise ConfigError(f"{config_reference(path)}: invalid YAML: nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{config_reference(path)}: invalid YAML{where}: {problem}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{config_reference(path)}: the config must be a mapping of keys to "
                          f"values")
    return data


def _key_path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _did_you_mean(unknown: list[Any], properties: dict[str, Any]) -> str:
    """`` (did you mean 'x'?)`` for unknown keys close to a key of this section or of one of
    its sections one level down (``trails`` → ``protocol.trials``); empty when none is."""
    keys = {key: repr(key) for key in properties}
    for name, sub in properties.items():
        if isinstance(sub, dict) and isinstance(sub.get("properties"), dict):
            keys.update({key: f"{name}.{key}" for key in sub["properties"] if key not in keys})
    close = [keys[match] for key in unknown
             for match in difflib.get_close_matches(str(key), list(keys), n=1, cutoff=0.75)]
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def _explain(error: jsonschema.ValidationError, prefix: list[Any]) -> str:
    """One line for one schema violation: the key path, then what is wrong and what is allowed."""
    where = _key_path([*prefix, *error.absolute_path])
    schema, value = error.schema, error.instance
    if error.validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        unknown = sorted(set(value) - set(allowed), key=str)
        hint = _did_you_mean(unknown, schema.get("properties", {}))
        return (f"{where}: unknown key{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(repr(k) for k in unknown)}{hint}; allowed keys: "
                f"{', '.join(allowed)}")
    if error.validator == "required":
        return f"{where}: {error.message.replace('is a required property', 'is required')}"
    if error.validator == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        return f"{where}: {value!r} is not allowed; allowed values: {allowed}"
    if error.validator == "type":
        return f"{where}: expected {error.validator_value}, got {value!r}"
    if error.validator in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        sign = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=",
                "exclusiveMaximum": "<"}[error.validator]
        return f"{where}: must be {sign} {error.validator_value}, got {value!r}"
    if error.validator == "oneOf":
        inner = _branch_errors(error)
        if inner:  # the value has the shape of one form: what is wrong inside it
            allowed = f" ({where} takes {schema['description']})" if "description" in schema \
                else ""
            return _explain(inner[0], prefix) + allowed
    if error.validator in ("oneOf", "pattern") and "description" in schema:
        return f"{where}: {value!r} is not valid; expected {schema['description']}"
    return f"{where}: {error.message}"


def _branch_errors(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """The errors of the one ``oneOf`` branch whose shape the value has (a list for the list
    form, a mapping with a form's keys for that form); none when no branch, or several, fit."""
    value = error.instance

    def fits(branch: dict[str, Any]) -> bool:
        kind = branch.get("type")
        if isinstance(value, list):
            return kind == "array"
        if isinstance(value, dict):
            return kind == "object" and set(branch.get("required", ())) <= set(value) \
                and bool(branch.get("required"))
        return False

    shaped = [i for i, branch in enumerate(error.validator_value) if fits(branch)]
    if len(shaped) != 1:
        return []
    return [e for e in error.context or () if e.relative_schema_path[0] == shaped[0]]


#: JSON Schema's "integer" admits 0.0 and 2.0; a seed, a count or an m written as a float
#: would then reach numpy and Python as a float. Here an integer is an ``int`` (not a bool).
_STRICT_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool))
_Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator,
                                          type_checker=_STRICT_TYPES)


def schema_problems(instance: Any, schema: dict[str, Any], prefix: list[Any]) -> list[str]:
    """One line per violation of ``schema`` by ``instance``, key paths under ``prefix``."""
    validator = _Validator(schema)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.path)))
    return [_explain(e, prefix) for e in errors]


def non_finite_problems(data: Any, prefix: tuple[Any, ...] = ()) -> list[str]:
    """One line per NaN or ±inf anywhere in ``data`` (YAML's ``.nan``, ``.inf``): no config
    value may be non-finite, whatever its key (JSON Schema's ``number`` accepts them)."""
    if isinstance(data, float) and not math.isfinite(data):
        return [f"{_key_path(prefix)}: must be a finite number, got {data!r}"]
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in non_finite_problems(v, (*prefix, k))]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in non_finite_problems(v, (*prefix, i))]
    return []


def raise_problems(path: Path, problems: list[str]) -> None:
    """Raise one :class:`ConfigError` naming ``path`` and listing ``problems`` (if any)."""
    if problems:
        shown = problems[:MAX_REPORTED]
        hidden = len(problems) - len(shown)
        more = f"\n  … and {hidden} more" if hidden else ""
        lines = "\n  ".join(shown)
        raise ConfigError(f"{config_reference(path)}: invalid config:\n  {lines}{more}")


def parse_experiment(data: dict[str, Any], path: Path, overrides: dict[str, Any] | None = None,
                     smoke: bool = False, settings: Sequence[str] = ()) -> Experiment:
    """Validate ``data`` (a parsed YAML mapping) and fill in defaults.

    ``overrides`` (e.g. ``{"protocol": {"trials": 2}}`` or ``{"device": "torch"}`` from the
    command line) are merged before validation, so they are checked like the file's own
    values: a mapping into its section, a value in place of the key's. ``smoke``: the config
    at smoke size (:func:`kernreg.config.smoke.smoke_config`), the overrides merged after.
    ``settings``: ``--set KEY=VALUE`` texts (:mod:`kernreg.config.settings`), applied last and
    named in any error they cause.
    """
    if not settings:
        return _parse_experiment(data, path, overrides, smoke)
    if not isinstance(data, dict):
        raise ConfigError(f"{config_reference(path)}: expected a mapping of config keys at the "
                          f"top level")
    try:
        exp = _parse_experiment(apply_settings(data, settings), path, overrides, smoke)
    except ConfigError as exc:
        if str(exc).startswith("--set"):
            raise
        raise ConfigError(f"{exc}\n(the config with --set {' --set '.join(settings)})") from None
    return replace(exp, settings=tuple(settings))


def _parse_experiment(data: dict[str, Any], path: Path, overrides: dict[str, Any] | None,
                      smoke: bool) -> Experiment:
    kind = protocol_kind(data)
    if kind != HOLDOUT:
        raise ConfigError(f"{config_reference(path)}: protocol.kind: {kind!r} is not the "
                          f"hold-out protocol; `kernreg run {config_reference(path)}` runs any "
                          f"registered protocol")
    _import_plugins(data, path)
    data, problems = _current_spelling(data, path)
    data = smoke_config(data, *_data_rows(data, path)) if smoke else copy.deepcopy(data)
    for section, values in (overrides or {}).items():
        if not isinstance(values, dict):  # a top-level value (device)
            data[section] = values
            continue
        data.setdefault(section, {})
        if isinstance(data[section], dict):
            data[section].update(values)
    raise_problems(path, non_finite_problems(data))  # before the schema's own, vaguer words
    problems += schema_problems(data, experiment_schema(), [])
    kernel = data.get("kernel", {})
    if isinstance(kernel, dict) and kernel.get("name", DEFAULT_KERNEL) in kernel_names():
        schema = get_kernel_spec(kernel.get("name", DEFAULT_KERNEL)).config_schema()
        if is_grid(kernel.get("sigma")):  # a σ grid: its own schema
            problems += _sigma_grid_problems(kernel["sigma"])
            if "sigma" not in get_kernel_spec(kernel.get("name", DEFAULT_KERNEL)).parameters:
                problems.append(f"kernel.sigma: the {kernel.get('name')} kernel has no σ to "
                                f"select")
            kernel = {k: v for k, v in kernel.items() if k != "sigma"}
        problems += schema_problems(kernel, schema, ["kernel"])
    algorithms = data.get("algorithms")
    for i, algo in enumerate(algorithms if isinstance(algorithms, list) else []):
        if isinstance(algo, dict) and algo.get("name") in algorithm_names():
            schema = get_algorithm_spec(algo["name"]).config_schema()
            problems += schema_problems(algo, schema, ["algorithms", i])
    raise_problems(path, problems)
    exp = _with_defaults(data, path, problems)
    return replace(exp, smoke=True) if smoke else exp


def _import_plugins(data: dict[str, Any], path: Path) -> None:
    """The installed plugins and the config's ``plugins:`` imported before anything is checked:
    they register the algorithms, kernels and feature maps the config may name."""
    load_installed_plugins()
    plugins = data.get("plugins")
    if plugins is None:
        return
    if not isinstance(plugins, list) or not all(isinstance(p, str) and p for p in plugins):
        raise ConfigError(f"{config_reference(path)}: plugins: expected a list of module "
                          f"names or Python files, got {plugins!r}")
    try:
        load_plugins(plugins, path)
    except ConfigError as exc:
        raise ConfigError(f"{config_reference(path)}: {exc}") from None


def _current_spelling(data: dict[str, Any], path: Path) -> tuple[dict[str, Any], list[str]]:
    """``data`` with each algorithm entry's earlier keys (:data:`LEGACY_KEYS`, e.g.
    ``n_features``) under their current names where its algorithm takes them, each with a
    deprecation note; an entry giving both spellings is a problem. ``data`` is not
    modified."""
    algorithms = data.get("algorithms") if isinstance(data, dict) else None
    if not isinstance(algorithms, list):
        return data, []
    problems: list[str] = []
    entries = []
    for i, entry in enumerate(algorithms):
        takes = get_algorithm_spec(entry["name"]).schema if isinstance(entry, dict) and \
            entry.get("name") in algorithm_names() else {}
        for new, old in LEGACY_KEYS.items():
            if new not in takes or old not in entry:
                continue
            entry = dict(entry)
            value = entry.pop(old)
            if new in entry:
                problems.append(f"algorithms[{i}]: {old} and {new} are one parameter (its "
                                f"earlier and current name); give {new} only")
                continue
            log.warning("%s: algorithms[%d].%s is read as %s; write it so (the old spelling "
                        "will be refused in a later version)", path, i, old, new)
            entry[new] = value
        entries.append(entry)
    return {**data, "algorithms": entries}, problems


#: σ kept away from the ends of the float range: the kernels compute σ², 1/σ² and x/σ².
SIGMA_RANGE = {"float64": (1e-150, 1e150), "float32": (1e-18, 1e18)}

_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)"
                   r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
                   r"|\[[0-9A-Fa-f:.]+\]")


def scheduler_problem(scheduler: str) -> str | None:
    """What is wrong with a scheduler address (``None``: nothing): ``local``, ``local:N`` with
    1 ≤ N ≤ 1024, or ``tcp://host:port`` / ``tls://host:port`` with a host name or IP address
    and a port in 1–65535 (``inproc://`` exists only inside one process: refused)."""
    if scheduler == "local":
        return None
    if scheduler.startswith("local:"):
        count = scheduler[6:]
        if count.isdigit() and count.isascii() and 1 <= int(count) <= MAX_LOCAL_WORKERS:
            return None
        return f"local:N needs 1 <= N <= {MAX_LOCAL_WORKERS} worker processes, got {count!r}"
    scheme, sep, rest = scheduler.partition("://")
    if not sep or scheme not in ("tcp", "tls"):
        return (f"{scheduler!r}: expected local, local:N or tcp://host:port (tls://host:port "
                f"with Dask's TLS settings)")
    host, colon, port = rest.rpartition(":")
    if not colon or not _HOST.fullmatch(host):
        return f"{scheduler!r}: expected {scheme}://host:port with a host name or IP address"
    if not (port.isdigit() and port.isascii() and 1 <= int(port) <= 65535):
        return f"{scheduler!r}: the port must be a number in 1-65535, got {port!r}"
    return None


def _grid_problems(data: dict[str, Any]) -> list[str]:
    """Grids (``{logspace|linspace: [a, b, count]}``, ``{range: [start, stop, step]}``) of at
    most :data:`MAX_LIST` points, checked before any grid is built."""
    problems = []

    def visit(value: Any, where: str) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                here = f"{where}.{key}"
                if key in ("logspace", "linspace") and isinstance(inner, list) and \
                        len(inner) == 3 and isinstance(inner[2], int) and inner[2] > MAX_LIST:
                    problems.append(f"{here}: {inner[2]} points; at most {MAX_LIST} (limit)")
                elif key == "range" and isinstance(inner, list) and len(inner) == 3 and \
                        all(isinstance(v, int) and v > 0 for v in inner) and \
                        (inner[1] - inner[0]) // inner[2] + 1 > MAX_LIST:
                    problems.append(f"{here}: {(inner[1] - inner[0]) // inner[2] + 1} values; "
                                    f"at most {MAX_LIST} (limit)")
                else:
                    visit(inner, here)

    algorithms = data.get("algorithms")
    for i, algo in enumerate(algorithms if isinstance(algorithms, list) else []):
        visit(algo, f"algorithms[{i}]")
    return problems


def experiment_name(data: dict[str, Any], path: Path, problems: list[str]) -> str:
    """The experiment's name — ``name``, else the file's stem — which becomes its run folder
    under ``--out``: one that cannot be a folder name (``.``, ``..``, a newline, a slash) is
    added to ``problems``."""
    name = data["name"] if "name" in data else path.stem
    try:
        path_component(name, "name" if "name" in data else
                       f"name (none given, so the file name {path.name!r})")
    except ConfigError as exc:
        problems.append(str(exc))
    return name


def _with_defaults(data: dict[str, Any], path: Path, problems: list[str]) -> Experiment:
    """The :class:`Experiment` of a config that passed its schemas: each section with its
    defaults filled in and checked against the others, every problem reported at once."""
    exp_name = experiment_name(data, path, problems)
    problems += _grid_problems(data)
    raise_problems(path, problems)
    protocol = _protocol(data.get("protocol", {}), problems)
    budget = {**DEFAULT_BUDGET, **data.get("budget", {})}
    dataset, spec = _dataset(data["dataset"], path, protocol["seed"], budget["memory_gb"],
                             problems)
    protocol = _intercept(protocol, data, dataset, problems)
    task = check_task(data.get("task"), spec, problems)
    measures = check_measures(data.get("measures", []), task, spec, problems)
    kernel = _kernel(data.get("kernel", {}), spec, dataset["dtype"], problems)
    execution = _execution(data.get("execution", {}), problems)
    if protocol.get("selection") == "kfold" and is_grid(kernel.get("sigma")):
        problems.append("kernel.sigma: a σ grid is selected on the hold-out split; with "
                        "protocol.selection: kfold give one σ")
    run = _Run(spec, dataset, kernel, protocol, execution, task,
               _fit_rows(dataset, spec, protocol, problems))
    algorithms, entries = _algorithms(data["algorithms"], run, problems)
    raise_problems(path, problems)
    exp = Experiment(
        name=exp_name,
        path=path,
        dataset=dataset,
        kernel=kernel,
        algorithms=tuple(algorithms),
        protocol=protocol,
        budget=budget,
        description=data.get("description", ""),
        execution=execution,
        task=task,
        device=data.get("device", "cpu"),
        plugins=tuple(data.get("plugins", ())),
        measures=measures,
        sigma_source="" if "sigma" not in kernel else
        "kernel.sigma" if "sigma" in data.get("kernel", {}) else "dataset",
        tf32=data.get("tf32", False),
    )
    raise_problems(path, _estimator_problems(exp, entries))
    return exp


def _dataset(entry: dict[str, Any], path: Path, seed: int, memory_gb: float,
             problems: list[str]) -> tuple[dict[str, Any], DatasetSpec]:
    """The ``dataset:`` section with its defaults (``dtype``, ``target_coding``) and the
    registered name, or a data file's section (:mod:`kernreg.config.file_dataset`, the file
    read with the protocol's ``seed`` within ``memory_gb``), and the dataset's spec; an unknown
    dataset, or a file that cannot be used, stops here."""
    dataset = {"dtype": "float64", "target_coding": "pm1", **entry}
    if "file" in dataset:
        dataset, spec, _ = file_dataset_section(dataset, path, seed, memory_gb)
    else:
        try:
            spec = get_spec(dataset["name"])
        except DataError as exc:
            raise ConfigError(f"{config_reference(path)}: dataset.name: {exc}") from None
        dataset["name"] = spec.name
    if dataset["target_coding"] != "pm1" and spec.task != "classification":
        problems.append(f"dataset.target_coding: {spec.name} is a regression dataset; only "
                        f"classes can be coded {dataset['target_coding']}")
    return dataset, spec


def _protocol(entry: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """The ``protocol:`` section with its defaults, at most :data:`MAX_TRIALS` trials."""
    protocol = {**DEFAULT_PROTOCOL, **entry}
    protocol.pop("kind", None)  # the hold-out's own kind, said or not: one config, one hash
    if protocol.get("fit_intercept") is False:
        del protocol["fit_intercept"]  # false is the default: earlier hashes stand
    if not protocol.get("record_test_path", True):
        del protocol["record_test_path"]  # false is the default: earlier hashes stand
    if protocol.get("test_split") == "fixed":
        del protocol["test_split"]  # the dataset's own split is the default: hashes stand
    if protocol.get("selection", "holdout") == "holdout":
        protocol.pop("selection", None)  # the hold-out is the default: earlier hashes stand
        if "folds" in protocol:
            problems.append("protocol.folds: only with protocol.selection: kfold")
    else:
        protocol.setdefault("folds", DEFAULT_FOLDS)
        if "validation_fraction" in entry:
            problems.append("protocol.validation_fraction: k-fold selection validates on each "
                            "fold in turn; give protocol.folds instead")
        protocol.pop("validation_fraction")
        if protocol.get("record_test_path"):
            problems.append("protocol.record_test_path: k-fold selection tests one model, "
                            "fitted on all training rows at the selection (no path of "
                            "models to test)")
    if protocol["trials"] > MAX_TRIALS:
        problems.append(f"protocol.trials: {protocol['trials']}; at most {MAX_TRIALS} (limit)")
    return protocol


def _intercept(protocol: dict[str, Any], data: dict[str, Any], dataset: dict[str, Any],
               problems: list[str]) -> dict[str, Any]:
    """``protocol.fit_intercept`` as the run takes it: as given, else true on a data file when
    every algorithm fits an intercept (the square-loss ones) and false on a registered dataset
    (the papers' setting, left out of the normalised config: earlier hashes stand). Given true
    with an algorithm that fits none (the hinge-loss ones) is a problem."""
    given = data.get("protocol", {}).get("fit_intercept")
    names = [a.get("name") for a in data["algorithms"]]
    without = [(i, n) for i, n in enumerate(names) if not takes_intercept(n)]
    if given is None and "file" in dataset:
        return {**protocol, "fit_intercept": not without}
    if given:
        problems += [f"protocol.fit_intercept: algorithms[{i}] ({name}) fits no intercept; "
                     f"set protocol.fit_intercept: false or run it in a config of its own"
                     for i, name in without]
    elif given is False and "file" in dataset:
        return {**protocol, "fit_intercept": False}
    return protocol


def _execution(entry: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """The ``execution:`` section with its default scheduler (``local``), checked."""
    execution = {"scheduler": "local", **entry}
    problem = scheduler_problem(execution["scheduler"])
    if problem:
        problems.append(f"execution.scheduler: {problem}")
    return execution


def _fit_rows(dataset: dict[str, Any], spec: DatasetSpec, protocol: dict[str, Any],
              problems: list[str]) -> int:
    """The fewest rows a trial fits on (:func:`~kernreg.config.experiment.trial_rows`: the
    hold-out's fit rows, or k-fold's smallest fold complement) of the config's training rows
    (at most the dataset's); a ``n_train`` or ``n_test`` above the dataset's adds a
    problem."""
    n_train = min(dataset.get("n_train", spec.n_train), spec.n_train)
    if "n_test" in dataset and dataset["n_test"] > spec.n_test:
        problems.append(f"dataset.n_test: {dataset['n_test']} exceeds the {spec.n_test} test "
                        f"rows of {spec.name}")
    if "n_train" in dataset and dataset["n_train"] > spec.n_train:
        problems.append(f"dataset.n_train: {dataset['n_train']} exceeds the {spec.n_train} "
                        f"training rows of {spec.name}")
    return trial_rows(protocol, n_train)[0]


@dataclass(frozen=True)
class _Run:
    """The sections an algorithm entry is checked against, defaults filled in."""

    spec: DatasetSpec
    dataset: dict[str, Any]
    kernel: dict[str, Any]
    protocol: dict[str, Any]
    execution: dict[str, Any]
    task: str | None
    n_fit: int


def _algorithms(entries: list[dict[str, Any]], run: _Run, problems: list[str]
                ) -> tuple[list[Algorithm], list[int]]:
    """The run's algorithms, one per entry and swept m, and the entry each comes from."""
    algorithms: list[Algorithm] = []
    sources: list[int] = []
    labels: set[str] = set()
    for i, entry in enumerate(entries):
        algo_spec = get_algorithm_spec(entry["name"])
        name, label, params = _algorithm_params(i, entry, algo_spec, run.spec, problems)
        ms = _centers(i, params, algo_spec, run, problems)
        problems += _fit_problems(i, name, params, algo_spec, run)
        for algo in _swept(i, name, label, params, ms, labels, problems):
            algorithms.append(algo)
            sources.append(i)
    return algorithms, sources


def _algorithm_params(i: int, entry: dict[str, Any], algo_spec: AlgorithmSpec,
                      spec: DatasetSpec, problems: list[str]) -> tuple[str, str, dict[str, Any]]:
    """An entry's name, label and parameters, the algorithm's defaults filled in: its
    stopping rule completed, a λ logspace from a low end below its high end."""
    params = {**algo_spec.defaults(), **copy.deepcopy(entry)}
    name, label = params.pop("name"), params.pop("label", entry["name"])
    if "stopping" in params:
        params["stopping"] = _stopping(entry.get("stopping", {}), spec,
                                       f"algorithms[{i}].stopping", problems)
    if "lambdas" in params and isinstance(params["lambdas"], dict):
        low, high, _ = params["lambdas"]["logspace"]
        if low >= high:
            problems.append(f"algorithms[{i}].lambdas.logspace: low ({low:g}) must be "
                            f"smaller than high ({high:g})")
    return name, label, params


def _centers(i: int, params: dict[str, Any], algo_spec: AlgorithmSpec, run: _Run,
             problems: list[str]) -> list[int | None]:
    """The m values of an entry with Nyström centers (``[None]`` without): the dataset's paper
    m where none is given, each within the rows left for fitting and above the levels of
    ``m_values``."""
    if not algo_spec.takes_centers:
        return [None]
    if "m" not in params:
        params["m"] = paper_default(run.spec, "m", f"algorithms[{i}].m", problems)
    values = expand_m(params["m"])
    if values == []:
        problems.append(f"algorithms[{i}].m.range: start exceeds stop, no value")
    ms = values or [None]
    for m in ms:
        problem = None if m is None else centers_problem(m, run.n_fit)
        if problem:
            problems.append(f"algorithms[{i}].m: {problem}")
    problems += _check_levels(params, ms, f"algorithms[{i}].m_values")
    return ms


def _fit_problems(i: int, name: str, params: dict[str, Any], algo_spec: AlgorithmSpec,
                  run: _Run) -> list[str]:
    """What keeps an entry from fitting in this run: a Dask backend without a cluster, its
    algorithm's own rules, a task or target coding it cannot fit, a test path it cannot
    record."""
    problems = []
    if params.get("backend") == "dask" and run.execution["scheduler"] == "local":
        problems.append(f"algorithms[{i}].backend: dask spreads the rows over a Dask "
                        f"cluster: run with --scheduler local:N or a scheduler's address")
    if algo_spec.check is not None:
        problems += [f"algorithms[{i}].{p}" for p in algo_spec.check(params, run.kernel["name"])]
    if run.spec.task == "multiclass" and name not in multiclass_algorithms():
        problems.append(f"algorithms[{i}].name: {name} fits one output; {run.spec.name} is "
                        f"multiclass, which the one-vs-all least-squares classifiers fit: "
                        f"{', '.join(multiclass_algorithms())} (or the class-incremental "
                        f"stream, `protocol: {{kind: streaming}}`)")
    elif run.spec.task == "multiclass":  # k coded outputs: float64 products in this process
        for key, single in (("precision", "mixed"), ("backend", "dask")):
            if params.get(key) == single:
                problems.append(f"algorithms[{i}].{key}: {single} fits one output; "
                                f"{run.spec.name} is multiclass (one output per class): "
                                f"leave {key} out")
    elif algo_spec.tasks:
        run_task = run.task or default_task(run.spec.task).name
        coding = run.dataset["target_coding"]
        if run_task not in algo_spec.tasks or coding != "pm1":
            problems.append(
                f"algorithms[{i}].name: {name} fits {' or '.join(algo_spec.tasks)} targets "
                f"coded ±1; this run is {run_task} on {run.spec.name} (a {run.spec.task} "
                f"dataset, target_coding {coding})")
    selects = algo_spec.estimator.path_parameter
    if run.protocol.get("selection") == "kfold" and selects not in ("lambda", "iterations"):
        problems.append(f"algorithms[{i}].name: {name} selects {selects or 'nothing'} on a "
                        f"grid it refits on no parameter of its own; k-fold selection refits "
                        f"at a λ or an iteration count: run it with protocol.selection: "
                        f"holdout")
    if run.protocol.get("record_test_path") and not records_test_path(algo_spec.estimator):
        problems.append(f"protocol.record_test_path: algorithms[{i}] ({name}) has no "
                        f"path of models to evaluate on the test rows (its fit takes no "
                        f"X_eval; the λ-path algorithms do: "
                        f"{', '.join(test_path_algorithms())})")
    return problems


def _swept(i: int, name: str, label: str, params: dict[str, Any], ms: list[int | None],
           labels: set[str], problems: list[str]) -> list[Algorithm]:
    """One :class:`Algorithm` per m of an entry (labelled ``<label>_m<m>`` in a sweep), each
    label a folder name not used before (``labels``, which it extends)."""
    algorithms = []
    sweep = len(ms) > 1 or isinstance(params.get("m"), dict | list)
    for m in ms:
        one = {**params, "m": m} if m is not None else params
        if sweep and params.get("m_values") is not None:
            # each swept m validates the shared levels it reaches
            levels = Algorithm(name, label, params).m_levels() or []
            one["m_values"] = [v for v in levels if v <= m] or [m]
        one_label = f"{label}_m{m}" if sweep else label
        try:
            path_component(one_label, f"algorithms[{i}].label")
        except ConfigError as exc:
            problems.append(str(exc))
        if one_label in labels:
            problems.append(f"algorithms[{i}].label: {one_label!r} is used twice; give "
                            f"each entry a distinct label")
        labels.add(one_label)
        algorithms.append(Algorithm(name, one_label, one))
    return algorithms


def _estimator_problems(exp: Experiment, entries: list[int]) -> list[str]:
    """The estimators check their own parameters, with the code their fit runs: a value the
    schema lets through (or a combination of values) is rejected now, before a run writes.
    (On the numpy device: whether this machine has the config's device, and what an
    estimator says on it, is the run's preflight, kernreg.experiment.devices.)"""
    problems = []
    for i, algo in zip(entries, exp.algorithms, strict=True):
        try:
            make_estimator(algo, exp, random_state=0).check_params()
        except ValueError as exc:
            problems.append(f"algorithms[{i}] ({algo.label}): {exc}")
    return problems


def _sigma_grid_problems(grid: Any) -> list[str]:
    """A σ grid (``kernel: {sigma: ...}``) is a list of distinct positive numbers or
    ``{logspace: [low, high, count]}``, with at most :data:`MAX_SIGMAS` values."""
    form = (f"a σ grid is a list of distinct positive numbers or {{logspace: [low, high, "
            f"count]}} with 1 ≤ count ≤ {MAX_SIGMAS}")

    def positive(v: Any) -> bool:
        return isinstance(v, int | float) and not isinstance(v, bool) and v > 0

    if isinstance(grid, list):
        if not grid or len(grid) > MAX_SIGMAS or not all(map(positive, grid)) or \
                len(set(grid)) != len(grid):
            return [f"kernel.sigma: {grid!r}: {form}"]
        return []
    values = grid.get("logspace") if set(grid) == {"logspace"} else None
    if not (isinstance(values, list) and len(values) == 3 and positive(values[0])
            and positive(values[1]) and isinstance(values[2], int)
            and not isinstance(values[2], bool) and 1 <= values[2] <= MAX_SIGMAS):
        return [f"kernel.sigma: {grid!r}: {form}"]
    return []


def _sigma_problems(sigma: Any, low: float, high: float, dtype: str) -> list[str]:
    """σ, or every σ of a grid, inside the range a kernel of ``dtype`` can evaluate; a
    logspace from a low end below its high end."""
    if sigma is None or (is_grid(sigma) and _sigma_grid_problems(sigma)):
        return []  # no σ, or a malformed grid (reported on its own)
    if isinstance(sigma, dict):
        start, stop, _ = sigma["logspace"]
        if start >= stop:
            return [f"kernel.sigma.logspace: low ({start:g}) must be smaller than high "
                    f"({stop:g})"]
        values = [start, stop]
    else:
        values = sigma if isinstance(sigma, list) else [sigma]
    return [f"kernel.sigma: {v!r} is outside [{low:g}, {high:g}], the range a {dtype} kernel "
            f"can evaluate" for v in values if not low <= v <= high]


def records_test_path(estimator: type) -> bool:
    """Whether an estimator class evaluates its path's models on extra rows (``X_eval``)."""
    return "X_eval" in inspect.signature(estimator.fit).parameters


def test_path_algorithms() -> list[str]:
    """The registered algorithms whose trials can record a test path."""
    return [n for n in algorithm_names() if records_test_path(get_algorithm_spec(n).estimator)]


def _kernel(entry: dict[str, Any], spec: DatasetSpec, dtype: str, problems: list[str]
            ) -> dict[str, Any]:
    """The ``kernel:`` section with its registered defaults filled in; a bandwidth ``sigma``
    without one takes the dataset's paper σ; σ (each σ of a grid) within the range a kernel of
    ``dtype`` can evaluate."""
    kernel = {"name": DEFAULT_KERNEL, **entry}
    kernel_spec = get_kernel_spec(kernel["name"])
    for param in kernel_spec.parameters:
        if param in kernel:
            continue
        if param in kernel_spec.defaults:
            kernel[param] = copy.deepcopy(kernel_spec.defaults[param])
        elif param == "sigma":
            kernel["sigma"] = paper_default(spec, "sigma", "kernel.sigma", problems)
        else:
            problems.append(f"kernel.{param}: required for the {kernel['name']} kernel")
    problems += _sigma_problems(kernel.get("sigma"), *SIGMA_RANGE[dtype], dtype)
    return kernel


def _stopping(entry: dict[str, Any], spec: DatasetSpec, where: str, problems: list[str]
              ) -> dict[str, Any]:
    """The stopping rule of an algorithm entry with defaults filled in: ``window_slope``
    without a threshold takes the dataset's (the authors' value for that dataset), and the
    reported iteration (``select``) defaults to the rule's own."""
    default = StoppingRule()
    stopping = {"rule": default.name, "window": default.window, "threshold": default.threshold,
                **entry}
    if stopping["rule"] == "window_slope" and "threshold" not in entry:
        if spec.stopping_threshold is None:
            problems.append(f"{where}.threshold: required for window_slope; dataset "
                            f"{spec.name} has no threshold of the authors")
        else:
            stopping["threshold"] = spec.stopping_threshold
    stopping.setdefault("select", default_selection(stopping["rule"]))
    return stopping


def _check_levels(params: dict[str, Any], ms: list[int | None], where: str) -> list[str]:
    """``m_values`` (levels m' of a path over the centers) must lie in ``[1, m]`` for every swept
    ``m``."""
    spec = params.get("m_values")
    if spec is None:
        return []
    levels = level_values(spec) or []
    if isinstance(spec, dict) and spec["linspace"][0] > spec["linspace"][1]:
        return [f"{where}.linspace: start ({spec['linspace'][0]}) must not exceed stop "
                f"({spec['linspace'][1]})"]
    # a single m must reach every level; a sweep gives each m the levels it reaches
    top = max((m for m in ms if m is not None), default=None)
    if top is not None and levels and max(levels) > top:
        return [f"{where}: levels up to {max(levels)} exceed m = {top}"]
    return []


def load_experiment(path: str | os.PathLike[str], overrides: dict[str, Any] | None = None,
                    smoke: bool = False, settings: Sequence[str] = ()) -> Experiment:
    """Read, validate and complete an experiment config file (``smoke``: at smoke size;
    ``settings``: ``--set KEY=VALUE`` texts applied last)."""
    path = Path(path)
    return parse_experiment(read_yaml(path), path, overrides, smoke, settings)


def _data_rows(data: dict[str, Any], path: Path) -> tuple[int | None, int | None]:
    """The test and training rows of the config's dataset, when it names a registered one or
    a data file that can be read (a file that cannot is reported by the config's own
    checks)."""
    dataset = data.get("dataset")
    if not isinstance(dataset, dict):
        return None, None
    if "file" in dataset:
        protocol, budget = data.get("protocol"), data.get("budget")
        seed = protocol.get("seed", 0) if isinstance(protocol, dict) else 0
        memory_gb = budget.get("memory_gb", DEFAULT_BUDGET["memory_gb"]) \
            if isinstance(budget, dict) else DEFAULT_BUDGET["memory_gb"]
        if schema_problems(dataset, experiment_schema()["properties"]["dataset"], []) or \
                not isinstance(seed, int) or not isinstance(memory_gb, int | float):
            return None, None
        try:
            spec = file_dataset_section(dataset, path, seed, memory_gb)[1]
        except (ConfigError, DataError):
            return None, None
        return spec.n_test, spec.n_train
    try:
        return get_spec(dataset["name"]).n_test, None
    except (DataError, KeyError, TypeError):
        return None, None
