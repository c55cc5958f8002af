"""What ``import kernreg`` offers a user: the registry's estimators, loaded on first use."""

from __future__ import annotations

import subprocess
import sys

import pytest

import kernreg
from kernreg.solvers import algorithm_specs


def test_every_registered_estimator_is_importable_from_the_package() -> None:
    assert set(kernreg.ESTIMATORS) == {spec.estimator.__name__ for spec in algorithm_specs()}
    for name in kernreg.ESTIMATORS:
        assert getattr(kernreg, name) is getattr(kernreg.solvers, name)
        assert name in dir(kernreg)
    from kernreg import NystromKRLS, Nytro  # noqa: F401 (the form a user writes)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Falkon'"):
        kernreg.Falkon  # noqa: B018


def test_importing_the_package_loads_no_solver() -> None:
    done = subprocess.run([sys.executable, "-c", "import sys, kernreg; "
                           "print('kernreg.solvers' in sys.modules, 'numpy' in sys.modules)"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]
