"""Falcon-H1 as transformers' ``FalconH1ForCausalLM`` builds it from a ``FalconH1Config``: in
every layer a Mamba-2 mixer and attention side by side, then a gated MLP.

Each layer holds its MLP (``feed_forward``: gate, up, down, biases with ``mlp_bias``), the
Mamba-2 mixer (``mamba``: E = ``mamba_d_ssm``, or mamba_expand · hidden_size when that is null;
in_proj's bias with ``mamba_proj_bias``, out_proj's with ``projectors_bias``; the gated RMSNorm
only with ``mamba_rms_norm``), attention (``self_attn``: q, k, v, o, biases with
``attention_bias``, heads ``head_dim`` wide, hidden_size / num_attention_heads when config.json
gives none) and two RMSNorms. Around them ``model.embed_tokens``, ``model.final_layernorm``
and ``lm_head`` (untied by default).
"""

from __future__ import annotations

from paramcount.engine.conventions.recognition import Shapes
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.mixers import (
    Attention,
    Mamba2,
    Mlp,
    read_attention,
    read_mamba2,
    read_mlp,
)
from paramcount.families.parts import at_most_blocks
from paramcount.record import record

NAME = "falcon-h1"
TITLE = "Falcon-H1 (Mamba-2 and attention in parallel)"
REFERENCE = "transformers FalconH1ForCausalLM"
MODEL_TYPES = ("falcon_h1",)
CLASSES = ("FalconH1ForCausalLM", "FalconH1Model")


LAYOUT = Layout("transformers FalconH1Config", frozenset({
    "attention_bias", "attention_dropout", "attention_in_multiplier", "attention_out_multiplier",
    "attn_layer_indices", "embedding_multiplier", "head_dim", "hidden_act", "hidden_size",
    "initializer_range", "intermediate_size", "key_multiplier", "layer_types",
    "lm_head_multiplier", "mamba_chunk_size", "mamba_conv_bias", "mamba_d_conv", "mamba_d_head",
    "mamba_d_ssm", "mamba_d_state", "mamba_expand", "mamba_n_groups", "mamba_n_heads",
    "mamba_norm_before_gate", "mamba_proj_bias", "mamba_rms_norm", "max_position_embeddings",
    "mlp_bias", "mlp_multipliers", "num_attention_heads", "num_hidden_layers",
    "num_key_value_heads", "num_logits_to_keep", "projectors_bias", "rms_norm_eps",
    "rope_parameters", "ssm_in_multiplier", "ssm_multipliers", "ssm_out_multiplier",
    "time_step_limit", "vocab_size"}))
"""The keys transformers' ``FalconH1Config`` reads (its fields, ``attribute_map`` and the older
names its ``__post_init__`` takes), and those the published files carry that it keeps but never
uses."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class FalconH1Config:
    """The options of transformers' ``FalconH1Config`` that shape its parameters, its
    defaults."""

    vocab_size: int = 128000
    hidden_size: int = 4096
    intermediate_size: int = 14336
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: int | None = 8
    head_dim: int | None = None
    mamba_d_ssm: int | None = 1024
    mamba_n_heads: int = 128
    mamba_d_head: int | str = "auto"
    mamba_n_groups: int = 1
    mamba_d_state: int = 256
    mamba_d_conv: int = 4
    mamba_expand: int = 2
    mamba_conv_bias: bool = True
    mamba_proj_bias: bool = False
    mamba_rms_norm: bool = False
    projectors_bias: bool = False
    attention_bias: bool = False
    mlp_bias: bool = False
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, (*hybrid.SIZES, *hybrid.MAMBA2_SIZES),
            ("mamba_conv_bias", "mamba_proj_bias", "mamba_rms_norm", "projectors_bias",
             "attention_bias", "mlp_bias", "tie_word_embeddings"),
            ("num_key_value_heads", "head_dim", "mamba_d_ssm"))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        hybrid.rope_even("head_dim", self.head_dim)
        inner = self.mamba_inner
        if inner % self.mamba_n_heads:
            raise SpecError("{mamba_n_heads} must divide the Mamba width (mamba_d_ssm, or "
                            "mamba_expand · hidden_size)", mamba_n_heads=self.mamba_n_heads)
        d_head = self.mamba_d_head
        if d_head != "auto" and d_head != inner // self.mamba_n_heads:
            raise SpecError("{mamba_d_head} · {mamba_n_heads} must equal the Mamba width "
                            f"{inner} (transformers: the dimensions for the Mamba head state do "
                            "not match the model intermediate_size)",
                            mamba_d_head=d_head, mamba_n_heads=self.mamba_n_heads)
        hybrid.heads_wide(self)

    @property
    def mamba_inner(self) -> int:
        """E: ``mamba_d_ssm``, or mamba_expand · hidden_size when it is null."""
        return self.mamba_d_ssm or self.mamba_expand * self.hidden_size

    @property
    def heads_dim(self) -> int:
        """``head_dim``, or hidden_size // num_attention_heads."""
        return hybrid.heads_dim(self)


Config = FalconH1Config

ALIASES = hybrid.MAMBA_ALIASES
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: FalconH1Config) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    kv = config.num_key_value_heads or config.num_attention_heads
    att = Attention(d, config.num_attention_heads, kv, config.heads_dim, d,
                    config.attention_bias)
    mixer = Mamba2(d, config.mamba_inner, config.mamba_n_heads, config.mamba_n_groups,
                   config.mamba_d_state, config.mamba_d_conv, config.mamba_conv_bias,
                   config.mamba_proj_bias, config.projectors_bias, config.mamba_rms_norm)
    mlp = Mlp(d, config.intermediate_size, config.mlp_bias)
    for i in range(config.num_hidden_layers):
        p = f"model.layers.{i}."
        s.part("mlp", "mlp", mlp, p + "feed_forward.", i)
        s.part("recurrent", "mamba2", mixer, p + "mamba.", i)
        s.part("attention", "attention", att, p + "self_attn.", i)
        hybrid.norm_of(s, p + "input_layernorm.", d, i)
        hybrid.norm_of(s, p + "pre_ff_layernorm.", d, i)
    hybrid.final(s, "model.final_layernorm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


tensors, formula, from_hf_config = hybrid.conventions(
    stack, FalconH1Config, "FalconH1ForCausalLM",
    ("E", "mamba_inner", "the Mamba width (mamba_d_ssm)"), lists=())


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``FalconH1ForCausalLM`` among ``shapes``, checked exactly."""
    return hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    if f"{start}0.mamba.dt_bias" not in shapes:
        return None
    n = hybrid.layer_count(shapes, start)
    if not n:
        return None
    mixer = read_mamba2(shapes, f"{start}0.mamba.")
    mlp = read_mlp(shapes, f"{start}0.feed_forward.", "gate_up_down")
    att = read_attention(shapes, f"{start}0.self_attn.", 128, rope=True)
    if mixer is None or mlp is None or att is None:
        return None
    notes = [hybrid.one_group_note("mamba_n_groups", "mamba_d_state", mixer),
             hybrid.heads_note(att)]
    values = dict(
        vocab_size=vocab, hidden_size=d, intermediate_size=mlp.inner,
        num_hidden_layers=n, num_attention_heads=att.heads, num_key_value_heads=att.kv_heads,
        head_dim=None if att.head_dim * att.heads == d else att.head_dim,
        mamba_d_ssm=mixer.inner, mamba_n_heads=mixer.heads,
        mamba_n_groups=mixer.groups, mamba_d_state=mixer.state, mamba_d_conv=mixer.kernel,
        mamba_conv_bias=mixer.conv_bias, mamba_proj_bias=mixer.bias,
        mamba_rms_norm=mixer.gated_norm, projectors_bias=mixer.out_bias,
        attention_bias=att.bias, mlp_bias=mlp.bias,
        tie_word_embeddings=prefix + "lm_head.weight" not in shapes)
    return hybrid.accept_values(shapes, NAME, prefix, FalconH1Config, values, tensors, notes)
