"""The work of one forward pass: multiply-accumulates and FLOPs per layer and direction.

Pure: the counts follow from the spec and the framework's documented cell equations. What is
counted, per sample, per time step, for one direction of one layer (formulas.md derives it):

- matmul MACs: the input product G·H·in_l, the recurrent product G·H·Hr and the LSTM
  projection P·H (torch proj_size); FLOPs of a matmul are 2·MACs, as
  ``torch.utils.flop_counter`` counts them;
- bias adds: one per bias element (torch: bias_ih and bias_hh, 2·G·H; Keras: G·H, or 2·G·H for
  GRU with reset_after=True);
- elementwise operations: the adds that join the input and recurrent products, the gate
  products, and GRU's 1 − z, each 1 FLOP;
- nonlinearities: every sigmoid, tanh or relu evaluation, 1 FLOP each.

Keras Bidirectional merges (sum, ave, mul) add their elementwise work once per layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paramcount.engine import conventions
from paramcount.engine.conventions import Direction, Tensor
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, positive
from paramcount.errors import SpecError

# FLOPs per merged element of a Keras Bidirectional merge: sum f + b, ave (f + b) / 2, mul f·b.
_MERGE_OPS = {
    MergeMode.CONCAT: 0,
    MergeMode.NONE: 0,
    MergeMode.SUM: 1,
    MergeMode.MUL: 1,
    MergeMode.AVE: 2,
}


@dataclass(frozen=True)
class StepCost:
    """One direction of one layer, one sample, one time step."""

    input_macs: int
    """G·H·in_l: the input product."""
    recurrent_macs: int
    """G·H·Hr: the recurrent product."""
    projection_macs: int
    """P·H: torch LSTM's weight_hr; 0 otherwise."""
    bias_adds: int
    elementwise: int
    """Adds joining the products, gate products and GRU's 1 − z."""
    activations: int
    """Sigmoid, tanh or relu evaluations."""

    @property
    def macs(self) -> int:
        """All matmul multiply-accumulates."""
        return self.input_macs + self.recurrent_macs + self.projection_macs

    @property
    def matmul_flops(self) -> int:
        """2 · MACs: what a FLOP counter of matrix products reports."""
        return 2 * self.macs

    @property
    def flops(self) -> int:
        """Every floating-point operation: 2·MACs + bias adds + elementwise + nonlinearities."""
        return self.matmul_flops + self.bias_adds + self.elementwise + self.activations


@dataclass(frozen=True)
class DirectionCompute:
    """One direction of one layer over the whole batch."""

    layer: int
    direction: Direction
    input_width: int
    step: StepCost
    steps: int
    """Sample-steps computed: N·T, or the sum of the lengths of a packed batch."""

    @property
    def macs(self) -> int:
        """Matmul multiply-accumulates of this direction."""
        return self.step.macs * self.steps

    @property
    def matmul_flops(self) -> int:
        """2 · MACs."""
        return self.step.matmul_flops * self.steps

    @property
    def flops(self) -> int:
        """Every floating-point operation of this direction."""
        return self.step.flops * self.steps


@dataclass(frozen=True)
class MergeCompute:
    """A Keras Bidirectional layer's merge of its two directions (sum, ave or mul)."""

    layer: int
    mode: MergeMode
    elements: int
    """Merged values: H per output step, N·T of them, or N for the last layer (last step only)."""

    @property
    def flops(self) -> int:
        """1 FLOP per element for sum and mul, 2 for ave, 0 for concat."""
        return _MERGE_OPS[self.mode] * self.elements


@dataclass(frozen=True)
class Compute:
    """The work of one forward pass of a layer stack over a batch."""

    spec: LayerSpec
    seq_len: int
    batch: int
    lengths: tuple[int, ...] | None
    """The real length of each sequence; None for a full N × T batch."""

    @property
    def packed(self) -> bool:
        """Whether only the real steps are computed: torch packed sequences. Keras masks the
        padded steps but still computes them, so a Keras batch with lengths costs N·T."""
        return self.lengths is not None and self.spec.framework is Framework.TORCH
    rows: tuple[DirectionCompute, ...]
    merges: tuple[MergeCompute, ...]

    @property
    def steps(self) -> int:
        """Sample-steps each direction computes: N·T, or Σ lengths when packed."""
        return sum(self.lengths) if self.packed and self.lengths else self.batch * self.seq_len

    @property
    def macs(self) -> int:
        """Matmul multiply-accumulates of the whole pass."""
        return sum(r.macs for r in self.rows)

    @property
    def matmul_flops(self) -> int:
        """2 · MACs."""
        return 2 * self.macs

    @property
    def merge_flops(self) -> int:
        """FLOPs of the Bidirectional merges (Keras sum, ave, mul)."""
        return sum(m.flops for m in self.merges)

    @property
    def flops(self) -> int:
        """Every floating-point operation of the pass."""
        return sum(r.flops for r in self.rows) + self.merge_flops


def is_bias(tensor: Tensor) -> bool:
    """Whether a tensor is added to a gate pre-activation: torch bias_*, Keras bias, ONNX B."""
    return "bias" in tensor.role or tensor.role == "B"


def bias_elements(spec: LayerSpec) -> int:
    """The bias values one direction of one layer adds per step, read off the convention."""
    one = spec if spec.single_cell else spec.replace(
        num_layers=1, bidirectional=False, merge_modes=None
    )
    return sum(t.count for t in conventions.tensors(one) if is_bias(t))


def step_cost(spec: LayerSpec, input_width: int) -> StepCost:
    """What one direction of a layer reading ``input_width`` values does in one step.

    >>> from paramcount.engine.spec import Cell, LayerSpec
    >>> c = step_cost(LayerSpec(Cell.LSTM, 32, 128), 32)
    >>> c.macs, c.bias_adds, c.elementwise, c.activations, c.flops
    (81920, 1024, 1024, 640, 166528)
    """
    g, h, hr, p = spec.cell.gates, spec.hidden_size, spec.output_size, spec.proj_size
    gh = g * h
    if spec.cell is Cell.LSTM:
        # i, f, g, o from x·W + h·U (G·H adds); c' = f⊙c + i⊙g (3H); h' = o⊙tanh(c') (H);
        # peepholes: p_i⊙c, p_f⊙c, p_o⊙c' and their adds (6H).
        elementwise, activations = gh + 3 * h + h + (6 * h if spec.peepholes else 0), 4 * h + h
    elif spec.cell is Cell.GRU:
        # r, z: x-part + h-part (2H); n = tanh(x_n + r⊙h_n) (2H); h' = (1 − z)⊙n + z⊙h (4H).
        elementwise, activations = 8 * h, 3 * h
    else:
        elementwise, activations = h, h
    return StepCost(
        input_macs=gh * input_width,
        recurrent_macs=gh * hr,
        projection_macs=p * h,
        bias_adds=bias_elements(spec),
        elementwise=elementwise,
        activations=activations,
    )


def _check_lengths(
    spec: LayerSpec, seq_len: int | None, batch: int | None, lengths: Sequence[int]
) -> tuple[int, ...]:
    text = ",".join(str(n) for n in lengths)
    if not lengths:
        raise SpecError("{lengths} is empty: give one length per sequence", lengths=text)
    for n in lengths:
        if isinstance(n, bool) or not isinstance(n, int):
            raise SpecError("{lengths} must list whole numbers", lengths=text)
        if n <= 0:
            raise SpecError(
                f"{{lengths}} has {n}: every length must be positive (torch "
                "pack_padded_sequence refuses empty sequences)",
                lengths=text,
            )
    if spec.single_cell:
        raise SpecError(
            "{lengths} applies to a layer over packed sequences, not to a single-step cell "
            "({single_cell})",
            lengths=text,
            single_cell=True,
        )
    if batch is not None and batch != len(lengths):
        raise SpecError(
            f"{{lengths}} lists {len(lengths)} lengths but {{batch}} (one per sequence)",
            lengths=text,
            batch=batch,
        )
    if seq_len is not None and max(lengths) > seq_len:
        raise SpecError(
            f"{{lengths}} has {max(lengths)}, longer than {{seq_len}}",
            lengths=text,
            seq_len=seq_len,
        )
    return tuple(lengths)


def forward(
    spec: LayerSpec,
    seq_len: int | None = None,
    batch: int | None = None,
    lengths: Sequence[int] | None = None,
) -> Compute:
    """The MACs and FLOPs of one forward pass of ``spec`` over N sequences of T steps.

    With ``lengths`` N defaults to their number and T to the longest. In torch (a packed batch)
    each direction computes only the real steps, Σ lengths sample-steps instead of N·T; Keras
    masks the padded steps but computes them all.

    >>> from paramcount.engine.spec import Cell, LayerSpec
    >>> forward(LayerSpec(Cell.LSTM, 32, 128), seq_len=10, batch=4).macs
    3276800
    >>> forward(LayerSpec(Cell.LSTM, 32, 128), lengths=[7, 3, 1]).macs
    901120
    """
    if lengths is not None:
        checked = _check_lengths(spec, seq_len, batch, lengths)
        batch = len(checked) if batch is None else batch
        seq_len = max(checked) if seq_len is None else seq_len
    else:
        checked = None
        if seq_len is None:
            raise SpecError("counting compute needs a sequence length (seq_len or lengths)")
        batch = 1 if batch is None else batch
    positive("seq_len", seq_len)
    positive("batch", batch)
    packed = checked is not None and spec.framework is Framework.TORCH
    steps = sum(checked) if packed and checked else batch * seq_len
    rows = []
    merges = []
    widths = conventions.input_widths(spec)
    for layer, width in enumerate(widths):
        cost = step_cost(spec, width)
        for direction in list(Direction)[: spec.directions]:
            rows.append(DirectionCompute(layer, direction, width, cost, steps))
        if spec.merge_modes and spec.merge_modes[layer] is not MergeMode.CONCAT:
            last = layer == len(widths) - 1
            outputs = batch if last else steps
            merges.append(
                MergeCompute(layer, spec.merge_modes[layer], outputs * spec.hidden_size)
            )
    return Compute(spec, seq_len, batch, checked, tuple(rows), tuple(m for m in merges if m.flops))
