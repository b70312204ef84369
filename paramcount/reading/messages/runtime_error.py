"""Runtime errors people paste, read beside their code: which argument is wrong, and the fix.

Four kinds of message are read, from anywhere in a paste (a whole traceback is fine):

- torch's size checks of ``nn.RNN``/``nn.LSTM``/``nn.GRU``, as
  :func:`..load_error.runtime` reads them: ``Expected hidden[0] size (4, 3, 20),
  got [2, 3, 20]`` and ``input.size(-1) must be equal to input_size. Expected 32, got 64``;
- torch's ``mat1 and mat2 shapes cannot be multiplied (4x256 and 128x10)``: an ``nn.Linear``
  reading another width than the layer before it gives;
- Keras' ``Input 0 of layer "lstm_1" is incompatible with the layer: expected ndim=3, found
  ndim=2. Full shape received: (None, 16)`` (Keras 2's wording and Keras 3's), and data that
  does not fit the model's input (``expected shape=(None, 10, 8), found shape=(None, 10, 16)``,
  Keras 3's ``Expected shape (None, 10, 8), but input has incompatible shape (4, 16)``).

With the layers the paste's code builds, each message is tied to the layer it is about (the
one whose sizes it prints) and to the layer that feeds it, and the fix names the argument:
``num_layers * num_directions`` for h_0, ``batch_first``, the width of the layer before,
``return_sequences=True`` or a time axis. Where the code does not decide, every cause that fits
is given. Pure: nothing is imported or run.

>>> [finding] = runtime_errors(["RuntimeError: Expected hidden[0] size (4, 3, 20), got [2, 3, 20]"],
...                            [])
>>> print(finding.fix)  # doctest: +NORMALIZE_WHITESPACE
h_0's first dimension is num_layers * num_directions = 4, not 2: a bidirectional layer has 2
directions (num_layers * 2)
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from paramcount.engine.conventions import describe
from paramcount.engine.layers import (
    KERAS_KEEP_WIDTH,
    RECURRENT_KERAS,
    TORCH_DEFAULTS,
    TORCH_FREE,
    TORCH_SIGNATURES,
    bind,
)
from paramcount.engine.spec import Framework, LayerSpec
from paramcount.reading.code.python_code import Call
from paramcount.reading.patterns import lazy
from paramcount.record import record
from paramcount.usertext import digits_value


@record
class RuntimeFinding:
    """One runtime error of the paste: the layer it is about, what is wrong, and the fix."""

    line: int
    """The line of the paste holding the message."""
    framework: str
    """``torch`` or ``keras``: whose message it is."""
    message: str
    """The message as the framework prints it."""
    layer: str | None
    """The layer of the code it is about, where the code tells."""
    argument: str
    """What is wrong: ``h_0's first dimension``, ``batch_first``, ``input_size``, ..."""
    fix: str


class Built(Protocol):
    """A layer the code builds, as :class:`paramcount.reading.found.Layer` holds it."""

    @property
    def name(self) -> str:
        """Its attribute or Keras name."""

    @property
    def spec(self) -> LayerSpec | None:
        """A recurrent layer's configuration."""

    @property
    def call(self) -> Call | None:
        """The call that builds it."""


# the messages' patterns, compiled by _pattern when first used
_MATMUL = (r"mat1 and mat2 shapes cannot be multiplied "
           r"\(([0-9]+)x([0-9]+) and ([0-9]+)x([0-9]+)\)")
_NDIM = (
    r"Input [0-9]+(?: with name '[^']*')? of layer [\"']?([\w./-]+?)[\"']? is incompatible with "
    r"the layer: expected (?:min_)?ndim=([0-9]+), found ndim=([0-9]+)"
    r"(?:\.\s*Full shape received: [(\[]([^)\]]*)[)\]])?")
_DATA = (
    r"(?:expected shape=\(([^)]*)\), found shape=\(([^)]*)\)"
    r"|Expected shape \(([^)]*)\), but input has incompatible shape \(([^)]*)\))")
_KERNEL = (
    r"Dimensions must be equal, but are ([0-9]+) and ([0-9]+) for '\{\{node ([^}']+)\}\}")
_STATE_BUILT = (
    r"^\s*(?:self\.)?(\w+)\s*=.*(?:torch\.(?:zeros|ones|randn|rand|empty)|\.new_zeros)\(")


@functools.cache
def _pattern(source: str) -> re.Pattern[str]:
    """One of the patterns above, compiled when first used: only a paste that holds a
    message (:data:`_MESSAGE`) or an error about a state uses them."""
    return re.compile(source)


_MESSAGE = lazy(r"Expected hidden|input\.size\(-1\) must|has inconsistent|mat1 and mat2"
                      r"|is incompatible with the layer|xpected shape|Dimensions must be equal")
"""Words each message read here holds (the patterns above, and those of
:func:`..load_error.runtime`): a line without them is not searched further,
so that a long paste of code pays one search a line."""


def runtime_errors(lines: Sequence[str], models: Sequence[Sequence[Built]],
                   overrides: Mapping[str, int] | None = None) -> list[RuntimeFinding]:
    """Every runtime error in the paste's ``lines``, explained with the layers of ``models``
    (each model's layers in order) and the ``--set`` sizes."""
    found: list[RuntimeFinding] = []
    seen: set[str] = set()
    for number, text in enumerate(lines, 1):
        if not _MESSAGE.search(text):
            continue
        for finding in _torch_checks(number, text, models, lines, overrides or {}):
            found.append(finding)
        for match in _pattern(_MATMUL).finditer(text):
            found.append(_matmul(number, match, models))
        for match in _pattern(_NDIM).finditer(text):
            found.append(_ndim(number, match, models))
        for match in _pattern(_DATA).finditer(text):
            found.append(_data(number, match))
        for match in _pattern(_KERNEL).finditer(text):
            found.append(_kernel(number, match))
    unique = []
    for finding in found:
        if finding.message + finding.argument not in seen:
            seen.add(finding.message + finding.argument)
            unique.append(finding)
    return unique


# -- torch's recurrent size checks -------------------------------------------------------------

def _torch_checks(number: int, text: str, models: Sequence[Sequence[Built]],
                  lines: Sequence[str], overrides: Mapping[str, int]) -> list[RuntimeFinding]:
    """``Expected hidden[0] size ...`` and ``input.size(-1) must be equal to input_size ...``."""
    from paramcount.reading.messages.load_error import (
        runtime,  # loaded only for a line that may hold one
    )

    analysis = runtime(text)
    if analysis is None:
        return []
    message = text.strip().removeprefix("RuntimeError: ")
    found = []
    for difference in analysis.differences:
        if difference.field in ("h0", "c0") and isinstance(difference.model, list) and (
                isinstance(difference.checkpoint, list)):
            found += _state(number, message, difference.field, difference.model,
                            difference.checkpoint, models, lines, overrides,
                            lstm=analysis.model[0].cell is not None)
        elif difference.field == "input" and analysis.model[0].cell_only is None:
            assert isinstance(difference.model, int) and isinstance(difference.checkpoint, int)
            found.append(_input(number, message, difference.model, difference.checkpoint,
                                models))
    return found


def _state(number: int, message: str, field: str, expected: list[int], got: list[int],
           models: Sequence[Sequence[Built]], lines: Sequence[str],
           overrides: Mapping[str, int], lstm: bool) -> list[RuntimeFinding]:
    """What is wrong with an initial state torch refused."""
    state = "h_0" if field == "h0" else "c_0"
    if len(expected) != 3 or len(got) != 3:
        return [RuntimeFinding(number, "torch", message, None, f"{state}'s shape", (
            f"{state} must be {tuple(expected)}: (num_layers * num_directions, batch, hidden), "
            f"or (num_layers * num_directions, hidden) for an unbatched input"))]
    rows, batch, width = expected
    layer = _one(built for model in models for built in model
                 if (spec := built.spec) is not None and spec.framework is Framework.TORCH
                 and not spec.single_cell and (spec.cell.name == "LSTM") == lstm
                 and spec.num_layers * spec.directions == rows
                 and (spec.hidden_size if state == "c_0" else spec.output_size) == width)
    name = layer.name if layer is not None else None
    where = _built_at(lines, state)
    found = []
    if rows != got[0]:
        if layer is not None and layer.spec is not None:
            spec = layer.spec
            fix = (f"{name} is {describe(spec)}: {state} is (num_layers * num_directions, batch, "
                   f"hidden) = ({spec.num_layers} * {spec.directions}, batch, {width}), so its "
                   f"first dimension is {rows}, not {got[0]}")
            if spec.bidirectional and got[0] == spec.num_layers:
                fix += f"; bidirectional=True doubles it: build {state} with num_layers * 2"
        else:
            fix = (f"{state}'s first dimension is num_layers * num_directions = {rows}, not "
                   f"{got[0]}")
            if rows == 2 * got[0]:
                fix += ": a bidirectional layer has 2 directions (num_layers * 2)"
            if isinstance(layers := overrides.get("num_layers"), int) and layers > 0 and (
                    rows % layers == 0):
                fix += f"; with --set num_layers={layers}: {rows // layers} direction(s)"
        found.append(RuntimeFinding(number, "torch", message, name,
                                    f"{state}'s first dimension (num_layers * num_directions)",
                                    fix + where))
    if batch != got[1]:
        batch_first = _option(layer, "batch_first") if layer is not None else None
        if got[1] == rows and got[0] == batch:
            argument, fix = f"{state}'s layout", (
                f"{state} is (num_layers * num_directions, batch, hidden) even with "
                f"batch_first=True; it was passed batch first: {state}.transpose(0, 1)")
        elif batch_first is True:
            argument, fix = f"{state}'s batch dimension", (
                f"{state} is (num_layers * num_directions, batch, hidden) even with "
                f"batch_first=True: its second dimension is the batch, {batch}, not {got[1]}")
        elif batch_first is False:
            argument, fix = "batch_first", (
                f"{name} has batch_first=False, so it reads the input as (time, batch, "
                f"features) and its batch is the input's second dimension, {batch}; {state}'s "
                f"is {got[1]}: for (batch, time, features) inputs build {name} with "
                "batch_first=True")
        else:
            argument, fix = "batch_first or the batch size", (
                f"the layer takes a batch of {batch}, {state} has {got[1]}: either the input "
                "is (batch, time, features) and the layer lacks batch_first=True, or "
                f"{state}'s second dimension must be the batch size, {batch}")
        found.append(RuntimeFinding(number, "torch", message, name, argument, fix + where))
    if width != got[2]:
        size = "hidden_size" if state == "c_0" else "hidden_size (proj_size when projecting)"
        found.append(RuntimeFinding(number, "torch", message, name, f"{state}'s last dimension",
                                    f"{state}'s last dimension is the layer's {size}, "
                                    f"{width}, not {got[2]}" + where))
    return found


def _input(number: int, message: str, expected: int, got: int,
           models: Sequence[Sequence[Built]]) -> RuntimeFinding:
    """What is wrong when a torch recurrent layer reads another width than it was built for."""
    pairs = [(built, model) for model in models for built in model
             if (spec := built.spec) is not None and spec.framework is Framework.TORCH
             and not spec.single_cell and spec.input_size == expected]
    match = pairs[0] if len(pairs) == 1 else None
    if match is None:
        return RuntimeFinding(number, "torch", message, None, "input_size", (
            f"the layer reads {expected} features and the input's last dimension is {got}: "
            f"build it with input_size={got}, or feed (..., {expected}) inputs; if {got} is the "
            "sequence length, the input is (batch, features, time): x.transpose(1, 2)"))
    layer, model = match
    before = _before(layer, model)
    if before is not None and _width(before) == expected and _name(before) == "Conv1d":
        return RuntimeFinding(number, "torch", message, layer.name, "the input's layout", (
            f"{before.name} (nn.Conv1d) outputs (batch, {expected} channels, time), and "
            f"{layer.name} reads features last: transpose between them, x.transpose(1, 2) "
            "(with batch_first=True)"))
    return _fed(number, message, layer, before, "input_size", expected, got, (
        f", or feed (..., {expected}) inputs; if {got} is the sequence length, the input is "
        "(batch, features, time): x.transpose(1, 2)"))


def _matmul(number: int, match: re.Match[str], models: Sequence[Sequence[Built]]
            ) -> RuntimeFinding:
    """An ``nn.Linear`` reading another width than it was built for."""
    rows, wide, expected, out = (digits_value(g) for g in match.groups())
    message = match.group(0)
    pairs = [(built, model) for model in models for built in model if _name(built) == "Linear"
             and _bound(built).get("in_features") == expected
             and _bound(built).get("out_features") == out]
    if len(pairs) != 1:
        return RuntimeFinding(number, "torch", message, None, "in_features", (
            f"an nn.Linear(in_features={expected}, out_features={out}) received {rows} rows of "
            f"{wide} features: build it with in_features={wide}, the width of what feeds it"))
    layer, model = pairs[0]
    before = _before(layer, model)
    spec = before.spec if before is not None else None
    if before is not None and spec is not None and _width(before) != wide and (
            spec.num_layers * spec.directions * spec.output_size == wide):
        return RuntimeFinding(number, "torch", message, layer.name, "what reaches it", (
            f"{wide} = num_layers * num_directions * hidden: h_n of {before.name} flattened, "
            f"every layer's and direction's final state; take the last layer's: h_n[-1]"
            + (" (both directions: torch.cat((h_n[-2], h_n[-1]), dim=1))"
               if spec.bidirectional else "")))
    return _fed(number, message, layer, before, "in_features", expected, wide,
                ", the width of what feeds it")


def _fed(number: int, message: str, layer: Built, before: Built | None, argument: str,
         expected: int, got: int, otherwise: str) -> RuntimeFinding:
    """A torch layer built for ``expected`` features and fed ``got``: the layer before gives
    that width (the fix is the argument), or the input does (``otherwise`` says more)."""
    if before is not None and _width(before) == got:
        return RuntimeFinding(number, "torch", message, layer.name, argument, (
            f"{before.name} outputs {got} features{_doubled(before)}: build {layer.name} with "
            f"{argument}={got}, not {expected}"))
    return RuntimeFinding(number, "torch", message, layer.name, argument, (
        f"{layer.name} reads {expected} features and receives {got}: build it with "
        f"{argument}={got}{otherwise}"))


# -- Keras ------------------------------------------------------------------------------------

def _ndim(number: int, match: re.Match[str], models: Sequence[Sequence[Built]]
          ) -> RuntimeFinding:
    """A Keras layer fed a tensor of the wrong rank: which layer feeds it, and the fix."""
    name, expected, got = match.group(1), digits_value(match.group(2)), digits_value(match.group(3))
    shape = f"({match.group(4)})" if match.group(4) is not None else f"a tensor of rank {got}"
    message = match.group(0)
    pairs = [(built, model) for model in models for built in model if built.name == name]
    if not pairs:  # the session's numbering differs: the one layer of that class
        base = re.sub(r"_[0-9]+$", "", name)
        pairs = [(built, model) for model in models for built in model
                 if re.sub(r"_[0-9]+$", "", built.name) == base and _name(built) != ""]
    layer, model = pairs[0] if len(pairs) == 1 else (None, None)
    features = (match.group(4) or "").split(",")[-1].strip() or "features"
    if expected != 3 or got != 2:
        return RuntimeFinding(number, "keras", message, name, "the input's rank", (
            f"{name} expects rank {expected} inputs "
            + ("(batch, timesteps, features)" if expected == 3 else
               "(batch, time, rows, cols, channels)" if expected == 5 else "")
            + f" and received {shape}: reshape what feeds it"))
    if layer is None or model is None:
        return RuntimeFinding(number, "keras", message, name, "return_sequences or a time axis", (
            f"{name} reads (batch, timesteps, features) and received {shape}: if a recurrent "
            "layer feeds it, build that one with return_sequences=True; if it reads the "
            f"model's input, give the input a time axis: Input(shape=(timesteps, {features}))"))
    before = _before(layer, model)
    if before is None:
        declared = next((value for key, value in (layer.call.kwargs if layer.call else ())
                         if key in ("input_shape", "batch_input_shape")), None)
        fix = (f"{name} reads (batch, timesteps, features) and the input is {shape}, without a "
               f"time axis: declare Input(shape=(timesteps, {features})) (None for any length), "
               f"or add one: layers.Reshape((1, {features}))")
        if declared is not None:
            fix = (f"{name}'s input_shape={declared!r} has no time axis: "
                   f"input_shape=(timesteps, {features}); " + fix)
        return RuntimeFinding(number, "keras", message, name, "the input's shape", fix)
    if _recurrent(before) and not _option(before, "return_sequences"):
        return RuntimeFinding(number, "keras", message, name, "return_sequences", (
            f"{before.name} returns only its last step, {shape}, because return_sequences is "
            f"False: build {before.name} with return_sequences=True to feed {name} a sequence"))
    return RuntimeFinding(number, "keras", message, name, "the layer before", (
        f"{before.name} outputs {shape}, no time axis; {name} reads (batch, timesteps, "
        "features): put layers.RepeatVector(timesteps) or layers.Reshape((timesteps, "
        f"features)) between them"))


def _data(number: int, match: re.Match[str]) -> RuntimeFinding:
    """Data whose shape is not the one the Keras model's input declares."""
    expected, got = (tuple(None if d.strip() == "None" else d.strip()
                           for d in text.split(",") if d.strip())
                     for text in (match.group(1) or match.group(3), match.group(2)
                                  or match.group(4)))
    declared, given = _shape_text(expected), _shape_text(got)
    message = match.group(0)
    if len(got) == len(expected) and got[-1] != expected[-1] and all(
            e is None or g is None or e == g for e, g in zip(expected[1:-1], got[1:-1],
                                                             strict=True)):
        return RuntimeFinding(number, "keras", message, None, "the input's features", (
            f"the model's input is declared {declared} and the data is {given}: the data has "
            f"{got[-1]} features, the model reads {expected[-1]}; declare "
            f"Input(shape=(..., {got[-1]})) (or the first layer's input_shape), or feed "
            f"{expected[-1]} features"))
    if len(got) == len(expected) - 1:
        return RuntimeFinding(number, "keras", message, None, "a time axis", (
            f"the model reads {declared}, (batch, timesteps, features), and the data {given} "
            f"has no time axis: reshape it to (batch, {expected[1] or 'timesteps'}, "
            f"{expected[-1]}), or x[:, None, :] for sequences of one step"))
    return RuntimeFinding(number, "keras", message, None, "the data's shape", (
        f"the model's input is declared {declared}; the data is {given}: reshape the data, or "
        "declare the Input with the data's shape"))


def _kernel(number: int, match: re.Match[str]) -> RuntimeFinding:
    """TensorFlow refusing a layer's kernel product (Keras 3 on data with another width than
    the layer was built for): the layer from the node's path, and the widths."""
    got, built = digits_value(match.group(1)), digits_value(match.group(2))
    parts = match.group(3).split("/")
    layer = next((p for p, after in itertools.pairwise(parts)
                  if "_cell" in after or after in ("MatMul", "BiasAdd")), None)
    layer = layer if layer is not None else parts[-2] if len(parts) > 1 else None
    return RuntimeFinding(number, "keras", match.group(0), layer, "the input's features", (
        f"{layer or 'the layer'} was built for {built} features and receives {got}: the "
        f"data (or the layer before) gives {got} features; declare the model's "
        f"Input(shape=(..., {got})) (or the first layer's input_shape), or feed {built}"))


def _shape_text(shape: tuple[str | None, ...]) -> str:
    """``(None, 10, 8)``."""
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


# -- helpers ----------------------------------------------------------------------------------

def _one(candidates: Any) -> Built | None:
    """The only candidate, or None for none or several."""
    found = list(candidates)
    return found[0] if len(found) == 1 else None


def _name(layer: Built) -> str:
    """The layer's class name (``Linear``, ``LSTM``), "" without a call."""
    return layer.call.name if layer.call is not None else ""


def _bound(layer: Built) -> dict[str, Any]:
    """A torch layer's arguments by name, defaults filled in."""
    call = layer.call
    if call is None:
        return {}
    return bind(TORCH_SIGNATURES.get(call.name, ()), call.args, call.keywords, TORCH_DEFAULTS)


def _option(layer: Built, key: str) -> Any:
    """A keyword the layer (or the layer it wraps) was built with; False when not given."""
    call = layer.call
    while call is not None:
        if key in call.keywords:
            return call.keywords[key]
        if key == "batch_first" and len(call.args) > 4 and call.name in ("LSTM", "GRU"):
            return call.args[4]
        inner = next((a for a in (*call.args, *call.keywords.values()) if isinstance(a, Call)),
                     None)
        call = inner
    return False


def _recurrent(layer: Built) -> bool:
    """Whether a Keras layer is recurrent (or wraps one)."""
    call = layer.call
    return layer.spec is not None or (call is not None and (call.name in RECURRENT_KERAS or any(
        isinstance(a, Call) and a.name in RECURRENT_KERAS for a in call.args)))


def _before(layer: Built, model: Sequence[Built]) -> Built | None:
    """The layer that feeds ``layer`` in the model's order (layers that change no width, such
    as dropout and activations, skipped)."""
    index = next(i for i, built in enumerate(model) if built is layer)
    for built in reversed(model[:index]):
        if _name(built) not in TORCH_FREE | KERAS_KEEP_WIDTH:
            return built
    return None


def _width(layer: Built) -> int | None:
    """The features a layer outputs per step: a recurrent layer's directions times its output
    size, a Linear's out_features, an Embedding's dim, a Conv1d's channels."""
    if layer.spec is not None:
        return layer.spec.directions * layer.spec.output_size
    bound = _bound(layer)
    for key in ("out_features", "embedding_dim", "out_channels"):
        if isinstance(bound.get(key), int):
            return int(bound[key])
    return None


def _doubled(layer: Built) -> str:
    """`` (bidirectional: 2 * 128)`` for a bidirectional recurrent layer, else ""."""
    spec = layer.spec
    return f" (bidirectional: 2 * {spec.output_size})" if spec and spec.bidirectional else ""


def _built_at(lines: Sequence[str], state: str) -> str:
    """`` (built at line 14)``: where the code makes the initial state, if it shows it."""
    wanted = state[0]
    candidates = [(number, match[1]) for number, text in enumerate(lines, 1)
                  if (match := _pattern(_STATE_BUILT).match(text))]
    for number, variable in candidates:
        if variable.lower().startswith(wanted):
            return f" (built at line {number})"
    return ""
