"""``paramcount compare``: configurations side by side, as a Document or JSON data."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from paramcount.analysis.compare import Difference, align, difference, output_width, part_totals
from paramcount.engine.conventions import Direction, Tensor
from paramcount.engine.report import Report
from paramcount.render.document import (
    Block,
    Document,
    Math,
    Paragraph,
    Section,
    Table,
    number,
    shape,
    signed,
)

if TYPE_CHECKING:
    from paramcount.render.verification import Outcome


def _tensors(entry: tuple[Tensor, ...]) -> str:
    """``W (2, 80, 10)``, ``2 × bias_ih (80,) + 2 × bias_hh (80,)`` (both directions), or —."""
    seen: dict[str, int] = {}
    for t in entry:
        key = f"{t.role} {shape(t.shape)}"
        seen[key] = seen.get(key, 0) + 1
    return " + ".join(f"{n} × {key}" if n > 1 else key for key, n in seen.items()) or "—"


def _ratio(before: int, after: int) -> str:
    value = Fraction(after, before)
    return str(value) if value.denominator <= 16 else f"{float(value):.3f}"


def _label(k: int) -> str:
    return f"#{k + 1}"


def difference_section(diff: Difference, before: int, after: int) -> Section:
    """Why configuration ``after`` differs from ``before``, part by part."""
    title = (f"Why {_label(after)} differs from {_label(before)}: "
             f"{number(diff.before.total)} → {number(diff.after.total)} "
             f"({signed(diff.total)})")
    lines = []
    for change in diff.parts:
        verdict = "same" if change.difference == 0 else (
            f"{signed(change.difference)}, ×{_ratio(change.before, change.after)}"
            if change.before else signed(change.difference)
        )
        lines.append(f"{change.part}: {number(change.before)} → {number(change.after)} "
                     f"({verdict})")
        lines += [f"  · {factor}" for factor in change.factors]
    blocks: list[Block] = [Math(tuple(lines)), Paragraph(diff.notes)]
    return Section(title, tuple(blocks))


def compare_document(
    reports: list[Report], arguments: list[str], outcomes: list[Outcome] | None = None
) -> Document:
    """Configurations side by side: summary table, aligned tensors, parts, the differences;
    with ``outcomes``, each configuration's verdict against its real layer."""
    labels = [_label(k) for k in range(len(reports))]
    config_rows = tuple(
        (label, argument, r.description, r.spec.framework.display_name,
         number(output_width(r.spec)), number(r.total))
        for label, argument, r in zip(labels, arguments, reports, strict=False)
    )
    configs = Table(("", "config", "layer", "framework", "output/step", "parameters"),
                    config_rows, frozenset({"output/step", "parameters"}))
    config_blocks: tuple[Block, ...] = (configs,)
    if outcomes is not None:
        from paramcount.render.verification import verdict, with_verdict_column

        config_blocks = (with_verdict_column(configs, outcomes), Paragraph(tuple(
            f"{label}: {verdict(outcome)}" for label, outcome in zip(labels, outcomes,
                                                                       strict=True)
        )))
    headers: list[str] = ["layer", "direction", "part"]
    for label in labels:
        headers += [f"{label} tensors", label]
    rows = tuple(
        (str(row.layer), row.direction.value, row.part,
         *(cell for entry, count in zip(row.entries, row.counts, strict=False)
           for cell in (_tensors(entry), number(count))))
        for row in align(reports)
    )
    footer = ("", "", "total", *(cell for r in reports for cell in ("", number(r.total))))
    aligned = Table(tuple(headers), rows, frozenset(labels), footer)
    totals = [part_totals(r) for r in reports]
    names = [n for n in totals[0] if any(t[n] for t in totals)]
    part_headers = ("part", *labels, *(f"{label} − #1" for label in labels[1:]))
    part_rows = tuple(
        (n, *(number(t[n]) for t in totals), *(signed(t[n] - totals[0][n]) for t in totals[1:]))
        for n in names
    )
    part_footer = ("total", *(number(r.total) for r in reports),
                   *(signed(r.total - reports[0].total) for r in reports[1:]))
    parts = Table(part_headers, part_rows, frozenset(part_headers[1:]), part_footer)
    aligned_blocks: tuple[Block, ...] = (aligned,)
    if any(row.direction is Direction.BOTH for row in align(reports)):
        aligned_blocks += (Paragraph((
            "ONNX stacks both directions in one tensor (first axis D = 2), so each row here "
            "holds both directions of every configuration.",
        )),)
    sections = [
        Section("Configurations", config_blocks),
        Section("Tensors, aligned by layer, direction and part", aligned_blocks),
        Section("By part", (parts,)),
    ]
    sections += [
        difference_section(difference(reports[0], r), 0, k)
        for k, r in enumerate(reports) if k
    ]
    return Document(
        f"{len(reports)} configurations side by side",
        " vs ".join(number(r.total) for r in reports) + " parameters",
        tuple(sections),
    )


def compare_data(
    reports: list[Report], arguments: list[str], outcomes: list[Outcome] | None = None
) -> dict[str, Any]:
    """The comparison as JSON-ready data (schema ``paramcount.compare/1``)."""
    from paramcount._version import __version__
    from paramcount.render.data import config, verification_data

    return {
        "schema": "paramcount.compare/1",
        "paramcount": __version__,
        "configs": [
            {
                "argument": argument,
                "framework": r.spec.framework.value,
                "layer": r.description,
                "config": config(r),
                "output_width": output_width(r.spec),
                "total": r.total,
                "parts": part_totals(r),
                **({} if outcomes is None else {"verification": verification_data(outcomes[k])}),
            }
            for k, (argument, r) in enumerate(zip(arguments, reports, strict=True))
        ],
        "rows": [
            {
                "layer": row.layer,
                "direction": row.direction.value,
                "part": row.part,
                "counts": list(row.counts),
                "tensors": [
                    [{"name": t.name, "shape": list(t.shape), "count": t.count} for t in entry]
                    for entry in row.entries
                ],
            }
            for row in align(reports)
        ],
        "differences": [
            {
                "from": 0,
                "to": k,
                "difference": d.total,
                "parts": [
                    {"part": c.part, "from": c.before, "to": c.after,
                     "difference": c.difference, "factors": list(c.factors)}
                    for c in d.parts
                ],
                "notes": list(d.notes),
            }
            for k, d in ((k, difference(reports[0], r)) for k, r in enumerate(reports) if k)
        ],
    }
