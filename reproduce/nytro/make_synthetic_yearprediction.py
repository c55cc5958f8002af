"""Write a synthetic ``YearPredictionMSD.txt.zip`` in the published UCI format, for scale checks.

The real file (515345 rows: the year, then 90 features, comma-separated) is not in the offline
mirror. This script writes a file of the same shape and format, so that the YearPrediction rows
of Table 2 can be timed and their memory measured here (their RMSEs mean nothing). Put it in a
*separate* mirror and cache: the first copy of this dataset is pinned by checksum.

    python -m reproduce.nytro.make_synthetic_yearprediction /tmp/synth_mirror/yearprediction
    KERNREG_MIRROR=/tmp/synth_mirror KERNREG_CACHE=/tmp/synth_cache \\
        python -m reproduce.bench.bench_table2 yearprediction --repeats 1 --dtype float32
    python -m reproduce.nytro.make_synthetic_yearprediction SCRATCH/yearprediction --rows 1000
                                                     # a small file of the same format: seconds
"""

from __future__ import annotations

import argparse
import zipfile
from pathlib import Path

import numpy as np

N_ROWS, N_FEATURES = 515345, 90
CHUNK = 20000


def write(folder: Path, n_rows: int = N_ROWS, seed: int = 0) -> Path:
    """Write ``folder/YearPredictionMSD.txt.zip`` with ``n_rows`` rows; return its path."""
    rng = np.random.default_rng(seed)
    # features on MSD-like scales (timbre means and covariances: units to hundreds); the year
    # depends smoothly on a few directions, plus noise, within the dataset's range 1922–2011
    scales = rng.uniform(1.0, 100.0, N_FEATURES)
    w = rng.normal(size=(N_FEATURES, 3)) / np.sqrt(N_FEATURES)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "YearPredictionMSD.txt.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive, \
            archive.open("YearPredictionMSD.txt", "w") as out:
        for start in range(0, n_rows, CHUNK):
            rows = min(CHUNK, n_rows - start)
            z = rng.normal(size=(rows, N_FEATURES))
            signal = np.tanh(z @ w).sum(axis=1)
            year = np.clip(np.round(1998 + 6 * signal + 4 * rng.normal(size=rows)), 1922, 2011)
            table = np.column_stack([year, z * scales])
            lines = [",".join([f"{int(r[0])}", *(f"{v:.6f}" for v in r[1:])]) for r in table]
            out.write(("\n".join(lines) + "\n").encode())
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="where to write YearPredictionMSD.txt.zip")
    parser.add_argument("--rows", type=int, default=N_ROWS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(write(args.folder, args.rows, args.seed))


if __name__ == "__main__":
    main()
