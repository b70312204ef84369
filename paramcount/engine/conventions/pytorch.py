"""PyTorch's convention: nn.RNN / nn.LSTM / nn.GRU and their single-step cells.

Per layer l and direction (``_reverse`` for backward), in ``named_parameters()`` order:
weight_ih (G·H, in_l), weight_hh (G·H, Hr), bias_ih and bias_hh (G·H,), weight_hr (P, H).
in_0 = I and in_l = D·Hr after it, where Hr = P if projecting else H.

Recognition (:func:`recognise`) groups state-dict keys by what stands before ``weight_ih_l{k}``
(a layer stack) or ``weight_ih`` (a single-step cell). H is ``weight_hh``'s second dimension, or
``weight_hr``'s second when projecting (``weight_hr`` is (P, H) and ``weight_hh`` (G·H, P)); the
cell is G = rows ÷ H (1 RNN, 3 GRU, 4 LSTM), so it is never ambiguous when ``weight_hh`` is
there. Layers are the ``_l{k}`` present, directions the ``_reverse`` ones, bias whether
``bias_ih`` is. What the weights cannot tell: an RNN's nonlinearity (tanh or relu; the spec
keeps None, the default, and a note says so). A group that is not exactly what ``nn.LSTM`` etc.
would hold (a missing bias, a layer of another width, ``weight_hh_l0_raw`` of AWD-LSTM's weight
drop beside its ``weight_hh_l0``) is left unrecognised, or recognised without the extra keys.
A ``module.`` prefix (``nn.DataParallel``) is kept in the prefix and named in a note.
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


_NAME = re.compile(
    r"(?P<prefix>(?:.*[./])?)(?P<role>weight_ih|weight_hh|bias_ih|bias_hh|weight_hr)"
    r"(?:_l(?P<layer>[0-9]+)(?P<reverse>_reverse)?)?"
)

DATA_PARALLEL = (
    "the `module.` prefix is what nn.DataParallel / DistributedDataParallel adds: strip it "
    "to load these weights into the bare model"
)


def recognise(shapes: Shapes) -> list[Recognised]:
    """Every nn.RNN / nn.LSTM / nn.GRU (or single-step cell) among ``shapes``, in source order."""
    groups: dict[tuple[str, bool], dict[str, tuple[int, ...]]] = {}
    for name, shape in shapes.items():
        match = _NAME.fullmatch(name)
        if match:
            key = (match["prefix"], match["layer"] is not None)
            groups.setdefault(key, {})[name] = shape
    found = []
    for (prefix, layered), group in groups.items():
        recognised = _recognise_group(prefix, layered, group)
        if recognised is not None:
            found.append(recognised)
    return found


def _recognise_group(
    prefix: str, layered: bool, group: dict[str, tuple[int, ...]]
) -> Recognised | None:
    """The layer (or cell) whose tensors are exactly ``group``, or None."""
    suffix = "_l0" if layered else ""
    ih, hh = group.get(f"{prefix}weight_ih{suffix}"), group.get(f"{prefix}weight_hh{suffix}")
    hr = group.get(f"{prefix}weight_hr{suffix}") if layered else None
    if not (is_shape(ih, 2) and is_shape(hh, 2)):
        return None
    assert ih is not None and hh is not None
    if hr is not None:
        if not is_shape(hr, 2):
            return None
        proj, hidden = hr
    else:
        proj, hidden = 0, hh[1]
    cell = cell_from_rows(hh[0], hidden)
    if cell is None:
        return None
    layers = 1
    bidirectional = False
    if layered:
        for name in group:
            match = _NAME.fullmatch(name)
            assert match is not None and match["layer"] is not None
            layers = max(layers, int(match["layer"]) + 1)
            bidirectional = bidirectional or match["reverse"] is not None
    spec = build(
        cell=cell,
        input_size=ih[1],
        hidden_size=hidden,
        num_layers=layers,
        bidirectional=bidirectional,
        bias=f"{prefix}bias_ih{suffix}" in group,
        proj_size=proj,
        framework=Framework.TORCH,
        single_cell=not layered,
    )
    if spec is None or not matches(group, prefix, tensors(spec)):
        return None
    notes = []
    if cell is Cell.RNN:
        notes.append(RNN_NONLINEARITY)
    if prefix.startswith("module."):
        notes.append(DATA_PARALLEL)
    return Recognised(prefix, spec, tuple(group), tuple(notes))
