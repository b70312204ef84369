"""LFM2-MoE as transformers' ``Lfm2MoeForCausalLM`` builds it from an ``Lfm2MoeConfig``:
LFM2's gated short convolutions and attention (:mod:`paramcount.families.lfm2`) where
``layer_types`` says ``conv`` or otherwise, a SwiGLU MLP ``intermediate_size`` wide in the first
``num_dense_layers`` layers and a mixture of experts in the rest.

The experts (``feed_forward``: ``experts.gate_up_proj`` (E, 2I, D), ``experts.down_proj``
(E, D, I), then the router ``gate`` (E, D)) are gated; ``expert_bias`` is a buffer, not a
parameter. transformers' config has no default ``layer_types`` (its model cannot be built
without one), so a config.json must give it; the defaults here are LFM2-8B-A1B's.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.mixers import (
    Attention,
    Experts,
    Mlp,
    ShortConv,
    read_attention,
    read_experts,
    read_mlp,
    read_short_conv,
)
from paramcount.families.parts import at_most_blocks
from paramcount.record import record

NAME = "lfm2-moe"
TITLE = "LFM2-MoE (short convolutions + attention + experts)"
REFERENCE = "transformers Lfm2MoeForCausalLM"
MODEL_TYPES = ("lfm2_moe",)
CLASSES = ("Lfm2MoeForCausalLM", "Lfm2MoeModel")
LAYER_TYPES = {"full_attention": "attention", "conv": "conv"}

LAYOUT = Layout("transformers Lfm2MoeConfig", frozenset({
    "conv_L_cache", "conv_bias", "head_dim", "hidden_size", "initializer_range",
    "intermediate_size", "layer_types", "max_position_embeddings", "moe_intermediate_size",
    "norm_eps", "norm_topk_prob", "num_attention_heads", "num_dense_layers", "num_experts",
    "num_experts_per_tok", "num_hidden_layers", "num_key_value_heads", "output_router_logits",
    "rope_parameters", "rope_theta", "routed_scaling_factor", "tie_embedding",
    "use_expert_bias", "vocab_size"}))
"""The keys transformers' ``Lfm2MoeConfig`` reads (``tie_embedding`` through its
``__post_init__``; ``head_dim``, which it keeps as an attribute, through the attention)."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""

EIGHT_B_TYPES = ("conv", "conv", "full_attention", "conv", "conv", "conv", "full_attention",
                 "conv", "conv", "conv", "full_attention", "conv", "conv", "conv",
                 "full_attention", "conv", "conv", "conv", "full_attention", "conv", "conv",
                 "full_attention", "conv", "conv")
"""LFM2-8B-A1B's layers: six attention layers among 24."""


@record
class Lfm2MoeConfig:
    """The options of transformers' ``Lfm2MoeConfig`` that shape its parameters: its defaults,
    but for ``num_hidden_layers`` and ``layer_types``, LFM2-8B-A1B's (the reference has no
    default ``layer_types``)."""

    vocab_size: int = 65536
    hidden_size: int = 2048
    intermediate_size: int = 7168
    moe_intermediate_size: int = 1792
    num_hidden_layers: int = 24
    num_attention_heads: int = 32
    num_key_value_heads: int = 8
    head_dim: int | None = None
    conv_bias: bool = False
    conv_L_cache: int = 3
    num_dense_layers: int = 2
    num_experts_per_tok: int = 4
    num_experts: int = 32
    layer_types: tuple[str, ...] | None = EIGHT_B_TYPES
    tie_word_embeddings: bool = True

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, ("vocab_size", "hidden_size", "intermediate_size", "moe_intermediate_size",
                   "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
                   "conv_L_cache", "num_experts_per_tok", "num_experts"),
            ("conv_bias", "tie_word_embeddings"), ("head_dim",))
        if not (isinstance(self.num_dense_layers, int) and self.num_dense_layers >= 0):
            raise SpecError("{num_dense_layers} must be 0 or a positive whole number",
                            num_dense_layers=self.num_dense_layers)
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        hybrid.rope_even("head_dim", self.head_dim)
        if self.layer_types is None:
            return  # refused when counted (:attr:`types`): an option may still give it
        hybrid.layer_types(self, LAYER_TYPES)
        if "attention" in self.types:
            hybrid.heads_wide(self)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's operator, ``attention`` or ``conv``; a SpecError without
        ``layer_types`` (a config.json that does not give it, and no option that does)."""
        if self.layer_types is None:
            raise SpecError("{layer_types} must be given: transformers' Lfm2MoeConfig has no "
                            "default and cannot build the model without it", layer_types=None)
        return tuple(LAYER_TYPES[t] for t in self.layer_types)

    @property
    def heads_dim(self) -> int:
        """``head_dim``, or hidden_size // num_attention_heads."""
        return hybrid.heads_dim(self)


Config = Lfm2MoeConfig

ALIASES: dict[str, tuple[str, ...]] = {**hybrid.HEAD_ALIASES, "conv_L_cache": ("--conv-kernel",)}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: Lfm2MoeConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    att = Attention(d, config.num_attention_heads, config.num_key_value_heads,
                    config.heads_dim, d, False, "out_proj", True) if (
        "attention" in config.types) else None
    conv = ShortConv(d, config.conv_L_cache, config.conv_bias)
    moe = Experts(d, config.moe_intermediate_size, config.num_experts,
                  min(config.num_experts_per_tok, config.num_experts), "lfm2_moe")
    for i, kind in enumerate(config.types):
        p = f"model.layers.{i}."
        if att is not None and kind == "attention":
            s.part("attention", "attention", att, p + "self_attn.", i)
        else:
            s.part("recurrent", "short conv", conv, p + "conv.", i)
        if i < config.num_dense_layers:
            s.part("mlp", "mlp", Mlp(d, config.intermediate_size, False, "w1_w3_w2"),
                   p + "feed_forward.", i)
        else:
            s.part("experts", "experts", moe, p + "feed_forward.", i)
            s.idle += moe.count - moe.active
        hybrid.norm_of(s, p + "operator_norm.", d, i)
        hybrid.norm_of(s, p + "ffn_norm.", d, i)
    hybrid.final(s, "model.embedding_norm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


def json_values(data: Mapping[str, object]) -> dict[str, object]:
    """``tie_embedding`` (LiquidAI's name) wins over ``tie_word_embeddings``; ``layer_types``
    must be given."""
    values = dict(data)
    if "tie_embedding" in values:
        values["tie_word_embeddings"] = values["tie_embedding"]
    values.setdefault("layer_types", None)
    return values


tensors, formula, from_hf_config = hybrid.conventions(
    stack, Lfm2MoeConfig, "Lfm2MoeForCausalLM", ("E", "num_experts"), prepare=json_values)


SAVED = {"gate_proj": "w1", "up_proj": "w3", "down_proj": "w2"}
"""How the checkpoint names each expert's projections (``experts.{e}.w1.weight``, …)."""


def saved_tensors(config: Lfm2MoeConfig) -> list[Tensor]:
    """The tensors of ``Lfm2MoeForCausalLM(config)`` as ``save_pretrained`` writes them: each
    expert's ``w1``, ``w3`` and ``w2`` one by one (the model stacks them)."""
    return hybrid.per_expert_names(tensors(config), SAVED)


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Lfm2MoeForCausalLM`` among ``shapes`` (as the model holds its tensors, or as
    its checkpoint stores them), checked exactly."""
    found = hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)
    if found or not any(".feed_forward.experts.0.w1." in name for name in shapes):
        return found
    return hybrid.recognise_renamed(shapes, _model_name, _recognise_at,
                                    "the checkpoint stores each expert's w1, w3 and w2 one by "
                                    "one (the model stacks them)")


def _model_name(name: str) -> str | None:
    """A checkpoint's name as the model's stacked view reads it (``experts.0.w1.weight`` →
    ``experts.0.gate_proj.weight``); None for the routers' ``expert_bias`` buffers."""
    return hybrid.stacked_name(name, SAVED, ("expert_bias",))


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    if f"{start}0.operator_norm.weight" not in shapes:
        return None
    n = hybrid.layer_count(shapes, start)
    moe = [i for i in range(n) if f"{start}{i}.feed_forward.gate.weight" in shapes]
    if not n or not moe:
        return None  # no experts: an LFM2 model
    dense = moe[0]
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n,
        "num_dense_layers": dense, "tie_word_embeddings": prefix + "lm_head.weight" not in shapes,
        "layer_types": tuple("full_attention" if f"{start}{i}.self_attn.q_proj.weight" in shapes
                             else "conv" for i in range(n))}
    experts = read_experts(shapes, f"{start}{moe[0]}.feed_forward.", 4)
    if experts is None or experts.style not in ("lfm2_moe", "mixtral"):  # the same tensors
        return None
    values.update(num_experts=experts.experts, moe_intermediate_size=experts.inner,
                  num_experts_per_tok=min(4, experts.experts))
    notes = ["num_experts_per_tok is not in the weights: read as 4, the default"]
    if dense:
        mlp = read_mlp(shapes, f"{start}0.feed_forward.", "w1_w3_w2")
        if mlp is None:
            return None
        values["intermediate_size"] = mlp.inner
    types = values["layer_types"]
    assert isinstance(types, tuple)
    if "conv" in types:
        conv = read_short_conv(shapes, f"{start}{types.index('conv')}.conv.")
        if conv is None:
            return None
        values.update(conv_L_cache=conv.kernel, conv_bias=conv.bias)
    if "full_attention" in types:
        att = read_attention(shapes, f"{start}{types.index('full_attention')}.self_attn.",
                             rope=True)
        if att is None:
            return None
        values.update(num_attention_heads=att.heads, num_key_value_heads=att.kv_heads,
                      head_dim=None if att.head_dim * att.heads == d else att.head_dim)
    return hybrid.accept_values(shapes, NAME, prefix, Lfm2MoeConfig, values, tensors, notes)
