"""Training memory and forward compute as sections appended to a count's Document, and as data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount.analysis.compute import Compute, StepCost
from paramcount.analysis.memory import Memory
from paramcount.engine.report import Report
from paramcount.engine.spec import Cell, Framework
from paramcount.render.document import (
    Block,
    Document,
    Math,
    Paragraph,
    Section,
    Table,
    number,
    scaled,
    size,
)

if TYPE_CHECKING:
    from paramcount.render.verification import Outcome
    from paramcount.verify.flops import FlopOutcome

_OPTIMIZER = {"sgd": "SGD", "momentum": "SGD with momentum", "adam": "Adam", "adamw": "AdamW"}


def _both(value: int, unit: str) -> str:
    """``44,994,560 FLOPs (44.99 MFLOPs)``; no parenthesis below a thousand."""
    exact = f"{number(value)} {unit}"
    return exact if value < 1000 else f"{exact} ({scaled(value, unit)})"


def memory_section(memory: Memory, suffix: str = "") -> Section:
    """Parameters, gradients and optimizer state, line by line, with the cuDNN note."""
    rows = tuple(
        (line.name, number(line.values), line.type_name, number(line.bytes), size(line.bytes))
        for line in memory.lines
    )
    table = Table(
        ("memory", "values", "type", "bytes", "size"),
        rows,
        frozenset({"values", "bytes", "size"}),
        ("total", "", "", number(memory.bytes), size(memory.bytes)),
    )
    per = memory.bytes / memory.parameters
    notes = [
        f"{per:.2f} bytes per parameter. Activations are not included: they depend on the "
        "batch and the sequence length.",
        *(f"{line.name}: {line.note}." for line in memory.lines if line.name != "parameters"),
    ]
    blocks: list[Block] = [table, Paragraph(tuple(notes))]
    if memory.cudnn is not None:
        slots = memory.cudnn
        blocks.append(Paragraph((
            f"On CUDA, cuDNN's flat weight buffer still holds zeroed bias slots for this "
            f"bias=False layer: 2·G·H·D·L = {number(slots.values)} values, "
            f"{number(slots.bytes)} bytes ({size(slots.bytes)}) as {slots.dtype.value} beyond "
            f"the parameters (more if cuDNN pads the buffer); they are not in the parameter "
            f"count.",
        )))
    title = f"Training memory ({_OPTIMIZER[memory.optimizer.value]}"
    title += ", mixed precision)" if memory.mixed_precision else ")"
    return Section(title + suffix, tuple(blocks))


def _step_lines(compute: Compute) -> tuple[str, ...]:
    """The per-step formulas, with the cell's elementwise operations and nonlinearities named."""
    spec = compute.spec
    cost = compute.rows[0].step
    torch = spec.framework is Framework.TORCH
    if not spec.bias:
        bias = "0 (no biases)"
    elif torch:
        bias = f"2·G·H = {number(cost.bias_adds)} (bias_ih and bias_hh)"
    else:
        bias = f"{number(cost.bias_adds)} (one add per element of the layer's bias tensors)"
    # Where the reset gate meets the recurrent product: before it only in Keras with
    # reset_after=False and TF1's rnn_cell.GRUCell; after it everywhere else.
    reset_before = spec.framework is Framework.TF1 or (
        spec.framework is Framework.KERAS and spec.reset_after is False
    )
    if spec.cell is Cell.LSTM:
        elementwise = "8·H = {e}: 4·H (x·W + h·U per gate row), 3·H (f⊙c + i⊙g), H (o⊙tanh(c))"
        if spec.peepholes:
            elementwise = elementwise.replace("8·H", "14·H") + ", 6·H (peepholes p⊙c and adds)"
        nonlinear = "5·H = {a}: σ(i), σ(f), σ(o), tanh(g), tanh(c)"
    elif spec.cell is Cell.GRU:
        reset = ("r⊙h before its product with U_n, + x_n" if reset_before
                 else "r⊙(h·U_n + b_hn), + x_n")
        elementwise = (
            "8·H = {e}: 2·H (x·W + h·U for r, z), 2·H (" + reset + "), 4·H ((1 − z)⊙n + z⊙h)"
        )
        nonlinear = "3·H = {a}: σ(r), σ(z), tanh(n)"
    else:
        activation = spec.nonlinearity.value if spec.nonlinearity else "tanh"
        elementwise = "H = {e}: x·W + h·U"
        nonlinear = "H = {a}: " + activation
    return (
        "MACs        = G·H·(in_l + Hr)" + (" + P·H" if spec.proj_size else ""),
        "FLOPs       = 2·MACs + bias adds + elementwise + nonlinearities",
        f"bias adds   = {bias}",
        "elementwise = " + elementwise.format(e=number(cost.elementwise)),
        "nonlinear   = " + nonlinear.format(a=number(cost.activations)),
    )


def _per_step_table(compute: Compute) -> Table:
    seen: dict[int, StepCost] = {}
    for row in compute.rows:
        seen.setdefault(row.layer, row.step)
    projection = compute.spec.proj_size > 0
    headers = ["layer", "input MACs", "recurrent MACs"]
    if projection:
        headers.append("projection MACs")
    headers += ["bias adds", "elementwise", "nonlinear", "MACs", "FLOPs"]
    rows = []
    for layer, cost in seen.items():
        cells = [str(layer), number(cost.input_macs), number(cost.recurrent_macs)]
        if projection:
            cells.append(number(cost.projection_macs))
        cells += [number(cost.bias_adds), number(cost.elementwise), number(cost.activations),
                  number(cost.macs), number(cost.flops)]
        rows.append(tuple(cells))
    return Table(tuple(headers), tuple(rows), frozenset(headers[1:]))


def compute_section(compute: Compute, suffix: str = "",
                    flops: FlopOutcome | None = None) -> Section:
    """MACs and FLOPs per layer and direction, per-step details, and what counts; with
    ``flops``, what the real layer's FLOP counter measured."""
    rows = tuple(
        (str(r.layer), r.direction.value, number(r.input_width), number(r.steps),
         number(r.macs), number(r.flops))
        for r in compute.rows
    )
    table = Table(
        ("layer", "direction", "input", "steps", "MACs", "FLOPs"),
        rows,
        frozenset({"input", "steps", "MACs", "FLOPs"}),
        ("total", "", "", "", number(compute.macs), number(compute.flops - compute.merge_flops)),
    )
    n, t = compute.batch, compute.seq_len
    if compute.lengths is not None:
        lengths = ",".join(str(x) for x in compute.lengths)
        steps = (
            f"Packed batch of lengths {lengths}: each direction computes Σ lengths = "
            f"{number(compute.steps)} sample-steps, not the padded {n} × {t} = {number(n * t)}."
            if compute.packed else
            f"Lengths {lengths}: Keras masks the padded steps but still computes them, so "
            f"each direction computes N × T = {n:,} × {t:,} = {number(compute.steps)} sample-steps."
        )
    else:
        steps = (f"Each direction computes N × T = {n:,} × {t:,} = {number(compute.steps)} "
                 "sample-steps.")
    blocks: list[Block] = [
        Paragraph((steps,)),
        table,
        Paragraph(("Per sample and time step, for one direction:",)),
        _per_step_table(compute),
    ]
    blocks.append(Math(_step_lines(compute)))
    if compute.merges:
        merge_rows = tuple(
            (str(m.layer), m.mode.value, number(m.elements), number(m.flops))
            for m in compute.merges
        )
        blocks.append(Paragraph((
            "Bidirectional merges (1 FLOP per element for sum and mul, 2 for ave; the last "
            "layer merges only its final step):",
        )))
        blocks.append(Table(("layer", "merge", "elements", "FLOPs"), merge_rows,
                            frozenset({"elements", "FLOPs"})))
    blocks.append(Paragraph((
        f"Total: {_both(compute.macs, 'MACs')}, {_both(compute.flops, 'FLOPs')}; the matmuls "
        f"alone are 2 × MACs = {number(compute.matmul_flops)} FLOPs.",
    )))
    if flops is not None:
        from paramcount.render.verification import flop_verdict

        blocks.append(Paragraph((flop_verdict(flops),)))
    title = f"Compute: one forward pass, N = {n:,}, T = {t:,}"
    return Section(title + suffix, tuple(blocks))


def append_sections(
    document: Document, extras: Sequence[tuple[str, Memory | None, Compute | None]],
    flops: Sequence[FlopOutcome | None] | None = None,
) -> Document:
    """``document`` with memory and compute sections per (framework title, memory, compute),
    each compute section with its FLOP measurement when ``flops`` are given."""
    sections = list(document.sections)
    for k, (title, memory, compute) in enumerate(extras):
        suffix = f" — {title}" if len(extras) > 1 else ""
        if memory is not None:
            sections.append(memory_section(memory, suffix))
        if compute is not None:
            sections.append(compute_section(compute, suffix, flops[k] if flops else None))
    return Document(document.title, document.summary, tuple(sections))


def memory_data(memory: Memory | None) -> dict[str, Any] | None:
    """Training memory as JSON-ready data, or None when not asked for."""
    if memory is None:
        return None
    return {
        "optimizer": memory.optimizer.value,
        "mixed_precision": memory.mixed_precision,
        "dtype": memory.dtype.value,
        "parameters": memory.parameters,
        "lines": [
            {"name": line.name, "values": line.values, "type": line.type_name,
             "bytes": line.bytes}
            for line in memory.lines
        ],
        "bytes": memory.bytes,
        "cudnn_bias_slots": None if memory.cudnn is None else {
            "values": memory.cudnn.values, "bytes": memory.cudnn.bytes,
        },
    }


def _step_data(cost: StepCost) -> dict[str, int]:
    return {
        "input_macs": cost.input_macs,
        "recurrent_macs": cost.recurrent_macs,
        "projection_macs": cost.projection_macs,
        "bias_adds": cost.bias_adds,
        "elementwise": cost.elementwise,
        "activations": cost.activations,
        "macs": cost.macs,
        "flops": cost.flops,
    }


def compute_data(
    compute: Compute | None, flops: FlopOutcome | None = None
) -> dict[str, Any] | None:
    """The forward pass's MACs and FLOPs as JSON-ready data, or None when not asked for;
    ``verification`` holds the FLOP counter's measurement when there is one."""
    if compute is None:
        return None
    data: dict[str, Any] = {
        "seq_len": compute.seq_len,
        "batch": compute.batch,
        "lengths": list(compute.lengths) if compute.lengths is not None else None,
        "steps": compute.steps,
        "macs": compute.macs,
        "matmul_flops": compute.matmul_flops,
        "merge_flops": compute.merge_flops,
        "flops": compute.flops,
        "directions": [
            {
                "layer": r.layer,
                "direction": r.direction.value,
                "input_width": r.input_width,
                "steps": r.steps,
                "macs": r.macs,
                "flops": r.flops,
                "per_step": _step_data(r.step),
            }
            for r in compute.rows
        ],
        "merges": [
            {"layer": m.layer, "mode": m.mode.value, "elements": m.elements, "flops": m.flops}
            for m in compute.merges
        ],
    }
    if flops is not None:
        from paramcount.render.verification import flop_data

        data["verification"] = flop_data(flops)
    return data


def _title(report: Report) -> str:
    return f"{report.description} — {report.spec.framework.display_name}"


def _verdict_blocks(verification: Outcome | None) -> tuple[Block, ...]:
    if verification is None:
        return ()
    from paramcount.render.verification import verdict

    return (Paragraph((verdict(verification),)),)


def compute_document(report: Report, compute: Compute | None,
                     verification: Outcome | None = None,
                     flops: FlopOutcome | None = None) -> Document:
    """``paramcount compute``: the MACs and FLOPs first, then where they come from."""
    assert compute is not None
    summary = (f"{_both(compute.macs, 'MACs')}, {_both(compute.flops, 'FLOPs')} for one "
               f"forward pass, N = {compute.batch:,}, T = {compute.seq_len:,}")
    section = compute_section(compute, "", flops)
    sections = [section]
    if verification is not None:
        sections.append(Section("Parameters", (Paragraph((
            f"{number(report.total)} parameters.",)), *_verdict_blocks(verification))))
    return Document(_title(report), summary, tuple(sections))


def memory_document(report: Report, memory: Memory | None,
                    verification: Outcome | None = None) -> Document:
    """``paramcount memory``: the bytes to train first, then line by line."""
    assert memory is not None
    summary = (f"{number(memory.bytes)} bytes ({size(memory.bytes)}) to train "
               f"{number(report.total)} parameters with {_OPTIMIZER[memory.optimizer.value]}")
    section = memory_section(memory)
    if verification is not None:
        section = Section(section.title, (*section.blocks, *_verdict_blocks(verification)))
    return Document(_title(report), summary, (section,))


def workload_report_data(
    schema: str, report: Report, verification: Outcome | None = None, *,
    memory: Memory | None = None, compute: Compute | None = None,
    flops: FlopOutcome | None = None,
) -> dict[str, Any]:
    """``paramcount.memory/1`` or ``paramcount.compute/1``: the layer, its total, the view."""
    from paramcount._version import __version__
    from paramcount.render.data import config, verification_data

    data: dict[str, Any] = {
        "schema": schema,
        "paramcount": __version__,
        "framework": report.spec.framework.value,
        "layer": report.description,
        "config": config(report),
        "total": report.total,
    }
    if compute is not None:
        data["compute"] = compute_data(compute, flops)
    if memory is not None:
        data["dtype"] = report.dtype.value
        data["bytes"] = report.bytes
        data["memory"] = memory_data(memory)
    if verification is not None:
        data["verification"] = verification_data(verification)
    return data
