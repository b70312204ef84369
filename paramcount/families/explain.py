"""Why a family model has its count: what each knob adds, the LSTM and GRU of the same width,
and the bidirectional Mamba of Vision Mamba and Caduceus.

Every number comes from the family's own tensors (its convention), computed twice, before and
after the change, and compared tensor by tensor: no second set of formulas. Pure.
"""

from __future__ import annotations

import math

from paramcount.engine.conventions.base import Tensor
from paramcount.errors import SpecError
from paramcount.record import fields, record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record
class TensorChange:
    """One tensor of every block (``layers.#.mixer.x_proj.weight``) before and after."""

    pattern: str
    before: tuple[int, ...] | None
    after: tuple[int, ...] | None
    copies: int
    """How many blocks hold it (1 outside the blocks)."""

    @property
    def delta(self) -> int:
        """What the change adds over all copies."""
        after = 0 if self.after is None else math.prod(self.after)
        before = 0 if self.before is None else math.prod(self.before)
        return self.copies * (after - before)


@record
class KnobChange:
    """One option changed: the totals before and after and the tensors that grow or shrink."""

    field: str
    before: object
    after: object
    total_before: int
    total_after: int
    tensors: tuple[TensorChange, ...]
    refused: str = ""
    """Why the reference refuses this change on its own (then nothing else is set)."""

    @property
    def delta(self) -> int:
        """total_after − total_before."""
        return self.total_after - self.total_before


def _patterns(made: list[Tensor]) -> dict[str, tuple[tuple[int, ...], int]]:
    """Each tensor name with its block index replaced by ``#``: its shape and how many blocks
    hold it (the shapes of one pattern agree across blocks in every family)."""
    out: dict[str, tuple[tuple[int, ...], int]] = {}
    for t in made:
        name = t.name if t.layer < 0 else t.name.replace(f".{t.layer}.", ".#.", 1)
        shape, copies = out.get(name, (t.shape, 0))
        out[name] = (shape, copies + 1)
    return out


def knob_change(name: str, config: Any, field: str, value: object) -> KnobChange:
    """``field`` of ``config`` changed to ``value``: the totals and every tensor that changes."""
    from paramcount.families.registry import changed_to, options_of

    try:
        other = changed_to(config, **{field: value})
    except SpecError as error:
        return KnobChange(field, getattr(options_of(config), field), value, 0, 0, (),
                          str(error))
    return change_between(name, config, other, field)


def change_between(name: str, config: Any, other: Any, field: str = "") -> KnobChange:
    """From ``config`` to ``other`` of the same family: every tensor that changes. ``field``
    names the option changed; by default, every field that differs."""
    from paramcount.families.registry import family, options_of

    module = family(name)
    before, after = module.tensors(config), module.tensors(other)
    if options_of(config) is not config:  # the options a vision-language config's
        config, other = (replace(c.text, tie_word_embeddings=c.tie_word_embeddings)
                         for c in (config, other))
    differ = [f for f in fields(config) if getattr(config, f) != getattr(other, f)]
    field = field or ", ".join(differ)
    current = {f: getattr(config, f) for f in differ}
    wanted = {f: getattr(other, f) for f in differ}
    old, new = _patterns(before), _patterns(after)
    changes = []
    for pattern in dict.fromkeys([*old, *new]):
        was, now = old.get(pattern), new.get(pattern)
        if was != now:
            copies = max(was[1] if was else 0, now[1] if now else 0)
            if was and now and was[1] != now[1]:  # more or fewer blocks: count each side
                changes.append(TensorChange(pattern, was[0], None, was[1]))
                changes.append(TensorChange(pattern, None, now[0], now[1]))
                continue
            changes.append(TensorChange(pattern, was[0] if was else None,
                                        now[0] if now else None, copies))
    if len(differ) == 1:
        return KnobChange(field, current[differ[0]], wanted[differ[0]],
                          sum(t.count for t in before), sum(t.count for t in after),
                          tuple(changes))
    return KnobChange(field, current, wanted, sum(t.count for t in before),
                      sum(t.count for t in after), tuple(changes))


def knob_changes(name: str, config: Any) -> list[KnobChange]:
    """Each option changed on its own: a count doubled, a switch flipped."""
    from paramcount.families.registry import options_of

    out = []
    for field in fields(options_of(config)):
        value = getattr(options_of(config), field)
        if isinstance(value, bool):
            out.append(knob_change(name, config, field, not value))
        elif isinstance(value, int) and field != "version":
            out.append(knob_change(name, config, field, 2 * value))
    return out


@record
class SameWidth:
    """A family block beside one torch LSTM and GRU layer reading and writing the same width."""

    width: int
    blocks: int
    block: int
    """One block (the one after the first, where block 0 differs)."""
    blocks_total: int
    lstm: int
    gru: int


def same_width(config: Any, made: list[Tensor]) -> SameWidth:
    """The family's blocks against nn.LSTM(D, D) and nn.GRU(D, D) layers, one per block."""
    from paramcount.engine import conventions
    from paramcount.engine.spec import Cell, LayerSpec
    from paramcount.families.registry import options_of

    width = options_of(config).hidden_size
    per_block: dict[int, int] = {}
    for t in made:
        if t.layer >= 0:
            per_block[t.layer] = per_block.get(t.layer, 0) + t.count
    block = per_block[max(per_block)]
    return SameWidth(width, len(per_block), block, sum(per_block.values()),
                     conventions.total(LayerSpec(Cell.LSTM, width, width)),
                     conventions.total(LayerSpec(Cell.GRU, width, width)))


@record
class Bidirectional:
    """A bidirectional Mamba: a reverse mixer beside each forward one (Vision Mamba's v2,
    Caduceus' ``bidirectional=True``)."""

    unidirectional: int
    shared: int
    """Per block: the in_proj and out_proj that the reverse mixer shares (tied)."""
    reverse: int
    """Per block: what the reverse mixer adds when it shares them."""
    blocks: int

    @property
    def tied(self) -> int:
        """The model with tied projections (Vision Mamba v2, Caduceus' default weight tie)."""
        return self.unidirectional + self.blocks * self.reverse

    @property
    def untied(self) -> int:
        """The model with a whole second mixer per block."""
        return self.tied + self.blocks * self.shared

    @property
    def naive(self) -> int:
        """Twice the unidirectional model."""
        return 2 * self.unidirectional


SHARED = ("in_proj", "in_proj.bias", "out_proj", "out_proj.bias")
"""The mixer's projections that the reverse direction shares when tied."""


def bidirectional(made: list[Tensor]) -> Bidirectional:
    """The bidirectional variant of a Mamba model, from its block 0's mixer tensors."""
    mixer = [t for t in made if t.layer == 0 and ".mixer." in t.name]
    shared = sum(t.count for t in mixer if t.role in SHARED)
    reverse = sum(t.count for t in mixer if t.role not in SHARED)
    blocks = len({t.layer for t in made if t.layer >= 0})
    return Bidirectional(sum(t.count for t in made), shared, reverse, blocks)
