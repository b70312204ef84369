"""The config's vocabulary (layer kinds and their keys) and the validated records: Layer,
Model, Config."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from paramcount.checking.frames import Frame
from paramcount.checking.locate import Path
from paramcount.checking.source import Source
from paramcount.engine.spec import Cell, DType, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.record import record

RECURRENT = {"lstm": Cell.LSTM, "gru": Cell.GRU, "rnn": Cell.RNN}
ACTIVATIONS = ("relu", "tanh", "sigmoid", "gelu", "softmax", "elu", "leaky_relu", "silu")
FUNCTIONS = (*ACTIVATIONS, "linear")
"""What ``activation`` may name: every activation layer kind, and Keras' ``linear`` (none)."""
CONVS = {"conv1d": 1, "conv2d": 2, "conv3d": 3}
POOLS = ("max_pool", "avg_pool")
GLOBAL_POOLS = ("global_max_pool", "global_avg_pool")
_CONV_KEYS = ("filters", "out", "kernel", "strides", "padding", "dilation", "bias", "groups",
              "activation", "input")
POOL_MODES = ("last", "first", "max", "mean")

COMMON_KEYS = ("kind", "name", "from", "params")
KIND_KEYS: dict[str, tuple[str, ...]] = {
    **{
        kind: ("hidden", "units", "layers", "bidirectional", "bias", "proj", "merge_mode",
               "reset_after", "nonlinearity", "cell", "input", "return_sequences")
        for kind in RECURRENT
    },
    "embedding": ("vocab", "dim", "padding_idx", "mask_zero"),
    "linear": ("out", "units", "bias", "input", "activation"),
    "dense": ("out", "units", "bias", "input", "activation"),
    "time_distributed": ("out", "units", "bias", "input", "activation"),
    "layer_norm": ("bias", "input"),
    "dropout": ("rate",),
    "activation": ("function",),
    **{name: () for name in ACTIVATIONS},
    "pool": ("mode",),
    "attention": ("layers",),
    **{kind: _CONV_KEYS for kind in CONVS},
    "convlstm": ("filters", "kernel", "layers", "bidirectional", "bias", "padding",
                 "return_sequences", "input", "rank"),
    "batch_norm": ("scale", "bias", "input"),
    **{kind: ("size", "strides", "padding") for kind in POOLS},
    **{kind: () for kind in GLOBAL_POOLS},
    "flatten": (),
    "reshape": ("shape",),
    "upsampling": ("size",),
    "repeat_vector": ("n",),
    "params": ("count", "out"),
}
KINDS = tuple(KIND_KEYS)
MODEL_KEYS = ("framework", "input", "layers", "factory", "kwargs", "file", "family", "config",
              "total", "max_params", "max_bytes", "dtype", "description", "modules")
SOURCES = ("layers", "factory", "file", "family")
"""The ways to say what a model is: hand-written layers, the project's code, a file (or model
folder), or a modern recurrent family with its reference configuration."""
MAX_SIZE = 2**63 - 1
"""The largest size or count a config may state: what the frameworks' int64 sizes hold."""
TOP_KEYS = ("models", "framework", "dtype")
# Hand-written layers may use every convention the counting commands know; factories and
# --verify build PyTorch and Keras models only.
_FRAMEWORKS = tuple(f.value for f in Framework)
BUILDERS = (Framework.TORCH, Framework.KERAS)
"""The frameworks whose whole models are built here (factories, --verify)."""
_ANY_FRAMEWORK = (*RECURRENT, "params", "dropout", "activation", *ACTIVATIONS)
"""Layer kinds every convention has (recurrent layers counted by the engine, stated counts
and layers without parameters)."""
_DTYPES = tuple(d.value for d in DType)
_MERGE_MODES = tuple(m.value for m in MergeMode)
_NONLINEARITIES = tuple(n.value for n in Nonlinearity)


@record
class Layer:
    """One layer of a model, with its inferred widths and its parameter count."""

    index: int
    kind: str
    path: Path
    """Where the layer is declared (for messages)."""
    input_width: int | None
    """The width it reads; None for an embedding (token ids)."""
    output_width: int
    params: int
    description: str
    """The framework code that builds it, e.g. ``nn.Linear(256, 128)``."""
    name: str | None = None
    expected: int | None = None
    """The layer's ``params`` expectation, if the config states one."""
    spec: LayerSpec | None = None
    """The recurrent stack, for recurrent kinds."""
    options: Mapping[str, Any] = MappingProxyType({})
    """The validated kind-specific settings (vocab, out, bias, modes, return_sequences...)."""
    children: tuple[Layer, ...] = ()
    """An attention layer's scorer stack."""
    reads: int | None = None
    """The index of the layer it reads when ``from`` names one; None for the previous layer."""
    flat: str | None = None
    """None when its output still has a time axis; else which layer removed it and how."""
    frame: Frame = ()
    """The spatial sizes of its output beside the channels (``output_width``); () for vectors."""
    buffers: int = 0
    """Values torch keeps beside the parameters (BatchNorm's running statistics)."""
    non_trainable: int = 0
    """Of ``params``, those Keras does not train (BatchNormalization's moving statistics)."""

    @property
    def label(self) -> str:
        """``layers[2] (lstm)`` or ``layers[2] (encoder)``."""
        return f"layers[{self.index}] ({self.name or self.kind})"


@record
class Model:
    """A named model: its layers (or factory, or file), and its expectations."""

    name: str
    path: Path
    framework: Framework
    input_width: int | None
    layers: tuple[Layer, ...]
    dtype: DType
    total_expected: int | None = None
    max_params: int | None = None
    max_bytes: int | None = None
    description: str | None = None
    factory: str | None = None
    """``pkg.module:callable`` that returns the model."""
    kwargs: Mapping[str, Any] = MappingProxyType({})
    """Keyword arguments passed to the factory."""
    file: str | None = None
    """A model file, as written in the config (relative to the config's folder)."""
    modules_expected: Mapping[str, int] | None = None
    """The per-module counts recorded by ``--update`` (factory and file models)."""
    family: str | None = None
    """A modern recurrent family (``mamba``, ``rwkv``, …) whose ``config`` the model is."""
    family_config: Any = None
    """That family's config record, read from ``config`` as a ``config.json`` is read."""
    input_frame: Frame = ()
    """The spatial sizes of the input (``input = [28, 28, 1]``); () for vectors."""

    @property
    def kind(self) -> str:
        """``layers``, ``factory``, ``file`` or ``family``: how the model is described."""
        return ("factory" if self.factory else "file" if self.file else
                "family" if self.family else "layers")

    @property
    def total(self) -> int:
        """The number of parameters of every hand-written layer (0 for factory and file models,
        which are counted by ``paramcount.checking.measure``)."""
        return sum(layer.params for layer in self.layers)

    @property
    def bytes(self) -> int:
        """The hand-written layers' size in ``dtype``."""
        return self.total * self.dtype.bytes


@record
class Config:
    """A loaded config: its source and its models, in file order."""

    source: Source
    models: tuple[Model, ...]
