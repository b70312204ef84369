"""``paramcount.summary(model)``: the live model's Document and its ``paramcount.summary/1``
JSON data. Nothing is counted here: every number comes from
:class:`paramcount.live.model.ModelSummary`."""

from __future__ import annotations

from typing import Any

from paramcount._version import __version__
from paramcount.engine.report import Report
from paramcount.families.explain import knob_changes
from paramcount.files.inspect import FamilyModel, Layer, module_of
from paramcount.live.description import Kind
from paramcount.live.model import ModelSummary
from paramcount.render.data import formula_data
from paramcount.render.document import (
    Document,
    Math,
    Paragraph,
    Section,
    Table,
    escaped,
    number,
    shape,
    signed,
    size,
)
from paramcount.render.family_explain import change_data
from paramcount.render.inspect import family_data, family_section

SCHEMA = "paramcount.summary/1"
_PARAMETERS = (Kind.TRAINABLE, Kind.FROZEN)


def headline(summary: ModelSummary) -> str:
    """``16,321 parameters (14,721 trainable, 1,600 frozen) · 33 buffer values · …``."""
    text = f"{number(summary.total)} parameters"
    if summary.frozen:
        text += f" ({number(summary.trainable)} trainable, {number(summary.frozen)} frozen)"
    if summary.buffers:
        text += f" · {number(summary.buffers)} buffer values"
    if summary.packed:
        text += f" · {number(summary.packed)} weights packed (quantized)"
    return text + f" · {number(summary.bytes)} bytes ({size(summary.bytes)})"


def _growth(report: Report) -> str:
    growth = report.growth
    if growth is None:
        return ""
    guess = f"{growth.multiplier} × {number(growth.baseline)} = {number(growth.naive)}"
    return f"{guess}: exact" if not growth.difference else f"{guess}, {signed(growth.difference)}"


def _owners(summary: ModelSummary) -> dict[str, str]:
    """Each tensor's module: the one that holds it, else the path its name gives."""
    owners = {name: module.name for module in summary.live.modules for name in module.tensors}
    return {t.tensor.name: owners.get(t.tensor.name, module_of(t.tensor.name))
            for t in summary.tensors}


def _module_rows(summary: ModelSummary) -> tuple[tuple[str, ...], ...]:
    """Each module holding tensors, with its parameters and buffer values; the sub-modules of
    a recognised layer (a Keras cell, a Flax gate's Dense) counted in one row with it."""
    counts = {t.tensor.name: t for t in summary.tensors}
    found = [(layer.name, summary.layer_class(layer) or "") for layer in summary.layers] + [
        (model.name, model.family) for model in summary.families]
    rows: dict[str, tuple[str, int, int]] = {}
    for module in summary.live.modules:
        if not module.tensors:
            continue
        name, kind = module.name, module.kind
        for layer, klass in found:
            if layer and (name == layer or name.startswith((layer + "/", layer + "."))):
                name, kind = layer, klass
                break
        params = sum(counts[n].tensor.count for n in module.tensors
                     if counts[n].kind in _PARAMETERS)
        buffers = sum(counts[n].tensor.count for n in module.tensors
                      if counts[n].kind is Kind.BUFFER)
        before = rows.get(name, (kind, 0, 0))
        rows[name] = (before[0], before[1] + params, before[2] + buffers)
    return tuple((name or "(top level)", kind, number(params), number(buffers))
                 for name, (kind, params, buffers) in rows.items())


def _recurrent_section(summary: ModelSummary) -> Section:
    rows = tuple(
        (layer.name or "(top level)", summary.layer_class(layer) or "", layer.description,
         number(layer.params), _growth(report),
         "✓" if layer.match else f"✗ holds {number(layer.stored)}")
        for layer, report in zip(summary.layers, summary.reports, strict=True))
    said: dict[str, list[str]] = {}
    for layer in summary.layers:
        for note in layer.notes:
            said.setdefault(note, []).append(layer.name or "(top level)")
    return Section("Recurrent layers", (
        Table(("module", "class", "layer", "parameters", "naive guess", "engine check"), rows,
              frozenset({"parameters"}), optional=("naive guess", "class")),
        Paragraph(("Each one, explained in full (formula, growth, shapes, memory):",)),
        Math(tuple(f"{layer.name or '(top level)'}: {layer.command}"
                   for layer in summary.layers)),
        *(Paragraph((f"- {', '.join(names)}: {note}",)) for note, names in said.items()),
    ))


def document(summary: ModelSummary) -> Document:
    """The summary as headed tables: recurrent layers (each explained), family blocks, the
    modules, every tensor, notes; names escaped where they hold unprintable characters."""
    live = summary.live
    sections = []
    if summary.layers:
        sections.append(_recurrent_section(summary))
    if summary.families:
        sections.append(family_section(summary.inspected))
    rows = _module_rows(summary)
    if rows:
        sections.append(Section("Modules", (Table(
            ("module", "class", "parameters", "buffers"), rows,
            frozenset({"parameters", "buffers"}),
            footer=("", "total", number(summary.total), number(summary.buffers))),)))
    owners = _owners(summary)
    tensor_rows = []
    last = None
    for item in summary.tensors:
        tensor, module = item.tensor, owners[item.tensor.name]
        label = item.kind.value + ("" if item.saved else ", not in the state dict") + (
            f", also {', '.join(item.aliases)}" if item.aliases else "")
        name = tensor.name[len(module) + 1:] if module and tensor.name.startswith(module) \
            else tensor.name
        tensor_rows.append(((module or "(top level)") if module != last else "", name,
                            shape(tensor.shape), tensor.dtype or "?", number(tensor.count),
                            label))
        last = module
    if tensor_rows:
        sections.append(Section("Tensors", (Table(
            ("module", "tensor", "shape", "dtype", "count", "kind"), tuple(tensor_rows),
            frozenset({"count"}),
            footer=("", "total", "", "", number(summary.total + summary.buffers), "")),)))
    if summary.notes:
        sections.append(Section("Notes", tuple(Paragraph((f"- {n}",)) for n in summary.notes)))
    return escaped(Document(f"{live.kind} — live {live.framework} model", headline(summary),
                            tuple(sections)))


def recurrent_data(summary: ModelSummary, layer: Layer, report: Report) -> dict[str, Any]:
    """One recurrent layer: the keys of ``read --json``'s ``recurrent[]`` (``printed``,
    ``line`` and ``solved`` null: nothing was printed), and what the live model adds: its
    engine check tensor by tensor, the formula and the naive guess's growth."""
    spec = layer.spec
    modes = [m.value for m in spec.merge_modes] if spec.merge_modes else None
    growth = report.growth
    return {
        "model": summary.live.kind, "name": layer.name, "class": summary.layer_class(layer),
        "source": f"live {summary.live.framework} model", "family": None,
        "cell": spec.cell.value, "framework": spec.framework.value,
        "input": spec.input_size, "hidden": spec.hidden_size, "layers": spec.num_layers,
        "bidirectional": spec.bidirectional, "bias": spec.bias, "proj": spec.proj_size,
        "cell_only": spec.single_cell, "reset_after": spec.reset_after,
        "merge_mode": None if modes is None else modes[0] if len(set(modes)) == 1 else modes,
        "nonlinearity": None if spec.nonlinearity is None else spec.nonlinearity.value,
        "config": None,
        "params": layer.params, "printed": None, "line": None, "command": layer.command,
        "notes": list(layer.notes), "solved": None,
        "layer": layer.description, "stored": layer.stored, "match": layer.match,
        "tensors": [{"expected": c.expected or None,
                     "expected_shape": list(c.expected_shape) if c.expected else None,
                     "name": c.name, "shape": None if c.shape is None else list(c.shape),
                     "match": c.match} for c in layer.checks],
        "formula": formula_data(report.formula),
        "growth": None if growth is None else {
            "kind": growth.kind, "multiplier": growth.multiplier, "baseline": growth.baseline,
            "naive": growth.naive, "actual": growth.actual, "difference": growth.difference},
        "knobs": None,
    }


def _family_data(summary: ModelSummary, model: FamilyModel) -> dict[str, Any]:
    """A family block with the same keys, the classic layer's options null."""
    data = family_data(model)
    return {"model": summary.live.kind, "name": model.name, "class": None,
            "source": f"live {summary.live.framework} model", "family": model.family,
            **{k: data[k] for k in ("cell", "framework", "input", "hidden", "layers",
                                    "bidirectional", "bias", "proj", "cell_only",
                                    "reset_after")},
            "merge_mode": None, "nonlinearity": None, "config": data["config"],
            "params": model.params, "printed": None, "line": None, "command": model.command,
            "notes": list(model.notes), "solved": None, "layer": model.description,
            "stored": model.stored, "match": model.match, "tensors": data["tensors"],
            "formula": None, "growth": None, "claims": data["claims"],
            "knobs": [change_data(c) for c in knob_changes(model.family, model.config)]}


def data(summary: ModelSummary) -> dict[str, Any]:
    """The summary as ``paramcount.summary/1`` JSON data (see docs/python-api.md)."""
    live = summary.live
    owners = _owners(summary)
    counts = {t.tensor.name: t for t in summary.tensors}
    return {
        "schema": SCHEMA,
        "paramcount": __version__,
        "model": live.kind,
        "framework": live.framework,
        "total": summary.total,
        "trainable": summary.trainable,
        "frozen": summary.frozen,
        "buffers": summary.buffers,
        "packed": summary.packed,
        "bytes": summary.bytes,
        "reported": live.reported,
        "recurrent": [*(recurrent_data(summary, layer, report)
                        for layer, report in zip(summary.layers, summary.reports,
                                                 strict=True)),
                      *(_family_data(summary, model) for model in summary.families)],
        "modules": [
            {"name": m.name, "class": m.kind,
             "params": sum(counts[n].tensor.count for n in m.tensors
                                           if counts[n].kind in _PARAMETERS),
             "buffers": sum(counts[n].tensor.count for n in m.tensors
                            if counts[n].kind is Kind.BUFFER)}
            for m in live.modules if m.tensors
        ],
        "tensors": [
            {"name": t.tensor.name, "module": owners[t.tensor.name],
             "shape": list(t.tensor.shape), "dtype": t.tensor.dtype, "count": t.tensor.count,
             "kind": t.kind.value, "aliases": list(t.aliases), "saved": t.saved}
            for t in summary.tensors
        ],
        "notes": list(summary.notes),
    }
