"""Read the text of a failed PyTorch load and tell what the checkpoint holds and the model expects.

Two kinds of error are read, from anywhere in the text (a traceback or a whole log is fine):

- ``load_state_dict``'s ``Error(s) in loading state_dict for Net:`` with its ``Missing key(s)``
  (the model has them, the checkpoint does not), ``Unexpected key(s)`` (the other way round)
  and ``size mismatch for KEY: copying a param with shape torch.Size([...]) from checkpoint,
  the shape in current model is torch.Size([...])`` lines, and the wordings torch used before
  1.0: 0.4.1's ``copying a param of torch.Size([...]) from checkpoint, where the shape is
  torch.Size([...]) in current model`` (which prints the two shapes the other way round),
  0.3's and 0.4.0's ``While copying the parameter named "KEY", whose dimensions in the model
  are ... and whose dimensions in the checkpoint are ...``, and 0.3's ``unexpected key "KEY" in
  state_dict`` and ``missing keys in state_dict: "{...}"``;
- the runtime checks of ``nn.RNN``/``nn.LSTM``/``nn.GRU`` and their cells:
  ``Expected hidden[0] size (2, 3, 32), got [4, 3, 32]``, ``Expected hidden size (...)``,
  ``input.size(-1) must be equal to input_size. Expected 16, got 32``, ``input has inconsistent
  input_size: got 32 expected 16``, ``hidden0 has inconsistent hidden_size: got 16, expected 32``.

For each recurrent module (keys grouped by what stands before ``weight_ih_l0`` etc.) each side
gets a :class:`PartialLayer`: what the text proves, None where it cannot tell. The text shows
only the keys that failed, never the ones that loaded, so the rules are: a ``_reverse`` key
means two directions and its absence on one side (it is unexpected or missing) one; keys ending
``_l{k}`` are a layer stack and bare ``weight_ih`` a single-step cell; a side lacking layer k's
keys has k layers; shapes give G·H, H (``weight_hh``'s second dimension, ``weight_hr``'s when
projecting) and the input width (``weight_ih_l0``'s second); layer 1's input width is D·H. When
G·H, H or the directions differ, every layer's tensors fail, so the keys seen are all the
layers there are. A ``module.`` prefix on one side only is ``nn.DataParallel``'s.

>>> a = analyse('''Error(s) in loading state_dict for Net:
...     size mismatch for rnn.weight_ih_l0: copying a param with shape torch.Size([96, 8]) from \\
... checkpoint, the shape in current model is torch.Size([192, 8]).
...     size mismatch for rnn.weight_hh_l0: copying a param with shape torch.Size([96, 32]) from \\
... checkpoint, the shape in current model is torch.Size([192, 64]).
... ''')
>>> a.checkpoint[0].describe(), a.model[0].describe()
('GRU(8, 32, 1 layer)', 'GRU(8, 64, 1 layer)')
>>> print(a.fixes[0])  # doctest: +NORMALIZE_WHITESPACE
the checkpoint's `rnn` is GRU(8, 32, 1 layer); your model asks for hidden 64 — build it
with hidden_size=32

A plain RNN's nonlinearity is never in the text; a lone G·H (only ``weight_ih``'s rows) leaves
the cell open, and the analysis lists the candidates instead of guessing:

>>> analyse('''Error(s) in loading state_dict for M:
...     size mismatch for enc.weight_ih_l0: copying a param with shape torch.Size([96, 8]) from \\
... checkpoint, the shape in current model is torch.Size([96, 16]).''').notes[-1]
'`enc`: 96 gate rows could be an LSTM with hidden 24, a GRU with hidden 32 or an RNN with hidden 96'

A runtime error names no module; the analysis says what the layer expects and what to change:

>>> r = analyse("RuntimeError: Expected hidden[0] size (2, 3, 32), got [4, 3, 32]")
>>> r.kind, r.model[0].describe()
('runtime', 'LSTM(?, ?)')
>>> print(r.fixes[0])
h_0's first dimension is num_layers × (2 if bidirectional else 1) = 2, not 4
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paramcount.engine.commandline import command_line
from paramcount.engine.conventions import total
from paramcount.engine.conventions.recognition import GATES, build, cell_from_rows
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import ParamcountError
from paramcount.reading.patterns import lazy
from paramcount.record import replace
from paramcount.usertext import NOT_ASCII_DIGITS, digits_value, foreign_digits, shown_text


class NoLoadError(ParamcountError):
    """The text holds no load_state_dict error and no recurrent-layer size error."""


@dataclass(frozen=True)
class PartialLayer:
    """A torch recurrent module as far as an error text tells: None where it cannot."""

    name: str | None
    """The module's path in the state dict (``encoder.lstm``); None when the text has no key."""
    cell: Cell | None = None
    input_size: int | None = None
    hidden_size: int | None = None
    num_layers: int | None = None
    bidirectional: bool | None = None
    bias: bool | None = None
    proj_size: int | None = None
    cell_only: bool | None = None
    """True for nn.LSTMCell & co. (keys without ``_l{k}``), False for a layer stack."""
    framework: Framework = Framework.TORCH

    @property
    def spec(self) -> LayerSpec | None:
        """The full spec when every field is known."""
        cell_only = self.cell_only
        layers = 1 if cell_only else self.num_layers
        bidirectional = False if cell_only else self.bidirectional
        proj = 0 if cell_only else self.proj_size
        if None in (self.cell, self.input_size, self.hidden_size, layers, bidirectional,
                    self.bias, proj, cell_only):
            return None
        return build(cell=self.cell, input_size=self.input_size, hidden_size=self.hidden_size,
                     num_layers=layers, bidirectional=bidirectional, bias=self.bias,
                     proj_size=proj, framework=self.framework, single_cell=cell_only)

    @property
    def params(self) -> int | None:
        """The parameter count when every field is known."""
        spec = self.spec
        return None if spec is None else total(spec)

    @property
    def command(self) -> str | None:
        """The ``paramcount`` command line that counts it, when every field is known."""
        spec = self.spec
        return None if spec is None else command_line(spec)

    def describe(self) -> str:
        """``LSTM(16, 32, 2 layers, bidirectional)``; ``?`` for an unknown size."""
        if self.cell is not None:
            name = self.cell.name + ("Cell" if self.cell_only else "")
        else:
            name = "recurrent cell" if self.cell_only else "recurrent layer"
        args = [_known(self.input_size), _known(self.hidden_size)]
        if self.num_layers is not None and not self.cell_only:
            args.append(f"{self.num_layers} layer" + ("s" if self.num_layers != 1 else ""))
        if self.bidirectional:
            args.append("bidirectional")
        if self.bias is False:
            args.append("bias=False")
        if self.proj_size:
            args.append(f"proj_size={self.proj_size}")
        return f"{name}({', '.join(args)})"


def _known(value: int | None) -> str:
    return "?" if value is None else str(value)


@dataclass(frozen=True)
class Difference:
    """One way the checkpoint and the model (or the input and the module) disagree."""

    module: str | None
    field: str
    """``input``, ``hidden``, ``proj``, ``cell``, ``layers``, ``bidirectional``, ``bias``,
    ``cell_only``, ``prefix``, ``h0``, ``c0``, ``batch``."""
    checkpoint: object
    """The checkpoint's value (for a runtime error: what was passed)."""
    model: object
    """What the model expects."""
    explanation: str


@dataclass(frozen=True)
class LoadErrorAnalysis:
    """What one error text says, per recurrent module, with one-line fixes."""

    kind: str
    """``load_state_dict`` or ``runtime``."""
    model_class: str | None
    """The class named by ``Error(s) in loading state_dict for Net``."""
    checkpoint: tuple[PartialLayer, ...]
    model: tuple[PartialLayer, ...]
    differences: tuple[Difference, ...]
    fixes: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())
    """What the key names mean (``_reverse``, ``weight_ih`` vs ``weight_ih_l0``, ``module.``)
    and what the text cannot tell."""
    other: tuple[str, ...] = field(default=())
    """Keys of non-recurrent modules that failed too (often a consequence: a head after a
    bidirectional layer reads twice the width)."""
    unread: tuple[str, ...] = field(default=())
    """Lines of the text in an error's wording that were not read, each with why (a size
    written in digits other than ASCII ones): what they say is missing from the analysis."""


_HEADER = lazy(r"Error\(s\) in loading state_dict for ([A-Za-z_][\w.]*)")
_SECTION = lazy(
    r'(Missing|Unexpected) key\(s\) in state_dict:\s*((?:"[^"\n]*"(?:,\s*)?)*)'
)
_KEY = lazy(r'"([^"\n]*)"')
_SIZE = lazy(
    r"size mismatch for ([^\s:]+): copying a param with shape torch\.Size\(\[([0-9,\s]*)\]\) from "
    r"checkpoint, the shape in current model is torch\.Size\(\[([0-9,\s]*)\]\)"
)
_SIZE_041 = lazy(
    r"size mismatch for ([^\s:]+): copying a param of torch\.Size\(\[([0-9,\s]*)\]\) from "
    r"checkpoint, where the shape is torch\.Size\(\[([0-9,\s]*)\]\) in current model"
)
"""torch 0.4.1's wording (pytorch#8619), which prints the model's shape first and the
checkpoint's second, against its words (pytorch#11499; fixed in 1.0 by pytorch#11200)."""
_COPYING = lazy(
    r"While copying the parameter named [\"'`]?([^\s\"'`,]+)[\"'`]?, whose dimensions in the "
    r"model are torch\.Size\(\[([0-9,\s]*)\]\) and whose dimensions in the checkpoint are "
    r"torch\.Size\(\[([0-9,\s]*)\]\)"
)
"""torch 0.3 and 0.4.0's wording (model first, checkpoint second), with or without quotes."""
_OLD_UNEXPECTED = lazy(r'unexpected key "([^"\n]*)" in state_dict')
"""torch 0.3's KeyError for a key only the checkpoint holds."""
_OLD_MISSING = lazy(r"missing keys in state_dict: \"(?:set\()?\{([^}\n]*)\}")
"""torch 0.3's KeyError for keys only the model holds: a Python set, printed."""
_OLD_KEY = lazy(r"\\?['\"]([^'\"\\]+)\\?['\"]")
SWAPPED = (
    "torch 0.4.1's `copying a param of A from checkpoint, where the shape is B in current "
    "model` prints the model's shape as A and the checkpoint's as B (pytorch#11499): read so"
)
_HIDDEN = lazy(r"Expected hidden(?:\[([0-9])\])? size \(([0-9,\s]*)\), got \[([0-9,\s]*)\]")
_INPUT = lazy(r"input\.size\(-1\) must be equal to input_size\. "
                    r"Expected ([0-9]+), got ([0-9]+)")
_CELL_INPUT = lazy(r"input has inconsistent input_size: got ([0-9]+) expected ([0-9]+)")
_CELL_HIDDEN = lazy(r"hidden([0-9]) has inconsistent hidden_size: "
                          r"got ([0-9]+), expected ([0-9]+)")
_TORCH_KEY = lazy(
    r"(?P<prefix>(?:.*\.)?)(?P<role>weight_ih|weight_hh|bias_ih|bias_hh|weight_hr)"
    r"(?:_l(?P<layer>[0-9]+)(?P<reverse>_reverse)?)?"
)

REVERSE = (
    "`_reverse` keys are the backward direction of a bidirectional layer "
    "(bidirectional=True)"
)
CELL_VS_LAYER = (
    "`weight_ih` without a suffix belongs to a single-step cell (nn.LSTMCell, nn.GRUCell, "
    "nn.RNNCell); `weight_ih_l0` to layer 0 of a stack (nn.LSTM, nn.GRU, nn.RNN)"
)
DATA_PARALLEL = (
    "the checkpoint's keys start with `module.`: it was saved from nn.DataParallel / "
    "DistributedDataParallel — strip it: "
    "`model.load_state_dict({k.removeprefix('module.'): v for k, v in state.items()})`"
)
DATA_PARALLEL_MODEL = (
    "your model's keys start with `module.` (it is wrapped in nn.DataParallel / "
    "DistributedDataParallel) and the checkpoint's do not: load into the bare model, "
    "`model.module.load_state_dict(state)`"
)


def _shape(text: str) -> tuple[int, ...]:
    return tuple(digits_value(n) for n in text.replace(" ", "").split(",") if n)


_WORDINGS = (_SIZE, _SIZE_041, _COPYING, _HIDDEN, _INPUT, _CELL_INPUT, _CELL_HIDDEN)


def unread_lines(text: str) -> tuple[str, ...]:
    """The lines of ``text`` an error's wording would have read but for their digits (``٦٤``,
    ``²``), each shown (escaped, cut) with why it was not read."""
    unread = []
    for line in text.splitlines():
        ascii = foreign_digits(line)
        if ascii is not None and any(wording.search(ascii) for wording in _WORDINGS):
            unread.append(f"`{shown_text(line.strip(), 100)}`: {NOT_ASCII_DIGITS}")
    return tuple(unread)


def analyse(text: str) -> LoadErrorAnalysis:
    """What ``text`` (a load_state_dict or RNN runtime error, in any surrounding log) says.

    A line in an error's wording whose sizes are not in ASCII digits is not read: it is named
    in :attr:`LoadErrorAnalysis.unread`. Raises :class:`NoLoadError` when the text holds
    neither kind of error.
    """
    unread = unread_lines(text)
    try:
        analysis = _analyse(text)
    except NoLoadError:
        if not unread:
            raise
        raise NoLoadError(f"no line of the error was read: {unread[0]}"
                          + (f" (and {len(unread) - 1} more)" if len(unread) > 1 else "")
                          ) from None
    return replace(analysis, unread=unread) if unread else analysis


def _analyse(text: str) -> LoadErrorAnalysis:
    missing: list[str] = []
    unexpected: list[str] = []
    for kind, keys in _SECTION.findall(text):
        (missing if kind == "Missing" else unexpected).extend(_KEY.findall(keys))
    unexpected += _OLD_UNEXPECTED.findall(text)
    for keys in _OLD_MISSING.findall(text):
        missing += _OLD_KEY.findall(keys)
    mismatched = {
        name: (_shape(ours), _shape(theirs)) for name, ours, theirs in _SIZE.findall(text)
    }
    old = [*_SIZE_041.findall(text), *_COPYING.findall(text)]
    mismatched.update((name, (_shape(stored), _shape(wanted))) for name, wanted, stored in old)
    header = _HEADER.search(text)
    if header or missing or unexpected or mismatched:
        analysis = _load_state_dict(header[1] if header else None, missing, unexpected,
                                    mismatched)
        if _SIZE_041.search(text):
            analysis = replace(analysis, notes=(SWAPPED, *analysis.notes))
        return analysis
    found = runtime(text)
    if found is None:
        raise NoLoadError(
            "no load_state_dict error (`Error(s) in loading state_dict`, missing, unexpected "
            "or size-mismatched keys) and no recurrent-layer size error (`Expected hidden "
            "size`, `input.size(-1) must be equal to input_size`) in the text"
        )
    return found


# ---------------------------------------------------------------------------- load_state_dict


@dataclass
class _Side:
    """What one side (checkpoint or model) of one module certainly has and lacks."""

    names: set[str] = field(default_factory=set)
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    lacks: set[str] = field(default_factory=set)


def _load_state_dict(
    model_class: str | None,
    missing: list[str],
    unexpected: list[str],
    mismatched: dict[str, tuple[tuple[int, ...], tuple[int, ...]]],
) -> LoadErrorAnalysis:
    notes: list[str] = []
    differences: list[Difference] = []
    fixes: list[str] = []
    missing, unexpected = _prefix_differences(missing, unexpected, notes, differences, fixes)
    modules: dict[str, tuple[_Side, _Side]] = {}
    other: list[str] = []

    def sides(name: str) -> tuple[_Side, _Side] | None:
        match = _TORCH_KEY.fullmatch(name)
        if match is None:
            return None
        return modules.setdefault(match["prefix"].removesuffix("."), (_Side(), _Side()))

    # Side 0 is the checkpoint, side 1 the model: a name only one holds, the other lacks.
    for keys, holder, where in ((unexpected, 0, "checkpoint"), (missing, 1, "model")):
        for name in keys:
            pair = sides(name)
            if pair is None:
                other.append(f"`{name}` is in the {where} only")
            else:
                pair[holder].names.add(name)
                pair[1 - holder].lacks.add(name)
    for name, (stored, wanted) in mismatched.items():
        pair = sides(name)
        if pair is None:
            other.append(f"`{name}`: checkpoint {list(stored)}, model {list(wanted)}")
        else:
            pair[0].names.add(name)
            pair[0].shapes[name] = stored
            pair[1].names.add(name)
            pair[1].shapes[name] = wanted

    checkpoint, model = [], []
    any_reverse = any_cell_suffix = False
    for module, (theirs, ours) in modules.items():
        complete = _changes_every_layer(theirs, ours)
        layered = (_stacked(theirs), _stacked(ours))
        every = complete or _directions_differ(theirs, ours)
        ck = _infer(module, theirs, layered[1], complete, every)
        md = _infer(module, ours, layered[0], complete, every)
        ck, md = _from_each_other(module, ck, md, theirs, ours)
        for layer, side in ((ck, theirs), (md, ours)):
            rows = _gate_rows(side)
            if layer.cell is None and rows and _candidates(module, rows) not in notes:
                notes.append(_candidates(module, rows))
        checkpoint.append(ck)
        model.append(md)
        found = _differences(module, ck, md)
        differences += found
        if found:
            fixes.append(_fix(module, ck, md, found))
        names = theirs.names | ours.names
        any_reverse = any_reverse or any(n.endswith("_reverse") for n in names)
        any_cell_suffix = any_cell_suffix or (ck.cell_only != md.cell_only and
                                              None not in (ck.cell_only, md.cell_only))
    if any_reverse:
        notes.insert(0, REVERSE)
    if any_cell_suffix:
        notes.insert(0, CELL_VS_LAYER)
    return LoadErrorAnalysis("load_state_dict", model_class, tuple(checkpoint), tuple(model),
                             tuple(differences), tuple(fixes), tuple(notes), tuple(other))


def _prefix_differences(
    missing: list[str],
    unexpected: list[str],
    notes: list[str],
    differences: list[Difference],
    fixes: list[str],
) -> tuple[list[str], list[str]]:
    """Pair keys that differ only by a ``module.`` prefix; the rest is analysed per module."""
    missing_set, unexpected_set = set(missing), set(unexpected)
    stripped = {u for u in unexpected if u.startswith("module.")
                and u.removeprefix("module.") in missing_set}
    added = {m for m in missing if m.startswith("module.")
             and m.removeprefix("module.") in unexpected_set}
    if stripped:
        notes.append(DATA_PARALLEL)
        differences.append(Difference(None, "prefix", "module.", "", DATA_PARALLEL))
        fixes.append("strip the checkpoint's `module.` prefix (saved from nn.DataParallel): "
                     "{k.removeprefix('module.'): v for k, v in state.items()}")
        gone = stripped | {u.removeprefix("module.") for u in stripped}
        return [m for m in missing if m not in gone], [u for u in unexpected if u not in gone]
    if added:
        notes.append(DATA_PARALLEL_MODEL)
        differences.append(Difference(None, "prefix", "", "module.", DATA_PARALLEL_MODEL))
        fixes.append("load into the wrapped model's `.module` (your model is in "
                     "nn.DataParallel, the checkpoint is not)")
        gone = added | {m.removeprefix("module.") for m in added}
        return [m for m in missing if m not in gone], [u for u in unexpected if u not in gone]
    return missing, unexpected


def _stacked(side: _Side) -> bool:
    """Whether the side's keys show a layer stack (``_l{k}`` suffixes)."""
    return any(_parts(name)[1] is not None for name in side.names)


def _parts(name: str) -> tuple[str, int | None, bool]:
    """(role, layer or None for a cell, reverse) of a torch recurrent key."""
    match = _TORCH_KEY.fullmatch(name)
    assert match is not None
    layer = match["layer"]
    index = None if layer is None else digits_value(layer)
    return match["role"], index, match["reverse"] is not None


def _gate_rows(side: _Side) -> int | None:
    for name, shape in side.shapes.items():
        role = _parts(name)[0]
        if role != "weight_hr" and shape:
            return shape[0]
    return None


def _output_width(side: _Side) -> int | None:
    """Hr, the width of weight_hh's second axis, when a shape shows it."""
    for name, shape in side.shapes.items():
        if _parts(name)[0] == "weight_hh" and len(shape) == 2:
            return shape[1]
    return None


def _changes_every_layer(theirs: _Side, ours: _Side) -> bool:
    """Whether G·H or Hr differ, so that every layer's tensors failed and all of them show."""
    rows = (_gate_rows(theirs), _gate_rows(ours))
    widths = (_output_width(theirs), _output_width(ours))
    return (None not in rows and rows[0] != rows[1]) or (
        None not in widths and widths[0] != widths[1]
    )


def _directions_differ(theirs: _Side, ours: _Side) -> bool:
    """Whether only one side holds ``_reverse`` keys: then every such key is listed, and every
    later layer's ``weight_ih`` (D·H wide) fails, so the keys seen are all the layers there
    are."""
    def backward(names: set[str]) -> bool:
        return any(_parts(n)[0] == "weight_ih" and _parts(n)[2] for n in names)

    held = [backward(side.names) for side in (theirs, ours)]
    lacked = [backward(side.lacks) for side in (theirs, ours)]
    return held in ([True, False], [False, True]) and lacked == [not h for h in held]


def dot(module: str) -> str:
    """The module's key prefix: ``lstm.``, or nothing at the top level."""
    return f"{module}." if module else ""


def _infer(module: str, side: _Side, other_layered: bool, complete: bool,
           every: bool = False) -> PartialLayer:
    """What ``side``'s keys and shapes prove (``other_layered``: the other side is a stack;
    ``every``: the keys seen are all the layers there are)."""
    parts = {name: _parts(name) for name in side.names}
    lacked = {name: _parts(name) for name in side.lacks}
    layered = {layer is not None for _, layer, _ in parts.values()}
    cell_only = None if len(layered) != 1 else not layered.pop()
    if cell_only is None and other_layered and f"{dot(module)}weight_ih_l0" not in side.lacks:
        cell_only = False  # the other side's layer 0 loaded into this one: a stack too
    shapes = {parts[name]: shape for name, shape in side.shapes.items()}

    def shape_of(role: str, layer: int | None, reverse: bool = False) -> tuple[int, ...] | None:
        return shapes.get((role, layer, reverse))

    proj = hidden = None
    hr = next((s for (role, _, _), s in shapes.items() if role == "weight_hr"), None)
    has_proj = any(role == "weight_hr" for role, _, _ in parts.values())
    hh = next((s for (role, _, _), s in shapes.items() if role == "weight_hh"), None)
    if hr is not None and len(hr) == 2:
        proj, hidden = hr
    elif has_proj:
        if hh is not None and len(hh) == 2:
            proj = hh[1]  # weight_hh is (G·H, P) when projecting
    elif hh is not None and len(hh) == 2:
        hidden = hh[1]
        proj = 0 if any(role == "weight_hr" for role, _, _ in lacked.values()) or complete \
            else None
    rows = _gate_rows(side)
    cell = cell_from_rows(rows, hidden) if rows and hidden else None
    if has_proj:  # only an LSTM projects
        cell = Cell.LSTM
        if hidden is None and rows and rows % 4 == 0:
            hidden = rows // 4
    ih = None if cell_only is None else shape_of("weight_ih", None if cell_only else 0)
    input_size = ih[1] if ih is not None and len(ih) == 2 else None

    bidirectional: bool | None = None
    lacked_forward = {layer for role, layer, reverse in lacked.values()
                      if role == "weight_ih" and not reverse}
    if any(reverse for _, _, reverse in parts.values()):
        bidirectional = True
    elif any(reverse and role == "weight_ih" and layer not in lacked_forward and (
                layer in {lay for _, lay, _ in parts.values()} or layer == 0)
             for role, layer, reverse in lacked.values()):
        bidirectional = False  # it has that layer's forward keys but not its _reverse ones
    elif complete and cell_only is False:
        bidirectional = False
    if bidirectional is None and hidden is not None:
        later = next(((lay, s) for (role, lay, rev), s in shapes.items()
                      if role == "weight_ih" and lay and not rev and len(s) == 2), None)
        width = proj or hidden
        if later is not None and later[1][1] in (width, 2 * width):
            bidirectional = later[1][1] == 2 * width

    bias: bool | None = None
    whole = {(layer, reverse) for role, layer, reverse in lacked.values() if role == "weight_ih"}
    if any(role.startswith("bias") for role, _, _ in parts.values()):
        bias = True
    elif any(role.startswith("bias") and (layer, reverse) not in whole
             for role, layer, reverse in lacked.values()):
        bias = False  # it lacks the biases of a layer whose weights it has

    layers = None
    if hidden is None and bidirectional is not None and not has_proj and rows:
        # a later layer reads D·H: with D known, H and the cell follow (a projection P < H
        # would make G·H / P more than 4, which no cell has)
        wide = next((s for (role, lay, _), s in shapes.items()
                     if role == "weight_ih" and lay and len(s) == 2), None)
        directions = 2 if bidirectional else 1
        if wide is not None and wide[1] % directions == 0:
            found_cell = cell_from_rows(rows, wide[1] // directions)
            if found_cell is not None:
                hidden, cell, proj = wide[1] // directions, found_cell, 0
    if cell_only is False and every:
        layers = 1 + max((layer for _, layer, _ in parts.values() if layer is not None),
                         default=0)
    return PartialLayer(module, cell, input_size, hidden, layers, bidirectional, bias, proj,
                        cell_only)


def _candidates(module: str, rows: int) -> str:
    """Which cells and hidden sizes ``rows`` gate rows could be."""
    options = [
        f"{_a(cell)} with hidden {rows // g}"
        for g, cell in sorted(GATES.items(), reverse=True) if rows % g == 0
    ]
    listed = ", ".join(options[:-1]) + " or " + options[-1] if len(options) > 1 else options[0]
    return f"`{module or '(top level)'}`: {rows} gate rows could be {listed}"


def _from_each_other(
    module: str, ck: PartialLayer, md: PartialLayer, theirs: _Side, ours: _Side
) -> tuple[PartialLayer, PartialLayer]:
    """What one side's keys tell about the other's.

    A side lacking layer k's keys has k layers, the side holding them up to its last; a key
    neither side lists loaded, so whatever it shows is the same on both sides.
    """

    def first_layer(names: set[str]) -> int | None:
        layers = [lay for role, lay, rev in map(_parts, names)
                  if role == "weight_ih" and lay is not None and not rev]
        return min(layers) if layers else None

    def last_layer(names: set[str]) -> int | None:
        layers = [lay for _, lay, _ in map(_parts, names) if lay is not None]
        return max(layers) + 1 if layers else None

    only_ck = theirs.names - ours.names
    only_md = ours.names - theirs.names
    if first_layer(only_ck) is not None and md.cell_only is False:
        md = replace(md, num_layers=first_layer(only_ck))
        ck = replace(ck, num_layers=last_layer(only_ck))
    if first_layer(only_md) is not None and ck.cell_only is False:
        ck = replace(ck, num_layers=first_layer(only_md))
        md = replace(md, num_layers=last_layer(only_md))
    if ck.cell_only is None or ck.cell_only != md.cell_only:
        return ck, md
    # A key listed nowhere loaded: both sides hold it, with one shape, so what it shows agrees.
    listed = theirs.names | ours.names
    p, suffix = dot(module), "" if ck.cell_only else "_l0"
    shared: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
        ((f"{p}bias_ih{suffix}",), ("bias",)),
        ((f"{p}weight_ih{suffix}",), ("input_size",)),
        ((f"{p}weight_hh{suffix}", f"{p}weight_hr{suffix}"), ("hidden_size", "proj_size", "cell")),
    ]
    if not ck.cell_only:
        shared.append(((f"{p}weight_ih_l0_reverse",), ("bidirectional",)))
        if first_layer(only_ck) is None and first_layer(only_md) is None:
            shared.append(((), ("num_layers",)))
    for keys, fields in shared:
        if listed.isdisjoint(keys):
            ck, md = _agree(ck, md, fields)
    return ck, md


def _agree(
    ck: PartialLayer, md: PartialLayer, fields: tuple[str, ...]
) -> tuple[PartialLayer, PartialLayer]:
    """Each side with the other's value of ``fields`` where it had none (they are equal)."""
    for name in fields:
        theirs, ours = getattr(ck, name), getattr(md, name)
        if theirs is None and ours is not None:
            ck = replace(ck, **{name: ours})
        elif ours is None and theirs is not None:
            md = replace(md, **{name: theirs})
    return ck, md


_FIELDS = (
    ("cell_only", "cell_only"),
    ("cell", "cell"),
    ("input_size", "input"),
    ("hidden_size", "hidden"),
    ("proj_size", "proj"),
    ("num_layers", "layers"),
    ("bidirectional", "bidirectional"),
    ("bias", "bias"),
)


def _differences(module: str, ck: PartialLayer, md: PartialLayer) -> list[Difference]:
    """Every field both sides know and disagree on, explained."""
    out = []
    for attribute, name in _FIELDS:
        theirs, ours = getattr(ck, attribute), getattr(md, attribute)
        if theirs is None or ours is None or theirs == ours:
            continue
        out.append(Difference(module, name, _value(theirs), _value(ours),
                              _explain(module, name, theirs, ours)))
    return out


def _value(value: object) -> object:
    return value.value if isinstance(value, Cell) else value


def _explain(module: str, name: str, theirs: object, ours: object) -> str:
    where = f"`{module or '(top level)'}`"
    if name == "cell_only":
        kinds = ("a single-step cell (keys `weight_ih`, no `_l0`)",
                 "a layer stack (keys `weight_ih_l0`, one set per layer)")
        return (f"the checkpoint's {where} is {kinds[0] if theirs else kinds[1]}; your "
                f"model's is {kinds[0] if ours else kinds[1]}")
    if name == "bidirectional":
        return (f"the checkpoint's {where} is {'' if theirs else 'not '}bidirectional "
                f"({'it has' if theirs else 'no'} `_reverse` keys); your model's is "
                f"{'' if ours else 'not '}bidirectional")
    if name == "cell":
        assert isinstance(theirs, Cell) and isinstance(ours, Cell)
        return (f"the checkpoint's {where} is {_a(theirs)} ({theirs.gates} gate blocks); "
                f"your model's is {_a(ours)} ({ours.gates})")
    if name == "bias":
        has = "biases (bias_ih, bias_hh)" if theirs else "no biases"
        return (f"the checkpoint's {where} has {has}; your model's has "
                f"{'biases' if ours else 'none (bias=False)'}")
    phrase = {"input": "reads {} features", "hidden": "has hidden size {}",
              "proj": "has proj_size {}", "layers": "has {} layer{}"}[name]
    return (f"the checkpoint's {where} {phrase.format(theirs, '' if theirs == 1 else 's')}; "
            f"your model's {phrase.format(ours, '' if ours == 1 else 's')}")


_ARGUMENT = {"input": "input_size", "hidden": "hidden_size", "proj": "proj_size",
             "layers": "num_layers", "bidirectional": "bidirectional", "bias": "bias"}


def _fix(module: str, ck: PartialLayer, md: PartialLayer, found: list[Difference]) -> str:
    """``the checkpoint's `lstm` is LSTM(16, 32); your model asks for hidden 64 — build it ...``."""
    asks = []
    arguments = []
    other_class = False
    for difference in found:
        if difference.field in _ARGUMENT:
            asks.append(_asked(difference.field, difference.model))
            arguments.append(f"{_ARGUMENT[difference.field]}={difference.checkpoint}")
        else:
            other_class = True
    how = f"with {', '.join(arguments)}" if arguments else ""
    if other_class:
        asks.insert(0, _class(md))
        how = f"as {_class(ck)}" + (f" {how}" if how else "")
    return (f"the checkpoint's `{module or '(top level)'}` is {ck.describe()}; your model asks "
            f"for {', '.join(asks)} — build it {how}")


def _class(layer: PartialLayer) -> str:
    """``nn.LSTM``, ``nn.GRUCell``, or what the text tells when the cell is unknown."""
    if layer.cell is not None and layer.cell_only is not None:
        return f"nn.{layer.cell.name}" + ("Cell" if layer.cell_only else "")
    if layer.cell_only:
        return "a single-step cell (nn.LSTMCell, nn.GRUCell or nn.RNNCell)"
    if layer.cell_only is False:
        return "a layer stack (nn.LSTM, nn.GRU or nn.RNN)"
    return _a(layer.cell) if layer.cell else "another layer"


def _a(cell: Cell) -> str:
    """``an LSTM``, ``a GRU``, ``an RNN``."""
    return ("a " if cell is Cell.GRU else "an ") + cell.name


_ASKED = {"input": "input", "hidden": "hidden", "proj": "proj_size"}


def _asked(name: str, value: object) -> str:
    if name == "bidirectional":
        return "bidirectional" if value else "one direction"
    if name == "bias":
        return "biases" if value else "no biases"
    if name == "layers":
        return f"{value} layer" + ("s" if value != 1 else "")
    if name == "proj" and value == 0:
        return "no projection"
    return f"{_ASKED[name]} {value}"


# ---------------------------------------------------------------------------- runtime errors


def runtime(text: str) -> LoadErrorAnalysis | None:
    """What torch's size checks of an RNN's input or initial state say (``Expected hidden[0]
    size ...``, ``input.size(-1) must be equal to input_size ...``) in ``text``, or None."""
    differences: list[Difference] = []
    fixes: list[str] = []
    notes: list[str] = []
    model = PartialLayer(None)
    for index, expected_text, got_text in _HIDDEN.findall(text):
        expected, got = _shape(expected_text), _shape(got_text)
        state = {"": "h_0", "0": "h_0", "1": "c_0"}[index]
        if index:
            model = replace(model, cell=Cell.LSTM)
            if index == "1" and expected:
                model = replace(model, hidden_size=expected[-1])
        elif expected:
            model = replace(model, hidden_size=model.hidden_size or expected[-1])
            notes.append("`Expected hidden size` (no [0]/[1]) comes from nn.GRU or nn.RNN, "
                         "whose state is one tensor")
        differences += _state_differences(state, expected, got, fixes)
    for expected_text, got_text in _INPUT.findall(text):
        model = replace(model, input_size=digits_value(expected_text))
        differences.append(Difference(
            None, "input", digits_value(got_text), digits_value(expected_text),
            f"the layer reads {expected_text} features; your input's last dimension is "
            f"{got_text}"))
        fixes.append(f"build the layer with input_size={got_text}, or feed inputs whose last "
                     f"dimension is {expected_text}")
    for got_text, expected_text in _CELL_INPUT.findall(text):
        model = replace(model, input_size=digits_value(expected_text), cell_only=True)
        differences.append(Difference(
            None, "input", digits_value(got_text), digits_value(expected_text),
            f"the cell reads {expected_text} features; your input has {got_text}"))
        fixes.append(f"build the cell with input_size={got_text}, or feed (batch, "
                     f"{expected_text}) inputs")
    for number, got_text, expected_text in _CELL_HIDDEN.findall(text):
        model = replace(model, hidden_size=digits_value(expected_text), cell_only=True)
        differences.append(Difference(
            None, "h0" if number == "0" else "c0", digits_value(got_text),
            digits_value(expected_text),
            f"the cell's hidden size is {expected_text}; your state has {got_text}"))
        fixes.append(f"pass a state of (batch, {expected_text}), or build the cell with "
                     f"hidden_size={got_text}")
    if not differences:
        return None
    return LoadErrorAnalysis("runtime", None, (), (model,), tuple(differences),
                             tuple(dict.fromkeys(fixes)), tuple(dict.fromkeys(notes)))


def _state_differences(
    state: str, expected: tuple[int, ...], got: tuple[int, ...], fixes: list[str]
) -> list[Difference]:
    """What differs between the initial state the layer expects and the one passed."""
    field_name = "h0" if state == "h_0" else "c0"
    layout = "(num_layers × directions, batch, hidden)" if len(expected) == 3 else \
        "(num_layers × directions, hidden) for an unbatched input"
    width = "hidden_size" if state == "c_0" else "hidden_size (proj_size when projecting)"
    explanation = (f"{state} must be {tuple(expected)}, {layout}; you passed {tuple(got)}")
    out = [Difference(None, field_name, list(got), list(expected), explanation)]
    if len(expected) == len(got) == 3:
        if expected[0] != got[0]:
            fixes.append(f"{state}'s first dimension is num_layers × (2 if bidirectional else "
                         f"1) = {expected[0]}, not {got[0]}")
        if expected[1] != got[1]:
            out.append(Difference(None, "batch", got[1], expected[1], (
                f"{state}'s batch is {got[1]} but the input's is {expected[1]}: {state} is "
                "(layers·directions, batch, hidden) even with batch_first=True")))
            fixes.append(f"make {state}'s second dimension the batch size, {expected[1]} "
                         "(batch_first does not apply to the state)")
        if expected[2] != got[2]:
            fixes.append(f"{state}'s last dimension is the layer's {width}, {expected[2]}, "
                         f"not {got[2]}")
    else:
        fixes.append(f"build {state} as torch.zeros{tuple(expected)}")
    return out
