"""Validation of what was read against the registry: counts, finiteness, label set."""

from __future__ import annotations

import numpy as np

from kernreg.datasets.spec import DatasetSpec, Part, Splits
from kernreg.errors import DataError


def _first_bad_row(X: np.ndarray, y: np.ndarray) -> tuple[int, int] | None:
    bad = ~np.isfinite(X).all(axis=1) | ~np.isfinite(y)
    count = int(bad.sum())
    return (count, int(np.argmax(bad))) if count else None


def check_parts(spec: DatasetSpec, parts: list[Part], origin: str) -> None:
    """Reject NaN/Inf values and labels outside the registry's label set.

    ``origin`` names the files the parts came from, for the message.
    """
    for i, (X, y) in enumerate(parts):
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise DataError(
                f"{spec.name}: {origin}: part {i} has inconsistent shapes X{X.shape}, y{y.shape}"
            )
        bad = _first_bad_row(X, y)
        if bad is not None:
            count, row = bad
            raise DataError(
                f"{spec.name}: {origin}: {count} row(s) with NaN or Inf values "
                f"(first at row {row + 1} of part {i + 1}); the file is corrupt or truncated"
            )
    if spec.raw_labels is not None:
        found = np.unique(np.concatenate([y for _, y in parts]))
        expected = np.asarray(spec.raw_labels, dtype=np.float64)
        if not np.array_equal(found, np.sort(expected)):
            raise DataError(
                f"{spec.name}: {origin}: label set {found.tolist()} differs from the expected "
                f"{sorted(spec.raw_labels)}"
            )


def check_splits(spec: DatasetSpec, splits: Splits) -> None:
    """Compare row and feature counts with the registry and reject non-finite results."""
    got = (splits.X_train.shape[0], splits.X_test.shape[0], splits.X_train.shape[1])
    want = (spec.n_train, spec.n_test, spec.d)
    if got != want or splits.X_test.shape[1] != spec.d:
        raise DataError(
            f"{spec.name}: expected train/test/d = {want[0]}/{want[1]}/{want[2]}, "
            f"the files give {got[0]}/{got[1]}/{got[2]} (test d = {splits.X_test.shape[1]})"
        )
    for part, X, y in (("train", splits.X_train, splits.y_train),
                       ("test", splits.X_test, splits.y_test)):
        if _first_bad_row(X, y) is not None:
            raise DataError(f"{spec.name}: preprocessing produced NaN or Inf in the {part} set")
