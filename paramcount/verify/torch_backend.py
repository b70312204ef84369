"""PyTorch: build nn.RNN / nn.LSTM / nn.GRU (or a cell) on the meta device and list its tensors.

On the meta device parameters have shapes but no storage, so any size builds in milliseconds
without allocating the weights. torch is imported only when a function here is called.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

from paramcount.engine.spec import Cell, LayerSpec
from paramcount.errors import BackendUnavailable
from paramcount.verify.compare import RealTensor

_CLASS = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}


def load() -> ModuleType:
    """Import torch quietly, or raise BackendUnavailable naming the extra to install."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import torch
        except ImportError:
            raise BackendUnavailable("torch", "torch") from None
    return torch


def version() -> str:
    """The installed torch version, e.g. ``2.13.0+cpu``."""
    return str(load().__version__)


def module(spec: LayerSpec) -> Any:
    """The real torch module for ``spec``, built on the meta device (no weights allocated)."""
    torch = load()
    name = _CLASS[spec.cell]
    options: dict[str, Any] = {"bias": spec.bias}
    if spec.cell is Cell.RNN and spec.nonlinearity is not None:
        options["nonlinearity"] = spec.nonlinearity.value
    with torch.device("meta"):
        if spec.single_cell:
            cls = getattr(torch.nn, name + "Cell")
            return cls(spec.input_size, spec.hidden_size, **options)
        if spec.proj_size:
            options["proj_size"] = spec.proj_size
        cls = getattr(torch.nn, name)
        return cls(
            spec.input_size,
            spec.hidden_size,
            num_layers=spec.num_layers,
            bidirectional=spec.bidirectional,
            **options,
        )


def tensors(spec: LayerSpec) -> list[RealTensor]:
    """``named_parameters()`` of the real module: (name, shape) in torch's own order."""
    return [
        (name, tuple(int(d) for d in parameter.shape))
        for name, parameter in module(spec).named_parameters()
    ]
