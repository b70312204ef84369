"""``paramcount inspect`` output: a Document for people and the ``paramcount.inspect/1`` JSON.

Nothing here computes: every number comes from :class:`paramcount.files.inspect.InspectReport`.
"""

from __future__ import annotations

import math
from typing import Any

from paramcount._version import __version__
from paramcount.files.inspect import (
    Check,
    FamilyModel,
    InspectReport,
    Layer,
    module_of,
    tensor_bytes,
)
from paramcount.files.listing import NamedTensor
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

SCHEMA = "paramcount.inspect/1"

FORMAT_NAMES = {
    "safetensors": "safetensors",
    "safetensors-sharded": "sharded safetensors",
    "torch": "PyTorch checkpoint",
    "torch-legacy": "PyTorch checkpoint (legacy pre-1.6 format)",
    "torch-sharded": "sharded PyTorch checkpoint",
    "onnx": "ONNX model",
    "keras": "Keras model (.keras)",
    "keras-h5": "Keras model (HDF5)",
    "keras-weights-h5": "Keras weights (.weights.h5)",
    "npz": "numpy archive (.npz)",
    "npy": "numpy array (.npy)",
    "hf-folder": "Hugging Face model folder",
    "hf-folder-sharded": "Hugging Face model folder (sharded)",
    "hf-config": "Hugging Face config.json (no weights)",
}


def format_name(fmt: str) -> str:
    """What users call a format: ``PyTorch checkpoint``, ``sharded safetensors``."""
    return FORMAT_NAMES.get(fmt, fmt)


def _checks_by_name(report: InspectReport) -> dict[str, Check]:
    owners: list[Layer | FamilyModel] = [*report.layers, *report.families]
    return {c.name: c for owner in owners for c in owner.checks if c.name}


def family_section(report: InspectReport) -> Section:
    """The family models recognised: each counted by its convention, checked tensor by
    tensor and against config.json, with the command that explains it."""
    rows = tuple(
        (model.name or "(top level)", model.family,
         number(model.params) if model.exact else f"≤ {number(model.params)}",
         f"✓ {len(model.checks)} tensors" + (
             f", {number(sum(p.count for p in model.padding))} padding" if model.padding else "")
         if model.tensors_match
         else f"✗ file holds {number(model.stored)}",
         ("✓ " if all(c.match for c in model.claims) else "✗ ") + f"{len(model.claims)} values"
         if model.claims else "—")
        for model in report.families
    )
    blocks: list[Table | Paragraph | Math] = [
        Table(("module", "family", "parameters", "engine check", "config.json"), rows,
              frozenset({"parameters"})),
        Paragraph(tuple(f"{model.name or '(top level)'}: {model.description}"
                        for model in report.families)),
        Paragraph(("Each one, explained in full (tensors, parts, formula):",)),
        Math(tuple(model.command for model in report.families)),
    ]
    blocks += [Paragraph((f"- {model.name or '(top level)'}: {note}",))
               for model in report.families for note in model.notes]
    return Section("Recurrent families", tuple(blocks))


def _verdict(check: Check) -> str:
    if check.part is not None:  # computed from stored tensors, or stored in another layout
        whole = check.shape is not None and math.prod(check.shape) == math.prod(
            check.expected_shape)
        return ("✓ " if check.match else "✗ ") + ("holds " if whole else "part of ") + (
            check.expected)
    if check.match:
        return "✓"
    if not check.expected:
        return "✗ not expected by the engine"
    return f"✗ engine expects {shape(check.expected_shape)}"


def _summary(report: InspectReport) -> str:
    text = f"{number(report.total)} parameters"
    if report.non_trainable:
        text += (f" ({number(report.trainable)} trainable, "
                 f"{number(report.non_trainable)} not trainable)")
    text += f" · {number(report.bytes)} bytes ({size(report.bytes)})"
    dtypes = [d.dtype or "unknown dtype" for d in report.dtypes]
    if dtypes:
        text += " · " + ", ".join(dtypes)
    return text


def _short(name: str, module: str) -> str:
    return name[len(module) + 1:] if module else name


def document(report: InspectReport) -> Document:
    """The report as headed tables: recurrent layers, tensors by module, dtypes, notes; every
    name a file gave escaped where it holds line breaks or other unprintable characters."""
    return escaped(_document(report))


def _document(report: InspectReport) -> Document:
    """The report's document, names as the file gave them."""
    sections = []
    if report.layers:
        rows = tuple(
            (layer.name or "(top level)", layer.description, number(layer.params),
             (f"✓ {len(layer.checks)} tensors" if layer.match
              else f"✗ file holds {number(layer.stored)}"))
            for layer in report.layers
        )
        commands = Math(tuple(
            f"{layer.name or '(top level)'}: {layer.command}" for layer in report.layers
        ))
        said: dict[str, list[str]] = {}
        for layer in report.layers:
            for note in layer.notes:
                said.setdefault(note, []).append(layer.name or "(top level)")
        sections.append(Section("Recurrent layers", (
            Table(("module", "layer", "parameters", "engine check"), rows,
                  frozenset({"parameters"})),
            Paragraph(("Each one, explained in full (formula, growth, shapes, memory):",)),
            commands,
            *(Paragraph((f"- {', '.join(names)}: {note}",)) for note, names in said.items()),
        )))
    if report.families:
        sections.append(family_section(report))
    checked = _checks_by_name(report)
    rows_list: list[tuple[str, ...]] = []
    for module in report.modules:
        for k, tensor in enumerate(module.tensors):
            found = checked.get(tensor.name)
            rows_list.append((
                (module.name or "(top level)") if k == 0 else "",
                _short(tensor.name, module.name),
                shape(tensor.shape),
                tensor.dtype or "?",
                number(tensor.count),
                _verdict(found) if found else _flag(tensor),
            ))
    if not report.listing.tensors:
        return Document(f"{report.listing.source} — {format_name(report.listing.format)}",
                        "0 parameters: no model tensors in it",
                        (Section("Notes", tuple(Paragraph((f"- {n}",)) for n in report.notes)),)
                        if report.notes else ())
    sections.append(Section("Tensors", (Table(
        ("module", "tensor", "shape", "dtype", "count", "note"), tuple(rows_list),
        frozenset({"count"}),
        footer=("", "total", "", "", number(report.total), ""),
    ),)))
    if report.listing.constants:
        sections.append(Section("Constants (not parameters, not in the total)", (Table(
            ("tensor", "shape", "dtype", "count"),
            tuple((t.name, shape(t.shape), t.dtype or "?", number(t.count))
                  for t in report.listing.constants),
            frozenset({"count"}),
        ),)))
    dtype_rows = tuple(
        (d.dtype or "unknown", number(d.tensors), number(d.params),
         number(d.bytes) if d.bytes is not None else "?")
        for d in report.dtypes
    )
    sections.append(Section("By dtype", (Table(
        ("dtype", "tensors", "parameters", "bytes"), dtype_rows,
        frozenset({"tensors", "parameters", "bytes"}),
    ),)))
    if report.notes:
        sections.append(Section("Notes", tuple(Paragraph((f"- {n}",)) for n in report.notes)))
    if report.conversion is not None:
        conversion = report.conversion
        name = conversion.framework.display_name
        lines = [("as stored", number(conversion.literal))]
        lines += [(signed(d.delta), d.what) for d in conversion.differences]
        lines.append((f"in {name}", number(conversion.total)))
        width = max(len(label) for label, _ in lines)
        sections.append(Section(f"Counted the {name} way", (
            Math(tuple(f"{label.rjust(width)}  {text}" for label, text in lines)),
        )))
    return Document(f"{report.listing.source} — {format_name(report.listing.format)}",
                    _summary(report), tuple(sections))


def _flag(tensor: NamedTensor) -> str:
    if tensor.same_as:
        return f"same data as {tensor.same_as}"
    return "" if tensor.trainable else "not trainable"


def layer_data(layer: Layer) -> dict[str, Any]:
    """One recognised recurrent layer, with the documented keys."""
    spec = layer.spec
    return {
        "name": layer.name,
        "framework": spec.framework.value,
        "family": None,
        "cell": spec.cell.value,
        "input": spec.input_size,
        "hidden": spec.hidden_size,
        "layers": spec.num_layers,
        "bidirectional": spec.bidirectional,
        "bias": spec.bias,
        "proj": spec.proj_size,
        "cell_only": spec.single_cell,
        "reset_after": spec.reset_after,
        "merge_modes": [m.value for m in spec.merge_modes] if spec.merge_modes else None,
        "peepholes": spec.peepholes,
        "layer": layer.description,
        "params": layer.params,
        "exact": True,
        "at_most": None,
        "stored": layer.stored,
        "match": layer.match,
        "tensors": [
            {"expected": c.expected or None,
             "expected_shape": list(c.expected_shape) if c.expected else None,
             "name": c.name, "shape": None if c.shape is None else list(c.shape),
             "match": c.match}
            for c in layer.checks
        ],
        "command": layer.command,
        "notes": list(layer.notes),
        "config": None,
        "claims": None,
        "padding": None,
    }


def family_data(model: FamilyModel) -> dict[str, Any]:
    """One recognised family model, with the keys of ``recurrent[]`` (``family`` and
    ``config`` set, the classic layer's options null) and the config.json ``claims``."""
    from paramcount.record import fields, plain

    return {
        "name": model.name, "framework": "torch", "family": model.family,
        **dict.fromkeys(("cell", "input", "hidden", "layers", "bidirectional", "bias", "proj",
                         "cell_only", "reset_after", "merge_modes", "peepholes")),
        "config": {f: plain(getattr(model.config, f)) for f in fields(model.config)},
        "layer": model.description,
        "params": model.params,
        "exact": model.exact,
        "at_most": None if model.exact else model.params,
        "stored": model.stored,
        "match": model.match,
        "tensors": [
            {"expected": c.expected, "expected_shape": list(c.expected_shape), "name": c.name,
             "shape": None if c.shape is None else list(c.shape), "match": c.match}
            for c in model.checks
        ],
        "command": model.command,
        "notes": list(model.notes),
        "claims": [{"field": c.field, "config": plain(c.config), "tensors": plain(c.tensors),
                    "match": c.match} for c in model.claims],
        "padding": [{"name": p.name, "shape": list(p.shape), "stored_shape": list(p.stored),
                     "count": p.count, "why": p.why} for p in model.padding],
    }


def data(report: InspectReport) -> dict[str, Any]:
    """The report as ``paramcount.inspect/1`` JSON data (see docs/inspect.md)."""
    conversion = report.conversion
    return {
        "schema": SCHEMA,
        "paramcount": __version__,
        "file": report.listing.source,
        "format": report.listing.format,
        "total": report.total,
        "trainable": report.trainable,
        "non_trainable": report.non_trainable,
        "bytes": report.bytes,
        "dtypes": [
            {"dtype": d.dtype, "tensors": d.tensors, "params": d.params, "bytes": d.bytes}
            for d in report.dtypes
        ],
        "tensors": [
            {"name": t.name, "module": module_of(t.name), "shape": list(t.shape),
             "dtype": t.dtype, "count": t.count, "bytes": tensor_bytes(t),
             "trainable": t.trainable, "same_as": t.same_as}
            for t in report.listing.tensors
        ],
        "constants": [
            {"name": t.name, "shape": list(t.shape), "dtype": t.dtype, "count": t.count}
            for t in report.listing.constants
        ],
        "recurrent": [*(layer_data(layer) for layer in report.layers),
                      *(family_data(model) for model in report.families)],
        "notes": list(report.notes),
        "as": None if conversion is None else {
            "framework": conversion.framework.value,
            "literal": conversion.literal,
            "total": conversion.total,
            "differences": [{"what": d.what, "delta": d.delta}
                            for d in conversion.differences],
        },
    }
