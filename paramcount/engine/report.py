"""Tensors -> Report: subtotals, the naive-versus-actual explanation, the depth table, bytes.

Everything here is derived from the tensor lists the conventions produce; nothing is printed.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from paramcount.engine import conventions
from paramcount.engine.conventions import Direction, Formula, Tensor
from paramcount.engine.spec import MAX_LAYERS, DType, LayerSpec, MergeMode
from paramcount.record import record

if TYPE_CHECKING:
    from collections.abc import Sequence


@record
class LayerTotal:
    """One layer's parameters, per direction."""

    layer: int
    input_width: int
    by_direction: tuple[int, ...]
    """Forward, then backward when bidirectional."""

    @property
    def total(self) -> int:
        """Both directions together."""
        return sum(self.by_direction)


@record
class GrowthRow:
    """One layer's share of the gap between the naive guess and the real total.

    The only tensors that differ from the naive guess are the input weights, so the share is
    directions × gate rows × the extra input columns this layer reads.
    """

    layer: int
    directions: int
    gate_rows: int
    input_width: int
    naive_width: int

    @property
    def extra_columns(self) -> int:
        """How much wider (or narrower, if negative) the real input is than the naive one."""
        return self.input_width - self.naive_width

    @property
    def extra(self) -> int:
        """The parameters this layer adds beyond the naive guess."""
        return self.directions * self.gate_rows * self.extra_columns


@record
class Growth:
    """Why the total is not the naive multiple: the guess, the truth, and who adds the gap."""

    kind: str
    """``bidirectional`` (naive: 2 × the unidirectional stack) or ``stacked`` (L × layer 0)."""
    multiplier: int
    baseline: int
    """What the naive guess multiplies: the unidirectional stack, or the first layer."""
    actual: int
    rows: tuple[GrowthRow, ...]

    @property
    def naive(self) -> int:
        """The naive guess: multiplier × baseline."""
        return self.multiplier * self.baseline

    @property
    def difference(self) -> int:
        """actual − naive; equal to the sum of the rows' extras."""
        return self.actual - self.naive


@record
class DepthRow:
    """Unidirectional and bidirectional totals of the same stack at one depth."""

    layers: int
    unidirectional: int
    bidirectional: int

    @property
    def ratio(self) -> float:
        """bidirectional / unidirectional, correctly rounded."""
        return self.bidirectional / self.unidirectional


@record
class Report:
    """Everything paramcount knows about one layer spec's parameters."""

    spec: LayerSpec
    tensors: tuple[Tensor, ...]
    formula: Formula
    description: str
    dtype: DType
    layers: tuple[LayerTotal, ...]
    growth: Growth | None
    depth: tuple[DepthRow, ...]
    depth_limit: float | None
    """The bidirectional/unidirectional ratio that deeper and deeper stacks approach."""

    @cached_property
    def total(self) -> int:
        """The number of parameters (summed once: renderers ask for it often)."""
        return sum(t.count for t in self.tensors)

    @property
    def bytes(self) -> int:
        """The parameters' size in ``dtype``."""
        return self.total * self.dtype.bytes


def layer_totals(spec: LayerSpec, tensors: Sequence[Tensor]) -> tuple[LayerTotal, ...]:
    """Per-layer, per-direction subtotals of ``spec``'s ``tensors``, in one pass."""
    return subtotals(tensors, spec.directions, conventions.input_widths(spec))


def subtotals(tensors: Sequence[Tensor], directions: int, widths: Sequence[int]
              ) -> tuple[LayerTotal, ...]:
    """Per-layer, per-direction subtotals of ``tensors`` of a stack of ``directions`` whose
    layers read ``widths``, in one pass (any stack: recurrent or ConvLSTM).

    A tensor that holds both directions (ONNX's [D, ...] layout) counts half to each.
    """
    sums: dict[tuple[int, Direction], int] = {}
    for t in tensors:
        sums[t.layer, t.direction] = sums.get((t.layer, t.direction), 0) + t.count
    return tuple(
        LayerTotal(layer, width, tuple(
            sums.get((layer, Direction.BOTH), 0) // directions + sums.get((layer, d), 0)
            for d in list(Direction)[:directions]
        ))
        for layer, width in enumerate(widths)
    )


def unidirectional(spec: LayerSpec) -> LayerSpec:
    """The same stack with one direction."""
    return spec.replace(bidirectional=False, merge_modes=None)


def growth(spec: LayerSpec) -> Growth | None:
    """The naive-versus-actual analysis, for bidirectional or stacked specs; None otherwise."""
    if spec.single_cell or (spec.directions == 1 and spec.num_layers == 1):
        return None
    widths = conventions.input_widths(spec)
    if spec.bidirectional:
        uni = unidirectional(spec)
        naive_widths = conventions.input_widths(uni)
        return Growth(
            "bidirectional",
            2,
            conventions.total(uni),
            conventions.total(spec),
            tuple(
                GrowthRow(layer, 2, spec.gate_rows, widths[layer], naive_widths[layer])
                for layer in range(1, spec.num_layers)
            ),
        )
    first = spec.replace(num_layers=1)
    return Growth(
        "stacked",
        spec.num_layers,
        conventions.total(first),
        conventions.total(spec),
        tuple(
            GrowthRow(layer, 1, spec.gate_rows, widths[layer], spec.input_size)
            for layer in range(1, spec.num_layers)
        ),
    )


def growth_because(spec: LayerSpec, growth: Growth) -> str:
    """Why ``spec``'s total is not ``growth``'s naive guess, as a clause: ``every layer after
    the first reads both directions' outputs, 2·128 = 256 inputs, not 128``."""
    hr = spec.output_size
    if growth.kind == "stacked":
        return (f"every layer after the first reads the previous layer's {hr:,} outputs, "
                f"not the {spec.input_size:,} inputs")
    if all(row.extra_columns for row in growth.rows):
        return f"every layer after the first reads both directions' outputs, 2·{hr:,} = " \
               f"{2 * hr:,} inputs, not {hr:,}"
    return f"a layer after a concat merge reads 2·{hr:,} = {2 * hr:,} inputs, not {hr:,}"


def _bidirectional_at(spec: LayerSpec, layers: int) -> LayerSpec:
    """``spec`` bidirectional at another depth, merged as the user's own layers are.

    Up to the spec's own depth the user's merge modes are kept, so the table's row at that depth
    is the spec itself; deeper layers repeat the last merge mode between layers.
    """
    if spec.merge_modes is None:
        return spec.replace(num_layers=layers, bidirectional=True)
    between = list(spec.merge_modes[:-1]) or [
        MergeMode.CONCAT if spec.merge_modes[0] is MergeMode.NONE else spec.merge_modes[0]
    ]
    inner = [between[min(k, len(between) - 1)] for k in range(layers - 1)]
    modes = (*inner, spec.merge_modes[-1])
    return spec.replace(num_layers=layers, bidirectional=True, merge_modes=modes)


def _prefix_totals(spec: LayerSpec) -> list[int]:
    """The totals of ``spec``'s first 1, 2, … layers, from one build of the whole stack.

    A layer's parameters depend only on what it reads, never on how many layers follow, so the
    stack of depth d is the first d layers of the deepest one.
    """
    totals, running = [], 0
    for row in layer_totals(spec, conventions.tensors(spec)):
        running += row.total
        totals.append(running)
    return totals


def depth_table(spec: LayerSpec, up_to: int) -> tuple[DepthRow, ...]:
    """Unidirectional and bidirectional totals of ``spec`` at 1..up_to layers."""
    uni = _prefix_totals(unidirectional(spec).replace(num_layers=up_to))
    bi = _prefix_totals(_bidirectional_at(spec, up_to))
    return tuple(DepthRow(d + 1, uni[d], bi[d]) for d in range(up_to))


def depth_limit(spec: LayerSpec) -> float:
    """The bidirectional/unidirectional ratio of one more layer beyond the spec's own depth.

    Deeper layers all read the same width, so this is the ratio a deep stack tends to.
    """
    rows = depth_table(spec, min(spec.num_layers, MAX_LAYERS - 2) + 2)
    return _ratio(rows[-2], rows[-1])


def _ratio(lower: DepthRow, upper: DepthRow) -> float:
    """What the layer between two depths adds, bidirectional ÷ unidirectional."""
    return (upper.bidirectional - lower.bidirectional) / (
        upper.unidirectional - lower.unidirectional)


DEPTH_ROWS = 12
"""The depth table shows 1…max(L, 4) layers, at most this many rows (then the spec's own L)."""


def _depth(spec: LayerSpec) -> tuple[tuple[DepthRow, ...], float]:
    """The depth table the report shows and :func:`depth_limit`, from one table of the stack
    two layers deeper (its rows are prefixes of one another: one build, not four)."""
    beyond = min(spec.num_layers, MAX_LAYERS - 2) + 2
    shown = min(max(spec.num_layers, 4), DEPTH_ROWS)
    rows = depth_table(spec, max(beyond, shown))
    table = rows[:shown] + (rows[spec.num_layers - 1:spec.num_layers]
                            if spec.num_layers > DEPTH_ROWS else ())
    return table, _ratio(rows[beyond - 2], rows[beyond - 1])


def build_report(spec: LayerSpec, dtype: DType = DType.FP32) -> Report:
    """Compute the full report of ``spec``."""
    tensors = conventions.tensors(spec)
    show_depth = spec.bidirectional and not spec.single_cell
    depth, limit = _depth(spec) if show_depth else ((), None)
    return Report(
        spec=spec,
        tensors=tuple(tensors),
        formula=conventions.formula(spec),
        description=conventions.describe(spec),
        dtype=dtype,
        layers=layer_totals(spec, tensors),
        growth=growth(spec),
        depth=depth,
        depth_limit=limit,
    )
