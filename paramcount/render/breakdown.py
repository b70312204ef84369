"""The per-tensor breakdown of one report, as a Document: what ``paramcount lstm`` shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from paramcount.engine.conventions import Direction
from paramcount.engine.report import Growth, Report
from paramcount.engine.spec import Framework
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

if TYPE_CHECKING:
    from paramcount.engine.convlstm_report import ConvReport
    from paramcount.families.report import FamilyReport
    from paramcount.render.verification import Outcome

AXES = {
    Framework.TORCH: ("gate rows", "input columns"),
    Framework.KERAS: ("gate columns", "kernel rows"),
    Framework.ONNX: ("gate rows", "input columns"),
    Framework.FLAX_LINEN: ("gate columns", "kernel rows"),
    Framework.FLAX_NNX: ("gate columns", "kernel rows"),
    Framework.TF1: ("gate columns", "kernel rows"),
    Framework.TF1_CUDNN: ("gate columns", "kernel rows"),
}
"""What each framework calls the axes of an input weight: torch (G·H, in), Keras (in, G·H)."""


def headline(report: Report | ConvReport | FamilyReport) -> str:
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


def growth_reason(report: Report, growth: Growth) -> str:
    """Why the total is (or is exactly) the naive multiple, in one or two sentences."""
    spec = report.spec
    hr, wide_hr = number(spec.output_size), number(2 * spec.output_size)
    if growth.kind != "bidirectional":
        return (
            f"Only the first layer reads the {number(spec.input_size)}-wide input; every layer "
            f"after it reads the previous layer's {hr}-wide output."
        )
    wide = [r.layer for r in growth.rows if r.extra_columns]
    if wide and len(wide) == len(growth.rows):
        return (
            "A bidirectional stack is not twice the unidirectional one: every layer after the "
            f"first reads both directions' outputs, so its input is 2·{hr} = {wide_hr} wide, "
            f"not {hr}."
        )
    if wide:
        return (
            "A bidirectional stack is not twice the unidirectional one: a layer after a concat "
            f"merge (here layer {', '.join(map(str, wide))}) reads both directions' outputs, "
            f"2·{hr} = {wide_hr} wide, not {hr}; after sum, mul or ave it reads {hr}, as in the "
            "unidirectional stack."
        )
    if spec.num_layers == 1:
        return ("A single bidirectional layer is exactly two unidirectional ones: both "
                "directions read the same input.")
    return ("Here the directions' outputs are merged to one H-wide output, so every layer reads "
            "what the unidirectional stack reads: exactly twice.")


def attribution(report: Report, growth: Growth) -> list[tuple[str, str]]:
    """Each layer's share of the gap: ``layer 1  reads 256, not 128: 2 directions × ...``."""
    gate_axis, input_axis = AXES[report.spec.framework]
    lines = []
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
    return lines


def growth_title(growth: Growth) -> str:
    """``Why not 2 × 215,040 = 430,080?``, or ``Exactly 2 × 2,560`` when it is."""
    if growth.difference == 0:
        return f"Exactly {growth.multiplier} × {number(growth.baseline)}"
    return f"Why not {growth.multiplier} × {number(growth.baseline)} = {number(growth.naive)}?"


def growth_section(report: Report, growth: Growth) -> Section:
    """Why the total is not the naive multiple, with the gap attributed layer by layer."""
    if growth.kind == "bidirectional":
        naive_text = f"2 × {number(growth.baseline)} (the unidirectional stack)"
    else:
        naive_text = f"{growth.multiplier} × {number(growth.baseline)} (layer 0)"
    lines = [
        ("naive guess", f"{naive_text} = {number(growth.naive)}"),
        ("actual", number(growth.actual)),
        ("difference", signed(growth.difference)),
        *attribution(report, growth),
    ]
    return Section(growth_title(growth),
                   (Paragraph((growth_reason(report, growth),)), aligned(lines)))


def formula_section(report: Report | ConvReport | FamilyReport) -> Section:
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
    reports: Sequence[Report], verifications: Sequence[Outcome] | None = None
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


def totals_table(
    reports: Sequence[Report | ConvReport], verifications: Sequence[Outcome] | None = None
) -> Table:
    """One row per framework: its layer, total, difference from the first (and verdict)."""
    first = reports[0].total
    rows = tuple(
        (r.spec.framework.display_name, r.description, number(r.total), signed(r.total - first))
        for r in reports
    )
    totals = Table(("framework", "layer", "parameters", "difference"), rows,
                   frozenset({"parameters", "difference"}))
    if verifications:
        from paramcount.render.verification import with_verdict_column

        totals = with_verdict_column(totals, list(verifications))
    return totals


def combined(
    documents: list[Document],
    reports: Sequence[Report | ConvReport],
    title: str,
    verifications: Sequence[Outcome] | None = None,
) -> Document:
    """The totals of several breakdowns first, then each breakdown in full."""
    sections = [Section("Totals", (totals_table(reports, verifications),))]
    for document in documents:
        sections.append(Section(document.title, (Paragraph((document.summary,)),)))
        sections += document.sections
    return Document(title, " vs ".join(number(r.total) for r in reports) + " parameters",
                    tuple(sections))
