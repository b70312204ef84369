"""Framework layer classes by name: their signatures, and the exact counts of non-recurrent ones.

``paramcount read`` meets calls such as ``nn.Linear(256, 2)`` or ``layers.Dense(1)`` in pasted
code and printouts. This module binds such a call's arguments in the framework's own order and
counts what a layer holds: ``Linear`` in·out + out, ``Dense`` in·units + units, ``Embedding``
n·d, ``Conv1d`` out·(in/groups)·k + out, norms their scale and shift (Keras'
``BatchNormalization`` also its two moving statistics, which its summary counts). Recurrent
layers become LayerSpecs elsewhere (``paramcount.reading.pipeline``); this module only knows their
signatures. Pure: no framework is imported.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from paramcount.record import record

TORCH = "torch"
KERAS = "keras"

_RNN_BASE = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
             "bidirectional", "proj_size")
_CONV = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
         "groups", "bias", "padding_mode")
_BN = ("num_features", "eps", "momentum", "affine", "track_running_stats")

TORCH_SIGNATURES: dict[str, tuple[str, ...]] = {
    "LSTM": _RNN_BASE,
    "GRU": _RNN_BASE[:-1],
    # nn.RNN takes nonlinearity as its fourth positional argument (torch/nn/modules/rnn.py).
    "RNN": ("input_size", "hidden_size", "num_layers", "nonlinearity", "bias", "batch_first",
            "dropout", "bidirectional"),
    "LSTMCell": ("input_size", "hidden_size", "bias"),
    "GRUCell": ("input_size", "hidden_size", "bias"),
    "RNNCell": ("input_size", "hidden_size", "bias", "nonlinearity"),
    "Linear": ("in_features", "out_features", "bias"),
    "Embedding": ("num_embeddings", "embedding_dim", "padding_idx", "max_norm"),
    "Conv1d": _CONV,
    "Conv2d": _CONV,
    "LayerNorm": ("normalized_shape", "eps", "elementwise_affine", "bias"),
    "BatchNorm1d": _BN,
    "BatchNorm2d": _BN,
    "BatchNorm3d": _BN,
}
TORCH_DEFAULTS: dict[str, Any] = {
    "num_layers": 1, "bias": True, "bidirectional": False, "proj_size": 0,
    "nonlinearity": "tanh", "groups": 1, "elementwise_affine": True, "affine": True,
}

TORCH_FREE = frozenset({
    "Dropout", "Dropout1d", "Dropout2d", "AlphaDropout", "ReLU", "ReLU6", "LeakyReLU", "ELU",
    "SELU", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Softplus",
    "Identity", "Flatten", "Unflatten", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "Hardtanh", "Hardswish",
})
"""torch modules without parameters."""

_K_RNN = ("units", "activation", "recurrent_activation", "use_bias")
_K_CONV = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
           "groups", "activation", "use_bias")
KERAS_SIGNATURES: dict[str, tuple[str, ...]] = {
    "LSTM": _K_RNN,
    "GRU": _K_RNN,
    "SimpleRNN": ("units", "activation", "use_bias"),
    "LSTMCell": _K_RNN,
    "GRUCell": _K_RNN,
    "SimpleRNNCell": ("units", "activation", "use_bias"),
    "CuDNNLSTM": ("units",),
    "CuDNNGRU": ("units",),
    "Bidirectional": ("layer", "merge_mode", "weights", "backward_layer"),
    "TimeDistributed": ("layer",),
    "RNN": ("cell", "return_sequences", "return_state", "go_backwards"),
    "Dense": ("units", "activation", "use_bias"),
    "Embedding": ("input_dim", "output_dim"),
    "Conv1D": _K_CONV,
    "Conv2D": _K_CONV,
    "ConvLSTM1D": ("filters", "kernel_size", "strides", "padding", "data_format",
                   "dilation_rate", "activation", "recurrent_activation", "use_bias"),
    "ConvLSTM2D": ("filters", "kernel_size", "strides", "padding", "data_format",
                   "dilation_rate", "activation", "recurrent_activation", "use_bias"),
    "LayerNormalization": ("axis", "epsilon", "center", "scale"),
    "BatchNormalization": ("axis", "momentum", "epsilon", "center", "scale"),
    "Input": ("shape", "batch_size", "dtype"),
    "InputLayer": ("shape", "batch_size", "dtype"),
}
KERAS_DEFAULTS: dict[str, Any] = {
    "use_bias": True, "merge_mode": "concat", "center": True, "scale": True, "groups": 1,
    "data_format": None, "reset_after": True,
}

KERAS_KEEP_WIDTH = frozenset({
    "Dropout", "SpatialDropout1D", "SpatialDropout2D", "GaussianNoise", "GaussianDropout",
    "Activation", "ReLU", "LeakyReLU", "ELU", "Softmax", "PReLU_", "Masking",
    "GlobalMaxPooling1D", "GlobalAveragePooling1D", "GlobalMaxPool1D", "GlobalAvgPool1D",
    "MaxPooling1D", "AveragePooling1D", "MaxPool1D", "AvgPool1D", "MaxPooling2D",
    "AveragePooling2D", "GlobalMaxPooling2D", "GlobalAveragePooling2D", "RepeatVector",
    "UpSampling1D", "UpSampling2D", "ZeroPadding1D", "Cropping1D", "ActivityRegularization",
})
"""Keras layers without weights whose output keeps the input's last dimension."""

KERAS_FREE_RESHAPING = frozenset({"Flatten", "Reshape", "Permute", "Concatenate", "Add",
                                  "Multiply", "Average", "Lambda", "Attention", "Subtract",
                                  "Maximum", "Minimum", "Dot"})
"""Keras layers without weights whose output width the code alone may not tell."""

RECURRENT_TORCH = frozenset({"LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"})
RECURRENT_KERAS = frozenset({"LSTM", "GRU", "SimpleRNN", "LSTMCell", "GRUCell", "SimpleRNNCell",
                             "CuDNNLSTM", "CuDNNGRU"})
CONTAINERS = frozenset({"Sequential", "ModuleList", "ModuleDict", "Model", "Functional"})

KNOWN = frozenset(
    {*TORCH_SIGNATURES, *TORCH_FREE, *KERAS_SIGNATURES, *KERAS_KEEP_WIDTH,
     *KERAS_FREE_RESHAPING, *CONTAINERS}
)
"""Every class name the reader recognises as a layer or a container."""

TORCH_ONLY = (frozenset(TORCH_SIGNATURES) | TORCH_FREE) - {
    "LSTM", "GRU", "RNN", "Embedding", "LSTMCell", "GRUCell", "ReLU", "LeakyReLU", "ELU",
    "Softmax", "Flatten"}
KERAS_ONLY = (frozenset(KERAS_SIGNATURES) | KERAS_KEEP_WIDTH | KERAS_FREE_RESHAPING) - {
    "LSTM", "GRU", "RNN", "Embedding", "LSTMCell", "GRUCell", "ReLU", "LeakyReLU", "ELU",
    "Softmax", "Flatten"}


class Unbound(Exception):
    """A value a layer needs that the call does not give (or gives as something unresolved)."""

    def __init__(self, argument: str, value: object = None) -> None:
        self.argument = argument
        self.value = value
        super().__init__(argument)


def bind(signature: tuple[str, ...], args: tuple[Any, ...],
         kwargs: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """Positional and keyword arguments named by ``signature``, then the defaults."""
    bound = dict(defaults)
    bound.update(zip(signature, args, strict=False))
    bound.update(kwargs)
    return bound


def whole(bound: Mapping[str, Any], name: str) -> int:
    """``bound[name]`` as a positive whole number, or Unbound."""
    value = bound.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise Unbound(name, value)
    return value


def flag(bound: Mapping[str, Any], name: str) -> bool:
    """``bound[name]`` as True or False (1 and 0 too), or Unbound."""
    value = bound.get(name)
    if value in (True, False):
        return bool(value)
    raise Unbound(name, value)


def sizes(bound: Mapping[str, Any], name: str, rank: int) -> tuple[int, ...]:
    """A kernel size: one number for every axis, or a tuple of ``rank`` numbers."""
    value = bound.get(name)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return (value,) * rank
    if (isinstance(value, tuple) and len(value) == rank
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)):
        return value
    raise Unbound(name, value)


@record
class Counted:
    """A non-recurrent layer's parameters and the formula they come from."""

    params: int
    formula: str
    """With the numbers filled in: ``256·2 + 2``."""
    output_width: int | None
    """The width of the output's last axis, where the layer sets it."""


def torch_free(name: str) -> bool:
    """Whether a torch module class holds no parameters."""
    return name in TORCH_FREE or name.endswith(("Dropout", "Pool1d", "Pool2d", "Loss"))


def keras_free(name: str) -> bool:
    """Whether a Keras layer class holds no weights."""
    return name in KERAS_KEEP_WIDTH or name in KERAS_FREE_RESHAPING or name in (
        "Input", "InputLayer")


def torch_count(name: str, bound: Mapping[str, Any]) -> Counted:
    """The parameters of a non-recurrent torch module (``Unbound`` if a size is missing)."""
    if torch_free(name):
        return Counted(0, "0", None)
    if name == "Linear":
        i, o, b = whole(bound, "in_features"), whole(bound, "out_features"), flag(bound, "bias")
        return Counted(i * o + o * b, f"{i}·{o}" + (f" + {o}" if b else ""), o)
    if name == "Embedding":
        n, d = whole(bound, "num_embeddings"), whole(bound, "embedding_dim")
        return Counted(n * d, f"{n}·{d}", d)
    if name in ("Conv1d", "Conv2d"):
        rank = 1 if name == "Conv1d" else 2
        i, o = whole(bound, "in_channels"), whole(bound, "out_channels")
        k, g, b = sizes(bound, "kernel_size", rank), whole(bound, "groups"), flag(bound, "bias")
        if i % g or o % g:
            raise Unbound("groups", g)
        kernel = "·".join(str(x) for x in k)
        weights = o * (i // g) * math.prod(k)
        group = f"({i}/{g})" if g > 1 else str(i)
        return Counted(weights + o * b, f"{o}·{group}·{kernel}" + (f" + {o}" if b else ""), o)
    if name == "LayerNorm":
        shape = bound.get("normalized_shape")
        dims = (shape,) if isinstance(shape, int) else tuple(shape) if isinstance(
            shape, list) else shape
        if not (isinstance(dims, tuple) and dims
                and all(isinstance(d, int) and not isinstance(d, bool) and d > 0
                        for d in dims)):
            raise Unbound("normalized_shape", shape)
        n = math.prod(dims)
        vectors = flag(bound, "elementwise_affine") * (1 + flag(bound, "bias"))
        return Counted(vectors * n, f"{vectors}·{n}", dims[-1])
    if name.startswith("BatchNorm"):
        n = whole(bound, "num_features")
        vectors = 2 * flag(bound, "affine")
        return Counted(vectors * n, f"{vectors}·{n}", n)
    raise Unbound("class")


def keras_count(name: str, bound: Mapping[str, Any], width: int | None) -> Counted:
    """The weights of a non-recurrent Keras layer reading ``width`` features (Unbound if a
    size is missing; ``input`` when the input width is what is missing)."""
    if name in KERAS_KEEP_WIDTH:
        return Counted(0, "0", width)
    if name in KERAS_FREE_RESHAPING:
        return Counted(0, "0", None)
    if name == "Embedding":
        n, d = whole(bound, "input_dim"), whole(bound, "output_dim")
        return Counted(n * d, f"{n}·{d}", d)
    if name in ("Input", "InputLayer"):
        return Counted(0, "0", width)
    if width is None:
        raise Unbound("input")
    if name == "Dense":
        u, b = whole(bound, "units"), flag(bound, "use_bias")
        return Counted(width * u + u * b, f"{width}·{u}" + (f" + {u}" if b else ""), u)
    if name in ("Conv1D", "Conv2D"):
        if bound.get("data_format") not in (None, "channels_last"):
            raise Unbound("data_format", bound.get("data_format"))
        rank = 1 if name == "Conv1D" else 2
        f, k = whole(bound, "filters"), sizes(bound, "kernel_size", rank)
        g, b = whole(bound, "groups"), flag(bound, "use_bias")
        if width % g or f % g:
            raise Unbound("groups", g)
        kernel = "·".join(str(x) for x in k)
        group = f"({width}/{g})" if g > 1 else str(width)
        return Counted(math.prod(k) * (width // g) * f + f * b,
                       f"{kernel}·{group}·{f}" + (f" + {f}" if b else ""), f)
    if name in ("ConvLSTM1D", "ConvLSTM2D"):
        if bound.get("data_format") not in (None, "channels_last"):
            raise Unbound("data_format", bound.get("data_format"))
        rank = 1 if name == "ConvLSTM1D" else 2
        f, k, b = whole(bound, "filters"), sizes(bound, "kernel_size", rank), flag(
            bound, "use_bias")
        from paramcount.engine.conventions import convlstm
        from paramcount.engine.convlstm_report import ConvLSTMSpec

        spec = ConvLSTMSpec(rank, width, f, k, bias=bool(b))
        kernel = "·".join(str(x) for x in k)
        return Counted(sum(t.count for t in convlstm.tensors(spec)),
                       f"4·{f}·{kernel}·({width} + {f})" + (f" + 4·{f}" if b else ""), f)
    if name == "LayerNormalization":
        vectors = flag(bound, "center") + flag(bound, "scale")
        return Counted(vectors * width, f"{vectors}·{width}", width)
    if name == "BatchNormalization":
        vectors = flag(bound, "center") + flag(bound, "scale") + 2
        return Counted(vectors * width, f"{vectors}·{width}", width)
    raise Unbound("class")
