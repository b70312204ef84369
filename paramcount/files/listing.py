"""The plain description every reader produces: named, shaped tensors and what was noticed."""

from __future__ import annotations

import math
from typing import Any

from paramcount.engine.conventions.base import Recognised
from paramcount.record import field, record


@record
class NamedTensor:
    """One tensor as a file or a printout holds it.

    ``name`` is the framework's own name for it (a state-dict key, a Keras weight path such as
    ``lstm/lstm_cell/kernel``, an ONNX initializer); ``dtype`` uses numpy's spelling
    (``float32``, ``float16``, ``bfloat16``, ``int64``) or is None when the source does not say.
    """

    name: str
    shape: tuple[int, ...]
    dtype: str | None = None
    trainable: bool = True
    """False for what a framework stores beside its parameters: buffers such as BatchNorm's
    running statistics and ``num_batches_tracked``, Keras' non-trainable weights."""
    same_as: str | None = None
    """The name of an earlier tensor whose stored data this one is (tied weights that a
    checkpoint stores once under two names); None for a tensor of its own."""

    @property
    def count(self) -> int:
        """The number of elements: the product of the shape (1 for a scalar)."""
        return math.prod(self.shape)


@record
class Listing:
    """Everything one source holds, in the source's own order."""

    source: str
    """Where it came from: a path as the user wrote it, or ``<stdin>``."""
    format: str
    """What it was read as: ``safetensors``, ``torch``, ``onnx``, ``keras``, ``keras-h5``, ..."""
    tensors: tuple[NamedTensor, ...]
    notes: tuple[str, ...] = ()
    """What the reader noticed and the user should know (skipped optimizer state, a prefix)."""
    recognised: tuple[Recognised, ...] = ()
    """Recurrent layers the reader recognised from the format's own structure (an ONNX LSTM
    node's W, R and B inputs; a Keras config's layer classes), beyond what the tensor names
    and shapes say; ``paramcount.engine.conventions.recognise`` finds the rest."""
    config: dict[str, Any] | None = field(default=None, compare=False)
    """A saved model configuration where the format has one (Keras' ``config.json``): layer
    classes and options that the tensors alone cannot tell (merge modes, ``reset_after``)."""
    constants: tuple[NamedTensor, ...] = ()
    """Values the file stores that are no parameter in any framework (an ONNX exporter's zero
    initial states): listed apart, outside every total."""

    @property
    def total(self) -> int:
        """Every element of every tensor, trainable or not."""
        return sum(t.count for t in self.tensors)
