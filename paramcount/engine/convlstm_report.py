"""Convolutional LSTMs: Keras ConvLSTM1D/2D/3D and Flax linen ConvLSTMCell, the report (the
spec is the convention's, :mod:`paramcount.engine.conventions.convlstm`, re-exported here).

A ConvLSTM replaces the LSTM's matmuls by convolutions, so its weights are kernels of shape
k₁ × … × k_r × channels × 4F: the count is 4F·∏k·(C_in + F) plus biases, whatever the size of
the frames. Pure: stdlib and paramcount's core only.

>>> spec = ConvLSTMSpec(rank=2, input_channels=3, filters=64, kernel=parse_kernel("3x3", 2))
>>> build_conv_report(spec).total
154624
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from paramcount.engine.conventions import convlstm as convention
from paramcount.engine.conventions.base import Formula, Tensor
from paramcount.engine.conventions.convlstm import FRAMEWORKS as FRAMEWORKS
from paramcount.engine.conventions.convlstm import ConvLSTMSpec as ConvLSTMSpec
from paramcount.engine.conventions.convlstm import DataFormat as DataFormat
from paramcount.engine.conventions.convlstm import parse_kernel as parse_kernel
from paramcount.engine.report import LayerTotal, subtotals
from paramcount.engine.spec import DType


@dataclass(frozen=True)
class ConvGrowthRow:
    """One layer's share of the gap between 2 × the unidirectional stack and the real total."""

    layer: int
    input_channels: int
    naive_channels: int
    per_channel: int
    """D · 4F · ∏k: what one extra input channel costs this layer."""

    @property
    def extra(self) -> int:
        """The parameters this layer adds beyond the naive guess."""
        return (self.input_channels - self.naive_channels) * self.per_channel


@dataclass(frozen=True)
class ConvReport:
    """Everything paramcount knows about one ConvLSTM stack's parameters."""

    spec: ConvLSTMSpec
    tensors: tuple[Tensor, ...]
    formula: Formula
    description: str
    dtype: DType
    layers: tuple[LayerTotal, ...]
    unidirectional: int | None
    """Bidirectional stacks: the total of the same stack with one direction."""
    growth: tuple[ConvGrowthRow, ...]

    @cached_property
    def total(self) -> int:
        """The number of parameters (summed once: renderers ask for it often)."""
        return sum(t.count for t in self.tensors)

    @property
    def bytes(self) -> int:
        """The parameters' size in ``dtype``."""
        return self.total * self.dtype.bytes

    @property
    def naive(self) -> int | None:
        """The naive guess for a bidirectional stack: twice the unidirectional one."""
        return None if self.unidirectional is None else 2 * self.unidirectional


def build_conv_report(spec: ConvLSTMSpec, dtype: DType = DType.FP32) -> ConvReport:
    """Compute the full report of a ConvLSTM stack."""
    tensors = convention.tensors(spec)
    widths = convention.input_channels(spec)
    layers = subtotals(tensors, spec.directions, widths)
    unidirectional = None
    growth: tuple[ConvGrowthRow, ...] = ()
    if spec.bidirectional:
        uni = spec.replace(bidirectional=False)
        unidirectional = sum(t.count for t in convention.tensors(uni))
        naive_widths = convention.input_channels(uni)
        per_channel = 2 * spec.gate_channels * spec.kernel_volume
        growth = tuple(
            ConvGrowthRow(layer, widths[layer], naive_widths[layer], per_channel)
            for layer in range(1, spec.num_layers)
        )
    return ConvReport(
        spec=spec,
        tensors=tuple(tensors),
        formula=convention.formula(spec),
        description=convention.describe(spec),
        dtype=dtype,
        layers=layers,
        unidirectional=unidirectional,
        growth=growth,
    )
