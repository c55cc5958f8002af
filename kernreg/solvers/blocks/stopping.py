"""Early-stopping rules on the validation error path of iterative solvers (ES, NYTRO).

The rules are those of the authors' MATLAB packages (NYTRO / NystromCoRe, folder
``stoppingRules``). Each looks only at the last ``w`` validation errors (the *window*)
``e_1, ..., e_w`` (``e_w`` the most recent) and can fire only once at least ``w`` errors exist:

``window_linear_fitting`` (package default)
    Least-squares line ``e ≈ b0 + b1·s`` over ``s = 0, ..., w−1``; stop when
    ``(w − 1)·b1 / b0 >= θ``, i.e. when the fitted relative change across the window is no
    longer below ``θ``. Division follows IEEE rules as MATLAB does: ``b0 = 0`` gives ±inf
    (or NaN, which never fires). Needs ``w >= 2``.
``window_averaged``
    ``k = ceil(0.1·w)``; ``e0`` = mean of the first ``k`` errors of the window, ``e1`` = mean of
    the last ``k``; stop when ``e1 / e0 >= 1 − θ``.
``window_median``
    As ``window_averaged`` with medians.
``window_simple``
    ``e0 = e_1`` (oldest in the window), ``e1 = e_w`` (newest); stop when ``e1 / e0 >= 1 − θ``.
``window_slope`` (the rule that produced NYTRO Table 2's t*)
    Least-squares line ``e ≈ b0 + b1·s`` over ``s = 1, ..., w``; stop when ``b1 >= −θ / w``:
    an ABSOLUTE threshold on the fitted slope, in units of the error. The authors applied it
    with ``w = 10`` and a hand-tuned θ per dataset to the stored 500-iteration validation paths
    of the paper's runs (a script and thresholds file in the history of their NYTRO package,
    2015-10-20; see ``../shared/REFERENCE.md``); the datasets' θ are in the registry
    (``DatasetSpec.stopping_threshold``). Needs ``w >= 2``.
``none``
    Never fires: run to the maximum number of iterations.

With the default ``θ = 0`` the window rules stop as soon as the error is not decreasing over the
window. Which iteration is then *reported* is the rule's ``select``:

``"best"`` (the later package's choice, default of every rule but ``window_slope``)
    ``t*`` is the 1-based index of the lowest validation error among all errors computed up to
    and including the iteration at which the rule fired (first one on ties).
``"stop"`` (the authors' Table 2 script, default of ``window_slope``)
    ``t*`` is the iteration at which the rule fired, or the last one computed when it never
    fired (their script's ``tStar = numel(err)``).

See :func:`select_iteration`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from kernreg._validation import check_int

__all__ = [
    "DEFAULT_STOPPING_RULE",
    "SELECTIONS",
    "STOPPING",
    "STOPPING_RULES",
    "StoppingRule",
    "best_iteration",
    "default_selection",
    "get_stopping_rule",
    "least_squares_slope",
    "select_iteration",
    "window_averaged",
    "window_linear_fitting",
    "window_median",
    "window_simple",
    "window_slope",
]

DEFAULT_STOPPING_RULE = "window_linear_fitting"


def _ratio(num: float, den: float) -> float:
    """``num / den`` with IEEE semantics (±inf, NaN) instead of exceptions."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(num) / np.float64(den))


def window_linear_fitting(window: np.ndarray, threshold: float) -> bool:
    """Fire when ``(w − 1)·b1 / b0 >= threshold`` for the least-squares line over the window."""
    w = window.size
    s = np.arange(w, dtype=np.float64)
    s_c = s - s.mean()
    b1 = float(np.dot(s_c, window - window.mean()) / np.dot(s_c, s_c))
    b0 = float(window.mean() - b1 * s.mean())
    return _ratio((w - 1) * b1, b0) >= threshold


def least_squares_slope(window: np.ndarray) -> float:
    """The least-squares slope of the window's values against 0, 1, …, w − 1."""
    s_c = np.arange(window.size, dtype=np.float64) - (window.size - 1) / 2.0  # start-free
    return float(np.dot(s_c, window - window.mean()) / np.dot(s_c, s_c))


def window_slope(window: np.ndarray, threshold: float) -> bool:
    """Fire when the least-squares slope over the window is ``>= −threshold / w`` (absolute)."""
    return least_squares_slope(window) >= -threshold / window.size


def _edge_counts(w: int) -> int:
    return math.ceil(0.1 * w)


def window_averaged(window: np.ndarray, threshold: float) -> bool:
    """Fire when ``mean(last k) / mean(first k) >= 1 − threshold``, ``k = ceil(0.1·w)``."""
    k = _edge_counts(window.size)
    return _ratio(window[-k:].mean(), window[:k].mean()) >= 1.0 - threshold


def window_median(window: np.ndarray, threshold: float) -> bool:
    """Fire when ``median(last k) / median(first k) >= 1 − threshold``, ``k = ceil(0.1·w)``."""
    k = _edge_counts(window.size)
    return _ratio(np.median(window[-k:]), np.median(window[:k])) >= 1.0 - threshold


def window_simple(window: np.ndarray, threshold: float) -> bool:
    """Fire when ``newest / oldest >= 1 − threshold`` within the window."""
    return _ratio(window[-1], window[0]) >= 1.0 - threshold


#: Window rules by name (``"none"`` is handled by :class:`StoppingRule`).
STOPPING_RULES: dict[str, Callable[[np.ndarray, float], bool] | None] = {
    "window_linear_fitting": window_linear_fitting,
    "window_averaged": window_averaged,
    "window_median": window_median,
    "window_simple": window_simple,
    "window_slope": window_slope,
    "none": None,
}

#: What a rule reports: the arg-min of the errors seen (``"best"``) or the iteration at which it
#: fired (``"stop"``).
SELECTIONS = ("best", "stop")
#: Rules that need two errors in the window (a fitted line).
_LINE_RULES = ("window_linear_fitting", "window_slope")


#: JSON schema of a config's ``stopping`` entry.
STOPPING = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "rule": {"enum": list(STOPPING_RULES)},
        "window": {"type": "integer", "minimum": 2},
        # relative rules compare ratios with 1 − θ; window_slope's θ is in units of the error
        "threshold": {"type": "number", "minimum": 0},
        "select": {"enum": list(SELECTIONS)},
    },
    "if": {"not": {"required": ["rule"], "properties": {"rule": {"const": "window_slope"}}}},
    "then": {"properties": {"threshold": {"exclusiveMaximum": 1}}},
}



def default_selection(rule: str) -> str:
    """``"stop"`` for ``window_slope`` (as the authors reported it), ``"best"`` otherwise."""
    return "stop" if rule == "window_slope" else "best"


@dataclass(frozen=True)
class StoppingRule:
    """A named stopping rule with window size ``w``, threshold ``θ`` and what it reports.

    Parameters
    ----------
    name : str
        One of :data:`STOPPING_RULES`.
    window : int, default 10
        Window size ``w`` (``>= 2`` for the line-fitting rules, ``>= 1`` otherwise).
    threshold : float, default 0.0
        Threshold ``θ`` (finite).
    select : {"best", "stop"}, optional
        Report the arg-min of the errors seen, or the iteration at which the rule fired;
        default :func:`default_selection` of the rule.
    """

    name: str = DEFAULT_STOPPING_RULE
    window: int = 10
    threshold: float = 0.0
    select: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or self.name not in STOPPING_RULES:
            raise ValueError(
                f"stopping_rule must be one of {sorted(STOPPING_RULES)}, got {self.name!r}"
            )
        minimum = 2 if self.name in _LINE_RULES else 1
        object.__setattr__(self, "window", check_int(self.window, "window", minimum=minimum))
        thr = self.threshold
        if isinstance(thr, bool) or not isinstance(thr, numbers.Real) or not np.isfinite(thr):
            raise ValueError(f"threshold must be a finite number, got {thr!r}")
        object.__setattr__(self, "threshold", float(thr))
        select = default_selection(self.name) if self.select is None else self.select
        if select not in SELECTIONS:
            raise ValueError(f"select must be one of {list(SELECTIONS)}, got {select!r}")
        object.__setattr__(self, "select", select)

    def should_stop(self, errors: Sequence[float]) -> bool:
        """Whether the rule fires given all validation errors so far (oldest first)."""
        fn = STOPPING_RULES[self.name]
        if fn is None or len(errors) < self.window:
            return False
        window = np.asarray(errors[-self.window :], dtype=np.float64)
        return bool(fn(window, self.threshold))


def get_stopping_rule(
    name: str | StoppingRule = DEFAULT_STOPPING_RULE,
    window: int = 10,
    threshold: float = 0.0,
    select: str | None = None,
) -> StoppingRule:
    """Return the :class:`StoppingRule` ``name`` (a ``StoppingRule`` is passed through)."""
    if isinstance(name, StoppingRule):
        return name
    return StoppingRule(name, window, threshold, select)


def select_iteration(errors: Sequence[float], rule: StoppingRule) -> tuple[int, int, bool]:
    """Apply ``rule`` to a complete error path as if it were being computed online.

    Parameters
    ----------
    errors : sequence of float
        Validation error after iterations 1, 2, ..., T.
    rule : StoppingRule

    Returns
    -------
    t_star : int
        The reported iteration: with ``rule.select == "best"`` the 1-based iteration with the
        lowest error among iterations ``1..t_stop`` (first on ties), with ``"stop"``
        ``t_stop`` itself.
    t_stop : int
        1-based iteration at which the rule fired, or ``T`` when it never fired.
    fired : bool
        Whether the rule fired.
    """
    errors = np.asarray(errors, dtype=np.float64)
    if errors.ndim != 1 or errors.size == 0:
        raise ValueError("errors must be a non-empty 1-D sequence")
    t_stop, fired = errors.size, False
    for t in range(1, errors.size + 1):
        if rule.should_stop(errors[:t]):
            t_stop, fired = t, True
            break
    t_star = t_stop if rule.select == "stop" else best_iteration(errors[:t_stop])
    return t_star, t_stop, fired


def best_iteration(errors: Sequence[float]) -> int:
    """1-based index of the smallest finite error (first on ties); 1 if none is finite."""
    errors = np.asarray(errors, dtype=np.float64)
    finite = np.where(np.isfinite(errors), errors, np.inf)
    return int(np.argmin(finite)) + 1
