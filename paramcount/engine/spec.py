"""What a recurrent layer is: cells, frameworks, dtypes and the validated LayerSpec."""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Any, TypeVar

from paramcount.errors import SpecError
from paramcount.record import record, replace


class Cell(StrEnum):
    """The recurrent cell type."""

    RNN = "rnn"
    LSTM = "lstm"
    GRU = "gru"

    @property
    def gates(self) -> int:
        """How many gate blocks of H rows the cell's weights stack: RNN 1, GRU 3, LSTM 4."""
        return {Cell.RNN: 1, Cell.GRU: 3, Cell.LSTM: 4}[self]


class Framework(StrEnum):
    """A framework whose naming and layout conventions paramcount reproduces."""

    TORCH = "torch"
    KERAS = "keras"
    ONNX = "onnx"
    FLAX_LINEN = "flax-linen"
    FLAX_NNX = "flax-nnx"
    TF1 = "tf1"
    """TensorFlow 1's ``tf.compat.v1.nn.rnn_cell`` cells (LSTMCell with peepholes, num_proj)."""
    TF1_CUDNN = "tf1-cudnn"
    """TensorFlow 1's / Keras 2's ``CuDNNLSTM`` and ``CuDNNGRU`` layers (double biases)."""

    @property
    def display_name(self) -> str:
        """The framework's display name: PyTorch, Keras, ONNX, Flax linen, ..."""
        return _DISPLAY_NAMES[self]

    @property
    def legacy(self) -> bool:
        """Whether this is a retired API, shown only when asked for by name (not by ``all``)."""
        return self in (Framework.TF1, Framework.TF1_CUDNN)

    @classmethod
    def current(cls) -> tuple[Framework, ...]:
        """The frameworks ``--framework all`` shows: every one that is not legacy."""
        return tuple(f for f in cls if not f.legacy)


_DISPLAY_NAMES = {
    Framework.TORCH: "PyTorch",
    Framework.KERAS: "Keras",
    Framework.ONNX: "ONNX",
    Framework.FLAX_LINEN: "Flax linen",
    Framework.FLAX_NNX: "Flax NNX",
    Framework.TF1: "TensorFlow 1",
    Framework.TF1_CUDNN: "TF1 CuDNN",
}


class MergeMode(StrEnum):
    """How Keras' Bidirectional combines the two directions' outputs."""

    CONCAT = "concat"
    SUM = "sum"
    MUL = "mul"
    AVE = "ave"
    NONE = "none"

    @property
    def width_factor(self) -> int:
        """How many H-wide outputs the next layer reads: 2 after concat, 1 otherwise."""
        return 2 if self is MergeMode.CONCAT else 1


class Nonlinearity(StrEnum):
    """The activation of a plain RNN."""

    TANH = "tanh"
    RELU = "relu"


class DType(StrEnum):
    """A storage type for parameters."""

    FP16 = "fp16"
    BF16 = "bf16"
    FP32 = "fp32"
    FP64 = "fp64"
    INT8 = "int8"

    @property
    def bytes(self) -> int:
        """Bytes per element."""
        return {"fp16": 2, "bf16": 2, "fp32": 4, "fp64": 8, "int8": 1}[self.value]


MAX_LAYERS = 10_000
"""The deepest stack paramcount lists tensor by tensor (real stacks have a handful of layers)."""


def check_layers(value: object) -> None:
    """num_layers must be a whole number from 1 to MAX_LAYERS."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        positive("num_layers", value)
    assert isinstance(value, int)
    if value > MAX_LAYERS:
        raise SpecError(
            "{num_layers} is more layers than paramcount lists tensor by tensor "
            f"(at most {MAX_LAYERS:,})",
            num_layers=value,
        )


def _flag(field: str, value: object, optional: bool = False) -> None:
    if not (isinstance(value, bool) or (optional and value is None)):
        allowed = "True, False or None" if optional else "True or False"
        raise SpecError("{" + field + "} must be " + allowed, **{field: value})


MAX_SIZE = 2**63 - 1
"""The largest size or count accepted anywhere: what the frameworks' int64 sizes can hold."""

MAX_SIZE_TEXT = f"at most {MAX_SIZE:,} (2^63 - 1, the most a framework's int64 sizes hold)"
"""The rule, as error messages state it."""


def positive(field: str, value: object) -> None:
    """``value`` must be a whole number from 1 to :data:`MAX_SIZE`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError("{" + field + "} must be a whole number", **{field: value})
    if value <= 0:
        raise SpecError("{" + field + "} must be a positive integer", **{field: value})
    at_most(field, value)


def at_most(field: str, value: int) -> None:
    """``value`` must not exceed :data:`MAX_SIZE` (2^63 - 1)."""
    if value > MAX_SIZE:
        raise SpecError(
            "{" + field + "} is too large: " + MAX_SIZE_TEXT,
            **{field: value},
        )


@record
class LayerSpec:
    """One recurrent layer stack (or single-step cell) in one framework's convention.

    Construction validates the configuration the way the framework itself would, and raises
    :class:`SpecError` for anything it would refuse.

    >>> LayerSpec(Cell.LSTM, 32, 128, num_layers=2, bidirectional=True).directions
    2
    >>> LayerSpec(Cell.GRU, 10, 20, proj_size=5)
    Traceback (most recent call last):
    ...
    paramcount.errors.SpecError: proj_size=5 applies only to LSTM (nn.GRU has no proj_size)
    """

    cell: Cell
    input_size: int
    hidden_size: int
    num_layers: int = 1
    bidirectional: bool = False
    bias: bool = True
    proj_size: int = 0
    framework: Framework = Framework.TORCH
    merge_modes: tuple[MergeMode, ...] | None = None
    """Keras Bidirectional merge mode per layer; one value applies to every layer."""
    reset_after: bool | None = None
    """Keras GRU's reset_after; None means the framework default."""
    nonlinearity: Nonlinearity | None = None
    """RNN only; None means tanh."""
    single_cell: bool = False
    """The single-step cell class (nn.LSTMCell, keras.layers.LSTMCell) instead of the layer."""
    peepholes: bool = False
    """LSTM peephole weights: ONNX's P input, tf1 LSTMCell's use_peepholes."""

    def __post_init__(self) -> None:
        for enum_type, field in (
            (Cell, "cell"),
            (Framework, "framework"),
        ):
            value = getattr(self, field)
            if not isinstance(value, enum_type):
                object.__setattr__(self, field, coerce(enum_type, field, value))
        if self.nonlinearity is not None and not isinstance(self.nonlinearity, Nonlinearity):
            object.__setattr__(
                self, "nonlinearity", coerce(Nonlinearity, "nonlinearity", self.nonlinearity)
            )
        if self.merge_modes is not None:
            modes = self.merge_modes
            if isinstance(modes, (str, MergeMode)):
                modes = (modes,)
            if not isinstance(modes, (tuple, list)):
                raise SpecError(
                    "{merge_modes} must be a merge mode or a sequence of them",
                    merge_modes=modes,
                )
            object.__setattr__(
                self,
                "merge_modes",
                tuple(coerce(MergeMode, "merge_modes", m) for m in modes),
            )
        _validate(self)
        if self.framework not in _MERGING:
            # "concat", stated explicitly, is what every other framework always does.
            object.__setattr__(self, "merge_modes", None)
        elif self.bidirectional:
            modes = self.merge_modes or (MergeMode.CONCAT,)
            if len(modes) == 1:
                modes = modes * self.num_layers
            object.__setattr__(self, "merge_modes", modes)
        if self.framework is Framework.KERAS and self.cell is Cell.GRU and self.reset_after is None:
            object.__setattr__(self, "reset_after", True)

    @property
    def directions(self) -> int:
        """D: 2 when bidirectional, else 1."""
        return 2 if self.bidirectional else 1

    @property
    def gate_rows(self) -> int:
        """G·H: the rows of every weight matrix that feeds the gates."""
        return self.cell.gates * self.hidden_size

    @property
    def output_size(self) -> int:
        """Hr: the width of each direction's output, proj_size when projecting, else H."""
        return self.proj_size or self.hidden_size

    def replace(self, **changes: Any) -> LayerSpec:
        """A copy with some fields changed (and validated again).

        A Keras stack whose layers all merge alike keeps doing so at another depth:

        >>> LayerSpec(Cell.LSTM, 3, 4, num_layers=3, bidirectional=True,
        ...           framework=Framework.KERAS).replace(num_layers=2).merge_modes
        (<MergeMode.CONCAT: 'concat'>, <MergeMode.CONCAT: 'concat'>)
        """
        modes = self.merge_modes
        if ("num_layers" in changes and "merge_modes" not in changes and modes
                and len(set(modes)) == 1):
            changes["merge_modes"] = modes[:1]
        return replace(self, **changes)


E = TypeVar("E", bound=Enum)


def coerce(enum_type: type[E], field: str, value: object) -> E:
    """``value`` as a member of ``enum_type``, or a SpecError listing the choices."""
    if isinstance(value, enum_type):
        return value
    try:
        return enum_type(value)
    except ValueError:
        choices = ", ".join(str(m.value) for m in enum_type)
        raise SpecError("{" + field + "} is not one of: " + choices, **{field: value}) from None


def _validate(spec: LayerSpec) -> None:
    """Raise SpecError for any configuration the framework would refuse."""
    positive("input_size", spec.input_size)
    positive("hidden_size", spec.hidden_size)
    check_layers(spec.num_layers)
    for field in ("bidirectional", "bias", "single_cell", "peepholes"):
        _flag(field, getattr(spec, field))
    _flag("reset_after", spec.reset_after, optional=True)
    torch = spec.framework is Framework.TORCH
    layer_class = _class_name(spec)

    if spec.single_cell:
        if spec.num_layers != 1:
            raise SpecError(
                "{num_layers} does not apply to a single-step cell ({single_cell})",
                num_layers=spec.num_layers,
                single_cell=True,
            )
        if spec.bidirectional:
            raise SpecError(
                "{bidirectional} does not apply to a single-step cell ({single_cell})",
                bidirectional=True,
                single_cell=True,
            )

    if isinstance(spec.proj_size, bool) or not isinstance(spec.proj_size, int):
        raise SpecError("{proj_size} must be a whole number", proj_size=spec.proj_size)
    if spec.proj_size < 0:
        raise SpecError("{proj_size} must be 0 (no projection) or more",
                        proj_size=spec.proj_size)
    at_most("proj_size", spec.proj_size)
    if spec.proj_size:
        if spec.framework not in (Framework.TORCH, Framework.TF1):
            raise SpecError(
                "{proj_size} is a PyTorch option (and tf1's num_proj): "
                + _NO_PROJECTION[spec.framework],
                proj_size=spec.proj_size,
            )
        option = "proj_size" if torch else "num_proj"
        if spec.cell is not Cell.LSTM:
            raise SpecError(
                "{proj_size} applies only to LSTM (" + layer_class + f" has no {option})",
                proj_size=spec.proj_size,
            )
        if torch and spec.single_cell:
            raise SpecError(
                "{proj_size} does not apply to a single-step cell (nn.LSTMCell has no "
                "proj_size)",
                proj_size=spec.proj_size,
            )
        if torch and spec.proj_size >= spec.hidden_size:
            raise SpecError(
                "{proj_size} must be smaller than {hidden_size} "
                "(torch requires proj_size < hidden_size)",
                proj_size=spec.proj_size,
                hidden_size=spec.hidden_size,
            )

    if spec.merge_modes is not None:
        if spec.framework not in _MERGING and set(spec.merge_modes) != {MergeMode.CONCAT}:
            raise SpecError(
                "{merge_modes} is a Keras Bidirectional option: "
                + spec.framework.display_name
                + " always concatenates both directions",
                merge_modes=_modes_text(spec.merge_modes),
            )
        if not spec.bidirectional:
            raise SpecError(
                "{merge_modes} needs {bidirectional}",
                merge_modes=_modes_text(spec.merge_modes),
                bidirectional=True,
            )
        if len(spec.merge_modes) not in (1, spec.num_layers):
            raise SpecError(
                f"{{merge_modes}} lists {len(spec.merge_modes)} modes for {{num_layers}} "
                "(give one, or one per layer)",
                merge_modes=_modes_text(spec.merge_modes),
                num_layers=spec.num_layers,
            )
        if MergeMode.NONE in spec.merge_modes[:-1] or (
            len(spec.merge_modes) == 1 and spec.num_layers > 1
            and spec.merge_modes[0] is MergeMode.NONE
        ):
            raise SpecError(
                "{merge_modes} uses 'none' before the last layer: merge_mode=None returns two "
                "tensors, and the next recurrent layer accepts one",
                merge_modes=_modes_text(spec.merge_modes),
            )

    if spec.reset_after is not None:
        if spec.cell is not Cell.GRU:
            raise SpecError(
                "{reset_after} applies only to GRU", reset_after=spec.reset_after
            )
        if torch and not spec.reset_after:
            raise SpecError(
                "{reset_after} is a Keras GRU option: nn.GRU always applies the reset gate "
                "after the recurrent matmul (two biases)",
                reset_after=spec.reset_after,
            )
        if spec.framework not in (Framework.TORCH, Framework.KERAS):
            raise SpecError(
                "{reset_after} is a Keras GRU option: " + layer_class + " has one fixed bias "
                "layout",
                reset_after=spec.reset_after,
            )

    if spec.nonlinearity is not None and spec.cell is not Cell.RNN:
        raise SpecError(
            "{nonlinearity} applies only to RNN", nonlinearity=spec.nonlinearity.value
        )
    _validate_other_frameworks(spec, layer_class)


# Frameworks whose Bidirectional wrapper takes a merge mode (both are Keras layers).
_MERGING = frozenset({Framework.KERAS, Framework.TF1_CUDNN})

_NO_PROJECTION = {
    Framework.KERAS: "Keras recurrent layers have no projection",
    Framework.ONNX: "the ONNX LSTM operator has no projection (torch.onnx.export refuses "
    "proj_size)",
    Framework.FLAX_LINEN: "Flax recurrent cells have no projection",
    Framework.FLAX_NNX: "Flax recurrent cells have no projection",
    Framework.TF1_CUDNN: "CuDNNLSTM has no projection",
}


def _validate_other_frameworks(spec: LayerSpec, layer_class: str) -> None:
    """The rules of ONNX, Flax and the TF1 layers: peepholes, biases, cells they lack."""
    framework = spec.framework
    if framework is Framework.TF1_CUDNN and spec.cell is Cell.RNN:
        raise SpecError(
            "{cell} has no CuDNN layer in TF1: there are only CuDNNLSTM and CuDNNGRU",
            cell=spec.cell.value,
        )
    if not isinstance(spec.peepholes, bool):
        raise SpecError("{peepholes} must be True or False", peepholes=spec.peepholes)
    if spec.peepholes:
        if spec.cell is not Cell.LSTM:
            raise SpecError("{peepholes} applies only to LSTM", peepholes=True)
        if framework not in (Framework.ONNX, Framework.TF1):
            raise SpecError(
                "{peepholes} is an ONNX / tf1 LSTMCell option: " + layer_class
                + " has no peephole weights",
                peepholes=True,
            )
    if not spec.bias and framework in _ALWAYS_BIASED:
        raise SpecError(
            "{bias}: " + _ALWAYS_BIASED[framework] + " always have biases (no use_bias option)",
            bias=False,
        )
    if spec.single_cell and framework is Framework.ONNX:
        raise SpecError(
            "{single_cell} does not apply to ONNX: one operator node runs the whole sequence",
            single_cell=True,
        )
    if spec.single_cell and framework is Framework.TF1_CUDNN:
        raise SpecError(
            "{single_cell} does not apply to CuDNNLSTM / CuDNNGRU: they have no cell class",
            single_cell=True,
        )


_ALWAYS_BIASED = {
    Framework.FLAX_LINEN: "Flax's recurrent cells",
    Framework.FLAX_NNX: "Flax's recurrent cells",
    Framework.TF1: "tf.compat.v1 rnn_cell cells",
    Framework.TF1_CUDNN: "CuDNNLSTM and CuDNNGRU",
}


def _modes_text(modes: tuple[MergeMode, ...]) -> str:
    return ",".join(m.value for m in modes)


def _class_name(spec: LayerSpec) -> str:
    """The framework class that builds this spec, e.g. ``nn.GRU`` or ``keras.layers.LSTM``."""
    base = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}[spec.cell]
    flax_cell = {Cell.RNN: "SimpleCell", Cell.LSTM: "LSTMCell", Cell.GRU: "GRUCell"}[spec.cell]
    if spec.framework is Framework.TORCH:
        return f"nn.{base}Cell" if spec.single_cell else f"nn.{base}"
    if spec.framework is Framework.ONNX:
        return f"the ONNX {base} operator"
    if spec.framework is Framework.FLAX_LINEN:
        return f"nn.{flax_cell}"
    if spec.framework is Framework.FLAX_NNX:
        return f"nnx.{flax_cell}"
    if spec.framework is Framework.TF1:
        tf1_cell = "BasicRNNCell" if spec.cell is Cell.RNN else f"{base}Cell"
        return f"tf.compat.v1.nn.rnn_cell.{tf1_cell}"
    if spec.framework is Framework.TF1_CUDNN:
        return f"CuDNN{base}"
    base = {Cell.RNN: "SimpleRNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}[spec.cell]
    return f"keras.layers.{base}Cell" if spec.single_cell else f"keras.layers.{base}"
