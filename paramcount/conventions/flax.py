"""Flax's conventions, linen and NNX: cells inside ``RNN``, stacks, ``Bidirectional``.

Flax keeps each gate's weights in its own small Dense layer (linen ``LSTMCell``: ``ii``, ``if``,
``ig``, ``io`` kernels (in, H) without bias, ``hi``, ``hf``, ``hg``, ``ho`` kernels (H, H) with
bias) or fuses them (NNX ``GRUCell``: ``dense_i`` (in, 3H) with bias, ``dense_h`` (H, 3H)
without). The totals per direction are G·H·(in + H) + c·H, with c bias vectors of H:

=============  =====  =====
cell           linen  NNX
=============  =====  =====
LSTMCell       4      4
GRUCell        4      3      (linen keeps a bias on ``hn`` too)
SimpleCell     1      1
=============  =====  =====

No cell has a use_bias option. Names are the paths of the real parameter trees: linen
``params/cell/ii/kernel`` for ``nn.RNN(nn.LSTMCell(H))``, ``params/layers_1/forward_rnn/cell/…``
in an ``nn.Sequential`` of ``nn.Bidirectional`` layers; NNX ``cell/dense_i/kernel`` and
``layers/1/forward_rnn/cell/…`` in an ``nnx.Sequential``. Tensors come layer by layer, forward
before backward, and inside a cell in the tree's (sorted) order. ``Bidirectional`` concatenates
both directions, so every layer after the first reads 2H.
"""

from __future__ import annotations

from dataclasses import dataclass

from paramcount.conventions.base import Direction, Formula, Symbol, Tensor
from paramcount.spec import Cell, LayerSpec

_CELL = {Cell.RNN: "SimpleCell", Cell.LSTM: "LSTMCell", Cell.GRU: "GRUCell"}

Shapes = list[tuple[str, tuple[int, ...]]]


def _linen_cell(cell: Cell, width: int, h: int) -> Shapes:
    """A linen cell's parameters, in the tree's sorted order."""
    if cell is Cell.LSTM:
        return sorted(
            [(f"h{g}/bias", (h,)) for g in "ifgo"]
            + [(f"h{g}/kernel", (h, h)) for g in "ifgo"]
            + [(f"i{g}/kernel", (width, h)) for g in "ifgo"]
        )
    if cell is Cell.GRU:
        return [
            ("hn/bias", (h,)), ("hn/kernel", (h, h)), ("hr/kernel", (h, h)),
            ("hz/kernel", (h, h)), ("in/bias", (h,)), ("in/kernel", (width, h)),
            ("ir/bias", (h,)), ("ir/kernel", (width, h)), ("iz/bias", (h,)),
            ("iz/kernel", (width, h)),
        ]
    return [("h/kernel", (h, h)), ("i/bias", (h,)), ("i/kernel", (width, h))]


def _nnx_cell(cell: Cell, width: int, h: int) -> Shapes:
    """An NNX cell's parameters, in the state's sorted order (``if_``: ``if`` is a keyword)."""
    if cell is Cell.LSTM:
        return sorted(
            [(f"h{g}/bias", (h,)) for g in "ifgo"]
            + [(f"h{g}/kernel", (h, h)) for g in "ifgo"]
            + [(f"i{g}{'_' if g == 'f' else ''}/kernel", (width, h)) for g in "ifgo"]
        )
    gh = cell.gates * h
    return [("dense_h/kernel", (h, gh)), ("dense_i/bias", (gh,)), ("dense_i/kernel", (width, gh))]


@dataclass(frozen=True)
class FlaxConvention:
    """One of Flax's two APIs: linen (``params/…`` trees) or NNX (``nnx.state`` paths)."""

    api: str
    """``linen`` or ``nnx``."""

    @property
    def _module(self) -> str:
        return "nn" if self.api == "linen" else "nnx"

    def bias_vectors(self, cell: Cell) -> int:
        """c: how many H-long bias vectors one cell holds."""
        if cell is Cell.GRU:
            return 4 if self.api == "linen" else 3
        return cell.gates

    def input_widths(self, spec: LayerSpec) -> list[int]:
        """The input width of each layer: I, then D·H (Bidirectional concatenates)."""
        return [spec.input_size] + [spec.directions * spec.hidden_size] * (spec.num_layers - 1)

    def _prefix(self, spec: LayerSpec, layer: int, direction: Direction) -> str:
        root = "params/" if self.api == "linen" else ""
        if spec.single_cell:
            return root
        if spec.num_layers > 1:
            root += f"layers_{layer}/" if self.api == "linen" else f"layers/{layer}/"
        if spec.bidirectional:
            root += f"{direction.value}_rnn/"
        return root + "cell/"

    def tensors(self, spec: LayerSpec) -> list[Tensor]:
        """Every parameter, named by its path in the parameter tree."""
        cell_shapes = _linen_cell if self.api == "linen" else _nnx_cell
        out = []
        for layer, width in enumerate(self.input_widths(spec)):
            for direction in list(Direction)[: spec.directions]:
                prefix = self._prefix(spec, layer, direction)
                out += [
                    Tensor(prefix + path, shape, layer, direction, width, path)
                    for path, shape in cell_shapes(spec.cell, width, spec.hidden_size)
                ]
        return out

    def formula(self, spec: LayerSpec) -> Formula:
        """The closed form D·[G·H·(I + H) + c·H] + (L − 1)·D·[G·H·(D·H + H) + c·H]."""
        g, h, i = spec.cell.gates, spec.hidden_size, spec.input_size
        d, n, c = spec.directions, spec.num_layers, self.bias_vectors(spec.cell)
        gh = g * h
        symbols = [
            Symbol("G", g, "gate blocks (SimpleCell 1, GRUCell 3, LSTMCell 4)"),
            Symbol("H", h, "features (hidden size)"),
            Symbol("I", i, "input features"),
            Symbol("c", c, f"bias vectors of H in one {self._module}.{_CELL[spec.cell]}"),
        ]

        def per_direction(width: str, width_value: int) -> tuple[str, int]:
            return f"{gh}·({width} + {h}) + {c}·{h}", gh * (width_value + h) + c * h

        first_text, first_value = per_direction(str(i), i)
        if spec.single_cell:
            return Formula("G·H·(I + H) + c·H", tuple(symbols), ((first_text, first_value),))
        symbols += [Symbol("D", d, "directions"), Symbol("L", n, "layers")]
        terms = [(f"{d}·[{first_text}]", d * first_value)]
        symbolic = "D·[G·H·(I + H) + c·H]"
        if n > 1:
            rest_text, rest_value = per_direction(f"{d}·{h}", d * h)
            terms.append((f"{n - 1}·{d}·[{rest_text}]", (n - 1) * d * rest_value))
            symbolic += " + (L − 1)·D·[G·H·(D·H + H) + c·H]"
        return Formula(symbolic, tuple(symbols), tuple(terms))

    def describe(self, spec: LayerSpec) -> str:
        """The modules: ``nn.Bidirectional(fwd, bwd) of nn.RNN(nn.LSTMCell(128))``.

        NNX constructors also take ``rngs=``, left out here for brevity.
        """
        m, h = self._module, spec.hidden_size
        options = ""
        if spec.nonlinearity is not None and spec.nonlinearity.value != "tanh":
            options = f", activation_fn={m}.relu"
        width = str(spec.input_size) if spec.num_layers == 1 else "in_l"
        args = f"{h}" if self.api == "linen" else f"{width}, {h}"
        text = f"{m}.{_CELL[spec.cell]}({args}{options})"
        if not spec.single_cell:
            text = f"{m}.RNN({text})"
            if spec.bidirectional:
                text = f"{m}.Bidirectional(fwd, bwd) of {text}"
            if spec.num_layers > 1:
                text = f"{m}.Sequential of {spec.num_layers} × {text}"
        return f"{text} on {spec.input_size} features"


linen = FlaxConvention("linen")
nnx = FlaxConvention("nnx")
