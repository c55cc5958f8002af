"""The installed package works without the checkout: a wheel built from the repository,
installed in a fresh virtual environment outside it, renders a table with the paper's numbers
(package data read through importlib.resources, not a path into the source tree), lists its
shipped configs and, from an empty folder, runs one by name to the README's Adult row."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# two trials of a tidy results file, as `kernreg run` writes them
RESULTS_CSV = """experiment,dataset,sigma,kernel,m,algorithm,label,trial,param_name,selected,\
model_selection_time,test_rmse,test_error
w,adult,6.6,gaussian,1000,nytro,nytro,0,iterations,42,0.8,0.6883,0.168
w,adult,6.6,gaussian,1000,nytro,nytro,1,iterations,44,0.9,0.6885,0.169
"""


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout")
def test_wheel_installed_outside_the_checkout_compares_with_the_paper(tmp_path: Path) -> None:
    from conftest import MIRROR

    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                 "--wheel-dir", tmp_path / "dist", REPO, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("kernreg-*.whl")
    with zipfile.ZipFile(wheel) as archive:  # the license travels with the package
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in archive.namelist())

    env_dir = tmp_path / "fresh"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    fresh_site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])", cwd=tmp_path).stdout.strip())
    # kernreg's dependencies from this environment, by a plain path entry: unlike a site
    # directory, it runs no .pth file, so this environment's editable kernreg stays out
    deps = [p for p in (*site.getsitepackages(), sysconfig.get_paths()["purelib"])
            if Path(p).is_dir()]
    (fresh_site / "deps.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n")
    installed = _run(sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile",
                     "--target", fresh_site, wheel, cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr

    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "results.csv").write_text(RESULTS_CSV)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    where = _run(python, "-c", "import kernreg; print(kernreg.__file__)", cwd=work, env=env)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(fresh_site)  # the wheel, not the checkout
    fit = _run(python, "-c", "from kernreg import NystromKRLS; import numpy as np; "
               "X = np.linspace(0, 1, 50)[:, None]; "
               "print(NystromKRLS(m=10, random_state=0).fit(X, np.sin(6 * X[:, 0])).score(X, "
               "np.sin(6 * X[:, 0])) > 0.9)", cwd=work, env=env)
    assert fit.stdout.strip() == "True", fit.stderr

    table = _run(python, "-m", "kernreg", "table", "results.csv", "--compare-paper",
                 cwd=work, env=env)
    assert table.returncode == 0, table.stderr
    assert "(paper 0.6873±0.003)" in table.stdout  # NYTRO on Adult, from the package data
    assert "(paper 44.9±0.3)" in table.stdout

    listed = _run(python, "-m", "kernreg", "configs", "--all", cwd=work, env=env)
    assert listed.returncode == 0, listed.stderr
    names = {line.split()[0] for line in listed.stdout.splitlines() if line.strip()}
    assert {p.stem for p in (REPO / "configs").glob("*.yaml")} <= names
    assert str(fresh_site / "kernreg" / "configs") in listed.stdout  # the wheel's copy
    if not MIRROR.is_dir():
        pytest.skip(f"the run by name needs the dataset mirror ({MIRROR})")
    empty = tmp_path / "empty"
    empty.mkdir()
    ran = _run(python, "-m", "kernreg", "run", "adult_nytro", cwd=empty, env=env)
    assert ran.returncode == 0, ran.stderr
    # the README's Adult row: NYTRO's test RMSE 0.6883 and t* = 42.8, 5 trials
    assert "|  | RMSE | 0.6883±0.0004 |" in ran.stdout
    assert "|  | t* | 42.8±1.0 |" in ran.stdout
    assert (empty / "results" / "adult_nytro" / "results.csv").is_file()
