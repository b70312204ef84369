"""The computation flow of a recurrent stack: tensor shapes, h_n order, which slices are equal.

Pure: it states what PyTorch (or Keras) does with a batch of sequences, as claims that
``paramcount shapes --verify`` checks against the real framework.

>>> from paramcount.engine.spec import Cell, LayerSpec
>>> flow = torch_flow(LayerSpec(Cell.LSTM, 25, 50, num_layers=4, bidirectional=True), 3, 7)
>>> [(s.name, s.shape) for s in flow.shapes]
[('input', (7, 3, 25)), ('output', (7, 3, 100)), ('h_n', (8, 3, 50)), ('c_n', (8, 3, 50))]
>>> [s.text for s in flow.slices]
['output[-1, :, :50] == h_n[-2]', 'output[0, :, 50:] == h_n[-1]']
"""

from __future__ import annotations

from dataclasses import dataclass

from paramcount.engine.conventions import Direction
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode


@dataclass(frozen=True)
class Shape:
    """One tensor that goes in or comes out, with its shape and what its axes mean."""

    name: str
    shape: tuple[int, ...]
    axes: str
    """The axes in order, e.g. ``(T, N, D·Hr)``."""
    meaning: str


@dataclass(frozen=True)
class StateSlot:
    """One entry of the first axis of h_n / c_n (and of h_0 / c_0): its layer and direction."""

    index: int
    layer: int
    direction: Direction
    step: int
    """The time step at which this slot of h_0 is applied: 0 forward, T − 1 backward."""
    last_step: int
    """The time step whose output this slot of h_n holds: T − 1 forward, 0 backward."""


@dataclass(frozen=True)
class SliceClaim:
    """``output[<time>, <columns>] == <state>[index]``: a slice of the output equals a state."""

    time: int
    """The time step, 0 or T − 1 (printed as 0 or -1)."""
    start: int
    stop: int | None
    state: str
    """The state tensor: ``h_n``, or in Keras the name of a returned state."""
    index: int
    """Which entry of ``h_n`` (negative, as written); unused for Keras states."""
    text: str
    meaning: str


@dataclass(frozen=True)
class Flow:
    """Everything ``paramcount shapes`` states about one configuration and batch."""

    spec: LayerSpec
    batch: int
    seq_len: int
    batch_first: bool
    shapes: tuple[Shape, ...]
    slots: tuple[StateSlot, ...]
    slices: tuple[SliceClaim, ...]
    layer_inputs: tuple[str, ...]
    """What each layer reads, in words."""


def _output_at(time: str, columns: str, batch_first: bool) -> str:
    return f"output[:, {time}, {columns}]" if batch_first else f"output[{time}, :, {columns}]"


def torch_flow(spec: LayerSpec, batch: int, seq_len: int, batch_first: bool = False) -> Flow:
    """The shapes and flow of an ``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU`` forward pass."""
    if spec.framework is not Framework.TORCH:
        raise ValueError("torch_flow needs a PyTorch spec")
    d, n_layers, h, hr = spec.directions, spec.num_layers, spec.hidden_size, spec.output_size
    n, t = batch, seq_len
    seq_axes = ("N", "T") if batch_first else ("T", "N")
    seq_shape = (n, t) if batch_first else (t, n)
    hr_name = "P" if spec.proj_size else "H"
    shapes = [
        Shape("input", (*seq_shape, spec.input_size), f"({', '.join(seq_axes)}, I)",
              "the sequence batch" + (" (batch_first=True)" if batch_first else "")),
        Shape("output", (*seq_shape, d * hr), f"({', '.join(seq_axes)}, D·{hr_name})",
              "the last layer's output at every step"
              + (", forward then backward columns" if d == 2 else "")),
        Shape("h_n", (d * n_layers, n, hr), f"(D·L, N, {hr_name})",
              "every layer's final hidden state, per direction (never batch-first)"),
    ]
    if spec.cell is Cell.LSTM:
        shapes.append(Shape("c_n", (d * n_layers, n, h), "(D·L, N, H)",
                            "every layer's final cell state (H wide even with proj_size)"))
    slots = tuple(
        StateSlot(
            index=d * layer + k,
            layer=layer,
            direction=direction,
            step=0 if direction is Direction.FORWARD else t - 1,
            last_step=t - 1 if direction is Direction.FORWARD else 0,
        )
        for layer in range(n_layers)
        for k, direction in enumerate(list(Direction)[:d])
    )
    last = t - 1
    slices: tuple[SliceClaim, ...]
    if d == 1:
        slices = (SliceClaim(
            last, 0, None, "h_n", -1,
            f"{_output_at('-1', ':', batch_first)} == h_n[-1]",
            "the last step's output is the last layer's final state",
        ),)
    else:
        slices = (
            SliceClaim(
                last, 0, hr, "h_n", -2,
                f"{_output_at('-1', f':{hr}', batch_first)} == h_n[-2]",
                "forward columns at the last step: the last layer's forward final state",
            ),
            SliceClaim(
                0, hr, None, "h_n", -1,
                f"{_output_at('0', f'{hr}:', batch_first)} == h_n[-1]",
                "backward columns at step 0: the backward direction ends at t = 0",
            ),
        )
    inputs = [f"layer 0 reads the input, {spec.input_size:,} wide"]
    for layer in range(1, n_layers):
        if d == 2:
            inputs.append(
                f"layer {layer} (both directions) reads concat(forward, backward) output of "
                f"layer {layer - 1} at the same time step, {d * hr:,} wide"
            )
        else:
            inputs.append(f"layer {layer} reads layer {layer - 1}'s output, {hr:,} wide")
    return Flow(spec, batch, seq_len, batch_first, tuple(shapes), slots, slices, tuple(inputs))


def keras_flow(spec: LayerSpec, batch: int, seq_len: int) -> Flow:
    """Shapes of a Keras stack's last layer called with ``return_sequences`` and ``return_state``.

    Keras returns the states of one layer, as a list: ``[output, h, c]`` for LSTM, and
    ``[output, forward_h, forward_c, backward_h, backward_c]`` under Bidirectional.
    """
    if spec.framework is not Framework.KERAS:
        raise ValueError("keras_flow needs a Keras spec")
    h, n, t = spec.hidden_size, batch, seq_len
    modes = spec.merge_modes or ()
    last_mode = modes[-1] if modes else None
    width = 2 * h if last_mode is MergeMode.CONCAT else h
    shapes = [Shape("input", (n, t, spec.input_size), "(N, T, I)", "Keras is always batch-first")]
    if last_mode is MergeMode.NONE:
        shapes += [
            Shape("output[0]", (n, t, h), "(N, T, H)", "merge_mode=None: the forward outputs"),
            Shape("output[1]", (n, t, h), "(N, T, H)", "the backward outputs"),
        ]
    else:
        axes = "(N, T, 2·H)" if width == 2 * h else "(N, T, H)"
        merged = f" merged by {last_mode.value}" if last_mode else ""
        shapes.append(Shape("output", (n, t, width), axes,
                            "return_sequences=True: every step's output" + merged))
    states = ["h", "c"] if spec.cell is Cell.LSTM else ["h"]
    names = (
        [f"{direction}_{s}" for direction in ("forward", "backward") for s in states]
        if spec.bidirectional else states
    )
    for name in names:
        shapes.append(Shape(name, (n, h), "(N, H)", "a returned state of the last layer"))
    slots = tuple(
        StateSlot(
            index=k * len(states),
            layer=spec.num_layers - 1,
            direction=direction,
            step=0 if direction is Direction.FORWARD else t - 1,
            last_step=t - 1 if direction is Direction.FORWARD else 0,
        )
        for k, direction in enumerate(list(Direction)[: spec.directions])
    )
    slices: tuple[SliceClaim, ...] = ()
    if not spec.bidirectional:
        slices = (SliceClaim(t - 1, 0, None, "h", -1, "output[:, -1, :] == h",
                             "the last step's output is the final state"),)
    elif last_mode is MergeMode.CONCAT:
        slices = (
            SliceClaim(t - 1, 0, h, "forward_h", -1, f"output[:, -1, :{h}] == forward_h",
                       "forward columns at the last step: the forward final state"),
            SliceClaim(0, h, None, "backward_h", -1, f"output[:, 0, {h}:] == backward_h",
                       "backward columns at step 0: the backward layer ends at t = 0"),
        )
    elif last_mode is MergeMode.NONE:
        slices = (
            SliceClaim(t - 1, 0, None, "forward_h", -1, "output[0][:, -1, :] == forward_h",
                       "the forward outputs' last step is the forward final state"),
            SliceClaim(0, 0, None, "backward_h", -1, "output[1][:, 0, :] == backward_h",
                       "the backward outputs' step 0 is the backward final state"),
        )
    inputs = [f"layer 0 reads the input, {spec.input_size:,} wide"]
    for layer in range(1, spec.num_layers):
        mode = modes[layer - 1] if modes else None
        if mode is MergeMode.CONCAT:
            what = f"concat(forward, backward) output of layer {layer - 1}, {2 * h:,} wide"
        elif mode is not None:
            what = f"the {mode.value} of both directions' outputs of layer {layer - 1}, {h:,} wide"
        else:
            what = f"layer {layer - 1}'s output, {h:,} wide"
        inputs.append(f"layer {layer} reads {what}")
    return Flow(spec, batch, seq_len, True, tuple(shapes), slots, slices, tuple(inputs))


def flow(spec: LayerSpec, batch: int, seq_len: int, batch_first: bool = False) -> Flow:
    """The flow in ``spec``'s own framework."""
    if spec.framework is Framework.KERAS:
        return keras_flow(spec, batch, seq_len)
    return torch_flow(spec, batch, seq_len, batch_first)


TOLERANCE = 1e-5
"""How far (relative to the largest value compared, at least 1) float32 results may differ."""


@dataclass(frozen=True)
class Check:
    """One printed claim checked against a real framework run."""

    claim: str
    ok: bool
    detail: str
    """What was compared, e.g. ``max |Δ| = 5.96e-08`` or the actual shape."""


@dataclass(frozen=True)
class TraceRow:
    """One direction of one layer: rebuilt from a single-layer module versus the real stack."""

    layer: int
    direction: str
    """``forward``, ``backward`` (or ``merged`` for a Keras sum/mul/ave output)."""
    output_diff: float | None
    """max |Δ| of this direction's output sequence; None where the stack does not expose it."""
    state_diff: float
    """max |Δ| of the final state(s): h_n (and c_n) entries, or Keras' returned states."""
    state_name: str
    """Which entries were compared, e.g. ``h_n[2], c_n[2]``."""
    tolerance: float

    @property
    def ok(self) -> bool:
        """Whether both differences are within tolerance."""
        diffs = [self.state_diff] + ([] if self.output_diff is None else [self.output_diff])
        return all(d <= self.tolerance for d in diffs)


@dataclass(frozen=True)
class Trace:
    """A stack rebuilt from unidirectional single-layer modules, compared layer by layer."""

    spec: LayerSpec
    batch: int
    seq_len: int
    seed: int
    rows: tuple[TraceRow, ...]
    notes: tuple[str, ...] = ()
    """Findings that locate a divergence, in words."""

    @property
    def ok(self) -> bool:
        """Whether every row matches."""
        return all(r.ok for r in self.rows)

    @property
    def first_divergence(self) -> TraceRow | None:
        """The first row, in flow order, that does not match."""
        return next((r for r in self.rows if not r.ok), None)


def mistake_note(rows: tuple[TraceRow, ...] | list[TraceRow], misread: str) -> str | None:
    """Where the wrong rebuild first diverges, told in both 0- and 1-based layer numbers."""
    first = next((r for r in rows if r.state_diff > r.tolerance), None)
    if first is None or first.layer == 0:
        return None
    return (
        f"layer {first.layer} {first.direction}: the first final state that differs "
        f"({first.state_name}); layer {first.layer} read {misread} (counting from 1: layer "
        f"{first.layer} matches, layer {first.layer + 1} does not)"
    )
