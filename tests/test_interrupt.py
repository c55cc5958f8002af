"""Ctrl-C is never lost: one that lands in a weakref callback or a finalizer, where Python
cannot raise it (a Dask run's main thread runs many), is raised again in the main thread."""

from __future__ import annotations

import signal
import sys
import threading
import time
import weakref

import pytest

from kernreg.cli import _interrupt_again


class _Referent:
    pass


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler while the test runs, whatever this process inherited: a
    suite started in the background of a non-interactive shell ignores SIGINT, and then there
    is no Ctrl-C to lose (``_thread.interrupt_main`` does nothing either)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_lost_in_a_weakref_callback_is_raised_again(monkeypatch, python_sigint
                                                             ) -> None:
    printed, seen = [], []

    def hook(unraisable: object) -> None:  # what the hook was given, and how it ended
        seen.append(getattr(unraisable, "exc_type", None))
        try:
            _interrupt_again(printed.append, unraisable)
        except BaseException as exc:  # an exception in an unraisable hook is lost
            seen.append(exc)
            raise

    monkeypatch.setattr(sys, "unraisablehook", hook)

    def interrupted(ref: weakref.ref) -> None:
        raise KeyboardInterrupt

    referent = _Referent()
    ref = weakref.ref(referent, interrupted)
    raised = False
    try:  # a moment later, from another thread
        del referent
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            time.sleep(0.01)
    except KeyboardInterrupt:
        raised = True
    state = (f"hook saw {seen}, referent freed: {ref() is None}, SIGINT handler "
             f"{signal.getsignal(signal.SIGINT)}, threads {threading.active_count()}, "
             f"trace {sys.gettrace()}, profile {sys.getprofile()}")
    assert raised, state
    assert ref() is None and printed == []  # nothing printed: raised, not reported

    def failed(ref: weakref.ref) -> None:
        raise ValueError("not an interrupt")

    other = _Referent()
    ref = weakref.ref(other, failed)
    del other
    assert [type(u.exc_value) for u in printed] == [ValueError]  # reported as before
