"""PyTorch's convention: nn.RNN / nn.LSTM / nn.GRU and their single-step cells.

Per layer l and direction (``_reverse`` for backward), in ``named_parameters()`` order:
weight_ih (G·H, in_l), weight_hh (G·H, Hr), bias_ih and bias_hh (G·H,), weight_hr (P, H).
in_0 = I and in_l = D·Hr after it, where Hr = P if projecting else H.
"""

from __future__ import annotations

from paramcount.conventions.base import Direction, Formula, Symbol, Tensor
from paramcount.spec import Cell, LayerSpec

_CLASS = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}


def input_widths(spec: LayerSpec) -> list[int]:
    """The input width of each layer: I for the first, D·Hr for the rest."""
    return [spec.input_size] + [spec.directions * spec.output_size] * (spec.num_layers - 1)


def tensors(spec: LayerSpec) -> list[Tensor]:
    """Every parameter tensor, in ``named_parameters()`` order."""
    gh, h, hr, p = spec.gate_rows, spec.hidden_size, spec.output_size, spec.proj_size
    if spec.single_cell:
        shapes: list[tuple[str, tuple[int, ...]]] = [
            ("weight_ih", (gh, spec.input_size)),
            ("weight_hh", (gh, h)),
        ]
        if spec.bias:
            shapes += [("bias_ih", (gh,)), ("bias_hh", (gh,))]
        return [
            Tensor(name, shape, 0, Direction.FORWARD, spec.input_size, name)
            for name, shape in shapes
        ]
    out = []
    for layer, width in enumerate(input_widths(spec)):
        for direction in list(Direction)[: spec.directions]:
            suffix = f"_l{layer}" + ("_reverse" if direction is Direction.BACKWARD else "")
            shapes = [("weight_ih", (gh, width)), ("weight_hh", (gh, hr))]
            if spec.bias:
                shapes += [("bias_ih", (gh,)), ("bias_hh", (gh,))]
            if p:
                shapes.append(("weight_hr", (p, h)))
            out += [
                Tensor(role + suffix, shape, layer, direction, width, role)
                for role, shape in shapes
            ]
    return out


def formula(spec: LayerSpec) -> Formula:
    """The closed form D·[G·H·(I + Hr + 2b) + P·H] + (L − 1)·D·[G·H·(D·Hr + Hr + 2b) + P·H]."""
    g, h, hr, p = spec.cell.gates, spec.hidden_size, spec.output_size, spec.proj_size
    d, n, b, i = spec.directions, spec.num_layers, int(spec.bias), spec.input_size
    gh = g * h
    symbols = [
        Symbol("G", g, "gate blocks (RNN 1, GRU 3, LSTM 4)"),
        Symbol("H", h, "hidden size"),
        Symbol("I", i, "input size"),
        Symbol("b", b, "1 with biases (bias_ih and bias_hh), 0 without"),
    ]
    if spec.single_cell:
        return Formula(
            "G·H·(I + H + 2b)",
            tuple(symbols),
            ((f"{gh}·({i} + {h} + {2 * b})", gh * (i + h + 2 * b)),),
        )
    symbols += [Symbol("D", d, "directions"), Symbol("L", n, "layers")]
    proj = ""
    if p:
        symbols += [Symbol("P", p, "proj_size; each direction's output is P wide (Hr = P)")]
        proj = " + P·H"
    hr_name = "P" if p else "H"

    def per_direction(width: str, width_value: int) -> tuple[str, int]:
        text = f"{gh}·({width} + {hr} + {2 * b})" + (f" + {p}·{h}" if p else "")
        return text, gh * (width_value + hr + 2 * b) + p * h

    first_text, first_value = per_direction(str(i), i)
    terms = [(f"{d}·[{first_text}]", d * first_value)]
    symbolic = f"D·[G·H·(I + {hr_name} + 2b){proj}]"
    if n > 1:
        rest_text, rest_value = per_direction(f"{d}·{hr}", d * hr)
        terms.append((f"{n - 1}·{d}·[{rest_text}]", (n - 1) * d * rest_value))
        symbolic += f" + (L − 1)·D·[G·H·(D·{hr_name} + {hr_name} + 2b){proj}]"
    return Formula(symbolic, tuple(symbols), tuple(terms))


def describe(spec: LayerSpec) -> str:
    """The constructor call that builds this layer: ``nn.LSTM(32, 128, num_layers=2, ...)``."""
    name = _CLASS[spec.cell]
    args = [str(spec.input_size), str(spec.hidden_size)]
    if spec.single_cell:
        name += "Cell"
    if not spec.bias:
        args.append("bias=False")
    if spec.nonlinearity is not None and spec.nonlinearity.value != "tanh":
        args.append(f"nonlinearity='{spec.nonlinearity.value}'")
    if not spec.single_cell:
        if spec.num_layers != 1:
            args.insert(2, f"num_layers={spec.num_layers}")
        if spec.bidirectional:
            args.append("bidirectional=True")
        if spec.proj_size:
            args.append(f"proj_size={spec.proj_size}")
    return f"nn.{name}({', '.join(args)})"
