"""Which shipped configs a test can load here: one reading its data files from the offline
mirror (``$KERNREG_MIRROR/...``) cannot without the mirror."""

from __future__ import annotations

from pathlib import Path

from conftest import MIRROR


def needs_absent_mirror(config: Path) -> bool:
    """Whether ``config`` names files under ``$KERNREG_MIRROR`` and the mirror is absent."""
    return "$KERNREG_MIRROR" in config.read_text(encoding="utf-8") and not MIRROR.is_dir()
