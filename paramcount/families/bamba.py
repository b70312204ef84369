"""Bamba as transformers' ``BambaForCausalLM`` builds it from a ``BambaConfig``: Mamba-2 layers,
attention at ``attn_layer_indices``, a gated MLP in every layer.

Each layer holds its MLP (``feed_forward``: gate, up, down, biases with ``mlp_bias``), two
RMSNorms (``input_layernorm``, ``pre_ff_layernorm``), then either a Mamba-2 mixer (``mamba``:
E = mamba_expand · hidden_size, ``mamba_n_heads`` heads, ``mamba_n_groups`` groups of
``mamba_d_state``) or attention (``self_attn``: q, k, v, o, biases with ``attention_bias``,
heads hidden_size / num_attention_heads wide unless config.json gives ``head_dim``). Around
them ``model.embed_tokens``, ``model.final_layernorm`` and ``lm_head`` (untied by default).
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.base import Formula, Symbol
from paramcount.engine.conventions.recognition import Shapes
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.mixers import (
    Attention,
    Mamba2,
    Mlp,
    read_attention,
    read_mlp,
)
from paramcount.families.parts import at_most_blocks
from paramcount.record import record

NAME = "bamba"
TITLE = "Bamba (Mamba-2 + attention)"
REFERENCE = "transformers BambaForCausalLM"
MODEL_TYPES = ("bamba",)
CLASSES = ("BambaForCausalLM", "BambaModel")


LAYOUT = Layout("transformers BambaConfig", frozenset({
    "attention_bias", "attention_dropout", "attn_layer_indices", "head_dim", "hidden_act",
    "hidden_size", "initializer_range", "intermediate_size", "layer_types", "mamba_chunk_size",
    "mamba_conv_bias", "mamba_d_conv", "mamba_d_head", "mamba_d_state", "mamba_expand",
    "mamba_n_groups", "mamba_n_heads", "mamba_proj_bias", "max_position_embeddings", "mlp_bias",
    "num_attention_heads", "num_hidden_layers", "num_key_value_heads", "num_logits_to_keep",
    "rms_norm_eps", "rope_parameters", "time_step_limit", "vocab_size", "z_loss_coefficient"}))
"""The keys transformers' ``BambaConfig`` reads (its fields, ``attribute_map`` and the older
names its ``__post_init__`` takes), and those the published files carry that it keeps but never
uses."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class BambaConfig:
    """The options of transformers' ``BambaConfig`` that shape its parameters, its defaults."""

    vocab_size: int = 128000
    hidden_size: int = 4096
    intermediate_size: int = 14336
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: int | None = 8
    head_dim: int | None = None
    attn_layer_indices: tuple[int, ...] = ()
    mamba_n_heads: int = 128
    mamba_d_head: int | str = "auto"
    mamba_n_groups: int = 1
    mamba_d_state: int = 256
    mamba_d_conv: int = 4
    mamba_expand: int = 2
    mamba_conv_bias: bool = True
    mamba_proj_bias: bool = False
    attention_bias: bool = False
    mlp_bias: bool = False
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, (*hybrid.SIZES, *hybrid.MAMBA2_SIZES),
            ("mamba_conv_bias", "mamba_proj_bias", "attention_bias", "mlp_bias",
             "tie_word_embeddings"), ("num_key_value_heads", "head_dim"))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        hybrid.indices(self, "attn_layer_indices", self.num_hidden_layers)
        hybrid.mamba2_heads(self)
        if self.attn_layer_indices:
            hybrid.heads_wide(self)

    @property
    def heads_dim(self) -> int:
        """``head_dim``, or hidden_size // num_attention_heads."""
        return hybrid.heads_dim(self)


Config = BambaConfig

ALIASES = hybrid.MAMBA_ALIASES
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: BambaConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    kv = config.num_key_value_heads or config.num_attention_heads
    att = Attention(d, config.num_attention_heads, kv, config.heads_dim, d,
                    config.attention_bias) if config.attn_layer_indices else None
    mixer = Mamba2(d, config.mamba_expand * d, config.mamba_n_heads, config.mamba_n_groups,
                   config.mamba_d_state, config.mamba_d_conv, config.mamba_conv_bias,
                   config.mamba_proj_bias, config.mamba_proj_bias)
    mlp = Mlp(d, config.intermediate_size, config.mlp_bias)
    for i in range(config.num_hidden_layers):
        p = f"model.layers.{i}."
        s.part("mlp", "mlp", mlp, p + "feed_forward.", i)
        hybrid.norm_of(s, p + "input_layernorm.", d, i)
        hybrid.norm_of(s, p + "pre_ff_layernorm.", d, i)
        if att is not None and i in config.attn_layer_indices:
            s.part("attention", "attention", att, p + "self_attn.", i)
        else:
            s.part("recurrent", "mamba2", mixer, p + "mamba.", i)
    hybrid.final(s, "model.final_layernorm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


def formula(config: BambaConfig) -> Formula:
    """The sum of the parts' closed forms."""
    symbols = (Symbol("V", config.vocab_size, "vocab_size"),
               Symbol("D", config.hidden_size, "hidden_size"),
               Symbol("L", config.num_hidden_layers, "num_hidden_layers"),
               Symbol("A", len(set(config.attn_layer_indices)), "attention layers"))
    return stack(config).formula(symbols)


def json_values(data: Mapping[str, object]) -> dict[str, object]:
    """A null ``attn_layer_indices`` is none given."""
    return {k: v for k, v in data.items() if v is not None or k != "attn_layer_indices"}


tensors, _, from_hf_config = hybrid.conventions(
    stack, BambaConfig, "BambaForCausalLM", lists=("attn_layer_indices",), prepare=json_values)


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``BambaForCausalLM`` among ``shapes``, checked exactly."""
    return hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    if f"{start}0.pre_ff_layernorm.weight" not in shapes or (
            f"{start}0.mamba.dt_bias" in shapes and f"{start}0.self_attn.q_proj.weight" in shapes):
        return None  # not a Bamba layer (Falcon-H1's hold both mixers)
    n = hybrid.layer_count(shapes, start)
    attending = tuple(i for i in range(n) if f"{start}{i}.self_attn.q_proj.weight" in shapes)
    mambas = [i for i in range(n) if i not in attending]
    mlp = read_mlp(shapes, f"{start}0.feed_forward.", "gate_up_down")
    if not n or mlp is None or f"{start}0.pre_ff_layernorm.weight" not in shapes:
        return None
    notes: list[str] = []
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "intermediate_size": mlp.inner,
        "num_hidden_layers": n, "attn_layer_indices": attending, "mlp_bias": mlp.bias,
        "tie_word_embeddings": prefix + "lm_head.weight" not in shapes,
    }
    if mambas:
        mamba = hybrid.mamba_values(shapes, f"{start}{mambas[0]}.mamba.", d)
        if mamba is None:
            return None
        values.update(mamba[0])
        notes.append(mamba[1])
    else:
        values["mamba_n_heads"] = 1  # any that divides the width: no layer holds one
        notes.append("no Mamba-2 layer: attention and MLP layers alone (the Mamba-2 options "
                     "shape nothing)")
    if attending:
        att = read_attention(shapes, f"{start}{attending[0]}.self_attn.", 128)
        if att is None:
            return None
        values.update(num_attention_heads=att.heads, num_key_value_heads=att.kv_heads,
                      head_dim=None if att.head_dim * att.heads == d else att.head_dim,
                      attention_bias=att.bias)
        notes.append(hybrid.heads_note(att))
    return hybrid.accept_values(shapes, NAME, prefix, BambaConfig, values, tensors, notes)
