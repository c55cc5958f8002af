"""Progress inside a long computation (kernel blocks, a fit's iterations, an NKRLS λ path,
SGM passes) for whoever shows it: the command's progress bar and its ``-v`` log.

Solvers call :func:`report` as often as they like; nothing happens unless a caller installed a
sink with :func:`progress_sink`, and a sink sees at most one report per ``interval`` seconds,
so a loop may report every step (a context-variable read and a clock read when a sink is
installed; the message is formatted only when it is shown).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["progress_sink", "report"]


@dataclass
class _Sink:
    show: Callable[[str], None]
    interval: float
    last: float = float("-inf")


_SINK: ContextVar[_Sink | None] = ContextVar("kernreg_progress_sink", default=None)


def report(template: str, *args: object) -> None:
    """Tell the installed sink, if any, where the computation is: ``template.format(*args)``
    (e.g. ``report("iteration {}/{}", t, max_iter)``)."""
    sink = _SINK.get()
    if sink is None:
        return
    now = time.monotonic()
    if now - sink.last < sink.interval:
        return
    sink.last = now
    sink.show(template.format(*args) if args else template)


@contextmanager
def progress_sink(show: Callable[[str], None], interval: float = 0.5) -> Iterator[None]:
    """Within the block, :func:`report` calls ``show(message)`` (at most once per
    ``interval`` seconds; in this thread and the tasks it starts with its context)."""
    token = _SINK.set(_Sink(show, interval))
    try:
        yield
    finally:
        _SINK.reset(token)
