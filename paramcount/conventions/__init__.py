"""One pure module per framework convention: spec -> tensors, input widths, formula.

No module here imports a deep learning framework: each reproduces its framework's layout from
the rules alone, and the verification backends prove it against the real thing.
"""

from __future__ import annotations

from paramcount.conventions import flax, keras, onnx, pytorch, tf1
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
]

_MODULES: dict[Framework, Convention] = {
    Framework.TORCH: pytorch,
    Framework.KERAS: keras,
    Framework.ONNX: onnx,
    Framework.FLAX_LINEN: flax.linen,
    Framework.FLAX_NNX: flax.nnx,
    Framework.TF1: tf1.rnn_cell,
    Framework.TF1_CUDNN: tf1.cudnn,
}


def convention(framework: Framework) -> Convention:
    """The module implementing a framework's convention."""
    return _MODULES[framework]


def tensors(spec: LayerSpec) -> list[Tensor]:
    """Every parameter tensor of ``spec``, named, shaped and ordered as its framework does."""
    return convention(spec.framework).tensors(spec)


def input_widths(spec: LayerSpec) -> list[int]:
    """The width of the input each layer reads."""
    return convention(spec.framework).input_widths(spec)


def formula(spec: LayerSpec) -> Formula:
    """The closed-form total of ``spec`` with its numbers filled in."""
    return convention(spec.framework).formula(spec)


def describe(spec: LayerSpec) -> str:
    """The framework code that builds ``spec``."""
    return convention(spec.framework).describe(spec)
