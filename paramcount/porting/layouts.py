"""Each convention's recurrent weights to and from one canonical cell, per layer and direction.

The canonical cell is PyTorch's: ``wx`` (G·H, in) and ``wh`` (G·H, Hr) with the gate blocks in
torch's order (LSTM i,f,g,o; GRU r,z,n), an input bias ``bx`` and a recurrent bias ``bh`` (G·H,)
each, ``whr`` (P, H) for a projection and peephole vectors ``i, f, o``. Where a convention keeps
one bias, it reads as ``bx`` with ``bh`` zero, and writes ``bx + bh``; for a GRU whose reset gate
acts after the recurrent matmul (torch, Keras ``reset_after=True``, ONNX
``linear_before_reset=1``, Flax) the n-gate's two biases stay apart. Reading gives expressions
over the source's tensors, writing expressions over the canonical ones: composed, they are the
plan. Nothing here touches an array.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from paramcount.engine import conventions
from paramcount.engine.conventions.base import Direction, Tensor
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.porting.expr import (
    Expr,
    Source,
    Zeros,
    add,
    concat,
    gates,
    rows,
    shift,
    stack,
    take,
    transpose,
)


@dataclass(frozen=True)
class Order:
    """An order of gate blocks: the gates' meaning (torch's letters) and the framework's labels."""

    gates: tuple[str, ...]
    labels: tuple[str, ...]


CANONICAL = {
    Cell.LSTM: Order(("i", "f", "g", "o"), ("i", "f", "g", "o")),
    Cell.GRU: Order(("r", "z", "n"), ("r", "z", "n")),
    Cell.RNN: Order(("h",), ("h",)),
}
_KERAS = {
    Cell.LSTM: Order(("i", "f", "g", "o"), ("i", "f", "c", "o")),
    Cell.GRU: Order(("z", "r", "n"), ("z", "r", "h")),
    Cell.RNN: Order(("h",), ("h",)),
}
_ONNX = {
    Cell.LSTM: Order(("i", "o", "f", "g"), ("i", "o", "f", "c")),
    Cell.GRU: Order(("z", "r", "n"), ("z", "r", "h")),
    Cell.RNN: Order(("h",), ("h",)),
}
_TF1_LSTM = Order(("i", "g", "f", "o"), ("i", "j", "f", "o"))


def order(framework: Framework, cell: Cell) -> Order:
    """The gate order of ``cell`` in ``framework``'s fused matrices."""
    if framework in (Framework.KERAS, Framework.TF1_CUDNN):
        return _KERAS[cell]
    if framework is Framework.ONNX:
        return _ONNX[cell]
    if framework is Framework.TF1 and cell is Cell.LSTM:
        return _TF1_LSTM
    return CANONICAL[cell]


@dataclass(frozen=True)
class Side:
    """One end of a port: a layer stack in one convention, and what its tensors cannot say."""

    spec: LayerSpec
    prefix: str = ""
    """What stands before the convention's names in the file (``encoder.lstm.``)."""
    names: tuple[tuple[str, str], ...] = ()
    """Convention name -> name in the file, where they differ (ONNX initializers)."""
    reset_after: bool = True
    """GRU: whether the reset gate multiplies the recurrent matmul's result (torch) or the state
    before it (Keras ``reset_after=False``, ONNX ``linear_before_reset=0``, TF1 GRUCell)."""
    forget_bias: float = 0.0
    """TF1 LSTMCell's forget_bias, added to the forget gate at run time (not stored)."""
    recurrent_activation: str = "sigmoid"
    """The gates' activation (old Keras: ``hard_sigmoid``)."""

    @property
    def framework(self) -> Framework:
        """The convention."""
        return self.spec.framework

    def name(self, tensor: Tensor) -> str:
        """The tensor's name in the file: as ``names`` pairs it, else the prefix + its name."""
        renamed = dict(self.names)
        if tensor.name in renamed:
            return renamed[tensor.name]
        if self.framework is Framework.FLAX_LINEN and tensor.name.startswith("params/"):
            return "params/" + self.prefix + tensor.name[len("params/"):]  # linen's root first
        return self.prefix + tensor.name


@dataclass(frozen=True)
class Canonical:
    """One layer and direction in torch's layout (zeros where the source has nothing)."""

    wx: Expr
    wh: Expr
    bx: Expr
    bh: Expr
    biased: bool
    whr: Expr | None = None
    peepholes: tuple[Expr, Expr, Expr] | None = None
    """i, f, o."""


Key = tuple[int, Direction]


def _side_tensors(side: Side) -> dict[tuple[int, Direction, str], Tensor]:
    return {(t.layer, t.direction, t.role): t for t in conventions.tensors(side.spec)}


def _directions(spec: LayerSpec) -> list[Direction]:
    return list(Direction)[: spec.directions]


def _label(direction: Direction) -> str:
    return "forward" if direction is Direction.FORWARD else "backward"


def read(side: Side) -> dict[Key, Canonical]:
    """Every layer and direction of ``side`` as canonical expressions over its file's tensors."""
    spec = side.spec
    found = _side_tensors(side)
    reader = _READERS[spec.framework]
    out = {}
    for layer in range(spec.num_layers):
        for direction in _directions(spec):
            key_direction = Direction.BOTH if spec.framework is Framework.ONNX and \
                spec.bidirectional else direction

            def source(role: str, layer: int = layer, d: Direction = key_direction) -> Expr:
                tensor = found[(layer, d, role)]
                return Source(side.name(tensor), tensor.shape)

            def has(role: str, layer: int = layer, d: Direction = key_direction) -> bool:
                return (layer, d, role) in found

            out[(layer, direction)] = reader(side, layer, direction, source, has)
    return out


Get = Callable[[str], Expr]
Has = Callable[[str], bool]


def _gh(spec: LayerSpec) -> int:
    return spec.gate_rows


def _no_bias(spec: LayerSpec) -> Expr:
    return Zeros((_gh(spec),), "zeros (no bias in the source)")


def _from_order(arg: Expr, framework: Framework, cell: Cell) -> Expr:
    source, canonical = order(framework, cell), CANONICAL[cell]
    return _reorder(arg, source, canonical)


def _to_order(arg: Expr, framework: Framework, cell: Cell) -> Expr:
    target, canonical = order(framework, cell), CANONICAL[cell]
    return _reorder(arg, canonical, target)


def _reorder(arg: Expr, source: Order, target: Order) -> Expr:
    return gates(arg, source.gates, target.gates, source.labels, target.labels)


def _read_torch(side: Side, layer: int, direction: Direction, get: Get, has: Has) -> Canonical:
    spec = side.spec
    biased = has("bias_ih")
    return Canonical(
        wx=get("weight_ih"),
        wh=get("weight_hh"),
        bx=get("bias_ih") if biased else _no_bias(spec),
        bh=get("bias_hh") if biased else _no_bias(spec),
        biased=biased,
        whr=get("weight_hr") if has("weight_hr") else None,
    )


def _read_keras(side: Side, layer: int, direction: Direction, get: Get, has: Has) -> Canonical:
    spec, cell = side.spec, side.spec.cell
    fw = spec.framework
    wx = _from_order(transpose(get("kernel")), fw, cell)
    wh = _from_order(transpose(get("recurrent_kernel")), fw, cell)
    biased = has("bias")
    if not biased:
        return Canonical(wx, wh, _no_bias(spec), _no_bias(spec), False)
    bias = get("bias")
    gh = _gh(spec)
    if fw is Framework.TF1_CUDNN:
        bx = rows(bias, 0, gh, "input half")
        bh = rows(bias, gh, 2 * gh, "recurrent half")
    elif len(bias.shape) == 2:
        bx = take(bias, 0, "bias row 0 (input)")
        bh = take(bias, 1, "bias row 1 (recurrent)")
    else:
        return Canonical(wx, wh, _from_order(bias, fw, cell),
                         Zeros((gh,), "zeros (one bias in the source)"), True)
    return Canonical(wx, wh, _from_order(bx, fw, cell), _from_order(bh, fw, cell), True)


def _read_onnx(side: Side, layer: int, direction: Direction, get: Get, has: Has) -> Canonical:
    spec, cell = side.spec, side.spec.cell
    fw = spec.framework
    index = 0 if direction is Direction.FORWARD else 1
    note = f"{_label(direction)} of [D, …]"
    gh, h = _gh(spec), spec.hidden_size
    wx = _from_order(take(get("W"), index, note), fw, cell)
    wh = _from_order(take(get("R"), index, note), fw, cell)
    biased = has("B")
    if biased:
        b = take(get("B"), index, note)
        bx = _from_order(rows(b, 0, gh, "Wb half"), fw, cell)
        bh = _from_order(rows(b, gh, 2 * gh, "Rb half"), fw, cell)
    else:
        bx = bh = _no_bias(spec)
    peep = None
    if has("P"):
        p = take(get("P"), index, note)
        peep = (rows(p, 0, h, "peephole i"), rows(p, 2 * h, 3 * h, "peephole f"),
                rows(p, h, 2 * h, "peephole o"))
    return Canonical(wx, wh, bx, bh, biased, peepholes=peep)


_FLAX_LETTERS = {Cell.LSTM: ("i", "f", "g", "o"), Cell.GRU: ("r", "z", "n")}


def _flax_gate(side: Side, letter: str) -> str:
    return "f_" if letter == "f" and side.framework is Framework.FLAX_NNX else letter


def _read_flax(side: Side, layer: int, direction: Direction, get: Get, has: Has) -> Canonical:
    cell, h = side.spec.cell, side.spec.hidden_size
    nnx = side.framework is Framework.FLAX_NNX
    zeros = Zeros((h,), "zeros (no such bias in Flax)")
    note = "concat gates"
    if cell is Cell.RNN or (cell is Cell.GRU and nnx):
        i, hh = ("dense_i", "dense_h") if nnx else ("i", "h")
        bx = get(f"{i}/bias")
        return Canonical(transpose(get(f"{i}/kernel")), transpose(get(f"{hh}/kernel")), bx,
                         Zeros(bx.shape, "zeros (no recurrent bias in Flax)"), True)
    letters = _FLAX_LETTERS[cell]
    wx = concat(tuple(transpose(get(f"i{_flax_gate(side, g)}/kernel")) for g in letters), note)
    wh = concat(tuple(transpose(get(f"h{g}/kernel")) for g in letters), note)
    if cell is Cell.LSTM:
        bx = concat(tuple(get(f"h{g}/bias") for g in letters), note)
        bh: Expr = Zeros((4 * h,), "zeros (one bias in Flax)")
    else:
        bx = concat((get("ir/bias"), get("iz/bias"), get("in/bias")), note)
        bh = concat((zeros, zeros, get("hn/bias")), note)
    return Canonical(wx, wh, bx, bh, True)


def _read_tf1(side: Side, layer: int, direction: Direction, get: Get, has: Has) -> Canonical:
    spec, cell, h = side.spec, side.spec.cell, side.spec.hidden_size
    width = conventions.input_widths(spec)[layer]
    state = spec.output_size if cell is Cell.LSTM else h

    def halves(role: str) -> tuple[Expr, Expr]:
        kernel = get(role)
        return (transpose(rows(kernel, 0, width, f"input rows 0:{width}")),
                transpose(rows(kernel, width, width + state, f"state rows {width}:"
                               f"{width + state}")))

    zeros = Zeros((_gh(spec),), "zeros (one bias in TF1)")
    if cell is Cell.GRU:
        gx, gh_ = halves("gates/kernel")
        cx, ch = halves("candidate/kernel")
        note = "concat gates r,u and candidate"
        return Canonical(concat((gx, cx), note), concat((gh_, ch), note),
                         concat((get("gates/bias"), get("candidate/bias")), note), zeros, True)
    wx, wh = halves("kernel")
    bias = _from_order(get("bias"), spec.framework, cell)
    if cell is Cell.LSTM:
        bias = shift(bias, h, 2 * h, side.forget_bias, f"forget gate +{side.forget_bias:g} "
                     "(forget_bias)")
    return Canonical(
        _from_order(wx, spec.framework, cell), _from_order(wh, spec.framework, cell), bias, zeros,
        True,
        whr=transpose(get("projection/kernel")) if has("projection/kernel") else None,
        peepholes=(get("w_i_diag"), get("w_f_diag"), get("w_o_diag")) if has("w_i_diag")
        else None,
    )


Reader = Callable[[Side, int, Direction, Get, Has], Canonical]
_READERS: dict[Framework, Reader] = {
    Framework.TORCH: _read_torch,
    Framework.KERAS: _read_keras,
    Framework.TF1_CUDNN: _read_keras,
    Framework.ONNX: _read_onnx,
    Framework.FLAX_LINEN: _read_flax,
    Framework.FLAX_NNX: _read_flax,
    Framework.TF1: _read_tf1,
}


def write(side: Side, canonical: dict[Key, Canonical]) -> list[tuple[Tensor, Expr]]:
    """Every tensor of ``side``'s convention, with how it is made from the canonical cells."""
    spec = side.spec
    out = []
    for tensor in conventions.tensors(spec):
        out.append((tensor, _WRITERS[spec.framework](side, tensor, canonical)))
    return out


def _summed(c: Canonical) -> Expr:
    return add(c.bx, c.bh)


def _write_torch(side: Side, tensor: Tensor, all_: dict[Key, Canonical]) -> Expr:
    c = all_[(tensor.layer, tensor.direction)]
    role = tensor.role
    if role == "weight_hr":
        assert c.whr is not None
        return c.whr
    return {"weight_ih": c.wx, "weight_hh": c.wh, "bias_ih": c.bx, "bias_hh": c.bh}[role]


def _write_keras(side: Side, tensor: Tensor, all_: dict[Key, Canonical]) -> Expr:
    spec, cell = side.spec, side.spec.cell
    fw = spec.framework
    c = all_[(tensor.layer, tensor.direction)]
    if tensor.role == "kernel":
        return transpose(_to_order(c.wx, fw, cell))
    if tensor.role == "recurrent_kernel":
        return transpose(_to_order(c.wh, fw, cell))
    if fw is Framework.TF1_CUDNN:
        return concat((_to_order(c.bx, fw, cell), _to_order(c.bh, fw, cell)),
                      "concat input and recurrent biases")
    if len(tensor.shape) == 2:
        return stack((_to_order(c.bx, fw, cell), _to_order(c.bh, fw, cell)),
                     "stack rows (input, recurrent)")
    return _to_order(_summed(c), fw, cell)


def _write_onnx(side: Side, tensor: Tensor, all_: dict[Key, Canonical]) -> Expr:
    spec, cell = side.spec, side.spec.cell
    fw, h = spec.framework, spec.hidden_size
    parts: list[Expr] = []
    for direction in _directions(spec):
        c = all_[(tensor.layer, direction)]
        if tensor.role == "W":
            parts.append(_to_order(c.wx, fw, cell))
        elif tensor.role == "R":
            parts.append(_to_order(c.wh, fw, cell))
        elif tensor.role == "B":
            parts.append(concat((_to_order(c.bx, fw, cell), _to_order(c.bh, fw, cell)),
                                "concat Wb, Rb"))
        else:
            peep = c.peepholes or (Zeros((h,)),) * 3
            parts.append(concat((peep[0], peep[2], peep[1]), "concat peepholes i,o,f"))
    return stack(tuple(parts), "stack directions [D, …]")


def _write_flax(side: Side, tensor: Tensor, all_: dict[Key, Canonical]) -> Expr:
    cell, h = side.spec.cell, side.spec.hidden_size
    c = all_[(tensor.layer, tensor.direction)]
    module, _, kind = tensor.role.rpartition("/")
    if cell is Cell.RNN or module.startswith("dense"):
        if kind == "kernel":
            return transpose(c.wx if module in ("i", "dense_i") else c.wh)
        if cell is Cell.GRU:  # nnx: one input bias; r and z take both, n only its own
            return concat((rows(_summed(c), 0, 2 * h, "gates r,z"), rows(c.bx, 2 * h, 3 * h,
                                                                         "gate n")),
                          "concat r,z and n")
        return _summed(c)
    letters = _FLAX_LETTERS[cell]
    letter = module[1:].rstrip("_")
    block = letters.index(letter)
    note = f"gate {letter}"
    if kind == "kernel":
        whole = c.wx if module[0] == "i" else c.wh
        return transpose(rows(whole, block * h, (block + 1) * h, note))
    if cell is Cell.GRU and module in ("in", "hn"):
        return rows(c.bx if module == "in" else c.bh, 2 * h, 3 * h, note)
    return rows(_summed(c), block * h, (block + 1) * h, note)


def _write_tf1(side: Side, tensor: Tensor, all_: dict[Key, Canonical]) -> Expr:
    spec, cell, h = side.spec, side.spec.cell, side.spec.hidden_size
    fw = spec.framework
    c = all_[(tensor.layer, tensor.direction)]
    role = tensor.role
    join = "stack input rows over state rows"
    if cell is Cell.GRU:
        part = (0, 2 * h, "gates r,u") if role.startswith("gates") else (2 * h, 3 * h,
                                                                         "candidate")
        if role.endswith("kernel"):
            return concat((transpose(rows(c.wx, *part)), transpose(rows(c.wh, *part))), join)
        return rows(_summed(c), *part)
    if role == "kernel":
        return concat((transpose(_to_order(c.wx, fw, cell)), transpose(_to_order(c.wh, fw, cell))),
                      join)
    if role == "bias":
        bias = _to_order(_summed(c), fw, cell)
        if cell is Cell.LSTM:
            bias = shift(bias, 2 * h, 3 * h, -side.forget_bias,
                         f"forget gate −{side.forget_bias:g} (forget_bias)")
        return bias
    if role == "projection/kernel":
        assert c.whr is not None
        return transpose(c.whr)
    assert c.peepholes is not None
    return c.peepholes["ifo".index(role[2])]


Writer = Callable[[Side, Tensor, dict[Key, Canonical]], Expr]
_WRITERS: dict[Framework, Writer] = {
    Framework.TORCH: _write_torch,
    Framework.KERAS: _write_keras,
    Framework.TF1_CUDNN: _write_keras,
    Framework.ONNX: _write_onnx,
    Framework.FLAX_LINEN: _write_flax,
    Framework.FLAX_NNX: _write_flax,
    Framework.TF1: _write_tf1,
}


_TORCH_KEY = re.compile(r"(?:^|\.)(?P<role>weight_ih|weight_hh|bias_ih|bias_hh|weight_hr)"
                        r"(?:_l(?P<layer>[0-9]+)(?P<reverse>_reverse)?)?")
_ONNX_KEY = re.compile(r"(?:^|.*/)layer(?P<layer>[0-9]+)/(?P<role>[WRBP])")
_FLAX_LAYER = re.compile(r"(?:^|/)layers[_/](?P<layer>[0-9]+)/")
_TF1_KEY = re.compile(r"(?:^|.*/)(?:lstm_cell|gru_cell|basic_rnn_cell)/(?P<role>.+)")
_TF1_LAYER = re.compile(r"(?:^|/)cell_(?P<layer>[0-9]+)/")

TensorKey = tuple[int, Direction, str]


def key_of(spec: LayerSpec, name: str) -> TensorKey | None:
    """(layer, direction, role) of a file's tensor name in ``spec``'s convention."""
    fw = spec.framework
    forward, backward = Direction.FORWARD, Direction.BACKWARD
    if fw is Framework.TORCH:
        m = _TORCH_KEY.search(name)
        if m is None or m.end() != len(name):
            return None
        return (int(m["layer"] or 0), backward if m["reverse"] else forward, m["role"])
    if fw in (Framework.KERAS, Framework.TF1_CUDNN):
        parts = name.split("/")
        layer = 0
        for part in parts[:-1]:  # a CuDNN stack numbers its layers cu_dnnlstm_1, ...
            tail = part.rpartition("_")[2]
            if fw is Framework.TF1_CUDNN and part.startswith(("cu_dnn", "bidirectional")) \
                    and tail.isdigit():
                layer = int(tail)
        side = backward if any(p.startswith("backward_") for p in parts) else forward
        return (layer, side, parts[-1].partition(":")[0])
    if fw is Framework.ONNX:
        m = _ONNX_KEY.fullmatch(name)
        if m is None:
            return None
        return (int(m["layer"]), Direction.BOTH if spec.bidirectional else forward, m["role"])
    if fw in (Framework.FLAX_LINEN, Framework.FLAX_NNX):
        found = _FLAX_LAYER.search(name)
        layer = int(found["layer"]) if found else 0
        side = backward if "backward_rnn/" in name else forward
        return (layer, side, "/".join(name.split("/")[-2:]))
    m = _TF1_KEY.fullmatch(name)
    if m is None:
        return None
    found = _TF1_LAYER.search(name)
    side = backward if "/bw/" in "/" + name else forward
    return (int(found["layer"]) if found else 0, side, m["role"])


def file_names(spec: LayerSpec, names: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
    """Each of ``spec``'s tensors paired with the file's name for it, or None if one is missing."""
    by_key = {key_of(spec, name): name for name in names}
    pairs = []
    for tensor in conventions.tensors(spec):
        found = by_key.get((tensor.layer, tensor.direction, tensor.role))
        if found is None:
            return None
        pairs.append((tensor.name, found))
    return tuple(pairs)
