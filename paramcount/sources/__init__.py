"""What users hand us, read safely: one module per input kind.

Files (safetensors, torch checkpoints, ONNX, Keras), pasted code and printouts, load errors and
model factories each become the same plain description: named tensors (:class:`NamedTensor`
in a :class:`Listing`) or layer calls. Nothing here executes what it reads (except a factory,
which the user names in their own config), and nothing here imports a command or a renderer.
"""

from __future__ import annotations

from paramcount.sources.base import Listing, NamedTensor

__all__ = ["Listing", "NamedTensor"]
