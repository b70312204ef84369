"""Explaining family models, as Documents and JSON data: what each option adds, the LSTM and
GRU of the same width, the bidirectional Mamba, and ``compare`` across families."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from paramcount import __version__
from paramcount.families.explain import Bidirectional, KnobChange, SameWidth, TensorChange
from paramcount.families.parts import role_of
from paramcount.families.report import FamilyReport
from paramcount.render.document import (
    Document,
    Paragraph,
    Section,
    Table,
    aligned,
    number,
    shape,
    signed,
)

COMPARE_SCHEMA = "paramcount.family-compare/1"


def _ratio(value: int, other: int) -> str:
    return f"{value / other:.2f}×" if other else "—"


def knob_section(changes: list[KnobChange]) -> Section:
    """What each option adds: the totals before and after, the tensors that change."""
    rows = []
    for change in changes:
        if change.refused:
            rows.append((change.field, f"{change.before!r} → {change.after!r}", "refused",
                         change.refused))
            continue
        rows.append((change.field, f"{change.before!r} → {change.after!r}",
                     signed(change.delta), _changed(change.tensors)))
    table = Table(("option", "change", "adds", "tensors that change"), tuple(rows),
                  frozenset({"adds"}))
    return Section("What each option adds", (
        Paragraph(("Each option on its own, a count doubled or a switch flipped "
                   "(--what-if FIELD=VALUE shows one change tensor by tensor):",)), table))


def _changed(tensors: tuple[TensorChange, ...]) -> str:
    """``A_log, x_proj``: the short names of the changed tensors, at most four."""
    names = list(dict.fromkeys(role_of(t.pattern) for t in tensors))
    if not names:
        return "none"
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


def what_if_section(change: KnobChange) -> Section:
    """One option changed as asked: ``state_size 16 → 64 adds 3,538,944``, tensor by tensor."""
    title = f"{change.field} {change.before!r} → {change.after!r}"
    if change.refused:
        return Section(title, (Paragraph((f"Refused: {change.refused}",)),))
    rows = tuple((t.pattern, "—" if t.before is None else shape(t.before),
                  "—" if t.after is None else shape(t.after), number(t.copies), signed(t.delta))
                 for t in change.tensors)
    return Section(title, (
        Paragraph((f"{number(change.total_before)} → {number(change.total_after)} parameters: "
                   f"{signed(change.delta)} ({_percent(change.delta, change.total_before)}).",)),
        Table(("tensor", "before", "after", "blocks", "adds"), rows,
              frozenset({"blocks", "adds"}),
              footer=("total", "", "", "", signed(change.delta)))))


def _percent(delta: int, total: int) -> str:
    return f"{100 * delta / total:+.1f}%".replace("-", "−") if total else "—"


def same_width_section(report: FamilyReport, width: SameWidth) -> Section:
    """The family's block against nn.LSTM / nn.GRU layers of the same width."""
    d = number(width.width)
    rows = (
        (f"one {report.title} block", number(width.block), "1.00×"),
        (f"nn.LSTM({d}, {d})", number(width.lstm), _ratio(width.lstm, width.block)),
        (f"nn.GRU({d}, {d})", number(width.gru), _ratio(width.gru, width.block)),
    )
    return Section("Against an LSTM or GRU of the same width", (
        Table(("layer", "parameters", "× the block"), rows,
              frozenset({"parameters", "× the block"})),
        Paragraph((
            f"{number(width.blocks)} blocks hold {number(width.blocks_total)}; a "
            f"{number(width.blocks)}-layer nn.LSTM of width {d} would hold "
            f"{number(width.blocks * width.lstm)}, an nn.GRU {number(width.blocks * width.gru)} "
            "(embeddings and head aside).",)),
    ))


def bidirectional_section(bi: Bidirectional) -> Section:
    """Vision Mamba's and Caduceus' bidirectional Mamba: why it is not twice the model."""
    lines = [
        ("naive guess", f"2 × {number(bi.unidirectional)} = {number(bi.naive)}"),
        ("tied", f"{number(bi.tied)} ({signed(bi.tied - bi.naive)}): Vision Mamba's v2, "
                 "Caduceus with bidirectional_weight_tie"),
        ("untied", f"{number(bi.untied)} ({signed(bi.untied - bi.naive)}): a whole second "
                   "mixer per block"),
    ]
    reason = (
        "A bidirectional Mamba runs a second, reverse mixer in every block. Only the mixers "
        "double: the embeddings, the norms and the head are shared. With the projections tied "
        f"(in_proj and out_proj, {number(bi.shared)} per block), the reverse mixer adds only "
        f"its conv1d, x_proj, dt_proj, A_log and D: {number(bi.reverse)} per block, × "
        f"{number(bi.blocks)} blocks.")
    return Section("Bidirectional (Vision Mamba, Caduceus)", (Paragraph((reason,)),
                                                               aligned(lines)))


def explanation(report: FamilyReport, what_if: list[KnobChange]) -> tuple[Section, ...]:
    """The explain sections: the asked changes, every option's effect, the LSTM and GRU of the
    same width, and (Mamba) the bidirectional variant."""
    from paramcount.families.explain import bidirectional, knob_changes, same_width

    made = list(report.tensors)
    sections = [what_if_section(change) for change in what_if]
    sections.append(knob_section(knob_changes(report.family, report.config)))
    sections.append(same_width_section(report, same_width(report.config, made)))
    if report.family == "mamba":
        sections.append(bidirectional_section(bidirectional(made)))
    return tuple(sections)


def explanation_data(report: FamilyReport, what_if: list[KnobChange]) -> dict[str, Any]:
    """The explain sections as JSON-ready data."""
    from paramcount.families.explain import bidirectional, knob_changes, same_width

    made = list(report.tensors)
    width = same_width(report.config, made)
    data: dict[str, Any] = {
        "what_if": [change_data(c) for c in what_if],
        "knobs": [change_data(c) for c in knob_changes(report.family, report.config)],
        "same_width": {"width": width.width, "blocks": width.blocks, "block": width.block,
                       "lstm": width.lstm, "gru": width.gru},
        "bidirectional": None,
    }
    if report.family == "mamba":
        bi = bidirectional(made)
        data["bidirectional"] = {"naive": bi.naive, "tied": bi.tied, "untied": bi.untied,
                                 "reverse_per_block": bi.reverse,
                                 "shared_per_block": bi.shared}
    return data


def change_data(change: KnobChange) -> dict[str, Any]:
    """One option's change as data."""
    return {"field": change.field, "before": change.before, "after": change.after,
            "total_before": change.total_before, "total_after": change.total_after,
            "delta": change.delta, "refused": change.refused or None,
            "tensors": [{"tensor": t.pattern,
                         "before": None if t.before is None else list(t.before),
                         "after": None if t.after is None else list(t.after),
                         "blocks": t.copies, "delta": t.delta} for t in change.tensors]}


def _changes(items: list[tuple[str, object]]) -> list[tuple[str, str, KnobChange]]:
    """What changed between each model and the next one of the same family."""
    from paramcount.families.explain import change_between

    out = []
    for (first, a), (second, b) in pairwise(items):
        if isinstance(a, FamilyReport) and isinstance(b, FamilyReport) and a.family == b.family:
            out.append((first, second, change_between(a.family, a.config, b.config)))
    return out


def _row(text: str, item: object) -> tuple[str, str, int]:
    """(argument, what it builds, total) for a family report or a layer report."""
    if isinstance(item, FamilyReport):
        return text, f"{item.title} — {item.reference}", item.total
    from paramcount.engine.report import Report

    assert isinstance(item, Report)
    return text, item.description, item.total


def compare_document(items: list[tuple[str, object]]) -> Document:
    """Family models and recurrent layers side by side, the changes within a family named."""
    rows = [_row(text, item) for text, item in items]
    first = rows[0][2]
    table = Table(("configuration", "builds", "parameters", "difference"), tuple(
        (text, builds, number(total), signed(total - first)) for text, builds, total in rows),
        frozenset({"parameters", "difference"}))
    sections = [Section("Totals", (table,))]
    for a, b, change in _changes(items):
        section = what_if_section(change)
        sections.append(Section(f"{a} → {b}", section.blocks))
    return Document("Compared", " vs ".join(number(total) for _, _, total in rows)
                    + " parameters", tuple(sections))


def compare_data(items: list[tuple[str, object]]) -> dict[str, Any]:
    """The comparison as JSON-ready data."""
    return {
        "schema": COMPARE_SCHEMA,
        "paramcount": __version__,
        "configurations": [{"argument": text, "builds": builds, "total": total}
                           for text, builds, total in (_row(t, i) for t, i in items)],
        "changes": [{"from": a, "to": b, "change": change_data(change)}
                    for a, b, change in _changes(items)],
    }
