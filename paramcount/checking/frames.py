"""Frame arithmetic for hand-written convolutional layers: output sizes as the frameworks
compute them, and the code that builds each layer. Pure: no framework imports.

A frame is the spatial part of a sample, layout-free: ``(28, 28)`` for a 28×28 image whether
Keras stores it channels last (28, 28, C) or torch channels first (C, 28, 28). ``None`` is a
length not known until run time (a sequence's steps).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Frame = tuple[int | None, ...]


def conv_size(n: int | None, kernel: int, stride: int, dilation: int,
              padding: int | str) -> int | None:
    """One spatial size after a convolution: Keras ``valid``/``same``, torch an int or those.

    >>> conv_size(28, 3, 1, 1, "valid"), conv_size(28, 3, 2, 1, "same"), conv_size(28, 3, 1, 1, 1)
    (26, 14, 28)
    """
    if n is None:
        return None
    if padding == "same":
        return math.ceil(n / stride)
    pad = 0 if padding == "valid" else int(padding)
    return (n + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def pool_size(n: int | None, size: int, stride: int, padding: int | str) -> int | None:
    """One spatial size after pooling (Keras and torch agree on these formulas).

    >>> pool_size(28, 2, 2, "valid"), pool_size(7, 2, 2, "same"), pool_size(7, 2, 2, 0)
    (14, 4, 3)
    """
    return conv_size(n, size, stride, 1, padding)


def tuple_text(values: Sequence[int]) -> str:
    """``(3, 3)``, or ``(3,)`` for one value: how Keras writes kernel sizes."""
    return "(" + ", ".join(map(str, values)) + ("," if len(values) == 1 else "") + ")"


def torch_arg(values: Sequence[int]) -> str:
    """``3`` when every axis has the same size, else ``(3, 5)``: how torch is usually given."""
    return str(values[0]) if len(set(values)) == 1 else tuple_text(values)


def frame_text(frame: Frame, channels: int, channels_last: bool) -> str:
    """A sample's shape in the framework's layout: ``(28, 28, 1)`` or ``(1, 28, 28)``."""
    dims = ["None" if d is None else str(d) for d in frame]
    return "(" + ", ".join([*dims, str(channels)] if channels_last
                           else [str(channels), *dims]) + ")"
