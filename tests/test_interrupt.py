"""Ctrl-C is never lost: one that lands in a weakref callback or a finalizer, where Python
cannot raise it (a Dask run's main thread runs many), is raised again in the main thread."""

from __future__ import annotations

import functools
import sys
import time
import weakref

import pytest

from kernreg.cli import _interrupt_again


class _Referent:
    pass


def test_a_ctrl_c_lost_in_a_weakref_callback_is_raised_again(monkeypatch) -> None:
    printed = []
    monkeypatch.setattr(sys, "unraisablehook",
                        functools.partial(_interrupt_again, printed.append))

    def interrupted(ref: weakref.ref) -> None:
        raise KeyboardInterrupt

    referent = _Referent()
    ref = weakref.ref(referent, interrupted)
    with pytest.raises(KeyboardInterrupt):  # a moment later, from another thread
        del referent
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            time.sleep(0.01)
    assert ref() is None and printed == []  # nothing printed: raised, not reported

    def failed(ref: weakref.ref) -> None:
        raise ValueError("not an interrupt")

    other = _Referent()
    ref = weakref.ref(other, failed)
    del other
    assert [type(u.exc_value) for u in printed] == [ValueError]  # reported as before
