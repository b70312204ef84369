"""What ``paramcount read`` shows: the answer as a Document (table or Markdown) or JSON data.

Nothing is counted here: every number comes from :class:`paramcount.reading.pipeline.Answer`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from paramcount._version import __version__
from paramcount.engine import conventions
from paramcount.engine.commandline import command_line as command
from paramcount.engine.report import Report
from paramcount.engine.spec import LayerSpec
from paramcount.reading.models import cell_of
from paramcount.reading.pipeline import SCHEMA, Answer, Layer, Model
from paramcount.reading.solve import Fit
from paramcount.render.document import Block, Document, Math, Paragraph, Section, Table, number


def _count(value: int | None) -> str:
    return "?" if value is None else number(value)


def _total(model: Model) -> str:
    """A model's total, ``≥ N`` where only a bound is known, ``?`` where not even that."""
    if model.total is None and model.at_least is not None and not model.accounting.whole:
        return f"≥ {number(model.at_least)}"
    return _count(model.total)


def read_document(answer: Answer, reports: Mapping[int, Report] | None = None) -> Document:
    """The answer: the numbers and the reason first, then layers, models, disagreements,
    unresolved names, notes and (given each recurrent layer's report, by ``id`` of the layer)
    every tensor."""
    title, reason = answer.title, answer.reason
    sections: list[Section] = []
    if answer.errors:
        sections.append(Section("Runtime errors", (Table(
            ("line", "layer", "at fault", "fix"),
            tuple((str(e.line), e.layer or "·", e.argument, e.fix) for e in answer.errors),
            numeric=frozenset({"line"})),)))
    rows = []
    for model, layer in answer.recurrent:
        rows.append((
            model.name, layer.name or "·", str(layer.line or ""),
            conventions.describe(layer.spec) if layer.spec else layer.kind,
            _count(layer.params), command(layer.spec) if layer.spec else "",
        ))
    if rows:
        sections.append(Section("Recurrent layers", (Table(
            ("model", "layer", "line", "configuration", "parameters", "reproduce"),
            tuple(rows), numeric=frozenset({"line", "parameters"})),)))
    fitting = [(model, layer, fit) for model, layer in answer.recurrent
               if layer.solution is not None and layer.solution.spec is None
               for fit in layer.solution.choices]
    if fitting:
        sections.append(Section("Configurations that fit the printout", (Table(
            ("model", "layer", "line", "configuration", "parameters", "needs", "reproduce"),
            tuple((model.name, layer.name or "·", str(layer.line or ""), text,
                   "?" if params is None else number(params), ", ".join(fit.assumes),
                   line or "")
                  for model, layer, fit in fitting
                  for text, params, line in (_fit_facts(fit),)),
            numeric=frozenset({"line", "parameters"})),)))
    if answer.models:
        sections.append(Section("Models", (Table(
            ("model", "from", "line", "total", "printed total"),
            tuple((m.name, m.source, str(m.line or ""), _total(m),
                   "" if m.printed_total is None else number(m.printed_total))
                  for m in answer.models),
            numeric=frozenset({"line", "total", "printed total"})),)))
    if answer.disagreements:
        sections.append(Section("Disagreements", (Table(
            ("line", "layer", "printed", "computed", "reason"),
            tuple((str(d.line or ""), d.layer, number(d.printed), _count(d.computed), d.reason)
                  for d in answer.disagreements),
            numeric=frozenset({"line", "printed", "computed"}), prose=frozenset({"reason"})),)))
    if answer.unresolved:
        sections.append(Section("Could not resolve", (Table(
            ("name", "line", "what to do"),
            tuple((m.name, str(m.line or ""), m.hint) for m in answer.unresolved),
            numeric=frozenset({"line"})),)))
    notes: list[tuple[str, str]] = [("paste", note) for note in answer.notes]
    for model in answer.models:
        if not model.accounting.whole:
            notes.append((model.name, f"its total is {model.bound}"))
        notes += [(model.name, note) for note in model.notes
                  if (model.name, note) not in notes and note not in answer.notes]
        for layer in model.layers:
            notes += [(f"{model.name}.{layer.name or layer.kind}", note) for note in layer.notes]
    if notes:
        sections.append(Section("Notes", (Table(("where", "note"), tuple(notes),
                                                prose=frozenset({"note"})),)))
    if reports is not None:
        sections += _details(answer, reports)
    return Document(title, reason, tuple(sections))


def _details(answer: Answer, reports: Mapping[int, Report]) -> list[Section]:
    from paramcount.render.breakdown import tensor_table

    sections = []
    for model in answer.models:
        blocks: list[Block] = []
        for layer in model.layers:
            if layer.spec is not None and id(layer) in reports:
                report = reports[id(layer)]
                blocks += [Paragraph((f"{layer.name or layer.kind}: "
                                      f"{conventions.describe(layer.spec)}",)),
                           Math((report.formula.symbolic,
                                 f"= {report.formula.substituted} = "
                                 f"{number(report.formula.total)}")),
                           tensor_table(report)]
            elif layer.formula is not None:
                blocks.append(Paragraph((f"{layer.name or layer.kind}: {layer.kind} = "
                                         f"{layer.formula} = {_count(layer.params)}",)))
        if blocks:
            sections.append(Section(f"Details: {model.name} ({model.source})", tuple(blocks)))
    return sections


def _merge(layer: Layer) -> Any:
    spec = layer.spec
    if spec is None or not spec.merge_modes:
        return None
    modes = [m.value for m in spec.merge_modes]
    return modes[0] if len(set(modes)) == 1 else modes


def recurrent_data(model: Model, layer: Layer,
                   reports: Mapping[int, Report] | None) -> dict[str, Any]:
    """One recurrent layer: its configuration in the framework's words, count and command."""
    spec = layer.spec
    cell = spec.cell.value if spec else (c.value if (c := cell_of(layer.kind)) else None)
    data: dict[str, Any] = {
        "model": model.name,
        "name": layer.name,
        "class": layer.kind,
        "source": model.source,
        "cell": cell,
        "framework": (spec.framework.value if spec else
                      layer.framework.value if layer.framework else None),
        "input": spec.input_size if spec else None,
        "hidden": spec.hidden_size if spec else None,
        "layers": spec.num_layers if spec else None,
        "bidirectional": spec.bidirectional if spec else None,
        "bias": spec.bias if spec else None,
        "proj": spec.proj_size if spec else None,
        "cell_only": spec.single_cell if spec else None,
        "reset_after": spec.reset_after if spec else None,
        "merge_mode": _merge(layer),
        "params": layer.params,
        "printed": layer.printed,
        "line": layer.line,
        "command": command(spec) if spec else None,
        "notes": list(layer.notes),
        "solved": None if layer.solution is None else {
            "how": layer.solution.how,
            "apart": layer.solution.apart or None,
            "fits": [_fit_data(fit) for fit in layer.solution.choices],
        },
        "groupings": [_grouping_data(g) for g in layer.groupings],
    }
    if reports is not None:
        report = reports.get(id(layer))
        data["tensors"] = [] if report is None else [
            {"name": t.name, "shape": list(t.shape), "count": t.count} for t in report.tensors]
    return data


def _fit_data(fit: Fit) -> dict[str, Any]:
    """One configuration that fits a printed count (or a family of them): its code, its
    fields (null where the printout leaves one open), total, options, open fields and
    command."""
    configuration, params, line = _fit_facts(fit)
    fields = spec_fields(fit.spec)
    for name in fit.open:
        fields[_FIELD_OF[name]] = None
    return {"configuration": configuration, **fields, "params": params,
            "needs": list(fit.assumes), "open": list(fit.open), "command": line}


_FIELD_OF = {"input_size": "input", "hidden_size": "hidden", "proj_size": "proj",
             "num_layers": "layers", "bidirectional": "bidirectional", "bias": "bias",
             "reset_after": "reset_after"}
"""A spec field the solver may leave open, by its JSON key."""


def spec_fields(spec: LayerSpec) -> dict[str, Any]:
    """A configuration's fields as the JSON names them (``cell``, ``input``, ``hidden``, ...)."""
    return {"cell": spec.cell.value, "input": spec.input_size, "hidden": spec.hidden_size,
            "layers": spec.num_layers, "bidirectional": spec.bidirectional, "bias": spec.bias,
            "proj": spec.proj_size, "reset_after": spec.reset_after}


def _grouping_data(grouping: tuple[tuple[LayerSpec, ...], ...]) -> list[dict[str, Any]]:
    """One way to read unnamed shapes as several layers in a row: each layer's configuration
    (a one-layer module that may be a cell lists the cell too, as ``or_cell``)."""
    found = []
    for part in grouping:
        spec = part[0]
        data = {"configuration": conventions.describe(spec), **spec_fields(spec),
                "params": conventions.total(spec), "command": command(spec)}
        if len(part) > 1:
            data["or_cell"] = conventions.describe(part[1])
        found.append(data)
    return found


@lru_cache(maxsize=4096)
def _fit_facts(fit: Fit) -> tuple[str, int | None, str | None]:
    """A fit's code, total and command (None for a family), worked out once (the rows of a
    deep summary share their few fits)."""
    if fit.open:
        return fit.text, None, None
    return fit.text, conventions.total(fit.spec), command(fit.spec)


def read_data(answer: Answer, reports: Mapping[int, Report] | None = None) -> dict[str, Any]:
    """The answer as JSON-ready data: the documented ``paramcount.read/1`` schema."""
    return {
        "schema": SCHEMA,
        "paramcount": __version__,
        "source": answer.source,
        "kind": answer.kinds[0] if len(answer.kinds) == 1 else "several",
        "kinds": list(answer.kinds),
        "recurrent": [recurrent_data(m, layer, reports) for m, layer in answer.recurrent],
        "models": [
            {
                "name": m.name,
                "source": m.source,
                "line": m.line,
                "total": m.total,
                "at_least": m.at_least,
                "exact": m.total is not None,
                "unread": [{"line": u.line, "text": u.text, "reason": u.reason}
                           for u in m.accounting.unread],
                "cropped": list(m.accounting.cropped),
                "printed_total": m.printed_total,
                "candidates": [
                    {"configuration": c.configuration, "params": c.params,
                     "default": c.default, "options": dict(c.options), "command": c.command}
                    for c in m.candidates
                ],
                "notes": list(m.notes),
                "layers": [
                    {"name": layer.name, "class": layer.kind, "line": layer.line,
                     "params": layer.params, "printed": layer.printed,
                     "formula": layer.formula, "conditional": layer.conditional}
                    for layer in m.layers
                ],
            }
            for m in answer.models
        ],
        "unresolved": [{"name": u.name, "line": u.line, "hint": u.hint}
                       for u in answer.unresolved],
        "disagreements": [
            {"line": d.line, "layer": d.layer, "printed": d.printed, "computed": d.computed,
             "reason": d.reason, "source": d.source}
            for d in answer.disagreements
        ],
        "errors": [
            {"line": e.line, "framework": e.framework, "message": e.message, "layer": e.layer,
             "argument": e.argument, "fix": e.fix}
            for e in answer.errors
        ],
        "notes": list(answer.notes),
        "overrides": dict(answer.overrides),
    }
