"""Every library call and its result type, in one place to import them from (typed):
``from paramcount.api.calls import summary, read``. Each lives in the module of its
capability, which the CLI imports alone, so that a command loads only its own."""

from __future__ import annotations

from paramcount.api.budgets import Checked, check
from paramcount.api.count import Counted, counted
from paramcount.api.family import FamilyCount, family
from paramcount.api.files import Inspection, LoadError, inspect, load_error
from paramcount.api.paste import Reading, read
from paramcount.api.port import Ported, port
from paramcount.api.result import FileName, Result
from paramcount.api.summary import Summary, summary

__all__ = [
    "Checked",
    "Counted",
    "FamilyCount",
    "FileName",
    "Inspection",
    "LoadError",
    "Ported",
    "Reading",
    "Result",
    "Summary",
    "check",
    "counted",
    "family",
    "inspect",
    "load_error",
    "port",
    "read",
    "summary",
]
