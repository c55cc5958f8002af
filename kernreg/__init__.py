"""kernreg: an experiment runner for large-scale kernel least squares.

Reproduces and extends the NYTRO (Camoriano et al., AISTATS 2016) and "Less is More: Nyström
Computational Regularization" (Rudi et al., NeurIPS 2015) experiments.
"""

import os as _os
import sys as _sys

__version__ = "0.1.0"

#: OpenBLAS's worker threads spin for 2^OPENBLAS_THREAD_TIMEOUT cycles after each call (28 by
#: default), on the core that the compiled kernel pass run next needs; 4 lets them sleep at
#: once. Read when OpenBLAS loads (with numpy), so it is set only where kernreg is imported
#: first — the ``kernreg`` command, ``python -m kernreg`` — and a value already set wins.
#: Measured side by side (reproduce/bench/bench_blas_spin.py): the exponential pass right
#: after a GEMM 31 → 13 ms, a 26049 × 1000 block 116 → 66 ms, the stored gradient pass
#: 10.9 → 9.1 ms.
OPENBLAS_THREAD_TIMEOUT = "4"
if "numpy" not in _sys.modules:  # later, OpenBLAS has read the environment already
    _os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", OPENBLAS_THREAD_TIMEOUT)

#: The estimators of the algorithm registry, importable from the package itself (``from
#: kernreg import NystromKRLS``); loaded on first use, so that ``import kernreg`` stays light
#: (``tests/test_public_api.py`` holds this list to the registry).
ESTIMATORS = ("ASkotch", "EigenPro", "FeatureSGM", "IncrementalNystromKRLS", "KOLS", "KRLS",
              "KernelLandweber", "LibSVM", "MultiPassSGM", "NystromKRLS", "NystromPCG", "Nytro",
              "OnePassSGM", "RPCholeskyPCG", "RandomFeaturesKRLS")
#: What a plugin (kernreg.plugins) registers its parts with: ``{public name: (module,
#: name there)}``, loaded on first use like the estimators. A part is its spec plus one call,
#: the same from a plugin as from kernreg's own files.
REGISTRATION = {
    "register_algorithm": ("kernreg.solvers.registry", "register"),
    "AlgorithmSpec": ("kernreg.solvers.registry", "AlgorithmSpec"),
    "MemoryProblem": ("kernreg.solvers.registry", "MemoryProblem"),
    "KernelEstimator": ("kernreg.solvers.blocks.base", "KernelEstimator"),
    "register_kernel": ("kernreg.kernels.registry", "register"),
    "KernelSpec": ("kernreg.kernels.registry", "KernelSpec"),
    "register_feature_map": ("kernreg.features.registry", "register"),
    "FeatureMapSpec": ("kernreg.features.registry", "FeatureMapSpec"),
    "register_dataset": ("kernreg.datasets.spec", "register"),
    "DatasetSpec": ("kernreg.datasets.spec", "DatasetSpec"),
}
#: Forms of the registered estimators (their one-vs-all classifiers) and meta-estimators
#: around them, loaded on first use as they are.
SELECTORS = ("IncrementalNystromKRLSClassifier", "KOLSClassifier", "KRLSClassifier",
             "KernelLandweberClassifier", "NystromKRLSClassifier", "NystromPCGClassifier",
             "NytroClassifier", "RandomFeaturesKRLSClassifier", "PathCV")
__all__ = ["ESTIMATORS", "REGISTRATION", "SELECTORS", "__version__", *ESTIMATORS, *REGISTRATION,
           *SELECTORS]


def __getattr__(name: str) -> object:
    if name in ESTIMATORS or name in SELECTORS:
        from kernreg import solvers

        return getattr(solvers, name)
    if name in REGISTRATION:
        import importlib

        module, attribute = REGISTRATION[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'kernreg' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *ESTIMATORS, *REGISTRATION, *SELECTORS})
