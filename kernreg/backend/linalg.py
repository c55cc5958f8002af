"""The dense linear algebra the array API standard lacks, for numpy and torch arrays alike.

Every function takes the arrays of one namespace and returns arrays of the same namespace and
device: scipy's LAPACK wrappers for numpy, ``torch.linalg`` (cuSOLVER on a GPU) for torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as la
from array_api_compat import array_namespace, is_numpy_array

__all__ = ["cholesky_upper", "eigh", "is_host", "namespace", "solve_triangular", "syrk"]


def namespace(*arrays: Any) -> Any:
    """The array namespace of ``arrays`` (array_api_compat's numpy or torch wrapper)."""
    return array_namespace(*arrays)


def is_host(a: Any) -> bool:
    """True for a numpy array (the host path)."""
    return is_numpy_array(a)


def eigh(A: Any) -> tuple[Any, Any]:
    """Eigenvalues (ascending) and eigenvectors of the symmetric ``A``."""
    if is_host(A):
        return la.eigh(A, check_finite=False)
    import torch

    return torch.linalg.eigh(A)


def cholesky_upper(A: Any) -> Any:
    """Upper ``R`` with ``RᵀR = A`` (``numpy.linalg.LinAlgError`` if ``A`` is not PD)."""
    if is_host(A):
        return la.cholesky(A, lower=False, check_finite=False)
    import torch

    L, info = torch.linalg.cholesky_ex(A)
    if int(info) != 0:
        raise np.linalg.LinAlgError(f"Cholesky failed at pivot {int(info)}")
    return L.mT


def solve_triangular(R: Any, B: Any, *, trans: bool = False, right: bool = False) -> Any:
    """With upper-triangular ``R``: ``R⁻¹B`` (``trans``: ``R⁻ᵀB``); ``right``: ``B R⁻¹``
    (``trans``: ``B R⁻ᵀ``)."""
    if is_host(R):
        if right:  # B R⁻¹ = (R⁻ᵀ Bᵀ)ᵀ
            return la.solve_triangular(R, B.T, trans=0 if trans else 1, lower=False,
                                       check_finite=False).T
        return la.solve_triangular(R, B, trans=1 if trans else 0, lower=False,
                                   check_finite=False)
    import torch

    vector = B.ndim == 1
    B2 = B[:, None] if vector else B
    if right:
        X = torch.linalg.solve_triangular(R.mT if trans else R, B2, upper=not trans, left=False)
    else:
        X = torch.linalg.solve_triangular(R.mT if trans else R, B2, upper=not trans)
    return X[:, 0] if vector else X


def syrk(A: Any) -> Any:
    """``AᵀA``, exactly symmetric."""
    G = A.T @ A
    return 0.5 * (G + G.T)
