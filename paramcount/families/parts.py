"""What the modern families are built from: linear layers, norms, convolutions, config values.

Each family's module (``xlstm``, ``rglru``, ``mingru`` …) lists its reference's tensors with
these helpers, validates its config record's fields with them (one ``SpecError`` line naming the
option, the value and the rule), reads ``config.json`` values with them, and checks a recognised
model exactly: the config read from a few shapes must write every tensor found under the
model's prefix, and nothing else. Pure: no framework import.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable

from paramcount.engine.conventions.base import Direction, Tensor
from paramcount.engine.conventions.recognition import Shapes, in_order, index_of, is_shape, matches
from paramcount.engine.spec import MAX_LAYERS, MAX_SIZE, positive
from paramcount.errors import SpecError
from paramcount.families.family import RecognisedModel
from paramcount.families.hf import role_of


def tensor(name: str, shape: tuple[int, ...], layer: int, width: int, role: str) -> Tensor:
    """One forward-direction tensor of block ``layer`` (which reads ``width`` features)."""
    return Tensor(name, shape, layer, Direction.FORWARD, width, role)


def linear(
    prefix: str, out: int, inp: int, bias: bool, layer: int, width: int | None = None,
    role: str = "",
) -> list[Tensor]:
    """``nn.Linear(inp, out, bias)`` at ``prefix``: ``weight`` (out, inp) and ``bias`` (out,);
    ``role`` names it where its module's name is only an index (``4.0``)."""
    role = role or role_of(prefix + "weight")
    reads = inp if width is None else width
    out_tensors = [tensor(prefix + "weight", (out, inp), layer, reads, role)]
    if bias:
        out_tensors.append(tensor(prefix + "bias", (out,), layer, reads, role + ".bias"))
    return out_tensors


def norm(prefix: str, size: int, layer: int, weight: bool = True, bias: bool = False,
         role: str = "") -> list[Tensor]:
    """A norm's ``weight`` and ``bias`` (size,) at ``prefix``, those it has."""
    role = role or role_of(prefix + "weight")
    out = []
    if weight:
        out.append(tensor(prefix + "weight", (size,), layer, size, role))
    if bias:
        out.append(tensor(prefix + "bias", (size,), layer, size, role + ".bias"))
    return out


def depthwise_conv(prefix: str, channels: int, kernel: int, bias: bool, layer: int) -> list[
    Tensor
]:
    """``nn.Conv1d(C, C, kernel, groups=C, bias)``: ``weight`` (C, 1, kernel), ``bias`` (C,)."""
    role = role_of(prefix + "weight")
    out = [tensor(prefix + "weight", (channels, 1, kernel), layer, channels, role)]
    if bias:
        out.append(tensor(prefix + "bias", (channels,), layer, channels, role + ".bias"))
    return out


def round_up(value: float, multiple: int) -> int:
    """``int(((value + m - 1) // m) * m)``: the references' rounding up to a multiple, in floats.

    >>> round_up(4096 * 2.667, 64)
    10944
    """
    return int(((value + multiple - 1) // multiple) * multiple)


def sizes(config: object, *names: str) -> None:
    """Each named field must be a whole number from 1 to 2^63 − 1, as a framework's sizes are."""
    for name in names:
        positive(name, getattr(config, name))


def whole_or_zero(field: str, value: object) -> None:
    """``value`` must be 0 or a positive whole number (0: the part is left out)."""
    if not (value == 0 and isinstance(value, int) and not isinstance(value, bool)):
        positive(field, value)


def at_most_blocks(field: str, value: int) -> None:
    """A block count must not exceed :data:`~paramcount.engine.spec.MAX_LAYERS`: every
    block's tensors are listed."""
    if value > MAX_LAYERS:
        raise SpecError("{" + field + "} is more blocks than paramcount lists tensor by tensor "
                        f"(at most {MAX_LAYERS:,})", **{field: value})


def factor(field: str, value: object) -> None:
    """``value`` must be a positive, finite number (a float or an int)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpecError("{" + field + "} must be a number", **{field: value})
    if not (math.isfinite(value) and 0 < value <= MAX_SIZE):
        raise SpecError("{" + field + "} must be a positive number, at most 2^63 − 1",
                        **{field: value})


def choice(field: str, value: object, allowed: Collection[object]) -> None:
    """``value`` must be one of ``allowed``."""
    if not any(value == a and type(value) is type(a) for a in allowed):
        names = ", ".join(repr(a) for a in allowed)
        raise SpecError("{" + field + "} must be one of " + names, **{field: value})


def divides(field: str, value: int, whole_field: str, whole_value: int, why: str) -> None:
    """``value`` must divide ``whole_value``: the reference splits it into that many parts."""
    if whole_value % value:
        raise SpecError(
            "{" + field + "} must divide {" + whole_field + "}: " + why,
            **{field: value, whole_field: whole_value},
        )


def factor_for(target: int, width: int, build: Callable[[float], int], preferred: float) -> float:
    """A factor f with ``build(f) == target``: ``preferred`` if it does, else target/width nudged.

    The references compute sizes as ``int(width * factor)`` or round such a product up to a
    multiple, so the factor itself is not stored; any factor that gives the same size builds the
    same model. The nearest floats to ``target / width`` are tried when the quotient itself
    lands on the wrong side of an integer.
    """
    if build(preferred) == target:
        return preferred
    guess = target / width
    for direction in (math.inf, -math.inf):
        value = guess
        for _ in range(4):
            if build(value) == target:
                return value
            value = math.nextafter(value, direction)
    return guess


def exact(
    shapes: Shapes, prefix: str, roots: Iterable[str], written: Iterable[Tensor]
) -> tuple[str, ...] | None:
    """The names found under ``prefix`` + one of ``roots`` if they are exactly ``written``."""
    starts = tuple(prefix + root for root in roots)
    group = {name: shape for name, shape in shapes.items() if name.startswith(starts)}
    if not matches(group, prefix, written):
        return None
    return in_order(group, index_of(shapes))


def found_at(
    shapes: Shapes, pattern: re.Pattern[str], rank: int,
    at: Callable[[re.Match[str], tuple[int, ...]], RecognisedModel | None],
) -> list[RecognisedModel]:
    """Every model ``at`` accepts where a name matches ``pattern`` with a shape of ``rank``."""
    found = []
    for name, shape in shapes.items():
        match = pattern.fullmatch(name)
        if match and is_shape(shape, rank):
            try:
                model = at(match, shape)
            except OverflowError:  # sizes beyond the floats the references round with
                continue
            if model is not None:
                found.append(model)
    return found


def blocks_under(shapes: Shapes, start: str) -> int:
    """How many numbered blocks ``start`` + ``0.``, ``1.`` … there are (the highest index + 1),
    or 0 past :data:`~paramcount.engine.spec.MAX_LAYERS`, more than any model paramcount lists."""
    highest = -1
    for name in shapes:
        if name.startswith(start):
            head = name[len(start):].split(".", 1)[0]
            if not (head.isascii() and head.isdigit()):
                continue
            if len(head) > 6:
                return 0
            highest = max(highest, int(head))
    return highest + 1 if highest < MAX_LAYERS else 0
