"""paramcount: exact parameter counts of recurrent layers, explained tensor by tensor.

>>> import paramcount
>>> paramcount.count("lstm", 32, 128, num_layers=2, bidirectional=True).total
561152
>>> paramcount.count("lstm", 28, 128, bidirectional=True, framework="keras").total
160768

The reading and counting commands have library calls, each returning a result whose
``to_dict()`` is the command's ``--json`` document and which shows itself as the command does
(and as HTML in Jupyter): ``summary(model)`` for a live torch, Keras or Flax model,
``read(text)``, ``inspect(path)``, ``check(path)``, ``family(name, ...)``,
``load_error(text)``, ``port(path, to)``, ``counted(cell, ...)`` (``count``'s report as the
count command's result), ``explain``, ``fit``, ``compute``, ``memory``, ``compare``,
``shapes``, ``trace``, ``convlstm`` and ``via_transformers(path)`` (a model type paramcount
does not model, as transformers builds it on the meta device); see :mod:`paramcount.api.calls`
(where they are typed) and docs/python-api.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from paramcount._version import __version__
from paramcount.api.count import count
from paramcount.engine.conventions import Direction, Formula, Tensor
from paramcount.engine.report import Report
from paramcount.engine.spec import Cell, DType, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.errors import BackendUnavailable, ConfigError, Mismatch, ParamcountError, SpecError

__all__ = [
    "BackendUnavailable",
    "Cell",
    "ConfigError",
    "DType",
    "Direction",
    "Formula",
    "Framework",
    "LayerSpec",
    "MergeMode",
    "Mismatch",
    "Nonlinearity",
    "ParamcountError",
    "Report",
    "SpecError",
    "Tensor",
    "__version__",
    "check",
    "compare",
    "compute",
    "convlstm",
    "count",
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


_CALLS = {"summary": "summary", "read": "paste", "inspect": "files", "check": "budgets",
          "family": "family", "load_error": "files", "port": "port", "counted": "count",
          "explain": "explain", "fit": "fit", "compute": "workload", "memory": "workload",
          "compare": "compare", "shapes": "flow", "trace": "flow", "convlstm": "convlstm",
          "via_transformers": "built"}
"""Each library call and the module of :mod:`paramcount.api` it lives in, loaded when first
named (``import paramcount`` stays light): ``paramcount.read`` *is* ``paramcount.api.paste.read``,
a plain function whose ``help()`` is its own docstring."""

if TYPE_CHECKING:
    from paramcount.api.calls import (
        check,
        compare,
        compute,
        convlstm,
        counted,
        explain,
        family,
        fit,
        inspect,
        load_error,
        memory,
        port,
        read,
        shapes,
        summary,
        trace,
        via_transformers,
    )


def __getattr__(name: str) -> Any:
    """A library call, imported from its module the first time it is named (PEP 562)."""
    module = _CALLS.get(name)
    if module is None:
        raise AttributeError(f"module 'paramcount' has no attribute {name!r}")
    call = getattr(importlib.import_module(f"paramcount.api.{module}"), name)
    globals()[name] = call
    return call


def __dir__() -> list[str]:
    """The face's names, the library calls included."""
    return sorted(set(globals()) | set(_CALLS))
