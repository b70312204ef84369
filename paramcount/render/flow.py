"""``paramcount shapes`` and ``paramcount trace`` as Documents.

A ✓ or ✗ column appears beside every claim that a real run checked.
"""

from __future__ import annotations

from collections.abc import Sequence

from paramcount.analysis.flow import Check, Flow, Trace, TraceRow
from paramcount.engine.report import build_report
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode
from paramcount.render.document import Block, Document, Math, Paragraph, Section, Table, shape


def _mark(check: Check | None) -> str:
    if check is None:
        return ""
    return ("✓ " if check.ok else "✗ ") + check.detail


def _with_checks(headers: tuple[str, ...], rows: Sequence[tuple[str, ...]],
                 checks: list[list[Check | None]] | None, names: tuple[str, ...]) -> Table:
    """A table, with one check column per name when the claims were checked."""
    if checks is None:
        return Table(headers, tuple(rows))
    return Table(
        (*headers, *names),
        tuple((*row, *(_mark(c) for c in row_checks)) for row, row_checks in zip(rows, checks,
                                                                                  strict=True)),
    )


def _state_name(flow: Flow) -> str:
    return "h_n" if flow.spec.framework is Framework.TORCH else "state"


def shapes_document(flow: Flow, checks: dict[str, Check] | None = None) -> Document:
    """Shapes, h_n order, equal slices and where h_0 enters; checked when ``checks`` is given."""
    spec = flow.spec
    torch = spec.framework is Framework.TORCH
    description = build_report(spec).description
    t = flow.seq_len
    layout = "batch_first=True" if torch and flow.batch_first else (
        "time-major (batch_first=False)" if torch else "batch-first")
    title = f"{description} on a batch of N = {flow.batch:,} sequences of T = {t:,} steps, {layout}"
    if not torch:
        title += "; the last layer called with return_sequences=True and return_state=True"

    def get(key: str) -> Check | None:
        return None if checks is None else checks.get(key)

    shape_rows = [(s.name, shape(s.shape), s.axes, s.meaning) for s in flow.shapes]
    shape_checks = None if checks is None else [[get(f"shape:{s.name}")] for s in flow.shapes]
    sections = [Section("Tensors", (_with_checks(("tensor", "shape", "axes", "what"),
                                                 shape_rows, shape_checks, ("check",)),))]

    lstm = spec.cell is Cell.LSTM
    if torch:
        state, init = ("h_n, c_n" if lstm else "h_n"), ("h_0, c_0" if lstm else "h_0")
        order_title = f"Order of the first axis of {state} (and of {init})"
        index_header = "index"
    else:
        state, init = "returned state", "initial_state"
        order_title = "The last layer's returned states (Keras returns one layer's states)"
        index_header = "initial_state"
    order_rows = []
    for slot in flow.slots:
        if torch:
            index = f"[{slot.index}]"
        else:
            names = ["h", "c"] if lstm else ["h"]
            index = ", ".join(f"[{slot.index + k}]" for k in range(len(names)))
        order_rows.append((
            index,
            str(slot.layer),
            slot.direction.value,
            f"t = {slot.step}" + (" (first step)" if slot.step == 0 else " (last step)"),
            f"after t = {slot.last_step}",
        ))
    order_checks = None if checks is None else [
        [get(f"final:{s.index}"), get(f"init:{s.index}")] for s in flow.slots
    ]
    order = _with_checks(
        (index_header, "layer", "direction", f"{init} enters at", f"{state} is the state"),
        order_rows, order_checks, ("final state", "h_0 entry" if torch else "state entry"),
    )
    sections.append(Section(order_title, (order,)))

    if flow.slices:
        slice_rows = [(c.text, c.meaning) for c in flow.slices]
        slice_checks = None if checks is None else [
            [get(f"slice:{k}")] for k in range(len(flow.slices))
        ]
        sections.append(Section(
            f"Slices of the output equal to {_state_name(flow)}",
            (_with_checks(("claim", "why"), slice_rows, slice_checks, ("check",)),),
        ))

    flow_lines = list(flow.layer_inputs)
    if spec.bidirectional:
        flow_lines.append(
            "The backward direction runs from t = T−1 down to t = 0: its initial state is "
            f"applied at the last step (t = {t - 1}), and its final state is its output at "
            "t = 0."
        )
    sections.append(Section("What each layer reads", (Paragraph(tuple(flow_lines)),)))
    if checks is None:
        summary = "Shapes and flow (add --verify to check every claim with a real run)"
    else:
        failed = sum(not c.ok for c in checks.values())
        backend = "PyTorch" if torch else "Keras"
        summary = (f"{len(checks)} claims checked with a real {backend} forward pass: "
                   + ("all hold" if not failed else f"{failed} FAILED"))
    return Document(title, summary, tuple(sections))


def _diff(value: float | None) -> str:
    return "—" if value is None else f"{value:.1e}"


def _trace_table(rows: tuple[TraceRow, ...]) -> Table:
    return Table(
        ("layer", "direction", "output max |Δ|", "final state", "max |Δ|", "match"),
        tuple(
            (str(r.layer), r.direction, _diff(r.output_diff), r.state_name,
             _diff(r.state_diff), "✓" if r.ok else "✗")
            for r in rows
        ),
        frozenset({"output max |Δ|", "max |Δ|"}),
    )


def _recipe(trace: Trace) -> Math:
    spec = trace.spec
    torch = spec.framework is Framework.TORCH
    h, hr, d = spec.hidden_size, spec.output_size, spec.directions
    name = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}[spec.cell]
    if torch:
        state = "(h_0[k], c_0[k])" if spec.cell is Cell.LSTM else "h_0[k]"
        lines = [f"x_0 = input  (T, N, {spec.input_size})", f"for l in 0 … {spec.num_layers - 1}:"]
        extra = f", proj_size={spec.proj_size}" if spec.proj_size else ""
        lines.append(f"    fwd = nn.{name}(in_l, {h}{extra}) holding weight_*_l{{l}}")
        lines.append(f"    y_f, h_n[k] = fwd(x_l, {state})            "
                     + ("k = 2·l" if d == 2 else "k = l"))
        if d == 2:
            lines.append(f"    bwd = nn.{name}(in_l, {h}{extra}) holding weight_*_l{{l}}_reverse")
            lines.append(f"    y_r, h_n[k] = bwd(flip(x_l), {state})      k = 2·l + 1")
            lines.append("    y_b = flip(y_r)                       back to time order")
            lines.append(f"    x_(l+1) = concat(y_f, y_b)            (T, N, {2 * hr})")
        else:
            lines.append("    x_(l+1) = y_f")
        return Math(tuple(lines))
    if d == 1:
        return Math((
            "x_0 = input  (N, T, I)",
            f"for each {name} layer l:",
            f"    y, states = {name}(H, return_sequences=True)(x_l, initial_state=states_l)",
            "    x_(l+1) = y",
        ))
    lines = ["x_0 = input  (N, T, I)", f"for each Bidirectional({name}) layer l:"]
    lines.append(f"    fwd = {name}(H, return_sequences=True) holding forward_layer's weights")
    lines.append("    y_f, states_f = fwd(x_l, initial_state=forward states)")
    if d == 2:
        lines.append(f"    bwd = {name}(H, return_sequences=True, go_backwards=True) holding "
                     "backward_layer's weights")
        lines.append("    y_r, states_b = bwd(x_l, initial_state=backward states)")
        lines.append("    y_b = flip(y_r, axis=1)               go_backwards outputs run T−1 … 0")
        lines.append("    x_(l+1) = merge(y_f, y_b)             concat, sum, mul or ave")
    return Math(tuple(lines))


def _concatenates(spec: LayerSpec) -> bool:
    """Whether every layer's two directions are concatenated (always in torch)."""
    return not spec.merge_modes or all(m is MergeMode.CONCAT for m in spec.merge_modes)


def _answer(trace: Trace) -> Paragraph:
    spec = trace.spec
    if not spec.bidirectional:
        return Paragraph((
            "Each layer reads the previous layer's output sequence; layer l's initial state "
            "is applied at t = 0.",
        ))
    torch = spec.framework is Framework.TORCH
    state = "h_0[2l+1]" if torch else "its initial_state entries"
    if _concatenates(spec):
        read, where, combine = (
            "concat(forward, backward) outputs of layer l−1",
            "sits in the backward columns of output step 0",
            "concatenates them with",
        )
    else:
        modes = ",".join(m.value for m in spec.merge_modes or ())
        read, where, combine = (
            f"the outputs of layer l−1's two directions, merged by its merge_mode ({modes})",
            "is merged into output step 0", "merges them with",
        )
    return Paragraph((
        f"Both directions of layer l read the same input: {read}, at the same time "
        "step, in time order — so yes, the backward direction reads the forward outputs too.",
        f"The backward direction's initial state ({state}) is applied at the last time step, "
        f"t = T−1, where it starts; its final state is its output at t = 0, which {where}.",
        "Its outputs come out reversed (it ran on flip(x)) and must be flipped back before the "
        f"next layer {combine} the forward ones.",
    ))


def trace_document(trace: Trace, mistake: Trace | None = None) -> Document:
    """The rebuilt stack compared with the real one; with ``mistake``, where the wrong one fails."""
    spec = trace.spec
    description = build_report(spec).description
    modules = spec.directions * spec.num_layers
    backend = "PyTorch" if spec.framework is Framework.TORCH else "Keras"
    parts = "single-layer module" if backend == "PyTorch" else "layer"
    parts += "s" if modules > 1 else ""
    title = f"{description} rebuilt from {modules} unidirectional {parts} with the same weights"
    summary = (
        f"Matches the real {backend} stack in every layer and direction, within float32 "
        f"rounding (batch {trace.batch}, {trace.seq_len} steps, seed {trace.seed})"
        if trace.ok else
        f"DOES NOT match the real {backend} stack: see the ✗ rows"
    )
    sections = [
        Section("The computation flow", (_answer(trace), _recipe(trace))),
        Section(f"Rebuilt versus the real {backend} stack (same input, same initial states)",
                (_trace_table(trace.rows),)),
    ]
    if mistake is not None:
        blocks: list[Block] = [
            Paragraph((
                "The common wrong rebuild: backward outputs "
                + ("concatenated" if _concatenates(spec) else "merged")
                + " without flipping them back to time order.",
            )),
            _trace_table(mistake.rows),
        ]
        first = mistake.first_divergence
        lines = list(mistake.notes)
        if first is None:
            lines.append(
                "Nothing diverges here: with one time step, reversing changes nothing."
                if trace.seq_len == 1 else
                "Nothing diverges here: with one direction there is nothing to flip."
            )
        elif not mistake.notes:
            lines.append(f"First divergence: layer {first.layer} {first.direction}.")
        blocks.append(Paragraph(tuple(lines)))
        sections.append(Section("The common mistake, and where it diverges", tuple(blocks)))
    return Document(title, summary, tuple(sections))

