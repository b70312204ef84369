"""One pure module per framework convention: spec -> tensors, input widths, formula.

No module here imports a deep learning framework: each reproduces its framework's layout from
the rules alone, and the verification backends prove it against the real thing.
"""

from __future__ import annotations

import importlib

from paramcount.conventions.base import Convention, Direction, Formula, Symbol, Tensor
from paramcount.spec import Framework, LayerSpec

__all__ = [
    "Convention",
    "Direction",
    "Formula",
    "Symbol",
    "Tensor",
    "convention",
    "describe",
    "formula",
    "input_widths",
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
    module_name, attribute = _MODULES[framework]
    module = importlib.import_module(f"paramcount.conventions.{module_name}")
    found: Convention = getattr(module, attribute) if attribute else module
    return found


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
