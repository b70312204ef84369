"""The per-tensor breakdown of one report, as a Document: what ``paramcount lstm`` shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from paramcount.conventions import Direction
from paramcount.render.document import (
    Block,
    Document,
    Math,
    Paragraph,
    Section,
    Table,
    aligned,
    number,
    shape,
    signed,
    size,
)
from paramcount.report import Growth, Report
from paramcount.spec import Framework

if TYPE_CHECKING:
    from paramcount.convlstm import ConvReport
    from paramcount.render.verification import Outcome

# What the framework calls the axes of an input weight: torch (G·H, in), keras (in, G·H).
_AXES = {
    Framework.TORCH: ("gate rows", "input columns"),
    Framework.KERAS: ("gate columns", "kernel rows"),
    Framework.ONNX: ("gate rows", "input columns"),
    Framework.FLAX_LINEN: ("gate columns", "kernel rows"),
    Framework.FLAX_NNX: ("gate columns", "kernel rows"),
    Framework.TF1: ("gate columns", "kernel rows"),
    Framework.TF1_CUDNN: ("gate columns", "kernel rows"),
}


def headline(report: Report | ConvReport) -> str:
    """``561,152 parameters · 2,244,608 bytes (2.24 MB) as fp32``."""
    return (
        f"{number(report.total)} parameters · {number(report.bytes)} bytes "
        f"({size(report.bytes)}) as {report.dtype.value}"
    )


def tensor_table(
    report: Report | ConvReport, verification: Outcome | None = None, input_label: str = "input"
) -> Table:
    """One row per tensor: layer, direction, name, shape, input width, count (and verified)."""
    rows = tuple(
        (str(t.layer), t.direction.value, t.name, shape(t.shape), number(t.input_width),
         number(t.count))
        for t in report.tensors
    )
    table = Table(
        ("layer", "direction", "tensor", "shape", input_label, "count"),
        rows,
        numeric=frozenset({input_label, "count"}),
        footer=("", "", "total", "", "", number(report.total)),
        optional=(input_label, "direction", "layer"),
    )
    if verification is None:
        return table
    from paramcount.render.verification import with_verified_column

    return with_verified_column(table, verification)


def layer_table(report: Report | ConvReport, input_label: str = "input") -> Table:
    """One row per layer: its input width and each direction's subtotal."""
    directions = [d.value for d in list(Direction)[: report.spec.directions]]
    headers = ("layer", input_label, *directions, "total")
    rows = tuple(
        (str(row.layer), number(row.input_width), *(number(n) for n in row.by_direction),
         number(row.total))
        for row in report.layers
    )
    footer = ("total", "", *("" for _ in directions), number(report.total))
    return Table(headers, rows, frozenset({input_label, *directions, "total"}), footer)


def growth_section(report: Report, growth: Growth) -> Section:
    """Why the total is not the naive multiple, with the gap attributed layer by layer."""
    spec = report.spec
    gate_axis, input_axis = _AXES[spec.framework]
    hr = spec.output_size
    if growth.kind == "bidirectional":
        title = f"Why not 2 × {number(growth.baseline)} = {number(growth.naive)}?"
        wide = [r.layer for r in growth.rows if r.extra_columns]
        reason = (
            "A bidirectional stack is not twice the unidirectional one: every layer after the "
            f"first reads both directions' outputs, so its input is 2·{hr} = {2 * hr} wide, "
            f"not {hr}."
            if wide and len(wide) == len(growth.rows) else
            "A bidirectional stack is not twice the unidirectional one: a layer after a concat "
            f"merge (here layer {', '.join(map(str, wide))}) reads both directions' outputs, "
            f"2·{hr} = {2 * hr} wide, not {hr}; after sum, mul or ave it reads {hr}, as in the "
            "unidirectional stack."
            if wide else
            "A single bidirectional layer is exactly two unidirectional ones: both directions "
            "read the same input."
            if spec.num_layers == 1 else
            "Here the directions' outputs are merged to one H-wide output, so every layer reads "
            "what the unidirectional stack reads: exactly twice."
        )
        naive_text = f"2 × {number(growth.baseline)} (the unidirectional stack)"
    else:
        title = (
            f"Why not {growth.multiplier} × {number(growth.baseline)} = {number(growth.naive)}?"
        )
        reason = (
            f"Only the first layer reads the {spec.input_size}-wide input; every layer after it "
            f"reads the previous layer's {hr}-wide output."
        )
        naive_text = f"{growth.multiplier} × {number(growth.baseline)} (layer 0)"
    if growth.difference == 0:
        title = f"Exactly {growth.multiplier} × {number(growth.baseline)}"
    lines = [
        ("naive guess", f"{naive_text} = {number(growth.naive)}"),
        ("actual", number(growth.actual)),
        ("difference", signed(growth.difference)),
    ]
    for row in growth.rows:
        if row.extra_columns:
            more = "extra" if row.extra_columns > 0 else "fewer"
            lines.append((
                f"layer {row.layer}",
                f"reads {number(row.input_width)}, not {number(row.naive_width)}: "
                f"{row.directions} direction{'s' if row.directions > 1 else ''} × "
                f"{number(row.gate_rows)} {gate_axis} × {number(abs(row.extra_columns))} "
                f"{more} {input_axis} = {signed(row.extra)}",
            ))
    return Section(title, (Paragraph((reason,)), aligned(lines)))


def formula_section(report: Report | ConvReport) -> Section:
    """The closed form, the numbers filled in, and what each letter stands for."""
    formula = report.formula
    lines = [formula.symbolic, f"= {formula.substituted}"]
    if len(formula.terms) > 1:
        lines.append("= " + " + ".join(number(value) for _, value in formula.terms))
    lines.append(f"= {number(formula.total)}")
    where = tuple(f"{s.name} = {number(s.value)}: {s.meaning}" for s in formula.symbols)
    return Section("Formula", (Math(tuple(lines)), Paragraph(("where",)), Math(where)))


def depth_section(report: Report) -> Section:
    """Bidirectional versus unidirectional totals as the stack deepens."""
    rows = tuple(
        (str(r.layers), number(r.unidirectional), number(r.bidirectional), f"{r.ratio:.3f}")
        for r in report.depth
    )
    table = Table(
        ("layers", "unidirectional", "bidirectional", "ratio"),
        rows,
        frozenset({"unidirectional", "bidirectional", "ratio"}),
    )
    blocks: list[Block] = [table]
    if report.depth_limit is not None:
        blocks.append(Paragraph((
            f"Each further layer is {report.depth_limit:.3f}× its unidirectional "
            f"counterpart, so with depth the ratio tends toward {report.depth_limit:.3f}.",
        )))
    return Section("Bidirectional ÷ unidirectional by depth", tuple(blocks))


def breakdown(report: Report, verification: Outcome | None = None) -> Document:
    """The full per-tensor breakdown of one report, verified against its framework if given."""
    sections = [Section("Tensors", (tensor_table(report, verification),))]
    if verification is not None:
        from paramcount.render.verification import verified_sections

        sections = verified_sections(sections[0], verification)
    if not report.spec.single_cell:
        sections.append(Section("Per layer", (layer_table(report),)))
    if report.growth is not None:
        sections.append(growth_section(report, report.growth))
    sections.append(formula_section(report))
    if report.depth:
        sections.append(depth_section(report))
    title = f"{report.description} — {report.spec.framework.display_name}"
    return Document(title, headline(report), tuple(sections))


def side_by_side(
    reports: list[Report], verifications: list[Outcome] | None = None
) -> Document:
    """Several conventions of the same configuration, each in full, then their totals."""
    documents = [
        breakdown(report, verifications[index] if verifications else None)
        for index, report in enumerate(reports)
    ]
    return combined(
        documents, reports,
        "The same configuration in " + ", ".join(r.spec.framework.display_name for r in reports),
        verifications,
    )


def combined(
    documents: list[Document],
    reports: Sequence[Report | ConvReport],
    title: str,
    verifications: list[Outcome] | None = None,
) -> Document:
    """Several breakdowns one after another, then a table of their totals."""
    sections: list[Section] = []
    for document in documents:
        sections.append(Section(document.title, (Paragraph((document.summary,)),)))
        sections += document.sections
    first = reports[0].total
    rows = tuple(
        (r.spec.framework.display_name, r.description, number(r.total), signed(r.total - first))
        for r in reports
    )
    totals = Table(("framework", "layer", "parameters", "difference"), rows,
                   frozenset({"parameters", "difference"}))
    if verifications:
        from paramcount.render.verification import with_verdict_column

        totals = with_verdict_column(totals, verifications)
    sections.append(Section("Totals", (totals,)))
    return Document(title, " vs ".join(number(r.total) for r in reports) + " parameters",
                    tuple(sections))
