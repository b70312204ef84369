"""``python -m paramcount``."""

from paramcount.cli.main import main

main()
