"""``--verify``: build each configured model with its real framework and count what it holds.

PyTorch modules are built on the meta device (shapes, no storage). Keras models are built as
functional models inside ``keras.StatelessScope(initialize_variables=False)`` after
``keras.backend.clear_session()``, so variables get shapes but no values. Frameworks are
imported here, inside functions, only when asked for.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

from paramcount import quiet
from paramcount.checking.config import Layer, Model
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode
from paramcount.errors import BackendUnavailable, install_hint


def require(frameworks: Sequence[Framework], doing: str = "verifying") -> None:
    """Raise BackendUnavailable (exit 3) for the first framework that is not installed; the
    message says what needs it (``doing``, e.g. "building a factory model")."""
    for framework in dict.fromkeys(frameworks):
        missing = None
        if framework is Framework.TORCH and importlib.util.find_spec("torch") is None:
            missing = "torch"
        if framework is Framework.KERAS and (
            importlib.util.find_spec("keras") is None
            or importlib.util.find_spec("tensorflow") is None
        ):
            missing = "keras"
        if missing is not None:
            raise BackendUnavailable(missing, missing,
                                     f"{doing} with {missing} requires the {missing} package: "
                                     + install_hint(missing))


def build(model: Model) -> list[int]:
    """The real parameter count of each of ``model``'s layers."""
    if model.framework is Framework.TORCH:
        return torch_counts(model)
    return keras_counts(model)


# ------------------------------------------------------------------------------------ PyTorch


def torch_module(layer: Layer) -> Any:
    """The torch module of one configured layer (call on the meta device)."""
    from torch import nn

    if layer.kind == "embedding":
        o = layer.options
        return nn.Embedding(o["vocab"], o["dim"], padding_idx=o["padding_idx"])
    if layer.spec is not None:
        return _torch_recurrent(layer.spec)
    if layer.kind in ("linear", "dense"):
        assert layer.input_width is not None
        return nn.Linear(layer.input_width, layer.options["out"], bias=layer.options["bias"])
    if layer.kind == "layer_norm":
        return nn.LayerNorm(layer.input_width, bias=layer.options["bias"])
    if layer.kind == "attention":
        return nn.Sequential(*(torch_module(child) for child in layer.children))
    if layer.kind == "dropout":
        return nn.Dropout(layer.options["rate"])
    if layer.kind in ("pool", "params", "repeat_vector"):
        return nn.Identity()
    frames = _torch_frames(layer)
    if frames is not None:
        return frames
    function = layer.options["function"]
    if function == "softmax":
        return nn.Softmax(dim=-1)
    activations: dict[str, Any] = {
        "relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "gelu": nn.GELU,
        "elu": nn.ELU, "leaky_relu": nn.LeakyReLU, "silu": nn.SiLU,
    }
    return activations[function]()


def _torch_frames(layer: Layer) -> Any:
    """The torch module of a convolution, BatchNorm, pooling, flatten, reshape or upsampling."""
    from torch import nn

    o = layer.options
    kind = layer.kind
    if kind.startswith("conv") and kind != "convlstm":
        cls = getattr(nn, f"Conv{o['rank']}d")
        return cls(layer.input_width, o["filters"], o["kernel"], stride=o["strides"],
                   padding=o["padding"], dilation=o["dilation"], groups=o["groups"],
                   bias=o["bias"])
    if kind == "batch_norm":
        return getattr(nn, f"BatchNorm{o['rank']}d")(layer.input_width, affine=o["scale"])
    if kind in ("max_pool", "avg_pool"):
        name = "MaxPool" if kind == "max_pool" else "AvgPool"
        return getattr(nn, f"{name}{o['rank']}d")(o["size"], stride=o["strides"],
                                                  padding=o["padding"])
    if kind in ("global_max_pool", "global_avg_pool"):
        name = "AdaptiveMaxPool" if kind == "global_max_pool" else "AdaptiveAvgPool"
        return nn.Sequential(getattr(nn, f"{name}{o['rank']}d")(1), nn.Flatten())
    if kind == "flatten":
        return nn.Flatten()
    if kind == "reshape":
        return nn.Unflatten(1, o["shape"])
    if kind == "upsampling":
        return nn.Upsample(scale_factor=o["size"])
    return None


def _torch_recurrent(spec: LayerSpec) -> Any:
    from torch import nn

    if spec.single_cell:
        cls = {Cell.LSTM: nn.LSTMCell, Cell.GRU: nn.GRUCell, Cell.RNN: nn.RNNCell}[spec.cell]
        if spec.cell is Cell.RNN:
            activation = spec.nonlinearity.value if spec.nonlinearity else "tanh"
            return cls(spec.input_size, spec.hidden_size, bias=spec.bias,
                       nonlinearity=activation)
        return cls(spec.input_size, spec.hidden_size, bias=spec.bias)
    kwargs: dict[str, Any] = {"num_layers": spec.num_layers, "bias": spec.bias,
                              "batch_first": True, "bidirectional": spec.bidirectional}
    if spec.cell is Cell.LSTM:
        return nn.LSTM(spec.input_size, spec.hidden_size, proj_size=spec.proj_size, **kwargs)
    if spec.cell is Cell.GRU:
        return nn.GRU(spec.input_size, spec.hidden_size, **kwargs)
    activation = spec.nonlinearity.value if spec.nonlinearity else "tanh"
    return nn.RNN(spec.input_size, spec.hidden_size, nonlinearity=activation, **kwargs)


def torch_counts(model: Model) -> list[int]:
    """Build every layer of ``model`` as torch modules on the meta device and count them."""
    import torch
    from torch import nn

    with torch.device("meta"):
        modules = nn.ModuleList(torch_module(layer) for layer in model.layers)
    counts = [layer.params if layer.kind == "params" else  # a stated count has no module
              sum(p.numel() for p in module.parameters())
              for layer, module in zip(model.layers, modules, strict=True)]
    stated = sum(layer.params for layer in model.layers if layer.kind == "params")
    assert sum(counts) == sum(p.numel() for p in modules.parameters()) + stated
    return counts


# -------------------------------------------------------------------------------------- Keras


def _keras_recurrent(spec: LayerSpec, return_sequences: bool) -> list[Any]:
    """The Keras layers of a (possibly stacked, bidirectional) recurrent spec, in order."""
    import keras

    cls = {Cell.LSTM: keras.layers.LSTM, Cell.GRU: keras.layers.GRU,
           Cell.RNN: keras.layers.SimpleRNN}[spec.cell]
    options: dict[str, Any] = {"use_bias": spec.bias}
    if spec.cell is Cell.GRU:
        options["reset_after"] = bool(spec.reset_after)
    if spec.cell is Cell.RNN and spec.nonlinearity is not None:
        options["activation"] = spec.nonlinearity.value
    if spec.single_cell:
        cell_cls = {Cell.LSTM: keras.layers.LSTMCell, Cell.GRU: keras.layers.GRUCell,
                    Cell.RNN: keras.layers.SimpleRNNCell}[spec.cell]
        return [keras.layers.RNN(cell_cls(spec.hidden_size, **options),
                                 return_sequences=return_sequences)]
    layers = []
    for n in range(spec.num_layers):
        sequences = return_sequences if n == spec.num_layers - 1 else True
        layer = cls(spec.hidden_size, return_sequences=sequences, **options)
        if spec.bidirectional:
            assert spec.merge_modes is not None
            mode = spec.merge_modes[n]
            layer = keras.layers.Bidirectional(
                layer, merge_mode=None if mode is MergeMode.NONE else mode.value)
        layers.append(layer)
    return layers


def _keras_apply(layer: Layer, x: Any) -> tuple[Any, int]:
    """Apply one configured layer to the functional tensor ``x``: (output, parameters)."""
    import keras

    def run(objects: list[Any], x: Any) -> tuple[Any, int]:
        for obj in objects:
            x = obj(x)
        return x, sum(obj.count_params() for obj in objects)

    o = layer.options
    if layer.kind == "embedding":
        return run([keras.layers.Embedding(o["vocab"], o["dim"], mask_zero=o["mask_zero"])], x)
    if layer.spec is not None:
        return run(_keras_recurrent(layer.spec, o["return_sequences"]), x)
    if layer.kind in ("linear", "dense", "time_distributed"):
        dense = keras.layers.Dense(o["out"], activation=o["activation"], use_bias=o["bias"])
        if layer.kind == "time_distributed":
            dense = keras.layers.TimeDistributed(dense)
        return run([dense], x)
    if layer.kind == "layer_norm":
        return run([keras.layers.LayerNormalization(center=o["bias"])], x)
    if layer.kind == "attention":
        scores = x
        total = 0
        for child in layer.children:
            scores, count = _keras_apply(child, scores)
            total += count
        weights = keras.layers.Softmax(axis=1)(scores)
        return keras.ops.sum(x * weights, axis=1), total
    if layer.kind == "pool":
        pooled = []
        for mode in o["modes"]:
            if mode == "max":
                pooled.append(keras.layers.GlobalMaxPooling1D()(x))
            elif mode == "mean":
                pooled.append(keras.layers.GlobalAveragePooling1D()(x))
            else:
                pooled.append(x[:, -1 if mode == "last" else 0, :])
        return (pooled[0] if len(pooled) == 1 else keras.layers.Concatenate()(pooled)), 0
    if layer.kind == "dropout":
        return run([keras.layers.Dropout(o["rate"])], x)
    if layer.kind == "params":
        return x, layer.params  # a stated count: nothing to build
    frames = _keras_frames(layer)
    if frames is not None:
        return run(frames, x)
    return run([keras.layers.Activation(o["function"])], x)


def _keras_frames(layer: Layer) -> list[Any] | None:
    """The Keras layers of a convolution, ConvLSTM, BatchNorm, pooling, flatten, reshape,
    upsampling or RepeatVector."""
    import keras

    o = layer.options
    kind = layer.kind
    L = keras.layers
    if kind == "convlstm":
        out = []
        for n in range(o["layers"]):
            sequences = o["return_sequences"] if n == o["layers"] - 1 else True
            cell = getattr(L, f"ConvLSTM{o['rank']}D")(
                o["filters"], o["kernel"], padding=o["padding"], use_bias=o["bias"],
                return_sequences=sequences)
            out.append(L.Bidirectional(cell) if o["bidirectional"] else cell)
        return out
    if kind.startswith("conv"):
        return [getattr(L, f"Conv{o['rank']}D")(
            o["filters"], o["kernel"], strides=o["strides"], padding=o["padding"],
            dilation_rate=o["dilation"], activation=o["activation"], use_bias=o["bias"])]
    if kind == "batch_norm":
        return [L.BatchNormalization(center=o["bias"], scale=o["scale"])]
    if kind in ("max_pool", "avg_pool"):
        name = "MaxPooling" if kind == "max_pool" else "AveragePooling"
        return [getattr(L, f"{name}{o['rank']}D")(o["size"], strides=o["strides"],
                                                  padding=o["padding"])]
    if kind in ("global_max_pool", "global_avg_pool"):
        name = "GlobalMaxPooling" if kind == "global_max_pool" else "GlobalAveragePooling"
        return [getattr(L, f"{name}{o['rank']}D")()]
    if kind == "flatten":
        return [L.Flatten()]
    if kind == "reshape":
        return [L.Reshape(o["shape"])]
    if kind == "upsampling":
        size = o["size"][0] if o["rank"] == 1 else o["size"]
        return [getattr(L, f"UpSampling{o['rank']}D")(size)]
    if kind == "repeat_vector":
        return [L.RepeatVector(o["n"])]
    return None


def keras_counts(model: Model) -> list[int]:
    """Build ``model`` as a functional Keras model without allocating weights and count it."""
    quiet.install()  # no TensorFlow banners on stderr
    import keras

    keras.backend.clear_session()
    with keras.StatelessScope(initialize_variables=False):
        first = model.layers[0]
        if first.kind == "embedding":
            inputs = keras.Input(shape=(None,), dtype="int32")
        elif model.input_frame:
            sample = (*model.input_frame, model.input_width)
            inputs = keras.Input(shape=sample)  # a convlstm's: time first, None if unknown
        else:
            inputs = keras.Input(shape=(None, model.input_width or first.input_width))
        outputs: list[Any] = []
        counts = []
        x = inputs
        for layer in model.layers:
            source = outputs[layer.reads] if layer.reads is not None else x
            x, count = _keras_apply(layer, source)
            outputs.append(x)
            counts.append(count)
        built = keras.Model(inputs, outputs)
        stated = sum(layer.params for layer in model.layers if layer.kind == "params")
        assert built.count_params() + stated == sum(counts), (built.count_params(), counts)
    return counts
