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
``shapes``, ``trace`` and ``convlstm``; see :mod:`paramcount.api.calls` (where they are typed) and
docs/python-api.md.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

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
]


class _Call:
    """A library call of :mod:`paramcount.api.calls`, loaded when first called; where a
    subpackage has the same name (``paramcount.read``, ``paramcount.check``), its attributes
    are the subpackage's, so ``paramcount.reading.pipeline`` still names the module."""

    def __init__(self, name: str, module: str) -> None:
        self._name = name
        self._module = f"paramcount.api.{module}"
        self.__doc__ = f"{self._module}.{name}: see its docstring."

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the library function (its module is loaded the first time)."""
        return getattr(importlib.import_module(self._module), self._name)(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        package = f"paramcount.{self._name}"
        try:
            module = importlib.import_module(package)
        except ModuleNotFoundError as error:  # a call with no subpackage of its name
            if error.name != package:
                raise
            raise AttributeError(f"{package} (a library call) has no attribute {name!r}") from None
        return getattr(module, name)

    def __repr__(self) -> str:
        return f"<paramcount.{self._name}: a library call ({self._module}.{self._name})>"


_CALLS = ("summary", "read", "inspect", "check", "family", "load_error", "port", "counted",
          "explain", "fit", "compute", "memory", "compare", "shapes", "trace", "convlstm")


class _Package(types.ModuleType):
    """paramcount's module type: importing the subpackage ``paramcount.read`` (or ``check``)
    leaves ``paramcount.read`` the library call, the subpackage reachable through it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _CALLS and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


summary = _Call("summary", "summary")
read = _Call("read", "paste")
inspect = _Call("inspect", "files")
check = _Call("check", "budgets")
family = _Call("family", "family")
load_error = _Call("load_error", "files")
port = _Call("port", "port")
counted = _Call("counted", "count")
explain = _Call("explain", "explain")
fit = _Call("fit", "fit")
compute = _Call("compute", "workload")
memory = _Call("memory", "workload")
compare = _Call("compare", "compare")
shapes = _Call("shapes", "flow")
trace = _Call("trace", "flow")
convlstm = _Call("convlstm", "convlstm")
sys.modules[__name__].__class__ = _Package
