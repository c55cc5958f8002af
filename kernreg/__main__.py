"""``python -m kernreg``: the ``kernreg`` command."""

from kernreg.cli import main

main()
