"""Finding dataset files: offline mirror first, then the cache, then a verified download.

Every file is checked against its registry checksum before use. A cached file that fails the
check is moved to ``<cache>/quarantine/`` (never silently used, never silently deleted); a mirror
file that fails is skipped and reported (mirrors are often read-only). Downloads go through
pooch, which writes to a temporary file and only moves it into the cache once the checksum
matches.
"""

from __future__ import annotations

import importlib.resources
import logging
import os
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import pooch

from kernreg.datasets.spec import DatasetSpec, RemoteFile, Source
from kernreg.errors import DataError
from kernreg.switches import env_switch

log = logging.getLogger("kernreg.datasets")

ENV_MIRROR = "KERNREG_MIRROR"
ENV_CACHE = "KERNREG_CACHE"
ENV_OFFLINE = "KERNREG_OFFLINE"
ENV_RETRIES = "KERNREG_DOWNLOAD_RETRIES"
DOWNLOAD_RETRIES = 3


@dataclass(frozen=True)
class DataSettings:
    """Where files are looked for and whether the network may be used."""

    mirror: Path | None
    cache_dir: Path
    offline: bool = False
    retries: int = DOWNLOAD_RETRIES

    @property
    def raw_dir(self) -> Path:
        return self.cache_dir / "raw"

    @property
    def processed_dir(self) -> Path:
        return self.cache_dir / "processed"

    @property
    def quarantine_dir(self) -> Path:
        return self.cache_dir / "quarantine"


def resolve_settings(
    mirror: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    offline: bool | None = None,
) -> DataSettings:
    """Combine explicit arguments with the ``KERNREG_*`` environment variables.

    Explicit arguments win; then ``KERNREG_MIRROR``, ``KERNREG_CACHE``, ``KERNREG_OFFLINE`` (a
    switch, :mod:`kernreg.switches`: ``1``/``true``/``yes``/``on`` or
    ``0``/``false``/``no``/``off``);
    the cache defaults to the platform cache folder (``~/.cache/kernreg`` on Linux).
    ``KERNREG_DOWNLOAD_RETRIES`` (default 3) sets how often a failed download is retried.
    """
    mirror = mirror or os.environ.get(ENV_MIRROR) or None
    if mirror is not None:
        mirror = Path(mirror).expanduser()
        if not mirror.is_dir():
            raise DataError(
                f"mirror folder {mirror} does not exist (from --mirror or {ENV_MIRROR})"
            )
    cache = cache_dir or os.environ.get(ENV_CACHE) or pooch.os_cache("kernreg")
    if offline is None:  # a switch: on/off values only, anything else a ConfigError
        offline = bool(env_switch(ENV_OFFLINE))
    retries = os.environ.get(ENV_RETRIES, str(DOWNLOAD_RETRIES))
    if not retries.isdigit():
        raise DataError(f"{ENV_RETRIES} must be a non-negative integer, got {retries!r}")
    return DataSettings(mirror=mirror, cache_dir=Path(cache).expanduser(), offline=offline,
                        retries=int(retries))


def file_digest(path: Path, algorithm: str = "sha256") -> str:
    """Hex digest of a file's bytes."""
    return pooch.file_hash(str(path), alg=algorithm)


@dataclass
class Acquired:
    """The local copies of one source's files, and what was noticed on the way."""

    source: Source
    paths: list[Path]
    sha256: list[str]


@dataclass
class _Search:
    """Problems met while looking for files, to be reported if nothing usable is found."""

    problems: list[str] = field(default_factory=list)


def _pin_path(settings: DataSettings, spec: DatasetSpec, rf: RemoteFile) -> Path:
    return settings.raw_dir / spec.name / f"{rf.name}.sha256"


def _verify(
    path: Path, rf: RemoteFile, spec: DatasetSpec, settings: DataSettings
) -> tuple[str, bool]:
    """Return the file's sha256 and whether it matches the registry (or its pin).

    A file with no published checksum is pinned on first use: its sha256 is written next to the
    cache, a warning says so, and every later read must match the pin.
    """
    sha256 = file_digest(path)
    if rf.known_hash is not None:
        algo, _, expected = rf.known_hash.partition(":")
        actual = sha256 if algo == "sha256" else file_digest(path, algo)
        return sha256, actual == expected.lower()
    pin = _pin_path(settings, spec, rf)
    if pin.exists():
        return sha256, pin.read_text().strip() == sha256
    pin.parent.mkdir(parents=True, exist_ok=True)
    pin.write_text(sha256 + "\n")
    log.warning(
        "%s: no published checksum is known for %s; pinned its sha256 %s (%s)",
        spec.name, rf.name, sha256, pin,
    )
    return sha256, True


def _quarantine(path: Path, spec: DatasetSpec, settings: DataSettings) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    target = settings.quarantine_dir / spec.name / f"{path.name}.{stamp}.bad"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(path), target)
    return target


def _expected(rf: RemoteFile) -> str:
    return rf.known_hash or "no published checksum (pinned on first use)"


def _local_candidates(rf: RemoteFile, spec: DatasetSpec, settings: DataSettings) -> list[Path]:
    paths = []
    if settings.mirror is not None:
        paths += [settings.mirror / p for p in rf.mirror_paths]
        paths.append(settings.mirror / rf.name)
    paths.append(settings.raw_dir / spec.name / rf.name)
    if rf.package_file is not None:
        package, name = rf.package_file
        try:
            paths.append(Path(str(importlib.resources.files(package).joinpath(name))))
        except ModuleNotFoundError:
            pass
    return paths


def _find_local(
    rf: RemoteFile, spec: DatasetSpec, settings: DataSettings, search: _Search
) -> tuple[Path, str] | None:
    for path in _local_candidates(rf, spec, settings):
        if not path.is_file():
            continue
        sha256, ok = _verify(path, rf, spec, settings)
        if ok:
            return path, sha256
        in_cache = settings.cache_dir in path.parents
        where = f"moved to {_quarantine(path, spec, settings)}" if in_cache else "skipped"
        search.problems.append(
            f"checksum mismatch: {path} (expected {_expected(rf)}, got sha256:{sha256}); {where}"
        )
    return None


#: Downloads that failed in this process, by URL: tried once per invocation (a table of
#: runs on one missing dataset would otherwise retry it for each run).
_FAILED_DOWNLOADS: dict[str, str] = {}


def _download(
    rf: RemoteFile, spec: DatasetSpec, settings: DataSettings, search: _Search
) -> tuple[Path, str] | None:
    folder = settings.raw_dir / spec.name
    for url in rf.urls:
        if url in _FAILED_DOWNLOADS:
            search.problems.append(f"download of {url} failed (earlier in this run: "
                                   f"{_FAILED_DOWNLOADS[url]})")
            continue
        try:
            path = _fetch(folder, rf, url, settings.retries)
        except Exception as exc:  # network, HTTP and checksum errors all mean: try the next URL
            _FAILED_DOWNLOADS[url] = _short(exc)
            search.problems.append(f"download of {url} failed: {_short(exc)}")
            continue
        sha256, ok = _verify(path, rf, spec, settings)
        if ok:
            return path, sha256
        moved = _quarantine(path, spec, settings)
        search.problems.append(f"checksum mismatch after download of {url}; moved to {moved}")
    return None


#: Errors that say the host cannot be reached at all (no name resolution, no route):
#: retrying the URL within seconds cannot help, so it is tried once.
_UNREACHABLE = ("NameResolutionError", "Failed to resolve", "Name or service not known",
                "Temporary failure in name resolution", "Network is unreachable",
                "No route to host")


def _fetch(folder: Path, rf: RemoteFile, url: str, retries: int) -> Path:
    """Download ``rf`` from ``url`` into ``folder`` (pooch checks its known hash): one try,
    then ``retries`` more with pooch's back-off unless the host is unreachable."""
    def attempt(retry_if_failed: int) -> Path:
        fetcher = pooch.create(path=folder, base_url="", registry={rf.name: rf.known_hash},
                               urls={rf.name: url}, retry_if_failed=retry_if_failed)
        return Path(fetcher.fetch(rf.name, progressbar=True))

    try:
        return attempt(0)
    except Exception as exc:
        if retries == 0 or any(word in repr(exc) for word in _UNREACHABLE):
            raise
    return attempt(retries - 1)


def _short(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) < 200 else text[:197] + "…"


def acquire(spec: DatasetSpec, settings: DataSettings) -> Acquired:
    """Return verified local paths for the first source whose files can all be had.

    Local copies (mirror, then cache) of every source are preferred over any download; downloads
    are tried only when no source is complete locally and ``settings.offline`` is false.

    Raises
    ------
    DataError
        If no source can be completed. The message names each missing file, where to put it,
        and any checksum or download problem met.
    """
    search = _Search()
    found: dict[tuple[str, str], tuple[Path, str]] = {}
    for source in spec.sources:
        for rf in source.files:
            hit = _find_local(rf, spec, settings, search)
            if hit is not None:
                found[(source.name, rf.name)] = hit
        if all((source.name, rf.name) in found for rf in source.files):
            return _acquired(source, found)
    if not settings.offline:
        for source in spec.sources:
            for rf in source.files:
                key = (source.name, rf.name)
                if key not in found:
                    hit = _download(rf, spec, settings, search)
                    if hit is None:
                        break
                    found[key] = hit
            else:
                return _acquired(source, found)
    raise DataError(_missing_message(spec, settings, found, search))


def _acquired(source: Source, found: dict[tuple[str, str], tuple[Path, str]]) -> Acquired:
    hits = [found[(source.name, rf.name)] for rf in source.files]
    return Acquired(source=source, paths=[h[0] for h in hits], sha256=[h[1] for h in hits])


def local_source(spec: DatasetSpec, settings: DataSettings) -> str | None:
    """Name of the first source whose files all exist locally (existence only, no checksum)."""
    for source in spec.sources:
        if all(any(p.is_file() for p in _local_candidates(rf, spec, settings))
               for rf in source.files):
            return source.name
    return None


def _missing_message(
    spec: DatasetSpec,
    settings: DataSettings,
    found: dict[tuple[str, str], tuple[Path, str]],
    search: _Search,
) -> str:
    network = "offline mode" if settings.offline else "download failed"
    lines = [f"dataset {spec.name!r}: required files are not available ({network})."]
    for i, source in enumerate(spec.sources):
        missing = [rf for rf in source.files if (source.name, rf.name) not in found]
        label = "put" if i == 0 else "or, instead, put"
        lines.append(f"  {label} these files ({source.name}: {source.description}):")
        for rf in missing:
            places = [str(settings.raw_dir / spec.name / rf.name)]
            if rf.mirror_paths:
                mirror = settings.mirror or Path(f"${ENV_MIRROR}")
                places.insert(0, str(mirror / rf.mirror_paths[0]))
            lines.append(f"    - {rf.name} [{_expected(rf)}] from {rf.urls[0]}")
            lines.append(f"      at {' or '.join(places)}")
    lines += [f"  note: {p}" for p in search.problems]
    return "\n".join(lines)
