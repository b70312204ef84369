"""What a paste describes: its layers and models, from code calls and from printouts, counted.

Code calls (``reading.code.python_code``) are bound in each framework's signature order and
become LayerSpecs (recurrent layers) or exact counts (the rest), Keras input widths tracked
through the stack; printout rows and tensors (``paramcount.reading.printout``) become the same
Layers, with what their counts imply. Pure: no framework is imported.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from paramcount.engine import conventions
from paramcount.engine.layers import (
    KERAS,
    KERAS_DEFAULTS,
    KERAS_ONLY,
    KERAS_SIGNATURES,
    KNOWN,
    RECURRENT_KERAS,
    RECURRENT_TORCH,
    TORCH,
    TORCH_DEFAULTS,
    TORCH_ONLY,
    TORCH_SIGNATURES,
    Counted,
    Unbound,
    bind,
    keras_count,
    keras_free,
    torch_count,
    torch_free,
)
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity, coerce
from paramcount.errors import SpecError
from paramcount.families.registry import CLASSES
from paramcount.reading import budget
from paramcount.reading.code.python_code import (
    SPREAD,
    TIE,
    Block,
    Call,
    CodeReading,
    Step,
    Unknown,
    setting,
    unknowns,
)
from paramcount.reading.keras_version import (
    RESET_AFTER_FACTS,
    KerasVersion,
    call_version,
    old_gru_default,
    summary_version,
)
from paramcount.reading.listings.unnamed import Reading, read_unnamed
from paramcount.reading.models import Layer as Layer
from paramcount.reading.models import Missing as Missing
from paramcount.reading.models import Model as Model
from paramcount.reading.models import cell_of as cell_of
from paramcount.reading.patterns import lazy
from paramcount.reading.solve import Clues, Fit, Solution, solve
from paramcount.reading.tables.table import Printout, Row
from paramcount.record import replace

# -- code -> layers ---------------------------------------------------------------------------

def framework_of(call: Call, hint: str | None) -> str | None:
    """``torch`` or ``keras`` for a call, from its import path, its class, or the hint."""
    qualified, path = call.qualified, call.path
    if qualified.startswith("torch") or path.startswith("nn."):
        return TORCH
    if "keras" in qualified or path.startswith(("layers.", "tf.", "keras.", "tfkl.", "kl.")):
        return KERAS
    if qualified != path:  # imported from elsewhere (from .modules import Attention)
        return hint
    if call.name in TORCH_ONLY:
        return TORCH
    if call.name in KERAS_ONLY:
        return KERAS
    return hint


def _guess(call: Call) -> str | None:
    """A recurrent call's framework from its arguments: torch takes input and hidden size."""
    if call.name in RECURRENT_TORCH and (len(call.args) >= 2 or "input_size" in call.keywords):
        return TORCH
    if call.name in RECURRENT_KERAS and (len(call.args) == 1 or "units" in call.keywords):
        return KERAS
    return None


def _block_framework(block: Block, imported: frozenset[str]) -> str | None:
    votes = [f for s in block.steps
             if (f := framework_of(s.call, None) or _guess(s.call)) is not None]
    if votes:
        return max(set(votes), key=votes.count)
    return next(iter(imported)) if len(imported) == 1 else None


def _missing(argument: str, value: object, call: Call, attribute: str) -> list[Missing]:
    """What to tell the user about a value a layer needs."""
    if isinstance(value, Unknown):
        return [Missing(name, line, f"pass --set {key}=N" if (key := setting(name)) else
                        "not evaluated: a call paramcount never makes, or a number too large")
                for name, line in value.names]
    if value is None:
        return [Missing(f"{argument} of {attribute or call.name}", call.line,
                        f"{call.name} needs {argument}")]
    return [Missing(f"{argument} of {attribute or call.name}", call.line,
                    f"{argument}={value!r} is not a size paramcount can count")]


def _unbound(error: Unbound, bound: Mapping[str, Any], call: Call, attribute: str
             ) -> tuple[Missing, ...]:
    """Every value a layer needs that the paste leaves open, each named once: the one its
    count stopped at, and every other argument not known (``nn.Linear(hidden * 2,
    num_class)`` needs both ``hidden`` and ``num_class``)."""
    found = _missing(error.argument, error.value, call, attribute)
    for key, value in bound.items():
        if isinstance(value, Unknown) and value is not error.value:
            found += _missing(key, value, call, attribute)
    return _once(found)


def _once(missing: Iterable[Missing]) -> tuple[Missing, ...]:
    """Each missing value named once (``nn.LSTM(hidden, hidden)`` needs ``hidden``)."""
    once: dict[str, Missing] = {}
    for found in missing:
        once.setdefault(found.name, found)
    return tuple(once.values())


def _spread(call: Call) -> Unknown | None:
    """The ``**options`` a call (or a layer it wraps) could not spread, if any."""
    for value in (call, *call.args, *(v for _, v in call.kwargs)):
        if isinstance(value, Call) and isinstance(spread := value.keywords.get(SPREAD), Unknown):
            return spread
    return None


def _unspread(spread: Unknown) -> tuple[Missing, ...]:
    """What to tell the user about ``**options`` the paste does not define."""
    return tuple(Missing(f"**{name}", line, "the options it spreads are not in the paste: paste "
                         "where they are defined") for name, line in spread.names)


_total = functools.lru_cache(maxsize=4096)(conventions.total)
"""A spec's count, worked out once for each configuration a paste repeats."""


def _torch_layer(call: Call, attribute: str) -> Layer:
    """A torch module call, counted."""
    name, kind = call.name, call.path
    if (spread := _spread(call)) is not None:
        return Layer(attribute, kind, Framework.TORCH, call.line, missing=_unspread(spread))
    if name not in TORCH_SIGNATURES and not torch_free(name):
        return Layer(attribute, kind, Framework.TORCH, call.line,
                     missing=(Missing(f"{name} ({attribute or 'layer'})", call.line,
                                      f"{name} is not a layer paramcount knows"),))
    bound = bind(TORCH_SIGNATURES.get(name, ()), call.args, call.keywords, TORCH_DEFAULTS)
    if name in RECURRENT_TORCH:
        return _recurrent(call, attribute, Framework.TORCH, bound, None)
    try:
        counted = torch_count(name, bound)
    except Unbound as error:
        return Layer(attribute, kind, Framework.TORCH, call.line,
                     missing=_unbound(error, bound, call, attribute))
    return Layer(attribute, kind, Framework.TORCH, call.line, params=counted.params,
                 formula=counted.formula)


def _recurrent(call: Call, attribute: str, framework: Framework, bound: Mapping[str, Any],
               width: int | None, bidirectional: bool = False, merge: Any = "concat",
               kind: str | None = None) -> Layer:
    """A recurrent layer's LayerSpec from its bound arguments (and, in Keras, its input)."""
    name = call.name
    cell = cell_of(name)
    assert cell is not None
    kind = kind or call.path
    single = name.endswith("Cell")
    missing: list[Missing] = []
    torch = framework is Framework.TORCH
    fields: dict[str, Any] = {}
    numbers = ("input_size", "hidden_size", "num_layers", "proj_size") if torch else ("units",)
    for key in numbers:
        value = bound.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            missing += _missing(key, value, call, attribute)
        fields[key] = value
    flags = ("bias", "bidirectional") if torch else ("use_bias",)
    for key in flags:
        value = bound.get(key)
        if value not in (True, False):
            missing += _missing(key, value, call, attribute)
        fields[key] = value
    if not torch and width is None:
        missing.append(Missing(f"input width of {attribute or name}", call.line,
                               "the code does not say what this layer reads: give the model "
                               "input_shape=(timesteps, features) or an Input(shape=...)"))
    if isinstance(merge, Unknown):
        missing += _missing("merge_mode", merge, call, attribute)
    reset_after = bound.get("reset_after") if cell is Cell.GRU and not torch else None
    if isinstance(reset_after, Unknown):
        missing += _missing("reset_after", reset_after, call, attribute)
    if missing:
        return Layer(attribute, kind, framework, call.line, missing=_once(missing))
    nonlinearity = bound.get("nonlinearity") if torch and cell is Cell.RNN else None
    if nonlinearity == "tanh":  # the default, left unset as LayerSpec leaves it
        nonlinearity = None
    if not torch and cell is Cell.RNN and bound.get("activation") == "relu":
        nonlinearity = "relu"
    try:
        if torch:
            spec = LayerSpec(cell, fields["input_size"], fields["hidden_size"],
                             num_layers=1 if single else fields["num_layers"],
                             bidirectional=False if single else fields["bidirectional"],
                             bias=fields["bias"], proj_size=0 if single else fields["proj_size"],
                             framework=framework, single_cell=single,
                             nonlinearity=coerce(Nonlinearity, "nonlinearity", nonlinearity)
                             if isinstance(nonlinearity, str) else None)
        else:
            modes = None
            if bidirectional:
                modes = (MergeMode.NONE if merge is None else MergeMode(str(merge)),)
            spec = LayerSpec(cell, int(width or 0), fields["units"], bidirectional=bidirectional,
                             bias=fields["use_bias"], framework=framework, merge_modes=modes,
                             reset_after=bool(reset_after) if framework is Framework.KERAS
                             and cell is Cell.GRU else None, single_cell=single,
                             nonlinearity=Nonlinearity.RELU if nonlinearity else None)
    except (SpecError, ValueError) as error:
        return Layer(attribute, kind, framework, call.line,
                     missing=(Missing(attribute or name, call.line, str(error)),))
    notes: tuple[str, ...] = ()
    defaults: tuple[str, ...] = ()
    if spec.framework is Framework.KERAS and spec.cell is Cell.GRU and not _given(
            call, "reset_after"):
        defaults = ("reset_after",)
        if old_gru_default(call.qualified):
            notes = (f"reset_after is not given: {call.qualified.rpartition('.')[0]}'s GRU "
                     f"defaults to False. {reset_after_note(spec)}",)
    return Layer(attribute, kind, framework, call.line, spec=spec,
                 params=_total(spec), notes=notes, defaults=defaults)


def _given(call: Call, argument: str) -> bool:
    """Whether the call itself passes ``argument`` (by keyword, or by position in Keras'
    signature), rather than leaving it to the default."""
    signature = KERAS_SIGNATURES.get(call.name, ())
    return argument in call.keywords or (
        argument in signature and signature.index(argument) < len(call.args))


def _keras_defaults(call: Call) -> Mapping[str, Any]:
    """Keras' defaults for ``call``: those of Keras 3, but reset_after=False for the GRU of
    ``keras.layers.recurrent`` and ``tf.compat.v1`` (:mod:`paramcount.reading.keras_version`)."""
    if old_gru_default(call.qualified):
        return {**KERAS_DEFAULTS, "reset_after": False}
    return KERAS_DEFAULTS


def _unknown_class(call: Call, attribute: str, framework: str | None) -> Layer:
    """A layer whose class the paste leaves open (``getattr(nn, cell)(16, 32)``), named with
    what decides it."""
    assert call.unresolved is not None
    return Layer(attribute, call.path, _FRAMEWORKS.get(framework or ""), call.line, missing=tuple(
        Missing(name, line, f"decides the class of {attribute or 'a layer'} ({call.path}): "
                "paste where it is set")
        for name, line in call.unresolved.names))


_FRAMEWORKS = {TORCH: Framework.TORCH, KERAS: Framework.KERAS}


def _keras_layer(call: Call, attribute: str, width: int | None) -> tuple[Layer, int | None]:
    """A Keras layer reading ``width`` features, counted, and the width it outputs."""
    name = call.name
    if (spread := _spread(call)) is not None:
        return Layer(attribute, call.path, Framework.KERAS, call.line,
                     missing=_unspread(spread)), None
    bound = bind(KERAS_SIGNATURES.get(name, ()), call.args, call.keywords,
                 _keras_defaults(call))
    if width is None:
        width = _declared_width(bound)
    if name == "Bidirectional" or (name == "RNN" and isinstance(bound.get("cell"), Call)):
        inner = bound.get("layer") if name == "Bidirectional" else bound.get("cell")
        if isinstance(inner, Call) and inner.name == "RNN" and isinstance(
                inner.args[0] if inner.args else None, Call):
            inner = inner.args[0]
        if not isinstance(inner, Call) or cell_of(inner.name) is None:
            return Layer(attribute, f"{name}(...)", Framework.KERAS, call.line, missing=(
                Missing(f"{name} ({attribute or 'layer'})", call.line,
                        "wraps a layer that is not a recurrent layer paramcount knows"),)), None
        inner_bound = bind(KERAS_SIGNATURES.get(inner.name, ()), inner.args, inner.keywords,
                           _keras_defaults(inner))
        if width is None:
            width = _declared_width(inner_bound)
        merge = bound.get("merge_mode", "concat")
        framework = Framework.TF1_CUDNN if inner.name.startswith("CuDNN") else Framework.KERAS
        cell_name = inner.name.removesuffix("Cell")
        fake = Call(cell_name, inner.qualified.removesuffix("Cell"), inner.args, inner.kwargs,
                    call.line)
        layer = _recurrent(fake, attribute, framework, inner_bound, width,
                           bidirectional=name == "Bidirectional", merge=merge,
                           kind=f"{name}({inner.name})")
        units = inner_bound.get("units")
        out = None
        if isinstance(units, int) and not isinstance(units, bool):
            out = 2 * units if name == "Bidirectional" and merge == "concat" else (
                None if merge is None else units)
        return layer, out
    if name in RECURRENT_KERAS:
        framework = Framework.TF1_CUDNN if name.startswith("CuDNN") else Framework.KERAS
        layer = _recurrent(call, attribute, framework, bound, width)
        units = bound.get("units")
        return layer, units if isinstance(units, int) and not isinstance(units, bool) else None
    if name == "TimeDistributed" and isinstance(bound.get("layer"), Call):
        inner_layer, out = _keras_layer(bound["layer"], attribute, width)
        return Layer(attribute, f"TimeDistributed({inner_layer.kind})", Framework.KERAS,
                     call.line, params=inner_layer.params, formula=inner_layer.formula,
                     missing=inner_layer.missing), out
    if name not in KNOWN:
        return Layer(attribute, call.path, Framework.KERAS, call.line, missing=(
            Missing(f"{name} ({attribute or 'layer'})", call.line,
                    f"{name} is not a layer paramcount knows"),)), None
    try:
        counted: Counted = keras_count(name, bound, width)
    except Unbound as error:
        if error.argument == "input":
            return Layer(attribute, call.path, Framework.KERAS, call.line, missing=(
                Missing(f"input width of {attribute or name}", call.line,
                        "the code does not say what this layer reads"),)), None
        return Layer(attribute, call.path, Framework.KERAS, call.line,
                     missing=_unbound(error, bound, call, attribute)), None
    return Layer(attribute, call.path, Framework.KERAS, call.line, params=counted.params,
                 formula=counted.formula), counted.output_width


def merged_width(call: Call, widths: Sequence[int | None]) -> int | None:
    """The width a Keras merge of tensors of ``widths`` outputs: their sum for a concatenation
    on the last axis, the common width for an elementwise merge; None where not known."""
    if not widths or any(w is None for w in widths):
        return None
    known = [w for w in widths if w is not None]
    if call.name == "Concatenate":
        axis = call.keywords.get("axis", -1)
        return sum(known) if axis == -1 else None
    if call.name in ("Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum"):
        return known[0] if len(set(known)) == 1 else None
    return None


def _declared_width(bound: Mapping[str, Any]) -> int | None:
    """The input width a first layer declares: input_shape, batch_input_shape, input_dim,
    shape (Input)."""
    for key in ("input_shape", "batch_input_shape", "shape", "batch_shape"):
        shape = bound.get(key)
        if isinstance(shape, int) and not isinstance(shape, bool):
            return shape
        if isinstance(shape, (tuple, list)) and shape and isinstance(shape[-1], int):
            return int(shape[-1])
    dim = bound.get("input_dim")
    return dim if isinstance(dim, int) and not isinstance(dim, bool) else None


def code_models(reading: CodeReading) -> list[Model]:
    """Every block of the code as a Model with its layers counted."""
    models = []
    consumed = {id(arg) for block in reading.blocks for step in block.steps
                for arg in step.call.args if isinstance(arg, Call)}
    for block in reading.blocks:
        if len(block.steps) == 1 and block.steps[0].call.name in CLASSES:
            if id(block.steps[0].call) not in consumed:  # a config passed to a model is it
                layer = family_layer(block.steps[0].call, block.steps[0].attribute)
                models.append(Model(block.name, "code", block.line, (layer,),
                                    accounting=block.accounting))
            continue
        hint = _block_framework(block, reading.frameworks)
        layers: list[Layer] = []
        widths: dict[str, int | None] = {}
        width: int | None = None
        seen: dict[str, int] = {}
        applied: dict[int, int | None] = {}
        ties: list[Step] = []
        for step in block.steps:
            call = step.call
            if call.qualified == TIE:
                ties.append(step)
                continue
            framework = framework_of(call, None) or _guess(call) or hint
            if call.unresolved is not None:
                layers.append(_unknown_class(call, step.attribute, framework))
                width = None
                continue
            if framework == KERAS:
                reads = widths.get(step.source or "") if block.kind == "functional" else width
                if call.name in ("Input", "InputLayer"):
                    bound = bind(KERAS_SIGNATURES["Input"], call.args, call.keywords, {})
                    width = _declared_width(bound)
                    widths[step.target or ""] = width
                    continue
                if id(call) in applied:  # a shared layer applied again: its weights are there
                    widths[step.target or ""] = applied[id(call)]
                    continue
                attribute = step.attribute
                if block.kind in ("sequential", "functional"):
                    for inner in (*call.args, *(v for _, v in call.kwargs)):
                        if isinstance(inner, Call):  # a wrapped layer takes a name too
                            keras_name(inner, seen)
                    attribute = keras_name(call, seen)
                layer, width = _keras_layer(call, attribute, reads)
                if step.sources:
                    width = merged_width(call, [widths.get(s) for s in step.sources])
                applied[id(call)] = width
                widths[step.target or ""] = width
                for state in step.states:
                    widths[state] = layer.spec.hidden_size if layer.spec else None
            elif framework == TORCH:
                layer = _torch_layer(call, step.attribute)
            else:
                layer = Layer(step.attribute, call.path, None, call.line, missing=(
                    Missing(f"{call.name} ({step.attribute or 'layer'})", call.line,
                            "cannot tell whether this is torch or Keras: add the import"),))
            layers.append(replace(layer, call=call, conditional=step.conditional))
        layers, tied = _untie(layers, ties)
        if layers or block.accounting.unread:  # a model of statements not read is named too
            keras = code_version(block)
            notes = block.notes
            if keras is not None:
                notes = (*notes, f"written for {keras[0].words}: {keras[1]}")
            models.append(Model(block.name, "code", block.line, tuple(layers),
                                accounting=block.accounting, notes=notes,
                                stacks=tuple(stacks(layers)),
                                keras=keras[0] if keras else None, tied=tied))
    return models


def code_version(block: Block) -> tuple[KerasVersion, str] | None:
    """The Keras a block's layer calls were written for, and the sign of it (the most telling
    one: an import of Keras 2.0–2.3's modules before a Keras 2 style)."""
    found = [version for step in block.steps
             if (version := call_version(step.call.qualified, step.call.keywords)) is not None]
    found.sort(key=lambda version: version[0] is not KerasVersion.LEGACY)
    return found[0] if found else None


def family_layer(call: Call, attribute: str) -> Layer:
    """``MambaForCausalLM(MambaConfig(hidden_size=768, ...))`` (or a config alone, or the
    backbone ``MambaModel``) counted by its family's convention."""
    from paramcount.families.registry import family

    name, built = CLASSES[call.name]
    config_call = call if built == "config" else next(
        (a for a in call.args if isinstance(a, Call) and CLASSES.get(a.name, ("", ""))[1]
         == "config"), None)
    if config_call is None:
        given = call.args[0] if call.args else call.keywords.get("config")
        what = given.names[0][0] if isinstance(given, Unknown) and given.names else "its config"
        return Layer(attribute, call.path, Framework.TORCH, call.line, missing=(
            Missing(what, call.line, f"{call.name} is built from a config the paste does "
                                     "not show: pass MambaConfig(...) or --set its sizes"),))
    values = config_call.keywords
    if unknown := unknowns(values.values()):
        return Layer(attribute, call.path, Framework.TORCH, call.line, missing=tuple(
            Missing(text, line, f"a size of {config_call.name}") for text, line in unknown.names))
    module = family(name)
    try:
        config = module.from_hf_config(values)
    except SpecError as error:
        return Layer(attribute, call.path, Framework.TORCH, call.line, notes=(str(error),))
    tensors = module.tensors(config)
    notes = [f"{module.TITLE}: counted as {module.REFERENCE} builds it (paramcount "
             f"{name} for every tensor)"]
    if built == "backbone":
        tensors = [t for t in tensors if t.name not in ("lm_head.weight", "head.weight")]
    elif built == "config":
        notes.append(f"a {call.name} alone: counted as the causal LM it configures")
    return Layer(attribute, call.path, Framework.TORCH, call.line,
                 params=sum(t.count for t in tensors), notes=tuple(notes))


def stacks(layers: Sequence[Layer]) -> list[LayerSpec]:
    """Consecutive Keras recurrent layers alike but for their input, each reading the previous
    one's output, as one multi-layer LayerSpec (merge modes kept per layer)."""
    found: list[LayerSpec] = []
    run: list[LayerSpec] = []

    def close() -> None:
        if len(run) > 1:
            modes = tuple(m for spec in run for m in (spec.merge_modes or ()))
            found.append(run[0].replace(num_layers=len(run), merge_modes=modes or None))
        run.clear()

    for layer in layers:
        spec = layer.spec
        if spec is None or spec.framework is not Framework.KERAS or spec.single_cell:
            if layer.params:
                close()
            continue
        if run:
            last = run[-1]
            out = last.hidden_size * (last.merge_modes[-1].width_factor
                                      if last.merge_modes else 1)
            alike = all(getattr(spec, f) == getattr(last, f) for f in (
                "cell", "hidden_size", "bidirectional", "bias", "reset_after", "nonlinearity"))
            if not alike or spec.input_size != out:
                close()
        run.append(spec)
    close()
    return found


def keras_name(call: Call, seen: dict[str, int]) -> str:
    """The name Keras gives a layer in a fresh session: its ``name=`` argument, else its class in
    snake case, numbered from the second of a kind (``bidirectional``, ``bidirectional_1``)."""
    given = call.keywords.get("name")
    if isinstance(given, str):
        return given
    # keras.src.utils.naming.to_snake_case, as Keras 3 (and tf.keras 2) write it
    snake = re.sub(r"([a-z])([A-Z])", r"\1_\2",
                   re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", call.name)).lower()
    count = seen.get(snake, 0)
    seen[snake] = count + 1
    return f"{snake}_{count}" if count else snake


# -- printouts -> models -------------------------------------------------------------------

def _kind(spec: LayerSpec) -> str:
    """A recurrent spec's class as its framework writes it: ``nn.LSTM``, ``Bidirectional(GRU)``."""
    if spec.framework is Framework.TORCH:
        name = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}[spec.cell]
        return f"nn.{name}" + ("Cell" if spec.single_cell else "")
    name = {Cell.RNN: "SimpleRNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}[spec.cell]
    if spec.framework is Framework.TF1_CUDNN:
        name = f"CuDNN{name}"
    elif spec.framework is not Framework.KERAS:
        return f"{spec.framework.display_name} {name}"
    return f"Bidirectional({name})" if spec.bidirectional else name


def printout_models(printouts: Sequence[Printout], lines: Sequence[str] = ()) -> list[Model]:
    """Every printout as a Model: its rows or tensors, with what they imply (``lines``, the
    paste, tells which Keras drew a summary)."""
    models = []
    for printout in printouts:
        if printout.kind == "repr" and printout.block is not None:
            reading = CodeReading((printout.block,), "parsed", (), frozenset({TORCH}))
            models += [Model(m.name, "repr", m.line, m.layers, accounting=printout.accounting)
                       for m in code_models(reading)]
        elif printout.kind == "keras-summary":
            models.append(_keras_summary_model(
                printout, summary_version(printout.text(lines))))
        elif printout.kind in ("torchinfo", "torchsummary", "pytorch-model-summary", "table"):
            models.append(_torch_table_model(printout))
        elif printout.kind == "shapes":
            models.append(_shapes_model(printout))

    return models


def solved_layer(row: Row, clues: Clues, kind: str, notes: tuple[str, ...] = ()) -> Layer:
    """A printed recurrent row as a Layer: sized where its count allows exactly one
    configuration, with how that was derived (or every configuration that fits; where no count
    is printed, every family of configurations its shapes allow; none claimed where the
    paste's search budget is spent)."""
    try:
        solution = solve(clues)
    except budget.Spent:
        return Layer(row.name or row.type, kind, clues.framework, row.line, params=clues.count,
                     printed=row.params, notes=(*notes, f"its configuration: {budget.SPENT}"))
    spec = solution.spec
    said = [*notes, solution.how]
    if solution.apart:
        said.append(f"what would tell them apart: {solution.apart}")
    if spec is not None and spec.framework is Framework.KERAS and spec.cell is Cell.GRU and (
            spec.reset_after is False and clues.keras in (KerasVersion.KERAS2, None)):
        said.append(reset_after_note(spec))
    return Layer(row.name or row.type, _kind(spec) if spec is not None else kind,
                 clues.framework, row.line, spec=spec, params=clues.count, printed=row.params,
                 notes=tuple(said), solution=solution)


def from_total(total: int | None, counts: Sequence[int | None], recurrent: Sequence[bool]
               ) -> dict[int, int]:
    """The one uncounted row's count where a table's rows leave exactly one open and it is
    recurrent: its printed total less every other row's (by row index; empty otherwise)."""
    unknown = [index for index, count in enumerate(counts) if count is None]
    if total is None or len(unknown) != 1 or not recurrent[unknown[0]]:
        return {}
    left = total - sum(count or 0 for count in counts)
    return {unknown[0]: left} if left > 0 else {}


FROM_TOTAL = ("no count is printed for it: {count:,} is the printed total less every other "
              "row's (if no container holds parameters of its own)")


def derived_layer(row: Row, clues: Clues, kind: str, notes: tuple[str, ...] = ()) -> Layer:
    """A recurrent row without a printed count: solved from the count its table's total leaves
    it where that fits its shapes, else every configuration its shapes allow."""
    if clues.count is not None:
        solved = solved_layer(row, clues, kind, (*notes, FROM_TOTAL.format(count=clues.count)))
        if solved.solution is not None and any(not fit.open for fit in solved.solution.fits):
            return solved  # a configuration with the widths shown gives it
    return solved_layer(row, replace(clues, count=None), kind, notes)


_CHANNELS_FIRST = lazy(r"(Lazy)?(Conv|ConvTranspose|BatchNorm|InstanceNorm|MaxPool|"
                             r"AvgPool|AdaptiveAvgPool|AdaptiveMaxPool|LPPool)[123]d$")
"""torch classes whose output is (batch, channels, length): the layer after reads its channels
only once the tensor is transposed, so the last axis of its printed shape is no width."""


def _input_width(row: Row, rows: Sequence[Row], index: int, functional: bool | None
                 ) -> tuple[int | None, str]:
    """The width a Keras summary row reads, and where it was read: the previous row's output in
    a sequential table, the output its ``Connected to`` names in a functional one (None where
    that is cut off or not unique)."""
    if functional is False:
        previous = rows[index - 1] if index else None
        if previous is None or not previous.shape or previous.depth < row.depth:
            return None, ""  # the first row nested in a model reads that model's input
        where = ("the Input row" if previous.type == "InputLayer"
                 else f"the layer before, {previous.name}")
        return previous.shape[-1], where
    if row.source is None:
        return None, ""
    name, output = row.source
    if name.endswith("…"):
        matches = [r for r in rows[:index] if r.name.startswith(name[:-1])]
    else:
        matches = [r for r in rows[:index] if r.name == name]
    if len(matches) != 1:
        return None, ""
    source = matches[0]
    where = ("the Input row" if source.type == "InputLayer"
             else f"the output of {source.name}, which it is connected to")
    outputs = source.outputs
    if 0 <= output < len(outputs):
        return (outputs[output][-1] if outputs[output] else None), where
    widths = {shape[-1] for shape in outputs if shape}
    return (widths.pop(), where) if len(widths) == 1 else (None, "")


def reset_after_note(spec: LayerSpec) -> str:
    """Why a Keras GRU holds the count of reset_after=False, with what Keras 3 gives."""
    today = conventions.total(spec.replace(reset_after=True))
    return f"{RESET_AFTER_FACTS}; Keras 3 builds {today:,} for this layer"


def _keras_summary_model(printout: Printout, keras: KerasVersion | None) -> Model:
    layers = []
    rows = printout.rows
    recurrent = [row.type == "Bidirectional" or (cell_of(row.type) is not None and
                                                 row.type in RECURRENT_KERAS) for row in rows]
    left = from_total(printout.total, [0 if keras_free(row.type) else row.params for row in rows],
                      recurrent)
    for index, row in enumerate(rows):
        if row.type == "InputLayer":
            continue
        cell = cell_of(row.type)
        inner = _nested(rows, index)
        if inner is not None:
            layers.append(_holder(row, inner))
            continue
        if recurrent[index]:
            framework = Framework.TF1_CUDNN if row.type.startswith("CuDNN") else Framework.KERAS
            cells = (cell,) if cell is not None else (Cell.LSTM, Cell.GRU, Cell.RNN)
            width, before = _input_width(row, rows, index, printout.functional)
            out = row.shape[-1] if row.shape else None
            clues = Clues(row.params, framework, cells, out, width, before,
                          row.type == "Bidirectional", keras)
            if row.params is None:
                clues = replace(clues, count=left.get(index))
                layers.append(derived_layer(row, clues, row.type))
            else:
                layers.append(solved_layer(row, clues, row.type))
        else:
            layers.append(Layer(row.name, row.type, Framework.KERAS, row.line,
                                params=0 if row.params is None and keras_free(row.type)
                                else row.params, printed=row.params))
    return Model(printout.title, printout.kind, printout.first, tuple(layers),
                 printed_total=printout.total, keras=keras, accounting=printout.accounting)


def _untie(layers: list[Layer], ties: Sequence[Step]) -> tuple[list[Layer], int]:
    """The layers with each tensor the code ties to another layer's
    (``self.head.weight = self.emb.weight``) counted once, in the layer that owns it: the tied
    layer holds that many fewer (left open, with why, where its tensor cannot be sized); and
    how many parameters the ties took off."""
    tied = 0
    for step in ties:
        tensor, layer_name, source = step.call.args
        base = step.attribute[:len(step.attribute) - len(layer_name)]
        owner = base + source
        at = next((i for i, x in enumerate(layers) if x.name == step.attribute), None)
        if at is None or not any(x.name == owner for x in layers):
            continue
        layer = layers[at]
        size = _tensor_size(layer, tensor)
        said = (f"line {step.call.line}: its {tensor} is {owner}'s {tensor} (tied), so that "
                f"tensor is counted once, in {owner}")
        if size is None or layer.params is None or size > layer.params:
            layers[at] = replace(layer, params=None, notes=(
                *layer.notes, said + f"; paramcount cannot size {layer.kind}'s {tensor}, so it "
                "is not counted"))
        else:
            tied += size
            layers[at] = replace(
                layer, params=layer.params - size, notes=(*layer.notes, said),
                formula=f"{layer.formula} − {size:,} (tied)" if layer.formula else None)
    return layers, tied


def _tensor_size(layer: Layer, tensor: str) -> int | None:
    """The size of a torch ``Linear``'s or ``Embedding``'s own weight or bias, from its call."""
    call = layer.call
    if call is None or call.name not in ("Linear", "Embedding"):
        return None
    bound = bind(TORCH_SIGNATURES[call.name], call.args, call.keywords, TORCH_DEFAULTS)
    names = ("in_features", "out_features") if call.name == "Linear" else (
        "num_embeddings", "embedding_dim")
    sizes = [bound.get(n) for n in names]
    if not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes):
        return None
    first, second = (s for s in sizes if isinstance(s, int))
    if tensor == "weight":
        return first * second
    return second if call.name == "Linear" and bound.get("bias", True) is True else None


def _nested(rows: Sequence[Row], index: int) -> list[Row] | None:
    """The rows ``expand_nested`` prints right under row ``index`` (its model's own layers,
    one level deeper), or None where it holds none."""
    row = rows[index]
    inner = []
    for at in range(index + 1, len(rows)):
        other = rows[at]
        if other.depth <= row.depth:
            break
        if other.depth == row.depth + 1:
            inner.append(other)
    return inner or None


def _holder(row: Row, inner: Sequence[Row]) -> Layer:
    """A nested model's row: its printed count includes its rows', so only what it holds
    beside them (nothing, for a Sequential) is counted for it."""
    counts = [r.params for r in inner]
    held = None if row.params is None or None in counts else sum(c or 0 for c in counts)
    own = None if held is None or row.params is None or held > row.params else (
        row.params - held)
    rows = "the row" if len(inner) == 1 else f"the {len(inner)} rows"
    note = (f"its printed {row.params:,} includes {rows} nested under it (expand_nested), "
            f"each counted on its own row, so it adds {own:,}"
            if own is not None else "a nested model whose rows' counts are not all known")
    return Layer(row.name, row.type, Framework.KERAS, row.line, params=own,
                 printed=row.params, notes=(note,), holds=held)


def _torch_free(row: Row) -> bool:
    """Whether a torch table's row is of a class known to hold no parameters."""
    return not row.note and torch_free(row.type)


def _torch_table_model(printout: Printout) -> Model:
    """A torchinfo or torchsummary table as a Model: its leaf rows, and every container's own
    parameters; a recurrent layer sized where its per-tensor rows tell."""
    from paramcount.reading.printout import torch_shapes

    layers = []
    rows = printout.rows
    width: int | None = None
    before = ""
    containers = [index + 1 < len(rows) and rows[index + 1].depth > row.depth
                  for index, row in enumerate(rows)]
    skipped = [row.note.startswith("(recursive)") or (container and row.params is None)
               for row, container in zip(rows, containers, strict=True)]
    left = from_total(
        printout.total if printout.total_known else None,
        [0 if skip or (row.params is None and _torch_free(row)) else row.params
         for row, skip in zip(rows, skipped, strict=True)],
        [cell_of(row.type) is not None and not container
         for row, container in zip(rows, containers, strict=True)])
    for index, row in enumerate(rows):
        container = containers[index]
        if skipped[index]:
            continue  # counted where it first appears; or its children are listed
        spec = None
        notes: tuple[str, ...] = (row.note,) if row.note else ()
        out = row.shape[-1] if row.shape else None
        cell = cell_of(row.type)
        if container:
            notes += ("its own parameters, beside its children's",)
        elif cell is not None:
            shapes = torch_shapes(row) if printout.kind == "torchinfo" else {}
            found = conventions.recognise(shapes, [Framework.TORCH]) if shapes else []
            if found and conventions.total(found[0].spec) == row.params:
                spec = found[0].spec
            else:
                single = row.type.endswith("Cell")
                shown = row.input_shape[-1] if row.input_shape else None
                clues = Clues(row.params or left.get(index), Framework.TORCH, (cell,), out,
                              shown if shown is not None else width,
                              "its Input Shape column" if shown is not None else before,
                              False if single else None, single_cell=single,
                              guessed=shown is None)
                kind = f"nn.{row.type}"
                layers.append(solved_layer(row, clues, kind, notes) if row.params else
                              derived_layer(row, clues, kind, notes))
                width, before = out, f"the layer before, {row.name or row.type}"
                continue
        params = row.params
        if params is None and _torch_free(row):
            params = 0  # ``--``: a class known to hold no parameters
        layers.append(Layer(row.name or row.type, f"nn.{row.type}", Framework.TORCH, row.line,
                            spec=spec, params=params, printed=row.params, notes=notes))
        if not container:
            width, before = out, f"the layer before, {row.name or row.type}"
            if _CHANNELS_FIRST.match(row.type):  # its last axis is the length, not a width
                width, before = None, ""
    model_notes: tuple[str, ...] = ()
    if printout.kind == "torchinfo":
        layers, model_notes = _tied(layers, rows)
    total = printout.total
    if not printout.total_known:
        model_notes = (f"the printed total ({total:,}) leaves out the layers torchsummary "
                       "shows as 0" if total is not None else "",)
        total = None
    return Model(printout.title, printout.kind, printout.first, tuple(layers),
                 printed_total=total, notes=tuple(n for n in model_notes if n),
                 accounting=printout.accounting)


def _tied(layers: list[Layer], rows: Sequence[Row]) -> tuple[list[Layer], tuple[str, ...]]:
    """A torchinfo table's output layer that may share the embedding's weight (weight tying,
    ``head.weight = emb.weight``): a bias-free ``Linear`` from the embedding's width to its
    vocabulary holds exactly its V·D. torchinfo counts a shared tensor once per module, so its
    rows and total count it twice; the table cannot say whether it is shared, so that row's
    count is left open (the model's total a bound) and both totals are named."""
    shapes = {row.line: row.shape for row in rows}
    embeddings = [(layer, shapes.get(layer.line or 0)) for layer in layers
                  if layer.kind == "nn.Embedding" and layer.params]
    notes: list[str] = []
    found = list(layers)
    for index, layer in enumerate(layers):
        out = shapes.get(layer.line or 0)
        if layer.kind != "nn.Linear" or not layer.params or not out or out[-1] is None:
            continue
        for embedding, width in embeddings:
            if (not width or width[-1] is None or embedding.params != layer.params
                    or width[-1] * out[-1] != layer.params):
                continue
            others = sum(x.params or 0 for x in layers) - layer.params
            found[index] = replace(layer, params=None, notes=(*layer.notes, (
                f"torchinfo prints {layer.params:,}, exactly the V·D = {out[-1]:,}·"
                f"{width[-1]:,} of {embedding.name}: if its weight is {embedding.name}'s "
                "(tied), torchinfo counts that tensor twice and it adds 0; if not, "
                f"{layer.params:,}")))
            notes.append(f"{layer.name} may share {embedding.name}'s weight (weight tying), "
                         "which torchinfo counts twice, in its rows and its Total params: "
                         f"the model holds {others:,} if it does, {others + layer.params:,} "
                         "if not (the code, or sum(p.numel() for p in model.parameters()), "
                         "tells)")
            break
    return found, tuple(notes)


def _shapes_model(printout: Printout) -> Model:
    """A listing of names and shapes as a Model: its recurrent layers recognised, every other
    module's tensors counted as printed; buffers (``running_mean``...) shown in a note, never
    counted as parameters."""
    printout = _unique_names(printout)
    buffers = [t for t in printout.tensors if not t.trainable]
    if buffers:
        kept = [(t, n) for t, n in zip(printout.tensors, printout.tensor_lines, strict=True)
                if t.trainable]
        printout = replace(printout, tensors=tuple(t for t, _ in kept),
                                       tensor_lines=tuple(n for _, n in kept))
    shapes = {t.name: t.shape for t in printout.tensors}
    lines = dict(zip((t.name for t in printout.tensors), printout.tensor_lines, strict=True))
    found = conventions.recognise(shapes) if printout.modelled else []
    claimed = {name for layer in found for name in layer.names}
    entries: list[tuple[int, Layer]] = []
    unnamed = printout.title == "parameters"
    names = [layer.prefix.rstrip("./") or layer.names[0].rsplit(".", 1)[0] for layer in found]
    readings = _unnamed_readings(found, names, list(shapes)) if unnamed else [None] * len(
        found)
    for layer, name, reading in zip(found, names, readings, strict=True):
        count = sum(_count(shapes[n]) for n in layer.names)
        entries.append((lines[layer.names[0]], Layer(
            name, _kind(layer.spec), layer.spec.framework, lines[layer.names[0]],
            spec=layer.spec if reading is None else None,
            params=conventions.total(layer.spec), printed=count,
            notes=layer.notes + ((reading.note,) if reading else ()),
            solution=None if reading is None else _unnamed_solution(layer.spec, count, reading),
            groupings=reading.groupings if reading else ())))
    groups: dict[str, list[str]] = {}
    for tensor in printout.tensors:
        if tensor.name not in claimed:
            owner = re.split(r"[./](?=[^./]*$)", tensor.name)[0]
            groups.setdefault(owner, []).append(tensor.name)
    for owner, names in groups.items():
        count = sum(_count(shapes[n]) for n in names)
        entries.append((lines[names[0]], Layer(owner, "tensors", None, lines[names[0]],
                                               params=count, printed=count)))
    entries.sort(key=lambda entry: entry[0])
    held = sum(_count(t.shape) for t in buffers)
    shown = ", ".join(t.name for t in buffers[:6]) + (", …" if len(buffers) > 6 else "")
    kept_notes = (f"{len(buffers)} buffer{'s' * (len(buffers) > 1)} shown ({shown}: "
                  f"{held:,} values) are not parameters and are not counted",) if buffers else ()
    return Model(printout.title, printout.kind, printout.first,
                 tuple(layer for _, layer in entries),
                 notes=((UNNAMED,) if unnamed else ()) + kept_notes,
                 unnamed=unnamed,
                 printed_total=sum(_count(t.shape) for t in printout.tensors),
                 tensors=tuple((t.name, t.shape, lines[t.name]) for t in printout.tensors),
                 accounting=printout.accounting)


def _unnamed_solution(spec: LayerSpec, count: int, reading: Reading) -> Solution:
    """An unnamed layer's readings as a solution: each configuration of its own tensors a fit,
    none claimed."""
    clues = Clues(count, spec.framework, (spec.cell,), input=spec.input_size,
                  single_cell=spec.single_cell)
    return Solution(clues, tuple(Fit(c) for c in reading.candidates), None, reading.note)


def _unnamed_readings(found: Sequence[conventions.Recognised], names: Sequence[str],
                      order: Sequence[str]) -> list[Reading]:
    """The readings of layers recognised among unnamed shapes (``order``: every tensor's name,
    in the dump's order), each layer's tensors told whether they follow the last one's."""
    at = {name: index for index, name in enumerate(order)}
    adjacent = [min(at[n] for n in after.names) == max(at[n] for n in before.names) + 1
                for before, after in itertools.pairwise(found)]
    return read_unnamed([layer.spec for layer in found], names, adjacent)


UNNAMED = ("parameters() prints shapes without names: which shapes make one layer is only a "
           "reading of their order (one layer or several in a row, stacked or bidirectional, "
           "a layer or a cell), so no configuration is claimed: every reading is listed")


def _unique_names(printout: Printout) -> Printout:
    """A dump whose names repeat (Keras 3's ``w.name`` is ``kernel`` for every layer) with the
    repeats numbered, ``kernel (2)``, so that no tensor is lost from the counts."""
    seen: dict[str, int] = {}
    tensors = []
    for tensor in printout.tensors:
        seen[tensor.name] = seen.get(tensor.name, 0) + 1
        count = seen[tensor.name]
        tensors.append(tensor if count == 1 else replace(
            tensor, name=f"{tensor.name} ({count})"))
    return replace(printout, tensors=tuple(tensors))


def _count(shape: tuple[int, ...]) -> int:
    total = 1
    for dim in shape:
        total *= dim
    return total
