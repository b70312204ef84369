"""Keras 3's convention: SimpleRNN / LSTM / GRU, Bidirectional, and their cells.

Per layer and direction: kernel (in, G·H), recurrent_kernel (H, G·H) and one bias (G·H,), or
(2, G·H) for GRU with reset_after=True. Names are the variable paths of a fresh session:
``lstm_1/lstm_cell/kernel``, ``bidirectional/forward_lstm/lstm_cell/kernel``. What a layer after a
Bidirectional reads depends on the merge mode: concat gives 2H, sum/mul/ave give H.
"""

from __future__ import annotations

from paramcount.conventions.base import Direction, Formula, Symbol, Tensor
from paramcount.spec import Cell, LayerSpec

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
        return f"{name}Cell({args}) on {spec.input_size} features"
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
    return " → ".join(layers) + f" on {spec.input_size} features"
