"""The thesis, Chapter 7 (incremental RLSC): Table 7.1 / Figure 7.3 on MNIST with its
selection-sensitivity and Nyström-feature readings, and Figure 7.1."""

from __future__ import annotations

from reproduce.registry import Artifact, register

#: This source's package: its scripts run as ``python -m reproduce.thesis_ch7.NAME`` from the
#: repository's root (they import the layer's own modules).
PKG = "reproduce.thesis_ch7"

register(Artifact(
    name="thesis_table7",
    source="thesis_ch7",
    summary="Thesis Table 7.1 and Figure 7.3 (MNIST, 10 trials of the streaming protocol; "
            "finished trials resume), trials 0-2 alone as the Nyström table's linear baseline, "
            "and Figure 7.1.",
    steps=(("kernreg", "stream", "configs/thesis_table7.yaml", "--resume", "--no-progress",
            "--table", "results/thesis_table7.md", "--figure",
            "results/figures/thesis_fig7_3_mnist.png"),
           ("kernreg", "stream", "configs/thesis_table7.yaml", "--trials", "3", "--resume",
            "--no-progress", "--table", "results/thesis_table7_trials3.md", "--figure",
            "results/thesis_table7/fig7_3_trials3.png"),
           ("python", "-m", f"{PKG}.thesis_fig7_1", "-o", "results/figures/thesis_fig7_1.png")),
    outputs=("thesis_table7.md", "thesis_table7_trials3.md", "figures/thesis_fig7_3_mnist.png",
             "figures/thesis_fig7_1.png"),
    inputs=("configs/thesis_table7.yaml",),
    doc_tables=("thesis_table7", "thesis_table7_nystrom"),
    duration="~15 min",
))

register(Artifact(
    name="thesis_table7_threshold10",
    source="thesis_ch7",
    summary="Table 7.1 with the other reading of the selection rule (a class counts once it has "
            "10 validation examples).",
    steps=(("kernreg", "stream", "configs/thesis_table7_threshold10.yaml", "--resume",
            "--no-progress", "--table", "results/thesis_table7_threshold10.md", "--figure",
            "results/figures/thesis_fig7_3_mnist_threshold10.png"),),
    outputs=("thesis_table7_threshold10.md", "figures/thesis_fig7_3_mnist_threshold10.png"),
    inputs=("configs/thesis_table7_threshold10.yaml",),
    doc_tables=("thesis_table7_threshold10",),
    duration="~15 min",
))

register(Artifact(
    name="thesis_table7_nystrom",
    source="thesis_ch7",
    summary="Table 7.1 on Nyström features (the kernel extension), 3 trials, beside the linear "
            "baseline of thesis_table7's trials 0-2.",
    steps=(("kernreg", "stream", "configs/thesis_table7_nystrom.yaml", "--resume",
            "--no-progress", "--table", "results/thesis_table7_nystrom.md", "--figure",
            "results/figures/thesis_fig7_3_mnist_nystrom.png"),),
    outputs=("thesis_table7_nystrom.md", "figures/thesis_fig7_3_mnist_nystrom.png"),
    inputs=("configs/thesis_table7_nystrom.yaml", "results/thesis_table7_trials3.md"),
    doc_tables=("thesis_table7_nystrom",),
    duration="~10 min",
))
