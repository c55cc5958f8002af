"""Dataset registry, verified download with an offline mirror, paper preprocessing and splits.

>>> from kernreg.datasets import load_dataset
>>> ds = load_dataset("adult")          # doctest: +SKIP
>>> ds.X_train.shape, ds.X_test.shape    # doctest: +SKIP
((32561, 123), (16281, 123))

Files are looked for in the mirror (``KERNREG_MIRROR`` or ``mirror=``), then in the cache
(``KERNREG_CACHE`` or ``cache_dir=``), and downloaded only if neither has them.
"""

from kernreg.datasets import catalog as _catalog  # noqa: F401  (registers the datasets)
from kernreg.datasets.fetch import DataSettings, resolve_settings
from kernreg.datasets.loader import Dataset, is_cached, load_dataset
from kernreg.datasets.spec import (
    DatasetSpec,
    RemoteFile,
    Source,
    dataset_names,
    get_spec,
    paper_default,
    register,
    unregister,
)

__all__ = [
    "DataSettings",
    "Dataset",
    "DatasetSpec",
    "RemoteFile",
    "Source",
    "dataset_names",
    "get_spec",
    "is_cached",
    "load_dataset",
    "paper_default",
    "register",
    "resolve_settings",
    "unregister",
]
