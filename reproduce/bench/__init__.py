"""This project's benchmarks: speed against the paper, the floor and itself. Each writes its
CSV rows (replacing the rows of the cells it measured) with the host's rates beside them."""

from __future__ import annotations

from reproduce.registry import Artifact, register

#: This source's package: its scripts run as ``python -m reproduce.bench.NAME`` from the
#: repository's root (they import the layer's own modules).
PKG = "reproduce.bench"

register(Artifact(
    name="bench_table2",
    source="bench",
    summary="NKRLS and NYTRO at Table 2's settings against the paper, the host's floor and "
            "scikit-learn, float64 and float32.",
    steps=(("python", "-m", f"{PKG}.bench_table2", "insurance", "adult", "ijcnn1", "--repeats",
            "5", "--baseline"),
           ("python", "-m", f"{PKG}.bench_table2", "insurance", "adult", "ijcnn1", "--repeats",
            "5", "--dtype", "float32"),
           ("python", "-m", f"{PKG}.bench_table2", "covtype_binary", "yearprediction",
            "--repeats", "1", "--dtype", "float32")),
    outputs=("bench_table2.csv",),
    doc_tables=("speed_summary", "speed_table2", "speed_targets"),
    duration="~2 h",
))

register(Artifact(
    name="bench_acceleration",
    source="bench",
    summary="NYTRO against the ν-method: iterations and time to the same error.",
    steps=(("python", "-m", f"{PKG}.bench_acceleration", "cpusmall", "insurance", "adult",
            "ijcnn1", "--repeats", "3"),),
    outputs=("bench_acceleration.csv",),
    doc_tables=("bench_acceleration",),
    duration="~20 min",
))

register(Artifact(
    name="bench_load",
    source="bench",
    summary="A fit alone and beside competing processes, per BLAS thread setting.",
    steps=(("python", "-m", f"{PKG}.bench_load", "--repeats", "5"),),
    outputs=("bench_load.csv",),
    doc_tables=("bench_load",),
    duration="~10 min",
))

register(Artifact(
    name="bench_dask",
    source="bench",
    summary="NKRLS and NYTRO on a 2-worker LocalCluster (backend: dask) against local.",
    steps=(("python", "-m", f"{PKG}.bench_dask", "adult", "ijcnn1", "--workers", "2",
            "--repeats", "3"),
           ("python", "-m", f"{PKG}.bench_dask", "covtype_binary", "--workers", "2",
            "--algorithms", "nytro")),
    outputs=("bench_dask.csv",),
    doc_tables=("bench_dask",),
    duration="~30 min",
))

register(Artifact(
    name="bench_rlsc",
    source="bench",
    summary="Incremental RLSC: update time per example against n, beside RB's batch refit.",
    steps=(("python", "-m", f"{PKG}.bench_rlsc_update", "--n", "1000", "2000", "4000", "8000",
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
    steps=(("python", "-m", f"{PKG}.bench_nkrls_precision", "adult", "ijcnn1", "--trials", "0",
            "--repeats", "3"),),
    outputs=("bench_nkrls_precision.csv",),
    doc_tables=("nkrls_precision",),
    duration="~10 min",
))

register(Artifact(
    name="bench_sgm_pass",
    source="bench",
    summary="SGM/SIGM's pass in the dual: a product per step against a product per block.",
    steps=tuple(("python", "-m", f"{PKG}.bench_sgm_pass", "--config",
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
    steps=(("python", "-m", f"{PKG}.bench_torch_cpu"),),
    outputs=("bench_torch_cpu.csv",),
    duration="~2 min",
))
