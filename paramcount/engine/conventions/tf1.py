"""TensorFlow 1's legacy conventions, to reproduce counts posted before TF 2.

``tf1``: the ``tf.compat.v1.nn.rnn_cell`` cells run by ``dynamic_rnn``. They concatenate input and
state into one kernel: LSTMCell ``kernel`` (in + Hr, 4H) and ``bias`` (4H,), with
``use_peepholes`` three diagonal vectors ``w_f_diag``, ``w_i_diag``, ``w_o_diag`` (H,) and with
``num_proj`` a ``projection/kernel`` (H, P), after which the state is Hr = P wide (unlike torch,
P may exceed H). GRUCell: ``gates/kernel`` (in + H, 2H), ``gates/bias`` (2H,),
``candidate/kernel`` (in + H, H), ``candidate/bias`` (H,). BasicRNNCell: ``kernel`` (in + H, H),
``bias`` (H,). One bias per gate, always present. Stacks are ``MultiRNNCell`` (in_l = Hr,
names ``rnn/multi_rnn_cell/cell_{l}/lstm_cell/…``); bidirectional is ``bidirectional_dynamic_rnn``
(``bidirectional_rnn/fw/…``, ``…/bw/…``) and, stacked, ``stack_bidirectional_dynamic_rnn``, which
concatenates both directions between layers (in_l = 2Hr,
``stack_bidirectional_rnn/cell_{l}/bidirectional_rnn/fw/…``).

``tf1-cudnn``: Keras 2 / ``tf.compat.v1.keras.layers`` ``CuDNNLSTM`` and ``CuDNNGRU``: kernel
(in, G·H), recurrent_kernel (H, G·H) and cuDNN's double bias (2·G·H,) — 8H for LSTM, 6H for
GRU — named ``cu_dnnlstm/kernel``; ``Bidirectional`` as in Keras.

Neither API can be installed next to TensorFlow 2.21, so these rules are checked against the
published formulas and the TF 1.15 sources, not against the running library.

Recognition reads back the names these conventions write. ``rnn_cell``: every tensor under a
``lstm_cell/``, ``gru_cell/`` or ``basic_rnn_cell/`` scope belongs to that cell; the scopes above
it say where it sits (``rnn/``, ``rnn/multi_rnn_cell/cell_{l}/``, ``bidirectional_rnn/fw|bw/``,
``stack_bidirectional_rnn/cell_{l}/bidirectional_rnn/fw|bw/``, or nothing for a bare cell), and
what stands before them is the prefix. H is the kernel's columns ÷ G (the cell is named by its
scope), Hr is ``projection/kernel``'s columns when there is one, and the input width is the
kernel's rows − Hr; ``w_f_diag`` means peepholes. ``cudnn``: Keras-style layers (see
:mod:`paramcount.engine.conventions.keras`) whose single bias is 2·G·H long; one recognised
layer per Keras layer, merge mode noted as unknown. BasicRNNCell's activation is not in the weights.
"""

from __future__ import annotations

import re

from paramcount.engine.conventions import keras
from paramcount.engine.conventions.base import Direction, Formula, Recognised, Symbol, Tensor
from paramcount.engine.conventions.recognition import (
    RNN_NONLINEARITY,
    Shapes,
    build,
    in_order,
    index_of,
    is_shape,
    matches,
)
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.record import record

_TF1_CELL = {Cell.RNN: "BasicRNNCell", Cell.LSTM: "LSTMCell", Cell.GRU: "GRUCell"}
_TF1_SCOPE = {Cell.RNN: "basic_rnn_cell", Cell.LSTM: "lstm_cell", Cell.GRU: "gru_cell"}
_CUDNN = {Cell.LSTM: "CuDNNLSTM", Cell.GRU: "CuDNNGRU"}


@record
class RNNCellConvention:
    """``tf.compat.v1.nn.rnn_cell`` cells under dynamic_rnn and its bidirectional variants."""

    def input_widths(self, spec: LayerSpec) -> list[int]:
        """I for the first layer, then Hr (MultiRNNCell) or 2·Hr (stacked bidirectional)."""
        return [spec.input_size] + [spec.directions * spec.output_size] * (spec.num_layers - 1)

    def _prefix(self, spec: LayerSpec, layer: int, direction: Direction) -> str:
        cell = _TF1_SCOPE[spec.cell]
        side = "fw" if direction is Direction.FORWARD else "bw"
        if spec.single_cell:
            return f"{cell}/"
        if spec.bidirectional and spec.num_layers > 1:
            return f"stack_bidirectional_rnn/cell_{layer}/bidirectional_rnn/{side}/{cell}/"
        if spec.bidirectional:
            return f"bidirectional_rnn/{side}/{cell}/"
        if spec.num_layers > 1:
            return f"rnn/multi_rnn_cell/cell_{layer}/{cell}/"
        return f"rnn/{cell}/"

    def tensors(self, spec: LayerSpec) -> list[Tensor]:
        """Every variable, in the order the cell's build() creates them."""
        h, hr, p = spec.hidden_size, spec.output_size, spec.proj_size
        out = []
        for layer, width in enumerate(self.input_widths(spec)):
            shapes: list[tuple[str, tuple[int, ...]]]
            if spec.cell is Cell.LSTM:
                shapes = [("kernel", (width + hr, 4 * h)), ("bias", (4 * h,))]
                if spec.peepholes:
                    shapes += [(f"w_{g}_diag", (h,)) for g in "fio"]
                if p:
                    shapes.append(("projection/kernel", (h, p)))
            elif spec.cell is Cell.GRU:
                shapes = [
                    ("gates/kernel", (width + h, 2 * h)),
                    ("gates/bias", (2 * h,)),
                    ("candidate/kernel", (width + h, h)),
                    ("candidate/bias", (h,)),
                ]
            else:
                shapes = [("kernel", (width + h, h)), ("bias", (h,))]
            for direction in list(Direction)[: spec.directions]:
                prefix = self._prefix(spec, layer, direction)
                out += [
                    Tensor(prefix + role, shape, layer, direction, width, role)
                    for role, shape in shapes
                ]
        return out

    def formula(self, spec: LayerSpec) -> Formula:
        """D·[G·H·(I + Hr + 1) + 3pH + P·H] + (L − 1)·D·[G·H·(D·Hr + Hr + 1) + 3pH + P·H]."""
        g, h, hr, p = spec.cell.gates, spec.hidden_size, spec.output_size, spec.proj_size
        d, n, i, peep = spec.directions, spec.num_layers, spec.input_size, int(spec.peepholes)
        gh = g * h
        symbols = [
            Symbol("G", g, "gate blocks (BasicRNNCell 1, GRUCell 3, LSTMCell 4)"),
            Symbol("H", h, "num_units"),
            Symbol("I", i, "input depth"),
        ]
        extra = ""
        if peep:
            symbols.append(Symbol("p", 1, "1 with use_peepholes (w_f_diag, w_i_diag, w_o_diag)"))
            extra += " + 3·p·H"
        if p:
            symbols.append(Symbol("P", p, "num_proj; the state is P wide (Hr = P)"))
            extra += " + P·H"
        hr_name = "P" if p else "H"

        def per_direction(width: str, width_value: int) -> tuple[str, int]:
            text = f"{gh}·({width} + {hr} + 1)"
            text += (f" + 3·{h}" if peep else "") + (f" + {p}·{h}" if p else "")
            return text, gh * (width_value + hr + 1) + 3 * peep * h + p * h

        first_text, first_value = per_direction(str(i), i)
        if spec.single_cell:
            return Formula(
                f"G·H·(I + {hr_name} + 1){extra}", tuple(symbols), ((first_text, first_value),)
            )
        symbols += [Symbol("D", d, "directions"), Symbol("L", n, "layers")]
        terms = [(f"{d}·[{first_text}]", d * first_value)]
        symbolic = f"D·[G·H·(I + {hr_name} + 1){extra}]"
        if n > 1:
            rest_text, rest_value = per_direction(f"{d}·{hr}" if d > 1 else str(hr), d * hr)
            terms.append((f"{n - 1}·{d}·[{rest_text}]", (n - 1) * d * rest_value))
            symbolic += f" + (L − 1)·D·[G·H·(D·{hr_name} + {hr_name} + 1){extra}]"
        return Formula(symbolic, tuple(symbols), tuple(terms))

    def describe(self, spec: LayerSpec) -> str:
        """``tf.compat.v1.nn.dynamic_rnn(MultiRNNCell([LSTMCell(128)] × 2)) on 32 inputs``."""
        args = [str(spec.hidden_size)]
        if spec.peepholes:
            args.append("use_peepholes=True")
        if spec.proj_size:
            args.append(f"num_proj={spec.proj_size}")
        if spec.nonlinearity is not None and spec.nonlinearity.value != "tanh":
            args.append("activation=tf.nn.relu")
        cell = f"{_TF1_CELL[spec.cell]}({', '.join(args)})"
        n = spec.num_layers
        if spec.single_cell:
            text = f"tf.compat.v1.nn.rnn_cell.{cell}"
        elif spec.bidirectional and n > 1:
            text = f"tf.contrib.rnn.stack_bidirectional_dynamic_rnn([{cell}] × {n}, [{cell}] × {n})"
        elif spec.bidirectional:
            text = f"tf.compat.v1.nn.bidirectional_dynamic_rnn({cell}, {cell})"
        elif n > 1:
            text = f"tf.compat.v1.nn.dynamic_rnn(MultiRNNCell([{cell}] × {n}))"
        else:
            text = f"tf.compat.v1.nn.dynamic_rnn({cell})"
        return f"{text} on {spec.input_size:,} inputs"


    def recognise(self, shapes: Shapes) -> list[Recognised]:
        """Every dynamic_rnn, MultiRNNCell or bidirectional stack (or bare cell) of TF1 cells."""
        groups: dict[tuple[str, str, Cell], dict[str, tuple[int, ...]]] = {}
        layers: dict[tuple[str, str, Cell], int] = {}
        for name, shape in shapes.items():
            match = _TF1_NAME.fullmatch(name)
            if not match:
                continue
            outer = _placement(match["outer"])
            cell = _FROM_SCOPE[match["cell"]]
            key = (outer[0], outer[1], cell)
            groups.setdefault(key, {})[name] = shape
            layers[key] = max(layers.get(key, 0), outer[2] + 1)
        found = []
        for key, group in groups.items():
            prefix, kind, cell = key
            spec = self._spec(prefix, kind, cell, layers[key], group)
            if spec is None or not matches(group, prefix, self.tensors(spec)):
                continue
            notes = (RNN_NONLINEARITY,) if cell is Cell.RNN else ()
            found.append(Recognised(prefix, spec, tuple(group), notes))
        return found

    def _spec(
        self, prefix: str, kind: str, cell: Cell, layers: int, group: dict[str, tuple[int, ...]]
    ) -> LayerSpec | None:
        """The spec proposed by the first layer's (forward) tensors."""
        first = {Cell.LSTM: "", Cell.GRU: "gates/", Cell.RNN: ""}[cell]
        scope = {
            "cell": "", "rnn": "rnn/", "multi": "rnn/multi_rnn_cell/cell_0/",
            "bi": "bidirectional_rnn/fw/",
            "stack": "stack_bidirectional_rnn/cell_0/bidirectional_rnn/fw/",
        }[kind] + _TF1_SCOPE[cell] + "/"
        kernel = group.get(f"{prefix}{scope}{first}kernel")
        if not is_shape(kernel, 2):
            return None
        assert kernel is not None
        gates = {Cell.LSTM: 4, Cell.GRU: 2, Cell.RNN: 1}[cell]
        if kernel[1] % gates:
            return None
        hidden = kernel[1] // gates
        projection = group.get(f"{prefix}{scope}projection/kernel")
        proj = projection[1] if projection is not None and len(projection) == 2 else 0
        return build(
            cell=cell,
            input_size=kernel[0] - (proj or hidden),
            hidden_size=hidden,
            num_layers=layers,
            bidirectional=kind in ("bi", "stack"),
            proj_size=proj,
            framework=Framework.TF1,
            single_cell=kind == "cell",
            peepholes=f"{prefix}{scope}w_f_diag" in group,
        )


_FROM_SCOPE = {scope: cell for cell, scope in _TF1_SCOPE.items()}
_TF1_NAME = re.compile(r"(?P<outer>(?:.*/)?)(?P<cell>lstm_cell|gru_cell|basic_rnn_cell)/.+")
_PLACEMENTS = (
    ("stack", re.compile(
        r"(?P<prefix>(?:.*/)?)stack_bidirectional_rnn/cell_(?P<layer>0|[1-9][0-9]*)/"
        r"bidirectional_rnn/(?:fw|bw)/"
    )),
    ("bi", re.compile(r"(?P<prefix>(?:.*/)?)bidirectional_rnn/(?:fw|bw)/")),
    ("multi", re.compile(r"(?P<prefix>(?:.*/)?)rnn/multi_rnn_cell/cell_(?P<layer>0|[1-9][0-9]*)/")),
    ("rnn", re.compile(r"(?P<prefix>(?:.*/)?)rnn/")),
)


def _placement(outer: str) -> tuple[str, str, int]:
    """(prefix, kind, layer) of a cell scope: where the scopes above it place it."""
    for kind, pattern in _PLACEMENTS:
        match = pattern.fullmatch(outer)
        if match:
            layer = match.groupdict().get("layer")
            return match["prefix"], kind, int(layer) if layer else 0
    return outer, "cell", 0


@record
class CuDNNConvention:
    """``CuDNNLSTM`` / ``CuDNNGRU``: Keras layouts with cuDNN's two biases per gate."""

    def input_widths(self, spec: LayerSpec) -> list[int]:
        """As in Keras: I, then 2H after a concat merge and H otherwise."""
        return keras.input_widths(spec)

    def tensors(self, spec: LayerSpec) -> list[Tensor]:
        """Every weight, in ``model.weights`` order, named by its path in a fresh session."""
        gh, h = spec.gate_rows, spec.hidden_size
        snake = "cu_dnn" + spec.cell.value
        out = []
        for layer, width in enumerate(self.input_widths(spec)):
            layer_name = snake + (f"_{layer}" if layer else "")
            for direction in list(Direction)[: spec.directions]:
                if spec.bidirectional:
                    suffix = f"_{layer}" if layer else ""
                    prefix = f"bidirectional{suffix}/{direction.value}_{layer_name}/"
                else:
                    prefix = f"{layer_name}/"
                shapes = [("kernel", (width, gh)), ("recurrent_kernel", (h, gh)),
                          ("bias", (2 * gh,))]
                out += [
                    Tensor(prefix + role, shape, layer, direction, width, role)
                    for role, shape in shapes
                ]
        return out

    def formula(self, spec: LayerSpec) -> Formula:
        """Σ over layers of D·G·H·(in_l + H + 2): one bias for the input, one for the state."""
        g, h, i = spec.cell.gates, spec.hidden_size, spec.input_size
        d, n = spec.directions, spec.num_layers
        gh = g * h
        symbols = (
            Symbol("G", g, "gate blocks (CuDNNGRU 3, CuDNNLSTM 4)"),
            Symbol("H", h, "units"),
            Symbol("I", i, "input features"),
            Symbol("D", d, "directions"),
            Symbol("L", n, "layers"),
        )
        terms = [
            (f"{d}·[{gh}·({width} + {h} + 2)]", d * gh * (width + h + 2))
            for width in self.input_widths(spec)
        ]
        if n == 1:
            symbolic = "D·G·H·(I + H + 2)"
        else:
            symbolic = "D·G·H·(I + H + 2) + Σ_(l≥1) D·G·H·(in_l + H + 2), in_l = 2·H after " \
                       "concat, H otherwise"
        return Formula(symbolic, symbols, tuple(terms))

    def describe(self, spec: LayerSpec) -> str:
        """``Bidirectional(CuDNNLSTM(128)) on 28 features``."""
        return keras.describe_stack(spec, _CUDNN[spec.cell], [])


    def recognise(self, shapes: Shapes) -> list[Recognised]:
        """Every CuDNNLSTM / CuDNNGRU layer (one per Keras layer) among ``shapes``."""
        index = index_of(shapes)
        out = []
        for prefix, sides in keras.pair_directions(keras.find_directions(shapes)):
            first = sides[0]
            if first.bias != (2 * first.cell.gates * first.hidden_size,):
                continue
            spec = build(
                cell=first.cell,
                input_size=first.input_size,
                hidden_size=first.hidden_size,
                bidirectional=len(sides) == 2,
                framework=Framework.TF1_CUDNN,
            )
            if spec is None or first.layer_path == "":
                continue
            notes = (keras.MERGE_MODE,) if spec.bidirectional else ()
            names = in_order([n for side in sides for n in side.names], index)
            out.append(Recognised(prefix, spec, names, notes))
        out.sort(key=lambda r: index[r.names[0]])
        return out


rnn_cell = RNNCellConvention()
cudnn = CuDNNConvention()
