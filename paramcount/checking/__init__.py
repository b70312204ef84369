"""``paramcount check``: parameter budgets for whole model configs.

``source`` reads a TOML/JSON file and locates errors in it, ``config`` validates models
(``records`` their vocabulary and records, ``table`` typed access to a table, ``layers`` each
layer stack) and counts their layers, ``evaluate`` holds them to their expectations,
``update`` writes counts back, ``build`` makes the real models for ``--verify``, ``baseline``
counts the same configs at a git revision (``git`` runs git), ``definition`` finds a
factory's ``def``. Nothing here prints.

May import: ``paramcount.engine``, ``paramcount.families``, ``paramcount.files`` (inspect's
readers, for model files a config names), ``paramcount.factories`` (the user's own code).
"""

from __future__ import annotations

from paramcount.checking.config import Config, Layer, Model, load_config
from paramcount.checking.evaluate import Outcome, Problem, evaluate, evaluate_all
from paramcount.checking.source import Source, load

__all__ = [
    "Config",
    "Layer",
    "Model",
    "Outcome",
    "Problem",
    "Source",
    "evaluate",
    "evaluate_all",
    "load",
    "load_config",
    "read",
]


def read(path: str | None) -> Config:
    """Load and validate a config file (``None``: ``[tool.paramcount]`` of ./pyproject.toml)."""
    return load_config(load(path))
