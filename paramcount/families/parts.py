"""What the modern families share: tensors, the causal-LM frame, config values, recognition.

Each family's module (``mamba``, ``xlstm``, ``rglru``, ``mingru`` …) lists its reference's
tensors with these helpers (linear layers, norms, convolutions, and the embeddings / final norm
/ head around a stack of blocks), validates its config record's fields with them (one
``SpecError`` line naming the option, the value and the rule), and checks a recognised model
exactly: the config read from a few shapes must write every tensor found under the model's
prefix, and nothing else. ``config.json`` values are read by :mod:`~paramcount.families.loader`.
Pure: no framework import.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping

from paramcount.engine.conventions.base import Direction, Formula, Symbol, Tensor
from paramcount.engine.conventions.recognition import Shapes, in_order, index_of, is_shape, matches
from paramcount.engine.spec import MAX_LAYERS, MAX_SIZE, positive
from paramcount.errors import SpecError
from paramcount.families.family import RecognisedModel
from paramcount.record import record

TYPE_CHECKING = False  # typing is for the type checker only
if TYPE_CHECKING:
    from typing import Any, TypeVar

    C = TypeVar("C")
    Proposal = Callable[[Mapping[str, tuple[int, ...]], str, int], tuple[Any, list[str]] | None]


# ---- tensors --------------------------------------------------------------------------------


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


def block(prefix: str, shapes: list[tuple[str, tuple[int, ...]]], layer: int,
          width: int) -> list[Tensor]:
    """Tensors named ``prefix + name`` for one block that reads ``width``-wide input; the role is
    the reference's short name (``in_proj``, ``A_log``)."""
    return [Tensor(prefix + name, shape, layer, Direction.FORWARD, width, role_of(name))
            for name, shape in shapes]


def role_of(name: str) -> str:
    """``mixer.in_proj.weight`` → ``in_proj``; ``mixer.A_log`` → ``A_log``."""
    parts = name.split(".")
    if parts[-1] in ("weight", "bias") and len(parts) > 1:
        return parts[-2] if parts[-1] == "weight" else f"{parts[-2]}.bias"
    return parts[-1]


# ---- the causal-LM frame -------------------------------------------------------------------


@record
class Frame:
    """How a reference names what surrounds its blocks."""

    backbone: str = "backbone."
    embeddings: str = "embeddings.weight"
    final: tuple[str, ...] = ("norm_f.weight",)
    head: str = "lm_head.weight"


FRAME = Frame()


def causal_lm(vocab: int, width: int, blocks: list[Tensor], tie: bool,
              frame: Frame = FRAME) -> list[Tensor]:
    """The embeddings, the blocks, the final norm and the head (only when untied; tied, it is
    the embeddings' tensor, listed once), all under the frame's names; what lies outside the
    blocks has layer −1."""
    after = -1
    out = [Tensor(frame.backbone + frame.embeddings, (vocab, width), -1, Direction.FORWARD,
                  vocab, "embeddings"), *blocks]
    out += [Tensor(frame.backbone + name, (width,), after, Direction.FORWARD, width,
                   role_of(name)) for name in frame.final]
    if not tie:
        out.append(Tensor(frame.head, (vocab, width), after, Direction.FORWARD, width,
                          role_of(frame.head)))
    return out


def model_formula(symbolic: str, block_text: str, per_block: int, symbols: tuple[Symbol, ...],
                  vocab: int, width: int, layers: int, tie: bool,
                  final: tuple[str, int] = ("D", 1)) -> Formula:
    """V·D + L·[block] + final norm (+ V·D when the head is untied), with its terms.

    ``final`` is the final norm's closed form in D and how many D-vectors it holds.
    """
    text, vectors = final
    terms = [
        (f"{vocab}·{width}", vocab * width),
        (f"{layers}·[{block_text}]", layers * per_block),
        (f"{vectors}·{width}" if vectors > 1 else str(width), vectors * width),
    ]
    whole = f"V·D + L·[{symbolic}] + {text}"
    if not tie:
        terms.append((f"{vocab}·{width}", vocab * width))
        whole += " + V·D"
    return Formula(whole, symbols, tuple(terms))


# ---- config values ---------------------------------------------------------------------------


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


def booleans(config: object, *names: str) -> None:
    """Raise SpecError unless every named field of ``config`` is True or False."""
    for name in names:
        value = getattr(config, name)
        if not isinstance(value, bool):
            raise SpecError(f"{{{name}}} must be true or false", **{name: value})


def is_int(value: object) -> bool:
    """Whether ``value`` is an int and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


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


# ---- recognition -----------------------------------------------------------------------------


def rank2(shape: tuple[int, ...] | None) -> bool:
    """Whether ``shape`` is a matrix."""
    return shape is not None and len(shape) == 2


def build(kind: type[C], **values: object) -> C | None:
    """``kind(**values)``, or None if the reference would refuse it."""
    try:
        return kind(**values)
    except (SpecError, TypeError):
        return None


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


def recognise_models(family: str, shapes: Mapping[str, tuple[int, ...]], marker: str,
                     propose: Proposal, tensors: Callable[[Any], list[Tensor]],
                     frame: Frame = FRAME, layers_word: str = "layers") -> list[RecognisedModel]:
    """Every model of a family among ``shapes``, found from each stack whose block 0 holds
    ``{layers_word}.0.{marker}``: ``propose`` reads a config from the tensors, and the model is
    accepted only if ``tensors(config)`` are exactly the tensors found under its prefix.

    Under ``...{frame.backbone}`` with the head beside it, the head tells whether the
    embeddings are tied; a bare backbone (transformers' ``...Model``) has no head, and is
    counted as the tied causal LM, which holds the same parameters.
    """
    found = []
    ending = f"{layers_word}.0.{marker}"
    for name in shapes:
        if not name.endswith(ending):
            continue
        root = name[: -len(ending)]
        layers = 0
        while f"{root}{layers_word}.{layers}.{marker}" in shapes:
            layers += 1
        proposal = propose(shapes, root, layers)
        if proposal is None:
            continue
        config, notes = proposal
        bare = not root.endswith(frame.backbone)
        outer = root if bare else root[: len(root) - len(frame.backbone)]
        if not bare and outer + frame.head in shapes:
            config = build(type(config), **{**vars(config), "tie_word_embeddings": False})
            if config is None:
                continue
        expected = {(root + t.name.removeprefix(frame.backbone) if bare else outer + t.name):
                    t.shape for t in tensors(config)}
        ours = [n for n in shapes if n.startswith(f"{root}{layers_word}.") or n in expected]
        if len(ours) != len(expected) or any(shapes.get(n) != s for n, s in expected.items()):
            continue
        if bare:
            notes.append("no head beside the backbone: the base model class (no head), read "
                         "with tie_word_embeddings true, which it does not store")
        elif config.tie_word_embeddings:
            notes.append("no separate head tensor: the embeddings are tied to it "
                         "(tie_word_embeddings)")
        found.append(RecognisedModel(outer, family, config, tuple(expected), tuple(notes),
                                     bare))
    return found
