"""Keras 3's convention: SimpleRNN / LSTM / GRU, Bidirectional, and their cells.

Per layer and direction: kernel (in, G·H), recurrent_kernel (H, G·H) and one bias (G·H,), or
(2, G·H) for GRU with reset_after=True. Names are the variable paths of a fresh session:
``lstm_1/lstm_cell/kernel``, ``bidirectional/forward_lstm/lstm_cell/kernel``. What a layer after a
Bidirectional reads depends on the merge mode: concat gives 2H, sum/mul/ave give H.

Recognition (:func:`recognise`) finds each directory holding ``kernel`` (in, G·H),
``recurrent_kernel`` (H, G·H) and optionally ``bias`` (TF's ``:0`` suffixes allowed). H is the
recurrent kernel's rows; the cell is named by the directory (``lstm_cell``, ``gru_cell``,
``simple_rnn_cell``) where Keras 3 writes one, else read from G = G·H ÷ H (Keras 2 files put the
weights straight under the layer, ``lstm_1/kernel:0``), and both must agree. A bias (2, G·H) is
a GRU with reset_after=True, (G·H,) one with reset_after=False. Decisions:

- One :class:`Recognised` per Keras layer (num_layers=1, the input width that layer reads):
  Keras stacks are separate layers, often with others between them, and each layer's weights
  say what it reads. Its prefix is the layer's path (``sequential/lstm_1/``).
- ``forward_X`` and ``backward_X`` under one parent are that parent's Bidirectional layer.
  Its merge mode is not in the weights (it shapes only what the *next* layer reads): the spec
  keeps the default, concat, and a note says so.
- A cell directory with nothing above it (``lstm_cell/kernel``) is a bare single-step cell; one
  inside anything else is a layer's cell (``rnn/lstm_cell`` of ``RNN(LSTMCell)`` counts as the
  layer). Several cells in one layer (``RNN(StackedRNNCells(...))``) give one result each,
  prefixed by the cell's directory (``rnn/stacked_rnn_cells/lstm_cell_1/``).
- A GRU without biases cannot tell reset_after (it changes only the bias): the default, True,
  is kept and noted; a SimpleRNN's activation is not in the weights either.
- A 1-D bias of 2·G·H is cuDNN's double bias: that is ``tf1-cudnn``'s to recognise, not this.
"""

from __future__ import annotations

import re

from paramcount.engine.conventions.base import Direction, Formula, Recognised, Symbol, Tensor
from paramcount.engine.conventions.recognition import (
    RNN_NONLINEARITY,
    Shapes,
    build,
    cell_from_rows,
    in_order,
    index_of,
    is_shape,
)
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.record import record

_CLASS = {Cell.RNN: "SimpleRNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}
_SNAKE = {Cell.RNN: "simple_rnn", Cell.LSTM: "lstm", Cell.GRU: "gru"}


def input_widths(spec: LayerSpec) -> list[int]:
    """The input width of each layer: I, then H or 2H according to the previous merge mode."""
    widths = [spec.input_size]
    for layer in range(1, spec.num_layers):
        factor = spec.merge_modes[layer - 1].width_factor if spec.merge_modes else 1
        widths.append(factor * spec.hidden_size)
    return widths


def _bias_shape(spec: LayerSpec) -> tuple[int, ...]:
    if spec.cell is Cell.GRU and spec.reset_after:
        return (2, spec.gate_rows)
    return (spec.gate_rows,)


def _biases(spec: LayerSpec) -> int:
    """n: bias vectors per direction, 2 for GRU with reset_after, else 1."""
    return 2 if spec.cell is Cell.GRU and spec.reset_after else 1


def _suffix(layer: int) -> str:
    return f"_{layer}" if layer else ""


def tensors(spec: LayerSpec) -> list[Tensor]:
    """Every variable, in ``model.weights`` order, named by its path in a fresh session."""
    gh, h = spec.gate_rows, spec.hidden_size
    cell = f"{_SNAKE[spec.cell]}_cell"
    out = []
    for layer, width in enumerate(input_widths(spec)):
        layer_name = _SNAKE[spec.cell] + _suffix(layer)
        for direction in list(Direction)[: spec.directions]:
            if spec.single_cell:
                prefix = cell
            elif spec.bidirectional:
                prefix = f"bidirectional{_suffix(layer)}/{direction.value}_{layer_name}/{cell}"
            else:
                prefix = f"{layer_name}/{cell}"
            shapes: list[tuple[str, tuple[int, ...]]] = [
                ("kernel", (width, gh)),
                ("recurrent_kernel", (h, gh)),
            ]
            if spec.bias:
                shapes.append(("bias", _bias_shape(spec)))
            out += [
                Tensor(f"{prefix}/{role}", shape, layer, direction, width, role)
                for role, shape in shapes
            ]
    return out


def formula(spec: LayerSpec) -> Formula:
    """The closed form: Σ over layers of D·G·H·(in_l + H + n·b)."""
    g, h, i = spec.cell.gates, spec.hidden_size, spec.input_size
    d, n_layers, b, n = spec.directions, spec.num_layers, int(spec.bias), _biases(spec)
    gh = g * h
    nb = "2b" if n == 2 else "b"
    symbols = [
        Symbol("G", g, "gate blocks (SimpleRNN 1, GRU 3, LSTM 4)"),
        Symbol("H", h, "units"),
        Symbol("I", i, "input features"),
        Symbol("b", b, "1 with use_bias, 0 without"),
    ]
    if n == 2:
        symbols.append(Symbol("n", 2, "bias rows: GRU with reset_after=True has two"))

    def per_direction(width: str, width_value: int) -> tuple[str, int]:
        return f"{gh}·({width} + {h} + {n * b})", gh * (width_value + h + n * b)

    first_text, first_value = per_direction(str(i), i)
    if spec.single_cell:
        return Formula(f"G·H·(I + H + {nb})", tuple(symbols), ((first_text, first_value),))
    symbols += [Symbol("D", d, "directions"), Symbol("L", n_layers, "layers")]
    terms = [(f"{d}·[{first_text}]", d * first_value)]
    symbolic = f"D·G·H·(I + H + {nb})"
    rest = input_widths(spec)[1:]
    if rest and len(set(rest)) == 1:
        width = rest[0]
        width_name = "2·H" if width == 2 * h else "H"
        text, value = per_direction(f"{width // h}·{h}" if width != h else str(h), width)
        terms.append((f"{n_layers - 1}·{d}·[{text}]", (n_layers - 1) * d * value))
        symbolic += f" + (L − 1)·D·G·H·({width_name} + H + {nb})"
    elif rest:
        for width in rest:
            text, value = per_direction(str(width), width)
            terms.append((f"{d}·[{text}]", d * value))
        symbolic += f" + Σ_(l≥1) D·G·H·(in_l + H + {nb}), in_l = 2·H after concat, H otherwise"
    return Formula(symbolic, tuple(symbols), tuple(terms))


def describe(spec: LayerSpec) -> str:
    """The layers that build this stack: ``Bidirectional(LSTM(128)) on 28 features``."""
    name = _CLASS[spec.cell]
    options = []
    if not spec.bias:
        options.append("use_bias=False")
    if spec.nonlinearity is not None and spec.nonlinearity.value != "tanh":
        options.append(f"activation='{spec.nonlinearity.value}'")
    if spec.cell is Cell.GRU and spec.reset_after is False:
        options.append("reset_after=False")
    if spec.single_cell:
        args = ", ".join([str(spec.hidden_size), *options])
        return f"{name}Cell({args}) on {spec.input_size:,} features"
    return describe_stack(spec, name, options)


def describe_stack(spec: LayerSpec, name: str, options: list[str]) -> str:
    """A Keras-style stack of ``name`` layers, each wrapped in Bidirectional with its merge mode:
    ``Bidirectional(LSTM(128, return_sequences=True)) → Bidirectional(LSTM(128)) on 28 features``.
    """
    layers = []
    for layer in range(spec.num_layers):
        layer_options = list(options)
        if layer < spec.num_layers - 1:
            layer_options.append("return_sequences=True")
        text = f"{name}({', '.join([str(spec.hidden_size), *layer_options])})"
        if spec.bidirectional and spec.merge_modes:
            mode = spec.merge_modes[layer]
            merge = "" if mode.value == "concat" else (
                ", merge_mode=None" if mode.value == "none" else f", merge_mode='{mode.value}'"
            )
            text = f"Bidirectional({text}{merge})"
        layers.append(text)
    return " → ".join(layers) + f" on {spec.input_size:,} features"


_WEIGHT = re.compile(r"(?:(?P<dir>.*)/)?(?P<role>kernel|recurrent_kernel|bias)(?::[0-9]+)?")
_CELL_DIR = re.compile(r"(?P<cell>lstm|gru|simple_rnn)_cell(?:_[0-9]+)?")
_FROM_SNAKE = {snake: cell for cell, snake in _SNAKE.items()}

MERGE_MODE = (
    "Bidirectional's merge_mode is not stored in the weights (it changes what the next layer "
    "reads, not this layer's count): shown as the default, concat"
)
RESET_AFTER = (
    "without biases a GRU's reset_after is not stored in the weights (it changes only the "
    "bias): shown as the default, reset_after=True"
)


@record
class Found:
    """One direction of a Keras-style recurrent layer: its weights and what they say."""

    layer_path: str
    """The layer's path: ``sequential/lstm_1`` or ``bidirectional/forward_lstm``; ``""`` for a bare
    cell."""
    cell: Cell
    input_size: int
    hidden_size: int
    bias: tuple[int, ...] | None
    """The bias shape, None without one."""
    names: tuple[str, ...]
    directory: str
    """Where the weights are: the layer path, or the cell's directory inside it."""


def find_directions(shapes: Shapes) -> list[Found]:
    """Every directory of ``shapes`` that holds one direction of a Keras-style recurrent layer."""
    directories: dict[str | None, dict[str, tuple[str, tuple[int, ...]]]] = {}
    for name, shape in shapes.items():
        match = _WEIGHT.fullmatch(name)
        if match:
            roles = directories.setdefault(match["dir"], {})
            if match["role"] in roles:  # kernel and kernel:0 side by side: not one layer
                roles["clash"] = (name, shape)
            roles[match["role"]] = (name, shape)
    found = []
    for directory, roles in directories.items():
        if "clash" in roles or "kernel" not in roles or "recurrent_kernel" not in roles:
            continue
        kernel, recurrent = roles["kernel"][1], roles["recurrent_kernel"][1]
        if not (is_shape(kernel, 2) and is_shape(recurrent, 2)) or kernel[1] != recurrent[1]:
            continue
        cell = cell_from_rows(recurrent[1], recurrent[0])
        layer_path = directory or ""
        named = _CELL_DIR.fullmatch(layer_path.rpartition("/")[2])
        if named:
            if cell is not _FROM_SNAKE[named["cell"]]:
                continue
            layer_path = layer_path.rpartition("/")[0]
        if cell is None:
            continue
        bias = roles["bias"][1] if "bias" in roles else None
        if bias is not None and not (is_shape(bias, 1) or is_shape(bias, 2)):
            continue
        names = tuple(roles[role][0] for role in ("kernel", "recurrent_kernel", "bias")
                      if role in roles)
        found.append(Found(layer_path, cell, kernel[0], recurrent[0], bias, names,
                           directory or ""))
    return found


def pair_directions(found: list[Found]) -> list[tuple[str, list[Found]]]:
    """Layers as (prefix, directions): ``forward_X`` and ``backward_X`` under one parent pair up."""
    layers: dict[str, list[Found]] = {}
    for one in found:
        parent, _, last = one.layer_path.rpartition("/")
        if last.startswith("forward_") or last.startswith("backward_"):
            sides = layers.setdefault(parent + "/" if parent else "", [])
            sides.append(one)
        else:
            layers.setdefault(one.layer_path + "/" if one.layer_path else "", []).append(one)
    paired = []
    for prefix, sides in layers.items():
        forward = [s for s in sides if s.layer_path.rpartition("/")[2].startswith("forward_")]
        backward = [s for s in sides if s.layer_path.rpartition("/")[2].startswith("backward_")]
        if len(forward) == len(backward) == 1 and _same(forward[0], backward[0]) and \
                len(sides) == 2:
            paired.append((prefix, [forward[0], backward[0]]))
        elif len(sides) == 1:  # one direction alone stands under its own path
            paired.append((sides[0].layer_path + "/" if sides[0].layer_path else "", sides))
        else:  # several cells in one layer (StackedRNNCells): each under its own directory
            paired += [(s.directory + "/", [s]) for s in sides]
    return paired


def _same(a: Found, b: Found) -> bool:
    return (a.cell, a.input_size, a.hidden_size, a.bias) == (b.cell, b.input_size,
                                                            b.hidden_size, b.bias)


def recognise(shapes: Shapes) -> list[Recognised]:
    """Every Keras recurrent layer (or bare cell) among ``shapes``, one per layer, in order."""
    index = index_of(shapes)
    out = []
    for prefix, sides in pair_directions(find_directions(shapes)):
        first = sides[0]
        gate_rows = first.cell.gates * first.hidden_size
        if first.bias not in (None, (gate_rows,), (2, gate_rows)) or (
            first.bias == (2, gate_rows) and first.cell is not Cell.GRU
        ):
            continue
        reset_after = None
        if first.cell is Cell.GRU and first.bias is not None:
            reset_after = first.bias == (2, gate_rows)
        spec = build(
            cell=first.cell,
            input_size=first.input_size,
            hidden_size=first.hidden_size,
            bidirectional=len(sides) == 2,
            bias=first.bias is not None,
            framework=Framework.KERAS,
            reset_after=reset_after,
            single_cell=first.layer_path == "",
        )
        if spec is None:
            continue
        notes = []
        if spec.bidirectional:
            notes.append(MERGE_MODE)
        if spec.cell is Cell.RNN:
            notes.append(RNN_NONLINEARITY)
        if spec.cell is Cell.GRU and not spec.bias:
            notes.append(RESET_AFTER)
        names = in_order([n for side in sides for n in side.names], index)
        out.append(Recognised(prefix, spec, names, tuple(notes)))
    out.sort(key=lambda r: index[r.names[0]])
    return out
