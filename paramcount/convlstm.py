"""Convolutional LSTMs: Keras ConvLSTM1D/2D/3D and Flax linen ConvLSTMCell, spec and report.

A ConvLSTM replaces the LSTM's matmuls by convolutions, so its weights are kernels of shape
k₁ × … × k_r × channels × 4F: the count is 4F·∏k·(C_in + F) plus biases, whatever the size of
the frames. Pure: stdlib and paramcount's core only.

>>> spec = ConvLSTMSpec(rank=2, input_channels=3, filters=64, kernel=parse_kernel("3x3", 2))
>>> build_conv_report(spec).total
154624
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from paramcount.conventions import convlstm as convention
from paramcount.conventions.base import Direction, Formula, Tensor
from paramcount.errors import SpecError
from paramcount.report import LayerTotal
from paramcount.spec import (
    MAX_SIZE,
    MAX_SIZE_TEXT,
    DType,
    Framework,
    at_most,
    check_layers,
    coerce,
    positive,
)

FRAMEWORKS = (Framework.KERAS, Framework.FLAX_LINEN)
"""Who has a ConvLSTM: Keras (ConvLSTM1D/2D/3D) and Flax linen (ConvLSTMCell)."""


class DataFormat(StrEnum):
    """Where Keras puts the channel axis of each frame."""

    CHANNELS_LAST = "channels_last"
    CHANNELS_FIRST = "channels_first"


_KERNEL = re.compile(r"[1-9][0-9]*(?:x[1-9][0-9]*)*")


def parse_kernel(text: str, rank: int) -> tuple[int, ...]:
    """``3x3`` → (3, 3); a single ``3`` means 3 along every one of the ``rank`` axes.

    >>> parse_kernel("3x5", 2), parse_kernel("3", 3)
    ((3, 5), (3, 3, 3))
    >>> try:
    ...     parse_kernel("3x", 2)
    ... except SpecError as error:
    ...     print(error)
    kernel='3x' is not a kernel size: write positive sizes joined by x, e.g. 3x3
    """
    compact = str(text).strip().lower().replace("×", "x").replace(" ", "")
    if not _KERNEL.fullmatch(compact):
        raise SpecError(
            "{kernel} is not a kernel size: write positive sizes joined by x, e.g. 3x3",
            kernel=text,
        )
    parts = compact.split("x")
    if any(len(part) > len(str(MAX_SIZE)) or int(part) > MAX_SIZE for part in parts):
        raise SpecError(
            "{kernel} is too large: " + MAX_SIZE_TEXT,
            kernel=text,
        )
    sizes = tuple(int(part) for part in parts)
    return sizes * rank if len(sizes) == 1 else sizes


@dataclass(frozen=True)
class ConvLSTMSpec:
    """A stack of ConvLSTM layers in Keras' or Flax linen's convention, validated."""

    rank: int
    """Spatial dimensions of each frame: 1, 2 or 3 (ConvLSTM1D/2D/3D)."""
    input_channels: int
    filters: int
    kernel: tuple[int, ...]
    num_layers: int = 1
    bidirectional: bool = False
    bias: bool = True
    data_format: DataFormat = DataFormat.CHANNELS_LAST
    framework: Framework = Framework.KERAS

    def __post_init__(self) -> None:
        object.__setattr__(self, "data_format",
                           coerce(DataFormat, "data_format", self.data_format))
        object.__setattr__(self, "framework", coerce(Framework, "framework", self.framework))
        _validate(self)

    @property
    def directions(self) -> int:
        """D: 2 when bidirectional, else 1."""
        return 2 if self.bidirectional else 1

    @property
    def kernel_volume(self) -> int:
        """∏k: the positions of one kernel."""
        return math.prod(self.kernel)

    @property
    def gate_channels(self) -> int:
        """4F: the output channels of every gate convolution."""
        return 4 * self.filters

    def replace(self, **changes: Any) -> ConvLSTMSpec:
        """A copy with some fields changed (and validated again)."""
        return dataclasses.replace(self, **changes)


def _validate(spec: ConvLSTMSpec) -> None:
    """Raise SpecError for what Keras or Flax would refuse."""
    if spec.rank not in (1, 2, 3):
        raise SpecError("{rank} must be 1, 2 or 3 (ConvLSTM1D, 2D, 3D)", rank=spec.rank)
    positive("input_channels", spec.input_channels)
    positive("filters", spec.filters)
    check_layers(spec.num_layers)
    if not isinstance(spec.kernel, tuple) or not spec.kernel:
        raise SpecError("{kernel} must be a tuple of sizes", kernel=spec.kernel)
    for size in spec.kernel:
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
            raise SpecError("{kernel} sizes must be positive integers", kernel=_text(spec.kernel))
        at_most("kernel", size)
    if len(spec.kernel) != spec.rank:
        raise SpecError(
            f"{{kernel}} has {len(spec.kernel)} size{'s' if len(spec.kernel) > 1 else ''} "
            f"for {{rank}}: give one size per spatial axis",
            kernel=_text(spec.kernel),
            rank=spec.rank,
        )
    if spec.framework not in FRAMEWORKS:
        raise SpecError(
            "{framework} has no ConvLSTM here: use keras or flax-linen",
            framework=spec.framework.value,
        )
    if spec.framework is Framework.FLAX_LINEN and spec.data_format is DataFormat.CHANNELS_FIRST:
        raise SpecError(
            "{data_format} is a Keras option: Flax's ConvLSTMCell reads channels last",
            data_format=spec.data_format.value,
        )


def _text(kernel: tuple[object, ...]) -> str:
    return "x".join(str(k) for k in kernel)


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

    @property
    def total(self) -> int:
        """The number of parameters."""
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
    layers = tuple(
        LayerTotal(
            layer,
            width,
            tuple(
                sum(t.count for t in tensors if t.layer == layer and t.direction is direction)
                for direction in list(Direction)[: spec.directions]
            ),
        )
        for layer, width in enumerate(widths)
    )
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
