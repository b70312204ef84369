"""A pasted question answered: the layers its code and printouts describe, counted and checked.

``read(text)`` finds printouts (Keras summaries, torchinfo tables, ``print(model)`` reprs,
shape dumps) and code in one paste, turns every layer into a LayerSpec (recurrent) or an exact
count (the rest), totals each model whose layers are all countable, lists the names it could
not resolve, and flags every printed count that disagrees with what the code builds, with the
reason. Pure: nothing is imported or run, no framework is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paramcount import conventions
from paramcount.errors import ParamcountError, SpecError
from paramcount.layers import (
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
    torch_count,
)
from paramcount.report import growth as growth_of
from paramcount.sources.printout import Printout
from paramcount.sources.python_code import (
    MAX_TEXT,
    Block,
    Call,
    CodeReading,
    Unknown,
    is_prose,
    read_code,
)
from paramcount.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity, coerce

SCHEMA = "paramcount.read/1"


class NothingFound(ParamcountError):
    """The paste holds nothing paramcount can count."""

    exit_code = 1


class Unreadable(ParamcountError):
    """Input that cannot be read at all (too large, not a file)."""

    exit_code = 2


@dataclass(frozen=True)
class Missing:
    """A value a layer needs that the paste does not give."""

    name: str
    line: int | None
    hint: str
    """What to do about it: ``pass --set hidden_size=N``, or why it cannot be set."""


@dataclass(frozen=True)
class Layer:
    """One layer found in the paste, counted where everything it needs is known."""

    name: str
    """Its attribute or variable (``lstm``, ``encoder.0``) or its printed name."""
    kind: str
    """Its class as written: ``nn.LSTM``, ``Bidirectional(LSTM)``, ``Dense``."""
    framework: Framework | None
    line: int | None
    spec: LayerSpec | None = None
    """Recurrent layers: the configuration, in the framework's words."""
    params: int | None = None
    formula: str | None = None
    """Non-recurrent layers: the count with its numbers (``256·2 + 2``)."""
    missing: tuple[Missing, ...] = ()
    printed: int | None = None
    """What a printout says this layer holds, where one does."""
    notes: tuple[str, ...] = ()

    @property
    def recurrent(self) -> bool:
        """Whether this is an RNN/LSTM/GRU layer or cell."""
        return self.spec is not None or _cell_of(self.kind) is not None or (
            self.kind.startswith("Bidirectional"))


@dataclass(frozen=True)
class Model:
    """A model the paste defines or prints."""

    name: str
    source: str
    """``code``, ``keras-summary``, ``torchinfo``, ``repr`` or ``shapes``."""
    line: int | None
    layers: tuple[Layer, ...]
    printed_total: int | None = None
    complete: bool = True
    notes: tuple[str, ...] = ()
    tensors: tuple[tuple[str, tuple[int, ...], int], ...] = ()
    """A shape dump's tensors as printed: (name, shape, line)."""

    @property
    def total(self) -> int | None:
        """The sum of its layers' counts, or None where one of them is not known."""
        if not self.complete or any(layer.params is None for layer in self.layers):
            return None
        return sum(layer.params for layer in self.layers if layer.params is not None)


@dataclass(frozen=True)
class Disagreement:
    """A printed (or stated) count that differs from what the code builds, and why."""

    line: int | None
    layer: str
    printed: int
    computed: int
    reason: str
    source: str = "printout"
    """``printout`` (a printed count or shape) or ``question`` (a number stated in prose)."""
    naive: bool = False
    """Whether the number is the naive multiple the growth analysis explains."""


@dataclass(frozen=True)
class Answer:
    """Everything ``paramcount read`` found in one paste."""

    source: str
    kinds: tuple[str, ...]
    models: tuple[Model, ...]
    unresolved: tuple[Missing, ...]
    disagreements: tuple[Disagreement, ...]
    notes: tuple[str, ...] = ()
    overrides: tuple[tuple[str, int], ...] = field(default=())

    @property
    def recurrent(self) -> list[tuple[Model, Layer]]:
        """Every recurrent layer with the model it belongs to."""
        return [(m, layer) for m in self.models for layer in m.layers if layer.recurrent]


# -- the reproducing command ----------------------------------------------------------------

def command(spec: LayerSpec) -> str:
    """The ``paramcount`` command line that counts ``spec``."""
    parts = ["paramcount", spec.cell.value, "-i", str(spec.input_size), "-H",
             str(spec.hidden_size)]
    if spec.num_layers != 1:
        parts += ["-L", str(spec.num_layers)]
    if spec.bidirectional:
        parts.append("--bidir")
    if not spec.bias:
        parts.append("--no-bias")
    if spec.proj_size:
        parts += ["--proj", str(spec.proj_size)]
    if spec.single_cell:
        parts.append("--cell")
    if spec.framework is not Framework.TORCH:
        parts += ["-f", spec.framework.value]
    if spec.merge_modes and any(m is not MergeMode.CONCAT for m in spec.merge_modes):
        modes = set(spec.merge_modes)
        parts += ["--merge-mode", spec.merge_modes[0].value if len(modes) == 1
                  else ",".join(m.value for m in spec.merge_modes)]
    if spec.reset_after is False:
        parts.append("--no-reset-after")
    if spec.nonlinearity is not None and spec.nonlinearity.value != "tanh":
        parts += ["--nonlinearity", spec.nonlinearity.value]
    return " ".join(parts)


# -- code -> layers ---------------------------------------------------------------------------

_CELLS = {"LSTM": Cell.LSTM, "GRU": Cell.GRU, "RNN": Cell.RNN, "SimpleRNN": Cell.RNN,
          "CuDNNLSTM": Cell.LSTM, "CuDNNGRU": Cell.GRU}


def _cell_of(kind: str) -> Cell | None:
    """The cell of a class name such as ``nn.LSTM``, ``Bidirectional(GRU)``, ``LSTMCell``."""
    match = re.search(r"(CuDNNLSTM|CuDNNGRU|SimpleRNN|LSTM|GRU|RNN)(Cell)?\)?$", kind)
    return _CELLS[match.group(1)] if match else None


def framework_of(call: Call, hint: str | None) -> str | None:
    """``torch`` or ``keras`` for a call, from its import path, its class, or the hint."""
    qualified, path = call.qualified, call.path
    if qualified.startswith("torch") or path.startswith("nn."):
        return TORCH
    if "keras" in qualified or path.startswith(("layers.", "tf.", "keras.", "tfkl.", "kl.")):
        return KERAS
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
        return [Missing(name, line, f"pass --set {name.rsplit('.', 1)[-1]}=N")
                for name, line in value.names]
    if value is None:
        return [Missing(f"{argument} of {attribute or call.name}", call.line,
                        f"{call.name} needs {argument}")]
    return [Missing(f"{argument} of {attribute or call.name}", call.line,
                    f"{argument}={value!r} is not a size paramcount can count")]


def _torch_layer(call: Call, attribute: str) -> Layer:
    """A torch module call, counted."""
    name, kind = call.name, call.path
    if name not in TORCH_SIGNATURES and name not in KNOWN and not name.endswith(
            ("Dropout", "Pool1d", "Pool2d")):
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
                     missing=tuple(_missing(error.argument, error.value, call, attribute)))
    return Layer(attribute, kind, Framework.TORCH, call.line, params=counted.params,
                 formula=counted.formula)


def _recurrent(call: Call, attribute: str, framework: Framework, bound: Mapping[str, Any],
               width: int | None, bidirectional: bool = False, merge: Any = "concat",
               kind: str | None = None) -> Layer:
    """A recurrent layer's LayerSpec from its bound arguments (and, in Keras, its input)."""
    name = call.name
    cell = _cell_of(name)
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
        return Layer(attribute, kind, framework, call.line, missing=tuple(missing))
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
    return Layer(attribute, kind, framework, call.line, spec=spec,
                 params=conventions.total(spec))


def _keras_layer(call: Call, attribute: str, width: int | None) -> tuple[Layer, int | None]:
    """A Keras layer reading ``width`` features, counted, and the width it outputs."""
    name = call.name
    bound = bind(KERAS_SIGNATURES.get(name, ()), call.args, call.keywords, KERAS_DEFAULTS)
    if width is None:
        width = _declared_width(bound)
    if name == "Bidirectional" or (name == "RNN" and isinstance(bound.get("cell"), Call)):
        inner = bound.get("layer") if name == "Bidirectional" else bound.get("cell")
        if isinstance(inner, Call) and inner.name == "RNN" and isinstance(
                inner.args[0] if inner.args else None, Call):
            inner = inner.args[0]
        if not isinstance(inner, Call) or _cell_of(inner.name) is None:
            return Layer(attribute, f"{name}(...)", Framework.KERAS, call.line, missing=(
                Missing(f"{name} ({attribute or 'layer'})", call.line,
                        "wraps a layer that is not a recurrent layer paramcount knows"),)), None
        inner_bound = bind(KERAS_SIGNATURES.get(inner.name, ()), inner.args, inner.keywords,
                           KERAS_DEFAULTS)
        if width is None:
            width = _declared_width(inner_bound)
        merge = bound.get("merge_mode", "concat")
        framework = Framework.TF1_CUDNN if inner.name.startswith("CuDNN") else Framework.KERAS
        cell_name = inner.name.removesuffix("Cell")
        fake = Call(cell_name, cell_name, inner.args, inner.kwargs, call.line)
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
                     missing=tuple(_missing(error.argument, error.value, call, attribute))), None
    return Layer(attribute, call.path, Framework.KERAS, call.line, params=counted.params,
                 formula=counted.formula), counted.output_width


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
    for block in reading.blocks:
        hint = _block_framework(block, reading.frameworks)
        layers: list[Layer] = []
        widths: dict[str, int | None] = {}
        width: int | None = None
        for step in block.steps:
            call = step.call
            framework = framework_of(call, None) or _guess(call) or hint
            if framework == KERAS:
                reads = widths.get(step.source or "") if block.kind == "functional" else width
                if call.name in ("Input", "InputLayer"):
                    bound = bind(KERAS_SIGNATURES["Input"], call.args, call.keywords, {})
                    width = _declared_width(bound)
                    widths[step.target or ""] = width
                    continue
                layer, width = _keras_layer(call, step.attribute, reads)
                widths[step.target or ""] = width
            elif framework == TORCH:
                layer = _torch_layer(call, step.attribute)
            else:
                layer = Layer(step.attribute, call.path, None, call.line, missing=(
                    Missing(f"{call.name} ({step.attribute or 'layer'})", call.line,
                            "cannot tell whether this is torch or Keras: add the import"),))
            layers.append(layer)
        if layers:
            models.append(Model(block.name, "code", block.line, tuple(layers),
                                complete=block.complete, notes=block.notes))
    return models


# -- the whole paste --------------------------------------------------------------------------

def read(text: str, overrides: Mapping[str, int] | None = None, source: str = "<stdin>"
         ) -> Answer:
    """Read a pasted question: its printouts and code, counted and compared."""
    from paramcount.sources.printout import find_printouts

    if len(text) > MAX_TEXT:
        raise Unreadable(f"{source} holds {len(text):,} characters; paramcount read reads at "
                         f"most {MAX_TEXT:,}")
    text = text.replace("\x00", "").replace("\r\n", "\n")
    lines = text.split("\n")
    printouts, claimed = find_printouts(lines)
    code_lines = ["" if number in claimed else line for number, line in enumerate(lines, 1)]
    reading = read_code("\n".join(code_lines), overrides or {})
    from_code = code_models(reading)
    from_printouts = printout_models(printouts, from_code)
    models = [*from_code, *from_printouts]
    kinds = tuple(dict.fromkeys(
        [*(["code"] if from_code else []), *(p.kind for p in printouts)]))
    unresolved = _unresolved(models, overrides or {})
    built = [*from_code, *(m for m in from_printouts if m.source == "repr")]
    shown = [m for m in from_printouts if m.source != "repr"]
    disagreements = compare(built, shown)
    disagreements += stated_counts(lines, claimed, built, disagreements)
    if not any(layer.params is not None or layer.printed is not None or layer.missing
               for m in models for layer in m.layers):
        raise NothingFound(f"nothing countable found in {source}: no recurrent, linear, "
                           "embedding or convolution layer in code, summary, repr or shape "
                           "dump")
    return Answer(source, kinds, tuple(models), tuple(unresolved), tuple(disagreements),
                  reading.notes, tuple(sorted((overrides or {}).items())))


def _unresolved(models: Sequence[Model], overrides: Mapping[str, int]) -> list[Missing]:
    seen: dict[tuple[str, int | None], Missing] = {}
    for model in models:
        for layer in model.layers:
            for missing in layer.missing:
                seen.setdefault((missing.name, missing.line), missing)
    return sorted(seen.values(), key=lambda m: (m.line or 0, m.name))


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


def printout_models(printouts: Sequence[Printout], code: Sequence[Model]) -> list[Model]:
    """Every printout as a Model: its rows or tensors, with what they imply."""
    models = []
    for printout in printouts:
        if printout.kind == "repr" and printout.block is not None:
            reading = CodeReading((printout.block,), "parsed", (), frozenset({TORCH}))
            models += [Model(m.name, "repr", m.line, m.layers) for m in code_models(reading)]
        elif printout.kind == "keras-summary":
            models.append(_keras_summary_model(printout))
        elif printout.kind == "torchinfo":
            models.append(_torchinfo_model(printout))
        elif printout.kind == "shapes":
            models.append(_shapes_model(printout))
    return models


def _keras_summary_model(printout: Printout) -> Model:
    from paramcount.sources.printout import infer_keras

    layers = []
    width: int | None = None
    for row in printout.rows:
        out = row.shape[-1] if row.shape else None
        if row.type == "InputLayer":
            width = out
            continue
        if row.type in ("Bidirectional", *RECURRENT_KERAS):
            inferred = infer_keras(row, width)
            spec = inferred.spec
            kind = _kind(spec) if spec is not None else row.type
            layers.append(Layer(row.name, kind, Framework.KERAS, row.line, spec=spec,
                                params=row.params, printed=row.params, notes=(inferred.note,)))
        else:
            layers.append(Layer(row.name, row.type, Framework.KERAS, row.line,
                                params=row.params, printed=row.params))
        width = out
    return Model(printout.title, printout.kind, printout.first, tuple(layers),
                 printed_total=printout.total)


def _torchinfo_model(printout: Printout) -> Model:
    from paramcount.sources.printout import torch_shapes

    layers = []
    rows = printout.rows
    for index, row in enumerate(rows):
        if index + 1 < len(rows) and rows[index + 1].depth > row.depth:
            continue  # a container: its children are listed
        spec = None
        notes: tuple[str, ...] = ()
        if _cell_of(row.type) is not None:
            shapes = torch_shapes(row)
            found = conventions.recognise(shapes, [Framework.TORCH]) if shapes else []
            if found:
                spec = found[0].spec
            else:
                notes = ("torchinfo shows this layer's count, not its sizes: paste the code, "
                         "print(model), or summary(model, verbose=2)",)
        layers.append(Layer(row.name or row.type, f"nn.{row.type}", Framework.TORCH, row.line,
                            spec=spec, params=row.params, printed=row.params, notes=notes))
    return Model(printout.title, printout.kind, printout.first, tuple(layers),
                 printed_total=printout.total)


def _shapes_model(printout: Printout) -> Model:
    shapes = {t.name: t.shape for t in printout.tensors}
    lines = dict(zip((t.name for t in printout.tensors), printout.tensor_lines, strict=True))
    found = conventions.recognise(shapes)
    claimed = {name for layer in found for name in layer.names}
    entries: list[tuple[int, Layer]] = []
    for layer in found:
        count = sum(_count(shapes[n]) for n in layer.names)
        name = layer.prefix.rstrip("./") or layer.names[0].rsplit(".", 1)[0]
        entries.append((lines[layer.names[0]], Layer(
            name, _kind(layer.spec), layer.spec.framework, lines[layer.names[0]],
            spec=layer.spec, params=conventions.total(layer.spec), printed=count,
            notes=layer.notes)))
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
    return Model(printout.title, printout.kind, printout.first,
                 tuple(layer for _, layer in entries),
                 printed_total=sum(_count(t.shape) for t in printout.tensors),
                 tensors=tuple((t.name, t.shape, lines[t.name]) for t in printout.tensors))


def _count(shape: tuple[int, ...]) -> int:
    total = 1
    for dim in shape:
        total *= dim
    return total


# -- comparisons ------------------------------------------------------------------------------

def growth_reason(spec: LayerSpec) -> str | None:
    """The one-sentence reason a stack is not the naive multiple, from the report's growth
    analysis: ``naive 2 × 215,040 = 430,080 vs actual 561,152, because ...``."""
    parts = growth_parts(spec)
    return None if parts is None else f"{parts[0]}, because {parts[1]}"


def growth_parts(spec: LayerSpec) -> tuple[str, str] | None:
    """``naive 2 × 215,040 = 430,080 vs actual 561,152`` and why, from the growth analysis."""
    growth = growth_of(spec)
    if growth is None or not growth.difference:
        return None
    hr = spec.output_size
    wide = [row for row in growth.rows if row.extra_columns]
    if growth.kind == "bidirectional":
        because = (f"every layer after the first reads both directions' outputs, "
                   f"2·{hr} = {2 * hr} inputs, not {hr}" if len(wide) == len(growth.rows) else
                   f"a layer after a concat merge reads 2·{hr} = {2 * hr} inputs, not {hr}")
        naive = f"naive 2 × {growth.baseline:,} = {growth.naive:,}"
    else:
        because = (f"every layer after the first reads the previous layer's {hr} outputs, "
                   f"not the {spec.input_size} inputs")
        naive = f"naive {growth.multiplier} × {growth.baseline:,} = {growth.naive:,}"
    return f"{naive} vs actual {growth.actual:,}", because


def alternatives(spec: LayerSpec) -> list[tuple[int, str]]:
    """Counts a reader might have expected instead of ``spec``'s, each with the reason."""
    found: list[tuple[int, str]] = []
    growth = growth_of(spec)
    parts = growth_parts(spec)
    if growth is not None and parts is not None:
        found.append((growth.naive, f"the naive {growth.multiplier} × {growth.baseline:,}; "
                      f"{parts[1]}"))
    if spec.framework is Framework.KERAS and spec.cell is Cell.GRU:
        other = spec.replace(reset_after=not spec.reset_after)
        found.append((conventions.total(other), (
            "Keras before 2.3 (and tf.compat.v1) defaulted GRU to reset_after=False: one bias "
            f"({spec.gate_rows},) per direction instead of Keras 3's "
            f"(2, {spec.gate_rows})"
            if spec.reset_after else
            "Keras 2.3+ and Keras 3 default GRU to reset_after=True: two bias rows "
            f"(2, {spec.gate_rows}) per direction")))
    if spec.framework is Framework.TORCH and spec.bias:
        keras_like = conventions.total(spec) - spec.directions * spec.num_layers * spec.gate_rows
        found.append((keras_like, "the one-bias formula G·H·(I + H + 1) (Keras' layout); torch "
                      "keeps two bias vectors, bias_ih and bias_hh"))
    if spec.framework is Framework.KERAS and spec.bias and spec.cell is not Cell.GRU:
        torch_like = conventions.total(spec) + spec.directions * spec.num_layers * spec.gate_rows
        found.append((torch_like, "the two-bias formula of PyTorch (bias_ih and bias_hh); "
                      "Keras keeps one bias per gate block"))
    if spec.bias:
        found.append((conventions.total(spec.replace(bias=False)), "a count without biases"))
    return found


def explain_difference(computed: Layer, printed: int) -> str:
    """Why ``printed`` differs from what ``computed`` builds, as far as it can be told."""
    if computed.spec is not None:
        for value, reason in alternatives(computed.spec):
            if value == printed:
                return reason
        spec = computed.spec
        if spec.framework in (Framework.KERAS, Framework.TF1_CUDNN):
            from paramcount.sources.printout import solve_input

            widths = solve_input(printed, spec)
            if widths:
                return (f"the printed count fits an input width of {widths[0]}, but the code "
                        f"gives it {spec.input_size}")
    return "the code builds a different layer than the one printed"


def compare(code: Sequence[Model], printed: Sequence[Model]) -> list[Disagreement]:
    """Printed counts (and shapes) that differ from the code's, layer by matched layer."""
    found = []
    for model in printed:
        match = model_match(model, code)
        if match is None:
            continue
        if model.tensors:
            found += shape_disagreements(model, match)
        flagged = {d.layer for d in found}
        for layer, computed in pairs(model, match):
            if layer.printed is None or computed.params is None or layer.name in flagged:
                continue
            if layer.printed != computed.params:
                found.append(Disagreement(layer.line, layer.name or computed.name, layer.printed,
                                          computed.params,
                                          explain_difference(computed, layer.printed)))
        total = match.total
        if model.printed_total is not None and total is not None and (
                model.printed_total != total) and not found:
            found.append(Disagreement(model.line, model.name, model.printed_total, total,
                                      "the printed total differs from the code's layers"))
    return found


def expected_shapes(code: Model) -> dict[str, tuple[tuple[int, ...], Layer]]:
    """The tensors the code's recurrent layers hold, by the names a dump would print: with the
    attribute prefix (a whole model's dump), and bare for a model that is one layer."""
    expected: dict[str, tuple[tuple[int, ...], Layer]] = {}
    recurrent = [layer for layer in code.layers if layer.spec is not None]
    for layer in recurrent:
        assert layer.spec is not None
        for tensor in conventions.tensors(layer.spec):
            if layer.spec.framework is Framework.TORCH and layer.name:
                expected[f"{layer.name}.{tensor.name}"] = (tensor.shape, layer)
            if len(recurrent) == 1:
                expected.setdefault(tensor.name, (tensor.shape, layer))
    return expected


def shape_disagreements(printed: Model, code: Model) -> list[Disagreement]:
    """Printed tensor shapes that differ from the code's recurrent layers' (transposed ones
    named as such)."""
    expected = expected_shapes(code)
    found = []
    for name, shape, line in printed.tensors:
        if name not in expected or expected[name][0] == shape:
            continue
        want, layer = expected[name]
        if tuple(reversed(shape)) == want:
            reason = (f"a transposed shape: {layer.kind} stores {name} as "
                      f"{_shape_text(want)}, not {_shape_text(shape)}")
        else:
            reason = (f"the code gives {name} the shape {_shape_text(want)}, the printout "
                      f"{_shape_text(shape)}")
        found.append(Disagreement(line, name, _count(shape), _count(want), reason))
    return found


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _counted(model: Model) -> list[Layer]:
    return [layer for layer in model.layers if layer.params != 0 and layer.printed != 0]


def model_match(printed: Model, code: Sequence[Model]) -> Model | None:
    """The code model a printout shows: by layer names, else by the sequence of classes."""
    names = {layer.name for layer in _counted(printed)}
    for model in code:
        if names and names <= {layer.name for layer in model.layers}:
            return model
        if printed.tensors and any(name in expected_shapes(model)
                                   for name, _, _ in printed.tensors):
            return model
    shown = [_base(layer.kind) for layer in _counted(printed)]
    for model in code:
        if [_base(layer.kind) for layer in _counted(model)] == shown:
            return model
    recurrent = [_base(layer.kind) for layer in _counted(printed) if layer.recurrent]
    for model in code:
        if recurrent and [_base(layer.kind) for layer in _counted(model)
                          if layer.recurrent] == recurrent:
            return model
    return None


def _base(kind: str) -> str:
    """``nn.LSTM`` -> ``lstm``; ``Bidirectional(LSTM)`` -> ``bidirectional``."""
    name = kind.split("(")[0].rsplit(".", 1)[-1].lower()
    return name.removeprefix("cudnn")


def pairs(printed: Model, code: Model) -> list[tuple[Layer, Layer]]:
    """Printed layers paired with the code's: by name, else in order (only the recurrent
    ones where the other layers do not line up)."""
    names = {layer.name: layer for layer in code.layers}
    shown, built = _counted(printed), _counted(code)
    if shown and all(layer.name in names for layer in shown):
        return [(layer, names[layer.name]) for layer in shown]
    if [_base(x.kind) for x in shown] == [_base(x.kind) for x in built]:
        return list(zip(shown, built, strict=True))
    return list(zip([x for x in shown if x.recurrent], [x for x in built if x.recurrent],
                    strict=False))


_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d{3,})(?![\w.,]\d)")


def stated_counts(lines: Sequence[str], claimed: set[int], code: Sequence[Model],
                  already: Sequence[Disagreement]) -> list[Disagreement]:
    """Counts the question states in prose that a wrong formula explains (naive growth, the
    other framework's biases, an old GRU default)."""
    numbers = {number: [int(m.group(1).replace(",", "")) for m in _NUMBER.finditer(line)]
               for number, line in enumerate(lines, 1)
               if number not in claimed and (is_prose(line) or line.lstrip().startswith("#"))}
    if not any(numbers.values()):
        return []
    expected: list[tuple[int, str, Layer]] = []
    for model in code:
        for layer in model.layers:
            if layer.spec is not None:
                expected += [(value, reason, layer) for value, reason in
                             alternatives(layer.spec)]
    if not expected:
        return []
    printed = {d.printed for d in already}
    found = []
    for number, line in enumerate(lines, 1):
        if number in claimed or not re.search(r"[A-Za-z]{3,}\s", line) or ("(" in line and (
                "=" in line or line.rstrip().endswith(")"))):
            continue
        for match in _NUMBER.finditer(line):
            value = int(match.group(1).replace(",", ""))
            for alternative, reason, layer in expected:
                if value == alternative and value not in printed and layer.params is not None \
                        and value != layer.params:
                    assert layer.spec is not None
                    growth = growth_of(layer.spec)
                    found.append(Disagreement(
                        number, layer.name, value, layer.params,
                        f"stated in the question: {reason}", "question",
                        naive=growth is not None and value == growth.naive))
                    printed.add(value)
                    break
    return found
