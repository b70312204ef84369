"""The ConvLSTM conventions: Keras ConvLSTM1D/2D/3D and Flax linen ConvLSTMCell, their spec
and its tensors.

Keras, per layer and direction: ``kernel`` k + (C_in, 4F), ``recurrent_kernel`` k + (F, 4F) and
one ``bias`` (4F,), named ``conv_lstm2d/conv_lstm_cell/kernel`` (under Bidirectional
``bidirectional/forward_conv_lstm2d/conv_lstm_cell/kernel``). Flax linen's ConvLSTMCell holds two
convolutions, ``ih`` (kernel k + (C_in, 4F)) and ``hh`` (kernel k + (F, 4F)), each with its own
bias (4F,) when ``use_bias``: 8F biases, where Keras has 4F.

What a layer after a Bidirectional one reads: both frameworks concatenate the directions on the
last axis. With channels last that is the channel axis, so the next layer reads 2F channels;
with Keras' ``data_format='channels_first'`` the last axis is spatial, the frames grow wider
instead, and the next layer still reads F channels.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from paramcount.engine.conventions.base import Direction, Formula, Symbol, Tensor
from paramcount.engine.spec import (
    MAX_SIZE,
    MAX_SIZE_TEXT,
    Framework,
    at_most,
    check_layers,
    coerce,
    positive,
)
from paramcount.errors import SpecError
from paramcount.record import replace

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
        return replace(self, **changes)


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


def concatenates_channels(spec: ConvLSTMSpec) -> bool:
    """Whether Bidirectional's concat lands on the channel axis (channels last)."""
    return spec.bidirectional and spec.data_format is DataFormat.CHANNELS_LAST


def input_channels(spec: ConvLSTMSpec) -> list[int]:
    """C_in of each layer: C, then 2F after a channels-last Bidirectional, else F."""
    after = (2 if concatenates_channels(spec) else 1) * spec.filters
    return [spec.input_channels] + [after] * (spec.num_layers - 1)


def _keras_tensors(spec: ConvLSTMSpec, layer: int, width: int, direction: Direction) -> list[
    Tensor
]:
    k, f4, f = spec.kernel, spec.gate_channels, spec.filters
    suffix = f"_{layer}" if layer else ""
    name = f"conv_lstm{spec.rank}d{suffix}"
    if spec.bidirectional:
        prefix = f"bidirectional{suffix}/{direction.value}_{name}/conv_lstm_cell/"
    else:
        prefix = f"{name}/conv_lstm_cell/"
    shapes: list[tuple[str, tuple[int, ...]]] = [
        ("kernel", (*k, width, f4)),
        ("recurrent_kernel", (*k, f, f4)),
    ]
    if spec.bias:
        shapes.append(("bias", (f4,)))
    return [Tensor(prefix + role, shape, layer, direction, width, role) for role, shape in shapes]


def _flax_tensors(spec: ConvLSTMSpec, layer: int, width: int, direction: Direction) -> list[
    Tensor
]:
    k, f4, f = spec.kernel, spec.gate_channels, spec.filters
    prefix = "params/"
    if spec.num_layers > 1:
        prefix += f"layers_{layer}/"
    if spec.bidirectional:
        prefix += f"{direction.value}_rnn/"
    prefix += "cell/"
    shapes: list[tuple[str, tuple[int, ...]]] = []
    for conv, channels in (("hh", f), ("ih", width)):
        if spec.bias:
            shapes.append((f"{conv}/bias", (f4,)))
        shapes.append((f"{conv}/kernel", (*k, channels, f4)))
    return [Tensor(prefix + role, shape, layer, direction, width, role) for role, shape in shapes]


def tensors(spec: ConvLSTMSpec) -> list[Tensor]:
    """Every parameter, layer by layer and forward before backward."""
    make = _keras_tensors if spec.framework is Framework.KERAS else _flax_tensors
    out = []
    for layer, width in enumerate(input_channels(spec)):
        for direction in list(Direction)[: spec.directions]:
            out += make(spec, layer, width, direction)
    return out


def formula(spec: ConvLSTMSpec) -> Formula:
    """Σ over layers of D·[4F·∏k·(C_in + F) + n·4F·b]: n = 1 bias in Keras, 2 in Flax."""
    f, d, b, kv = spec.filters, spec.directions, int(spec.bias), spec.kernel_volume
    n = 1 if spec.framework is Framework.KERAS else 2
    f4 = 4 * f
    kernel = "·".join(str(k) for k in spec.kernel)
    symbols = [
        Symbol("F", f, "filters"),
        Symbol("C", spec.input_channels, "input channels"),
        Symbol("∏k", kv, f"kernel positions ({kernel})"),
        Symbol("b", b, "1 with use_bias, 0 without"),
        Symbol("D", d, "directions"),
        Symbol("L", spec.num_layers, "layers"),
    ]
    nb = "b" if n == 1 else "2b"
    if n == 2:
        symbols.append(Symbol("n", 2, "bias vectors: ih and hh each have one"))
    widths = input_channels(spec)
    c = widths[0]
    terms = [(f"{d}·[{f4}·({kv}·({c} + {f}) + {n * b})]", d * f4 * (kv * (c + f) + n * b))]
    symbolic = f"D·4F·(∏k·(C + F) + {nb})"
    if spec.num_layers > 1:
        rest = widths[1]
        name = "2F" if rest == 2 * f else "F"
        value = (spec.num_layers - 1) * d * f4 * (kv * (rest + f) + n * b)
        rest_text = f"2·{f}" if rest == 2 * f else str(f)
        terms.append(
            (f"{spec.num_layers - 1}·{d}·[{f4}·({kv}·({rest_text} + {f}) + {n * b})]", value)
        )
        symbolic += f" + (L − 1)·D·4F·(∏k·({name} + F) + {nb})"
    return Formula(symbolic, tuple(symbols), tuple(terms))


def describe(spec: ConvLSTMSpec) -> str:
    """``Bidirectional(ConvLSTM2D(64, (3, 3))) on 3 channels``."""
    kernel = "(" + ", ".join(str(k) for k in spec.kernel) + ("," if spec.rank == 1 else "") + ")"
    if spec.framework is Framework.FLAX_LINEN:
        options = "" if spec.bias else ", use_bias=False"
        text = f"nn.RNN(nn.ConvLSTMCell({spec.filters}, {kernel}{options}))"
        if spec.bidirectional:
            text = f"nn.Bidirectional(fwd, bwd) of {text}"
        if spec.num_layers > 1:
            text = f"nn.Sequential of {spec.num_layers} × {text}"
        return f"{text} on {spec.input_channels:,} channels"
    layers = []
    for layer in range(spec.num_layers):
        args = [str(spec.filters), kernel]
        if not spec.bias:
            args.append("use_bias=False")
        if spec.data_format.value == "channels_first":
            args.append("data_format='channels_first'")
        if layer < spec.num_layers - 1:
            args.append("return_sequences=True")
        text = f"ConvLSTM{spec.rank}D({', '.join(args)})"
        layers.append(f"Bidirectional({text})" if spec.bidirectional else text)
    return " → ".join(layers) + f" on {spec.input_channels:,} channels"
