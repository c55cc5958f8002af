"""``kernreg configs``: the paper configs shipped with kernreg, listed or shown."""

from __future__ import annotations

import shutil
import textwrap

import click

from kernreg.config.library import config_entries, resolve_config, shipped_configs_dir
from kernreg.errors import ConfigError


def resolve_config_argument(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Click callback of a CONFIG argument: a path, or the name of a shipped config."""
    return str(resolve_config(value))


@click.command()
@click.argument("name", required=False)
@click.option("--path", "show_path", is_flag=True,
              help="Print the file's path instead of its text (to copy it and edit the copy).")
def configs(name: str | None, show_path: bool) -> None:
    """List the configs shipped with kernreg, or show the one called NAME.

    Every one runs by name from any folder: `kernreg run adult_nytro` (a table config's
    every run: `kernreg run table2`; a streaming one: `kernreg run thesis_table7`).
    """
    if name is None:
        if show_path:
            raise click.UsageError("--path needs a NAME")
        entries = config_entries()
        if not entries:
            raise ConfigError("no shipped configs found (a broken installation?)")
        width = max(len(e.name) for e in entries)
        columns = shutil.get_terminal_size((100, 24)).columns
        for entry in entries:
            lead = f"{entry.name:<{width}}  {entry.kind:<10}  "
            summary = textwrap.shorten(entry.summary, max(60, columns - len(lead)),
                                       placeholder=" …")
            click.echo(lead + summary)
        click.echo(f"\n{len(entries)} configs in {shipped_configs_dir()}; "
                   f"`kernreg configs NAME` shows one, `kernreg run NAME` runs it.")
        return
    path = resolve_config(name)
    if not path.is_file():
        raise ConfigError(f"config file {path} not found")
    if show_path:
        click.echo(str(path))
    else:
        click.echo(path.read_text(encoding="utf-8"), nl=False)
