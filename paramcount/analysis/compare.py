"""Several configurations side by side: tensors aligned by layer, direction and part, and why
the totals differ, factor by factor. Pure.

Tensors are aligned by what they do, whatever the framework calls them: the input weight
(torch ``weight_ih``, Keras ``kernel``, ONNX ``W``, Flax ``ii/kernel``...), the recurrent weight
(``weight_hh``, ``recurrent_kernel``, ``R``, ``hi/kernel``...), the biases, the projection
(``weight_hr``) and ONNX's peepholes (``P``). ONNX stacks both directions in one tensor, so when
a bidirectional ONNX layer is compared, every configuration's rows hold both directions.
TF1's ``LSTMCell`` fuses its input and recurrent weights into one kernel: it cannot be aligned
(see COMPARABLE).

>>> from paramcount.engine.report import build_report
>>> from paramcount.engine.spec import Cell, LayerSpec
>>> a = build_report(LayerSpec(Cell.LSTM, 28, 256, framework="keras"))
>>> b = build_report(LayerSpec(Cell.LSTM, 28, 128, bidirectional=True, framework="keras"))
>>> [(p.part, p.before, p.after) for p in difference(a, b).parts]
[('input weights', 28672, 28672), ('recurrent weights', 262144, 131072), ('biases', 1024, 1024)]
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from paramcount.engine import conventions
from paramcount.engine.conventions import Direction, Tensor
from paramcount.engine.report import Report
from paramcount.engine.spec import Cell, Framework, LayerSpec

PARTS = ("input weights", "recurrent weights", "biases", "projection", "peepholes")
COMPARABLE = tuple(f for f in Framework if f is not Framework.TF1)
"""Frameworks whose tensors split into PARTS (TF1's LSTMCell kernel is input and recurrent)."""
_PART = {
    "weight_ih": "input weights",
    "kernel": "input weights",
    "W": "input weights",
    "weight_hh": "recurrent weights",
    "recurrent_kernel": "recurrent weights",
    "R": "recurrent weights",
    "bias_ih": "biases",
    "bias_hh": "biases",
    "bias": "biases",
    "B": "biases",
    "weight_hr": "projection",
    "P": "peepholes",
}


def part(tensor: Tensor) -> str:
    """Which of PARTS a tensor is (Flax: ``ii/kernel`` input, ``hi/kernel`` recurrent)."""
    if tensor.role in _PART:
        return _PART[tensor.role]
    module, _, kind = tensor.role.rpartition("/")
    if kind == "bias":
        return "biases"
    if kind == "kernel" and module:
        return "input weights" if module.startswith(("i", "dense_i")) else "recurrent weights"
    raise ValueError(f"{tensor.name}: no part for the role {tensor.role!r}")


@dataclass(frozen=True)
class Row:
    """The tensors of one layer, direction and part, one entry per configuration."""

    layer: int
    direction: Direction
    part: str
    entries: tuple[tuple[Tensor, ...], ...]

    @property
    def counts(self) -> tuple[int, ...]:
        """Each configuration's parameters in this row."""
        return tuple(sum(t.count for t in entry) for entry in self.entries)


def _direction(report: Report, tensor: Tensor, stacked: bool) -> Direction:
    """The row a tensor belongs to: BOTH when directions are stacked (ONNX) anywhere."""
    if stacked:
        return Direction.BOTH
    if tensor.direction is Direction.BOTH:  # a unidirectional ONNX layer: (1, ...) tensors
        return Direction.FORWARD
    return tensor.direction


def align(reports: list[Report]) -> list[Row]:
    """Every layer × direction × part that any configuration has, in flow order."""
    stacked = any(t.direction is Direction.BOTH and r.spec.directions == 2
                  for r in reports for t in r.tensors)
    # Each report's tensors grouped by row once: time linear in the tensors, at any depth.
    grouped: list[dict[tuple[int, Direction, str], list[Tensor]]] = []
    for r in reports:
        groups: dict[tuple[int, Direction, str], list[Tensor]] = {}
        for t in r.tensors:
            groups.setdefault((t.layer, _direction(r, t, stacked), part(t)), []).append(t)
        grouped.append(groups)
    rows = []
    layers = max(r.spec.num_layers for r in reports)
    for layer in range(layers):
        for direction in Direction:
            for name in PARTS:
                entries = tuple(tuple(g.get((layer, direction, name), ())) for g in grouped)
                if any(entries):
                    rows.append(Row(layer, direction, name, entries))
    return rows


def part_totals(report: Report) -> dict[str, int]:
    """The report's parameters per part."""
    totals = dict.fromkeys(PARTS, 0)
    for t in report.tensors:
        totals[part(t)] += t.count
    return totals


def output_width(spec: LayerSpec) -> int:
    """How many values the stack outputs per time step."""
    if spec.merge_modes:
        return spec.merge_modes[-1].width_factor * spec.hidden_size
    return spec.directions * spec.output_size


def bias_vectors(spec: LayerSpec) -> Fraction:
    """H-wide bias vectors per gate block, direction and layer: torch and ONNX 2, Keras 1 (GRU
    reset_after 2), Flax GRU 4/3 (ir, iz, in and hn carry biases, hr and hz do not)."""
    biases = sum(t.count for t in conventions.tensors(spec)
                 if t.layer == 0 and part(t) == "biases")
    return Fraction(biases, spec.directions * spec.gate_rows)


@dataclass(frozen=True)
class PartChange:
    """One part's count in two configurations, and the factors that turn one into the other."""

    part: str
    before: int
    after: int
    factors: tuple[str, ...]

    @property
    def difference(self) -> int:
        """after − before."""
        return self.after - self.before


@dataclass(frozen=True)
class Difference:
    """How configuration ``after`` differs from ``before``, part by part."""

    before: Report
    after: Report
    parts: tuple[PartChange, ...]
    notes: tuple[str, ...]

    @property
    def total(self) -> int:
        """after − before, in parameters."""
        return self.after.total - self.before.total


def _fraction(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(value)


_WORDS = {Fraction(2): "doubles", Fraction(1, 2): "halves", Fraction(4): "quadruples",
          Fraction(1, 4): "quarters", Fraction(3): "triples", Fraction(1, 3): "thirds"}


def _factor(subject: str, a: int, b: int, power: int = 1, noun: str = "it") -> str | None:
    """``halving H quarters it (×1/4)``, or None when a == b."""
    if a == b:
        return None
    ratio = Fraction(b, a) ** power
    verb = _WORDS.get(ratio, "scales")
    change = {Fraction(1, 2): f"halving {subject}", Fraction(2): f"doubling {subject}"}.get(
        Fraction(b, a), f"{subject} {a:,} → {b:,}"
    )
    return f"{change} {verb} {noun} (×{_fraction(ratio)})"


def _directions(a: LayerSpec, b: LayerSpec) -> str | None:
    if a.directions == b.directions:
        return None
    return ("two directions double it (×2)" if b.directions == 2
            else "one direction instead of two halves it (×1/2)")


def _layers(a: LayerSpec, b: LayerSpec) -> str | None:
    if a.num_layers == b.num_layers:
        return None
    ratio = _fraction(Fraction(b.num_layers, a.num_layers))
    return f"{b.num_layers} layers instead of {a.num_layers} (×{ratio})"


def _gates(a: LayerSpec, b: LayerSpec) -> str | None:
    if a.cell.gates == b.cell.gates:
        return None
    return (f"{b.cell.value.upper()} has {b.cell.gates} gate blocks, {a.cell.value.upper()} "
            f"{a.cell.gates} (×{_fraction(Fraction(b.cell.gates, a.cell.gates))})")


_GATE_ROWS_FIRST = (Framework.TORCH, Framework.ONNX)
"""Frameworks whose weights are (gate rows, inputs); the others store (inputs, gate columns)."""
_FLAX = (Framework.FLAX_LINEN, Framework.FLAX_NNX)


def _recurrent_shape(spec: LayerSpec) -> str:
    g, h, hr = spec.cell.gates, spec.hidden_size, spec.output_size
    if spec.framework in _FLAX:
        return f"{g} × H × H ({g} × {h:,} × {h:,})"
    if spec.framework not in _GATE_ROWS_FIRST:
        return f"H × {g}H ({h:,} × {spec.gate_rows:,})"
    return f"{g}H × {'P' if spec.proj_size else 'H'} ({spec.gate_rows:,} × {hr:,})"


def _bias_words(spec: LayerSpec) -> str:
    framework = spec.framework
    if framework is Framework.TORCH:
        return "PyTorch keeps bias_ih and bias_hh"
    if framework is Framework.ONNX:
        return "ONNX keeps Wb and Rb in B"
    if framework is Framework.TF1_CUDNN:
        return "CuDNN keeps input and recurrent biases"
    if framework in _FLAX:
        return f"{framework.display_name} biases only some of its Dense layers"
    if spec.cell is Cell.GRU and spec.reset_after:
        return "Keras GRU with reset_after keeps two bias rows"
    return "Keras keeps one bias"


def _change(name: str, a: Report, b: Report, before: int, after: int) -> PartChange:
    sa, sb = a.spec, b.spec
    factors: list[str | None] = []
    if before and after:
        if name == "recurrent weights":
            if _recurrent_shape(sa) != _recurrent_shape(sb):
                factors.append(f"each direction's recurrent weight is {_recurrent_shape(sa)} "
                               f"→ {_recurrent_shape(sb)}")
            if not sa.proj_size and not sb.proj_size:
                factors.append(_factor("H", sa.hidden_size, sb.hidden_size, power=2))
            else:
                factors.append(_factor("G·H·Hr", sa.gate_rows * sa.output_size,
                                       sb.gate_rows * sb.output_size))
            factors += [_gates(sa, sb), _directions(sa, sb), _layers(sa, sb)]
        elif name == "biases":
            factors.append(_factor("H", sa.hidden_size, sb.hidden_size))
            na, nb = bias_vectors(sa), bias_vectors(sb)
            if na != nb:
                factors.append(
                    f"{_fraction(nb)} bias vector{'s' if nb > 1 else ''} per gate block "
                    f"instead of {_fraction(na)}: {_bias_words(sb)}, {_bias_words(sa)} "
                    f"(×{_fraction(nb / na)})"
                )
            factors += [_gates(sa, sb), _directions(sa, sb), _layers(sa, sb)]
        elif name == "input weights":
            if sa.num_layers == sb.num_layers == 1:
                factors += [
                    _factor("H", sa.hidden_size, sb.hidden_size),
                    _factor("I", sa.input_size, sb.input_size),
                    _gates(sa, sb),
                    _directions(sa, sb),
                ]
            else:
                wa = ", ".join(f"{w:,}" for w in _widths(a))
                wb = ", ".join(f"{w:,}" for w in _widths(b))
                factors.append(f"the layers read inputs {wa} wide → {wb} wide, with "
                               f"{sa.gate_rows:,} → {sb.gate_rows:,} gate rows")
                factors += [_directions(sa, sb)]
        elif name == "projection":
            factors.append(f"weight_hr (P, H): {sa.proj_size}×{sa.hidden_size} → "
                           f"{sb.proj_size}×{sb.hidden_size}")
        elif name == "peepholes":
            factors.append(_factor("H", sa.hidden_size, sb.hidden_size))
            factors += [_directions(sa, sb), _layers(sa, sb)]
    elif before != after:
        factors.append("only in " + ("the second" if after else "the first"))
    return PartChange(name, before, after, tuple(f for f in factors if f))


def _widths(report: Report) -> list[int]:
    return [row.input_width for row in report.layers]


def difference(before: Report, after: Report) -> Difference:
    """Why ``after`` has a different count than ``before``, part by part, with the factors."""
    ta, tb = part_totals(before), part_totals(after)
    parts = tuple(
        _change(name, before, after, ta[name], tb[name])
        for name in PARTS if ta[name] or tb[name]
    )
    notes = []
    wa, wb = output_width(before.spec), output_width(after.spec)
    if wa == wb:
        notes.append(f"Both output {wa:,} values per step.")
    else:
        notes.append(f"Output per step: {wa:,} → {wb:,} values.")
    if before.total and after.total != before.total:
        ratio = Fraction(after.total, before.total)
        notes.append(f"In all: {before.total:,} → {after.total:,}, ×{float(ratio):.3f}.")
    return Difference(before, after, parts, tuple(notes))
