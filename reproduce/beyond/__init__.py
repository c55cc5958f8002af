"""Beyond the papers: center samplers, the ν-method, random features and PCG side by side, and
the regime advisor against the measured winners."""

from __future__ import annotations

from reproduce.registry import Artifact, register

#: This source's package: its scripts run as ``python -m reproduce.beyond.NAME`` from the
#: repository's root (they import the layer's own modules).
PKG = "reproduce.beyond"

register(Artifact(
    name="beyond",
    source="beyond",
    summary="Samplers, ν-method NYTRO, random features at equal memory and PCG on adult, "
            "ijcnn1, covtype and cpuSmall.",
    steps=(("kernreg", "run", "configs/beyond.yaml", "--no-progress"),
           ("kernreg", "table", "configs/beyond.yaml", "-o", "results/beyond.md")),
    outputs=("beyond.md",),
    inputs=("configs/beyond.yaml",),
    doc_tables=("beyond",),
    duration="~1 h",
))

register(Artifact(
    name="samplers",
    source="beyond",
    summary="NKRLS with uniform against leverage-score centers on cpuSmall, per m.",
    steps=(("kernreg", "run", "configs/samplers_cpusmall.yaml", "--no-progress"),
           ("python", "-m", f"{PKG}.run_summary", "results/samplers_cpusmall", "-o",
            "results/samplers_cpusmall.csv")),
    outputs=("samplers_cpusmall.csv",),
    inputs=("configs/samplers_cpusmall.yaml",),
    doc_tables=("samplers",),
    duration="~1 min",
))

register(Artifact(
    name="sampler_ranks",
    source="beyond",
    summary="The rank each center sampler needs to reach KRLS within 1%.",
    steps=(("python", "-m", f"{PKG}.sampler_ranks", "-o", "results/sampler_ranks.md"),),
    outputs=("sampler_ranks.md",),
    doc_tables=("sampler_ranks",),
    duration="~15 min",
))

register(Artifact(
    name="advise",
    source="beyond",
    summary="`kernreg advise` on the Table 2 datasets against the measured and the paper's "
            "winners, with hit rates, and the advisor's maps.",
    steps=(("python", "-m", "reproduce.advise_all"),
           ("python", "-m", f"{PKG}.advise_table2", "--advice-dir", "results/advise", "-o",
            "results/advise_table2.md")),
    outputs=("advise_table2.md", "figures/advise_adult.png", "figures/advise_covtype_binary.png",
             "figures/advise_ijcnn1.png", "figures/advise_insurance.png"),
    inputs=("results/table2_trials.csv",),
    doc_tables=("advise", "nytro_fig1_datasets"),
    duration="~2 min",
))
