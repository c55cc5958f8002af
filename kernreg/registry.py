"""One registry type for every kind of part: datasets, kernels, feature maps, algorithms,
online estimators, losses, tasks, measures, protocols, stream methods and tables.

A :class:`Registry` maps a part's name to its spec: ``register`` refuses a name given twice,
``unregister`` removes one (a test's toy, a plugin unloaded), ``get`` names the registered
parts and the closest matches when the name is unknown. A user's part registers through the
same call as a built-in one.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Generic, TypeVar

__all__ = ["Registry"]

Spec = TypeVar("Spec")


def _same(name: str) -> str:
    return name


def _no_aliases(spec: object) -> tuple[str, ...]:
    return ()


class Registry(Generic[Spec]):
    """Named specs of one kind of part.

    Parameters
    ----------
    what
        The kind of part, in a message's words (``"protocol"``).
    name_of
        A spec's name (its key).
    error
        The exception an unknown name raises (``ValueError`` by default).
    fold
        How a name is compared: ``str.lower`` makes the registry case-insensitive. Names are
        compared as given by default.
    aliases_of
        A spec's other names, found by ``get`` and refused to another spec like its name
        (none by default).
    """

    def __init__(self, what: str, name_of: Callable[[Spec], str],
                 error: type[Exception] = ValueError, *,
                 fold: Callable[[str], str] = _same,
                 aliases_of: Callable[[Spec], Iterable[str]] = _no_aliases) -> None:
        self.what, self._name_of, self._error = what, name_of, error
        self._fold, self._aliases_of = fold, aliases_of
        self._specs: dict[str, Spec] = {}  # folded name -> spec
        self._aliases: dict[str, str] = {}  # folded alias -> folded name

    def _key(self, name: object) -> str | None:
        """The folded name ``name`` (or an alias) stands for; None when it is unknown."""
        if not isinstance(name, str):
            return None
        key = self._fold(name)
        key = self._aliases.get(key, key)
        return key if key in self._specs else None

    def register(self, spec: Spec) -> Spec:
        """Add ``spec``; a name or alias registered twice is a ``ValueError``."""
        name = self._name_of(spec)
        aliases = list(self._aliases_of(spec))
        for word in (name, *aliases):
            if self._key(word) is not None:
                raise ValueError(f"{self.what} {word!r} is registered twice")
        key = self._fold(name)
        self._specs[key] = spec
        self._aliases.update((self._fold(alias), key) for alias in aliases)
        return spec

    def unregister(self, name: str, *, missing_ok: bool = False) -> None:
        """Remove the spec registered as ``name`` and its aliases; an unknown name is a
        ``KeyError`` unless ``missing_ok`` (a teardown after the test removed it)."""
        key = self._key(name)
        if key is None:
            if missing_ok:
                return
            raise KeyError(name)
        del self._specs[key]
        self._aliases = {alias: k for alias, k in self._aliases.items() if k != key}

    def get(self, name: object) -> Spec:
        """The spec registered as ``name``; else the registry's error naming the registered
        ones and the closest matches."""
        key = self._key(name)
        if key is not None:
            return self._specs[key]
        by_fold = {self._fold(n): n for n in self.names()}
        close = difflib.get_close_matches(self._fold(name), list(by_fold), n=3, cutoff=0.6) \
            if isinstance(name, str) else []
        hint = f" (did you mean {' or '.join(by_fold[c] for c in close)}?)" if close else ""
        raise self._error(f"unknown {self.what} {name!r}{hint}; registered: "
                          f"{', '.join(sorted(by_fold.values())) or 'none'}")

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return [self._name_of(spec) for spec in self._specs.values()]

    def as_mapping(self) -> Mapping[str, Spec]:
        """A live, read-only view ``folded name → spec``, for callers that read the registry
        as a dict."""
        return MappingProxyType(self._specs)

    def __contains__(self, name: object) -> bool:
        return self._key(name) is not None

    def __iter__(self) -> Iterator[Spec]:
        return iter(list(self._specs.values()))

    def __len__(self) -> int:
        return len(self._specs)
