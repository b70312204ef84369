"""``python -m paramcount``."""

from paramcount.cli import main

main()
