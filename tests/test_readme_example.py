"""The README's Python example runs as printed and says what it claims."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_python_example_runs(tmp_path: Path) -> None:
    (code,) = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    done = subprocess.run([sys.executable, "-W", "error::sklearn.exceptions.ConvergenceWarning",
                           "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    nkrls, nytro = done.stdout.splitlines()
    assert re.fullmatch(r"NKRLS: σ = \d\.\d\d, λ\* = \d\.\de-\d\d, test R² = 0\.8\d\d",
                        nkrls), nkrls
    assert re.fullmatch(r"NYTRO: t\* = \d+, test R² = 0\.8\d\d", nytro), nytro
