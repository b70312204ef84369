"""MiniMax as transformers' ``MiniMaxForCausalLM`` builds it from a ``MiniMaxConfig``:
lightning attention (a linear attention) and softmax attention where ``layer_types`` says
(``linear_attention``, ``full_attention``; alternating from full attention when it is not
given), each layer with a mixture of experts.

Each layer holds its attention (``self_attn``: lightning attention's ``norm``, ``qkv_proj``,
``out_proj``, ``output_gate``; or q, k, v, o without biases), two RMSNorms
(``input_layernorm``, ``post_attention_layernorm``) and the experts (``mlp``: the router
``gate`` (E, D), ``experts.gate_up_proj`` (E, 2I, D), ``experts.down_proj`` (E, D, I)). Around
them ``model.embed_tokens``, ``model.norm`` and ``lm_head`` (untied by default). MiniMax's own
config.json (model_type ``minimax_text_01``, remote code) names the layers ``attn_type_list``,
which transformers' ``MiniMaxConfig`` does not read.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.linear_mixers import LightningAttention, read_lightning
from paramcount.families.loader import Layout, Reading, unread
from paramcount.families.mixers import Attention, Experts, read_attention, read_experts
from paramcount.families.parts import at_most_blocks
from paramcount.record import record

NAME = "minimax"
TITLE = "MiniMax (lightning attention + attention + experts)"
REFERENCE = "transformers MiniMaxForCausalLM"
MODEL_TYPES = ("minimax",)
CLASSES = ("MiniMaxForCausalLM", "MiniMaxModel")
LAYER_TYPES = {"linear_attention": "lightning", "full_attention": "attention"}

LAYOUT = Layout("transformers MiniMaxConfig", frozenset({
    "attention_dropout", "block_size", "full_attn_alpha_factor", "full_attn_beta_factor",
    "head_dim", "hidden_act", "hidden_size", "initializer_range", "intermediate_size",
    "layer_types", "linear_attn_alpha_factor", "linear_attn_beta_factor",
    "max_position_embeddings", "mlp_alpha_factor", "mlp_beta_factor", "num_attention_heads",
    "num_experts", "num_experts_per_tok", "num_hidden_layers", "num_key_value_heads",
    "num_local_experts", "output_router_logits", "rms_norm_eps", "rope_parameters",
    "rope_theta", "rope_scaling", "router_aux_loss_coef", "router_jitter_noise",
    "sliding_window", "vocab_size"}))
"""The keys transformers' ``MiniMaxConfig`` reads (``num_experts`` is ``num_local_experts``)."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class MiniMaxConfig:
    """The options of transformers' ``MiniMaxConfig`` that shape its parameters, its
    defaults."""

    vocab_size: int = 32000
    hidden_size: int = 4096
    intermediate_size: int = 14336
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: int = 8
    head_dim: int | None = None
    num_local_experts: int = 8
    num_experts_per_tok: int = 2
    layer_types: tuple[str, ...] | None = None
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, (*hybrid.SIZES, "num_key_value_heads", "num_local_experts",
                   "num_experts_per_tok"), ("tie_word_embeddings",), ("head_dim",))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        hybrid.rope_even("head_dim", self.head_dim)
        hybrid.layer_types(self, LAYER_TYPES)
        hybrid.heads_wide(self)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's attention, ``lightning`` or ``attention``."""
        if self.layer_types is None:
            return tuple("attention" if i % 2 == 0 else "lightning"
                          for i in range(self.num_hidden_layers))
        return tuple(LAYER_TYPES[t] for t in self.layer_types)

    @property
    def heads_dim(self) -> int:
        """``head_dim``, or hidden_size // num_attention_heads."""
        return hybrid.heads_dim(self)


Config = MiniMaxConfig

ALIASES: dict[str, tuple[str, ...]] = {**hybrid.HEAD_ALIASES,
                                       "num_local_experts": ("--num-experts",)}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: MiniMaxConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d, hd = config.hidden_size, config.heads_dim
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    att = Attention(d, config.num_attention_heads, config.num_key_value_heads, hd, d)
    lightning = LightningAttention(d, config.num_attention_heads, hd)
    e = config.num_local_experts
    moe = Experts(d, config.intermediate_size, e, min(config.num_experts_per_tok, e), "mixtral")
    for i, kind in enumerate(config.types):
        p = f"model.layers.{i}."
        if kind == "lightning":
            s.part("recurrent", "lightning attention", lightning, p + "self_attn.", i)
        else:
            s.part("attention", "attention", att, p + "self_attn.", i)
        hybrid.norm_of(s, p + "input_layernorm.", d, i)
        hybrid.norm_of(s, p + "post_attention_layernorm.", d, i)
        s.part("experts", "experts", moe, p + "mlp.", i)
        s.idle += moe.count - moe.active
    hybrid.final(s, "model.norm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


tensors, formula, from_hf_config = hybrid.conventions(
    stack, MiniMaxConfig, "MiniMaxForCausalLM", ("E", "num_local_experts"),
    aliases={"num_experts": "num_local_experts"})


def load(data: Mapping[str, object]) -> Reading:
    """A ``config.json`` read as transformers reads it, with a note where it names its layers
    ``attn_type_list`` (MiniMax's own key), which transformers' class does not read."""
    from paramcount.families.loader import base_class

    notes = unread(data, LAYOUT)
    if "attn_type_list" in data and data.get("layer_types") is None:
        notes.append("attn_type_list is MiniMax's own key, which transformers' MiniMaxConfig "
                     "does not read: the layers are its default alternation (give layer_types "
                     "to place them)")
    return Reading(from_hf_config(data), LAYOUT.name, tuple(notes),
                   base_class(data, ("MiniMaxModel",)))


SAVED = {"gate_proj": "w1", "up_proj": "w3", "down_proj": "w2"}
"""How the checkpoint names each expert's projections (Mixtral's layout: the experts one by
one under ``block_sparse_moe.``, where the model stacks them under ``mlp.``)."""
BUFFERS = ("slope_rate", "query_decay", "key_decay", "diagonal_decay")
"""Lightning attention's decay buffers, which the checkpoint holds beside the parameters."""


def saved_tensors(config: MiniMaxConfig) -> list[Tensor]:
    """The tensors of ``MiniMaxForCausalLM(config)`` as ``save_pretrained`` writes them: each
    expert's ``w1``, ``w3`` and ``w2`` one by one under ``block_sparse_moe.`` (the decay
    buffers beside them are not parameters)."""
    return hybrid.per_expert_names(tensors(config), SAVED, (".mlp.", ".block_sparse_moe."))


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``MiniMaxForCausalLM`` among ``shapes`` (as the model holds its tensors, or as
    its checkpoint stores them), checked exactly."""
    found = hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)
    if found or not any(".block_sparse_moe.experts.0.w1." in name for name in shapes):
        return found
    return hybrid.recognise_renamed(shapes, _model_name, _recognise_at,
                                    "the checkpoint stores each expert's w1, w3 and w2 one by "
                                    "one under block_sparse_moe (the model stacks them under "
                                    "mlp); the lightning attention's decay buffers beside "
                                    "them are not parameters")


def _model_name(name: str) -> str | None:
    """A checkpoint's name as the model's stacked view reads it; None for the decay
    buffers."""
    return hybrid.stacked_name(name, SAVED, BUFFERS, (".mlp.", ".block_sparse_moe."))


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    attention = (f"{start}0.self_attn.{n}.weight" for n in ("o_proj", "qkv_proj"))
    if f"{start}0.mlp.gate.weight" not in shapes or not any(n in shapes for n in attention):
        return None
    n = hybrid.layer_count(shapes, start)
    types = tuple("linear_attention" if f"{start}{i}.self_attn.qkv_proj.weight" in shapes
                  else "full_attention" for i in range(n))
    moe = read_experts(shapes, f"{start}0.mlp.", 2)
    if moe is None or moe.style not in ("mixtral", "lfm2_moe"):
        return None
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n, "layer_types": types,
        "num_local_experts": moe.experts, "intermediate_size": moe.inner,
        "num_experts_per_tok": min(2, moe.experts),
        "tie_word_embeddings": prefix + "lm_head.weight" not in shapes}
    notes = ["num_experts_per_tok is not in the weights: read as 2, the default"]
    if "full_attention" in types:
        att = read_attention(shapes, f"{start}{types.index('full_attention')}.self_attn.", 128,
                             rope=True)
        if att is None or att.bias:
            return None
        values.update(num_attention_heads=att.heads, num_key_value_heads=att.kv_heads,
                      head_dim=None if att.head_dim * att.heads == d else att.head_dim)
        notes.append(hybrid.heads_note(att))
    else:
        light = read_lightning(shapes, f"{start}0.self_attn.", 128)
        if light is None:
            return None
        inner = light.heads * light.head_dim
        # the widest head transformers' RoPE takes (even, or at most 4), no more heads than D
        width = next((w for w in range(inner, 0, -1) if inner % w == 0 and (
            w <= 4 or w % 2 == 0) and inner // w <= d), 1)
        values.update(num_attention_heads=inner // width, num_key_value_heads=inner // width,
                      head_dim=None if inner == d else width)
        notes.append(f"no softmax attention layer: heads read as {inner // width} of width "
                     f"{width} (the weights hold only heads × width)")
    return hybrid.accept_values(shapes, NAME, prefix, MiniMaxConfig, values, tensors, notes)
