"""Files that documentation examples read, made by the real libraries when an example needs one.

Each module here defines ``FILES``: file name -> (modules it needs, function that writes it
into a directory). ``tests/test_docs.py`` runs every console example in one shared directory and
makes the files an example names before running it, or skips the example when a module is
missing.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path

Maker = tuple[tuple[str, ...], Callable[[Path], None]]


def makers() -> dict[str, Maker]:
    """Every documented file, from every module of this package."""
    found: dict[str, Maker] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, maker in getattr(module, "FILES", {}).items():
            assert name not in found, f"two makers for the documented file {name}"
            found[name] = maker
    return found
