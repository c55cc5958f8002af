"""The registered datasets: sources, checksums, splits and preprocessing of the papers.

Shapes, σ and m are those of ``../shared/REFERENCE.md`` (NYTRO Table 1/2, LiM Table 1 and
Figures 1–2). Checksums are of the bytes as published; where a second, independently made copy
is accepted (a derived file, or a copy with other bytes), it is a separate :class:`Source` with
its own checksum and its provenance in ``description``. Files whose original checksum is not
known have ``known_hash=None`` and are pinned on first use (see :mod:`kernreg.datasets.fetch`).
"""

from __future__ import annotations

from kernreg.datasets import readers
from kernreg.datasets.preprocess import (
    affine_features,
    authors_signed_scale,
    labels_to_pm1,
    minmax_features,
    minmax_target,
)
from kernreg.datasets.spec import DatasetSpec, FileSplit, RemoteFile, RowSplit, Source, register

LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets"
UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
GITHUB = "https://raw.githubusercontent.com"

NYTRO = "NYTRO (Camoriano et al., AISTATS 2016), Table 1/2"
LIM = "Less is More (Rudi et al., NeurIPS 2015)"

# ----------------------------------------------------------------------------------- insurance
_COIL = f"{GITHUB}/saisahiti/data-mining/51b84a08449a625a1e833a50490996a22bbf5d78"


def _coil_file(name: str, sha256: str) -> RemoteFile:
    return RemoteFile(
        name,
        urls=(f"{UCI}/tic-mld/{name}", f"{_COIL}/{name}"),
        known_hash=f"sha256:{sha256}",
        mirror_paths=(f"coil2000/{name}",),
    )


register(DatasetSpec(
    name="insurance",
    title="Insurance Company Benchmark (COIL 2000)",
    aliases=("coil2000", "insurancecompany"),
    task="classification",
    n_train=5822, n_test=4000, d=85,
    sigma=3.0, m=2000,
    sources=(Source(
        "uci",
        files=(
            _coil_file("ticdata2000.txt",
                       "f6a7fe083ccedb3776bc30f5e000bdd34bfd25f625d2b4672f84afa6b70cb178"),
            _coil_file("ticeval2000.txt",
                       "880f3b7dbc1174ddd10e7a20ef1e4bc3a8e345400d4b553744c5ef0c71493837"),
            _coil_file("tictgts2000.txt",
                       "42274a9b6d1ced5fcb35e2c103869060118ceaa7e5c5fac1a652e1f1a5806da8"),
        ),
        reader=readers.coil2000(),
        description="UCI COIL 2000 train, evaluation inputs and evaluation targets "
                    "(tab separated, CRLF)",
    ),),
    split=FileSplit(),
    raw_labels=(0.0, 1.0),
    # the authors' InsuranceCompanyBenchmark class: min-max to [0, 1] over all rows, then 2x − 1
    preprocessing=(minmax_features(), affine_features(2.0, -1.0), labels_to_pm1(1.0)),
    stopping_threshold=0.000051,
    reference=NYTRO,
    notes="Target CARAVAN (column 86 of ticdata2000.txt, tictgts2000.txt for the test rows). "
          "Features scaled to [−1, 1] as the authors' dataset class does. LiM Table 1 codes "
          "the target {0, 1} (`dataset: {target_coding: zero_one}`).",
))

# --------------------------------------------------------------------------------------- adult
register(DatasetSpec(
    name="adult",
    title="Adult (LIBSVM a9a)",
    aliases=("a9a",),
    task="classification",
    n_train=32561, n_test=16281, d=123,
    sigma=6.6, m=1000,
    sources=(Source(
        "libsvm",
        files=(
            RemoteFile("a9a", urls=(f"{LIBSVM}/binary/a9a",),
                       known_hash="sha256:f5d5ffd8d865ff41328e7ee043e4b020816914ff6843ff15b98905ddbedce906",
                       mirror_paths=("libsvm/a9a",)),
            RemoteFile("a9a.t", urls=(f"{LIBSVM}/binary/a9a.t",),
                       known_hash="sha256:1f448a153f0320399a7e40836eb207655b0bde0f21fc941cc472193daa9f5de9",
                       mirror_paths=("libsvm/a9a.t",)),
        ),
        reader=readers.svmlight(n_features=123),
        description="LIBSVM a9a / a9a.t (md5 fb3596…/f0bb16…, as published by LIBSVM)",
    ),),
    split=FileSplit(),
    raw_labels=(-1.0, 1.0),
    # the authors' Adult class scales the whole {0, 1} matrix to [−1, 1]: σ = 6.6 acts on ±1
    preprocessing=(affine_features(2.0, -1.0),),
    stopping_threshold=0.0069,
    reference=NYTRO,
    notes="Binary features mapped to ±1 (x → 2x − 1) as the authors' dataset class does; a9a.t "
          "has no feature 123 and is padded to d = 123. The paper prints 32562 / 16282 rows: "
          "the authors' adult.mat adds one all-zero row with label 0 to each part; the LIBSVM "
          "files hold 32561 / 16281 and are used as they are.",
))

# -------------------------------------------------------------------------------------- ijcnn1
_IJCNN1_TEST = RemoteFile(
    "ijcnn1.t.bz2", urls=(f"{LIBSVM}/binary/ijcnn1.t.bz2",),
    # md5 66433ab8089acee9e56dc61ac89a2fe2, the md5 LIBSVM users record for ijcnn1.t.bz2.
    known_hash="sha256:acd1db430684fdd3f0c768ecc49aa8e749d0004fc117611220c2aa576a7b6a24",
    mirror_paths=("ijcnn1/ijcnn1.tst.bz2",),
)
_TICK = f"{GITHUB}/X-DataInitiative/tick-datasets/9d959b6e53e17145e93e9849ff1f9f6d2de8ae51"

register(DatasetSpec(
    name="ijcnn1",
    title="IJCNN 2001 challenge (LIBSVM ijcnn1)",
    task="classification",
    n_train=49990, n_test=91701, d=22,
    sigma=1.0, m=5000,
    sources=(
        Source(
            "libsvm",
            files=(
                RemoteFile("ijcnn1.bz2", urls=(f"{LIBSVM}/binary/ijcnn1.bz2",),
                           known_hash="md5:c3e9162f8e38e0b6c0e02d313a59de2b"),
                _IJCNN1_TEST,
            ),
            reader=readers.svmlight(n_features=22),
            description="LIBSVM ijcnn1.bz2 (= ijcnn1.tr + ijcnn1.val) and ijcnn1.t.bz2",
        ),
        Source(
            "tick-datasets",
            files=(
                RemoteFile("ijcnn1.trn.bz2",
                           urls=(f"{_TICK}/binary/ijcnn1/ijcnn1.trn.bz2",),
                           known_hash="sha256:b38a4198ce142d43e96fb86d17b87211feec1f909ac344fa057455c69de29de3",
                           mirror_paths=("ijcnn1/ijcnn1.trn.bz2",)),
                _IJCNN1_TEST,
            ),
            reader=readers.svmlight(n_features=22),
            description="tick-datasets copy of the training file (ijcnn1.tr + ijcnn1.val, "
                        "49990 rows; other bytes than LIBSVM's .bz2) and LIBSVM's test file",
        ),
    ),
    split=FileSplit(),
    raw_labels=(-1.0, 1.0),
    preprocessing=(),
    stopping_threshold=0.000835,
    reference=NYTRO,
    notes="Already scaled by LIBSVM; labels ±1. Row order of the training file may differ "
          "between the two sources; experiments shuffle the training set.",
))

# -------------------------------------------------------------------------------- yearprediction
register(DatasetSpec(
    name="yearprediction",
    title="YearPredictionMSD (UCI)",
    aliases=("yearpredictionmsd", "year", "msd"),
    task="regression",
    n_train=463715, n_test=51630, d=90,
    sigma=1.0, m=10000,
    sources=(
        Source(
            "uci",
            files=(RemoteFile("YearPredictionMSD.txt.zip",
                              urls=(f"{UCI}/00203/YearPredictionMSD.txt.zip",),
                              known_hash=None,
                              mirror_paths=("yearprediction/YearPredictionMSD.txt.zip",)),),
            reader=readers.zipped_csv(target_column=0, n_columns=91),
            description="UCI YearPredictionMSD.txt.zip: 515345 rows, year first, 90 features",
        ),
        Source(
            "libsvm",
            files=(
                RemoteFile("YearPredictionMSD.bz2",
                           urls=(f"{LIBSVM}/regression/YearPredictionMSD.bz2",),
                           known_hash=None,
                           mirror_paths=("yearprediction/YearPredictionMSD.bz2",)),
                RemoteFile("YearPredictionMSD.t.bz2",
                           urls=(f"{LIBSVM}/regression/YearPredictionMSD.t.bz2",),
                           known_hash=None,
                           mirror_paths=("yearprediction/YearPredictionMSD.t.bz2",)),
            ),
            reader=readers.svmlight(n_features=90),
            description="LIBSVM YearPredictionMSD(.t).bz2: the same rows in the same order",
        ),
    ),
    split=RowSplit(463715, 51630),
    preprocessing=(minmax_features(), minmax_target()),
    stopping_threshold=0.000113,
    reference=NYTRO,
    notes="No published checksum is known for either source: the first copy is pinned.",
))

# ------------------------------------------------------------------------------------ ct_slices
#: UCI "Relative location of CT slices on axial axis": patientId, value0..value383, reference.
CT_SLICES_FEATURES = tuple(f"value{i}" for i in range(384))

register(DatasetSpec(
    name="ct_slices",
    title="CT slices (UCI relative location of CT slices on axial axis)",
    aliases=("ctslices", "slice", "slice_localization"),
    task="regression",
    n_train=42800, n_test=10700, d=384,
    sigma=5.2613, m=2048,
    sources=(Source(
        "uci",
        files=(RemoteFile("slice_localization_data.zip",
                          urls=(f"{UCI}/00206/slice_localization_data.zip",),
                          known_hash=None,
                          mirror_paths=("ct_slices/slice_localization_data.zip",)),),
        reader=readers.csv_with_header("reference", CT_SLICES_FEATURES),
        description="UCI slice_localization_data.zip: one CSV, 53500 rows of 97 patients in "
                    "patient order, header patientId, value0..value383, reference (target, "
                    "0–100)",
    ),),
    split=RowSplit(42800, 10700),
    preprocessing=(),
    reference=f"{LIM}, Table 1 (CT slices); thesis Table 5.1",
    notes="Split and scaling as the authors' code (Enitor dataset/CTslices.m): the first 42800 "
          "rows in file order train, the last 10700 test (so test patients are unseen), "
          "features and target unscaled. σ = 5.2613 (thesis Table 5.1: 5.261). No published "
          "checksum is known: the first copy is pinned.",
))

# ------------------------------------------------------------------------------- covtype_binary
_SGMCMC = f"{GITHUB}/STOR-i/sgmcmc/9e9120b275af4eb8bf98f6491f9949518a89d080"

register(DatasetSpec(
    name="covtype_binary",
    title="Covertype binary (LIBSVM covtype.binary, scaled)",
    aliases=("covtype", "covertype", "covertypebinary", "forest"),
    task="classification",
    n_train=522910, n_test=58102, d=54,
    sigma=1.0, m=10000,
    sources=(
        Source(
            "libsvm",
            files=(RemoteFile("covtype.libsvm.binary.scale.bz2",
                              urls=(f"{LIBSVM}/binary/covtype.libsvm.binary.scale.bz2",),
                              known_hash="md5:d95f45e15c284005c2c7a4c82e4be102",
                              mirror_paths=("libsvm/covtype.libsvm.binary.scale.bz2",)),),
            reader=readers.svmlight(n_features=54),
            description="LIBSVM covtype.libsvm.binary.scale.bz2 (features in [0, 1])",
        ),
        Source(
            "sgmcmc-rda",
            files=(RemoteFile("covertype.rda", urls=(f"{_SGMCMC}/data/covertype.rda",),
                              known_hash="sha256:4e01b0b07191cc300584ed7f662caa1b28e0c6ac96ee95b6fa93b503c00bd5d9",
                              mirror_paths=("covtype-derived/covertype.rda",)),),
            reader=readers.covertype_rda(),
            description="R data file of the sgmcmc package, made from LIBSVM's unscaled "
                        "covtype.libsvm.binary; min-max scaled to [0, 1] over all rows here",
        ),
    ),
    split=RowSplit(522910, 58102),
    raw_labels=(1.0, 2.0),
    preprocessing=(affine_features(2.0, -1.0), labels_to_pm1(2.0)),
    stopping_threshold=0.013,
    reference=NYTRO,
    notes="x → 2x − 1 maps the [0, 1] features to [−1, 1]. From the .rda copy the features "
          "match LIBSVM's .scale file up to its ~6 printed digits. Which class is +1 does not "
          "change RMSE or error rate of the (linear-in-y) least-squares estimators.",
))

# ------------------------------------------------------------------------------ cpusmall/cpu_act
_META_IR = f"{GITHUB}/JusciAvelino/Meta-IR/6815e5dfc7dd5819a7c16cf62f5447ea777c73f2"
_CPU_ACT = RemoteFile(
    "cpu_act.csv", urls=(f"{_META_IR}/data/cpu_act.csv",),
    known_hash="sha256:916dabb18c1ac53fdefca610162a41ba09d544ad93005b17b931489943963891",
    mirror_paths=("comp-activ/cpu_act.csv",),
)
_CPU_SOURCE_NOTE = ("Delve comp-activ as a CSV with a header row, target `usr` first "
                    "(column `target`); same row order as LIBSVM cpusmall")
CPUSMALL_COLUMNS = ("lread", "lwrite", "scall", "sread", "swrite", "fork", "exec", "rchar",
                    "wchar", "runqsz", "freemem", "freeswap")

register(DatasetSpec(
    name="cpusmall",
    title="cpuSmall (Delve comp-activ, 12 attributes)",
    aliases=("cpu_small",),
    task="regression",
    n_train=6554, n_test=1638, d=12,
    sigma=0.1, m=1000,
    sources=(Source("comp-activ", files=(_CPU_ACT,),
                    reader=readers.csv_with_header("target", CPUSMALL_COLUMNS),
                    description=_CPU_SOURCE_NOTE),),
    split=RowSplit(6554, 1638),
    preprocessing=(minmax_features(),),
    reference=f"{NYTRO}, Figure 2; {LIM}, Figures 1–2",
    notes="cpuSmall is the 12-attribute subset of cpu_act (LIBSVM cpusmall). σ = 0.1 (LiM); "
          "m = 1000 is the largest m of LiM Figure 2 (NYTRO Figure 2 sweeps 100..4000).",
))

register(DatasetSpec(
    name="cpu_act",
    title="cpuAct (Delve comp-activ, 21 attributes)",
    aliases=("cpu", "cpuact"),
    task="regression",
    n_train=6554, n_test=1638, d=21,
    sigma=None, m=None,
    sources=(Source("comp-activ", files=(_CPU_ACT,),
                    reader=readers.csv_with_header("target"),
                    description=_CPU_SOURCE_NOTE),),
    split=RowSplit(6554, 1638),
    preprocessing=(minmax_features(),),
    reference=f"{LIM}, Table 1 (CPU)",
    notes="LiM Table 1 gives no σ; m ≤ 2048 there.",
))

# ---------------------------------------------------------------------------------- pumadyn32nh
_ENITOR = f"{GITHUB}/raffaello-camoriano/Enitor/64aa9bb4cf622b418b38387792c81460a2266d5b"

register(DatasetSpec(
    name="pumadyn32nh",
    title="pumadyn-32nh (Delve)",
    aliases=("pumadyn-32nh", "pumadyn"),
    task="regression",
    n_train=4096, n_test=4096, d=32,
    sigma=2.66, m=None,
    sources=(Source(
        "delve",
        files=(RemoteFile("Dataset.data.gz",
                          urls=(f"{_ENITOR}/dataset/pumadyn/pumadyn-32nh/Dataset.data.gz",),
                          known_hash="sha256:6017bed6db7b506019a53c3fc509796c4c10807eafb1d61b268550805e96eaee",
                          mirror_paths=("pumadyn-32nh/Dataset.data.gz",)),),
        reader=readers.delimited(r"\s+", target_column=-1, n_columns=33),
        description="Delve pumadyn-32nh Dataset.data.gz (32 inputs, target last), as kept in "
                    "the first author's Enitor repository",
    ),),
    split=RowSplit(4096, 4096),
    preprocessing=(authors_signed_scale(),),
    stopping_threshold=0.001,
    reference=f"{LIM}, Figure 1",
    notes="LiM Figure 1 sweeps m over 10..1000; no single default m. Features scaled by the "
          "formula of the authors' pumadyn class (see `kernreg data info pumadyn32nh`).",
))

# ------------------------------------------------------------------ pumadyn32fh, pumadyn32nm
# The two other Delve variants of Bach 2013's Figure 3 (f: fairly linear, n: non-linear; h: high,
# m: moderate noise), from the same Enitor commit and read and scaled like pumadyn32nh.
for _variant, _sha, _what in (
        ("fh", "947053cb3d4ee42a6eef12bd0ac7755c5082897ddb2d606d081caf54390daac0",
         "fairly linear, high noise"),
        ("nm", "67b8d22c0e503f511d7abd679795cf93c0df1948ab6823c399e814d4164a59d5",
         "non-linear, moderate noise")):
    register(DatasetSpec(
        name=f"pumadyn32{_variant}",
        title=f"pumadyn-32{_variant} (Delve; {_what})",
        aliases=(f"pumadyn-32{_variant}",),
        task="regression",
        n_train=4096, n_test=4096, d=32,
        sigma=None, m=None,
        sources=(Source(
            "delve",
            files=(RemoteFile("Dataset.data.gz",
                              urls=(f"{_ENITOR}/dataset/pumadyn/pumadyn-32{_variant}/"
                                    "Dataset.data.gz",),
                              known_hash=f"sha256:{_sha}",
                              mirror_paths=(f"pumadyn-32{_variant}/Dataset.data.gz",)),),
            reader=readers.delimited(r"\s+", target_column=-1, n_columns=33),
            description=f"Delve pumadyn-32{_variant} Dataset.data.gz (32 inputs, target last), "
                        "as kept in the first author's Enitor repository",
        ),),
        split=RowSplit(4096, 4096),
        preprocessing=(authors_signed_scale(),),
        reference="Bach 2013, Figure 3",
        notes="Bach gives no split, kernel or σ; kernreg uses pumadyn32nh's split and scaling "
              "(reproduce/bach/bach_fig3.py chooses σ by validation).",
    ))

# -------------------------------------------------------------------------------- breast_cancer
register(DatasetSpec(
    name="breast_cancer",
    title="Breast Cancer Wisconsin (Diagnostic), UCI WDBC",
    aliases=("wdbc", "breastcancer"),
    task="classification",
    n_train=400, n_test=169, d=30,
    sigma=0.9, m=None,
    sources=(
        Source(
            "scikit-learn",
            files=(RemoteFile(
                "breast_cancer.csv",
                urls=(f"{GITHUB}/scikit-learn/scikit-learn/1.5.0/sklearn/datasets/data/"
                      "breast_cancer.csv",),
                known_hash="sha256:fed3eb72d0575ef6192293f5093c6e801b1476b577d0386bf4455504522172ed",
                package_file=("sklearn.datasets.data", "breast_cancer.csv"),
            ),),
            reader=readers.wdbc_sklearn(),
            description="the WDBC table bundled with scikit-learn (569 rows, same order as "
                        "wdbc.data)",
        ),
        Source(
            "uci",
            files=(RemoteFile("wdbc.data",
                              urls=(f"{UCI}/breast-cancer-wisconsin/wdbc.data",),
                              known_hash=None,
                              mirror_paths=("wdbc/wdbc.data",)),),
            reader=readers.wdbc_uci(),
            description="UCI wdbc.data (id, diagnosis, 30 features)",
        ),
    ),
    split=RowSplit(400, 169),
    raw_labels=(0.0, 1.0),
    preprocessing=(minmax_features(), labels_to_pm1(1.0)),
    stopping_threshold=0.005,
    reference=f"{LIM}, Figure 1",
    notes="Malignant → +1, benign → −1. Split in file order (first 400 rows train); "
          "LiM Figure 1 sweeps m over 5..300.",
))

# --------------------------------------------------------------------------------------- mnist
_LECUN = "http://yann.lecun.com/exdb/mnist"


def _mnist_file(name: str, sha256: str) -> RemoteFile:
    return RemoteFile(name, urls=(f"{_LECUN}/{name}",), known_hash=f"sha256:{sha256}",
                      mirror_paths=(f"mnist/{name}",))


register(DatasetSpec(
    name="mnist",
    title="MNIST handwritten digits (LeCun et al., 1998)",
    task="multiclass",
    n_train=60000, n_test=10000, d=784,
    sigma=None, m=None,
    sources=(Source(
        "lecun",
        files=(
            _mnist_file("train-images-idx3-ubyte.gz",
                        "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"),
            _mnist_file("train-labels-idx1-ubyte.gz",
                        "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"),
            _mnist_file("t10k-images-idx3-ubyte.gz",
                        "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"),
            _mnist_file("t10k-labels-idx1-ubyte.gz",
                        "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"),
        ),
        reader=readers.idx_images_labels(),
        description="the four gzipped IDX files of the LeCun distribution (md5 f68b3c…, "
                    "d53e10…, 9fb629…, ec2911…, as torchvision lists them)",
    ),),
    split=FileSplit(),
    raw_labels=tuple(float(c) for c in range(10)),
    # raw pixels as in the thesis (Chapter 7), scaled from 0–255 to [0, 1]: a constant factor
    # that only moves the λ scale of a linear RLSC
    preprocessing=(affine_features(1.0 / 255.0, 0.0),),
    reference="Camoriano, PhD thesis, Chapter 7 (Table 7.1, Figure 7.3)",
    notes="Multiclass: the digit labels 0–9 are kept; the incremental RLSC of "
          "kernreg.solvers.blocks.rlsc codes them (one-hot, recoded by Algorithm 7.1). Its configs "
          "run the class-incremental stream of the thesis, Section 7.6 (`protocol: {kind: "
          "streaming}`).",
))
