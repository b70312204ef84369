"""Inkling 2 as transformers' ``Inkling2ForCausalLM`` builds it from an ``Inkling2TextConfig``
(``model_type`` ``inkling2_text``; ``paramcount inkling --impl inkling2``): Inkling's layers
(:mod:`paramcount.families.inkling`) with attention residuals over blocks of layers, a gated
output projection, attention sinks, and on the full attention layers dynamic short
convolutions over k and v.

A layer holds, past the first, ``attention_input.query`` (D; a full layer's (3, D): one query
each for q, k and v), then ``mlp_input.query`` (D), ``self_attn`` (``q_proj``: ``linear`` (H·hd,
D) and a per-head ``norm.scale`` (H, hd); ``k_proj``, ``v_proj``: ``linear`` (kv·hd, D) and
``sconv``: on a sliding layer a static depthwise ``conv1d`` (kv·hd, 1, K), on a full layer
``static_weight`` (K, kv·hd) and ``weight_proj`` (kv·K, D) making each token's taps; ``o_proj``:
``gate_proj`` (H·hd, D) and ``linear`` (D, H·hd); ``sink_proj`` (H, D);
``relative_position_bias``: ``proj`` (r, X), ``linear`` (H·r, D), ``norm.scale`` (H, r)), the
experts (stacked ``gate_up_proj``, ``down_proj``, the router ``gate`` after them: LFM2-MoE's
layout), RMSNorms (``input_layernorm`` on a sliding layer; ``q_``, ``k_``, ``v_input_layernorm``
on a full one; ``post_attention_layernorm``) and the short convolutions
``post_attention_convolution``, ``post_mlp_convolution`` over D. Around them Inkling's normed
embedding, ``model.norm``, ``model.final_input.query`` (D) and ``lm_head``
(``unpadded_vocab_size``, D), never tied.
"""

from __future__ import annotations

from math import prod
from typing import Any

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.families import hybrid, inkling2_saved
from paramcount.families.family import RecognisedModel
from paramcount.families.inkling import (
    ALIAS_KEYS,
    InklingAttention,
    LayerConvs,
    recognise_params,
    widths,
)
from paramcount.families.loader import Layout
from paramcount.families.mixers import DepthwiseConv, Experts
from paramcount.families.parts import at_most_blocks, linear, tensor
from paramcount.record import record

NAME = "inkling2"
TITLE = "Inkling 2 (dynamic short convolutions + attention + experts)"
REFERENCE = "transformers Inkling2ForCausalLM"
MODEL_TYPES = ("inkling2_text",)
CLASSES = ("Inkling2ForCausalLM", "Inkling2TextModel")
LAYER_TYPES = {"hybrid": "full", "hybrid_sliding": "sliding"}

LAYOUT = Layout("transformers Inkling2TextConfig", frozenset({
    "attention_dropout", "conv_kernel_size", "d_rel", "final_logit_softcapping", "head_dim",
    "hidden_act", "hidden_size", "initializer_range", "intermediate_size", "layer_types",
    "log_scaling_alpha", "log_scaling_n_floor", "max_position_embeddings", "mlp_gate_softcap",
    "mlp_up_softcap", "model_max_length", "moe_intermediate_size", "n_layers_per_attn_res_block",
    "n_routed_experts", "num_attention_heads", "num_experts_per_tok", "num_hidden_layers",
    "num_key_value_heads", "num_local_experts", "number_of_conv_states", "qk_l2_clip_threshold",
    "rel_extent", "rel_l2_clip_threshold", "rms_norm_eps", "route_scale",
    "routed_scaling_factor", "sconv_kernel_size", "scoring_func", "sliding_window",
    "sliding_window_size", "swa_head_dim", "swa_num_attention_heads", "swa_num_key_value_heads",
    "unpadded_vocab_size", "vocab_size"}))
"""The keys transformers' ``Inkling2TextConfig`` reads (its fields and ``attribute_map``)."""
BACKBONE = "model."
SAVED_BACKBONE = inkling2_saved.SAVED_BACKBONE
saved_base = inkling2_saved.saved_base
stored_padding = inkling2_saved.stored_padding
"""The causal LM's prefix before the base model class's tensors."""


@record
class Inkling2Config:
    """The options of transformers' ``Inkling2TextConfig`` that shape its parameters (and the
    sliding window its cache keeps), its defaults (``intermediate_size`` is
    ``moe_intermediate_size``; no ``tie_word_embeddings``: the model ties nothing)."""

    vocab_size: int = 201024
    unpadded_vocab_size: int = 200058
    """The head's rows (the checkpoint's unembedding is padded to ``vocab_size``)."""
    hidden_size: int = 4608
    num_hidden_layers: int = 48
    num_attention_heads: int = 48
    num_key_value_heads: int = 8
    head_dim: int = 128
    swa_num_attention_heads: int = 48
    swa_num_key_value_heads: int = 8
    swa_head_dim: int = 128
    sliding_window_size: int = 1024
    d_rel: int = 16
    rel_extent: int = 1024
    conv_kernel_size: int = 4
    moe_intermediate_size: int = 2304
    n_routed_experts: int = 384
    num_experts_per_tok: int = 8
    layer_types: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        check(self)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's attention, ``full`` or ``sliding``: ``layer_types``, else full at every
        6th layer, sliding elsewhere."""
        if self.layer_types is not None:
            return tuple(LAYER_TYPES[t] for t in self.layer_types)
        return tuple("full" if (i + 1) % 6 == 0 else "sliding"
                     for i in range(self.num_hidden_layers))

    def attention(self, kind: str) -> InklingAttention:
        """A ``full`` (dynamic convolutions) or ``sliding`` layer's attention."""
        heads, kv, head_dim, extent, window = widths(self, kind)
        return InklingAttention(self.hidden_size, heads, kv, head_dim, self.d_rel, extent,
                                self.conv_kernel_size, window,
                                "dynamic" if kind == "full" else "sink")


Config = Inkling2Config


def check(config: Any) -> None:
    """An Inkling 2 (or Inkling 2 Loop) config's sizes whole numbers of at least 1, its
    ``layer_types`` one per layer."""
    hybrid.check_types(config, (
        "vocab_size", "unpadded_vocab_size", "hidden_size", "num_hidden_layers",
        "num_attention_heads", "num_key_value_heads", "head_dim", "swa_num_attention_heads",
        "swa_num_key_value_heads", "swa_head_dim", "sliding_window_size", "d_rel",
        "rel_extent", "conv_kernel_size", "moe_intermediate_size", "n_routed_experts",
        "num_experts_per_tok"))
    at_most_blocks("num_hidden_layers", config.num_hidden_layers)
    hybrid.layer_types(config, LAYER_TYPES)

ALIASES: dict[str, tuple[str, ...]] = {
    **hybrid.HEAD_ALIASES, "n_routed_experts": ("--num-experts",),
    "conv_kernel_size": ("--conv-kernel",), "sliding_window_size": ("--sliding-window",)}
"""Names people use for this family's options beside ``--field-name``."""

LABELS = {"full": "attention", "sliding": "sliding attention"}
NORMS = {"full": ("q_input_layernorm", "k_input_layernorm", "v_input_layernorm",
                  "post_attention_layernorm"),
         "sliding": ("input_layernorm", "post_attention_layernorm")}
"""Each kind of layer's RMSNorms over D."""


def _query(s: hybrid.Stack, name: str, shape: tuple[int, ...], layer: int) -> None:
    """An attention residual's learned queries (``name`` ends ``.query``; counted with the
    attention)."""
    s.add("attention", "residual query", prod(shape),
          [tensor(name, shape, layer, shape[-1], "residual.query")])


@record
class Loop:
    """A looped stack: layers ``start`` to ``end`` − 1 run ``passes`` times, each pass after
    the first with a cache of its own and messages from the one before (through four message
    gates of rank ``rank`` on each looped layer, and ``end`` − ``start`` × 4 learned
    queries)."""

    start: int
    end: int
    passes: int
    rank: int


@record
class MessageGate:
    """A looped layer's message gate: ``down_proj`` (rank, 2D), ``forget_gate_proj`` and
    ``message_gate_proj`` (D, rank)."""

    width: int
    rank: int

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The three projections."""
        d, r = self.width, self.rank
        return [*linear(prefix + "down_proj.", r, 2 * d, False, layer),
                *linear(prefix + "forget_gate_proj.", d, r, False, layer),
                *linear(prefix + "message_gate_proj.", d, r, False, layer)]

    @property
    def count(self) -> int:
        """4·D·rank."""
        return 4 * self.width * self.rank


@hybrid.cached
def stack(config: Any) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order (of Inkling 2, or with
    its ``loop`` of Inkling 2 Loop)."""
    return build(config, getattr(config, "loop", None))


def build(config: Any, loop: Loop | None = None) -> hybrid.Stack:
    """The stack of an Inkling 2 ``config`` (or of Inkling 2 Loop's, with its ``loop``): every
    parameter in ``named_parameters()`` order, and each cache layer's state (a looped layer's
    once more for each pass after the first, after the model's layers, as transformers
    appends them)."""
    s = hybrid.Stack()
    d, types = config.hidden_size, config.types
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    hybrid.norm_of(s, "model.embed_tokens.embed_norm.", d, -1)
    conv = DepthwiseConv(d, config.conv_kernel_size)
    moe = Experts(d, config.moe_intermediate_size, config.n_routed_experts,
                  config.num_experts_per_tok, "lfm2_moe")
    looped = range(loop.start, min(loop.end, len(types))) if loop else range(0)
    for i, kind in enumerate(types):
        p = f"model.layers.{i}."
        if i:
            _query(s, p + "attention_input.query", (3, d) if kind == "full" else (d,), i)
        _query(s, p + "mlp_input.query", (d,), i)
        s.part("attention", LABELS[kind], config.attention(kind), p + "self_attn.", i)
        s.part("experts", "experts", moe, p + "mlp.", i)
        s.idle += moe.count - moe.active
        for name in NORMS[kind]:
            hybrid.norm_of(s, f"{p}{name}.", d, i)
        for name in ("post_attention_convolution", "post_mlp_convolution"):
            s.part("recurrent", "short conv", conv, f"{p}{name}.", i, state=False)
        s.holds(i, "short convs", LayerConvs(conv))
        if loop and i in looped:
            for gate in ("q", "k", "v", "mlp"):
                s.part("attention", "message gate", MessageGate(d, loop.rank),
                       f"{p}{gate}_message_gate.", i, state=False)
    hybrid.norm_of(s, "model.norm.", d, -1)
    _query(s, "model.final_input.query", (d,), -1)
    if loop:
        _query(s, "model.message_input.query", (loop.end - loop.start, 4, d), -1)
        at = len(types)
        for _ in range(1, loop.passes):
            for i in looped:
                s.holds(at, LABELS[types[i]], config.attention(types[i]))
                s.holds(at, "short convs", LayerConvs(conv))
                at += 1
    s.add("embeddings", "head U·D", config.unpadded_vocab_size * d,
          linear("lm_head.", config.unpadded_vocab_size, d, False, -1))
    return s


READ_KEYS = {**ALIAS_KEYS, "intermediate_size": "moe_intermediate_size"}
"""Inkling 2's ``attribute_map`` keys transformers reads for a field (``intermediate_size`` is
``moe_intermediate_size``; the field's own key wins)."""


tensors, formula, from_hf_config = hybrid.conventions(
    stack, Inkling2Config, "Inkling2ForCausalLM", ("E", "n_routed_experts"),
    ("U", "unpadded_vocab_size"), aliases=READ_KEYS)


def saved_tensors(config: Any) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them (:mod:`~paramcount.families.
    inkling2_saved`)."""
    return inkling2_saved.saved_tensors(tensors(config), config.vocab_size)


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Inkling2ForCausalLM`` among ``shapes`` (as the model names its tensors, or as
    ``save_pretrained`` does), checked exactly."""
    return recognise_params(shapes, _recognise_at) or inkling2_saved.recognise(
        shapes, _recognise_at)


def _attention_at(shapes: Shapes, p: str) -> tuple[int, int, int, int, int] | None:
    """(heads, kv_heads, head_dim, d_rel, extent) of the attention under ``p``, or None."""
    q, k, rel = (shapes.get(p + n) for n in (
        "q_proj.norm.scale", "k_proj.linear.weight", "relative_position_bias.proj"))
    if not (is_shape(q, 2) and is_shape(k, 2) and is_shape(rel, 2)):
        return None
    assert q is not None and k is not None and rel is not None
    if k[0] % q[1]:
        return None
    return q[0], k[0] // q[1], q[1], rel[0], rel[1]


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    values = read_values(shapes, prefix, vocab, d)
    if values is None:
        return None
    return hybrid.accept_values(shapes, NAME, prefix, Inkling2Config, values, tensors,
                                [TOP_K_NOTE])


TOP_K_NOTE = (f"the experts used per token are not in the weights: read as "
              f"{Inkling2Config.num_experts_per_tok} (transformers' default)")


def read_values(shapes: Shapes, prefix: str, vocab: int, d: int) -> dict[str, object] | None:
    """The config values an Inkling 2 causal LM's tensors under ``prefix`` hold, or None."""
    start = f"{prefix}model.layers."
    conv, head, experts = (shapes.get(n) for n in (
        f"{start}0.post_attention_convolution.conv1d.weight", prefix + "lm_head.weight",
        f"{start}0.mlp.experts.down_proj"))
    if not (is_shape(conv, 3) and is_shape(head, 2) and is_shape(experts, 3)):
        return None
    assert conv is not None and head is not None and experts is not None
    n = hybrid.layer_count(shapes, start)
    types = tuple("hybrid" if f"{start}{i}.q_input_layernorm.weight" in shapes
                  else "hybrid_sliding" for i in range(n))
    values: dict[str, object] = {
        "vocab_size": vocab, "unpadded_vocab_size": head[0], "hidden_size": d,
        "num_hidden_layers": n, "layer_types": types, "conv_kernel_size": conv[2],
        "n_routed_experts": experts[0], "moe_intermediate_size": experts[2]}
    for kind, fields in (("hybrid", ("num_attention_heads", "num_key_value_heads", "head_dim",
                                     "d_rel", "rel_extent")),
                         ("hybrid_sliding", ("swa_num_attention_heads",
                                             "swa_num_key_value_heads", "swa_head_dim", "d_rel",
                                             "sliding_window_size"))):
        if kind in types:
            read = _attention_at(shapes, f"{start}{types.index(kind)}.self_attn.")
            if read is None:
                return None
            values.update(zip(fields, read, strict=True))
    return values
