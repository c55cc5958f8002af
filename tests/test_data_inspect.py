"""``kernreg data inspect FILE``: what kernreg reads from a file of one's own, or why it cannot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_friedman1


def test_a_regression_csv_is_described(tmp_path: Path, kernreg_cli) -> None:
    X, y = make_friedman1(n_samples=200, random_state=0)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])]).assign(price=y)
    path = tmp_path / "friedman.csv"
    frame.to_csv(path, index=False, float_format="%.17g")
    code, out, err = kernreg_cli(["data", "inspect", str(path), "--target", "price"])
    assert code == 0, err
    assert f"{path}: csv, 200 rows × 10 columns" in out
    assert "target: task regression (inferred)" in out
    assert f"mean {np.mean(y):.6g}, std {np.std(y):.6g}" in out
    assert "suggested σ: " in out


def test_text_labels_are_counted_with_their_coding(tmp_path: Path, kernreg_cli) -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.standard_normal(60), "b": rng.standard_normal(60),
                          "churn": ["yes"] * 20 + ["no"] * 40})
    path = tmp_path / "churn.csv"
    frame.to_csv(path, index=False)
    code, out, err = kernreg_cli(["data", "inspect", str(path)])
    assert code == 0, err
    assert "target: task binary (inferred)" in out
    assert "label 'no' (coded -1): 40 rows" in out and "label 'yes' (coded 1): 20 rows" in out


def test_a_file_kernreg_cannot_use_is_one_message(tmp_path: Path, kernreg_cli) -> None:
    path = tmp_path / "broken.csv"
    path.write_text("a,b,y\n1,2,3\n4,oops,6\n7,8,9\n")
    code, out, err = kernreg_cli(["data", "inspect", str(path)])
    assert code == 2 and out == "" and "Traceback" not in err
    assert str(path) in err and "'oops'" in err
    code, _, err = kernreg_cli(["data", "inspect", str(tmp_path / "missing.csv")])
    assert code == 2 and "missing.csv" in err and "does not exist" in err


def test_the_printed_block_pasted_into_a_config_reads_the_file_the_same(
        tmp_path: Path, kernreg_cli) -> None:
    """The `dataset:` block inspect prints is a config's, and the run's σ is the suggested one."""
    import yaml

    from kernreg.config import load_experiment

    X, y = make_friedman1(n_samples=150, random_state=1)
    path = tmp_path / "friedman.csv"
    pd.DataFrame(X).assign(price=y).to_csv(path, index=False)
    code, out, err = kernreg_cli(["data", "inspect", str(path), "--target", "price",
                                  "--preprocessing", "standardize"])
    assert code == 0, err
    block = yaml.safe_load(out[out.index("\ndataset:") + 1:])
    assert block["dataset"]["file"] == str(path) and block["dataset"]["task"] == "regression"
    suggested = float(out.split("suggested σ: ")[1].split()[0])
    config = tmp_path / "pasted.yaml"
    config.write_text(yaml.safe_dump({**block, "algorithms": [{"name": "nkrls", "m": 20}]}))
    exp = load_experiment(config)
    assert exp.dataset["preprocessing"] == ["standardize"]
    assert f"{exp.kernel['sigma']:.4g}" == f"{suggested:.4g}"
