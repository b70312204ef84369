"""What every convention produces: named, shaped tensors and a formula with its numbers."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Protocol

from paramcount.engine.spec import LayerSpec
from paramcount.record import record


class Direction(StrEnum):
    """Which direction of a (possibly bidirectional) layer a tensor belongs to."""

    FORWARD = "forward"
    BACKWARD = "backward"
    BOTH = "both"
    """One tensor holding both directions, stacked on a leading axis (ONNX's [D, ...])."""


@record
class Tensor:
    """One parameter tensor, named and shaped exactly as its framework reports it."""

    name: str
    shape: tuple[int, ...]
    layer: int
    direction: Direction
    input_width: int
    """The width of the input that this tensor's layer reads."""
    role: str
    """What the tensor does, in the framework's own words: weight_ih, kernel, bias, ..."""

    @property
    def count(self) -> int:
        """The number of elements: the product of the shape."""
        return math.prod(self.shape)


@record
class Symbol:
    """A letter of a formula, its value and what it stands for."""

    name: str
    value: int
    meaning: str


@record
class Formula:
    """A closed-form total, with its symbols and the same expression with numbers filled in.

    ``total`` is computed from the closed form, independently of the tensor list, so the two can
    check each other.
    """

    symbolic: str
    symbols: tuple[Symbol, ...]
    terms: tuple[tuple[str, int], ...]
    """Each summand with its numbers filled in, and its value."""

    @property
    def total(self) -> int:
        """The sum of the terms."""
        return sum(value for _, value in self.terms)

    @property
    def substituted(self) -> str:
        """The terms joined, numbers of four digits or more with thousands separators:
        ``2·[5,120·(3,200 + 1,280 + 2)] + 2·[512·(256 + 128 + 2)]``."""
        return _THOUSANDS.sub(lambda m: f"{int(m[0]):,}", " + ".join(t for t, _ in self.terms))


_THOUSANDS = re.compile(r"(?<![\w.])\d{4,}(?![\w.])")


@record
class Recognised:
    """A recurrent layer found among named tensors: the inverse of ``tensors(spec)``.

    ``prefix`` is what stands before the convention's own names (``encoder.lstm.`` for a torch
    state-dict key ``encoder.lstm.weight_ih_l0``, ``""`` at the top level); ``names`` are the
    source's tensors this layer accounts for, in the source's order; ``notes`` say what the
    tensors cannot tell and what was assumed (RNN tanh or relu).
    """

    prefix: str
    spec: LayerSpec
    names: tuple[str, ...]
    notes: tuple[str, ...] = ()
    composed: tuple[tuple[str, ...], ...] = ()
    """Where the source computes the layer's tensors from others (an ONNX node's B joined from
    two biases): for each of ``tensors(spec)``, the names it is made of; empty when each is
    stored as it is."""


class Convention(Protocol):
    """What a convention module provides: see pytorch.py and keras.py."""

    def tensors(self, spec: LayerSpec) -> list[Tensor]: ...
    def input_widths(self, spec: LayerSpec) -> list[int]: ...
    def formula(self, spec: LayerSpec) -> Formula: ...
    def describe(self, spec: LayerSpec) -> str: ...
    def recognise(self, shapes: Mapping[str, tuple[int, ...]]) -> list[Recognised]: ...
