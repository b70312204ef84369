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

Recognition (:func:`recognise`) reads these names back: everything before ``layer{l}/`` is the
prefix, D is W's leading axis, H is R's last, G = R's rows ÷ H, the input width is layer 0's W's
last axis; B present means bias, P peepholes. The nodes of a stack must be exactly what
:func:`tensors` writes for one spec (layer l > 0 reading D·H), or the group is left unrecognised.
An RNN node's activations are attributes of the node, not weights: the spec keeps the default
(tanh) and a note says so. Real ``.onnx`` files name their initializers after the exporter
(``onnx::LSTM_376``), so their layers are recognised from the graph's LSTM / GRU / RNN nodes by
the file reader, not by names here.
"""

from __future__ import annotations

import re

from paramcount.engine.conventions.base import Direction, Formula, Recognised, Symbol, Tensor
from paramcount.engine.conventions.recognition import (
    RNN_NONLINEARITY,
    Shapes,
    build,
    cell_from_rows,
    is_shape,
    matches,
)
from paramcount.engine.spec import Cell, Framework, LayerSpec

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
    return f"{count}{node} on {spec.input_size:,} inputs"


_NAME = re.compile(r"(?P<prefix>(?:.*/)?)layer(?P<layer>0|[1-9][0-9]*)/(?P<role>[WRBP])")


def recognise(shapes: Shapes) -> list[Recognised]:
    """Every stack of ONNX RNN / GRU / LSTM nodes named as :func:`tensors` names them."""
    groups: dict[str, dict[str, tuple[int, ...]]] = {}
    layers: dict[str, int] = {}
    for name, shape in shapes.items():
        match = _NAME.fullmatch(name)
        if match:
            prefix = match["prefix"]
            groups.setdefault(prefix, {})[name] = shape
            layers[prefix] = max(layers.get(prefix, 0), int(match["layer"]) + 1)
    found = []
    for prefix, group in groups.items():
        w, r = group.get(f"{prefix}layer0/W"), group.get(f"{prefix}layer0/R")
        if not (is_shape(w, 3) and is_shape(r, 3)):
            continue
        assert w is not None and r is not None
        cell = cell_from_rows(r[1], r[2])
        spec = build(
            cell=cell,
            input_size=w[2],
            hidden_size=r[2],
            num_layers=layers[prefix],
            bidirectional=r[0] == 2,
            bias=f"{prefix}layer0/B" in group,
            framework=Framework.ONNX,
            peepholes=f"{prefix}layer0/P" in group,
        )
        if cell is None or spec is None or not matches(group, prefix, tensors(spec)):
            continue
        notes = (RNN_NONLINEARITY,) if cell is Cell.RNN else ()
        found.append(Recognised(prefix, spec, tuple(group), notes))
    return found
