"""ONNX's convention: one RNN / GRU / LSTM operator node per layer, its weights as initializers.

Per layer l, both directions stacked on the leading axis D (opset 22 operator inputs):
W [D, G·H, in_l], R [D, G·H, H], B [D, 2·G·H] (optional: Wb and Rb concatenated, so two biases
like PyTorch) and, for LSTM, P [D, 3H] (optional peepholes, in the order i, o, f). in_0 = I and
in_l = D·H after it: a stack reshapes each node's output Y [T, D, N, H] to [T, N, D·H].

Initializer names are not part of the standard: ``torch.onnx.export`` numbers them
(``onnx::LSTM_376``), so paramcount names them ``layer{l}/W``, ``layer{l}/R``, ``layer{l}/B`` and
``layer{l}/P`` after the operator's inputs. Gate order inside the G·H rows: LSTM i, o, f, c;
GRU z, r, h (PyTorch's are i, f, g, o and r, z, n, so exporters permute the rows; the count is
the same). ONNX has no projection; GRU's ``linear_before_reset`` does not change the count.
"""

from __future__ import annotations

from paramcount.conventions.base import Direction, Formula, Symbol, Tensor
from paramcount.spec import Cell, LayerSpec

_OP = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}


def input_widths(spec: LayerSpec) -> list[int]:
    """The input width of each node: I for the first, D·H for the rest."""
    return [spec.input_size] + [spec.directions * spec.hidden_size] * (spec.num_layers - 1)


def tensors(spec: LayerSpec) -> list[Tensor]:
    """Every initializer, node by node, in the operator's input order W, R, B, P."""
    d, gh, h = spec.directions, spec.gate_rows, spec.hidden_size
    direction = Direction.BOTH if d == 2 else Direction.FORWARD
    out = []
    for layer, width in enumerate(input_widths(spec)):
        shapes: list[tuple[str, tuple[int, ...]]] = [("W", (d, gh, width)), ("R", (d, gh, h))]
        if spec.bias:
            shapes.append(("B", (d, 2 * gh)))
        if spec.peepholes:
            shapes.append(("P", (d, 3 * h)))
        out += [
            Tensor(f"layer{layer}/{role}", shape, layer, direction, width, role)
            for role, shape in shapes
        ]
    return out


def formula(spec: LayerSpec) -> Formula:
    """The closed form D·[G·H·(I + H + 2b) + 3pH] + (L − 1)·D·[G·H·(D·H + H + 2b) + 3pH]."""
    g, h, i = spec.cell.gates, spec.hidden_size, spec.input_size
    d, n, b, p = spec.directions, spec.num_layers, int(spec.bias), int(spec.peepholes)
    gh = g * h
    symbols = [
        Symbol("G", g, "gate blocks (RNN 1, GRU 3, LSTM 4)"),
        Symbol("H", h, "hidden_size"),
        Symbol("I", i, "input width"),
        Symbol("b", b, "1 with the bias input B (Wb and Rb), 0 without"),
        Symbol("D", d, "directions (direction='bidirectional': 2)"),
        Symbol("L", n, "layers (one node each)"),
    ]
    peep = ""
    if p:
        symbols.append(Symbol("p", 1, "1 with the peephole input P (3 vectors of H)"))
        peep = " + 3·p·H"

    def per_direction(width: str, width_value: int) -> tuple[str, int]:
        text = f"{gh}·({width} + {h} + {2 * b})" + (f" + 3·{h}" if p else "")
        return text, gh * (width_value + h + 2 * b) + 3 * p * h

    first_text, first_value = per_direction(str(i), i)
    terms = [(f"{d}·[{first_text}]", d * first_value)]
    symbolic = f"D·[G·H·(I + H + 2b){peep}]"
    if n > 1:
        rest_text, rest_value = per_direction(f"{d}·{h}", d * h)
        terms.append((f"{n - 1}·{d}·[{rest_text}]", (n - 1) * d * rest_value))
        symbolic += f" + (L − 1)·D·[G·H·(D·H + H + 2b){peep}]"
    return Formula(symbolic, tuple(symbols), tuple(terms))


def describe(spec: LayerSpec) -> str:
    """The nodes: ``2 × ONNX LSTM(hidden_size=128, direction='bidirectional') on 32 inputs``."""
    attributes = [f"hidden_size={spec.hidden_size}"]
    if spec.bidirectional:
        attributes.append("direction='bidirectional'")
    if spec.nonlinearity is not None and spec.nonlinearity.value != "tanh":
        attributes.append("activations=" + str(["Relu"] * spec.directions))
    inputs = ("" if spec.bias else " without B") + (" with P" if spec.peepholes else "")
    node = f"ONNX {_OP[spec.cell]}({', '.join(attributes)}){inputs}"
    count = f"{spec.num_layers} × " if spec.num_layers > 1 else ""
    return f"{count}{node} on {spec.input_size} inputs"
