"""The thesis, Chapter 5 (random features and Nyström): Figure 5.1, Figure 5.2 (Theorem 11's
rates, measured) with its sensitivity runs, and Figure 5.3 (test error against m)."""

from __future__ import annotations

from reproduce.registry import Artifact, register

#: This source's package: its scripts run as ``python -m reproduce.thesis_ch5.NAME`` from the
#: repository's root (they import the layer's own modules).
PKG = "reproduce.thesis_ch5"

register(Artifact(
    name="thesis_fig5_1",
    source="thesis_ch5",
    summary="Thesis Figure 5.1: the spline kernels and their random features.",
    steps=(("python", "-m", f"{PKG}.thesis_fig5_1"),),
    outputs=("figures/thesis_fig5_1.png",),
    duration="seconds",
))

register(Artifact(
    name="thesis_fig5_2",
    source="thesis_ch5",
    summary="Thesis Figure 5.2: excess risk, λ_n and m_n against n on the spline model, beside "
            "Theorem 11's rates.",
    steps=(("python", "-m", f"{PKG}.thesis_fig5_2"),),
    outputs=("figures/thesis_fig5_2.json", "figures/thesis_fig5_2.png"),
    doc_tables=("thesis_fig5_2",),
    duration="~15 min",
))

register(Artifact(
    name="thesis_fig5_2_draws4",
    source="thesis_ch5",
    summary="Thesis Figure 5.2 with the RF risk averaged over 4 feature draws (each row, seed "
            "10): how much m_n's slope hinges on the reading (docs/theory.md).",
    steps=(("python", "-m", f"{PKG}.thesis_fig5_2", "--rows", "0", "--feature-draws", "4",
            "--seed", "10", "-o", "results/figures/thesis_fig5_2_draws4.png"),
           ("python", "-m", f"{PKG}.thesis_fig5_2", "--rows", "1", "--reps", "30",
            "--feature-draws", "4", "--seed", "10", "-o",
            "results/figures/thesis_fig5_2_row1_draws4.png")),
    outputs=("figures/thesis_fig5_2_draws4.json", "figures/thesis_fig5_2_draws4.png",
             "figures/thesis_fig5_2_row1_draws4.json", "figures/thesis_fig5_2_row1_draws4.png"),
    duration="~30 min",
))

register(Artifact(
    name="thesis_fig5_3",
    source="thesis_ch5",
    summary="Thesis Figure 5.3: test error against m on pumadyn32nh and breast cancer.",
    steps=(("python", "-m", "reproduce.run_figures", "thesis_fig53_pumadyn32nh",
            "thesis_fig53_breast_cancer"),),
    outputs=("figures/thesis_fig53_pumadyn32nh__test_vs_m.png",
             "figures/thesis_fig53_breast_cancer__test_vs_m.png"),
    inputs=("configs/thesis_fig53_pumadyn32nh.yaml", "configs/thesis_fig53_breast_cancer.yaml"),
    duration="minutes",
))
