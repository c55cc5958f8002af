"""The thesis, Chapter 6 (stochastic gradient methods, hinge loss): Table 6.2 (SGM / SIGM /
LIBSVM), its full rows and their costs, Figures 6.1 and 6.2, and the checks behind the
docs' reasons."""

from __future__ import annotations

from reproduce.registry import Artifact, register

#: This source's package: its scripts run as ``python -m reproduce.thesis_ch6.NAME`` from the
#: repository's root (they import the layer's own modules).
PKG = "reproduce.thesis_ch6"

SMALL_ROWS = ("breast_cancer", "adult_1000", "ijcnn1_1000")

register(Artifact(
    name="thesis_table6",
    source="thesis_ch6",
    summary="Thesis Table 6.2, the small rows (breast cancer, adult and ijcnn1 at n = 1000).",
    steps=(*(("kernreg", "run", f"configs/thesis_table6_{row}.yaml", "--no-progress",
              "--resume") for row in SMALL_ROWS),
           ("kernreg", "table", "configs/thesis_table6.table.yaml", "-o",
            "results/thesis_table6.md")),
    outputs=("thesis_table6.md",),
    inputs=("configs/thesis_table6.table.yaml",
            *(f"configs/thesis_table6_{row}.yaml" for row in SMALL_ROWS)),
    doc_tables=("thesis_table6",),
    duration="~10 min",
))

register(Artifact(
    name="thesis_fig6",
    source="thesis_ch6",
    summary="Thesis Figures 6.1 and 6.2 (adult, n = 1000): SIGM's and one-pass SGM's "
            "regularization paths, from one run's recorded test paths.",
    steps=(("kernreg", "run", "configs/thesis_fig6_adult_1000.yaml", "--no-progress",
            "--resume"),
           ("python", "-m", f"{PKG}.thesis_ch6_figures", "--run", "results/thesis_fig6_adult_1000",
            "--out", "results/figures")),
    outputs=("figures/thesis_fig6_1.png", "figures/thesis_fig6_2.png",
             "figures/thesis_fig6_curves.csv"),
    inputs=("configs/thesis_fig6_adult_1000.yaml",),
    duration="~1 min",
))

register(Artifact(
    name="thesis_table6_full",
    source="thesis_ch6",
    summary="Thesis Table 6.2's full adult and ijcnn1 rows, 10 trials a cell.",
    steps=(("kernreg", "run", "configs/thesis_table6_adult.yaml", "--no-progress", "--resume"),
           ("kernreg", "run", "configs/thesis_table6_ijcnn1.yaml", "--no-progress", "--resume"),
           ("kernreg", "table", "configs/thesis_table6_full.table.yaml", "-o",
            "results/thesis_table6_full.md")),
    outputs=("thesis_table6_full.md",),
    inputs=("configs/thesis_table6_full.table.yaml", "configs/thesis_table6_adult.yaml",
            "configs/thesis_table6_ijcnn1.yaml"),
    doc_tables=("thesis_table6_full",),
    duration="~3.5 h",
))

register(Artifact(
    name="thesis_table6_full_costs",
    source="thesis_ch6",
    summary="The parts of a full-row trial: LIBSVM per C (20 min budget each, with each C's "
            "test error), SIGM's set-up and 2 epochs.",
    # the rows are appended: the file starts afresh
    steps=(("python", "-c", "import pathlib; pathlib.Path("
            "'results/thesis_table6_full_costs.csv').unlink(missing_ok=True)"),
           *(step for row in ("adult", "ijcnn1") for step in (
               ("python", "-m", f"{PKG}.thesis_ch6_full_costs", row, "sigm", "--label", "SIGM_C",
                "--epochs", "2", "--csv", "results/thesis_table6_full_costs.csv"),
               ("python", "-m", f"{PKG}.thesis_ch6_full_costs", row, "libsvm", "--budget-s",
                "1200", "--test", "--csv", "results/thesis_table6_full_costs.csv")))),
    outputs=("thesis_table6_full_costs.csv",),
    inputs=("configs/thesis_table6_adult.yaml", "configs/thesis_table6_ijcnn1.yaml"),
    doc_tables=("thesis_table6_full_costs",),
    duration="~25 min",
))

register(Artifact(
    name="thesis_ch6_checks",
    source="thesis_ch6",
    summary="The re-fits behind docs/thesis_chapter6.md's reasons for Table 6.2 cells more than "
            "10% from the paper (each with one parameter changed).",
    steps=(("python", "-m", f"{PKG}.thesis_ch6_checks", ">", "results/thesis_ch6_checks.txt"),),
    outputs=("thesis_ch6_checks.txt",),
    duration="~10 min",
))

register(Artifact(
    name="thesis_ch6_ijcnn1_subset",
    source="thesis_ch6",
    summary="ijcnn1 n = 1000, SIGM C: the authors' first rows against kernreg's uniform subset, "
            "wider kernels and the constant classifier.",
    steps=(("python", "-m", f"{PKG}.thesis_ch6_ijcnn1_subset", ">",
            "results/thesis_ch6_ijcnn1_subset.txt"),),
    outputs=("thesis_ch6_ijcnn1_subset.txt",),
    duration="minutes",
))
