"""``paramcount explain``: one report as a complete forum answer, with a depth chart.

Built from the report's own pieces (formula, per-layer totals, growth, depth table) and the
pitfalls that apply; the chart of the bidirectional/unidirectional ratio is drawn with block
characters in a Math block, so it looks the same in plain text, rich and Markdown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paramcount.analysis.pitfalls import Pitfall, pitfalls
from paramcount.engine.report import (
    DepthRow,
    Growth,
    GrowthRow,
    Report,
    depth_limit,
    depth_table,
    growth_because,
)
from paramcount.record import replace
from paramcount.render.breakdown import (
    AXES,
    depth_section,
    formula_section,
    growth_reason,
    growth_section,
    layer_table,
    tensor_table,
)
from paramcount.render.document import Block, Document, Math, Paragraph, Section, number, signed

DEPTH = 8
"""The deepest stack the depth table and chart show."""
CHART_WIDTH = 42
"""Characters from 0 to the top of the chart's scale."""
if TYPE_CHECKING:
    from paramcount.render.verification import Outcome

_EIGHTHS = " ▏▎▍▌▋▊▉"


def with_depth(report: Report, up_to: int = DEPTH) -> Report:
    """``report`` with its depth table extended to 1…``up_to`` layers (uni and bi)."""
    if report.spec.single_cell:
        return report
    limit = depth_limit(report.spec) if report.depth_limit is None else report.depth_limit
    return replace(report, depth=depth_table(report.spec, up_to), depth_limit=limit)


def _bar(value: float, top: float, width: int) -> str:
    eighths = round(value / top * width * 8)
    return "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")


def ratio_chart(rows: tuple[DepthRow, ...], limit: float | None,
                width: int = CHART_WIDTH) -> Math:
    """The bidirectional/unidirectional ratio per depth as a text bar chart with a 0…top axis."""
    ratios = [float(r.ratio) for r in rows]
    top = max(3, int(max([*ratios, float(limit or 0)]) + 0.999))
    label = max(len(f"{r.layers} layers") for r in rows)
    lines = []
    for row, ratio in zip(rows, ratios, strict=False):
        name = f"{row.layers} layer" + ("s" if row.layers > 1 else "")
        lines.append(f"{name.ljust(label)}  {ratio:.3f}  {_bar(ratio, top, width)}")
    pad = " " * (label + 2 + 5 + 2)
    step = width // top
    axis = "".join("┼" if i % step == 0 else "─" for i in range(step * top + 1))
    axis = "├" + axis[1:-1] + "┤"
    ticks = "".join(str(k).ljust(step) for k in range(top)) + str(top)
    lines += [pad + axis, pad + ticks]
    if limit is not None:
        lines.append(f"{'limit'.ljust(label)}  {float(limit):.3f}  (each further layer's ratio)")
    return Math(tuple(lines))


def depth_answer(report: Report) -> Paragraph:
    """The answer to "is a bidirectional RNN 2P?": only for one layer, with this stack's ratios."""
    rows = report.depth
    if all(r.ratio == 2 for r in rows):
        return Paragraph((
            "Here the ratio is exactly 2 at every depth: the directions are merged to an H-wide "
            "output, so every layer reads what the unidirectional layer reads.",
        ))
    second, last = rows[1], rows[-1]
    modes = report.spec.merge_modes
    reason = (
        "every layer after the first reads both directions' outputs"
        if not modes or all(m.value == "concat" for m in modes[:-1]) else
        "a layer after a concat merge reads both directions' outputs, 2·H wide (after sum, mul "
        "or ave it reads H, as a unidirectional layer does)"
    )
    return Paragraph((
        f"\"A bidirectional RNN has 2P parameters\" holds for one layer only: with "
        f"{second.layers} layers the ratio is {float(second.ratio):.3f}, with {last.layers} "
        f"it is {float(last.ratio):.3f}, because {reason}.",
    ))


def pitfall_section(pitfall: Pitfall) -> Section:
    """One pitfall as a titled paragraph."""
    return Section(f"Pitfall: {pitfall.title}", (Paragraph(pitfall.lines),))


def summary(report: Report, why: bool = False) -> str:
    """The one-line answer: the total, and the naive guess it is not (``why``: and the reason,
    as the first paragraph of the full answer says it)."""
    growth = report.growth
    if growth is not None and growth.difference:
        because = f", because {growth_because(report.spec, growth)}" if why else ""
        return (
            f"{number(report.total)} parameters, not {growth.multiplier} × "
            f"{number(growth.baseline)} = {number(growth.naive)}{because}"
        )
    return f"{number(report.total)} parameters"


def explain(report: Report, verification: Outcome | None = None,
            others: bool = False) -> Document:
    """The complete answer for one configuration: the numbers and the reason first, then the
    formula and the tables; pitfalls of other frameworks only with ``others``."""
    report = with_depth(report)
    spec = report.spec
    sections = []
    if report.growth is not None:
        sections.append(growth_section(report, report.growth))
    sections.append(formula_section(report))
    if not spec.single_cell:
        sections.append(Section("Per layer", (layer_table(report),)))
    tensors = Section("Tensors", (tensor_table(report, verification),))
    if len(report.tensors) > 48:
        tensors = Section("Tensors", (Paragraph((
            f"{len(report.tensors)} tensors: 'paramcount {spec.cell.value} ...' with the same "
            "options lists them.",
        )),))
    if verification is not None:
        from paramcount.render.verification import verified_sections

        sections += verified_sections(tensors, verification)
    elif len(report.tensors) <= 48:
        sections.append(tensors)
    if report.depth:
        depth = depth_section(report)
        constant = all(r.ratio == 2 for r in report.depth)
        sections.append(replace(
            depth,
            title=f"Bidirectional ÷ unidirectional, 1 to {len(report.depth)} layers",
            blocks=(*(depth.blocks[:1] if constant else depth.blocks), depth_answer(report),
                    ratio_chart(report.depth, report.depth_limit)),
        ))
    sections += [pitfall_section(p) for p in pitfalls(spec, others)]
    title = f"{report.description} — {spec.framework.display_name}"
    return Document(title, summary(report, why=True), tuple(sections))


BRIEF_GROUPS = 2
"""The most runs of equal layers the brief answer names (the rest are summed)."""
BRIEF_FORMULA = 76
"""The widest formula line the brief answer shows."""


def _brief_sentences(report: Report, growth: Growth) -> list[str]:
    """The gap attributed to runs of layers that add the same: ``Layers 1–7 each read ...``."""
    groups: dict[GrowthRow, list[int]] = {}  # layers that add the same, keyed by layer 0
    for row in growth.rows:
        if row.extra_columns:
            groups.setdefault(replace(row, layer=0), []).append(row.layer)
    gate_axis, input_axis = AXES[report.spec.framework]
    sentences = []
    for row, layers in list(groups.items())[:BRIEF_GROUPS]:
        more = "extra" if row.extra_columns > 0 else "fewer"
        share = (f"{row.directions} direction{'s' if row.directions > 1 else ''} × "
                 f"{number(row.gate_rows)} {gate_axis} × {number(abs(row.extra_columns))} "
                 f"{more} {input_axis} = {signed(row.extra)}")
        widths = f"{number(row.input_width)}, not {number(row.naive_width)}"
        if len(layers) == 1:
            sentences.append(f"Layer {layers[0]} reads {widths}: {share}.")
        else:
            named = (f"{layers[0]}–{layers[-1]}" if layers == list(range(layers[0],
                                                                       layers[-1] + 1))
                     else ", ".join(map(str, layers[:-1])) + f" and {layers[-1]}")
            sentences.append(f"Layers {named} each read {widths}: {share} each, "
                             f"{signed(row.extra * len(layers))} in all.")
    if len(groups) > BRIEF_GROUPS:
        rest = sum(row.extra * len(layers)
                   for row, layers in list(groups.items())[BRIEF_GROUPS:])
        sentences.append(f"The other layers add {signed(rest)}.")
    return sentences


BRIEF_TITLE = 72
"""The longest framework code the brief answer puts in its title; longer stacks are described."""


def _short(report: Report) -> str:
    """The framework's code for the layer, or its shape in words when that is too long."""
    if len(report.description) <= BRIEF_TITLE:
        return report.description
    spec = report.spec
    kind = "bidirectional " if spec.bidirectional else ""
    return (f"{number(spec.num_layers)}-layer {kind}{spec.cell.value.upper()}, input "
            f"{number(spec.input_size)}, hidden {number(spec.hidden_size)}")


def brief(report: Report, verification: Outcome | None = None) -> Document:
    """The answer in at most a dozen lines: actual versus naive, the reason, the formula."""
    spec = report.spec
    growth = report.growth
    formula = report.formula
    blocks: list[Block] = []
    if growth is not None:
        blocks.append(Paragraph((
            " ".join([growth_reason(report, growth), *_brief_sentences(report, growth)]),
        )))
    lines = [formula.symbolic] if growth is None else []
    lines.append(f"= {formula.substituted} = {number(formula.total)}")
    if all(len(line) <= BRIEF_FORMULA for line in lines):
        blocks.append(Math(tuple(lines)))
    if verification is not None:
        from paramcount.render.verification import verdict

        blocks.append(Paragraph((verdict(verification),)))
    title = f"{_short(report)} — {spec.framework.display_name}"
    text = summary(report)
    if growth is not None and growth.difference:
        text += f" ({signed(growth.difference)})"
    return Document(title, text, (Section("Why", tuple(blocks)),) if blocks else ())


def explain_data(report: Report, verification: Outcome | None = None,
                 others: bool = False) -> dict[str, Any]:
    """The explanation as JSON-ready data: the count report plus the pitfalls."""
    from paramcount.render.data import report_data

    report = with_depth(report)
    data = report_data(report, verification)
    data["schema"] = "paramcount.explain/1"
    data["depth_limit"] = None if report.depth_limit is None else float(report.depth_limit)
    data["pitfalls"] = [
        {"key": p.key, "title": p.title, "text": list(p.lines), "numbers": p.numbers}
        for p in pitfalls(report.spec, others)
    ]
    return data
