"""Input checks at the public boundary: every failure is a ``ValueError`` naming the parameter."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = [
    "check_choice",
    "check_data",
    "check_dtype",
    "check_fit_data",
    "check_int",
    "check_lambdas",
    "check_positive",
    "check_random_state",
    "check_targets",
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


def check_int(value: Any, name: str, *, minimum: int = 1, allow_none: bool = False) -> int | None:
    """Return ``value`` as an int after checking that it is an integer ``>= minimum``."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
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


def check_data(X: Any, name: str = "X") -> np.ndarray | sp.csr_matrix:
    """Return ``X`` as a 2-D float array (dense) or CSR matrix (sparse), finite, non-empty.

    Integer or boolean input is converted to float64; float32 input is kept (the kernel decides
    the evaluation precision).
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        data = X.data
    else:
        try:
            X = np.asarray(X)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a 2-D numeric array: {exc}") from exc
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{name} must be numeric, got dtype {X.dtype}")
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        data = X
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape {X.shape}")
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name} contains NaN or Inf")
    return X


def check_targets(y: Any, n_samples: int, name: str = "y") -> np.ndarray:
    """Return ``y`` as a finite 1-D float64 array of length ``n_samples``.

    A column vector of shape ``(n, 1)`` is accepted and flattened.
    """
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D numeric array: {exc}") from exc
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D (n_samples,), got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} entries but the inputs have {n_samples} rows (shape mismatch)"
        )
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or Inf")
    return y


def check_fit_data(
    X: Any, y: Any, X_val: Any = None, y_val: Any = None
) -> tuple[Any, np.ndarray, Any, np.ndarray | None]:
    """Check training and (optional) validation data together.

    Returns ``(X, y, X_val, y_val)``; ``X_val``/``y_val`` are ``None`` when not given. Both must be
    given or neither, and the validation features must match the training features in number.
    """
    X = check_data(X, "X")
    y = check_targets(y, X.shape[0], "y")
    if (X_val is None) != (y_val is None):
        raise ValueError("X_val and y_val must be given together (one of them is None)")
    if X_val is None:
        return X, y, None, None
    X_val = check_data(X_val, "X_val")
    if X_val.shape[1] != X.shape[1]:
        raise ValueError(
            f"X_val has {X_val.shape[1]} features but X has {X.shape[1]} (shape mismatch)"
        )
    y_val = check_targets(y_val, X_val.shape[0], "y_val")
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
