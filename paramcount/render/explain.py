"""``paramcount explain``: one report as a complete forum answer, with a depth chart.

Built from the report's own pieces (formula, per-layer totals, growth, depth table) and the
pitfalls that apply; the chart of the bidirectional/unidirectional ratio is drawn with block
characters in a Math block, so it looks the same in plain text, rich and Markdown.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from paramcount.pitfalls import Pitfall, pitfalls
from paramcount.render.breakdown import (
    depth_section,
    formula_section,
    growth_section,
    layer_table,
    tensor_table,
)
from paramcount.render.document import Document, Math, Paragraph, Section, number
from paramcount.report import DepthRow, Report, depth_limit, depth_table

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
    return dataclasses.replace(
        report, depth=depth_table(report.spec, up_to), depth_limit=depth_limit(report.spec)
    )


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


def summary(report: Report) -> str:
    """The one-line answer: the total, and the naive guess it is not."""
    growth = report.growth
    if growth is not None and growth.difference:
        return (
            f"{number(report.total)} parameters, not {growth.multiplier} × "
            f"{number(growth.baseline)} = {number(growth.naive)}"
        )
    return f"{number(report.total)} parameters"


def explain(report: Report, verification: Outcome | None = None) -> Document:
    """The complete answer for one configuration, verified against its framework if given."""
    report = with_depth(report)
    spec = report.spec
    sections = [formula_section(report)]
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
    if report.growth is not None:
        sections.append(growth_section(report, report.growth))
    if report.depth:
        depth = depth_section(report)
        constant = all(r.ratio == 2 for r in report.depth)
        sections.append(dataclasses.replace(
            depth,
            title=f"Bidirectional ÷ unidirectional, 1 to {len(report.depth)} layers",
            blocks=(*(depth.blocks[:1] if constant else depth.blocks), depth_answer(report),
                    ratio_chart(report.depth, report.depth_limit)),
        ))
    sections += [pitfall_section(p) for p in pitfalls(spec)]
    title = f"{report.description} — {spec.framework.display_name}"
    return Document(title, summary(report), tuple(sections))


def explain_data(report: Report, verification: Outcome | None = None) -> dict[str, Any]:
    """The explanation as JSON-ready data: the count report plus the pitfalls."""
    from paramcount.render.data import report_data

    report = with_depth(report)
    data = report_data(report, verification)
    data["schema"] = "paramcount.explain/1"
    data["depth_limit"] = None if report.depth_limit is None else float(report.depth_limit)
    data["pitfalls"] = [
        {"key": p.key, "title": p.title, "text": list(p.lines), "numbers": p.numbers}
        for p in pitfalls(report.spec)
    ]
    return data
