"""Training memory of a layer's parameters: weights, gradients and optimizer state.

Pure. What is counted (formulas.md derives it): the parameters in their dtype, one gradient per
parameter in the same dtype, the optimizer's per-parameter buffers (momentum: one; Adam and
AdamW: two moments), the optimizer's scalars (torch Adam/AdamW: a float32 ``step`` per parameter
tensor; Keras: the optimizer's int64 ``iteration`` and float32 ``learning_rate``), and with
mixed precision an fp32 master copy of the weights on which the optimizer works, its state
then fp32 too. Activations are not counted: they depend on the batch, not on the layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from paramcount.engine import conventions
from paramcount.engine.spec import DType, Framework, LayerSpec, coerce
from paramcount.errors import SpecError


class Optimizer(StrEnum):
    """An optimizer, by the per-parameter state it keeps."""

    SGD = "sgd"
    MOMENTUM = "momentum"
    ADAM = "adam"
    ADAMW = "adamw"

    @property
    def buffers(self) -> int:
        """Per-parameter state buffers: SGD 0, momentum 1, Adam and AdamW 2 (two moments)."""
        return {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2}[self.value]

    @property
    def buffer_names(self) -> str:
        """What the buffers are called."""
        return {
            "sgd": "",
            "momentum": "momentum buffer",
            "adam": "exp_avg + exp_avg_sq (first and second moments)",
            "adamw": "exp_avg + exp_avg_sq (first and second moments)",
        }[self.value]


@dataclass(frozen=True)
class MemoryLine:
    """One kind of memory: how many values of which type, and what they are."""

    name: str
    values: int
    type_name: str
    """fp16, bf16, fp32, fp64 or int64."""
    element_bytes: int
    note: str

    @property
    def bytes(self) -> int:
        """values × the size of one value."""
        return self.values * self.element_bytes


def _line(name: str, values: int, dtype: DType, note: str) -> MemoryLine:
    return MemoryLine(name, values, dtype.value, dtype.bytes, note)


@dataclass(frozen=True)
class CudnnSlots:
    """The zeroed bias slots of cuDNN's flat weight buffer for a torch layer with bias=False."""

    values: int
    """2·G·H·D·L: the bias_ih and bias_hh that cuDNN's layout keeps even without biases."""
    dtype: DType

    @property
    def bytes(self) -> int:
        """values × the dtype's size."""
        return self.values * self.dtype.bytes


@dataclass(frozen=True)
class Memory:
    """Training memory of one layer stack's parameters."""

    parameters: int
    tensors: int
    dtype: DType
    optimizer: Optimizer
    mixed_precision: bool
    lines: tuple[MemoryLine, ...]
    cudnn: CudnnSlots | None
    """Set for torch layers with bias=False: extra memory on CUDA, not in the count."""

    @property
    def bytes(self) -> int:
        """The sum of the lines."""
        return sum(line.bytes for line in self.lines)


def cudnn_bias_slots(spec: LayerSpec, dtype: DType = DType.FP32) -> CudnnSlots | None:
    """The bias slots cuDNN's flat weight buffer keeps for a torch layer without biases.

    >>> from paramcount.engine.spec import Cell, LayerSpec
    >>> cudnn_bias_slots(LayerSpec(Cell.LSTM, 32, 128, num_layers=2, bias=False)).values
    2048
    """
    if spec.framework is not Framework.TORCH or spec.bias or spec.single_cell:
        return None
    values = 2 * spec.gate_rows * spec.directions * spec.num_layers
    return CudnnSlots(values, dtype)


def training_memory(
    spec: LayerSpec,
    optimizer: Optimizer | str,
    dtype: DType | str = DType.FP32,
    mixed_precision: bool = False,
) -> Memory:
    """Parameters, gradients and optimizer state of ``spec`` trained with ``optimizer``.

    >>> from paramcount.engine.spec import Cell, LayerSpec
    >>> spec = LayerSpec(Cell.LSTM, 32, 128, num_layers=2, bidirectional=True)
    >>> training_memory(spec, "adam", "bf16", mixed_precision=True).bytes // 561152
    16
    """
    optimizer = coerce(Optimizer, "optimizer", optimizer)
    dtype = coerce(DType, "dtype", dtype)
    if dtype is DType.INT8:
        raise SpecError(
            "{dtype} weights are not trained by gradient descent: count training memory "
            "with fp16, bf16, fp32 or fp64",
            dtype=dtype.value,
        )
    if mixed_precision and dtype not in (DType.FP16, DType.BF16):
        raise SpecError(
            "{dtype} cannot be the low-precision copy of {mixed_precision} (fp32 master "
            "weights beside fp16 or bf16 ones): use fp16 or bf16",
            mixed_precision=True,
            dtype=dtype.value,
        )
    tensor_list = conventions.tensors(spec)
    parameters = sum(t.count for t in tensor_list)
    state = DType.FP32 if mixed_precision else dtype
    lines = [
        _line("parameters", parameters, dtype, "the weights"),
        _line("gradients", parameters, dtype, "one per parameter, in the parameters' dtype"),
    ]
    if mixed_precision:
        lines.append(_line(
            "master weights", parameters, DType.FP32,
            "fp32 copy that the optimizer updates and casts back to the weights",
        ))
    if optimizer.buffers:
        where = "on the fp32 master weights" if mixed_precision else "in the parameters' dtype"
        lines.append(_line(
            "optimizer state", optimizer.buffers * parameters, state,
            f"{optimizer.buffer_names}, {where}",
        ))
    if spec.framework is Framework.TORCH:
        if optimizer in (Optimizer.ADAM, Optimizer.ADAMW):
            lines.append(_line(
                "step counters", len(tensor_list), DType.FP32,
                "torch Adam/AdamW: a float32 step scalar per parameter tensor",
            ))
    elif spec.framework is Framework.KERAS:
        lines.append(MemoryLine("iteration", 1, "int64", 8, "the Keras optimizer's step count"))
        lines.append(_line("learning_rate", 1, DType.FP32, "the Keras optimizer's variable"))
    return Memory(
        parameters=parameters,
        tensors=len(tensor_list),
        dtype=dtype,
        optimizer=optimizer,
        mixed_precision=mixed_precision,
        lines=tuple(lines),
        cudnn=cudnn_bias_slots(spec, dtype),
    )
