"""One trial of the class-incremental stream (thesis Section 7.6: Table 7.1, Figure 7.3).

One trial: draw the imbalanced class (or take the configured one); for each of the other
T − 1 classes draw ``n_bal·i/(i−1)`` training examples and hold out every ``i``-th (``i = 6``:
1000 to train, 200 to validate); draw ``n_test`` test examples of every class; fit the
incremental RLSC on the balanced classes; then stream examples of the new class one at a
time (every ``i``-th held out for validation as well) and, when ``n_imb`` training examples
of it have been seen for ``n_imb`` in ``record_at``, let every configured method
(:mod:`.methods`) select its parameters on the validation examples of the well-represented
classes and record its test accuracies. The methods share one incremental model, so a trial
streams once. The accuracies are the multiclass task's measures (:mod:`kernreg.losses`); the
kernel extension runs the same linear model on fixed features (:func:`input_map`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from kernreg.datasets import Dataset, load_dataset
from kernreg.features import make_feature_map
from kernreg.kernels import active_path, make_kernel
from kernreg.losses import class_key, get_measure, get_task
from kernreg.protocols.class_incremental.config import ClassIncrementalConfig
from kernreg.protocols.class_incremental.methods import Checkpoint, get_method
from kernreg.protocols.class_incremental.preflight import n_draws
from kernreg.solvers.blocks.nystrom import nystrom_setup
from kernreg.solvers.blocks.rlsc import IncrementalRLSC

__all__ = ["draw_trial", "input_map", "prepare", "stream_seed", "stream_trial"]

#: The ridge ``εI`` added to ``K_mm`` of the Nyström features (keeps the factor defined when
#: centers nearly coincide).
NYSTROM_EPSILON = 1e-10


def prepare(cfg: ClassIncrementalConfig) -> Dataset:
    """The dataset every trial draws its rows from."""
    return load_dataset(cfg.dataset)


def _every_ith(n: int, i: int) -> np.ndarray:
    """Mask of the held-out positions among ``n`` streamed examples: every ``i``-th."""
    return np.arange(n) % i == i - 1


def stream_seed(protocol: dict[str, Any], trial: int) -> int:
    """The seed of trial ``trial``: its rows are ``draw_trial`` with ``default_rng(seed)``."""
    return int(np.random.SeedSequence([protocol["seed"], trial]).generate_state(1)[0])


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
        rows = rng.choice(np.flatnonzero(y_train == c), n_draws(n_bal, i), replace=False)
        held = _every_ith(rows.size, i)
        fit.append(rows[~held])
        val.append(rows[held])
    stream = rng.choice(np.flatnonzero(y_train == imb), n_draws(n_imb, i), replace=False)
    test = np.concatenate([rng.choice(np.flatnonzero(y_test == c), protocol["n_test"],
                                      replace=False) for c in classes])
    return {"imbalanced": imb, "classes": classes, "fit": np.concatenate(fit),
            "val": np.concatenate(val), "stream": stream,
            "stream_held": _every_ith(stream.size, i), "test": test}


def input_map(features: dict[str, Any], X_fit: np.ndarray, random_state: int
              ) -> Callable[[np.ndarray], np.ndarray] | None:
    """The fixed map from inputs to the linear model's features (None: raw inputs).

    Parameters
    ----------
    features : dict
        ``model.features`` of the config: ``kind`` ``"linear"``, ``"nystrom"`` (``m`` uniform
        centers from ``X_fit``, Gaussian kernel of bandwidth ``sigma``) or a feature map of
        :mod:`kernreg.features` (``n_components`` = D features approximating its kernel of
        bandwidth ``sigma``).
    X_fit : ndarray of shape (n, d)
        The balanced training rows (Nyström centers are drawn from them).
    random_state : int
        Seed of the centers or of the random features.

    Returns
    -------
    callable or None
        ``X → φ(X)``. Nyström: ``K(X, C) R⁻¹`` with ``RᵀR = K_mm + εI`` (the set-up of
        :func:`kernreg.solvers.blocks.nystrom.nystrom_setup`), so a linear model on it is
        Nyström KRLS; a random feature map: its features scaled by ``1/√D`` (``ZZᵀ ≈ K``).
    """
    kind = features["kind"]
    if kind == "linear":
        return None
    if kind == "nystrom":
        kernel = make_kernel("gaussian", features["sigma"])
        setup = nystrom_setup(X_fit, features["m"], kernel, sampler="uniform",
                              random_state=random_state, epsilon=NYSTROM_EPSILON)
        return lambda X: setup.factor.right_solve(kernel(X, setup.centers))
    fmap = make_feature_map(kind, features["n_components"], random_state=random_state,
                            sigma=features["sigma"]).draw(X_fit.shape[1])
    return lambda X: fmap.transform(X) * fmap.scale


def stream_trial(cfg: ClassIncrementalConfig, X_train: np.ndarray, y_train: np.ndarray,
                 X_test: np.ndarray, y_test: np.ndarray, trial: int) -> dict[str, Any]:
    """Run trial ``trial`` of ``cfg``; its record: ``record_at``, ``update_seconds`` (each
    update of the shared model), per method the test accuracies (``total``, ``imbalanced``,
    ``balanced``, ``per_class``) and the selected ``lambda`` and ``alpha`` at each
    checkpoint, and ``method_seconds``: each method's own work at each checkpoint."""
    p = cfg.protocol
    seed = stream_seed(p, trial)
    rng = np.random.default_rng(seed)
    rows = draw_trial(y_train, y_test, p, rng)
    imb, classes = rows["imbalanced"], rows["classes"]
    balanced_rows = np.isin(y_test[rows["test"]], classes[classes != imb])  # of the test set

    def inputs(X: np.ndarray) -> np.ndarray:
        return X if fmap is None else fmap(X)

    fmap = None
    if cfg.model["features"]["kind"] != "linear":  # fixed before the stream, from balanced rows
        fmap = input_map(cfg.model["features"], X_train[rows["fit"]], int(rng.integers(2**32)))
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
    seconds: dict[str, list[float]] = {m: [] for m in cfg.methods}
    update_seconds = []
    seen_X, seen_y, val_X, val_y = [X_fit], [y_fit], [X_val], [y_val]
    n_imb = 0

    def scores(W: np.ndarray, X: np.ndarray) -> np.ndarray:
        return np.einsum("nd,ldt->lnt", X, W)

    task = get_task("multiclass")
    total, per_class = get_measure("accuracy"), get_measure("per_class_accuracy")

    def record(method: str, f: np.ndarray, lam: int, alpha: float) -> None:
        """Test accuracies of the scores ``f`` (n_test, T), columns in ``model.classes_``
        order, re-ordered to the task's (sorted labels)."""
        order = np.argsort(model.classes_, kind="stable")
        f, coding = f[:, order], model.classes_[order]
        entry = out[method]
        entry["total"].append(total.compute(task, y_te, f, coding))
        by_class = per_class.compute(task, y_te, f, coding)
        entry["imbalanced"].append(by_class[class_key(imb)])
        entry["balanced"].append(total.compute(task, y_te[balanced_rows], f[balanced_rows],
                                                coding))
        entry["per_class"].append([by_class[class_key(c)] for c in classes])
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
        point = Checkpoint(model, lambdas, alphas, scores(W0, Xv), scores(W0, X_te), y_col,
                           mask, Xv, X_te, np.concatenate(seen_X), np.concatenate(seen_y))
        for method in cfg.methods:
            decision = get_method(method).decide(point)
            record(method, decision.test_scores, decision.lam, decision.alpha)
            seconds[method].append(decision.seconds)
    result: dict[str, Any] = {
        "attrs": {"trial": trial, "config_hash": cfg.config_hash(), "seed": seed,
                  "kernel_path": active_path(), "imbalanced_class": imb,
                  "classes": classes.tolist(), "n_features": int(X_fit.shape[1]),
                  "n_validation_balanced": int(X_val.shape[0])},
        "record_at": np.asarray(record_at),
        "update_seconds": np.asarray(update_seconds),
        "method_seconds": {m: np.asarray(v) for m, v in seconds.items()},
    }
    for method, entry in out.items():
        result[method] = {k: np.asarray(v, dtype=np.float64) for k, v in entry.items()}
    return result


