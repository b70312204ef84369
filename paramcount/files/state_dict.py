"""What a PyTorch state dict's names say beyond the shapes: which entries are buffers.

A state dict holds a module's parameters and its persistent buffers side by side, and nothing
but the name tells them apart. The buffers every torch user meets are BatchNorm's running
statistics; other registered buffers cannot be told from parameters by name.
"""

from __future__ import annotations

from collections.abc import Iterable

from paramcount.files.listing import NamedTensor
from paramcount.record import replace

BUFFERS = ("running_mean", "running_var", "num_batches_tracked")
"""The last name component of the buffers torch's normalisation layers register."""


def is_buffer(name: str) -> bool:
    """Whether a state-dict key names a normalisation layer's buffer, not a parameter."""
    return name.rsplit(".", 1)[-1] in BUFFERS


def torch_names(tensors: Iterable[NamedTensor]) -> list[NamedTensor]:
    """The tensors with ``trainable=False`` on BatchNorm-style buffers."""
    return [
        replace(t, trainable=False) if is_buffer(t.name) else t for t in tensors
    ]
