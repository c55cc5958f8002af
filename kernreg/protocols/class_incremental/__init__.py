"""Thesis Chapter 7's class-incremental stream (Section 7.6: Table 7.1, Figure 7.3) as a
registered protocol, ``protocol: {kind: streaming}``.

Balanced classes first, then a new class one example at a time; at each checkpoint every
registered method (:mod:`.methods`: naive incremental RLSC, rebalanced batch RLS, recoding)
selects its parameters on the validation rows and records its test accuracies. A trial draws
its own rows; it is resumable, one file per trial.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kernreg.datasets import Dataset
from kernreg.experiment.protocol import (
    ProtocolSpec,
    get_protocol,
    load_protocol_config,
    register_protocol,
)
from kernreg.protocols.class_incremental import config, preflight, summary, trial
from kernreg.protocols.class_incremental.config import KIND, ClassIncrementalConfig
from kernreg.protocols.class_incremental.methods import (
    Checkpoint,
    Decision,
    StreamMethod,
    method_names,
    register_method,
    unregister_method,
)

__all__ = ["KIND", "Checkpoint", "ClassIncrementalConfig", "Decision", "StreamMethod",
           "load_config", "method_names", "register_method", "unregister_method"]


def _trial(cfg: ClassIncrementalConfig, data: Dataset, k: int) -> dict[str, Any]:
    return trial.stream_trial(cfg, data.X_train, data.y_train, data.X_test, data.y_test, k)


def _provenance(cfg: ClassIncrementalConfig, data: Dataset) -> dict[str, Any]:
    return {"dataset": cfg.dataset, "dataset_sha256": data.sha256}


def load_config(path: str | Path, *, smoke: bool = False, trials: int | None = None,
                settings: Sequence[str] = ()) -> ClassIncrementalConfig:
    """Read a class-incremental config file as ``kernreg run`` does (``smoke``, ``--trials``,
    ``--set``)."""
    cfg = load_protocol_config(get_protocol(KIND), path, smoke=smoke, trials=trials,
                               settings=settings)
    assert isinstance(cfg, ClassIncrementalConfig)
    return cfg


register_protocol(ProtocolSpec(
    kind=KIND,
    description="thesis Ch. 7: balanced classes, then a new class streamed one example at a "
                "time (incremental RLSC, rebalanced batch RLS, recoding)",
    load=config.load, smoke=config.smoke, prepare=trial.prepare,
    preflight=preflight.preflight, trial=_trial, provenance=_provenance,
    table=summary.table, table_file="table7_1.md",
    figures=summary.figures, figure_files=("fig7_3.png",)))
