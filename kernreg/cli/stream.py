"""``kernreg stream``: the former command of the streaming protocols, now run by ``kernreg
run``; it says so and what replaces its options."""

from __future__ import annotations

import click

from kernreg.errors import ConfigError


@click.command(context_settings={"ignore_unknown_options": True}, hidden=True)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def stream(args: tuple[str, ...]) -> None:
    """Removed: `kernreg run CONFIG` runs every protocol, with the same options."""
    raise ConfigError("`kernreg stream` is now `kernreg run` (every protocol, the same "
                      "options); its tables and figures are written into the run folder, "
                      "`kernreg table RUN -o FILE` and `kernreg plot RUN --out-dir DIR` write "
                      "them elsewhere (for --table and --figure)")
