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

Recognition (``linen.recognise`` / ``nnx.recognise``) finds each directory whose sub-modules are
exactly one cell's (linen LSTMCell ``ii``…``ho``; NNX's spells ``if_``; linen GRUCell ``hn``,
``hr``, ``hz``, ``in``, ``ir``, ``iz``; linen SimpleCell ``h``, ``i``; NNX GRUCell and SimpleCell
``dense_h``, ``dense_i``, told apart by G = columns ÷ H). A cell directory named ``cell`` is an
``RNN``'s cell, under ``forward_rnn``/``backward_rnn`` of a ``Bidirectional``, under
``layers_{l}`` (linen) or ``layers/{l}`` (NNX) of a ``Sequential``; any other directory holds a
bare cell. The prefix is the path of the module holding the layer, with linen's ``params/``
collection root included (``params/`` at the top, ``params/encoder/`` nested). A ``Sequential``
whose layers are not exactly one stack (other layers between them, another width) gives one
layer each, prefixed by its ``layers_{l}/``. SimpleCell's ``activation_fn`` is not in the
weights: the spec keeps the default (tanh) and a note says so. NNX's OptimizedLSTMCell fuses
its gates into ``dense_i`` / ``dense_h`` of 4H columns (the bias on ``dense_h``): recognised as
an LSTMCell (the same parameters), with a note.
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
from paramcount.record import record, replace

_CELL = {Cell.RNN: "SimpleCell", Cell.LSTM: "LSTMCell", Cell.GRU: "GRUCell"}

CellShapes = list[tuple[str, tuple[int, ...]]]


def _linen_cell(cell: Cell, width: int, h: int) -> CellShapes:
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


def _nnx_cell(cell: Cell, width: int, h: int) -> CellShapes:
    """An NNX cell's parameters, in the state's sorted order (``if_``: ``if`` is a keyword)."""
    if cell is Cell.LSTM:
        return sorted(
            [(f"h{g}/bias", (h,)) for g in "ifgo"]
            + [(f"h{g}/kernel", (h, h)) for g in "ifgo"]
            + [(f"i{g}{'_' if g == 'f' else ''}/kernel", (width, h)) for g in "ifgo"]
        )
    gh = cell.gates * h
    return [("dense_h/kernel", (h, gh)), ("dense_i/bias", (gh,)), ("dense_i/kernel", (width, gh))]


@record
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
        return f"{text} on {spec.input_size:,} features"


    def recognise(self, shapes: Shapes) -> list[Recognised]:
        """Every Flax RNN (stack, Bidirectional, bare cell) of this API among ``shapes``."""
        index = index_of(shapes)
        cells: dict[str, dict[str, tuple[int, ...]]] = {}
        for name, shape in shapes.items():
            match = _PARAM.fullmatch(name)
            if match:
                cells.setdefault(match["dir"], {})[name] = shape
        stacks: dict[str, list[_FlaxCell]] = {}
        for directory, group in cells.items():
            found = self._cell(directory, group)
            if found is not None:
                stacks.setdefault(found.prefix, []).append(found)
        out = []
        for prefix, members in stacks.items():
            out += self._stack(prefix, members)
        out.sort(key=lambda r: index[r.names[0]])
        for position, layer in enumerate(out):
            out[position] = Recognised(layer.prefix, layer.spec, in_order(layer.names, index),
                                       layer.notes)
        return out

    def _cell(self, directory: str, group: dict[str, tuple[int, ...]]) -> _FlaxCell | None:
        """The cell whose parameters are ``group`` (a directory's tensors), placed in its stack."""
        modules = {name[len(directory):].partition("/")[0] for name in group}
        sizes = _cell_sizes(self.api, frozenset(modules), directory, group)
        if sizes is None:
            return None
        cell, width, hidden, fused = sizes
        prefix, layer, direction = directory, None, Direction.FORWARD
        if directory.endswith("cell/") and (directory == "cell/" or directory.endswith("/cell/")):
            prefix = directory[: -len("cell/")]
            for side in (Direction.FORWARD, Direction.BACKWARD):
                marker = f"{side.value}_rnn/"
                if prefix == marker or prefix.endswith("/" + marker):
                    prefix, direction = prefix[: -len(marker)], side
            stacked = (_LINEN_LAYER if self.api == "linen" else _NNX_LAYER).fullmatch(prefix)
            if stacked:
                prefix, layer = stacked["prefix"], int(stacked["layer"])
            return _FlaxCell(prefix, layer, direction, False, cell, width, hidden, group, fused)
        return _FlaxCell(prefix, None, direction, True, cell, width, hidden, group, fused)

    def _stack(self, prefix: str, members: list[_FlaxCell]) -> list[Recognised]:
        """The members as one stack if they are exactly one, else one layer each."""
        if all(m.layer is not None for m in members) and len(members) > 1:
            whole = self._exact(prefix, members, sum(len(m.group) for m in members))
            if whole is not None and whole.spec.num_layers > 1:
                return [whole]
        by_layer: dict[tuple[int | None, bool], list[_FlaxCell]] = {}
        for m in members:
            by_layer.setdefault((m.layer, m.single), []).append(m)
        out = []
        for (layer, _), group in by_layer.items():
            own = prefix
            if layer is not None:
                own += f"layers_{layer}/" if self.api == "linen" else f"layers/{layer}/"
            moved = [replace(m, prefix=own, layer=None) for m in group]
            found = self._exact(own, moved, sum(len(m.group) for m in group))
            if found is not None:
                out.append(found)
        return out

    def _exact(self, prefix: str, members: list[_FlaxCell], size: int) -> Recognised | None:
        """The spec whose tensors are exactly ``members``' under ``prefix``, or None."""
        first = min(members, key=lambda m: (m.layer or 0, m.direction is Direction.BACKWARD))
        spec = build(
            cell=first.cell,
            input_size=first.width,
            hidden_size=first.hidden,
            num_layers=1 + max(m.layer or 0 for m in members),
            bidirectional=any(m.direction is Direction.BACKWARD for m in members),
            framework=Framework.FLAX_LINEN if self.api == "linen" else Framework.FLAX_NNX,
            single_cell=first.single,
        )
        if spec is None or (first.single and len(members) > 1):
            return None
        group = {name: shape for m in members for name, shape in m.group.items()}
        fused = {(m.layer or 0, m.direction) for m in members if m.fused}
        root = "params/" if self.api == "linen" else ""
        expected: dict[str, tuple[int, ...]] = {}
        for t in self.tensors(spec):
            name = prefix + t.name[len(root):]
            if (t.layer, t.direction) in fused:  # OptimizedLSTMCell: two fused Dense layers
                directory = name[: -len(t.role)]
                gh = spec.gate_rows
                expected[directory + "dense_h/bias"] = (gh,)
                expected[directory + "dense_h/kernel"] = (spec.hidden_size, gh)
                expected[directory + "dense_i/kernel"] = (t.input_width, gh)
            else:
                expected[name] = t.shape
        if len(group) != size or expected != group:
            return None
        notes = []
        if spec.cell is Cell.RNN:
            notes.append(RNN_NONLINEARITY)
        if fused:
            notes.append(OPTIMIZED)
        return Recognised(prefix, spec, tuple(group), tuple(notes))


OPTIMIZED = (
    "fused dense_i / dense_h kernels of 4H columns: NNX's OptimizedLSTMCell, the same "
    "parameters as LSTMCell"
)
_MODULES = "hi|hf|hg|ho|ii|if_|if|ig|io|hn|hr|hz|in|ir|iz|h|i|dense_h|dense_i"
_PARAM = re.compile(rf"(?P<dir>(?:.*/)?)(?:{_MODULES})/(?:kernel|bias)")
_LINEN_LAYER = re.compile(r"(?P<prefix>(?:.*/)?)layers_(?P<layer>0|[1-9][0-9]*)/")
_NNX_LAYER = re.compile(r"(?P<prefix>(?:.*/)?)layers/(?P<layer>0|[1-9][0-9]*)/")
_CELL_MODULES = {
    ("linen", frozenset({"hi", "hf", "hg", "ho", "ii", "if", "ig", "io"})): (Cell.LSTM, "ii", "hi"),
    ("nnx", frozenset({"hi", "hf", "hg", "ho", "ii", "if_", "ig", "io"})): (Cell.LSTM, "ii", "hi"),
    ("linen", frozenset({"hn", "hr", "hz", "in", "ir", "iz"})): (Cell.GRU, "in", "hn"),
    ("linen", frozenset({"h", "i"})): (Cell.RNN, "i", "h"),
}


def _cell_sizes(
    api: str, modules: frozenset[str], directory: str, group: dict[str, tuple[int, ...]]
) -> tuple[Cell, int, int, bool] | None:
    """(cell, input width, hidden, fused) of the cell whose sub-modules are ``modules``.

    ``fused`` is NNX's OptimizedLSTMCell: ``dense_i`` / ``dense_h`` with 4H columns.
    """
    if api == "nnx" and modules == {"dense_h", "dense_i"}:
        kernel = group.get(f"{directory}dense_i/kernel")
        recurrent = group.get(f"{directory}dense_h/kernel")
        if not (is_shape(kernel, 2) and is_shape(recurrent, 2)):
            return None
        assert kernel is not None and recurrent is not None
        cell = cell_from_rows(recurrent[1], recurrent[0])
        if cell is None:
            return None
        return cell, kernel[0], recurrent[0], cell is Cell.LSTM
    known = _CELL_MODULES.get((api, modules))
    if known is None:
        return None
    cell, input_module, hidden_module = known
    kernel = group.get(f"{directory}{input_module}/kernel")
    recurrent = group.get(f"{directory}{hidden_module}/kernel")
    if not (is_shape(kernel, 2) and is_shape(recurrent, 2)):
        return None
    assert kernel is not None and recurrent is not None
    return cell, kernel[0], recurrent[0], False


@record
class _FlaxCell:
    """One cell found in a parameter tree, and where it sits."""

    prefix: str
    layer: int | None
    direction: Direction
    single: bool
    cell: Cell
    width: int
    hidden: int
    group: dict[str, tuple[int, ...]]
    fused: bool


linen = FlaxConvention("linen")
nnx = FlaxConvention("nnx")
