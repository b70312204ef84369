"""The state that replaces the KV cache: what one sequence holds between tokens at inference.

Each mixer part declares what its layer's cache holds (:class:`Piece`): attention its keys and
values, growing with every token (up to a sliding window where it has one); a Mamba mixer its
convolution state and SSM state, a short convolution its convolution state, RWKV, xLSTM,
RG-LRU and minGRU their recurrent state, none of which grows. A family's ``state(config)`` (or,
for the hybrids, the :class:`~paramcount.families.hybrid.Stack` of its parts) lists each
layer's pieces, and :func:`memory` sums them at a context length and batch, in bytes of a dtype
(a piece the reference always keeps in float32 says so); a family's ``state_notes(config)``
says what the figure rests on where the reference itself keeps none. Measured against the
cache transformers fills (``tests/test_family_state.py``) and, for the layouts transformers does
not build, the state the ``rwkv``, ``xlstm`` and ``mingru-pytorch`` packages return
(``tests/test_family_state_packages.py``). Pure: no framework import.
"""

from __future__ import annotations

from paramcount.record import record

TYPE_CHECKING = False  # typing is for the type checker only
if TYPE_CHECKING:
    from typing import Any

DTYPE_BYTES = {"fp16": 2, "bf16": 2, "fp32": 4, "fp64": 8, "int8": 1, "int64": 8}
"""Bytes per element of each dtype a state may be kept in (int64: token ids and positions
Qwen4-Exp's cache keeps)."""


@record
class Piece:
    """One tensor a layer's cache holds per sequence: ``fixed`` elements whatever the length,
    plus ``per_token`` elements for each token (at most ``window`` tokens where it is > 0)."""

    name: str
    """As the reference's cache calls it: ``keys``, ``values``, ``conv``, ``ssm`` …"""
    per_token: int = 0
    fixed: int = 0
    window: int = 0
    dtype: str = ""
    """The dtype the reference keeps it in whatever the model's (``fp32``), else ""."""

    def elements(self, tokens: int) -> int:
        """Its elements for one sequence of ``tokens`` tokens."""
        held = min(tokens, self.window) if self.window else tokens
        return self.fixed + self.per_token * held


@record
class LayerState:
    """What one layer's mixer (``kind``: attention, mamba, mamba2, short conv …) keeps."""

    layer: int
    kind: str
    pieces: tuple[Piece, ...]


def attention(kv_heads: int, head_dim: int, window: int = 0) -> tuple[Piece, ...]:
    """Keys and values: kv_heads·head_dim each per token (within ``window`` tokens if > 0)."""
    each = kv_heads * head_dim
    return (Piece("keys", per_token=each, window=window),
            Piece("values", per_token=each, window=window))


def convolution(channels: int, kept: int) -> Piece:
    """A causal convolution's state: the last ``kept`` inputs of ``channels`` channels."""
    return Piece("conv", fixed=channels * kept)


@record
class KindMemory:
    """The state of every layer of one kind, summed."""

    kind: str
    layers: int
    per_token: int
    """Bytes added per token per sequence (0: it does not grow)."""
    fixed: int
    """Bytes per sequence whatever the length."""
    bytes: int
    """Bytes at the context and batch asked."""
    window: int = 0


@record
class StateMemory:
    """The per-sequence inference state of a model at ``context`` tokens for ``batch``
    sequences, by layer kind and in total."""

    context: int
    batch: int
    dtype: str
    kinds: tuple[KindMemory, ...]
    notes: tuple[str, ...] = ()
    """What the figure rests on beyond the reference's own cache, one sentence each."""

    @property
    def total(self) -> int:
        """Every layer's state, in bytes."""
        return sum(k.bytes for k in self.kinds)

    @property
    def growing(self) -> int:
        """The bytes that grow with the tokens (the attention layers' keys and values)."""
        return sum(k.bytes - k.fixed * self.batch for k in self.kinds)

    def to_data(self) -> dict[str, Any]:
        """The JSON form."""
        return {"context": self.context, "batch": self.batch, "dtype": self.dtype,
                "bytes": self.total, "growing_bytes": self.growing,
                "kinds": [{"kind": k.kind, "layers": k.layers,
                           "bytes_per_token": k.per_token, "fixed_bytes": k.fixed,
                           "window": k.window or None, "bytes": k.bytes}
                          for k in self.kinds],
                "notes": list(self.notes)}


def memory(layers: tuple[LayerState, ...], context: int, batch: int = 1,
           dtype: str = "fp32", notes: tuple[str, ...] = ()) -> StateMemory:
    """``layers``' state at ``context`` tokens for ``batch`` sequences, in ``dtype`` (with
    ``notes`` on what it rests on)."""
    kinds: dict[str, list[LayerState]] = {}
    for layer in layers:
        kinds.setdefault(layer.kind, []).append(layer)
    made = []
    for kind, held in kinds.items():
        pieces = [p for layer in held for p in layer.pieces]

        def size(piece: Piece) -> int:
            return DTYPE_BYTES[piece.dtype or dtype]

        made.append(KindMemory(
            kind, len(held), sum(p.per_token * size(p) for p in pieces),
            sum(p.fixed * size(p) for p in pieces),
            batch * sum(p.elements(context) * size(p) for p in pieces),
            max((p.window for p in pieces), default=0)))
    return StateMemory(context, batch, dtype, tuple(made), notes)


def declared(name: str, config: Any) -> tuple[LayerState, ...] | None:
    """Family ``name``'s layers' state for ``config``: its module's ``state(config)``, or its
    hybrid stack's parts'; None where the family declares none, or one of its mixers does
    not."""
    from paramcount.families.registry import family

    module = family(name)
    own = getattr(module, "state", None)
    if own is not None:
        made: tuple[LayerState, ...] | None = own(config)
        return made
    stack = getattr(module, "stack", None)
    if stack is None:
        return None
    built = stack(config)
    if built.undeclared:  # a mixer that declares no state: unknown, not 0
        return None
    return tuple(built.states)


def at_context(name: str, config: Any, context: object, batch: object = 1,
               dtype: str = "fp32") -> StateMemory:
    """Family ``name``'s state for ``config`` at ``context`` tokens and ``batch`` sequences,
    or a SpecError (a context or batch below 1; a family that declares no state)."""
    from paramcount.errors import SpecError
    from paramcount.families.registry import family

    for field, value in (("context", context), ("batch", batch)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise SpecError("{" + field + "} must be a whole number of at least 1",
                            **{field: value})
    assert isinstance(context, int) and isinstance(batch, int)
    layers = declared(name, config)
    if layers is None:
        raise SpecError("the inference state of " + family(name).TITLE + " is not modelled by "
                        "paramcount (a mixer of it declares none)")
    said = getattr(family(name), "state_notes", None)
    notes: tuple[str, ...] = said(config) if said is not None else ()
    return memory(layers, context, batch, dtype, notes)
