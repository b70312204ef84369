"""Granite 4.0-H as transformers' ``GraniteMoeHybridForCausalLM`` builds it from a
``GraniteMoeHybridConfig``: Mamba-2 layers and attention where ``layer_types`` says
(``mamba`` / ``linear_attention``, ``attention`` / ``full_attention``; all Mamba-2 when it is not
given), each beside a mixture of experts and a shared MLP.

Each layer holds, in this order: two RMSNorms (``input_layernorm``,
``post_attention_layernorm``), the experts when ``num_local_experts`` > 0
(``block_sparse_moe``: ``router`` (E, D), ``experts.gate_up_proj`` (E, 2I, D),
``experts.down_proj`` (E, D, I)), the shared MLP (``shared_mlp``: ``input_linear`` (2S, D),
``output_linear`` (D, S)), then its mixer: Mamba-2 (``mamba``: ``dt_bias``, ``A_log``, ``D``
per head, the conv over x, B and C, ``in_proj``, the gated norm, ``out_proj``) or attention
(``self_attn``: q, k, v, o). Around them ``model.embed_tokens``, ``model.norm`` and ``lm_head``
(untied by default). The checkpoint names the experts ``block_sparse_moe.input_linear``,
``output_linear`` and the router ``router.layer``.
"""

from __future__ import annotations

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.mixers import (
    Attention,
    Experts,
    Mamba2,
    Mlp,
    read_attention,
    read_experts,
    read_mlp,
)
from paramcount.families.parts import at_most_blocks, whole_or_zero
from paramcount.record import record, replace

NAME = "granitemoehybrid"
TITLE = "Granite 4.0-H (Mamba-2 + attention + experts + shared MLP)"
REFERENCE = "transformers GraniteMoeHybridForCausalLM"
MODEL_TYPES = ("granitemoehybrid",)
CLASSES = ("GraniteMoeHybridForCausalLM", "GraniteMoeHybridModel")
LAYER_TYPES = {"mamba": "mamba", "linear_attention": "mamba", "attention": "attention",
               "full_attention": "attention"}

LAYOUT = Layout("transformers GraniteMoeHybridConfig", frozenset({
    "attention_bias", "attention_dropout", "attention_multiplier", "embedding_multiplier",
    "head_dim", "hidden_act", "hidden_size", "initializer_range", "intermediate_size",
    "layer_types", "layers_block_type", "logits_scaling", "mamba_chunk_size", "mamba_conv_bias",
    "mamba_d_conv", "mamba_d_head", "mamba_d_state", "mamba_expand", "mamba_n_groups",
    "mamba_n_heads", "mamba_proj_bias", "max_position_embeddings", "normalization_function",
    "num_attention_heads", "num_experts_per_tok", "num_hidden_layers", "num_key_value_heads",
    "num_local_experts", "output_router_logits", "position_embedding_type",
    "residual_multiplier", "rms_norm_eps", "rope_parameters", "rope_scaling", "rope_theta",
    "router_aux_loss_coef", "shared_intermediate_size", "time_step_limit", "vocab_size"}))
"""The keys transformers' ``GraniteMoeHybridConfig`` reads (``layers_block_type`` is
``layer_types``), and those the published files carry that it keeps but never uses."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class GraniteMoeHybridConfig:
    """The options of transformers' ``GraniteMoeHybridConfig`` that shape its parameters, its
    defaults (``head_dim``, which it does not declare, through its attention)."""

    vocab_size: int = 32000
    hidden_size: int = 4096
    intermediate_size: int = 11008
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: int | None = None
    head_dim: int | None = None
    attention_bias: bool = False
    num_local_experts: int = 8
    num_experts_per_tok: int = 2
    shared_intermediate_size: int = 1024
    layer_types: tuple[str, ...] | None = None
    mamba_n_heads: int = 128
    mamba_n_groups: int = 1
    mamba_d_state: int = 256
    mamba_d_head: int | str = "auto"
    mamba_d_conv: int = 4
    mamba_expand: int = 2
    mamba_conv_bias: bool = True
    mamba_proj_bias: bool = False
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, (*hybrid.SIZES, "num_experts_per_tok", "shared_intermediate_size",
                   *hybrid.MAMBA2_SIZES),
            ("attention_bias", "mamba_conv_bias", "mamba_proj_bias", "tie_word_embeddings"),
            ("num_key_value_heads", "head_dim"))
        whole_or_zero("num_local_experts", self.num_local_experts)
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        hybrid.layer_types(self, LAYER_TYPES)
        hybrid.mamba2_heads(self)
        if "attention" in self.types:
            hybrid.heads_wide(self)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's mixer, ``mamba`` or ``attention``."""
        if self.layer_types is None:
            return ("mamba",) * self.num_hidden_layers
        return tuple(LAYER_TYPES[t] for t in self.layer_types)

    @property
    def heads_dim(self) -> int:
        """``head_dim``, or hidden_size // num_attention_heads."""
        return hybrid.heads_dim(self)


Config = GraniteMoeHybridConfig

ALIASES: dict[str, tuple[str, ...]] = {**hybrid.MAMBA_ALIASES,
                                       "num_local_experts": ("--num-experts",)}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: GraniteMoeHybridConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    types = config.types
    kv = config.num_key_value_heads or config.num_attention_heads
    att = Attention(d, config.num_attention_heads, kv, config.heads_dim, d,
                    config.attention_bias) if "attention" in types else None
    mixer = Mamba2(d, config.mamba_expand * d, config.mamba_n_heads, config.mamba_n_groups,
                   config.mamba_d_state, config.mamba_d_conv, config.mamba_conv_bias,
                   config.mamba_proj_bias, config.mamba_proj_bias)
    e = config.num_local_experts
    moe = Experts(d, config.intermediate_size, e, min(config.num_experts_per_tok, e)) if e else None
    shared = Mlp(d, config.shared_intermediate_size, False, "input_output")
    for i, kind in enumerate(types):
        p = f"model.layers.{i}."
        hybrid.norm_of(s, p + "input_layernorm.", d, i)
        hybrid.norm_of(s, p + "post_attention_layernorm.", d, i)
        if moe is not None:
            s.part("experts", "experts", moe, p + "block_sparse_moe.", i)
            s.idle += moe.count - moe.active
        s.part("mlp", "shared mlp", shared, p + "shared_mlp.", i)
        if att is not None and kind == "attention":
            s.part("attention", "attention", att, p + "self_attn.", i)
        else:
            s.part("recurrent", "mamba2", mixer, p + "mamba.", i)
    hybrid.final(s, "model.norm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


tensors, formula, from_hf_config = hybrid.conventions(
    stack, GraniteMoeHybridConfig, "GraniteMoeHybridForCausalLM",
    ("E", "num_local_experts"), aliases={"layers_block_type": "layer_types"})


SAVED = (("block_sparse_moe.experts.gate_up_proj", "block_sparse_moe.input_linear.weight"),
         ("block_sparse_moe.experts.down_proj", "block_sparse_moe.output_linear.weight"),
         ("block_sparse_moe.router.weight", "block_sparse_moe.router.layer.weight"))
"""The experts' names in the model and in the checkpoint (transformers renames them when it
loads and saves)."""


def saved_tensors(config: GraniteMoeHybridConfig) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them: the experts under the checkpoint's
    names."""
    out = []
    for t in tensors(config):
        for ours, theirs in SAVED:
            if t.name.endswith(ours):
                t = replace(t, name=t.name[: -len(ours)] + theirs)
        out.append(t)
    return out


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``GraniteMoeHybridForCausalLM`` among ``shapes`` (as the model holds its tensors,
    or as its checkpoint names them), checked exactly."""
    found = hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)
    if found or not any(n.endswith(SAVED[0][1]) for n in shapes):
        return found
    view, back = hybrid.renamed_view(shapes, lambda name: next(
        (name[: -len(theirs)] + mine for mine, theirs in SAVED if name.endswith(theirs)), name))
    return hybrid.from_saved(hybrid.recognise_roots(view, "embed_tokens", _recognise_at), back,
                             "the checkpoint names the experts input_linear, output_linear "
                             "and router.layer")


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    shared = read_mlp(shapes, f"{start}0.shared_mlp.", "input_output")
    if shared is None:
        return None
    n = hybrid.layer_count(shapes, start)
    types = tuple("attention" if f"{start}{i}.self_attn.q_proj.weight" in shapes else "mamba"
                  for i in range(n))
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n, "layer_types": types,
        "shared_intermediate_size": shared.inner,
        "tie_word_embeddings": prefix + "lm_head.weight" not in shapes}
    notes: list[str] = []
    moe = read_experts(shapes, f"{start}0.block_sparse_moe.", 2)
    if moe is None:
        values.update(num_local_experts=0)
    else:
        values.update(num_local_experts=moe.experts, intermediate_size=moe.inner,
                      num_experts_per_tok=min(2, moe.experts))
        notes.append("num_experts_per_tok is not in the weights: read as 2, the default")
    if "mamba" in types:
        mamba = hybrid.mamba_values(shapes, f"{start}{types.index('mamba')}.mamba.", d)
        if mamba is None:
            return None
        values.update(mamba[0])
        notes.append(mamba[1])
    else:
        values["mamba_n_heads"] = 1  # any that divides the width: no layer holds one
    if "attention" in types:
        att = read_attention(shapes, f"{start}{types.index('attention')}.self_attn.", 128)
        if att is None:
            return None
        values.update(num_attention_heads=att.heads, num_key_value_heads=att.kv_heads,
                      head_dim=None if att.head_dim * att.heads == d else att.head_dim,
                      attention_bias=att.bias)
        notes.append(hybrid.heads_note(att))
    return hybrid.accept_values(shapes, NAME, prefix, GraniteMoeHybridConfig, values, tensors,
                                notes)
