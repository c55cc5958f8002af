"""One grid spelling for every protocol: every form read by one function, the same grid
written two ways is one config (one hash), and the earlier ``{min, max, num}`` is an alias."""

from __future__ import annotations

import copy
import logging
from pathlib import Path

import numpy as np
import yaml

from kernreg.grid import canonical_grid, grid_values, is_grid
from kernreg.protocols.class_incremental import load_config as load_stream
from kernreg.protocols.online_regression import load_config as load_online

REPO = Path(__file__).resolve().parents[1]


def test_every_form_gives_its_values() -> None:
    np.testing.assert_allclose(grid_values({"logspace": [1e-3, 1e1, 5]}),
                               [1e-3, 1e-2, 1e-1, 1.0, 1e1])
    np.testing.assert_allclose(grid_values({"linspace": [0.0, 1.0, 3]}), [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(grid_values({"range": [2, 10, 4]}), [2, 6, 10])
    np.testing.assert_array_equal(grid_values([3.0, 1.0]), [3.0, 1.0])  # a list keeps its order
    np.testing.assert_array_equal(grid_values(4.0), [4.0])
    assert is_grid([1.0]) and is_grid({"logspace": [1, 2, 2]}) and not is_grid(4.0)


def test_the_earlier_stream_spelling_is_an_alias_with_a_note(caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="kernreg.config"):
        grid = canonical_grid({"min": 0.1, "max": 10.0, "num": 3}, "model.lambdas")
    assert grid == {"logspace": [0.1, 10.0, 3]}
    assert "model.lambdas: {min, max, num} is read as {logspace" in caplog.text


def test_a_stream_grid_in_either_spelling_is_one_config(tmp_path: Path) -> None:
    """The committed configs now spell their grid as a logspace; their hash is the one their
    earlier spelling had, so run folders started before resume."""
    data = yaml.safe_load((REPO / "configs" / "thesis_table7.yaml").read_text())
    old = copy.deepcopy(data)
    old["model"]["lambdas"] = {"min": 1.0e-1, "max": 1.0e5, "num": 13}
    listed = copy.deepcopy(data)
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(data))
    (tmp_path / "old.yaml").write_text(yaml.safe_dump(old))
    new_cfg, old_cfg = load_stream(tmp_path / "new.yaml"), load_stream(tmp_path / "old.yaml")
    assert new_cfg.config_hash() == old_cfg.config_hash() == \
        "84d13a943b8794e20040378d7ab36aca84a1b94c965a84352676afc8ed7f9d62"
    np.testing.assert_array_equal(new_cfg.lambdas, np.logspace(-1, 5, 13))
    listed["model"]["lambdas"] = {"linspace": [1.0, 3.0, 3]}
    (tmp_path / "lin.yaml").write_text(yaml.safe_dump(listed))
    np.testing.assert_array_equal(load_stream(tmp_path / "lin.yaml").lambdas, [1.0, 2.0, 3.0])


def test_an_online_selection_grid_in_any_form_is_its_values(tmp_path: Path) -> None:
    data = yaml.safe_load((REPO / "configs" / "thesis_fig8_4_sim.yaml").read_text())
    spaced = copy.deepcopy(data)
    data.setdefault("selection", {})["lambdas"] = [1.0, 2.0, 3.0]
    spaced.setdefault("selection", {})["lambdas"] = {"linspace": [1, 3, 3]}
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(data))
    (tmp_path / "b.yaml").write_text(yaml.safe_dump(spaced))
    a, b = load_online(tmp_path / "a.yaml"), load_online(tmp_path / "b.yaml")
    assert a.selection["lambdas"] == b.selection["lambdas"] == [1.0, 2.0, 3.0]
    assert a.config_hash() == b.config_hash()  # one grid, however written: one config


def test_a_kernel_without_a_bandwidth_ignores_sigma() -> None:
    from kernreg import NystromKRLS

    X = np.random.default_rng(0).standard_normal((60, 3))
    y = X @ np.array([1.0, -2.0, 0.5])
    fits = [NystromKRLS(fit_intercept=False,
                        kernel="linear", sigma=s, m=20, random_state=0).fit(X, y)
            for s in (1.0, 123.0)]
    np.testing.assert_array_equal(fits[0].predict(X), fits[1].predict(X))
    np.testing.assert_allclose(fits[0].predict(X), y, atol=1e-4)  # ridge: a small bias
