"""``kernreg advise``: where a dataset sits on the NYTRO regime map, and the predicted fastest
solver."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import click
import numpy as np

from kernreg.atomic import write_text
from kernreg.cli.data import data_options
from kernreg.cli.run import DEFAULT_OUT, export_data_settings
from kernreg.config.loader import SIGMA_RANGE
from kernreg.errors import ConfigError

#: The quick NKRLS path uses the paper's m for the dataset, capped to stay quick.
MAX_DEFAULT_M = 2000


@click.command()
@click.argument("dataset")
@click.option("--sigma", type=float, help="Gaussian kernel width (default: the paper's σ).")
@click.option("--m", type=int,
              help=f"Centers of the quick NKRLS path (default: the paper's m, at most "
                   f"{MAX_DEFAULT_M}).")
@click.option("--subsample", default=3000, show_default=True, type=int,
              help="Rows of the kernel matrix whose eigenvalues give d_eff and d̃.")
@click.option("--tolerance", default=0.01, show_default=True, type=float,
              help="λ* is the largest λ whose validation RMSE is within this fraction of the "
                   "best.")
@click.option("--max-iter", default=500, show_default=True, type=int,
              help="Iterations of the NYTRO path that measures t.")
@click.option("--max-n", type=int, help="Use at most this many training rows (drawn uniformly).")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--blas-threads", default=os.cpu_count() or 1, show_default=True, type=int)
@click.option("--out", default=f"{DEFAULT_OUT}/advise", show_default=True,
              type=click.Path(file_okay=False),
              help="Folder for <dataset>.png (the map) and <dataset>.json.")
@data_options
def advise(dataset: str, sigma: float | None, m: int | None, subsample: int, tolerance: float,
           max_iter: int, max_n: int | None, seed: int, blas_threads: int, out: str,
           mirror: str | None, cache_dir: str | None, offline: bool | None) -> None:
    """Estimate SNR ≈ 1/λ*, d_eff(λ*) and d̃(λ*) of DATASET's training set, place it on the
    NYTRO paper's Figure 1 map and predict the fastest of KRLS, ES, NKRLS and NYTRO.

    Also measures the iterations NYTRO needs to match NKRLS's validation RMSE and gives the
    map's prediction with that t in place of SNR. Writes OUT/<dataset>.json and the map as
    OUT/<dataset>.png.
    """
    from threadpoolctl import threadpool_limits

    from kernreg.advise import estimate_regime
    from kernreg.advise.figure import regime_map_figure
    from kernreg.datasets import get_spec, load_dataset, paper_default
    from kernreg.experiment import subsample_rng, subsample_rows
    from kernreg.results.figures import save_figure

    export_data_settings(mirror, cache_dir, offline)
    spec = get_spec(dataset)
    if sigma is None:
        missing: list[str] = []
        sigma = paper_default(spec, "sigma", "--sigma", missing)
        if missing:
            raise ConfigError(missing[0])
    m = m if m is not None else min(spec.m or MAX_DEFAULT_M, MAX_DEFAULT_M)
    for name, value in (("--sigma", sigma), ("--m", m), ("--subsample", subsample),
                        ("--tolerance", tolerance), ("--max-iter", max_iter),
                        ("--blas-threads", blas_threads)):
        if not math.isfinite(value) or value <= 0:
            raise ConfigError(f"{name} must be > 0 and finite, got {value}")
    low, high = SIGMA_RANGE["float64"]
    if not low <= sigma <= high:
        raise ConfigError(f"--sigma must lie in [{low:g}, {high:g}], got {sigma}")
    if not 0 <= seed < 2**32:
        raise ConfigError(f"--seed must be an integer in [0, 2^32), got {seed}")
    if max_n is not None and max_n < 10:
        raise ConfigError(f"--max-n must be at least 10, got {max_n}")

    ds = load_dataset(spec.name)
    X, y = subsample_rows(ds.X_train, ds.y_train, max_n, subsample_rng(seed))
    with threadpool_limits(limits=blas_threads):
        check_sigma_for_data(sigma, X, subsample, seed, spec.name)
        advice = estimate_regime(X, y, sigma=sigma, m=m, subsample=subsample,
                                 tolerance=tolerance, seed=seed, dataset=spec.name,
                                 max_iter=max_iter)
    click.echo(advice.to_text(), nl=False)
    folder = Path(out)
    # strict JSON for other programs: to_dict has turned non-finite values into null
    write_text(folder / f"{spec.name}.json",
               json.dumps(advice.to_dict(), indent=2, allow_nan=False) + "\n")
    png, = save_figure(regime_map_figure(advice), [folder / f"{spec.name}.png"])
    click.echo(f"map: {png}")


def check_sigma_for_data(sigma: float, X: Any, subsample: int, seed: int, dataset: str) -> None:
    """Refuse a σ whose kernel matrix is the identity (every value between distinct rows below
    float64's ε) or constant (every value rounds to 1) on a uniform subsample of the rows: the
    advice — λ*, SNR, d_eff, the map — would describe the arithmetic, not the data.

    Raises
    ------
    ConfigError
        Naming ``--sigma``, its value and the bound, before anything is written.
    """
    from kernreg.advise import useful_sigma_range

    size = min(subsample, X.shape[0])
    low, high = useful_sigma_range(X, size, np.random.default_rng([seed, 0x5167]))
    if sigma < low:
        raise ConfigError(
            f"--sigma {sigma:g} is below {_significant(low, math.ceil)} for {dataset}: the "
            f"Gaussian kernel between any two distinct rows of a uniform subsample of {size} is "
            f"below float64's ε there, so the kernel matrix is the identity and λ*, SNR, d_eff "
            f"and the map would say nothing; give --sigma ≥ {_significant(low, math.ceil)}")
    if sigma > high:
        raise ConfigError(
            f"--sigma {sigma:g} is above {_significant(high, math.floor)} for {dataset}: the "
            f"Gaussian kernel between any two rows of a uniform subsample of {size} rounds to "
            f"1 there, so the kernel matrix is constant and λ*, SNR, d_eff and the map would "
            f"say nothing; give --sigma ≤ {_significant(high, math.floor)}")


def _significant(value: float, rounding: Any) -> str:
    """``value`` to 3 significant digits, rounded by ``rounding`` (ceil for a lower bound,
    floor for an upper one), so that the printed bound is itself on the allowed side."""
    unit = 10.0 ** (math.floor(math.log10(value)) - 2)
    return f"{rounding(value / unit) * unit:.3g}"

