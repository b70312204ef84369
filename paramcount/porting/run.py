"""A port from start to end: open the source, plan each module, write, and verify.

This is what ``paramcount port`` calls; it computes and returns, and prints nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paramcount.porting.layouts import Side
from paramcount.porting.load import Opened, SourceError, open_source
from paramcount.porting.plan import (
    ModulePlan,
    PortRefused,
    TargetOptions,
    UnitPlan,
    plan,
    plan_unit,
    target_side,
)
from paramcount.porting.units import Unit, named_by, recognise, settings_notes, target_unit
from paramcount.porting.verify import Comparison

if TYPE_CHECKING:
    from paramcount.porting.model import Atom, TargetModel
    from paramcount.porting.whole import ModelComparison
from paramcount.engine.spec import Cell, Framework, MergeMode, Nonlinearity
from paramcount.record import replace


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
    loads: str | None = None
    """The one line of Python that loads what was written."""
    whole: ModelComparison | None = None
    """The source model and the user's target model run side by side (``--verify --model``)."""

    @property
    def ok(self) -> bool:
        """Whether every verified module agreed within tolerance (True when none was run)."""
        return all(c.ok for c in self.comparisons or ()) and (self.whole is None or
                                                              self.whole.ok)

    @property
    def worst(self) -> float:
        """The largest difference any verification found."""
        found = [c.largest for c in self.comparisons or ()]
        return max([*found, *([self.whole.difference] if self.whole else [])], default=0.0)


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
            from paramcount.engine.flags import cli_label

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
    units, unmapped = source_units(opened, [m.source for m in plans])
    fw = target.framework
    made: list[UnitPlan] = []
    notes: list[str] = []
    for unit in units:
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
        made.append(_unit_plan(unit, goal, notes))
    notes += _unmapped(opened, unmapped, fw, allow_unmapped)
    return made, notes


def source_units(opened: Opened, sides: list[Side]) -> tuple[list[Unit], list[str]]:
    """The common layers among the tensors ``sides`` do not hold, and the tensors of none."""
    from paramcount.engine import conventions

    taken = {s.name(t) for s in sides for t in conventions.tensors(s.spec)}
    rest = {name: shape for name, shape in opened.shapes.items() if name not in taken}
    convention = opened.convention
    found, unmapped = recognise(rest, convention) if convention else ([], list(rest))
    units = []
    for unit in found:
        said = opened.settings.get(unit.prefix, {})
        units.append(replace(named_by(unit), eps=said.get("eps"), momentum=said.get("momentum")))
    return units, unmapped


def _unit_plan(unit: Unit, goal: Unit, notes: list[str], said: bool | None = False
               ) -> UnitPlan:
    """The plan of one common layer; what the target must be built with added to ``notes``."""
    layer = plan_unit(unit, goal)
    notes += settings_notes(unit, goal, said)
    if layer.left_out:
        notes.append(f"{', '.join(layer.left_out)}: {goal.framework.display_name} keeps no "
                     "count of training batches; left out")
    return layer


def _unmapped(opened: Opened, unmapped: list[str], fw: Framework, allowed: bool) -> list[str]:
    """Nothing, the note that says what was left out, or PortRefused naming the tensors."""
    if not unmapped:
        return []
    listed = ", ".join(f"{n} {_shape(opened.shapes[n])}" for n in unmapped[:6]) + (
        f" and {len(unmapped) - 6} more" if len(unmapped) > 6 else "")
    if not allowed:
        raise PortRefused(f"nothing in {fw.display_name} maps {len(unmapped)} tensor"
                          f"{'s' if len(unmapped) != 1 else ''} of {opened.path}: "
                          f"{listed}; --allow-unmapped leaves them out")
    return [f"left out (--allow-unmapped): {listed}"]


def before_model(opened: Opened, source: SourceOptions, target: TargetOptions,
                 allow_unmapped: bool) -> list[Side | Unit]:
    """What the source alone decides, refused before the user's model is built (which can take
    longer than the rest of the port): the source's options, tensors no layer holds, a layer
    no weights of the target can equal (a GRU into Keras waits for the model, whose
    ``reset_after`` decides), and a file with nothing port maps. Returns the source's layers
    in file order."""
    fw = target.framework
    sides = [_source_side(m, source, target) for m in opened.modules]
    for side in sides:
        if not (fw is Framework.KERAS and side.spec.cell is Cell.GRU):
            target_side(side, target)
    units, unmapped = source_units(opened, sides)
    _unmapped(opened, unmapped, fw, allow_unmapped)
    if not sides and not units:
        asked = f" in the {source.framework.display_name} convention" \
            if source.framework else ""
        raise SourceError(f"{opened.path}: no layer found that port maps{asked}")
    return _ordered(opened, [*sides, *units])


def to_model(opened: Opened, source: SourceOptions, target: TargetOptions, model: TargetModel,
             allow_unmapped: bool) -> tuple[list[ModulePlan], list[UnitPlan], list[str]]:
    """Plans whose target tensors are the user's model's, layer by layer, matched by structure."""
    from paramcount.engine import conventions
    from paramcount.porting.model import ModelError, atoms, label, match, match_structures

    fw = target.framework
    sides = [_source_side(m, source, target) for m in opened.modules]
    units, unmapped = source_units(opened, sides)
    notes = _unmapped(opened, unmapped, fw, allow_unmapped)
    if model.unread:
        raise PortRefused(f"the model's {', '.join(model.unread[:6])} belong to layers port "
                          "does not map")
    plans: list[ModulePlan] = []
    made: list[UnitPlan] = []
    ours = _ordered(opened, [*sides, *units])
    try:
        pairs = match(ours, model.layers)
    except ModelError as error:
        try:
            pairs, joined = match_structures(ours, model.layers)
        except ModelError:
            raise error from None
        plans += _joined(joined, target)
    for one, theirs in pairs:
        if isinstance(one, Side) and isinstance(theirs, Side) and \
                one.spec.single_cell != theirs.spec.single_cell:  # a cell, a one-layer stack
            plans += _joined(list(zip(atoms([one]), atoms([theirs]), strict=True)), target)
        elif isinstance(one, Side) and isinstance(theirs, Side):
            options = target
            if fw is Framework.KERAS and theirs.spec.cell is Cell.GRU:
                options = replace(target, reset_after=theirs.spec.reset_after)
            side = target_side(one, options)
            held = dict(theirs.names)
            if side.spec.bias != theirs.spec.bias:
                biased, other = (one, theirs) if one.spec.bias else (theirs, one)
                biases = [biased.name(t) for t in conventions.tensors(biased.spec)
                          if "bias" in t.role.lower() or t.role in ("B", "Wb", "Rb")]
                whose = "source's" if biased is one else "model's"
                where = "the model's" if biased is one else "the source's"
                raise PortRefused(f"the {whose} {', '.join(biases)} "
                                  f"{'has' if len(biases) == 1 else 'have'} no counterpart: "
                                  f"{where} {label(other)} is the same layer without biases; "
                                  "give both the same tensors")
            if any(
                    t.name not in held for t in conventions.tensors(side.spec)):
                raise PortRefused(f"the model's {label(theirs)} is not "
                                  f"{conventions.describe(side.spec)}, which the source's "
                                  f"{label(one)} becomes")
            plans.append(plan(one, replace(side, prefix=theirs.prefix, names=theirs.names)))
        elif isinstance(one, Unit) and isinstance(theirs, Unit):
            one = replace(one, kind=theirs.kind, alternatives=())
            goal = target_unit(one, fw, theirs.prefix, theirs.kind)
            if goal is None or {t[1:] for t in goal.tensors} != {t[1:] for t in theirs.tensors}:
                raise PortRefused(f"the model's {label(theirs)} does not hold what the "
                                  f"source's {label(one)} does")
            goal = replace(goal, eps=theirs.eps, momentum=theirs.momentum)
            said = True if theirs.eps is not None else None if fw is Framework.FLAX_LINEN \
                else False
            made.append(_unit_plan(one, goal, notes, said))
    return plans, made, notes


def _joined(pairs: list[tuple[Atom, Atom]], target: TargetOptions) -> list[ModulePlan]:
    """A plan for each of the model's recurrent layers made of the source's directions that
    fall to it, whatever layers they came from."""
    from paramcount.porting.layouts import read

    for side in dict.fromkeys(one for (one, _, _), _ in pairs):
        target_side(side, target)  # what no weights make equal is refused as for one layer
    read_once = {id(side): read(side) for side in {id(s): s for (s, _, _), _ in pairs}.values()}
    plans = []
    for theirs in dict.fromkeys(t for _, (t, _, _) in pairs):
        mine = [(a, b) for a, b in pairs if b[0] is theirs]
        canonical = {(layer, direction): read_once[id(side)][(source_layer, source_direction)]
                     for (side, source_layer, source_direction), (_, layer, direction) in mine}
        parts = tuple(dict.fromkeys(side for (side, _, _), _ in mine))
        plans.append(plan(parts[0], theirs, canonical, parts))
    return plans


def _ordered(opened: Opened, layers: list[Side | Unit]) -> list[Side | Unit]:
    """Layers ordered by where their first tensor stands in the file."""
    from paramcount.porting.model import names

    position = {name: index for index, name in enumerate(opened.shapes)}
    return sorted(layers, key=lambda layer: min(
        (position.get(n, len(position)) for n in names(layer)), default=len(position)))


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _shapes(tensors: tuple[tuple[str, str, tuple[int, ...]], ...]) -> str:
    return ", ".join(_shape(shape) for _, _, shape in tensors)


def _in_file_order(opened: Opened, plans: list[ModulePlan], units: list[UnitPlan]
                   ) -> tuple[ModulePlan | UnitPlan, ...]:
    """Every planned layer, ordered by where its first tensor stands in the file."""
    both: list[ModulePlan | UnitPlan] = [*plans, *units]
    rank = {id(layer): index for index, layer in
            enumerate(_ordered(opened, list({id(p.source): p.source for p in both}.values())))}
    return tuple(sorted(both, key=lambda p: rank[id(p.source)]))  # stable: joined stay in order


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
         verify: bool = False, seed: int = 0, allow_unmapped: bool = False,
         model: str | None = None, kwargs: dict[str, Any] | None = None,
         source_model: str | None = None,
         source_kwargs: dict[str, Any] | None = None,
         input_shape: tuple[int, ...] | None = None) -> Result:
    """Port every layer of ``path`` (into the layers of ``model``, the user's factory, when
    given); write ``out`` and compare runs when asked (``input_shape``: one example of the
    whole models' input, as the source model reads it)."""
    from paramcount.porting.write import (
        check_destination,
        check_not_source,
        load_line,
        suffix_of,
        write,
    )

    if out is not None:
        check_destination(out, target.framework, model is not None)
        check_not_source(out, path)
    frameworks = (source.framework,) if source.framework else None
    with open_source(path, frameworks) as opened:
        built = None
        if model is None:
            plans = plans_of(opened, source, target)
            units, unit_notes = units_of(opened, plans, target, allow_unmapped)
        else:
            from paramcount.porting.model import build

            first = before_model(opened, source, target, allow_unmapped)
            built = build(model, kwargs or {}, target.framework, first[0] if first else None)
            plans, units, unit_notes = to_model(opened, source, target, built, allow_unmapped)
        if not plans and not units:
            asked = f" in the {source.framework.display_name} convention" \
                if source.framework else ""
            raise SourceError(f"{opened.path}: no layer found that port maps{asked}")
        layers = _in_file_order(opened, plans, units)
        fetch = opened.fetch
        comparisons = None
        if verify:
            comparisons = tuple(_verify(p, fetch, seed) for p in plans if not p.parts)
        whole = None
        if verify and built is not None:
            whole = _whole(opened, layers, built, source_model, source_kwargs or {}, seed,
                           unit_notes, input_shape)
        proved = all(c.ok for c in comparisons or ()) and (whole is None or whole.ok)
        if out is not None and model is None and (
                (units and suffix_of(out) == ".onnx") or suffix_of(out) == ".keras"):
            from paramcount.porting.graph import check_chain

            unit_notes += check_chain(layers, suffix_of(out))
        if out is not None and proved:  # a port --verify disproved is not written
            write(out, target.framework, layers,
                  lambda: _arrays(layers, fetch, opened.release),
                  None if built is None else built.model)
        notes = _notes(opened.notes, source) + tuple(_merges(plans)) + tuple(unit_notes)
        written = out if proved else None
        return Result(path, opened.format, tuple(plans), notes, written, comparisons,
                      tuple(units), layers, load_line(written) if written else None, whole)


def _whole(opened: Opened, layers: tuple[ModulePlan | UnitPlan, ...], built: TargetModel,
           source_model: str | None, kwargs: dict[str, Any], seed: int, notes: list[str],
           input_shape: tuple[int, ...] | None = None) -> ModelComparison | None:
    """The source model and the user's model with the ported weights, on one random example
    laid out as each reads it (``input_shape``: ``--input-shape``, in the source's layout)."""
    from paramcount.porting.inputs import first_reads, plan
    from paramcount.porting.whole import compare_models, source_runner, target_runner

    first = layers[0].source if layers else None
    source = source_runner(opened.path, opened.format, source_model, kwargs, opened.fetch,
                           list(opened.shapes), first)
    if source is None:
        notes.append("the whole model was not run: a checkpoint holds no code, and "
                     "--source-model module:function builds its model")
        return None
    target = target_runner(built, dict(_arrays(layers, opened.fetch)), first)
    example = plan(first_reads(first), [source.layout, target.layout], input_shape,
                   source.layout)
    return compare_models(source, target, example, seed, source.layout)


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
    from paramcount.engine.conventions.recognition import RNN_NONLINEARITY

    if RNN_NONLINEARITY not in notes:
        return tuple(notes)
    told = source.nonlinearity is not None
    return tuple(n for n in ((_ASSUMED_TANH if n == RNN_NONLINEARITY else n) for n in notes)
                 if not (told and n == _ASSUMED_TANH))


def _arrays(plans: Iterable[ModulePlan | UnitPlan], fetch: Any,
            release: Any = None) -> Iterator[tuple[str, Any]]:
    from paramcount.porting.execute import evaluate

    for module in plans:
        dtype = _dtype(module, fetch)
        for row in module.rows:
            array = evaluate(row.expr, fetch, dtype)
            if release is not None:  # made: its sources' pages can go (they are read again
                for name in row.sources:  # from the file where the array is a view of them)
                    release(name)
            yield row.name, array


def _dtype(module: ModulePlan | UnitPlan, fetch: Any) -> Any:
    for row in module.rows:
        if row.sources:
            return fetch(row.sources[0]).dtype
    import numpy as np

    return np.dtype("float32")


def _verify(module: ModulePlan, fetch: Any, seed: int) -> Comparison:
    from paramcount.engine import conventions
    from paramcount.porting.verify import compare

    source = module.source
    source_arrays = {t.name: fetch(source.name(t)) for t in conventions.tensors(source.spec)}
    made = dict(_arrays([module], fetch))
    target = module.target
    target_arrays = {t.name: made[target.name(t)] for t in conventions.tensors(target.spec)}
    return compare(source, source_arrays, target, target_arrays, seed)
