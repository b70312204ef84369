"""``paramcount inspect --error`` output: what a failed load says, for people and as JSON.

Nothing here computes: every value comes from :mod:`reading.messages.load_error`'s analysis.
"""

from __future__ import annotations

from typing import Any

from paramcount.reading.messages.load_error import LoadErrorAnalysis, PartialLayer
from paramcount.render.document import Document, Math, Paragraph, Section, Table, escaped, number

SCHEMA = "paramcount.inspect/1"


def _name(module: str | None) -> str:
    if module is None:
        return "(the layer)"
    return module or "(top level)"


def _params(layer: PartialLayer) -> str:
    params = layer.params
    return "?" if params is None else number(params)


def _value(value: object) -> str:
    if value is None:
        return "?"
    if isinstance(value, list):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return str(value)


def document(analysis: LoadErrorAnalysis) -> Document:
    """The analysis as sections: each side per module, the differences, the fixes, the notes."""
    sections = []
    if analysis.kind == "load_state_dict":
        title = "load_state_dict error" + (
            f" for {analysis.model_class}" if analysis.model_class else ""
        )
        rows = tuple(
            (_name(ck.name), ck.describe(), _params(ck), md.describe(), _params(md))
            for ck, md in zip(analysis.checkpoint, analysis.model, strict=True)
        )
        if rows:
            sections.append(Section("Recurrent modules", (Table(
                ("module", "checkpoint holds", "parameters", "your model expects", "parameters"),
                rows, frozenset({"parameters"}),
            ),)))
    else:
        title = "recurrent layer size error"
        sections.append(Section("The layer", (Table(
            ("layer expects", "parameters"),
            tuple((layer.describe(), _params(layer)) for layer in analysis.model),
            frozenset({"parameters"}),
        ),)))
    if analysis.differences:
        sides = ("checkpoint", "model") if analysis.kind == "load_state_dict" else \
            ("passed", "expected")
        sections.append(Section("Differences", (
            Table(("module", "what", *sides),
                  tuple((_name(d.module), d.field, _value(d.checkpoint), _value(d.model))
                        for d in analysis.differences)),
            Paragraph(tuple(f"- {d.explanation}" for d in analysis.differences)),
        )))
    if analysis.fixes:
        sections.append(Section("Fix", (Paragraph(tuple(f"- {f}" for f in analysis.fixes)),)))
    commands = tuple(
        f"{side} {_name(layer.name)}: {layer.command}"
        for side, layers in (("checkpoint", analysis.checkpoint), ("model", analysis.model))
        for layer in layers if layer.command
    )
    if commands:
        sections.append(Section("Count each one in full", (Math(commands),)))
    if analysis.notes:
        sections.append(Section("Notes", (Paragraph(tuple(f"- {n}" for n in analysis.notes)),)))
    if analysis.other:
        sections.append(Section("Other keys", (
            Paragraph(tuple(f"- {line}" for line in analysis.other)),
        )))
    if analysis.unread:
        sections.append(Section("Not read", (
            Paragraph(tuple(f"- {line}" for line in analysis.unread)),
        )))
    summary = analysis.fixes[0] if analysis.fixes else "no difference in a recurrent layer found"
    if analysis.unread:
        lines = "1 line" if len(analysis.unread) == 1 else f"{len(analysis.unread)} lines"
        summary += f" (in the lines read: {lines} of the error not read, below)"
    return escaped(Document(title, summary, tuple(sections)))


def layer_data(layer: PartialLayer) -> dict[str, Any]:
    """One side of one recurrent module, with the keys of ``recurrent`` in inspect's JSON."""
    return {
        "name": layer.name,
        "framework": layer.framework.value,
        "cell": None if layer.cell is None else layer.cell.value,
        "input": layer.input_size,
        "hidden": layer.hidden_size,
        "layers": layer.num_layers,
        "bidirectional": layer.bidirectional,
        "bias": layer.bias,
        "proj": layer.proj_size,
        "cell_only": layer.cell_only,
        "reset_after": None,
        "layer": layer.describe(),
        "params": layer.params,
        "command": layer.command,
    }


def data(analysis: LoadErrorAnalysis) -> dict[str, Any]:
    """The analysis as JSON data: ``checkpoint`` and ``model`` layers, null where unknown.

    Each difference gives the ``checkpoint`` and ``model`` values, or for a runtime error what
    was ``passed`` and what the layer ``expected``.
    """
    sides = ("checkpoint", "model") if analysis.kind == "load_state_dict" else \
        ("passed", "expected")
    return {
        "schema": SCHEMA,
        "error": analysis.kind,
        "model_class": analysis.model_class,
        "checkpoint": [layer_data(layer) for layer in analysis.checkpoint],
        "model": [layer_data(layer) for layer in analysis.model],
        "differences": [
            {"module": d.module, "field": d.field, sides[0]: d.checkpoint, sides[1]: d.model,
             "explanation": d.explanation}
            for d in analysis.differences
        ],
        "fixes": list(analysis.fixes),
        "notes": list(analysis.notes),
        "other": list(analysis.other),
        "unread": list(analysis.unread),
    }
