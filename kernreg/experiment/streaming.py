"""The streaming protocol of thesis Section 7.6 (Table 7.1, Figure 7.3), resumable per trial.

One trial: draw the imbalanced class (or take the configured one); for each of the other
T − 1 classes draw ``n_bal·i/(i−1)`` training examples and hold out every ``i``-th (``i = 6``:
1000 to train, 200 to validate); draw ``n_test`` test examples of every class; fit the
incremental RLSC on the balanced classes; then stream examples of the new class one at a
time (every ``i``-th held out for validation as well) and, when ``n_imb`` training examples
of it have been seen for ``n_imb`` in ``record_at``, select λ (and α) on the validation
examples of the well-represented classes and record the test accuracies of

* **N** — incremental RLSC (λ selected, no recoding),
* **RC** — Algorithm 7.1 (the same model recoded by ``Γ^α``, α and λ selected),
* **RB** — the rebalanced batch RLS (7.22), refit from scratch on everything seen so far.

N and RC share one model (recoding only rescales the score columns), so a trial streams once.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from kernreg.config.streaming import StreamConfig
from kernreg.datasets import load_dataset
from kernreg.experiment.resources import environment
from kernreg.results.stream_store import StreamStore
from kernreg.solvers.blocks.featuremaps import make_feature_map
from kernreg.solvers.blocks.multiclass import (
    accuracy,
    class_accuracy,
    per_class_accuracy,
    subset_accuracy,
)
from kernreg.solvers.blocks.rlsc import (
    IncrementalRLSC,
    RebalancedRLS,
    select_lambda,
    select_recoding,
)

__all__ = ["draw_trial", "run_stream", "stream_trial"]


def _every_ith(n: int, i: int) -> np.ndarray:
    """Mask of the held-out positions among ``n`` streamed examples: every ``i``-th."""
    return np.arange(n) % i == i - 1


def _n_draws(n_train: int, i: int) -> int:
    """Fewest draws that leave ``n_train`` training examples when every ``i``-th is held out."""
    n = n_train + n_train // (i - 1)
    while n - n // i < n_train:
        n += 1
    return n


def draw_trial(y_train: np.ndarray, y_test: np.ndarray, protocol: dict[str, Any],
               rng: np.random.Generator) -> dict[str, Any]:
    """Row indices of one trial: balanced train/validation, the new class's stream, test."""
    classes = np.unique(y_train)
    imb = protocol["imbalanced_class"]
    imb = float(rng.choice(classes)) if imb == "random" else float(imb)
    i = protocol["holdout_every"]
    n_bal, n_imb = protocol["n_bal"], max(protocol["record_at"])
    fit, val = [], []
    for c in classes[classes != imb]:
        rows = rng.choice(np.flatnonzero(y_train == c), _n_draws(n_bal, i), replace=False)
        held = _every_ith(rows.size, i)
        fit.append(rows[~held])
        val.append(rows[held])
    stream = rng.choice(np.flatnonzero(y_train == imb), _n_draws(n_imb, i), replace=False)
    test = np.concatenate([rng.choice(np.flatnonzero(y_test == c), protocol["n_test"],
                                      replace=False) for c in classes])
    return {"imbalanced": imb, "classes": classes, "fit": np.concatenate(fit),
            "val": np.concatenate(val), "stream": stream,
            "stream_held": _every_ith(stream.size, i), "test": test}


def stream_trial(cfg: StreamConfig, X_train: np.ndarray, y_train: np.ndarray,
                 X_test: np.ndarray, y_test: np.ndarray, trial: int) -> dict[str, Any]:
    """Run trial ``trial`` of ``cfg``; its record (:mod:`kernreg.results.stream_store`)."""
    p = cfg.protocol
    seed = int(np.random.SeedSequence([p["seed"], trial]).generate_state(1)[0])
    rng = np.random.default_rng(seed)
    rows = draw_trial(y_train, y_test, p, rng)
    imb, classes = rows["imbalanced"], rows["classes"]
    balanced = classes[classes != imb]

    def inputs(X: np.ndarray) -> np.ndarray:
        return X if fmap is None else fmap.transform(X)

    features = cfg.model["features"]
    fmap = None
    if features["kind"] != "linear":  # fixed before the stream: drawn from the balanced rows
        fmap = make_feature_map(features["kind"], features["size"], features["sigma"],
                                random_state=int(rng.integers(2**32)))
        fmap.fit(X_train[rows["fit"]])
    X_fit, y_fit = inputs(X_train[rows["fit"]]), y_train[rows["fit"]]
    X_val, y_val = inputs(X_train[rows["val"]]), y_train[rows["val"]]
    X_te, y_te = inputs(X_test[rows["test"]]), y_test[rows["test"]]
    X_stream, y_stream = inputs(X_train[rows["stream"]]), y_train[rows["stream"]]

    lambdas, alphas = cfg.lambdas, cfg.model["alphas"]
    model = IncrementalRLSC(lambdas).fit(X_fit, y_fit)
    record_at = list(p["record_at"])
    out: dict[str, dict[str, list[Any]]] = {
        m: {"total": [], "imbalanced": [], "balanced": [], "per_class": [], "lambda": [],
            "alpha": []} for m in cfg.methods}
    rb_seconds, update_seconds = [], []
    seen_X, seen_y, val_X, val_y = [X_fit], [y_fit], [X_val], [y_val]
    n_imb = 0

    def scores(W: np.ndarray, X: np.ndarray) -> np.ndarray:
        return np.einsum("nd,ldt->lnt", X, W)

    def record(method: str, pred: np.ndarray, lam: int, alpha: float) -> None:
        entry = out[method]
        entry["total"].append(accuracy(y_te, pred))
        entry["imbalanced"].append(class_accuracy(y_te, pred, imb))
        entry["balanced"].append(subset_accuracy(y_te, pred, balanced))
        entry["per_class"].append(per_class_accuracy(y_te, pred, classes))
        entry["lambda"].append(lambdas[lam])
        entry["alpha"].append(alpha)

    for x, label, held in zip(X_stream, y_stream, rows["stream_held"], strict=True):
        if held:
            val_X.append(x[None])
            val_y.append(np.array([label]))
            continue
        start = time.perf_counter()
        model.partial_fit(x[None], [label])
        update_seconds.append(time.perf_counter() - start)
        seen_X.append(x[None])
        seen_y.append(np.array([label]))
        n_imb += 1
        if n_imb not in record_at:
            continue
        Xv, yv = np.concatenate(val_X), np.concatenate(val_y)
        cols = {c: t for t, c in enumerate(model.classes_.tolist())}
        y_col = np.array([cols[c] for c in yv.tolist()])
        well = model.classes_[model.class_counts_ >= p["validation_min_examples"]]
        mask = np.isin(yv, well)
        W0 = model.coef(0.0)
        s_val, s_te = scores(W0, Xv), scores(W0, X_te)
        if "N" in out:
            lam, _ = select_lambda(s_val, y_col, mask)
            record("N", model.classes_[np.argmax(s_te[lam], axis=1)], lam, 0.0)
        if "RC" in out:
            gamma = model.recoding(1.0)
            alpha, lam, _ = select_recoding(s_val, gamma, alphas, y_col, mask)
            record("RC", model.classes_[np.argmax(s_te[lam] * gamma**alpha, axis=1)], lam,
                   alpha)
        if "RB" in out:
            start = time.perf_counter()
            rb = RebalancedRLS(lambdas).fit(np.concatenate(seen_X), np.concatenate(seen_y),
                                            classes=model.classes_)
            rb_seconds.append(time.perf_counter() - start)
            lam, _ = select_lambda(rb.decision_function(Xv), y_col, mask)
            record("RB", rb.predict(X_te, lambda_index=lam), lam, 1.0)
    result: dict[str, Any] = {
        "attrs": {"trial": trial, "seed": seed, "imbalanced_class": imb,
                  "classes": classes.tolist(), "n_features": int(X_fit.shape[1]),
                  "n_validation_balanced": int(X_val.shape[0])},
        "record_at": np.asarray(record_at),
        "update_seconds": np.asarray(update_seconds),
        "rb_fit_seconds": np.asarray(rb_seconds),
    }
    for method, entry in out.items():
        result[method] = {k: np.asarray(v, dtype=np.float64) for k, v in entry.items()}
    return result


def run_stream(cfg: StreamConfig, out: str | Path, *, resume: bool = False, force: bool = False,
               progress: bool = True) -> list[dict[str, Any]]:
    """Run every trial of ``cfg`` not finished yet under ``out/<name>``; return all trials."""
    store = StreamStore(Path(out) / cfg.name)
    with threadpool_limits(limits=cfg.budget["blas_threads"]):
        ds = load_dataset(cfg.dataset)
        manifest = {"experiment": cfg.name, "config": cfg.as_dict(),
                    "config_hash": cfg.config_hash(),
                    "config_file": str(cfg.path) if cfg.path else "",
                    "dataset": cfg.dataset, "dataset_sha256": ds.sha256,
                    "environment": environment()}
        store.open(manifest, resume=resume, force=force)
        todo = [t for t in range(cfg.protocol["trials"]) if not store.completed(t)]
        for trial in tqdm(todo, desc=cfg.name, unit="trial", disable=not progress, leave=False):
            store.save_trial(trial, stream_trial(cfg, ds.X_train, ds.y_train, ds.X_test,
                                                 ds.y_test, trial))
    return [t for t in store.load_trials() if t["attrs"]["trial"] < cfg.protocol["trials"]]
