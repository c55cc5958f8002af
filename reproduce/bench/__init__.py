"""This project's benchmarks: speed against the paper, the floor and itself. Each writes its
CSV rows (replacing the rows of the cells it measured) with the host's rates beside them."""

from __future__ import annotations

from reproduce.registry import Artifact, register

#: This source's scripts, as the steps name them (from the repository's root).
HERE = "reproduce/bench/"

register(Artifact(
    name="bench_table2",
    source="bench",
    summary="NKRLS and NYTRO at Table 2's settings against the paper, the host's floor and "
            "scikit-learn, float64 and float32.",
    steps=(("python", f"{HERE}bench_table2.py", "insurance", "adult", "ijcnn1", "--repeats",
            "5", "--baseline"),
           ("python", f"{HERE}bench_table2.py", "insurance", "adult", "ijcnn1", "--repeats",
            "5", "--dtype", "float32"),
           ("python", f"{HERE}bench_table2.py", "covtype_binary", "yearprediction",
            "--repeats", "1", "--dtype", "float32")),
    outputs=("bench_table2.csv",),
    doc_tables=("speed_summary", "speed_table2", "speed_targets"),
    duration="~2 h",
))

register(Artifact(
    name="bench_acceleration",
    source="bench",
    summary="NYTRO against the ν-method: iterations and time to the same error.",
    steps=(("python", f"{HERE}bench_acceleration.py", "cpusmall", "insurance", "adult",
            "ijcnn1", "--repeats", "3"),),
    outputs=("bench_acceleration.csv",),
    doc_tables=("bench_acceleration",),
    duration="~20 min",
))

register(Artifact(
    name="bench_load",
    source="bench",
    summary="A fit alone and beside competing processes, per BLAS thread setting.",
    steps=(("python", f"{HERE}bench_load.py", "--repeats", "5"),),
    outputs=("bench_load.csv",),
    doc_tables=("bench_load",),
    duration="~10 min",
))

register(Artifact(
    name="bench_dask",
    source="bench",
    summary="NKRLS and NYTRO on a 2-worker LocalCluster (backend: dask) against local.",
    steps=(("python", f"{HERE}bench_dask.py", "adult", "ijcnn1", "--workers", "2",
            "--repeats", "3"),
           ("python", f"{HERE}bench_dask.py", "covtype_binary", "--workers", "2",
            "--algorithms", "nytro")),
    outputs=("bench_dask.csv",),
    doc_tables=("bench_dask",),
    duration="~30 min",
))

register(Artifact(
    name="bench_rlsc",
    source="bench",
    summary="Incremental RLSC: update time per example against n, beside RB's batch refit.",
    steps=(("python", f"{HERE}bench_rlsc_update.py", "--n", "1000", "2000", "4000", "8000",
            "16000", "32000"),),
    outputs=("bench_rlsc_update.csv",),
    doc_tables=("bench_rlsc_update",),
    duration="~5 min",
))

register(Artifact(
    name="bench_nkrls_precision",
    source="bench",
    summary="NKRLS float64 against mixed precision at Table 2's settings (λ*, RMSE, CG steps, "
            "time ratio).",
    steps=(("python", f"{HERE}bench_nkrls_precision.py", "adult", "ijcnn1", "--trials", "0",
            "--repeats", "3"),),
    outputs=("bench_nkrls_precision.csv",),
    doc_tables=("nkrls_precision",),
    duration="~10 min",
))

register(Artifact(
    name="bench_sgm_pass",
    source="bench",
    summary="SGM/SIGM's pass in the dual: a product per step against a product per block.",
    steps=tuple(("python", f"{HERE}bench_sgm_pass.py", "--config",
                 f"configs/thesis_table6_{row}.yaml", "--repeats", "3")
                for row in ("adult", "ijcnn1")),
    outputs=("bench_sgm_pass.csv",),
    inputs=("configs/thesis_table6_adult.yaml", "configs/thesis_table6_ijcnn1.yaml"),
    doc_tables=("bench_sgm_pass",),
    duration="~5 min",
))

register(Artifact(
    name="bench_torch_cpu",
    source="bench",
    summary="PyTorch's CPU build against numpy and the compiled layer: a kernel block and "
            "NYTRO's pass.",
    steps=(("python", f"{HERE}bench_torch_cpu.py"),),
    outputs=("bench_torch_cpu.csv",),
    duration="~2 min",
))
