"""One registry type for every kind of part (protocols, and the parts that adopt it).

A :class:`Registry` maps a part's name to its spec: ``register`` refuses a name given twice,
``unregister`` removes one (a test's toy, a plugin unloaded), ``get`` names the registered
parts and the closest matches when the name is unknown. A user's part registers through the
same call as a built-in one.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

__all__ = ["Registry"]

Spec = TypeVar("Spec")


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
    """

    def __init__(self, what: str, name_of: Callable[[Spec], str],
                 error: type[Exception] = ValueError) -> None:
        self.what, self._name_of, self._error = what, name_of, error
        self._specs: dict[str, Spec] = {}

    def register(self, spec: Spec) -> Spec:
        """Add ``spec``; a name registered twice is a ``ValueError``."""
        name = self._name_of(spec)
        if name in self._specs:
            raise ValueError(f"{self.what} {name!r} is registered twice")
        self._specs[name] = spec
        return spec

    def unregister(self, name: str) -> None:
        """Remove the spec registered as ``name``."""
        del self._specs[name]

    def get(self, name: object) -> Spec:
        """The spec registered as ``name``; else the registry's error naming the registered
        ones and the closest matches."""
        if isinstance(name, str) and name in self._specs:
            return self._specs[name]
        close = difflib.get_close_matches(name, list(self._specs), n=3, cutoff=0.6) \
            if isinstance(name, str) else []
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise self._error(f"unknown {self.what} {name!r}{hint}; registered: "
                          f"{', '.join(sorted(self._specs)) or 'none'}")

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self._specs)

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[Spec]:
        return iter(list(self._specs.values()))

    def __len__(self) -> int:
        return len(self._specs)
