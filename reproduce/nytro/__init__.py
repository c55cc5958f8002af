"""NYTRO (Camoriano et al. 2016): Table 1 (datasets), Table 2 (NKRLS, NYTRO, KOLS, KRLS, ES),
Figure 1 (the regime map, placed by ``kernreg advise``) and Figure 2 (time against m)."""

from __future__ import annotations

from reproduce.registry import Artifact, register

#: This source's package: its scripts run as ``python -m reproduce.nytro.NAME`` from the
#: repository's root (they import the layer's own modules).
PKG = "reproduce.nytro"

TABLE2_RENDER = ("kernreg", "table", "configs/table2.yaml", "--compare-paper", "--fallback",
                 "results/table2_trials.csv", "--trials-out", "results/table2_trials.csv",
                 "-o", "results/table2.md")

register(Artifact(
    name="table1",
    source="nytro",
    summary="NYTRO Table 1: the datasets of Table 2 (n, d, σ, the paper's m) as loaded here.",
    steps=(("kernreg", "table", "configs/table2.yaml", "--table", "table1", "-o",
            "results/table1.md"),),
    outputs=("table1.md",),
    inputs=("configs/table2.yaml",),
    duration="seconds",
))

register(Artifact(
    name="table2",
    source="nytro",
    summary="NYTRO Table 2: every run of configs/table2.yaml (resuming finished trials; a run "
            "that cannot start here says why), then the table.",
    steps=(("kernreg", "run", "configs/table2.yaml", "--no-progress"), TABLE2_RENDER),
    outputs=("table2.md", "table2_trials.csv"),
    inputs=("configs/table2.yaml",),
    doc_tables=("table2_summary", "table2_cells"),
    duration="hours (the table alone, from the runs present: seconds)",
    # --render-only: each cell without a run folder taken from the committed trials (after
    # e.g. `kernreg run configs/adult_all.yaml --only kols` only those cells change)
    render_from=1,
))

register(Artifact(
    name="nytro_fig2",
    source="nytro",
    summary="NYTRO Figure 2: NKRLS and NYTRO time against m on cpuSmall.",
    steps=(("python", "-m", "reproduce.run_figures", "nytro_fig2_cpusmall"),),
    outputs=("figures/nytro_fig2_cpusmall__time_vs_m.png",),
    inputs=("configs/nytro_fig2_cpusmall.yaml",),
    duration="minutes",
))

register(Artifact(
    name="ijcnn1_nkrls_lambda_curve",
    source="nytro",
    summary="Ijcnn1 NKRLS: validation and test RMSE along the whole λ path of Table 2's "
            "trials (why the test RMSE is far from the paper's: docs/reproduction.md).",
    steps=(("python", "-m", f"{PKG}.nkrls_lambda_curve", "configs/ijcnn1_nkrls.yaml", "--out",
            "results/figures", "--name", "ijcnn1_nkrls_lambda_curve"),),
    outputs=("figures/ijcnn1_nkrls_lambda_curve.csv", "figures/ijcnn1_nkrls_lambda_curve.png"),
    inputs=("configs/ijcnn1_nkrls.yaml",),
    duration="~10 min",
))

register(Artifact(
    name="nytro_fig1",
    source="nytro",
    summary="NYTRO Figure 1: the regime map of early stopping against Tikhonov, with the "
            "Table 2 datasets placed by `kernreg advise` (run first where missing).",
    steps=(("python", "-m", "reproduce.advise_all", "--missing-only"),
           ("python", "-m", f"{PKG}.nytro_fig1", "--advice-dir", "results/advise", "-o",
            "results/figures/nytro_fig1.png")),
    outputs=("figures/nytro_fig1.png",),
    duration="~5 min",
))
