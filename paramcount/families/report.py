"""A family model's config → its report: tensors, parts (embeddings, blocks, norm, head), formula.

What the family commands, ``explain`` and ``inspect`` show of a Mamba, Mamba-2 or RWKV model,
computed from its convention alone (no framework).
"""

from __future__ import annotations

from typing import Any

from paramcount.engine.conventions.base import Formula, Tensor
from paramcount.engine.spec import DType
from paramcount.record import fields, record, replace


@record
class Part:
    """A group of tensors: the embeddings, blocks ``first``…``last`` (all alike), a norm, the
    head."""

    label: str
    first: int
    last: int
    each: int
    """The parameters of one block (of the whole part when it is not blocks)."""
    tensors: int
    """How many tensors one block (or the part) holds."""

    @property
    def total(self) -> int:
        """All the part's parameters."""
        return (self.last - self.first + 1) * self.each


@record
class FamilyReport:
    """Everything paramcount knows about one family model's parameters."""

    family: str
    title: str
    reference: str
    config: Any
    tensors: tuple[Tensor, ...]
    formula: Formula
    dtype: DType
    parts: tuple[Part, ...]
    total: int
    """The number of parameters (tied weights once): the sum of the tensors."""
    shares: tuple[tuple[str, int], ...] = ()
    """A hybrid's parameters by kind of part (recurrent, attention, mlp, experts, embeddings,
    norms); empty for the families made of one kind of block."""
    active: int | None = None
    """With a mixture of experts, the parameters one token uses (the experts it is not routed
    to left out); None without experts."""
    notes: tuple[str, ...] = ()
    """What the ``config.json`` it was read from left unread, and how it was read."""
    base: bool = False
    """The base model class (``MambaModel``): no head, names without the backbone's prefix."""

    @property
    def bytes(self) -> int:
        """The parameters' size in ``dtype``."""
        return self.total * self.dtype.bytes

    @property
    def settings(self) -> dict[str, object]:
        """The config's fields and values, in order."""
        return {name: getattr(self.config, name) for name in fields(self.config)}


def parts(tensors: list[Tensor]) -> tuple[Part, ...]:
    """The tensors grouped, in order: each tensor outside the blocks (layer −1: embeddings,
    final norm, head) a part of its own, and each run of blocks whose tensors have the same
    names and shapes one part."""
    out: list[Part] = []
    by_layer: dict[int, list[Tensor]] = {}
    for t in tensors:
        by_layer.setdefault(t.layer, []).append(t)
    run: list[int] = []
    seen: set[int] = set()
    for t in tensors:
        if t.layer < 0:
            if run:
                out.append(_blocks(run, by_layer))
                run = []
            out.append(Part(t.role, -1, -1, t.count, 1))
        elif t.layer not in seen:
            seen.add(t.layer)
            if run and _layout(by_layer, t.layer) != _layout(by_layer, run[0]):
                out.append(_blocks(run, by_layer))
                run = []
            run.append(t.layer)
    if run:
        out.append(_blocks(run, by_layer))
    return tuple(out)


def _layout(by_layer: dict[int, list[Tensor]], layer: int) -> list[tuple[str, tuple[int, ...]]]:
    """A block's tensors' names (without the block's own index) and shapes."""
    return [(t.name.replace(f".{layer}.", ".#.", 1), t.shape) for t in by_layer[layer]]


def _blocks(run: list[int], by_layer: dict[int, list[Tensor]]) -> Part:
    first = by_layer[run[0]]
    label = f"block {run[0]}" if len(run) == 1 else f"blocks {run[0]}–{run[-1]}"
    return Part(label, run[0], run[-1], sum(t.count for t in first), len(first))


def kinds(name: str, config: Any, total: int) -> tuple[tuple[tuple[str, int], ...], int | None]:
    """A hybrid's parameters by kind of part, and those one token uses where it has experts
    (None without), for its model of ``total`` parameters (the base class's: no head); for
    the other families, nothing and None."""
    from paramcount.families.registry import family

    stack = getattr(family(name), "stack", None)
    if stack is None:
        return (), None
    built = stack(config)  # the kind of part each tensor belongs to
    head = built.total - total  # the base class has no head
    shares = tuple((kind, n - head if kind == "embeddings" else n) for kind, n in built.shares)
    return shares, built.active - head if built.idle else None


def build_family_report(name: str, config: Any, dtype: DType = DType.FP32,
                        notes: tuple[str, ...] = (), base: bool = False) -> FamilyReport:
    """The report of family ``name``'s model built from ``config`` (its base model class,
    without the head, with ``base``)."""
    from paramcount.families.registry import family, tensors

    module = family(name)
    made = tensors(name, config, base)
    total = sum(t.count for t in made)
    shares, active = kinds(name, config, total)
    title = getattr(module, "title", lambda _: module.TITLE)(config)
    reference = getattr(module, "reference", lambda _: module.REFERENCE)(config)
    formula = module.formula(config)
    if base:
        reference = reference.replace("ForCausalLM", "Model").replace(
            "ForConditionalGeneration", "Model")
        if formula.total != total and getattr(config, "tie_word_embeddings", True) is False:
            tied = module.formula(replace(config, tie_word_embeddings=True))
            formula = tied if tied.total == total else formula
        head = formula.total - total
        if head:
            formula = Formula(formula.symbolic + " − V·D (the base model class: no head)",
                              formula.symbols, (*formula.terms, (f"−{head} (no head)", -head)))
    return FamilyReport(name, title, reference, config, tuple(made), formula,
                        dtype, parts(made), total, shares, active, notes, base)
