"""Less is More (Rudi, Camoriano, Rosasco 2015): Table 1 (incremental Nyström, as the
authors' code ran it and as the paper reads), its full columns, Figure 1's heat maps and point
values, Figure 2 (time against m)."""

from __future__ import annotations

from reproduce.registry import Artifact, register

register(Artifact(
    name="lim_table1",
    source="lim",
    summary="LiM Table 1, the authors' code (incremental Nyström) and the paper's reading "
            "(selected (λ, m)).",
    steps=(("kernreg", "run", "configs/lim_table1.yaml", "--no-progress"),
           ("kernreg", "table", "configs/lim_table1.yaml", "-o", "results/lim_table1.md"),
           ("kernreg", "run", "configs/lim_table1_selected.yaml", "--no-progress"),
           ("kernreg", "table", "configs/lim_table1_selected.yaml", "-o",
            "results/lim_table1_selected.md")),
    outputs=("lim_table1.md", "lim_table1_selected.md"),
    inputs=("configs/lim_table1.yaml", "configs/lim_table1_selected.yaml"),
    doc_tables=("lim_table1", "lim_table1_selected"),
    duration="~40 min",
))

register(Artifact(
    name="lim_table1_full",
    source="lim",
    summary="Every column of LiM Table 1 / thesis Table 5.1 that runs here, and the thesis's σ "
            "against the σ a hold-out picks.",
    steps=(("kernreg", "run", "configs/lim_table1_full.yaml", "--no-progress"),
           ("kernreg", "table", "configs/lim_table1_full.yaml", "-o",
            "results/lim_table1_full.md"),
           ("kernreg", "run", "configs/lim_table1_full_insurance_sigma.yaml", "--resume",
            "--no-progress"),
           ("kernreg", "run", "configs/lim_table1_full_cpu_act_sigma.yaml", "--resume",
            "--no-progress"),
           ("kernreg", "table", "configs/lim_table1_sigma.yaml", "-o",
            "results/lim_table1_sigma.md")),
    outputs=("lim_table1_full.md", "lim_table1_sigma.md"),
    inputs=("configs/lim_table1_full.yaml", "configs/lim_table1_sigma.yaml"),
    doc_tables=("lim_table1_full", "lim_table1_sigma"),
    duration="hours",
))

register(Artifact(
    name="lim_fig1_points",
    source="lim",
    summary="The point values of LiM Figure 1's text, three readings each.",
    steps=(("kernreg", "run", "configs/lim_fig1_points.yaml", "--no-progress"),
           ("kernreg", "table", "configs/lim_fig1_points.yaml", "-o",
            "results/lim_fig1_points.md")),
    outputs=("lim_fig1_points.md",),
    inputs=("configs/lim_fig1_points.yaml",),
    doc_tables=("lim_fig1_points",),
    duration="~12 min",
))

register(Artifact(
    name="lim_fig1",
    source="lim",
    summary="LiM Figure 1: validation heat maps over (λ, m) on pumadyn32nh, breast cancer and "
            "cpuSmall.",
    steps=(("python", "-m", "reproduce.run_figures", "lim_fig1_pumadyn32nh",
            "lim_fig1_breast_cancer", "lim_fig1_cpusmall"),),
    outputs=("figures/lim_fig1_pumadyn32nh__heatmap_inkrls.png",
             "figures/lim_fig1_breast_cancer__heatmap_inkrls.png",
             "figures/lim_fig1_cpusmall__heatmap_inkrls.png"),
    inputs=("configs/lim_fig1_pumadyn32nh.yaml", "configs/lim_fig1_breast_cancer.yaml",
            "configs/lim_fig1_cpusmall.yaml"),
    duration="minutes",
))

register(Artifact(
    name="lim_fig2",
    source="lim",
    summary="LiM Figure 2: the heat map at m = 1000 and time against m on cpuSmall.",
    steps=(("python", "-m", "reproduce.run_figures", "lim_fig2_cpusmall"),),
    outputs=("figures/lim_fig2_cpusmall__heatmap_inkrls_m1000.png",
             "figures/lim_fig2_cpusmall__time_vs_m.png"),
    inputs=("configs/lim_fig2_cpusmall.yaml",),
    duration="minutes",
))
