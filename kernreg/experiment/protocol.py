"""Registered protocols: what a protocol is, its registry, and the one loop that runs any of
them.

The hold-out protocol (seeded 80/20 selection of every algorithm, :mod:`kernreg.experiment.
runner`) is the core. Any other way of running trials — thesis Chapter 7's class-incremental
stream, Chapter 8's online regression, a user's own — is a :class:`ProtocolSpec` registered
with :func:`register_protocol` under the ``protocol.kind`` its configs name. A spec says how to
read its config, prepare what every trial shares, refuse before anything is written
(preflight), run one trial, and summarise finished trials as a table, figures and data files;
:func:`run_protocol` does the rest the same way for every protocol: the run folder's lock,
manifest and resume (:class:`~kernreg.results.trial_store.TrialStore`), one atomically written
file per trial, BLAS threads, progress, the outputs.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from threadpoolctl import threadpool_limits
from tqdm import tqdm

from kernreg.atomic import write_text
from kernreg.config import HOLDOUT, protocol_kind, read_yaml
from kernreg.config.settings import apply_settings
from kernreg.errors import ConfigError, ResultsError
from kernreg.experiment.provenance import source_commit, utc_now
from kernreg.experiment.resources import environment
from kernreg.registry import Registry
from kernreg.results.trial_store import Record, TrialStore
from kernreg.switches import check_environment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["ProtocolConfig", "ProtocolRun", "ProtocolSpec", "StoredRun", "get_protocol",
           "load_protocol_config", "protocol_names", "protocol_specs", "read_protocol_run",
           "register_protocol", "report_items", "run_protocol", "save_protocol_figures",
           "unregister_protocol", "write_outputs"]

log = logging.getLogger(__name__)


class ProtocolConfig(Protocol):
    """What :func:`run_protocol` needs of a protocol's validated config."""

    name: str
    path: Path | None
    budget: dict[str, Any]

    @property
    def trials(self) -> int:
        """How many trials the run holds (trial ``k`` depends only on the config and ``k``)."""

    def as_dict(self) -> dict[str, Any]:
        """The normalised config, defaults filled in: stored in the manifest, and what the
        summaries read (it names ``protocol.kind``)."""

    def config_hash(self) -> str:
        """sha256 of what decides a trial's numbers."""


def _no_files(config: Mapping[str, Any], records: Sequence[Record]) -> dict[str, str]:
    return {}


def _no_provenance(cfg: Any, prepared: Any) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class ProtocolSpec:
    """Everything kernreg knows about one protocol.

    Parameters
    ----------
    kind
        ``protocol.kind`` of its configs.
    description
        One line: what a run of it does (``kernreg configs``).
    load
        ``load(data, path) -> config``: a parsed YAML mapping (``--set`` and the command line's
        overrides applied, at smoke size where asked) validated, defaults filled in; every
        problem one :class:`~kernreg.errors.ConfigError` naming ``path`` and the key.
    smoke
        ``smoke(data) -> data``: the mapping at smoke size (a copy), before ``load``.
    prepare
        ``prepare(config) -> prepared``: what every trial shares (the data, a trained state),
        once per invocation, before anything is written.
    preflight
        ``preflight(config, prepared)``: raise :class:`~kernreg.errors.ConfigError` or
        :class:`~kernreg.experiment.preflight.BudgetError` for what the data or the memory
        budget cannot hold, before anything is written.
    trial
        ``trial(config, prepared, k) -> record``: trial ``k``'s record
        (:data:`~kernreg.results.trial_store.Record`; ``attrs`` holds ``trial`` and
        ``config_hash``).
    table
        ``table(config, records) -> markdown``: the run's table from its normalised config
        (the manifest's) and its finished trials, in trial order.
    figures
        ``figures(config, records) -> {file name: matplotlib figure}``; names from
        ``figure_files``.
    files
        ``files(config, records) -> {file name: text}``: data files (a tidy CSV); names from
        ``data_files``.
    table_file, figure_files, data_files
        The outputs it writes into the run folder (``--force`` deletes them).
    provenance
        ``provenance(config, prepared) -> dict``: what the manifest records of the data
        (``dataset``, ``dataset_sha256``, a generated source's packages).
    seed_key
        The key ``--seed`` sets (``("protocol", "seed")``; a simulation's own seed).
    """

    kind: str
    description: str
    load: Callable[[dict[str, Any], Path], ProtocolConfig]
    smoke: Callable[[dict[str, Any]], dict[str, Any]]
    prepare: Callable[[Any], Any]
    preflight: Callable[[Any, Any], object]
    trial: Callable[[Any, Any, int], Record]
    table: Callable[[Mapping[str, Any], Sequence[Record]], str]
    figures: Callable[[Mapping[str, Any], Sequence[Record]], dict[str, Figure]]
    figure_files: tuple[str, ...]
    table_file: str = "table.md"
    files: Callable[[Mapping[str, Any], Sequence[Record]], dict[str, str]] = _no_files
    data_files: tuple[str, ...] = ()
    provenance: Callable[[Any, Any], dict[str, Any]] = _no_provenance
    seed_key: tuple[str, str] = ("protocol", "seed")

    @property
    def outputs(self) -> tuple[str, ...]:
        """Every file a run writes at the top of its folder besides the manifest."""
        return (self.table_file, *self.figure_files, *self.data_files)


def _check(spec: ProtocolSpec) -> ProtocolSpec:
    if spec.kind == HOLDOUT:
        raise ValueError(f"protocol {HOLDOUT!r} is the core's (kernreg.experiment.runner)")
    return spec


_PROTOCOLS: Registry[ProtocolSpec] = Registry("protocol", lambda spec: _check(spec).kind,
                                              error=ConfigError)
#: The package whose import registers the built-in protocols. It sits above this registry, so
#: the registry loads it by name on first use, the way a plugin is loaded.
BUILTIN_PROTOCOLS = "kernreg.protocols"


def _registered() -> Registry[ProtocolSpec]:
    importlib.import_module(BUILTIN_PROTOCOLS)  # once: then a lookup in sys.modules
    return _PROTOCOLS


def register_protocol(spec: ProtocolSpec) -> ProtocolSpec:
    """Register ``spec`` under ``spec.kind``: configs naming it run through
    :func:`run_protocol` (``kernreg run``) and their run folders are summarised by it
    (``kernreg table``, ``plot``, ``report``)."""
    return _PROTOCOLS.register(spec)


def unregister_protocol(kind: str) -> None:
    """Remove the protocol registered as ``kind`` (a test's toy)."""
    _PROTOCOLS.unregister(kind)


def get_protocol(kind: str) -> ProtocolSpec:
    """The protocol registered as ``kind``; else a :class:`~kernreg.errors.ConfigError`
    naming the registered ones."""
    return _registered().get(kind)


def protocol_names() -> list[str]:
    """The registered protocol kinds, the core's :data:`~kernreg.config.experiment.HOLDOUT`
    first."""
    return [HOLDOUT, *_registered().names()]


def protocol_specs() -> list[ProtocolSpec]:
    """The registered protocols, in registration order."""
    return list(_registered())


@dataclass
class ProtocolRun:
    """What :func:`run_protocol` did: every finished trial (in order), how many of them an
    earlier invocation had finished, the run folder and the outputs written."""

    records: list[Record]
    resumed: int
    seconds: float
    run_dir: Path
    written: list[Path] = field(default_factory=list)


def write_outputs(spec: ProtocolSpec, config: Mapping[str, Any], records: Sequence[Record],
                  folder: Path, root: Path | None = None) -> list[Path]:
    """Write the protocol's table, figures and data files of ``records`` into ``folder``
    (atomically; ``root``: the run folder they must stay inside); return the paths."""
    from kernreg.results.figures import save_figure  # matplotlib loads only here

    written = []
    for name, text in ((spec.table_file, spec.table(config, records)),
                       *spec.files(config, records).items()):
        write_text(folder / name, text, advice="make the folder writable", root=root)
        written.append(folder / name)
    for name, figure in spec.figures(config, records).items():
        written += save_figure(figure, [folder / name])
    return written


def run_protocol(spec: ProtocolSpec, cfg: ProtocolConfig, out: str | Path, *,
                 resume: bool = False, force: bool = False, progress: bool = True,
                 settings: Sequence[str] = ()) -> ProtocolRun:
    """Run every trial of ``cfg`` not finished yet under ``out/<name>``, then write the
    protocol's outputs of all finished trials there.

    The run holds its folder's lock throughout (a second command on the folder is refused);
    the ``KERNREG_*`` switches, the data and the preflight come before the first write, so a
    refused run leaves no folder behind. Each trial's file is written atomically when it ends;
    ``resume`` keeps them, ``force`` deletes an earlier run of this experiment and protocol
    first. ``settings``: the ``--set`` texts, recorded in the manifest.
    """
    check_environment()
    started_at, clock = utc_now(), time.perf_counter()
    store = TrialStore(Path(out) / cfg.name, spec.outputs)
    config = cfg.as_dict()
    with store.lock(), threadpool_limits(limits=cfg.budget["blas_threads"]):
        prepared = spec.prepare(cfg)
        spec.preflight(cfg, prepared)
        manifest = {"experiment": cfg.name, "config": config, "config_hash": cfg.config_hash(),
                    "config_file": str(cfg.path) if cfg.path else "",
                    **spec.provenance(cfg, prepared), "environment": environment(),
                    "git_commit": source_commit(), "started_at": started_at,
                    "settings": list(settings)}
        store.open(manifest, resume=resume, force=force)
        todo = [t for t in range(cfg.trials) if not store.completed(t)]
        for trial in tqdm(todo, desc=cfg.name, unit="trial",
                          disable=None if progress else True, leave=False):  # a terminal's
            start = time.perf_counter()
            store.save_trial(trial, spec.trial(cfg, prepared, trial))
            log.info("%s trial %d in %.3g s", cfg.name, trial, time.perf_counter() - start)
        records = [r for r in store.load_trials() if r["attrs"]["trial"] < cfg.trials]
        written = write_outputs(spec, config, records, store.run_dir, root=store.run_dir)
        store.update_manifest(finished_at=utc_now())
    return ProtocolRun(records, len(records) - len(todo), time.perf_counter() - clock,
                       store.run_dir, written)


def load_protocol_config(spec: ProtocolSpec, path: str | Path, *, trials: int | None = None,
                         seed: int | None = None, smoke: bool = False,
                         settings: Sequence[str] = ()) -> ProtocolConfig:
    """Read the config file ``path`` of ``spec``'s protocol as ``kernreg run`` does: at smoke
    size (``smoke``), then ``--trials`` and ``--seed`` (``trials``, ``seed``, into
    ``protocol.trials`` and the spec's ``seed_key``), then the ``--set KEY=VALUE`` texts, then
    validated by the spec; an error caused with ``--set`` says so.

    Raises
    ------
    ConfigError
        Unreadable YAML, or a problem of the config (naming the file and the key).
    """
    path = Path(path)
    data = read_yaml(path)
    if smoke:
        data = spec.smoke(data)
    for (section, key), value in ((("protocol", "trials"), trials), (spec.seed_key, seed)):
        if value is not None and isinstance(data, dict):
            if not isinstance(data.setdefault(section, {}), dict):
                raise ConfigError(f"{path}: {section}: expected a mapping")
            data[section][key] = value
    if not settings:
        return spec.load(data, path)
    try:
        return spec.load(apply_settings(data, settings), path)
    except ConfigError as exc:
        if str(exc).startswith("--set"):
            raise
        raise ConfigError(f"{exc}\n(the config with --set {' --set '.join(settings)})") from None


@dataclass
class StoredRun:
    """A finished run of a registered protocol as its folder holds it: the protocol, the
    manifest (its ``config`` the normalised config) and the finished trials in order."""

    spec: ProtocolSpec
    manifest: dict[str, Any]
    records: list[Record]
    run_dir: Path

    @property
    def config(self) -> dict[str, Any]:
        return self.manifest["config"]


def read_protocol_run(run_dir: str | Path) -> StoredRun | None:
    """The stored run in ``run_dir`` when it is a registered protocol's (None: a hold-out run,
    or no run folder: the hold-out readers name what is wrong).

    Raises
    ------
    ConfigError
        Its protocol is not registered here (a plugin not loaded).
    ResultsError
        Its manifest or a trial file is damaged, or no trial has finished.
    """
    store = TrialStore(run_dir)
    if not store.manifest_path.is_file():
        return None
    manifest = store.manifest()
    kind = protocol_kind(manifest.get("config"))
    if kind == HOLDOUT:
        return None
    try:
        spec = get_protocol(kind)
    except ConfigError as exc:
        raise ConfigError(f"{run_dir}: a run of the {kind!r} protocol: {exc}") from None
    store = TrialStore(run_dir, spec.outputs)
    store.remove_temporaries_if_idle()
    trials = manifest["config"].get("protocol", {}).get("trials")
    records = [r for r in store.load_trials()
               if not isinstance(trials, int) or r["attrs"]["trial"] < trials]
    if not records:
        raise ResultsError(f"no finished trial of the run in {run_dir}")
    return StoredRun(spec, manifest, records, Path(run_dir))


def report_items(run_dirs: Sequence[str | Path]) -> list[Any]:
    """The runs of a report: a hold-out run folder as it is, a protocol's run as the
    :class:`~kernreg.results.report.ReportSection` its protocol's table and figures make."""
    from kernreg.results.report import ReportSection, manifest_rows  # matplotlib loads here

    items: list[Any] = []
    for run_dir in run_dirs:
        stored = read_protocol_run(run_dir)
        if stored is None:
            items.append(run_dir)
            continue
        kind = stored.spec.kind
        items.append(ReportSection(
            f"{stored.config.get('name', Path(run_dir).name)} — {kind.replace('_', ' ')}",
            manifest_rows(Path(run_dir), stored.manifest),
            stored.spec.table(stored.config, stored.records),
            stored.spec.figures(stored.config, stored.records)))
    return items


def save_protocol_figures(stored: StoredRun, out_dir: str | Path,
                          formats: Sequence[str]) -> list[Path]:
    """Draw the figures of a protocol's run into ``out_dir``, each in every format of
    ``formats`` (``png``, ``pdf``, ``svg``); return the files written."""
    from kernreg.results.figures import save_figure  # matplotlib loads only here

    written = []
    for name, figure in stored.spec.figures(stored.config, stored.records).items():
        stem = Path(name).stem
        written += save_figure(figure, [Path(out_dir) / f"{stem}.{fmt}" for fmt in formats])
    return written
