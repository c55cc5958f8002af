"""Environment switches: the ``KERNREG_*`` variables that turn a behaviour on or off, read as
strictly as a config key.

Accepted values, case-insensitive, surrounding spaces ignored:

===================================  ==========================
unset, or empty                      the switch's default
``1``, ``true``, ``yes``, ``on``     on
``0``, ``false``, ``no``, ``off``    off
===================================  ==========================

Any other value (``fasle``, ``2``, ``enabled``) is refused with a
:class:`~kernreg.errors.ConfigError` naming the variable, its value and these choices — never
read as on or off. Every ``kernreg`` command checks all switches before it does anything
(:func:`check_environment`); the library functions that read one raise the same error.
"""

from __future__ import annotations

import os

from kernreg.errors import ConfigError

__all__ = ["OFF", "ON", "SWITCHES", "check_environment", "env_switch"]

ON = ("1", "true", "yes", "on")
OFF = ("0", "false", "no", "off")

#: Every switch kernreg reads, with what it does and its default.
SWITCHES = {
    "KERNREG_JIT": "the compiled (numba) kernel loops; default on where numba is installed",
    "KERNREG_JIT_PASS": "the compiled loop of the stored gradient pass for any number of "
                        "right-hand sides (on) or none (off); default: for one only",
    "KERNREG_OFFLINE": "never download a dataset (mirror and cache only); default off",
}


def env_switch(name: str) -> bool | None:
    """The value of the environment switch ``name``.

    Parameters
    ----------
    name : str
        The variable, e.g. ``"KERNREG_JIT"``.

    Returns
    -------
    bool or None
        ``True`` (on), ``False`` (off), ``None`` when unset or empty (the caller's default).

    Raises
    ------
    ConfigError
        Any other value, naming the variable, the value and the accepted ones.
    """
    raw = os.environ.get(name)
    value = "" if raw is None else raw.strip().lower()
    if value == "":
        return None
    if value in ON:
        return True
    if value in OFF:
        return False
    raise ConfigError(f"environment variable {name}={raw!r} is not a switch value; accepted "
                      f"(any case): {', '.join(ON)} (on), {', '.join(OFF)} (off), or unset or "
                      f"empty (the default)")


def check_environment() -> None:
    """Check every switch of :data:`SWITCHES` (call before anything is written).

    Raises
    ------
    ConfigError
        The first switch with a value that is not accepted (:func:`env_switch`).
    """
    for name in SWITCHES:
        env_switch(name)
