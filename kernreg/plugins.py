"""Plugins: a user's modules that register algorithms, kernels, feature maps or datasets.

A plugin is a Python module that, when imported, calls the public registration functions
(``kernreg.register_algorithm``, ``register_kernel``, ``register_feature_map``,
``register_dataset``). kernreg imports plugins from two places:

- the ``kernreg.plugins`` entry-point group of installed distributions (``[project.entry-points.
  "kernreg.plugins"] my_solvers = "my_solvers"`` in the plugin's ``pyproject.toml``), once per
  process, by :func:`load_installed_plugins` (every ``kernreg`` command does);
- a config's ``plugins:`` list, by :func:`load_plugins`: a module name (``my_solvers``, looked
  for on ``sys.path`` and then in the config's folder) or a Python file (``./my_kernel.py``, a
  path relative to the config's folder).

Each plugin is imported once per process; a plugin that fails to import is one
:class:`~kernreg.errors.ConfigError` naming it, the exception and the line it came from.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from kernreg.errors import ConfigError

__all__ = ["ENTRY_POINT_GROUP", "is_plugin_file", "load_installed_plugins", "load_plugins"]

#: The entry-point group of installed plugins.
ENTRY_POINT_GROUP = "kernreg.plugins"

# the names of the installed plugins once imported (None: not yet)
_installed_loaded: tuple[str, ...] | None = None


def is_plugin_file(name: str) -> bool:
    """Whether a ``plugins:`` entry names a file (``./x.py``, ``dir/x.py``) and not a module."""
    return name.endswith(".py") or "/" in name or "\\" in name


def load_installed_plugins() -> list[str]:
    """Import every module of the ``kernreg.plugins`` entry-point group (once per process);
    return the entry points' names.

    Raises
    ------
    ConfigError
        An entry point whose module fails to import, naming it and its distribution.
    """
    global _installed_loaded
    from importlib.metadata import entry_points

    if _installed_loaded is not None:
        return list(_installed_loaded)
    points = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name)
    for point in points:
        dist = getattr(point.dist, "name", None) or "an installed distribution"
        with _importing(f"the plugin {point.name!r} ({point.value}, installed by {dist}; "
                        f"`pip uninstall {dist}` removes it)"):
            point.load()
    _installed_loaded = tuple(p.name for p in points)
    return list(_installed_loaded)


def load_plugins(names: Sequence[str], config_path: str | Path | None = None) -> list[ModuleType]:
    """Import a config's ``plugins:`` (each once per process) and return their modules.

    Parameters
    ----------
    names : sequence of str
        Module names (``my_solvers``, ``pkg.solvers``) or Python files (``./my_kernel.py``).
    config_path : str or Path, optional
        The config file: relative files, and modules not found on ``sys.path``, are looked for
        in its folder (default: the working folder).

    Raises
    ------
    ConfigError
        A plugin that is not found or fails to import, naming ``plugins[i]``.
    """
    base = Path(config_path).parent if config_path is not None else Path.cwd()
    modules = []
    for i, name in enumerate(names):
        where = f"plugins[{i}] ({name!r})"
        if is_plugin_file(name):
            modules.append(_load_file(Path(name).expanduser(), base, where))
        else:
            modules.append(_load_module(name, base, where))
    return modules


def _load_module(name: str, base: Path, where: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    found = importlib.util.find_spec(name.split(".")[0]) is not None
    top = name.split(".")[0]
    if not found and ((base / f"{top}.py").is_file() or (base / top).is_dir()):
        sys.path.insert(0, str(base.resolve()))  # the config's folder, as `python x.py` does
    elif not found:
        raise ConfigError(f"{where}: no module {name!r} on the Python path or in {base}; give "
                          f"an installed module's name or a file (./{name}.py)")
    with _importing(f"{where}"):
        return importlib.import_module(name)


def _load_file(path: Path, base: Path, where: str) -> ModuleType:
    path = (path if path.is_absolute() else base / path).resolve()
    if not path.is_file():
        raise ConfigError(f"{where}: {path} is not a file")
    # one module per file, whatever path names it; the name says where it came from
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    module_name = f"kernreg_plugin_{path.stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{where}: {path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # before running it: pickling its classes finds it
    try:
        with _importing(where):
            spec.loader.exec_module(module)
    except ConfigError:
        del sys.modules[module_name]
        raise
    return module


@contextmanager
def _importing(what: str) -> Iterator[None]:
    """A failure while importing a plugin becomes one ConfigError naming it and the line."""
    try:
        yield
    except ConfigError:
        raise
    except Exception as exc:  # the plugin's own code: any exception
        frames = traceback.extract_tb(exc.__traceback__)
        user = [f for f in frames if "importlib" not in f.filename]
        at = f" at {user[-1].filename}:{user[-1].lineno}" if user else ""
        raise ConfigError(f"{what}: importing it failed{at}: {type(exc).__name__}: "
                          f"{exc}") from None
