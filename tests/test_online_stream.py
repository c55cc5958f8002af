"""Thesis Chapter 8's online regression protocol (``kernreg run``, ``protocol: {kind:
online_regression}``): the online estimator registry, the config (every problem named, exit
status 2, hashes unchanged), the memory preflight, the smoke run through the command line and
through :func:`~kernreg.experiment.protocol.run_protocol`, resume without lost or duplicated
parts, the runner's curves against a direct computation, and the missing robot extra."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from threadpoolctl import threadpool_limits

from kernreg.config import HOLDOUT, protocol_kind
from kernreg.config.loader import read_yaml
from kernreg.errors import ConfigError, DataError
from kernreg.experiment.preflight import BudgetError
from kernreg.experiment.protocol import get_protocol, run_protocol
from kernreg.protocols.online_regression import KIND, OnlineRegressionConfig, load_config
from kernreg.protocols.online_regression.config import load, smoke
from kernreg.protocols.online_regression.preflight import online_memory
from kernreg.results.trial_store import TrialStore
from kernreg.solvers.blocks.recursive_rls import batch_ridge
from kernreg.solvers.online import (
    HoldoutSelection,
    ParametricRLS,
    RandomFeaturesRLS,
    SemiparametricRLS,
    get_online_spec,
    online_names,
    windowed_rmse,
)

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "configs" / "thesis_fig8_4_sim.yaml"
GOOD = read_yaml(CONFIG)  # kernreg's reader: `1e-7` is a number


def _write(tmp_path: Path, data: dict, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


# ---------------------------------------------------------------------- registry and config
def test_the_registry_names_p_np_and_sp() -> None:
    assert online_names() == ["parametric", "random_features", "semiparametric"]
    specs = [get_online_spec(n) for n in online_names()]
    assert [s.label for s in specs] == ["P", "NP", "SP"]
    assert [s.estimator for s in specs] == [ParametricRLS, RandomFeaturesRLS, SemiparametricRLS]
    assert set(specs[2].schema) == {"lam", "lam_p", "sigma", "n_components", "seed"}
    with pytest.raises(ValueError, match="registered: parametric, random_features"):
        get_online_spec("gp")


def test_the_shipped_config_is_the_artifacts_settings() -> None:
    cfg = load_config(CONFIG)
    assert isinstance(cfg, OnlineRegressionConfig)
    assert cfg.simulation == {"n_samples": 10_000, "seed": 0}
    assert (cfg.protocol["n_parts"], cfg.protocol["trials"], cfg.protocol["window"],
            cfg.part_length, cfg.trials) == (10, 10, 30, 1000, 10)
    assert cfg.budget == {"blas_threads": 1, "memory_gb": 20.0}
    assert cfg.selection == {"train_fraction": 0.9, "sigmas": [1.0, 2.0, 4.0, 8.0, 16.0],
                             "lambdas": [1e-7, 1e-5, 1e-3, 1e-1, 1e1],
                             "lambdas_p": [1e-6, 1e-4, 1e-2, 1.0, 1e2]}
    assert [(a.label, a.params, a.selected) for a in cfg.algorithms] == [
        ("P", {}, ("lam_p",)),
        ("NP", {"n_components": 500, "seed": 0}, ("sigma", "lam")),
        ("SP", {"n_components": 500, "seed": 0}, ("lam_p", "sigma", "lam"))]


def test_the_config_names_its_registered_protocol() -> None:
    assert protocol_kind(GOOD) == KIND == "online_regression"
    assert get_protocol(KIND).load is load and get_protocol(KIND).smoke is smoke
    assert protocol_kind({"protocol": {"trials": 3}}) == HOLDOUT


def test_smoke_size_is_the_scripts() -> None:
    small = smoke(GOOD)
    assert small["simulation"]["n_samples"] == 300
    assert (small["protocol"]["n_parts"], small["protocol"]["window"]) == (3, 10)
    assert "n_components" not in small["algorithms"][0]  # P has no features
    assert [a.get("n_components") for a in small["algorithms"][1:]] == [40, 40]
    assert small["selection"] == GOOD["selection"]  # grids kept whole
    cfg = load_config(CONFIG, smoke=True, trials=2, seed=5)  # as `kernreg run` reads it
    assert cfg.protocol["trials"] == 2 and cfg.simulation["seed"] == 5  # --seed: the robot's
    assert cfg.algorithms[1].params["seed"] == 5  # the features' seed follows the simulation's
    assert GOOD["simulation"]["n_samples"] == 10_000  # the input is not modified


def test_the_config_hash_ignores_the_trial_count_budget_and_integer_spelling() -> None:
    a = load(GOOD, CONFIG)
    assert a.config_hash() == load_config(CONFIG, trials=3).config_hash()
    budget = {**copy.deepcopy(GOOD), "budget": {"memory_gb": 64, "blas_threads": 2}}
    assert load(budget, CONFIG).budget == {"memory_gb": 64.0, "blas_threads": 2}
    assert load(budget, CONFIG).config_hash() == a.config_hash()
    floats = {**copy.deepcopy(GOOD), "selection": {**GOOD["selection"],
                                                   "sigmas": [1.0, 2.0, 4.0, 8.0, 16.0]}}
    assert load(floats, CONFIG).config_hash() == a.config_hash()
    hashes = []
    for sigma in (8, 8.0):
        data = copy.deepcopy(GOOD)
        data["algorithms"][1]["sigma"] = sigma
        hashes.append(load(data, CONFIG).config_hash())
    h8, h8f = hashes
    assert h8 == h8f != a.config_hash()


def test_the_hashes_of_earlier_run_folders_stand() -> None:
    """The shipped config's hashes, full and at smoke size, as the run folders written before
    the protocol was registered hold them: those runs still resume."""
    assert load_config(CONFIG).config_hash() == \
        "a7517f6517931a87d15ea2547bf1861f1984e383a6df6881b309944d8dccb2ed"
    assert load_config(CONFIG, smoke=True).config_hash() == \
        "dd9fdd92171f68de8b83a8ebda22cea199391ca0f8ae0a500c97c3765dd296fd"


def _bad(**changes) -> dict:
    data = copy.deepcopy(GOOD)
    for where, value in changes.items():
        section, _, key = where.partition("__")
        if key.isdigit():
            data[section][int(key)] = value
        elif key:
            data[section][key] = value
        else:
            data[section] = value
    return data


@pytest.mark.parametrize(("data", "messages"), [
    (_bad(protocol__window=2000), ["protocol.window: 2000 samples exceed a part's 1000"]),
    (_bad(protocol__n_parts=20000), ["protocol.n_parts: must be <= 10000"]),
    (_bad(protocol__trials=11), ["protocol.trials: 11 trials, but a trial is one of the "
                                 "protocol.n_parts = 10 parts"]),
    (_bad(protocol__test_plane="yz"), ["protocol.test_plane: 'yz' is not allowed; allowed "
                                       "values: xy, xz"]),
    (_bad(algorithms__0={"name": "gp"}), ["algorithms[0].name: 'gp' is not allowed"]),
    (_bad(algorithms__0={"name": "parametric", "sigma": 2.0}),
     ["algorithms[0]: unknown key 'sigma'; allowed keys: label, lam_p, name"]),
    (_bad(algorithms__1={"name": "random_features", "label": "P", "n_components": 0}),
     ["algorithms[1].n_components: must be >= 1, got 0",
      "algorithms[1].label: 'P' is already the label of algorithms[0]"]),
    (_bad(algorithms__2={"name": "semiparametric", "label": "a/b"}),
     ["algorithms[2].label: 'a/b' is not valid; expected letters, digits"]),
    (_bad(selection__lambdas=[]), ["selection.lambdas: [] should be non-empty"]),
    (_bad(selection__train_fraction=1.0), ["selection.train_fraction: must be < 1, got 1.0"]),
    (_bad(simulation__n_samples=10, selection__train_fraction=0.05, protocol__n_parts=2,
          protocol__window=3),
     ["selection.train_fraction: 0.05 of 10 samples leaves 0 to fit and 10 to score"]),
    (_bad(simulation__colour="red", protocol__kind="online_regression"),
     ["simulation: unknown key 'colour'; allowed keys: n_samples, seed"]),
    (_bad(budget={"memory_gb": 0}), ["budget.memory_gb: must be > 0, got 0"]),
])
def test_bad_configs_exit_2_naming_every_key(tmp_path: Path, kernreg_cli, data: dict,
                                             messages: list[str]) -> None:
    path = _write(tmp_path, data)
    code, _, err = kernreg_cli(["run", str(path), "--out", str(tmp_path / "out"),
                                "--no-progress"])
    assert code == 2, err
    for message in messages:
        assert message in err, err
    assert not (tmp_path / "out").exists()  # nothing written


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    data = _bad(protocol__trials=11, selection__sigmas=[-1.0],
                algorithms__0={"name": "parametric", "label": "NP"})
    with pytest.raises(ConfigError) as info:
        load(data, tmp_path / "c.yaml")
    text = str(info.value)
    assert "selection.sigmas[0]: must be > 0" in text
    data = _bad(protocol__trials=11, algorithms__0={"name": "parametric", "label": "NP"})
    with pytest.raises(ConfigError) as info:
        load(data, tmp_path / "c.yaml")
    assert "protocol.trials" in str(info.value) and "algorithms[1].label: 'NP' is already" \
        in str(info.value)


def test_hold_out_config_keys_are_no_online_keys(tmp_path: Path) -> None:
    data = {**copy.deepcopy(GOOD), "dataset": {"name": "adult"}}
    with pytest.raises(ConfigError, match=r"\(top level\): unknown key 'dataset'"):
        load(data, tmp_path / "c.yaml")


# ---------------------------------------------------------------------- the memory preflight
def _huge(n_components: int = 100_000) -> dict:
    data = copy.deepcopy(GOOD)
    for algo in data["algorithms"][1:]:  # NP and SP
        algo["n_components"] = n_components
    return data


def test_the_memory_estimate_grows_with_the_random_features() -> None:
    small = online_memory(load(GOOD, CONFIG))
    assert small.peak_bytes < 2**30  # the artifact's run: D = 500 on 10 000 samples
    huge = online_memory(load(_huge(), CONFIG))
    assert huge.peak_bytes > 2 * 8 * 100_000**2  # NP's and SP's D × D matrices at least
    assert set(huge.parts) == {"simulated planes", "rigid-body regressor",
                               "estimators (one D×D each)", "largest one's working set"}
    only_p = {**copy.deepcopy(GOOD), "algorithms": [{"name": "parametric"}]}
    assert "estimators (one D×D each)" not in online_memory(load(only_p, CONFIG)).parts


def test_a_huge_random_feature_count_is_refused_before_anything_is_written(
        tmp_path: Path, kernreg_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    import kernreg.protocols.online_regression.trial as runner

    def no_simulation(*_a, **_k):
        raise AssertionError("simulated before the budget was checked")

    monkeypatch.setattr(runner, "simulate", no_simulation)
    spec, out = get_protocol(KIND), tmp_path / "out"
    cfg = spec.load(_huge(), tmp_path / "huge.yaml")
    with pytest.raises(BudgetError, match=r"estimated peak memory, 313 GiB, exceeds the budget "
                                          r"of 20 GiB \(budget.memory_gb; ") as info:
        run_protocol(spec, cfg, out, progress=False)
    assert "NP: D = 100000" in str(info.value) and "D×D" in str(info.value)
    assert not out.exists()  # the lock's folders removed: nothing was written
    with pytest.raises(BudgetError):  # the run folder's way and the script's way alike
        list(runner.online_trials(cfg))
    path = _write(tmp_path, _huge(), "huge.yaml")
    code, _, err = kernreg_cli(["run", str(path), "--out", str(out), "--no-progress"])
    assert code == 2, err
    assert "exceeds the budget of 20 GiB (budget.memory_gb; 90% of this machine's" in err
    assert "Nothing was run" in err
    assert not out.exists()
    roomy = {**_huge(3000), "budget": {"memory_gb": 1000}}  # a budget that holds it passes
    assert spec.preflight(spec.load(roomy, path), None).peak_bytes < 1000 * 2**30


# ---------------------------------------------------------------------- the missing extra
def test_a_missing_robot_extra_is_a_data_error_naming_the_extra(
        tmp_path: Path, kernreg_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from kernreg.protocols.online_regression.icub_arm_sim import robot_modules

    monkeypatch.setitem(sys.modules, "icub_models", None)  # `import icub_models` fails
    with pytest.raises(DataError, match=r"pip install 'kernreg\[robot\]'") as info:
        robot_modules()
    assert "the simulated iCub arm" in str(info.value)
    out = tmp_path / "out"
    code, _, err = kernreg_cli(["run", str(CONFIG), "--smoke", "--out", str(out),
                                "--no-progress"])
    assert code == 2
    assert "error: the simulated iCub arm" in err and "pip install 'kernreg[robot]'" in err
    assert not out.exists()  # checked before anything is written


# ---------------------------------------------------------------------- runs (robot extra)
@pytest.fixture(scope="module")
def smoke_cfg() -> OnlineRegressionConfig:
    return load(smoke(GOOD), CONFIG)


@pytest.fixture(scope="module")
def direct_trials(smoke_cfg: OnlineRegressionConfig) -> list[dict]:
    """The smoke config's parts, computed without a run folder."""
    pytest.importorskip("idyntree")
    pytest.importorskip("icub_models")
    from kernreg.protocols.online_regression.trial import online_trials

    return list(online_trials(smoke_cfg))


def _stored(run_dir: Path) -> list[dict]:
    return TrialStore(run_dir).load_trials()


def _same_curves(a: list[dict], b: list[dict]) -> None:
    assert [t["attrs"]["trial"] for t in a] == [t["attrs"]["trial"] for t in b]
    for ta, tb in zip(a, b, strict=True):
        assert ta["attrs"]["selected"] == tb["attrs"]["selected"]
        for label in ("P", "NP", "SP"):
            for group in ("force", "torque"):
                np.testing.assert_array_equal(ta[label][group], tb[label][group])


def test_smoke_run_end_to_end_then_resume_adds_no_part_twice(
        direct_trials: list[dict], tmp_path: Path, kernreg_cli,
        monkeypatch: pytest.MonkeyPatch) -> None:
    out, run_dir = tmp_path / "out", tmp_path / "out" / "thesis_fig8_4_sim"
    args = ["run", str(CONFIG), "--smoke", "--out", str(out), "--no-progress"]
    code, stdout, err = kernreg_cli([*args, "--trials", "1"])  # an "interrupted" run: part 0
    assert code == 0, err
    assert "SIMULATED on the iCub URDF" in stdout and "mean ± std over 1 parts" in stdout
    assert [p.name for p in sorted((run_dir / "trials").iterdir())] == ["t000.h5"]
    first = (run_dir / "trials" / "t000.h5").read_bytes()
    code, _, err = kernreg_cli(args)  # without --resume: refused, nothing touched
    assert code == 2 and "--resume" in err
    code, stdout, err = kernreg_cli([*args, "--resume"])
    assert code == 0, err
    assert [p.name for p in sorted((run_dir / "trials").iterdir())] == \
        ["t000.h5", "t001.h5", "t002.h5"]
    assert (run_dir / "trials" / "t000.h5").read_bytes() == first  # kept, not redone
    assert "| force, samples 1–10 (N) |" in stdout and "λ_P = " in stdout
    assert {"summary.md", "fig8_4.png", "curves.csv", "manifest.json"} <= \
        {p.name for p in run_dir.iterdir()}
    stored = _stored(run_dir)
    _same_curves(stored, direct_trials)  # resumed = uninterrupted
    csv = (run_dir / "curves.csv").read_text().splitlines()
    assert csv[0] == "estimator,group,part,sample,rmse"
    assert len(csv) == 1 + 3 * 3 * 2 * 100  # labels × parts × groups × samples, once each

    import kernreg.protocols.online_regression.trial as runner

    def no_work(*_a, **_k):  # every part is stored: nothing may be recomputed
        raise AssertionError("a finished part was recomputed")

    monkeypatch.setattr(runner, "prepare", no_work)
    code, _, err = kernreg_cli([*args, "--resume"])
    assert code == 0, err
    assert len(_stored(run_dir)) == 3


def test_run_protocol_writes_the_outputs_the_manifest_rebuilds(
        direct_trials: list[dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run loop's folder: a trial file per part equal to the direct computation, the
    generated source's provenance, the outputs — the table rebuilt from the manifest's config
    is the one written — and a resume that simulates nothing."""
    import json

    spec = get_protocol(KIND)
    cfg = spec.load(spec.smoke(read_yaml(CONFIG)), CONFIG)
    run = run_protocol(spec, cfg, tmp_path, progress=False)
    assert run.resumed == 0 and run.run_dir == tmp_path / "thesis_fig8_4_sim"
    assert sorted(p.name for p in (run.run_dir / "trials").iterdir()) == \
        ["t000.h5", "t001.h5", "t002.h5"]
    assert {p.name for p in run.written} == {"summary.md", "fig8_4.png", "curves.csv"}
    _same_curves(_stored(run.run_dir), direct_trials)
    manifest = json.loads((run.run_dir / "manifest.json").read_text())
    assert manifest["config_hash"] == cfg.config_hash()
    assert manifest["source"]["name"] == "icub_arm_sim"
    assert "SIMULATED" in manifest["source"]["label"]
    assert set(manifest["source"]["packages"]) == {"idyntree", "icub-models"}
    records = _stored(run.run_dir)
    summary = (run.run_dir / "summary.md").read_text()
    assert summary == spec.table(manifest["config"], records)
    assert summary.startswith("# thesis_fig8_4_sim: thesis Figure 8.4\n\nData: SIMULATED")
    assert "Protocol: 300 simulated samples per plane (seed 0)" in summary
    assert "(100 samples) runs test-then-update" in summary
    assert (run.run_dir / "curves.csv").read_text() == \
        spec.files(manifest["config"], records)["curves.csv"]
    assert (run.run_dir / "fig8_4.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    before = {p.name: p.read_bytes() for p in (run.run_dir / "trials").iterdir()}

    import kernreg.protocols.online_regression.trial as runner

    def no_work(*_a, **_k):
        raise AssertionError("a finished part was recomputed")

    monkeypatch.setattr(runner, "prepare", no_work)
    again = run_protocol(spec, cfg, tmp_path, resume=True, progress=False)
    assert again.resumed == 3 and len(again.records) == 3
    assert {p.name: p.read_bytes() for p in (run.run_dir / "trials").iterdir()} == before
    assert (run.run_dir / "summary.md").read_text() == summary


def test_the_runner_curves_equal_a_direct_computation(direct_trials: list[dict],
                                                      smoke_cfg: OnlineRegressionConfig
                                                      ) -> None:
    """The hyperparameters are those of a brute-force selection written out here, and every
    curve is the windowed RMSE of the estimators run by hand, test-then-update (with the run's
    one BLAS thread: at λ = 1e-7 the last digits depend on how products are split)."""
    with threadpool_limits(limits=smoke_cfg.budget["blas_threads"]):
        _by_hand(direct_trials, smoke_cfg)


def _by_hand(direct_trials: list[dict], smoke_cfg: OnlineRegressionConfig) -> None:
    from kernreg.features import RandomFourierFeatures
    from kernreg.protocols.online_regression.icub_arm_sim import simulate

    model, _, planes = simulate(300, 0)
    xy, xz = planes["xy"], planes["xz"]
    mean, std = xy.inputs.mean(0), xy.inputs.std(0)
    Zxy, Zxz = (xy.inputs - mean) / std, (xz.inputs - mean) / std
    y = xy.wrench
    n = int(0.9 * len(y))
    scale = y[:n].std(0)

    def score(pred: np.ndarray) -> float:
        return float(np.sqrt(np.mean(((pred - y[n:]) / scale) ** 2)))

    Y = model.regressor(xy.inputs)
    A = Y.reshape(len(y) * 6, -1)
    grid = smoke_cfg.selection
    coef = {lp: batch_ridge(A[:6 * n], y[:n].reshape(-1), lp)[:, 0] for lp in grid["lambdas_p"]}
    lam_p = min(grid["lambdas_p"], key=lambda lp: score(Y[n:] @ coef[lp]))
    base = Y @ coef[lam_p]
    best: dict[str, tuple] = {}
    for sigma in grid["sigmas"]:
        fmap = RandomFourierFeatures(40, sigma, random_state=0).draw(12)
        F = fmap.transform(Zxy) * fmap.scale
        for lam in grid["lambdas"]:
            for name, target, b in (("NP", y, 0.0), ("SP", y - base, base)):
                s = score(b[n:] + F[n:] @ batch_ridge(F[:n], target[:n], lam)
                          if name == "SP" else F[n:] @ batch_ridge(F[:n], target[:n], lam))
                if name not in best or s < best[name][0]:
                    best[name] = (s, sigma, lam)
    selected = direct_trials[0]["attrs"]["selected"]
    assert selected["P"] == {"lam_p": lam_p}
    assert selected["NP"] == {"n_components": 40, "seed": 0, "sigma": best["NP"][1],
                              "lam": best["NP"][2]}
    assert selected["SP"] == {"n_components": 40, "seed": 0, "lam_p": lam_p,
                              "sigma": best["SP"][1], "lam": best["SP"][2]}

    def regressor(Z: np.ndarray) -> np.ndarray:
        return model.regressor(np.atleast_2d(Z) * std + mean)

    estimators = {
        "P": ParametricRLS(regressor, lam_p),
        "NP": RandomFeaturesRLS(40, best["NP"][1], best["NP"][2], random_state=0),
        "SP": SemiparametricRLS(regressor, 40, best["SP"][1], lam_p, best["SP"][2],
                                random_state=0)}
    for est in estimators.values():
        est.partial_fit(Zxy, y)
    for trial in direct_trials:
        part = trial["attrs"]["trial"]
        rows = slice(100 * part, 100 * (part + 1))
        assert trial["attrs"]["rows"] == [rows.start, rows.stop]
        for label, est in estimators.items():
            pred = copy.deepcopy(est).predict_update(Zxz[rows], xz.wrench[rows])
            for group, cols in (("force", slice(0, 3)), ("torque", slice(3, 6))):
                sq = np.mean((pred[:, cols] - xz.wrench[rows, cols]) ** 2, axis=1)
                by_hand = [np.sqrt(sq[max(0, i - 9):i + 1].mean()) for i in range(100)]
                np.testing.assert_allclose(trial[label][group], by_hand, rtol=1e-9, atol=0)
    cad = np.sqrt(np.mean((xz.cad_wrench[:, :3] - xz.wrench[:, :3]) ** 2))
    assert direct_trials[0]["attrs"]["cad_rmse"]["force"] == pytest.approx(cad, rel=1e-12)


def test_fixed_parameters_are_not_selected(tmp_path: Path) -> None:
    data = copy.deepcopy(GOOD)
    data["algorithms"] = [{"name": "random_features", "label": "NP", "sigma": 4, "lam": 1e-3,
                           "n_components": 20, "seed": 7}]
    cfg = load(data, tmp_path / "c.yaml")
    (algo,) = cfg.algorithms
    assert algo.selected == ()
    assert algo.params == {"n_components": 20, "seed": 7, "sigma": 4.0, "lam": 1e-3}
    from kernreg.protocols.online_regression.trial import select_params

    rng = np.random.default_rng(0)
    holdout = HoldoutSelection(rng.standard_normal((30, 3)), rng.standard_normal((30, 2)))
    assert select_params(algo, holdout, cfg.selection) == algo.params
    partly = {**data["algorithms"][0]}
    del partly["lam"]
    cfg = load({**data, "algorithms": [partly]}, tmp_path / "c.yaml")
    chosen = select_params(cfg.algorithms[0], holdout, cfg.selection)
    assert chosen["sigma"] == 4.0 and chosen["lam"] in cfg.selection["lambdas"]


def test_windowed_rmse_is_the_trailing_window() -> None:
    errors = np.random.default_rng(1).standard_normal((12, 3))
    sq = np.mean(errors**2, axis=1)
    expected = [np.sqrt(sq[max(0, i - 3):i + 1].mean()) for i in range(12)]
    np.testing.assert_allclose(windowed_rmse(errors, 4), expected, rtol=1e-13)


def test_a_folder_of_another_kind_of_run_is_neither_continued_nor_deleted(
        tmp_path: Path, kernreg_cli) -> None:
    pytest.importorskip("idyntree")
    pytest.importorskip("icub_models")
    import json

    run_dir = tmp_path / "out" / "thesis_fig8_4_sim"
    (run_dir / "trials").mkdir(parents=True)
    manifest = {"experiment": "thesis_fig8_4_sim", "config_hash": "0" * 64,
                "config": {"protocol": {"trials": 5}}}  # a hold-out run of that name
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    args = ["run", str(CONFIG), "--smoke", "--out", str(tmp_path / "out"), "--no-progress"]
    code, _, err = kernreg_cli([*args, "--resume"])
    assert code == 2 and "holds a hold-out run of 'thesis_fig8_4_sim'" in err
    code, _, err = kernreg_cli([*args, "--force"])
    assert code == 2 and "--force:" in err and "of a hold-out run" in err
    assert json.loads((run_dir / "manifest.json").read_text()) == manifest
