"""On-disk record of a streaming regression run (thesis Chapter 8, ``protocol: {kind:
online_regression}``): one HDF5 file per finished trial, a trial being one part of the test
plane.

Layout of ``<out>/<experiment>/``::

    .lock                  the run lock (:mod:`kernreg.results.run_folder`)
    manifest.json          normalised config, its hash, the environment (the robot
                           packages' versions included)
    trials/t003.h5         part 3, written atomically when it ends: /<label>/{force, torque}
                           (the windowed RMSE after each sample of the part), attributes
                           (trial, config hash, the part's rows, the selected hyperparameters
                           of every label, the CAD model's RMSE, the simulated trajectories'
                           facts, seconds per label)
    summary.md, fig8_4.png, curves.csv   the summary table, the figure and the tidy curves of
                           the finished trials

Its files are those of :class:`~kernreg.results.stream_store.StreamStore` (one trial per file,
checked against its name and the manifest's config hash; ``--resume`` redoes none and loses
none); the outputs ``--force`` deletes differ, and a folder holding another kind of run (a
hold-out run or a classification stream of the same name) is neither continued nor deleted.
"""

from __future__ import annotations

from typing import Any

from kernreg.errors import ConfigError, ResultsError
from kernreg.results.run_folder import run_kind
from kernreg.results.stream_store import StreamStore

__all__ = ["KIND", "OUTPUT_CSV", "OUTPUT_FIGURE", "OUTPUT_TABLE", "OnlineStreamStore"]

OUTPUT_TABLE, OUTPUT_FIGURE, OUTPUT_CSV = "summary.md", "fig8_4.png", "curves.csv"
#: The protocol kind of the runs this store holds.
KIND = "online_regression"
_WORDS = {"holdout": "hold-out", "streaming": "streaming", KIND: "online regression"}


def _kind(manifest: dict[str, Any]) -> str:
    """The protocol a manifest records, this store's kind included."""
    config = manifest.get("config")
    protocol = config.get("protocol") if isinstance(config, dict) else None
    if isinstance(protocol, dict) and protocol.get("kind") == KIND:
        return KIND
    return run_kind(manifest)


class OnlineStreamStore(StreamStore):
    """The folder of one streaming regression run."""

    OUTPUT_FILES = (OUTPUT_TABLE, OUTPUT_FIGURE, OUTPUT_CSV)

    def _old_kind(self) -> tuple[str, dict[str, Any]] | None:
        if not self.manifest_path.is_file() or self.manifest_path.is_symlink():
            return None
        try:
            old = self.manifest()
        except ResultsError:
            return None  # the callers report an unreadable manifest in their own words
        return _kind(old), old

    def check_kind(self, manifest: dict[str, Any]) -> None:
        """Refuse to continue a folder holding another kind of run."""
        found = self._old_kind()
        if found and found[0] != _kind(manifest):
            raise ConfigError(
                f"{self.run_dir} holds a {_WORDS[found[0]]} run of "
                f"{found[1].get('experiment')!r}, not an online regression run; kernreg "
                f"neither continues nor deletes it: use --out for another folder, or give the "
                f"config another name")

    def check_deletable(self, manifest: dict[str, Any]) -> None:
        """``--force`` deletes only an online regression run of this experiment."""
        found = self._old_kind()
        if found and found[0] != _kind(manifest):
            raise ConfigError(f"--force: {self.run_dir} is not marked as an online regression "
                              f"run of {manifest['experiment']} (its manifest.json is of a "
                              f"{_WORDS[found[0]]} run); kernreg deletes only its own runs: "
                              f"move it away or use --out for another folder")
        super().check_deletable(manifest)
