"""``kernreg data``: list, fetch and describe the registered datasets; inspect a file of
one's own."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np
import pandas as pd
import yaml

from kernreg.datasets import (
    Dataset,
    DatasetSpec,
    DataSettings,
    dataset_names,
    get_spec,
    load_dataset,
    resolve_settings,
)
from kernreg.datasets.cache import cache_path
from kernreg.datasets.fetch import ENV_CACHE, ENV_MIRROR, ENV_OFFLINE, local_source
from kernreg.errors import DataError, KernregError, MissingDependencyError

if TYPE_CHECKING:
    from kernreg.datasets.files import FileData, FileDatasetSpec


def data_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The options every ``data`` sub-command shares: mirror, cache folder, offline mode."""
    func = click.option("--offline", is_flag=True, default=None,
                        help=f"Never download (also: {ENV_OFFLINE}=1).")(func)
    func = click.option("--cache-dir", type=click.Path(file_okay=False),
                        help=f"Cache folder (default: ${ENV_CACHE} or the user cache).")(func)
    func = click.option("--mirror", "--data-dir", "mirror", type=click.Path(file_okay=False),
                        help=f"Offline mirror consulted before any download (${ENV_MIRROR}).")(func)
    return func


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


@click.group()
def data() -> None:
    """List, fetch and describe datasets."""


@data.command("list")
@data_options
def list_(mirror: str | None, cache_dir: str | None, offline: bool | None) -> None:
    """Table of every registered dataset and where its data is."""
    settings = resolve_settings(mirror, cache_dir, offline)
    rows = []
    for name in dataset_names():
        spec = get_spec(name)
        rows.append({
            "name": name, "n_train": spec.n_train, "n_test": spec.n_test, "d": spec.d,
            "task": spec.task, "σ": _fmt(spec.sigma), "m": _fmt(spec.m),
            "cached": "yes" if cache_path(settings.processed_dir, spec, np.dtype("float64"))
            .is_file() else "no",
            "files": _where(spec, settings),
        })
    click.echo(pd.DataFrame(rows).to_string(index=False))


def _where(spec: DatasetSpec, settings: DataSettings) -> str:
    source = local_source(spec, settings)
    return f"local ({source})" if source else "download needed"


@data.command()
@click.argument("names", nargs=-1, required=True)
@click.option("--dtype", type=click.Choice(["float64", "float32"]), default="float64",
              show_default=True, help="Dtype of the binary cache to build.")
@click.option("--skip-missing", is_flag=True,
              help="Report datasets whose files cannot be had, but exit 0.")
@data_options
def fetch(names: tuple[str, ...], dtype: str, skip_missing: bool, mirror: str | None,
          cache_dir: str | None, offline: bool | None) -> None:
    """Obtain, verify, parse and cache NAMES (or `all`)."""
    wanted = dataset_names() if names == ("all",) else [get_spec(n).name for n in names]
    failures = []
    for name in wanted:
        start = time.perf_counter()
        try:
            ds = load_dataset(name, mirror=mirror, cache_dir=cache_dir, offline=offline,
                              dtype=dtype)
        except (DataError, MissingDependencyError) as exc:  # a reader's missing extra too
            failures.append(name)
            click.echo(f"{name}: {'skipped' if skip_missing else 'FAILED'}\n{exc}", err=True)
            continue
        how = "cache" if ds.from_cache else f"source {ds.source}"
        click.echo(f"{name}: train {ds.X_train.shape[0]}, test {ds.X_test.shape[0]}, "
                   f"d {ds.X_train.shape[1]} ({how}, {time.perf_counter() - start:.1f} s)")
    if failures and not skip_missing:
        raise KernregError(f"{len(failures)} dataset(s) not fetched: {', '.join(failures)}")


@data.command()
@click.argument("name")
@data_options
def info(name: str, mirror: str | None, cache_dir: str | None, offline: bool | None) -> None:
    """Shapes, statistics, source files and preprocessing of NAME."""
    spec = get_spec(name)
    ds = load_dataset(name, mirror=mirror, cache_dir=cache_dir, offline=offline)
    click.echo(_describe(spec, ds))


def _describe(spec: DatasetSpec, ds: Dataset) -> str:
    lines = [
        f"{spec.name}: {spec.title}",
        f"  aliases        {', '.join(spec.aliases) or '—'}",
        f"  task           {spec.task}",
        f"  shape          train {ds.X_train.shape[0]} / test {ds.X_test.shape[0]} / "
        f"d {ds.X_train.shape[1]}",
        f"  paper defaults σ = {_fmt(spec.sigma)}, m = {_fmt(spec.m)}",
        f"  split          {spec.split.describe()}",
        "  preprocessing  " + ("; ".join(p.description for p in spec.preprocessing)
                              or "none (used as published)"),
        f"  features       min {ds.X_train.min():.4g}, max {ds.X_train.max():.4g}, "
        f"mean {ds.X_train.mean():.4g} (train)",
    ]
    for part, y in (("train", ds.y_train), ("test", ds.y_test)):
        if spec.task == "classification":
            values, counts = np.unique(y, return_counts=True)
            text = ", ".join(f"{v:+g}: {c}" for v, c in zip(values, counts, strict=True))
        else:
            text = f"mean {y.mean():.4g}, std {y.std():.4g}, range [{y.min():.4g}, {y.max():.4g}]"
        lines.append(f"  target {part:<7} {text}")
    source = next(s for s in spec.sources if s.name == ds.source)
    lines.append(f"  source         {source.name}: {source.description}")
    for rf, f in zip(source.files, ds.files, strict=True):
        lines.append(f"    {rf.name}  sha256 {f['sha256']}")
        lines.append(f"      {rf.urls[0]}")
    lines.append(f"  reference      {spec.reference}")
    if spec.notes:
        lines.append(f"  notes          {spec.notes}")
    return "\n".join(lines)


@data.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", metavar="FORMAT",
              help="libsvm, csv, tsv, npy, npz, hdf5 or parquet (default: from the suffix).")
@click.option("--target", help="The target column (csv, tsv, parquet) or array key (npz, hdf5).")
@click.option("--features", help="The features' array key (npz, hdf5; default X).")
@click.option("--task", type=click.Choice(["regression", "binary", "multiclass"]),
              help="Default: inferred from the target.")
@click.option("--test-file", type=click.Path(dir_okay=False), help="A separate test file.")
@click.option("--n-features", type=int, help="libsvm: the width, when the file's largest index "
                                               "is smaller.")
@click.option("--preprocessing", multiple=True, metavar="STEP",
              type=click.Choice(["none", "standardize", "minmax", "unit-norm"]),
              help="A step fitted on the training rows (repeatable, in order): the suggested "
                   "σ is of the preprocessed rows.")
def inspect(file: str, fmt: str | None, target: str | None, features: str | None,
            task: str | None, test_file: str | None, n_features: int | None,
            preprocessing: tuple[str, ...]) -> None:
    """Describe a data file of your own as kernreg reads it: rows, columns, sparsity, dense
    size, the target (the task it implies, label counts or mean and std), the suggested σ and
    a config's `dataset:` block that reads it so. A file kernreg cannot use is refused with
    the reason (exit status 2)."""
    # imported here: the reader's libraries are not every command's
    from kernreg.datasets.files import FileDatasetSpec, read_file_dataset

    spec = FileDatasetSpec(file=Path(file), format=fmt, target=target, features=features,
                           task=task, test_file=Path(test_file) if test_file else None,
                           n_features=n_features, preprocessing=preprocessing)
    read = read_file_dataset(spec, seed=0)
    y = np.concatenate([read.y_train, read.y_test])
    lines = [f"{file}: {read.format}, {read.n_rows} rows × {read.n_columns} columns, "
             f"{read.sparsity:.1%} zeros, {read.dense_bytes / 2**20:.3g} MiB dense (float64)",
             "NaN/inf: none (a file holding any is refused)",
             f"target: task {read.task}" + (" (inferred)" if task is None else "")]
    if read.task == "regression":
        lines.append(f"  mean {np.mean(y):.6g}, std {np.std(y):.6g}, range "
                     f"[{np.min(y):.6g}, {np.max(y):.6g}]")
    else:
        codes, counts = np.unique(y, return_counts=True)
        names = read.labels if read.task == "binary" else None
        for i, (code, count) in enumerate(zip(codes, counts, strict=True)):
            shown = f"{names[i]!r} (coded {code:g})" if names else f"{code:g}"
            lines.append(f"  label {shown}: {count} rows")
    lines.append(f"suggested σ: {read.suggested_sigma:.4g} (the median distance between two "
                 f"training rows, ≤ 1000 drawn with seed 0, protocol.seed's default: a run takes "
                 f"it unless kernel.sigma or dataset.sigma says)")
    click.echo("\n".join([*lines, "a config's dataset block (paths absolute; relative ones are "
                          "taken from the config's folder):", dataset_block(spec, read)]))


def dataset_block(spec: FileDatasetSpec, read: FileData) -> str:
    """The ``dataset:`` block of a config reading the file as ``inspect`` did, as YAML."""
    block: dict[str, Any] = {"file": str(spec.file.absolute()), "format": read.format}
    if spec.target is not None:
        block["target"] = spec.target
    if spec.features is not None:
        block["features"] = spec.features
    if spec.test_file is not None:
        block["test_file"] = str(spec.test_file.absolute())
    else:
        block["test_fraction"] = spec.split_fraction
    block["task"] = read.task
    if spec.n_features is not None:
        block["n_features"] = spec.n_features
    if spec.preprocessing:
        block["preprocessing"] = list(spec.preprocessing)
    return yaml.safe_dump({"dataset": block}, sort_keys=False, allow_unicode=True).rstrip()
