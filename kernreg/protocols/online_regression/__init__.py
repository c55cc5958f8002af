"""Thesis Chapter 8's online regression protocol (Section 8.3, Figure 8.4), ``protocol: {kind:
online_regression}``: online estimators learn one plane of a SIMULATED iCub arm sample by
sample, then each part of the other plane (a trial) runs test-then-update.

- :mod:`.icub_arm_sim`: the generated data source (the ``robot`` extra);
- :mod:`.config`: schema, defaults, the validated config, its smoke size;
- :mod:`.preflight`: the memory budget, checked before anything is simulated or written;
- :mod:`.trial`: the trained state and one part's record;
- :mod:`.summary`: the table, Figure 8.4 and the tidy curves of finished trials.

``--seed`` sets ``simulation.seed``: every draw of the simulated robot, and the random
features' seed where an estimator sets none.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from kernreg.experiment.protocol import (
    ProtocolSpec,
    get_protocol,
    load_protocol_config,
    register_protocol,
)
from kernreg.protocols.online_regression import config, preflight, summary, trial
from kernreg.protocols.online_regression.config import KIND, OnlineRegressionConfig
from kernreg.protocols.online_regression.icub_arm_sim import LABEL

__all__ = ["KIND", "OnlineRegressionConfig", "load_config"]


def _packages() -> dict[str, str]:
    """Versions of the packages the simulation runs on."""
    out = {}
    for name in ("idyntree", "icub-models"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _provenance(cfg: OnlineRegressionConfig, prepared: Any) -> dict[str, Any]:
    """The manifest's record of the generated source."""
    return {"source": {"name": "icub_arm_sim", "label": LABEL, "packages": _packages()}}


def load_config(path: str | Path, *, smoke: bool = False, trials: int | None = None,
                seed: int | None = None, settings: Sequence[str] = ()
                ) -> OnlineRegressionConfig:
    """Read an online regression config file as ``kernreg run`` does (``smoke``,
    ``--trials``, ``--seed``, ``--set``)."""
    cfg = load_protocol_config(get_protocol(KIND), path, smoke=smoke, trials=trials, seed=seed,
                               settings=settings)
    assert isinstance(cfg, OnlineRegressionConfig)
    return cfg


register_protocol(ProtocolSpec(
    kind=KIND,
    description="thesis Ch. 8 (Fig. 8.4) on a SIMULATED iCub arm: online P, NP, SP learn one "
                "plane, then each part of the other runs test-then-update (a trial)",
    load=config.load, smoke=config.smoke, prepare=trial.start,
    preflight=preflight.preflight, trial=trial.trial, provenance=_provenance,
    table=summary.table, table_file=summary.TABLE_FILE,
    figures=summary.figures, figure_files=(summary.FIGURE_FILE,),
    files=summary.files, data_files=(summary.CSV_FILE,), seed_key=("simulation", "seed")))
