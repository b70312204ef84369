"""What each modern recurrent family's convention provides: Mamba, Mamba-2, xLSTM, RWKV, RG-LRU,
minGRU.

A family is one module in ``paramcount/families/``, the counterpart of
``engine/conventions/pytorch.py``: a config record whose fields carry the reference
implementation's own option names and defaults, config → named, shaped tensors exactly as the
reference model's ``named_parameters()`` (tied weights once), the closed-form formula with its
knobs as symbols, ``config.json`` → config as the reference reads it, and tensors → config
(recognition), round-trip tested. Pure: no framework import.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import prod
from typing import Any, Protocol

from paramcount.engine.conventions.base import Formula, Tensor
from paramcount.record import record


@record
class RecognisedModel:
    """A family's model (or block stack) found among named tensors: the inverse of ``tensors``.

    ``prefix`` stands before the reference's own names (``backbone.`` …, ``""`` at the top);
    ``names`` are the source's tensors it accounts for; ``notes`` say what the tensors cannot
    tell and what was assumed.
    """

    prefix: str
    family: str
    config: Any
    names: tuple[str, ...]
    notes: tuple[str, ...] = ()
    base: bool = False
    """The base model class (``MambaModel``): no head, the reference's names without the
    backbone's prefix (``embeddings.weight``)."""
    saved: bool = False
    """Named as ``save_pretrained`` writes the checkpoint where that differs from
    ``named_parameters()`` (a hybrid's experts one by one; Nemotron-H under ``backbone.``)."""
    at_most: str = ""
    """Where its count is only an upper bound, why: a tensor the checkpoint may store padded,
    whose parameter's own width the tensors do not tell (Inkling 2's head, stored with
    ``vocab_size`` rows, read as a head of ``vocab_size``); empty where it is exact."""


@record
class Padding:
    """Values a checkpoint stores beyond a parameter's own, which are no parameter of the model:
    Inkling 2's head, stored padded to ``vocab_size`` rows for an ``lm_head`` of
    ``unpadded_vocab_size``."""

    name: str
    """The tensor, as the checkpoint names it."""
    shape: tuple[int, ...]
    """The parameter's shape, as the model holds it."""
    stored: tuple[int, ...]
    """The shape the checkpoint writes."""
    why: str
    """Who pads it and to what, in a few words."""

    @property
    def count(self) -> int:
        """The stored values that are padding."""
        return prod(self.stored) - prod(self.shape)


class FamilyConvention(Protocol):
    """What a family module provides (module-level names)."""

    NAME: str
    """The command and JSON name: ``mamba``, ``mamba2``, ``xlstm``, ``rwkv``, ``rglru``, …"""
    TITLE: str
    """How people write it: ``Mamba (v1)``."""
    REFERENCE: str
    """The implementation whose ``named_parameters()`` the tensors follow."""

    def tensors(self, config: Any) -> list[Tensor]: ...
    def formula(self, config: Any) -> Formula: ...
    def from_hf_config(self, data: Mapping[str, object]) -> Any: ...
    def recognise(self, shapes: Mapping[str, tuple[int, ...]]) -> list[RecognisedModel]: ...
