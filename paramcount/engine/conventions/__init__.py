"""One pure module per framework convention: spec -> tensors, input widths, formula.

No module here imports a deep learning framework: each reproduces its framework's layout from
the rules alone, and the verification backends prove it against the real thing.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from paramcount.engine.conventions.base import (
    Convention,
    Direction,
    Formula,
    Recognised,
    Symbol,
    Tensor,
)
from paramcount.engine.conventions.recognition import Shapes, index_of
from paramcount.engine.spec import Framework, LayerSpec

__all__ = [
    "Convention",
    "Direction",
    "Formula",
    "Recognised",
    "Symbol",
    "Tensor",
    "convention",
    "describe",
    "formula",
    "input_widths",
    "recognise",
    "tensors",
    "total",
]

# framework -> (module, attribute or ""); a convention is imported the first time it is used,
# so counting a torch layer does not pay for defining the Flax or TF1 conventions.
_MODULES: dict[Framework, tuple[str, str]] = {
    Framework.TORCH: ("pytorch", ""),
    Framework.KERAS: ("keras", ""),
    Framework.ONNX: ("onnx", ""),
    Framework.FLAX_LINEN: ("flax", "linen"),
    Framework.FLAX_NNX: ("flax", "nnx"),
    Framework.TF1: ("tf1", "rnn_cell"),
    Framework.TF1_CUDNN: ("tf1", "cudnn"),
}


def convention(framework: Framework) -> Convention:
    """The module (or object) implementing a framework's convention."""
    found = _LOADED.get(framework)
    if found is None:
        module_name, attribute = _MODULES[framework]
        module = importlib.import_module(f"paramcount.engine.conventions.{module_name}")
        found = getattr(module, attribute) if attribute else module
        _LOADED[framework] = found
    return found


_LOADED: dict[Framework, Convention] = {}
"""The conventions imported so far (a paste's every layer asks for its own)."""


def tensors(spec: LayerSpec) -> list[Tensor]:
    """Every parameter tensor of ``spec``, named, shaped and ordered as its framework does."""
    return convention(spec.framework).tensors(spec)


def total(spec: LayerSpec) -> int:
    """The number of parameters of ``spec``: the sum of its tensors' counts."""
    return sum(t.count for t in tensors(spec))


def input_widths(spec: LayerSpec) -> list[int]:
    """The width of the input each layer reads."""
    return convention(spec.framework).input_widths(spec)


def formula(spec: LayerSpec) -> Formula:
    """The closed-form total of ``spec`` with its numbers filled in."""
    return convention(spec.framework).formula(spec)


def describe(spec: LayerSpec) -> str:
    """The framework code that builds ``spec``."""
    return convention(spec.framework).describe(spec)


def recognise(shapes: Shapes, frameworks: Iterable[Framework] | None = None) -> list[Recognised]:
    """Every recurrent layer among named tensors, in source order, each tensor claimed once.

    ``shapes`` maps each tensor's name to its shape, in the source's order (a state dict, a
    Keras model's weight paths, an ONNX file's initializers); tensors that belong to no recurrent
    layer (embeddings, heads, norms) are simply left out. ``frameworks`` limits the conventions
    tried (all of them by default); where two could claim the same tensor, the one listed first
    wins (conventions name their tensors differently, so in practice they never compete).

    >>> [(r.prefix, r.spec.cell.value, r.spec.hidden_size) for r in recognise({
    ...     "embed.weight": (100, 8),
    ...     "rnn.weight_ih_l0": (48, 8), "rnn.weight_hh_l0": (48, 16),
    ...     "rnn.bias_ih_l0": (48,), "rnn.bias_hh_l0": (48,),
    ...     "head.weight": (2, 16)})]
    [('rnn.', 'gru', 16)]
    """
    chosen = list(dict.fromkeys(Framework if frameworks is None else frameworks))
    index = index_of(shapes)
    claimed: set[str] = set()
    found = []
    for framework in chosen:
        for layer in convention(framework).recognise(shapes):
            if claimed.isdisjoint(layer.names):
                claimed.update(layer.names)
                found.append(layer)
    found.sort(key=lambda layer: index[layer.names[0]])
    return found
