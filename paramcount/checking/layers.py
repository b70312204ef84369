"""Layer tables -> Layers: one stack's layers, widths chained and every kind validated."""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from paramcount.checking.frames import (
    Frame,
    conv_size,
    frame_text,
    pool_size,
    torch_arg,
    tuple_text,
)
from paramcount.checking.locate import Path
from paramcount.checking.records import (
    _ANY_FRAMEWORK,
    _MERGE_MODES,
    _NONLINEARITIES,
    ACTIVATIONS,
    BUILDERS,
    COMMON_KEYS,
    CONVS,
    FUNCTIONS,
    GLOBAL_POOLS,
    KIND_KEYS,
    KINDS,
    MAX_SIZE,
    POOL_MODES,
    POOLS,
    RECURRENT,
    Layer,
)
from paramcount.checking.source import Source, did_you_mean
from paramcount.checking.table import _LOST, _describe, _q, _raise_all, _Table, _UnknownWidth
from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.errors import ConfigError, SpecError
from paramcount.record import replace


def _stack(source: Source, path: Path, data: object, framework: Framework,
           input_width: int | None, *, top_level: bool, flat: str | None = None,
           lost: bool = False, frame: Frame = ()) -> list[Layer]:
    """The layers of one stack, widths inferred from each previous layer (or ``from``).

    A layer's error does not stop the others being checked; the layers after it are checked
    for what does not depend on its width.
    """
    if not isinstance(data, list):
        raise source.error(path, f"expected an array of layer tables, got {_describe(data)}")
    if not data:
        raise source.error(path, "expected at least one layer, got an empty array")
    errors: list[ConfigError] = []
    tables: list[_Table | None] = []
    for n, item in enumerate(data):
        try:
            tables.append(_Table(source, (*path, n), item, f"layer {n}",
                                 _allowed(source, (*path, n), item, framework)))
        except ConfigError as error:
            errors.append(error)
            tables.append(None)
    kinds = [str(t.data["kind"]) if t is not None else "?" for t in tables]
    layers: list[Layer] = []
    names: dict[str, int] = {}
    width = _LOST if lost else input_width
    for n, table in enumerate(tables):
        if table is None:
            lost, width = True, _LOST
            continue
        try:
            layer = _one(source, table, n, kinds, framework, width, flat, names, layers,
                         top_level, frame)
        except _UnknownWidth as error:
            errors.append(error)
            lost, width = True, _LOST
            continue
        except ConfigError as error:
            errors.append(error)
            lost, width = True, _LOST
            continue
        flat, frame = layer.flat, layer.frame
        if layer.name is not None:
            names[layer.name] = n
        layers.append(layer)
        width = layer.output_width
    _raise_all(errors)
    return layers


def _one(source: Source, table: _Table, n: int, kinds: list[str], framework: Framework,
         width: int | None, flat: str | None, names: dict[str, int], layers: list[Layer],
         top_level: bool, frame: Frame) -> Layer:
    """One layer of a stack, read from ``table`` (``from`` resolved against ``names``)."""
    reads: int | None = None
    source_name = table.text("from")
    if source_name is not None:
        if source_name not in names:
            raise table.error(
                "from",
                f"no earlier layer is named {_q(source_name)}"
                + (f"; earlier names: {', '.join(map(_q, names))}." if names else
                   " (give a layer a name = \"...\" first).")
                + did_you_mean(source_name, names),
            )
        reads = names[source_name]
        earlier = layers[bisect.bisect_left(layers, reads, key=lambda layer: layer.index)]
        width, flat, frame = earlier.output_width, earlier.flat, earlier.frame
    # A convlstm reads any tensor of frames as a sequence, its first axis as time, as Keras
    # does (ConvLSTM{r}D takes r + 3 dimensions): after a reshape that adds that axis too.
    if flat is not None and kinds[n] in _SEQUENCE_READERS and not (
            kinds[n] == "convlstm" and len(frame) >= 2):
        raise table.error("kind", f"this {kinds[n]} layer reads a sequence, but its input "
                                  f"has no time axis any more: {flat}")
    layer = _layer(source, table, n, kinds[n], framework, width,
                   following=Rest(kinds, n + 1), first=(n == 0 and top_level), frame=frame,
                   flat=flat)
    after = _flat_after(layer, flat)
    if after != layer.flat:
        layer = _replace(layer, flat=after)
    if layer.name is not None and layer.name in names:
        raise table.error("name", f"duplicate layer name {_q(layer.name)} (also "
                                  f"layers[{names[layer.name]}])")
    if reads is not None:
        layer = _replace(layer, reads=reads)
    return layer


def _flat_after(layer: Layer, flat: str | None) -> str | None:
    """Whether (and why) ``layer``'s output has lost the time axis, given its input's."""
    if layer.kind in _FRAME_KINDS:
        return layer.flat
    if layer.kind in ("pool", "attention"):
        return f"{layer.label} pools over time"
    if layer.spec is not None:
        if layer.spec.framework is Framework.KERAS and not layer.options["return_sequences"]:
            return f"{layer.label} returns only its last state (return_sequences = false)"
        return None
    if layer.kind == "embedding":
        return None
    return flat


def _replace(layer: Layer, **changes: Any) -> Layer:
    return replace(layer, **changes)


def _allowed(source: Source, path: Path, item: object,
             framework: Framework = Framework.TORCH) -> tuple[str, ...]:
    """The keys a layer table may have, from its kind (validated here)."""
    if not isinstance(item, dict):
        raise source.error(path, f"expected a layer table, got {_describe(item)}")
    if "kind" not in item:
        raise source.error(path, f"missing key 'kind'; expected one of: {', '.join(KINDS)}")
    kind = item["kind"]
    if not isinstance(kind, str):
        raise source.error((*path, "kind"), f"expected a layer kind (one of: "
                                            f"{', '.join(KINDS)}), got {_describe(kind)}")
    if kind not in KIND_KEYS:
        raise source.error((*path, "kind"), f"unknown layer kind {_q(kind)}; expected one of: "
                                            f"{', '.join(KINDS)}." + did_you_mean(kind, KINDS))
    peepholes = ("peepholes",) if kind == "lstm" and framework in _PEEPHOLES else ()
    return (*COMMON_KEYS, *KIND_KEYS[kind], *peepholes)


_PEEPHOLES = (Framework.ONNX, Framework.TF1)
"""The conventions whose LSTM has peephole weights (``peepholes = true``)."""


_SEQUENCE_READERS = (*RECURRENT, "time_distributed", "pool", "attention", "convlstm")
_SHAPE_KEEPERS = ("linear", "dense", "layer_norm", "dropout", "activation", *ACTIVATIONS,
                  "batch_norm", "params")
_FRAME_KINDS = (*CONVS, "convlstm", "batch_norm", *POOLS, *GLOBAL_POOLS, "flatten", "reshape",
                "upsampling", "repeat_vector", "params")
_VECTOR_KINDS = (*RECURRENT, "embedding", "linear", "dense", "time_distributed", "layer_norm",
                 "attention", "pool")


class Rest(Sequence[str]):
    """The kinds of the layers after one, as a view of the stack's list: handing each layer
    its followers costs nothing (a copy each made a stack of n layers cost n²)."""

    def __init__(self, kinds: list[str], start: int) -> None:
        self.kinds, self.start = kinds, start

    def __len__(self) -> int:
        return max(0, len(self.kinds) - self.start)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return self.kinds[self.start:][index]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        return self.kinds[self.start + index if index >= 0 else index]

    def __iter__(self) -> Iterator[str]:
        return itertools.islice(self.kinds, self.start, None)


def _sequence_reader(following: Sequence[str], frames: bool = False) -> str | None:
    """The first later layer that needs a sequence (through layers that keep the shape);
    ``frames``: after a sequence of frames, where pooling, upsampling and convolutions read
    the last frame as well as the sequence."""
    readers = _SEQUENCE_READERS if frames else (
        *_SEQUENCE_READERS, *POOLS, *GLOBAL_POOLS, "conv1d", "upsampling")
    for kind in following:
        if kind in readers:
            return kind
        if kind not in _SHAPE_KEEPERS:
            return None
    return None


def _layer(source: Source, t: _Table, index: int, kind: str, framework: Framework,
           width: int | None, *, following: Sequence[str], first: bool, frame: Frame = (),
           flat: str | None = None) -> Layer:
    name = t.text("name")
    if name is not None and not name.isprintable():
        raise t.error("name", f"a layer name must be printable, got {_q(name)}")
    expected = t.integer("params", minimum=0,
                         what="a whole number of parameters (the layer's exact count)")
    keras = framework is Framework.KERAS

    def base(**kw: Any) -> Layer:
        kw.setdefault("frame", frame)
        return Layer(index=index, kind=kind, path=t.path, name=name, expected=expected, **kw)

    if framework not in BUILDERS and kind not in _ANY_FRAMEWORK and not (
            kind == "convlstm" and framework is Framework.FLAX_LINEN):
        raise t.error("kind", f"{framework.display_name} models here count recurrent layers "
                              f"(lstm, gru, rnn), stated counts and layers without "
                              f"parameters; a {kind} layer is not one: state its count with "
                              "{ kind = \"params\", count = N }")
    if kind in _FRAME_KINDS:
        return _frame_layer(t, kind, framework, width, frame, flat, base,
                            following=following)
    if frame and kind in _VECTOR_KINDS:
        raise t.error("kind", f"a {kind} layer reads vectors, but its input still has frames "
                              f"{tuple_text([d or 0 for d in frame])}: add a flatten or a "
                              "global pooling layer first")

    if kind == "embedding":
        if not first:
            raise t.error("kind", "an embedding reads token ids, so it must be the first "
                                  "layer of a model")
        if width is not None and width != _LOST:
            raise source.error((*t.path[:-2], "input"),
                               "a model that starts with an embedding reads token ids: "
                               "remove 'input' (the embedding's dim sets the width)")
        vocab = t.required_int("vocab", "the vocabulary size, a positive whole number")
        dim = t.required_int("dim", "the embedding width, a positive whole number")
        padding = None
        if "padding_idx" in t:
            if keras:
                raise t.error("padding_idx", "padding_idx is a torch option; Keras spells it "
                                             "mask_zero = true")
            padding = t.integer("padding_idx", minimum=-vocab,
                                what=f"an index from {-vocab} to {vocab - 1}")
            assert padding is not None
            if padding >= vocab:
                raise t.error("padding_idx", f"expected an index from {-vocab} to {vocab - 1} "
                                             f"(torch: padding_idx must be within "
                                             f"num_embeddings), got {padding}")
        mask_zero = t.boolean("mask_zero", None)
        if mask_zero is not None and not keras:
            raise t.error("mask_zero", "mask_zero is a Keras option; torch spells it "
                                       "padding_idx = 0")
        if keras:
            text = f"Embedding({vocab}, {dim}" + (", mask_zero=True" if mask_zero else "") + ")"
        else:
            text = f"nn.Embedding({vocab}, {dim}" + (
                f", padding_idx={padding}" if padding is not None else "") + ")"
        return base(input_width=None, output_width=dim, params=vocab * dim, description=text,
                    options={"vocab": vocab, "dim": dim, "padding_idx": padding,
                             "mask_zero": bool(mask_zero)})

    if kind in RECURRENT:
        width = _input(t, width, kind)
        hidden = _alias(t, "hidden", "units", "the hidden size, a positive whole number")
        num_layers = t.integer("layers", default=1, what="a positive whole number of layers")
        proj = t.integer("proj", minimum=0, default=0, what="a projection size (0 for none)")
        modes = t.choices("merge_mode", _MERGE_MODES, None)
        nonlinearity = t.choice("nonlinearity", _NONLINEARITIES, None)
        return_sequences = t.boolean("return_sequences", None)
        if return_sequences is not None and not keras:
            raise t.error("return_sequences", "return_sequences is a Keras option: a torch "
                                              "recurrent layer always returns the sequence")
        reader = _sequence_reader(following)
        needs_sequence = reader is not None
        if return_sequences is False and reader is not None:
            raise t.error("return_sequences", f"a later layer ({reader}) reads a sequence: "
                                              "return_sequences must be true")
        try:
            spec = LayerSpec(
                cell=RECURRENT[kind], input_size=width, hidden_size=hidden,
                num_layers=num_layers or 1, bidirectional=bool(t.boolean("bidirectional", False)),
                bias=bool(t.boolean("bias", True)), proj_size=proj or 0, framework=framework,
                merge_modes=tuple(MergeMode(m) for m in modes) if modes else None,
                reset_after=t.boolean("reset_after", None),
                nonlinearity=Nonlinearity(nonlinearity) if nonlinearity else None,
                single_cell=bool(t.boolean("cell", False)),
                peepholes=bool(t.boolean("peepholes", False)),
            )
        except SpecError as error:
            field_name = next(iter(error.values), None)
            key = _SPEC_KEYS.get(field_name or "")
            raise (t.error(key, error.render(_config_label)) if key and key in t
                   else t.error(None, error.render(_config_label))) from None
        if following and spec.merge_modes and spec.merge_modes[-1] is MergeMode.NONE:
            raise t.error("merge_mode", "merge_mode none returns two tensors, and the next "
                                        f"layer ({following[0]}) reads one")
        if spec.single_cell:
            out = spec.hidden_size
        elif keras and spec.bidirectional and spec.merge_modes:
            out = spec.merge_modes[-1].width_factor * spec.hidden_size
        else:
            out = spec.directions * spec.output_size
        return base(input_width=width, output_width=out,
                    params=recurrent_count(spec),
                    description=conventions.describe(spec), spec=spec,
                    options={"return_sequences": bool(return_sequences if return_sequences
                                                      is not None else needs_sequence)})

    if kind in ("linear", "dense", "time_distributed"):
        if kind == "time_distributed" and not keras:
            raise t.error("kind", "time_distributed is a Keras wrapper; a torch nn.Linear "
                                  "already applies to every time step (use kind = \"linear\")")
        width = _input(t, width, kind)
        out = _alias(t, "out", "units", "the output width, a positive whole number")
        bias = bool(t.boolean("bias", True))
        activation = t.choice("activation", FUNCTIONS, None)
        if activation is not None and not keras:
            raise t.error("activation", "activation is a Keras option: a torch nn.Linear has "
                                        "none (add a layer after it, e.g. { kind = \"relu\" })")
        if keras:
            args = [str(out)] + ([f"activation='{activation}'"] if activation else []) + (
                [] if bias else ["use_bias=False"])
            text = f"Dense({', '.join(args)})"
            if kind == "time_distributed":
                text = f"TimeDistributed({text})"
        else:
            text = f"nn.Linear({width}, {out}" + ("" if bias else ", bias=False") + ")"
        return base(input_width=width, output_width=out, params=width * out + out * bias,
                    description=text, options={"out": out, "bias": bias,
                                               "activation": activation})

    if kind == "layer_norm":
        width = _input(t, width, kind)
        bias = bool(t.boolean("bias", True))
        text = (f"LayerNormalization({'' if bias else 'center=False'})" if keras
                else f"nn.LayerNorm({width}" + ("" if bias else ", bias=False") + ")")
        return base(input_width=width, output_width=width, params=width * (1 + bias),
                    description=text, options={"bias": bias})

    width = _needs_width(t, width, kind)
    if kind == "attention":
        children = _stack(source, (*t.path, "layers"), t.data.get("layers"), framework, width,
                          top_level=False) if "layers" in t else None
        if children is None:
            raise t.error(None, "missing key 'layers' (the scorer: layers that map each time "
                                "step to one score)")
        if children[-1].flat is not None:
            raise source.error(children[-1].path, "the attention scorer must keep the time "
                                                  "axis (one score per time step), but "
                                                  f"{children[-1].flat}")
        if children[-1].output_width != 1:
            raise source.error(children[-1].path, f"the attention scorer must end in width 1 "
                                                  f"(one score per time step), got "
                                                  f"{children[-1].output_width}")
        return base(input_width=width, output_width=width,
                    params=sum(c.params for c in children),
                    description="attention pooling: softmax over time of "
                                + " → ".join(c.description for c in children),
                    children=tuple(children))
    if kind == "pool":
        modes = t.choices("mode", POOL_MODES, None)
        if modes is None:
            raise t.error(None, f"missing key 'mode' (one of {', '.join(POOL_MODES)}, or a "
                                "list of them, concatenated)")
        return base(input_width=width, output_width=width * len(modes), params=0,
                    description="concat(" + ", ".join(modes) + ") pooling over time"
                    if len(modes) > 1 else f"{modes[0]} pooling over time",
                    options={"modes": modes})
    if kind == "dropout":
        rate = t.data.get("rate", 0.5)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
            raise t.error("rate", f"expected a rate from 0 to below 1, got {_describe(rate)}")
        return base(input_width=width, output_width=width, params=0,
                    description=f"Dropout({rate})", options={"rate": float(rate)})
    function = kind
    if kind == "activation":
        function = t.choice("function", FUNCTIONS, None) or ""
        if not function:
            raise t.error(None, f"missing key 'function' (one of {', '.join(FUNCTIONS)})")
        if function == "linear" and not keras:
            raise t.error("function", "linear (no activation) is a Keras spelling: a torch "
                                      "model simply has no activation layer there")
    return base(input_width=width, output_width=width, params=0, description=function,
                options={"function": function})


def _sizes(t: _Table, key: str, rank: int, default: int | None, what: str) -> tuple[int, ...]:
    """``kernel = 3`` (every axis) or ``kernel = [3, 5]`` (one per axis)."""
    if key not in t:
        if default is None:
            raise t.error(None, f"missing key '{key}' ({what})")
        return (default,) * rank
    value = t.data[key]
    items = value if isinstance(value, list) else [value]
    for n, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, int) or not 0 < item <= MAX_SIZE:
            where = (*t.path, key, n) if isinstance(value, list) else (*t.path, key)
            raise t.source.error(where, f"expected {what}, got {_describe(item)}")
    if isinstance(value, list) and len(items) != rank:
        raise t.error(key, f"expected {rank} size{'s' if rank > 1 else ''} (one per spatial "
                           f"axis), got {len(items)}")
    return tuple(items) * (rank if not isinstance(value, list) else 1)


def _padding(t: _Table, keras: bool, default: str = "valid") -> int | str:
    if keras:
        return t.choice("padding", ("valid", "same"), default)
    value = t.data.get("padding", 0)
    if value in ("valid", "same"):
        return str(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SIZE:
        raise t.error("padding", f"expected a whole number of padded positions, 'valid' or "
                                 f"'same', got {_describe(value)}")
    return value


def _timed(frame: Frame, flat: str | None) -> bool:
    """Whether ``frame`` is a sequence of frames, its first axis time (a convlstm's output)."""
    return flat is None and bool(frame)


def _ndim(rank: int) -> int:
    """The dimensions Keras' ConvLSTM{rank}D takes: batch, time, the frame's axes, channels."""
    return rank + 3


def _per_axis(t: _Table, key: str, kind: str, frame: Frame, flat: str | None, width: int,
              layer: str) -> None:
    """Refuse one size for every axis of a sequence of frames: it would pool (or upsample)
    time too, where the layer of the frames' rank (which Keras refuses on a sequence) was
    meant; and a sequence of 3-D frames, for which Keras has no layer."""
    if not _timed(frame, flat):
        return
    rank = len(frame)
    if rank > 3:
        raise t.error("kind", f"Keras has no {layer}{rank}D for a sequence of 3-D frames "
                              f"{frame_text(frame, width, True)}: state what you do there "
                              "with { kind = \"params\", count = 0 } and the layers after it")
    if not isinstance(t.data.get(key), list):
        article = "an" if kind[0] in "aeiou" else "a"
        raise t.error(key if key in t else "kind",
                      f"{article} {kind} over a sequence of frames "
                      f"{frame_text(frame, width, True)} reads time too ({layer}{rank}D): give "
                      f"one size per axis, time first, e.g. {key} = [1{', 2' * (rank - 1)}] "
                      f"for each frame; Keras refuses {layer}{rank - 1}D on a sequence of "
                      f"frames (expected ndim={rank + 1}, found ndim={rank + 2})")


def _frame_layer(t: _Table, kind: str, framework: Framework, width: int | None, frame: Frame,
                 flat: str | None, base: Callable[..., Layer], *, following: Sequence[str]
                 ) -> Layer:
    """The layers that track frames: convolutions, ConvLSTM, BatchNorm, pooling, flatten,
    reshape, upsampling, RepeatVector and stated counts."""
    keras = framework is Framework.KERAS
    if framework not in (Framework.TORCH, Framework.KERAS) and kind != "params" and not (
            kind == "convlstm" and framework is Framework.FLAX_LINEN):
        raise t.error("kind", f"{kind} layers are built here in torch and Keras only, not "
                              f"{framework.value} (state the count: {{ kind = \"params\", "
                              "count = N }})")
    if kind == "params":
        count = t.integer("count", minimum=0, required=True,
                          what="the layer's number of parameters")
        assert count is not None
        out = t.integer("out", what="the output width, a positive whole number")
        return base(input_width=width, output_width=out or width or 1, params=count,
                    description=f"{count:,} parameters (stated)", flat=flat,
                    options={"count": count})
    channels_last = keras
    lost = width == _LOST  # an earlier error: what this layer reads is not known
    width = _input(t, width, kind) if kind in (*CONVS, "convlstm", "batch_norm") else (
        _needs_width(t, width, kind))

    def shape(out_frame: Frame, channels: int) -> str:
        return frame_text(out_frame, channels, channels_last)

    if kind in CONVS or kind == "convlstm":
        rank = CONVS.get(kind) or len(frame) - 1  # a convlstm's frame starts with time
        steps = frame[0] if kind == "convlstm" and frame else None
        if kind == "convlstm" and framework is Framework.TORCH:
            raise t.error("kind", "torch has no ConvLSTM layer: use framework = \"keras\" "
                                  "(ConvLSTM1D/2D/3D), or state its count with { kind = "
                                  "\"params\", count = N }")
        if kind == "convlstm" and not 1 <= rank <= 3:
            raise t.error("kind", "a convlstm reads a sequence of frames: give the model "
                                  "input = [height, width, channels] (one frame) and start "
                                  "with it" if flat is None else
                                  f"a convlstm reads a sequence of frames, but {flat}")
        stated = t.integer("rank", what="1, 2 or 3 (ConvLSTM1D, 2D, 3D)") \
            if kind == "convlstm" else None
        if stated is not None and stated not in (1, 2, 3):
            raise t.error("rank", f"expected 1, 2 or 3 (ConvLSTM1D, 2D, 3D), got {stated}")
        if stated is not None and stated != rank and not lost:
            raise t.error("rank", f"a ConvLSTM{stated}D reads a sequence of frames of "
                                  f"{stated} spatial axes, but its input is "
                                  f"{frame_text(frame, width or 0, keras)}: Keras refuses it "
                                  f"(expected ndim={_ndim(stated)}, found ndim={len(frame) + 2})")
        frame = frame[1:] if kind == "convlstm" else frame
        sequence_axis = kind != "convlstm" and rank == 1 and not frame
        if kind in CONVS and not sequence_axis and len(frame) != rank:
            raise t.error("kind", f"a {kind} reads {rank}-D frames, but its input has "
                                  f"{len(frame) or 'no'} spatial "
                                  f"ax{'es' if len(frame) != 1 else 'is'}"
                                  + (" (give the model input = [...], a sample's shape)"
                                     if not frame else "")
                                  + (": a sequence of frames, which Keras refuses (kernel "
                                     "shape must have the same length as input)"
                                     if _timed(frame, flat) and keras else ""))
        filters = _alias(t, "filters", "out", "the output channels, a positive whole number") \
            if kind in CONVS else t.required_int("filters", "the output channels")
        kernel = _sizes(t, "kernel", rank, None, "a kernel size, a positive whole number")
        strides = _sizes(t, "strides", rank, 1, "a stride, a positive whole number") \
            if kind in CONVS else (1,) * rank
        dilation = _sizes(t, "dilation", rank, 1, "a dilation, a positive whole number") \
            if kind in CONVS else (1,) * rank
        padding = _padding(t, keras or kind == "convlstm",  # Flax's ConvLSTMCell pads 'SAME'
                           "same" if framework is Framework.FLAX_LINEN else "valid")
        bias = bool(t.boolean("bias", True))
        in_frame = (None,) if sequence_axis else frame
        out_frame = tuple(conv_size(n, k, s_, d, padding) for n, k, s_, d in
                          zip(in_frame, kernel, strides, dilation, strict=True))
        if any(n is not None and n < 1 for n in out_frame):
            raise t.error("kernel", f"the kernel {tuple_text(kernel)} is larger than the "
                                    f"frame {tuple_text([n or 0 for n in in_frame])}")
        if padding == "same" and not keras and any(s_ != 1 for s_ in strides):
            raise t.error("padding", "torch refuses padding='same' with strides above 1")
        kept = () if sequence_axis else out_frame
        if kind == "convlstm":
            from paramcount.engine.conventions import convlstm as convention
            from paramcount.engine.convlstm_report import ConvLSTMSpec

            num_layers = t.integer("layers", default=1, what="a positive whole number of "
                                                              "layers") or 1
            bidirectional = bool(t.boolean("bidirectional", False))
            try:
                spec = ConvLSTMSpec(rank=rank, input_channels=width, filters=filters,
                                    kernel=kernel, num_layers=num_layers,
                                    bidirectional=bidirectional, bias=bias,
                                    framework=framework)
            except SpecError as error:
                raise t.error(None, error.render(_config_label)) from None
            sequences = t.boolean("return_sequences", None)
            reader = _sequence_reader(following, frames=True)
            if sequences is False and reader is not None:
                raise t.error("return_sequences", f"a later layer ({reader}) reads a "
                                                  "sequence: return_sequences must be true")
            sequences = bool(sequences if sequences is not None else reader is not None)
            out = filters * (2 if bidirectional else 1)
            for _ in range(num_layers - 1):  # later layers of a stack keep the frame size
                kept = tuple(conv_size(n, k, 1, 1, padding) for n, k in zip(kept, kernel,
                                                                             strict=True))
            return base(input_width=width, output_width=out,
                        frame=(steps, *kept) if sequences else kept,
                        params=sum(x.count for x in convention.tensors(spec)),
                        description=convention.describe(spec).rsplit(" on ", 1)[0],
                        flat=None if sequences else (
                            f"layers[{t.path[-1]}] (convlstm) returns only its last frame "
                            "(return_sequences = false)"),
                        options={"rank": rank, "filters": filters, "kernel": kernel,
                                 "padding": padding, "layers": num_layers,
                                 "bidirectional": bidirectional, "bias": bias,
                                 "return_sequences": sequences})
        groups = t.integer("groups", default=1, what="a positive whole number of groups") or 1
        if groups != 1 and keras:
            raise t.error("groups", "groups is the torch spelling; Keras' Conv layers call it "
                                    "groups too but this config builds Keras without it: "
                                    "state the count with { kind = \"params\" }")
        if width % groups or filters % groups:
            raise t.error("groups", f"groups = {groups} must divide the input channels "
                                    f"({width}) and the filters ({filters})")
        activation = t.choice("activation", FUNCTIONS, None)
        if activation is not None and not keras:
            raise t.error("activation", "activation is a Keras option: add a layer after it, "
                                        "e.g. { kind = \"relu\" }")
        params = filters * math.prod(kernel) * (width // groups) + filters * bias
        if keras:
            args = [str(filters), tuple_text(kernel)]
            if any(s_ != 1 for s_ in strides):
                args.append(f"strides={tuple_text(strides)}")
            if padding != "valid":
                args.append(f"padding='{padding}'")
            if any(d != 1 for d in dilation):
                args.append(f"dilation_rate={tuple_text(dilation)}")
            if activation:
                args.append(f"activation='{activation}'")
            if not bias:
                args.append("use_bias=False")
            text = f"Conv{rank}D({', '.join(args)})"
        else:
            args = [str(width), str(filters), torch_arg(kernel)]
            if any(s_ != 1 for s_ in strides):
                args.append(f"stride={torch_arg(strides)}")
            if padding not in (0, "valid"):
                args.append(f"padding={padding!r}" if isinstance(padding, str)
                            else f"padding={padding}")
            if any(d != 1 for d in dilation):
                args.append(f"dilation={torch_arg(dilation)}")
            if groups != 1:
                args.append(f"groups={groups}")
            if not bias:
                args.append("bias=False")
            text = f"nn.Conv{rank}d({', '.join(args)})"
        return base(input_width=width, output_width=filters, frame=kept, params=params,
                    description=text, flat=flat,
                    options={"rank": rank, "filters": filters, "kernel": kernel,
                             "strides": strides, "dilation": dilation, "padding": padding,
                             "bias": bias, "groups": groups, "activation": activation})
    if kind == "batch_norm":
        scale = bool(t.boolean("scale", True))
        bias = bool(t.boolean("bias", True))
        if keras:
            args = ([] if bias else ["center=False"]) + ([] if scale else ["scale=False"])
            return base(input_width=width, output_width=width, flat=flat,
                        params=width * (scale + bias) + 2 * width, non_trainable=2 * width,
                        description=f"BatchNormalization({', '.join(args)})",
                        options={"scale": scale, "bias": bias})
        if scale != bias:
            raise t.error("scale", "torch's BatchNorm has both scale and bias (affine=True) or "
                                   "neither (affine=False): set scale and bias alike")
        rank = max(1, len(frame))
        return base(input_width=width, output_width=width, flat=flat,
                    params=2 * width * scale, buffers=2 * width + 1,
                    description=f"nn.BatchNorm{rank}d({width}"
                                + ("" if scale else ", affine=False") + ")",
                    options={"scale": scale, "bias": bias, "rank": rank})
    assert width is not None
    if kind in POOLS:
        _per_axis(t, "size", kind, frame, flat, width,
                  "MaxPooling" if kind == "max_pool" else "AveragePooling")
        sequence_axis = not frame
        if sequence_axis and flat is not None:
            raise t.error("kind", f"a {kind} reads frames or a sequence, but {flat}")
        rank = len(frame) or 1
        size = _sizes(t, "size", rank, 2, "a pool size, a positive whole number")
        strides = _sizes(t, "strides", rank, 0, "a stride, a positive whole number") \
            if "strides" in t else size
        padding = _padding(t, keras)
        out_frame = tuple(pool_size(n, k, s_, padding) for n, k, s_ in
                          zip(frame or (None,), size, strides, strict=True))
        if any(n is not None and n < 1 for n in out_frame):
            raise t.error("size", f"the pool {tuple_text(size)} is larger than the frame")
        name = "MaxPooling" if kind == "max_pool" else "AveragePooling"
        if keras:
            text = f"{name}{rank}D({tuple_text(size)}" + (
                f", strides={tuple_text(strides)}" if strides != size else "") + (
                f", padding='{padding}'" if padding != "valid" else "") + ")"
        else:
            text = f"nn.{'MaxPool' if kind == 'max_pool' else 'AvgPool'}{rank}d(" \
                   f"{torch_arg(size)}" + (f", stride={torch_arg(strides)}"
                                           if strides != size else "") + (
                f", padding={padding}" if padding not in (0, "valid") else "") + ")"
        return base(input_width=width, output_width=width, params=0, description=text,
                    frame=() if sequence_axis else out_frame, flat=flat,
                    options={"rank": rank, "size": size, "strides": strides,
                             "padding": padding})
    if kind in GLOBAL_POOLS:
        if not frame and flat is not None:
            raise t.error("kind", f"a {kind} reads frames or a sequence, but {flat}")
        rank = len(frame) or 1
        name = "GlobalMaxPooling" if kind == "global_max_pool" else "GlobalAveragePooling"
        text = (f"{name}{rank}D()" if keras else
                f"nn.Adaptive{'Max' if 'max' in kind else 'Avg'}Pool{rank}d(1) + flatten")
        return base(input_width=width, output_width=width, params=0, description=text,
                    frame=(), flat=flat or f"layers[{t.path[-1]}] ({kind}) pools over "
                                          f"{'the frame' if frame else 'time'}",
                    options={"rank": rank})
    if kind == "flatten":
        unknown = [n for n in frame if n is None]
        if unknown or (not frame and flat is None):
            raise t.error("kind", "flatten needs every size known, but its input has a time "
                                  "axis of unknown length: pool over time first, or give "
                                  "the frames' sizes in input = [...]")
        values = width * math.prod(n for n in frame if n is not None)
        return base(input_width=width, output_width=values, params=0, frame=(),
                    description="Flatten()" if keras else "nn.Flatten()",
                    flat=flat or f"layers[{t.path[-1]}] (flatten) flattens it", options={})
    if kind == "reshape":
        target = t.data.get("shape")
        if not isinstance(target, list) or not 1 <= len(target) <= 4 or any(
                isinstance(n, bool) or not isinstance(n, int) or not 0 < n <= MAX_SIZE
                for n in target):
            raise t.error("shape" if "shape" in t else None,
                          "expected shape = [...], 1 to 4 positive whole numbers (one "
                          "sample's shape, without the batch axis)")
        if any(n is None for n in frame) or (not frame and flat is None):
            raise t.error("kind", "reshape needs every size known, but its input has a time "
                                  "axis of unknown length")
        values = width * math.prod(n for n in frame if n is not None)
        if math.prod(target) != values:
            raise t.error("shape", f"{tuple_text(target)} holds {math.prod(target):,} values, "
                                   f"but its input holds {values:,}")
        channels, out_frame = ((target[-1], tuple(target[:-1])) if keras
                               else (target[0], tuple(target[1:])))
        text = (f"Reshape({tuple_text(target)})" if keras
                else f"nn.Unflatten(1, {tuple_text(target)})")
        return base(input_width=width, output_width=channels, frame=out_frame, params=0,
                    description=text, flat=flat, options={"shape": tuple(target)})
    if kind == "upsampling":
        if not frame and flat is not None:
            raise t.error("kind", f"upsampling reads frames or a sequence, but {flat}")
        _per_axis(t, "size", kind, frame, flat, width, "UpSampling")
        rank = len(frame) or 1
        size = _sizes(t, "size", rank, 2, "an upsampling factor, a positive whole number")
        out_frame = tuple(None if n is None else n * k for n, k in
                          zip(frame or (None,), size, strict=True))
        text = (f"UpSampling{rank}D({tuple_text(size) if rank > 1 else size[0]})" if keras
                else f"nn.Upsample(scale_factor={torch_arg(size)})")
        return base(input_width=width, output_width=width, params=0, description=text,
                    frame=out_frame if frame else (), flat=flat,
                    options={"rank": rank, "size": size})
    # repeat_vector
    if not keras:
        raise t.error("kind", "repeat_vector is a Keras layer (RepeatVector); torch repeats "
                              "in forward(), with no module: leave it out")
    n = t.required_int("n", "how many time steps to repeat, a positive whole number")
    if flat is None or frame:
        raise t.error("kind", "repeat_vector reads one vector per sample, but its input still "
                              "has a time axis" + (" and frames" if frame else "")
                      + ": set return_sequences = false on the layer before it")
    return base(input_width=width, output_width=width, params=0, frame=(),
                description=f"RepeatVector({n})", flat=None, options={"n": n})


def recurrent_count(spec: LayerSpec) -> int:
    """The parameters of a recurrent spec, in closed form (the tests prove it equals the sum of
    ``conventions.tensors``; this is ~20× faster, which matters for files of 10,000 models)."""
    gh, h = spec.gate_rows, spec.hidden_size
    if spec.framework not in (Framework.TORCH, Framework.KERAS):
        return sum(t.count for t in conventions.tensors(spec))
    if spec.framework is Framework.TORCH:
        per_bias = 2 * int(spec.bias)
        if spec.single_cell:
            return gh * (spec.input_size + h + per_bias)
        hr, p = spec.output_size, spec.proj_size
        return spec.directions * sum(gh * (width + hr + per_bias) + p * h
                                     for width in conventions.input_widths(spec))
    biases = (2 if spec.cell is Cell.GRU and spec.reset_after else 1) * int(spec.bias)
    if spec.single_cell:
        return gh * (spec.input_size + h + biases)
    return spec.directions * sum(gh * (width + h + biases)
                                 for width in conventions.input_widths(spec))


_SPEC_KEYS = {
    "input_size": "input", "hidden_size": "hidden", "num_layers": "layers",
    "proj_size": "proj", "merge_modes": "merge_mode", "reset_after": "reset_after",
    "nonlinearity": "nonlinearity", "single_cell": "cell", "bidirectional": "bidirectional",
    "bias": "bias", "peepholes": "peepholes",
}


def _config_label(field_name: str, value: object) -> str:
    """Name a LayerSpec field as the config spells it: ``proj = 128``."""
    key = _SPEC_KEYS.get(field_name, field_name)
    if isinstance(value, bool):
        return f"{key} = {str(value).lower()}"
    if isinstance(value, str) and field_name != "merge_modes":
        return f"{key} = \"{value}\""
    return f"{key} = {value}"


def _alias(t: _Table, key: str, alias: str, what: str) -> int:
    if key in t and alias in t:
        raise t.error(alias, f"give '{key}' or '{alias}', not both (they are the same setting)")
    return t.required_int(alias if alias in t else key, what)


def _input(t: _Table, width: int | None, kind: str) -> int:
    """The width a layer reads: the previous layer's, checked against an explicit ``input``."""
    explicit = t.integer("input", what="the input width, a positive whole number")
    if explicit is not None and width not in (None, _LOST) and explicit != width:
        raise t.error("input", f"widths do not chain: this {kind} reads {explicit}, but the "
                               f"layer before it outputs {width}")
    if explicit is not None:
        return explicit
    return _needs_width(t, width, kind)


def _needs_width(t: _Table, width: int | None, kind: str) -> int:
    if width == _LOST:
        return 1
    if width is None:
        raise _UnknownWidth(str(t.error(None, f"the {kind} layer's input width is unknown: set "
                                              "'input' on the model (or on its first layer), "
                                              "or start with an embedding")))
    return width
