"""kernreg's one rounding rule for the numbers a person reads (report tables, figure legends):
a spread to two significant digits and its mean to the same decimal place."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["LONE_DIGITS", "ROUNDING_RULE", "SCIENTIFIC_BELOW", "SCIENTIFIC_FROM",
           "SPREAD_DIGITS", "format_number", "mean_spread"]

#: The significant digits of a spread (the std over trials) and of a value without one.
SPREAD_DIGITS, LONE_DIGITS = 2, 3
#: Outside [SCIENTIFIC_BELOW, SCIENTIFIC_FROM) a power of ten is factored out.
SCIENTIFIC_BELOW, SCIENTIFIC_FROM = 1e-3, 1e5
ROUNDING_RULE = (
    "Every number in these tables is rounded one way: a mean ± std over trials (population "
    f"std) shows the std to {SPREAD_DIGITS} significant digits and the mean to the same "
    f"decimal place; a value without a spread (one trial, a median, a rate) shows "
    f"{LONE_DIGITS} significant digits, whole numbers whole; below {SCIENTIFIC_BELOW:g} or from "
    f"{SCIENTIFIC_FROM:.0f} on, a power of ten is factored out, e.g. (4.9 ± 1.7)e-04. The "
    "papers' values are quoted as published.")


def format_number(value: float | None, spread: float | None = None) -> str:
    """``value`` (± ``spread``) by kernreg's one rounding rule (:data:`ROUNDING_RULE`).

    Parameters
    ----------
    value : float or None
        A mean, or a value standing alone (one trial, a median, a rate, a count).
    spread : float, optional
        The std over trials; ``None`` for a value without one (a zero spread shows ``± 0``).

    Returns
    -------
    str
        ``"0.68834 ± 0.00040"``, ``"0.649"``, ``"200"``, ``"(4.9 ± 1.7)e-04"``, ``"NA"`` for a
        missing or non-finite value.
    """
    if value is None or not np.isfinite(value):
        return "NA"
    value = float(value)
    if spread is None or not np.isfinite(spread):
        return _lone(value)
    if spread <= 0:
        return f"{_lone(value)} ± 0"
    scale = max(abs(value), float(spread))  # a mean near zero takes the spread's scale
    if SCIENTIFIC_BELOW <= scale < SCIENTIFIC_FROM:
        return _with_spread(value, float(spread))
    exponent = int(np.floor(np.log10(scale)))
    factor = 10.0**exponent
    return f"({_with_spread(value / factor, float(spread) / factor)})e{exponent:+03d}"


def _with_spread(value: float, spread: float) -> str:
    """The spread to SPREAD_DIGITS significant digits, the value to the same decimal place."""
    spread = float(f"{spread:.{SPREAD_DIGITS}g}")
    decimals = SPREAD_DIGITS - 1 - int(np.floor(np.log10(spread)))
    if decimals >= 0:  # (+ 0.0: a mean rounding to zero shows no minus sign)
        return f"{round(value, decimals) + 0.0:.{decimals}f} ± {spread:.{decimals}f}"
    step = 10.0**-decimals  # the spread's second digit is left of the point: round to tens…
    return f"{round(value / step) * step + 0.0:.0f} ± {spread:.0f}"


def _lone(value: float) -> str:
    """LONE_DIGITS significant digits; a whole number whole."""
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if value and not SCIENTIFIC_BELOW <= abs(value) < SCIENTIFIC_FROM:
        return f"{value:.{LONE_DIGITS - 1}e}"
    rounded = float(f"{value:.{LONE_DIGITS}g}")
    decimals = max(0, LONE_DIGITS - 1 - int(np.floor(np.log10(abs(rounded)))))
    return f"{rounded:.{decimals}f}"


def mean_spread(values: Iterable[float]) -> str:
    """The mean ± std (population) over trials of the finite ``values`` by
    :func:`format_number`, the value alone for one, ``""`` for none: a trial without the
    quantity (NaN) neither counts nor turns the cell into NaN."""
    v = np.asarray([_as_float(x) for x in values], dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return ""
    return format_number(float(v.mean()), float(v.std()) if v.size > 1 else None)


def _as_float(x: object) -> float:
    """``x`` as a float; NaN for what is not a number (an empty cell, a label)."""
    try:
        return float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return float("nan")
