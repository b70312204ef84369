"""Every library call and its result type, in one place to import them from (typed):
``from paramcount.api.calls import summary, read``. Each lives in the module of its
capability, which the CLI imports alone, so that a command loads only its own."""

from __future__ import annotations

from paramcount.api.budgets import Checked, check
from paramcount.api.built import BuiltCount, via_transformers
from paramcount.api.compare import Compared, compare
from paramcount.api.convlstm import ConvCounted, convlstm
from paramcount.api.count import Counted, counted
from paramcount.api.explain import Explained, explain
from paramcount.api.family import FamilyCount, family
from paramcount.api.files import Inspection, LoadError, inspect, load_error
from paramcount.api.fit import Fitted, fit
from paramcount.api.flow import Shapes, Traced, shapes, trace
from paramcount.api.paste import Reading, read
from paramcount.api.port import Ported, port
from paramcount.api.result import FileName, Result
from paramcount.api.summary import Summary, summary
from paramcount.api.workload import Computed, TrainingMemory, compute, memory

__all__ = [
    "BuiltCount",
    "Checked",
    "Compared",
    "Computed",
    "ConvCounted",
    "Counted",
    "Explained",
    "FamilyCount",
    "FileName",
    "Fitted",
    "Inspection",
    "LoadError",
    "Ported",
    "Reading",
    "Result",
    "Shapes",
    "Summary",
    "Traced",
    "TrainingMemory",
    "check",
    "compare",
    "compute",
    "convlstm",
    "counted",
    "explain",
    "family",
    "fit",
    "inspect",
    "load_error",
    "memory",
    "port",
    "read",
    "shapes",
    "summary",
    "trace",
    "via_transformers",
]
