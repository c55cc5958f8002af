"""Running the ``kernreg`` command in the test's own process, as a user would see it."""

from __future__ import annotations

import pytest

from kernreg.cli import main


def run_kernreg(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``kernreg ARGS``: exit status, stdout, stderr (no traceback may reach stderr)."""
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err
