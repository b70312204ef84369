"""A port's plan, what was written and what was proved: as a Document and as JSON data."""

from __future__ import annotations

from typing import Any

from paramcount.engine import conventions
from paramcount.porting.plan import ModulePlan, UnitPlan
from paramcount.porting.run import Result
from paramcount.porting.verify import TOLERANCE, Comparison
from paramcount.render.document import Document, Math, Paragraph, Section, Table, shape

SCHEMA = "paramcount.port/1"


def _module_title(module: ModulePlan | UnitPlan) -> str:
    name = module.source.prefix.rstrip("./") or "(top level)"
    if isinstance(module, ModulePlan) and len(module.parts) > 1:  # joined into one target
        name = " + ".join(p.prefix.rstrip("./") or "(top level)" for p in module.parts)
    theirs = module.target.prefix.rstrip("./").removeprefix("params/")
    if theirs and _path(theirs) != _path(name):  # the user's model names it otherwise
        name = f"{name} → {theirs}"
    return f"{name}: {_layer(module, source=True)} → {_layer(module, source=False)}"


def _path(prefix: str) -> list[str]:
    """A module path's parts, whatever the separator (``encoder.lstm``, ``encoder/lstm``)."""
    return [p for p in prefix.replace("/", ".").split(".") if p and p != "params"]


def _layer(module: ModulePlan | UnitPlan, source: bool) -> str:
    """The source's or the target's layer as its framework writes it."""
    if isinstance(module, UnitPlan):
        return (module.source if source else module.target).describe()
    return conventions.describe((module.source if source else module.target).spec)


def _counted(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _relative(module: ModulePlan | UnitPlan, names: list[str]) -> list[str]:
    """Source names without the module's prefix (its title names it)."""
    prefix = module.source.prefix
    return [n[len(prefix):] if prefix and n.startswith(prefix) else n for n in names]


def _difference(value: float) -> str:
    return f"{value:.1e}"


def _comparison_line(comparison: Comparison) -> str:
    verdict = "equal" if comparison.ok else "DIFFERENT"
    return (f"{verdict}: {comparison.source} vs {comparison.target}, largest difference "
            f"{_difference(comparison.output)} in the outputs, "
            f"{_difference(comparison.states)} in the final states "
            f"(tolerance {TOLERANCE:.0e})")


def _comparison(result: Result, module: ModulePlan | UnitPlan) -> Comparison | None:
    """The verification of a recurrent module ported alone (joined ones: the whole model's)."""
    if result.comparisons is None or not isinstance(module, ModulePlan) or module.parts:
        return None
    return result.comparisons[[p for p in result.plans if not p.parts].index(module)]


def port_document(result: Result) -> Document:
    """The plan, one row per target tensor, then what was written and verified."""
    layers = result.layers or result.plans
    target = layers[0].target.framework.display_name
    tensors = sum(len(m.rows) for m in layers)
    parts = [_counted(len(result.plans), "recurrent module")] if result.plans else []
    if result.units:
        parts.append(_counted(len(result.units), "other layer"))
    summary = (" and ".join(parts) + f", {tensors} target tensors"
               + (f", written to {result.written}" if result.written else
                  " (not written: --verify found a difference)" if not result.ok
                  else " (plan only: --out FILE writes them)"))
    sections = []
    for module in layers:
        rows = tuple(
            (row.name, shape(row.shape), ", ".join(_relative(module, row.sources)) or "—",
             "; ".join(row.steps) or "copy")
            for row in module.rows
        )
        blocks: list[Table | Paragraph] = [
            Table(("target tensor", "shape", "from", "operations"), rows)]
        comparison = _comparison(result, module)
        if comparison is not None:
            blocks.append(Paragraph((_comparison_line(comparison),)))
        sections.append(Section(_module_title(module), tuple(blocks)))
    if result.whole is not None:
        whole = result.whole
        sections.append(Section("Whole model", (Paragraph((
            f"{'equal' if whole.ok else 'DIFFERENT'}: {whole.source} vs {whole.target}, "
            f"largest difference {_difference(whole.difference)} of the largest output "
            f"(tolerance {TOLERANCE:.0e})",)),)))
    if result.notes:
        sections.append(Section("Notes", (Paragraph(result.notes),)))
    if result.loads:
        sections.append(Section("Load it", (Math((result.loads,)),)))  # verbatim: code
    return Document(f"Port {result.source} ({result.format}) to {target}", summary,
                    tuple(sections))


def port_data(result: Result) -> dict[str, Any]:
    """The documented ``paramcount.port/1`` JSON object."""
    modules = []
    for module in result.plans:
        entry: dict[str, Any] = {
            "prefix": module.source.prefix,
            "source": {"framework": module.source.framework.value,
                       "layer": conventions.describe(module.source.spec)},
            "target": {"framework": module.target.framework.value,
                       "layer": conventions.describe(module.target.spec),
                       "prefix": module.target.prefix},
            "tensors": _tensors(module),
        }
        c = _comparison(result, module)
        if c is not None:
            entry["verification"] = {"source": c.source, "target": c.target,
                                     "output": c.output, "states": c.states,
                                     "tolerance": TOLERANCE, "ok": c.ok}
        modules.append(entry)
    layers = [
        {"prefix": layer.source.prefix, "kind": layer.source.kind.value,
         "source": {"framework": layer.source.framework.value,
                    "layer": layer.source.describe()},
         "target": {"framework": layer.target.framework.value,
                    "layer": layer.target.describe(), "prefix": layer.target.prefix},
         "tensors": _tensors(layer), "left_out": list(layer.left_out)}
        for layer in result.units
    ]
    return {"schema": SCHEMA, "source": result.source, "format": result.format,
            "to": (result.layers or result.plans)[0].target.framework.value,
            "modules": modules, "layers": layers,
            "written": result.written, "loads": result.loads, "notes": list(result.notes),
            "whole_model": None if result.whole is None else {
                "source": result.whole.source, "target": result.whole.target,
                "difference": result.whole.difference, "tolerance": TOLERANCE,
                "ok": result.whole.ok}}


def _tensors(module: ModulePlan | UnitPlan) -> list[dict[str, Any]]:
    return [{"name": row.name, "shape": list(row.shape), "sources": row.sources,
             "operations": row.steps, "exact": row.exact} for row in module.rows]
