"""A port from start to end: open the source, plan each module, write, and verify.

This is what ``paramcount port`` calls; it computes and returns, and prints nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from paramcount.port.layouts import Side
from paramcount.port.load import Opened, SourceError, open_source
from paramcount.port.plan import (
    ModulePlan,
    PortRefused,
    TargetOptions,
    UnitPlan,
    plan,
    plan_unit,
    target_side,
)
from paramcount.port.units import named_by, recognise, settings_notes, target_unit
from paramcount.port.verify import Comparison
from paramcount.spec import Cell, Framework, MergeMode, Nonlinearity


@dataclass(frozen=True)
class SourceOptions:
    """What the user says about the source where its tensors cannot."""

    framework: Framework | None = None
    """``--from``: only this convention's names are recognised."""
    nonlinearity: Nonlinearity | None = None
    """A plain RNN's activation (torch files do not store it)."""
    forget_bias: float = 1.0
    """A TF1 LSTMCell's forget_bias (not stored in its checkpoint)."""
    expect: dict[str, Any] = field(default_factory=dict)
    """LayerSpec fields the recognised layers must have (``--hidden 256``): a check."""


@dataclass(frozen=True)
class Result:
    """The port of one file: its modules' plans, and what was written and proved."""

    source: str
    format: str
    plans: tuple[ModulePlan, ...]
    notes: tuple[str, ...]
    written: str | None = None
    comparisons: tuple[Comparison, ...] | None = None
    units: tuple[UnitPlan, ...] = ()
    """The common layers (Linear, Embedding, Conv, norms) beside the recurrent modules."""
    layers: tuple[ModulePlan | UnitPlan, ...] = ()
    """Every planned layer, recurrent or not, in the order of the source file."""

    @property
    def ok(self) -> bool:
        """Whether every verified module agreed within tolerance (True when none was run)."""
        return all(c.ok for c in self.comparisons or ())


_SEPARATOR = {Framework.TORCH: "."}


def retarget(prefix: str, framework: Framework) -> str:
    """A module prefix spelled with the target's separator: ``encoder.lstm.`` -> ``encoder/lstm/``.
    """
    parts = [p for p in re.split(r"[./]", prefix) if p]
    if not parts:
        return ""
    separator = _SEPARATOR.get(framework, "/")
    return separator.join(parts) + separator


def _source_side(side: Side, options: SourceOptions, target: TargetOptions) -> Side:
    spec = side.spec
    for field_name, wanted in options.expect.items():
        have = getattr(spec, field_name)
        if wanted is not None and have != wanted:
            from paramcount.options import cli_label

            raise SourceError(
                f"the file holds {side.prefix or 'a layer'} with {cli_label(field_name, have)}, "
                f"not {cli_label(field_name, wanted)}"
            )
    if spec.cell is Cell.RNN and options.nonlinearity is not None and \
            side.framework is not Framework.KERAS and side.framework is not Framework.ONNX:
        side = replace(side, spec=spec.replace(nonlinearity=options.nonlinearity))
    if side.framework is Framework.TF1 and spec.cell is Cell.LSTM:
        side = replace(side, forget_bias=options.forget_bias)
    wanted = target.reset_after
    if side.framework is Framework.KERAS and spec.cell is Cell.GRU and wanted is not None:
        # the Keras side of the port is the source: the option describes it
        where = f" {side.prefix.rstrip('./')}" if side.prefix else ""
        if spec.bias and spec.reset_after != wanted:
            raise SourceError(
                f"the file's GRU{where} has reset_after={spec.reset_after} (its "
                f"bias says so), not {'--reset-after' if wanted else '--no-reset-after'}"
            )
        side = replace(side, spec=spec.replace(reset_after=wanted), reset_after=wanted)
    return side


def plans_of(opened: Opened, source: SourceOptions, target: TargetOptions) -> list[ModulePlan]:
    """A plan for each recurrent module of ``opened``; PortRefused for the first refused."""
    plans = []
    for module in opened.modules:
        side = _source_side(module, source, target)
        try:
            goal = target_side(side, target)
        except PortRefused as error:
            where = f"{side.prefix.rstrip('./')}: " if len(opened.modules) > 1 else ""
            raise PortRefused(f"{where}{error}") from None
        goal = replace(goal, prefix=_target_prefix(_module_path(side), target.framework))
        plans.append(plan(side, goal))
    return plans


def units_of(opened: Opened, plans: list[ModulePlan], target: TargetOptions,
             allow_unmapped: bool = False) -> tuple[list[UnitPlan], list[str]]:
    """A plan for each common layer among the tensors no recurrent module took, and notes.

    A tensor that no layer of the target holds is named and the port refused, unless
    ``allow_unmapped`` leaves it out (said in the notes).
    """
    from paramcount import conventions

    taken = {m.source.name(t) for m in plans for t in conventions.tensors(m.source.spec)}
    rest = {name: shape for name, shape in opened.shapes.items() if name not in taken}
    convention = opened.convention
    units, unmapped = recognise(rest, convention) if convention else ([], list(rest))
    fw = target.framework
    made: list[UnitPlan] = []
    notes: list[str] = []
    for found in units:
        said = opened.settings.get(found.prefix, {})
        unit = replace(named_by(found), eps=said.get("eps"), momentum=said.get("momentum"))
        if unit.alternatives:
            kinds = " or ".join(k.value for k in (unit.kind, *unit.alternatives))
            raise PortRefused(
                f"{', '.join(unit.names)} {_shapes(unit.tensors)} could be a {kinds} layer, "
                "which port moves differently; give --model (your target model) to tell"
            )
        goal = target_unit(unit, fw, _target_prefix(unit.prefix, fw))
        if goal is None:
            unmapped += unit.names
            continue
        layer = plan_unit(unit, goal)
        made.append(layer)
        notes += settings_notes(unit, goal)
        if layer.left_out:
            notes.append(f"{', '.join(layer.left_out)}: {fw.display_name} keeps no count of "
                         "training batches; left out")
    if unmapped:
        listed = ", ".join(f"{n} {_shape(opened.shapes[n])}" for n in unmapped[:6]) + (
            f" and {len(unmapped) - 6} more" if len(unmapped) > 6 else "")
        if not allow_unmapped:
            raise PortRefused(f"nothing in {fw.display_name} maps {len(unmapped)} tensor"
                              f"{'s' if len(unmapped) != 1 else ''} of {opened.path}: "
                              f"{listed}; --allow-unmapped leaves them out")
        notes.append(f"left out (--allow-unmapped): {listed}")
    return made, notes


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _shapes(tensors: tuple[tuple[str, str, tuple[int, ...]], ...]) -> str:
    return ", ".join(_shape(shape) for _, _, shape in tensors)


def _in_file_order(opened: Opened, plans: list[ModulePlan], units: list[UnitPlan]
                   ) -> tuple[ModulePlan | UnitPlan, ...]:
    """Every planned layer, ordered by where its first tensor stands in the file."""
    from paramcount import conventions

    position = {name: index for index, name in enumerate(opened.shapes)}
    end = len(position)

    def first(layer: ModulePlan | UnitPlan) -> int:
        if isinstance(layer, UnitPlan):
            names = list(layer.source.names)
        else:
            names = [layer.source.name(t) for t in conventions.tensors(layer.source.spec)]
        return min((position.get(n, end) for n in names), default=end)

    both: list[ModulePlan | UnitPlan] = [*plans, *units]
    return tuple(sorted(both, key=first))


def _module_path(side: Side) -> str:
    """The source's module prefix without a Flax linen ``params/`` (a collection, no module)."""
    if side.framework is Framework.FLAX_LINEN and side.prefix.startswith("params/"):
        return side.prefix[len("params/"):]
    return side.prefix


def _target_prefix(prefix: str, framework: Framework) -> str:
    new = retarget(prefix, framework)
    if framework is Framework.FLAX_LINEN and new.startswith("params/"):
        return new[len("params/"):]
    return new


def port(path: str, source: SourceOptions, target: TargetOptions, out: str | None = None,
         verify: bool = False, seed: int = 0, allow_unmapped: bool = False) -> Result:
    """Port every layer of ``path``; write ``out`` and compare runs when asked."""
    from paramcount.port.write import check_destination, check_not_source, write

    if out is not None:
        check_destination(out, target.framework)
        check_not_source(out, path)
    frameworks = (source.framework,) if source.framework else None
    with open_source(path, frameworks) as opened:
        plans = plans_of(opened, source, target)
        units, unit_notes = units_of(opened, plans, target, allow_unmapped)
        if not plans and not units:
            asked = f" in the {source.framework.display_name} convention" \
                if source.framework else ""
            raise SourceError(f"{opened.path}: no layer found that port maps{asked}")
        layers = _in_file_order(opened, plans, units)
        fetch = opened.fetch
        comparisons = None
        if verify:
            comparisons = tuple(_verify(p, fetch, seed) for p in plans)
        proved = all(c.ok for c in comparisons or ())
        if out is not None and proved:  # a port --verify disproved is not written
            write(out, target.framework, plans,
                  lambda: _arrays(layers, fetch, opened.release))
        notes = _notes(opened.notes, source) + tuple(_merges(plans)) + tuple(unit_notes)
        return Result(path, opened.format, tuple(plans), notes, out if proved else None,
                      comparisons, tuple(units), layers)


_MERGED = {MergeMode.SUM: "adds", MergeMode.MUL: "multiplies", MergeMode.AVE: "averages",
           MergeMode.NONE: "returns separately"}


def _merges(plans: list[ModulePlan]) -> Iterator[str]:
    """A note for each source whose last Bidirectional merges directions the target does not.

    The merge follows the layer, so the weights are the same; the user's code must do it.
    """
    for module in plans:
        modes, target = module.source.spec.merge_modes, module.target
        if not modes or modes[-1] is MergeMode.CONCAT or target.spec.merge_modes:
            continue
        where = f"{module.source.prefix.rstrip('./')}: " if module.source.prefix else ""
        yield (f"{where}Keras {_MERGED[modes[-1]]} its two directions' outputs "
               f"(merge_mode='{modes[-1].value}'); {target.framework.display_name} returns "
               "them side by side [..., 2·H]: do the same after it")


_ASSUMED_TANH = ("a plain RNN's nonlinearity is not stored in its weights: ported as tanh; "
                 "give --nonlinearity relu if it is relu")


def _notes(notes: list[str], source: SourceOptions) -> tuple[str, ...]:
    """The reader's notes, said for a port: what was assumed, and how to say otherwise."""
    from paramcount.conventions.recognition import RNN_NONLINEARITY

    if RNN_NONLINEARITY not in notes:
        return tuple(notes)
    told = source.nonlinearity is not None
    return tuple(n for n in ((_ASSUMED_TANH if n == RNN_NONLINEARITY else n) for n in notes)
                 if not (told and n == _ASSUMED_TANH))


def _arrays(plans: Iterable[ModulePlan | UnitPlan], fetch: Any,
            release: Any = None) -> Iterator[tuple[str, Any]]:
    from paramcount.port.execute import evaluate

    for module in plans:
        dtype = _dtype(module, fetch)
        for row in module.rows:
            yield row.name, evaluate(row.expr, fetch, dtype)
            if release is not None:  # written: its sources' pages can go
                for name in row.sources:
                    release(name)


def _dtype(module: ModulePlan | UnitPlan, fetch: Any) -> Any:
    for row in module.rows:
        if row.sources:
            return fetch(row.sources[0]).dtype
    import numpy as np

    return np.dtype("float32")


def _verify(module: ModulePlan, fetch: Any, seed: int) -> Comparison:
    from paramcount import conventions
    from paramcount.port.verify import compare

    source = module.source
    source_arrays = {t.name: fetch(source.name(t)) for t in conventions.tensors(source.spec)}
    made = dict(_arrays([module], fetch))
    prefix = module.target.prefix
    target_arrays = {name[len(prefix):]: array for name, array in made.items()}
    return compare(source, source_arrays, module.target, target_arrays, seed)
