"""Zamba (v1) as transformers' ``ZambaForCausalLM`` builds it from a ``ZambaConfig``: Mamba
layers (Zamba's multi-head Mamba mixer), and "hybrid" layers where a shared transformer block
runs before the Mamba layer, where ``layers_block_type`` says (by default two Mamba layers, a
hybrid one, then a hybrid layer every ``attn_layer_period`` from ``attn_layer_offset``).

A Mamba layer holds ``mamba`` (:class:`~paramcount.families.mixers.ZambaMamba`) and its
``input_layernorm``; a hybrid layer holds ``shared_transf`` (attention over the 2D-wide
concatenation of the hidden state and the embeddings: q, k, v (heads·``attention_head_dim``,
``attention_hidden_size``), o (D, heads·head dim), a gated MLP, RMSNorms ``input_layernorm``
over ``attention_hidden_size`` and ``pre_ff_layernorm``), a ``linear`` (D, D) and the Mamba
layer as ``mamba_decoder``. transformers 5 ties the shared blocks only when
``tie_word_embeddings`` is true (then the block is listed once, in the first hybrid layer);
else each hybrid layer holds its own. Around them ``model.embed_tokens``,
``model.final_layernorm`` and ``lm_head``, tied by default.
"""

from __future__ import annotations

import math

from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout, is_int
from paramcount.families.mixers import Attention, Mlp, ZambaMamba, read_mlp
from paramcount.families.parts import at_most_blocks, linear
from paramcount.record import record

NAME = "zamba"
TITLE = "Zamba (Mamba + a shared attention block)"
REFERENCE = "transformers ZambaForCausalLM"
MODEL_TYPES = ("zamba",)
CLASSES = ("ZambaForCausalLM", "ZambaModel")
LAYER_TYPES = {"mamba": "mamba", "linear_attention": "mamba", "hybrid": "hybrid"}

LAYOUT = Layout("transformers ZambaConfig", frozenset({
    "attention_dropout", "attention_head_dim", "attention_hidden_size", "attn_layer_offset",
    "attn_layer_period", "head_dim", "hidden_act", "hidden_mamba_act", "hidden_size",
    "initializer_range", "intermediate_size", "layer_types", "layers_block_type",
    "mamba_conv_bias", "mamba_d_conv", "mamba_d_state", "mamba_dt_rank", "mamba_expand",
    "mamba_proj_bias", "max_position_embeddings", "n_mamba_heads", "num_attention_heads",
    "num_hidden_layers", "num_key_value_heads", "num_logits_to_keep", "rms_norm_eps",
    "time_step_floor", "time_step_max", "time_step_min", "use_associative_scan",
    "use_mamba_kernels", "vocab_size"}))
"""The keys transformers' ``ZambaConfig`` reads (``layer_types`` is ``layers_block_type``,
``head_dim`` is ``attention_head_dim``)."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class ZambaConfig:
    """The options of transformers' ``ZambaConfig`` that shape its parameters, its
    defaults."""

    vocab_size: int = 32000
    hidden_size: int = 3712
    attention_hidden_size: int | None = None
    intermediate_size: int = 14848
    num_hidden_layers: int = 76
    num_attention_heads: int = 16
    attention_head_dim: int | None = None
    num_key_value_heads: int = 16
    n_mamba_heads: int = 2
    attn_layer_period: int = 6
    attn_layer_offset: int = 4
    mamba_d_state: int = 16
    mamba_d_conv: int = 4
    mamba_expand: int = 2
    mamba_dt_rank: int | str = "auto"
    mamba_conv_bias: bool = True
    mamba_proj_bias: bool = False
    layers_block_type: tuple[str, ...] | None = None
    tie_word_embeddings: bool = True

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, (*hybrid.SIZES, "num_key_value_heads", "n_mamba_heads",
                   "attn_layer_period", "mamba_d_state", "mamba_d_conv", "mamba_expand"),
            ("mamba_conv_bias", "mamba_proj_bias", "tie_word_embeddings"),
            ("attention_hidden_size", "attention_head_dim"))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        if not (is_int(self.attn_layer_offset) and self.attn_layer_offset >= 0):
            raise SpecError("{attn_layer_offset} must be 0 or a positive whole number",
                            attn_layer_offset=self.attn_layer_offset)
        if self.mamba_dt_rank != "auto":
            hybrid.check_types(self, ("mamba_dt_rank",))
        if self.layers_block_type is not None:
            types = hybrid.kinds_of(self, "layers_block_type", LAYER_TYPES)
            if len(types) != self.num_hidden_layers:
                raise SpecError("{layers_block_type} lists " + str(len(types)) + " layers, "
                                "{num_hidden_layers} says " + str(self.num_hidden_layers),
                                layers_block_type=self.layers_block_type,
                                num_hidden_layers=self.num_hidden_layers)
        elif self.num_hidden_layers < 3:
            raise SpecError("{num_hidden_layers} must be 3 at least without layers_block_type "
                            "(transformers' default starts with three layers)",
                            num_hidden_layers=self.num_hidden_layers)
        if (self.mamba_expand * self.hidden_size) % self.n_mamba_heads:
            raise SpecError("{n_mamba_heads} must divide mamba_expand · hidden_size "
                            "(transformers: intermediate_size should be divisible by "
                            "n_mamba_heads)", n_mamba_heads=self.n_mamba_heads)
        if self.tie_word_embeddings and self.types.count("hybrid") == 1:
            raise SpecError("{tie_word_embeddings} with a single hybrid layer: transformers "
                            "5.24 cannot build it (its tied shared blocks find no second block "
                            "to tie)", tie_word_embeddings=True)
        if "hybrid" in self.types and self.head_width < 1:
            raise SpecError("{num_attention_heads} exceeds 2 · hidden_size: heads would be 0 "
                            "wide", num_attention_heads=self.num_attention_heads)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer, ``mamba`` or ``hybrid``."""
        if self.layers_block_type is not None:
            return tuple(LAYER_TYPES[t] for t in self.layers_block_type)
        period, offset = self.attn_layer_period, self.attn_layer_offset
        return ("mamba", "mamba", "hybrid", *("hybrid" if i % period == offset else "mamba"
                                              for i in range(self.num_hidden_layers - 3)))

    @property
    def head_width(self) -> int:
        """``attention_head_dim``, or 2·hidden_size // num_attention_heads."""
        return self.attention_head_dim or 2 * self.hidden_size // self.num_attention_heads

    @property
    def rank(self) -> int:
        """``mamba_dt_rank``, or ⌈hidden_size / 16⌉ for "auto"."""
        rank = self.mamba_dt_rank
        return math.ceil(self.hidden_size / 16) if rank == "auto" else int(rank)


Config = ZambaConfig

ALIASES: dict[str, tuple[str, ...]] = {**hybrid.HEAD_ALIASES,
                                       "mamba_d_state": ("--d-state",),
                                       "attention_head_dim": ("--head-dim",)}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: ZambaConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d, heads, width = config.hidden_size, config.num_attention_heads, config.head_width
    wide = config.attention_hidden_size or 2 * d
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    mixer = ZambaMamba(d, config.mamba_expand * d, config.n_mamba_heads, config.mamba_d_state,
                       config.rank, config.mamba_d_conv, config.mamba_conv_bias,
                       config.mamba_proj_bias)
    listed = False
    for i, kind in enumerate(config.types):
        p = f"model.layers.{i}."
        if kind == "hybrid":
            att = Attention(wide, heads, config.num_key_value_heads, width, d)
            if listed and config.tie_word_embeddings:  # listed once, its cache in each layer
                s.holds(i, "shared attention", att)
            else:
                b = p + "shared_transf."
                s.part("attention", "shared attention", att, b + "self_attn.", i)
                s.part("mlp", "shared mlp", Mlp(d, config.intermediate_size),
                       b + "feed_forward.", i)
                hybrid.norm_of(s, b + "input_layernorm.", wide, i)
                hybrid.norm_of(s, b + "pre_ff_layernorm.", d, i)
                listed = True
            s.add("attention", "linear D·D", d * d, linear(p + "linear.", d, d, False, i))
            p += "mamba_decoder."
        s.part("recurrent", "mamba", mixer, p + "mamba.", i)
        hybrid.norm_of(s, p + "input_layernorm.", d, i)
    hybrid.final(s, "model.final_layernorm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


tensors, formula, from_hf_config = hybrid.conventions(
    stack, ZambaConfig, "ZambaForCausalLM", ("H", "n_mamba_heads"),
    lists=("layers_block_type",),
    aliases={"layer_types": "layers_block_type", "head_dim": "attention_head_dim"})


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``ZambaForCausalLM`` among ``shapes``, checked exactly."""
    return hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    n = hybrid.layer_count(shapes, start)
    m = f"{start}0.mamba_decoder.mamba." if f"{start}0.linear.weight" in shapes else (
        f"{start}0.mamba.")
    x, a, conv = (shapes.get(f"{m}{k}") for k in ("x_proj_weight", "A_log", "conv1d.weight"))
    if not n or not (is_shape(x, 3) and is_shape(a, 3) and is_shape(conv, 3)):
        return None
    assert x is not None and a is not None and conv is not None
    inner = x[0] * x[2]
    if inner % d:
        return None
    types = tuple("hybrid" if f"{start}{i}.linear.weight" in shapes else "mamba"
                  for i in range(n))
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n,
        "layers_block_type": types, "n_mamba_heads": x[0], "mamba_d_state": a[2],
        "mamba_dt_rank": x[1] - 2 * a[2], "mamba_d_conv": conv[2], "mamba_expand": inner // d,
        "mamba_conv_bias": f"{m}conv1d.bias" in shapes,
        "mamba_proj_bias": f"{m}in_proj.bias" in shapes,
        "tie_word_embeddings": prefix + "lm_head.weight" not in shapes}
    notes: list[str] = []
    if "hybrid" in types:
        b = f"{start}{types.index('hybrid')}.shared_transf."
        q, k, norm_ = (shapes.get(b + n) for n in ("self_attn.q_proj.weight",
                                                    "self_attn.k_proj.weight",
                                                    "input_layernorm.weight"))
        mlp = read_mlp(shapes, b + "feed_forward.", "gate_up_down")
        if mlp is None or not (is_shape(q, 2) and is_shape(k, 2) and is_shape(norm_, 1)):
            return None
        assert q is not None and k is not None and norm_ is not None
        heads = next((h for h in range(1, q[0] + 1) if q[0] % h == 0
                      and 2 * d // h == q[0] // h and k[0] % (q[0] // h) == 0), None)
        width = q[0] // heads if heads else q[0]
        if k[0] % width:
            return None
        values.update(num_attention_heads=heads or 1, num_key_value_heads=k[0] // width,
                      attention_head_dim=None if heads else width,
                      attention_hidden_size=None if norm_[0] == 2 * d else norm_[0],
                      intermediate_size=mlp.inner)
        notes.append(f"attention heads read as {heads or 1} of width {width}: the weights hold "
                     "only heads × width")
    return hybrid.accept_values(shapes, NAME, prefix, ZambaConfig, values, tensors, notes)
