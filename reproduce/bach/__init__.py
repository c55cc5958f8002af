"""Bach 2013 (sharp analysis of low-rank kernel matrix approximations): Figures 1-3 and
Table 1."""

from __future__ import annotations

from reproduce.registry import Artifact, register

#: This source's package: its scripts run as ``python -m reproduce.bach.NAME`` from the
#: repository's root (they import the layer's own modules).
PKG = "reproduce.bach"

register(Artifact(
    name="bach_fig1",
    source="bach",
    summary="Bach 2013 Figure 1: column sampling on the fixed-design model.",
    steps=(("python", "-m", f"{PKG}.bach_fig1"),),
    outputs=("figures/bach_fig1.json", "figures/bach_fig1.png"),
    duration="minutes",
))

register(Artifact(
    name="bach_fig2",
    source="bach",
    summary="Bach 2013 Figure 2: the rank sufficient for the approximation against the degrees "
            "of freedom d and d_ave, without and with noise σ = 1.",
    steps=(("python", "-m", f"{PKG}.bach_fig2"),
           ("python", "-m", f"{PKG}.bach_fig2", "--noise", "1", "-o",
            "results/figures/bach_fig2_sigma1.png")),
    outputs=("figures/bach_fig2.json", "figures/bach_fig2.png", "figures/bach_fig2_sigma1.json",
             "figures/bach_fig2_sigma1.png"),
    doc_tables=("bach_fig2_ratios",),
    duration="minutes",
))

register(Artifact(
    name="bach_fig3",
    source="bach",
    summary="Bach 2013 Figure 3: pumadyn.",
    steps=(("python", "-m", f"{PKG}.bach_fig3"),),
    outputs=("figures/bach_fig3.json", "figures/bach_fig3.png"),
    doc_tables=("bach_fig3",),
    duration="minutes",
))

register(Artifact(
    name="bach_table1",
    source="bach",
    summary="Bach 2013 Table 1.",
    steps=(("python", "-m", f"{PKG}.bach_table1", "-o", "results/bach_table1.md"),),
    outputs=("bach_table1.md",),
    duration="minutes",
))
