"""Where the shipped configs are, and how a command line names a config file: below the
config loader, whose messages name a config as a person would type it."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

__all__ = ["SUFFIXES", "config_reference", "shipped_configs_dir"]

#: The file suffixes of a config.
SUFFIXES = (".yaml", ".yml")


def shipped_configs_dir() -> Path | None:
    """The folder of the shipped configs: ``kernreg/configs`` in an installed wheel, else the
    ``configs/`` of the source checkout kernreg is imported from; None when neither exists."""
    package = Path(str(resources.files("kernreg")))
    installed = package / "configs"
    if installed.is_dir():
        return installed
    # a checkout: its pyproject.toml beside the package tells it from a site-packages folder,
    # whose configs/ (if any) would belong to some other distribution
    checkout = package.parent / "configs"
    if (package.parent / "pyproject.toml").is_file() and checkout.is_dir():
        return checkout
    return None


def config_reference(path: str | os.PathLike[str]) -> str:
    """How to name a config file on a command line here: its path from the working folder
    when it lies below it (``configs/adult_nytro.yaml`` in a checkout), else its name when it is
    a shipped config (``adult_nytro``), else the path as given."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        pass
    folder = shipped_configs_dir()
    if folder is not None and path.suffix in SUFFIXES \
            and path.resolve().parent == folder.resolve():
        return path.stem
    return str(path)
