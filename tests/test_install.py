"""`make install` puts PyTorch's CPU build in on an ordinary Linux machine, never the CUDA one.

PyPI's torch wheels for Linux are CUDA builds (several GB of GPU libraries). The install's
torch line pins the version and adds PyTorch's CPU index: its ``X.Y.Z+cpu`` satisfies
``torch==X.Y.Z`` and outranks PyPI's ``X.Y.Z`` (a local version label sorts above the plain
version), so pip takes it wherever that index is reachable; ``--retries 0`` lets pip go on at
once where it is not (an offline mirror with the CPU wheel at hand)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]


def _torch_install_line() -> list[str]:
    """The command `make install` runs to install torch (make's own expansion of it)."""
    recipe = subprocess.run(["make", "-n", "install"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout
    lines = [line for line in recipe.splitlines()
             if "pip install" in line and re.search(r"\btorch==", line)]
    assert len(lines) == 1, recipe
    return shlex.split(lines[0])


def test_the_install_pins_torch_and_names_the_cpu_index() -> None:
    words = _torch_install_line()
    pin = next(w for w in words if w.startswith("torch=="))
    version = Version(pin.split("==")[1])
    assert not version.local  # a plain pin: satisfied by the CPU index's +cpu build
    index = words[words.index("--extra-index-url") + 1]
    assert index == "https://download.pytorch.org/whl/cpu"
    assert words[words.index("--retries") + 1] == "0"
    # why the CPU build wins: it satisfies the pin, and sorts above PyPI's CUDA build
    cpu = Version(f"{version}+cpu")
    assert cpu in SpecifierSet(f"=={version}") and cpu > version
