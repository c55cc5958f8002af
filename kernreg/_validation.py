"""Input checks at the public boundary: every failure is a ``ValueError`` naming the parameter."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array, column_or_1d, validate_data

__all__ = [
    "ARRAY_RULES",
    "check_bool",
    "check_choice",
    "check_data",
    "check_dtype",
    "check_fit_data",
    "check_int",
    "check_lambdas",
    "check_positive",
    "check_random_state",
    "check_targets",
    "is_int",
]

_FLOAT_DTYPES = {"float64": np.float64, "float32": np.float32}


def check_dtype(dtype: Any, name: str = "dtype") -> type[np.floating]:
    """Return ``np.float64`` or ``np.float32`` for ``"float64"``/``"float32"`` or the numpy type."""
    try:
        key = np.dtype(dtype).name
    except TypeError as exc:
        raise ValueError(f"{name} must be 'float64' or 'float32', got {dtype!r}") from exc
    if key not in _FLOAT_DTYPES:
        raise ValueError(f"{name} must be 'float64' or 'float32', got {dtype!r}")
    return _FLOAT_DTYPES[key]


def check_bool(value: Any, name: str) -> bool:
    """Return ``value`` as a bool after checking that it is one (numpy's included)."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """Return ``value`` after checking that it is one of the strings ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def check_positive(value: Any, name: str, *, allow_none: bool = False) -> float | None:
    """Return ``value`` as a float after checking that it is a finite number > 0."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def is_int(value: object) -> bool:
    """An integer (Python or numpy), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(value: Any, name: str, *, minimum: int = 1, allow_none: bool = False) -> int | None:
    """Return ``value`` as an int after checking that it is an integer ``>= minimum``."""
    if value is None and allow_none:
        return None
    if not is_int(value):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_lambdas(lambdas: Any, name: str = "lambdas") -> np.ndarray:
    """Return a non-empty 1-D float64 array of finite, strictly positive regularization values."""
    arr = np.atleast_1d(np.asarray(lambdas, dtype=np.float64))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of numbers > 0")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must contain only finite values > 0, got min {arr.min()!r}")
    return arr


#: How kernreg takes a feature matrix (scikit-learn's ``check_array`` arguments): dense float64 or
#: float32 (kept: the kernel decides the evaluation precision; other numbers become float64) or
#: CSR. Finiteness is checked afterwards with kernreg's own message.
ARRAY_RULES: dict[str, Any] = {
    "accept_sparse": "csr",
    "dtype": (np.float64, np.float32),
    "ensure_all_finite": False,
}


def check_data(
    X: Any, name: str = "X", *, estimator: Any = None, reset: bool = True
) -> np.ndarray | sp.csr_matrix:
    """Return ``X`` as a 2-D float array (dense) or CSR matrix (sparse), finite, non-empty.

    The conversion and the shape, dtype and emptiness rules are scikit-learn's
    (:func:`~sklearn.utils.validation.check_array` with :data:`ARRAY_RULES`, whose messages
    scikit-learn's conformance checks expect), prefixed with ``name``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    name : str
        The argument's name in messages.
    estimator : estimator, optional
        With an estimator, :func:`~sklearn.utils.validation.validate_data` also sets (``reset``)
        or checks its ``n_features_in_`` and ``feature_names_in_``.
    reset : bool
        ``True`` in ``fit``, ``False`` in ``predict`` (only with ``estimator``).

    Raises
    ------
    ValueError
        Naming ``name``: not 2-D, empty, complex, not numeric, NaN or Inf, or (with an estimator
        and ``reset=False``) a number of features other than at ``fit``.
    TypeError
        Object arrays holding values that are not numbers.
    """
    try:
        if estimator is None:
            X = check_array(X, input_name=name, **ARRAY_RULES)
        else:
            X = validate_data(estimator, X, reset=reset, **ARRAY_RULES)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith("Expected 2D array"):  # sklearn's message prints the whole array
            raise ValueError(
                f"{name} must be 2-D (n_samples, n_features), got shape {np.shape(X)}. Reshape "
                "your data: X.reshape(-1, 1) for a single feature, X.reshape(1, -1) for a single "
                "sample"
            ) from exc
        kind = ValueError if isinstance(exc, ValueError) else TypeError
        raise kind(_named(name, exc)) from exc
    if sp.issparse(X):
        X = sp.csr_matrix(X)  # a scipy sparse array becomes the matrix the kernels expect
    if not np.all(np.isfinite(X.data if sp.issparse(X) else X)):
        raise ValueError(f"{name} contains NaN or Inf")
    return X


def _named(name: str, exc: Exception) -> str:
    """``exc``'s first line (scikit-learn prints the offending array after it), prefixed with
    ``name`` unless it starts with it."""
    message = str(exc).split("\n", 1)[0]
    return message if message.startswith(f"{name} ") else f"{name}: {message}"


def check_targets(y: Any, n_samples: int, name: str = "y",
                  multi_output: bool = False) -> np.ndarray:
    """Return ``y`` as a finite float64 array of ``n_samples`` rows: 1-D, or with
    ``multi_output`` also 2-D ``(n_samples, k)`` (one column per output, ``k ≥ 1``).

    Without ``multi_output`` a column vector of shape ``(n, 1)`` is flattened with
    scikit-learn's ``DataConversionWarning`` (:func:`~sklearn.utils.validation.column_or_1d`).
    """
    if y is None:
        raise ValueError(
            f"{name}: this estimator requires y to be passed, but the target y is None"
        )
    try:
        y = np.asarray(y, dtype=np.float64)
        if not (multi_output and y.ndim == 2 and y.shape[1] >= 1):
            y = column_or_1d(y, input_name=name, warn=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(_named(name, exc)) from exc
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} entries but the inputs have {n_samples} rows (shape mismatch)"
        )
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or Inf")
    return y


def check_fit_data(
    X: Any, y: Any, X_val: Any = None, y_val: Any = None, *, estimator: Any = None,
    multi_output: bool = False,
) -> tuple[Any, np.ndarray, Any, np.ndarray | None]:
    """Check training and (optional) validation data together.

    Returns ``(X, y, X_val, y_val)``; ``X_val``/``y_val`` are ``None`` when not given. Both must be
    given or neither, and the validation features must match the training features in number.
    With ``estimator``, its ``n_features_in_`` (and ``feature_names_in_``) are set from ``X``.
    ``multi_output``: ``y`` (and ``y_val``, with as many columns) may be 2-D.
    """
    X = check_data(X, "X", estimator=estimator, reset=True)
    y = check_targets(y, X.shape[0], "y", multi_output)
    if (X_val is None) != (y_val is None):
        raise ValueError("X_val and y_val must be given together (one of them is None)")
    if X_val is None:
        return X, y, None, None
    X_val = check_data(X_val, "X_val")
    if X_val.shape[1] != X.shape[1]:
        raise ValueError(
            f"X_val has {X_val.shape[1]} features but X has {X.shape[1]} (shape mismatch)"
        )
    y_val = check_targets(y_val, X_val.shape[0], "y_val", multi_output)
    if y_val.shape[1:] != y.shape[1:]:
        raise ValueError(f"y_val has {y_val.shape[1] if y_val.ndim == 2 else 1} output(s) but "
                         f"y has {y.shape[1] if y.ndim == 2 else 1} (shape mismatch)")
    return X, y, X_val, y_val


def check_random_state(random_state: Any, name: str = "random_state") -> np.random.Generator:
    """Return a numpy ``Generator`` from ``None``, an int seed, or a ``Generator`` (kept as is)."""
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"{name} must be a non-negative integer seed, got {random_state!r}")
        return np.random.default_rng(int(random_state))
    raise ValueError(
        f"{name} must be None, a non-negative int seed or a numpy Generator, got {random_state!r}"
    )
