"""Jamba as transformers' ``JambaForCausalLM`` builds it from a ``JambaConfig``: Mamba layers
with attention every ``attn_layer_period`` layers and a mixture of experts every
``expert_layer_period``.

Layer i is an attention layer when i % attn_layer_period == attn_layer_offset (q, k, v, o
without biases, ``num_key_value_heads`` key/value heads, each head hidden_size /
num_attention_heads wide unless config.json gives ``head_dim``), else a Mamba layer (Jamba's
mixer: Mamba v1 with RMSNorms over dt, B and C). Every layer then has a feed-forward: a mixture
of ``num_experts`` gated experts (``router``, ``experts.gate_up_proj`` (E, 2I, D),
``experts.down_proj`` (E, D, I)) when i % expert_layer_period == expert_layer_offset and
num_experts > 1, else one gated MLP (gate, up, down); and two RMSNorms (``input_layernorm``,
``pre_ff_layernorm``). Around them ``model.embed_tokens``, ``model.final_layernorm`` and
``lm_head`` (untied by default). Each token uses ``num_experts_per_tok`` experts.
"""

from __future__ import annotations

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.mixers import (
    Attention,
    Experts,
    Mamba,
    Mlp,
    read_attention,
    read_experts,
    read_mamba,
    read_mlp,
)
from paramcount.families.parts import at_most_blocks
from paramcount.record import record

NAME = "jamba"
TITLE = "Jamba (Mamba + attention + experts)"
REFERENCE = "transformers JambaForCausalLM"
MODEL_TYPES = ("jamba",)
CLASSES = ("JambaForCausalLM", "JambaModel")


LAYOUT = Layout("transformers JambaConfig", frozenset({
    "attention_dropout", "attn_layer_offset", "attn_layer_period", "expert_layer_offset",
    "expert_layer_period", "head_dim", "hidden_act", "hidden_size", "initializer_range",
    "intermediate_size", "mamba_conv_bias", "mamba_d_conv", "mamba_d_state", "mamba_dt_rank",
    "mamba_expand", "mamba_proj_bias", "max_position_embeddings", "num_attention_heads",
    "num_experts", "num_experts_per_tok", "num_hidden_layers", "num_key_value_heads",
    "num_local_experts", "num_logits_to_keep", "output_router_logits", "rms_norm_eps",
    "router_aux_loss_coef", "sliding_window", "use_associative_scan", "use_mamba_kernels",
    "use_mambapy", "vocab_size"}))
"""The keys transformers' ``JambaConfig`` reads (its fields, ``attribute_map`` and the older
names its ``__post_init__`` takes), and those the published files carry that it keeps but never
uses."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class JambaConfig:
    """The options of transformers' ``JambaConfig`` that shape its parameters, its defaults
    (Jamba-v0.1's)."""

    vocab_size: int = 65536
    hidden_size: int = 4096
    intermediate_size: int = 14336
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: int | None = 8
    head_dim: int | None = None
    num_experts_per_tok: int = 2
    num_experts: int = 16
    expert_layer_period: int = 2
    expert_layer_offset: int = 1
    attn_layer_period: int = 8
    attn_layer_offset: int = 4
    mamba_d_state: int = 16
    mamba_d_conv: int = 4
    mamba_expand: int = 2
    mamba_dt_rank: int | str = "auto"
    mamba_conv_bias: bool = True
    mamba_proj_bias: bool = False
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, (*hybrid.SIZES, "num_experts_per_tok", "num_experts",
                   "expert_layer_period", "attn_layer_period", "mamba_d_state", "mamba_d_conv",
                   "mamba_expand"),
            ("mamba_conv_bias", "mamba_proj_bias", "tie_word_embeddings"),
            ("num_key_value_heads", "head_dim"))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        for name, period in (("attn_layer_offset", "attn_layer_period"),
                             ("expert_layer_offset", "expert_layer_period")):
            offset = getattr(self, name)
            if isinstance(offset, bool) or not isinstance(offset, int) or not (
                    0 <= offset < getattr(self, period)):
                raise SpecError("{" + name + "} must be from 0 to {" + period + "} − 1 "
                                "(transformers: the offset must be smaller than the period)",
                                **{name: offset, period: getattr(self, period)})
        rank = self.mamba_dt_rank
        if rank != "auto" and (isinstance(rank, bool) or not isinstance(rank, int) or rank <= 0):
            raise SpecError("{mamba_dt_rank} must be a positive integer or 'auto'",
                            mamba_dt_rank=rank)
        if self.attention_layers:
            hybrid.heads_wide(self)

    @property
    def attention_layers(self) -> tuple[int, ...]:
        """The layers with attention (the others have a Mamba mixer)."""
        return tuple(i for i in range(self.num_hidden_layers)
                     if i % self.attn_layer_period == self.attn_layer_offset)

    def experts_at(self, layer: int) -> int:
        """How many experts layer ``layer``'s feed-forward has (1: a plain MLP)."""
        at = layer % self.expert_layer_period == self.expert_layer_offset
        return self.num_experts if at else 1

    @property
    def heads_dim(self) -> int:
        """``head_dim``, or hidden_size // num_attention_heads."""
        return hybrid.heads_dim(self)

    @property
    def rank(self) -> int:
        """``mamba_dt_rank``, "auto" being ⌈hidden_size / 16⌉."""
        rank = self.mamba_dt_rank
        return -(-self.hidden_size // 16) if rank == "auto" else int(rank)


Config = JambaConfig

ALIASES: dict[str, tuple[str, ...]] = {"num_experts": ("--num-local-experts", "--experts"),
                                       **hybrid.MAMBA_ALIASES}
"""Names people use for this family's options beside ``--field-name``."""


def attention(config: JambaConfig) -> Attention:
    """An attention layer's part."""
    h = config.hidden_size
    kv = config.num_key_value_heads or config.num_attention_heads
    return Attention(h, config.num_attention_heads, kv, config.heads_dim, h)


def mamba(config: JambaConfig) -> Mamba:
    """A Mamba layer's mixer."""
    return Mamba(config.hidden_size, config.mamba_expand * config.hidden_size,
                 config.mamba_d_state, config.rank, config.mamba_d_conv,
                 config.mamba_conv_bias, config.mamba_proj_bias)


@hybrid.cached
def stack(config: JambaConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    attending = set(config.attention_layers)
    att = attention(config) if attending else None
    mixer = mamba(config) if len(attending) < config.num_hidden_layers else None
    for i in range(config.num_hidden_layers):
        p = f"model.layers.{i}."
        if att is not None and i in attending:
            s.part("attention", "attention", att, p + "self_attn.", i)
        elif mixer is not None:
            s.part("recurrent", "mamba", mixer, p + "mamba.", i)
        experts = config.experts_at(i)
        if experts > 1:
            moe = Experts(d, config.intermediate_size, experts,
                          min(config.num_experts_per_tok, experts))
            s.part("experts", "experts", moe, p + "feed_forward.", i)
            s.idle += moe.count - moe.active
        else:
            s.part("mlp", "mlp", Mlp(d, config.intermediate_size), p + "feed_forward.", i)
        hybrid.norm_of(s, p + "input_layernorm.", d, i)
        hybrid.norm_of(s, p + "pre_ff_layernorm.", d, i)
    hybrid.final(s, "model.final_layernorm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


tensors, formula, from_hf_config = hybrid.conventions(
    stack, JambaConfig, "JambaForCausalLM",
    ("I", "intermediate_size", "intermediate_size (each expert's and MLP's)"),
    ("E", "num_experts"), lists=(), aliases={"num_local_experts": "num_experts"})


def saved_tensors(config: JambaConfig) -> list[Tensor]:
    """The tensors of ``JambaForCausalLM(config)`` as ``save_pretrained`` writes them: each
    expert's gate, up and down projections one by one (the model stacks them)."""
    return hybrid.saved_experts(tensors(config))


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``JambaForCausalLM`` among ``shapes`` (as the model holds its tensors, or as its
    checkpoint stores them), its config read from the tensors and checked exactly."""
    found = _recognise(shapes)
    if found or not any(".feed_forward.experts.0." in name for name in shapes):
        return found
    viewed = hybrid.stacked_view(shapes)
    if viewed is None:
        return []
    view, back = viewed
    return hybrid.from_saved(_recognise(view), back, "the checkpoint stores each expert's "
                             "projections one by one (the model stacks them)")


def _recognise(shapes: Shapes) -> list[RecognisedModel]:
    """The causal LMs named as the model holds its tensors."""
    return hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    if f"{start}0.input_layernorm.weight" not in shapes or f"{start}0.mamba.dt_bias" in shapes:
        return None  # not a Jamba layer (a Mamba-2 mixer has dt_bias: Bamba, Falcon-H1)
    n = hybrid.layer_count(shapes, start)
    if not n:
        return None
    attending = [i for i in range(n) if f"{start}{i}.self_attn.q_proj.weight" in shapes]
    with_experts = [i for i in range(n) if f"{start}{i}.feed_forward.router.weight" in shapes]
    mambas = [i for i in range(n) if i not in attending]
    notes: list[str] = []
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n,
        "tie_word_embeddings": prefix + "lm_head.weight" not in shapes,
    }
    if mambas:
        mixer = read_mamba(shapes, f"{start}{mambas[0]}.mamba.")
        if mixer is None or mixer.width != d or not mixer.inner_norms or mixer.inner % d:
            return None
        values.update(mamba_d_state=mixer.state, mamba_d_conv=mixer.kernel,
                      mamba_expand=mixer.inner // d, mamba_dt_rank=mixer.rank,
                      mamba_conv_bias=mixer.conv_bias, mamba_proj_bias=mixer.bias)
    elif f"{start}0.pre_ff_layernorm.weight" in shapes:
        notes.append("no Mamba layer: attention and MLP layers alone, which a Bamba model "
                     "without Mamba-2 layers holds too (the same tensors)")
    else:
        return None
    values.update(_period("attn_layer", attending, n))
    if with_experts:
        moe = read_experts(shapes, f"{start}{with_experts[0]}.feed_forward.", 2)
        if moe is None:
            return None
        values.update(num_experts=moe.experts, intermediate_size=moe.inner,
                      num_experts_per_tok=min(2, moe.experts))
        values.update(_period("expert_layer", with_experts, n))
        notes.append("num_experts_per_tok is not in the weights: read as 2, the default")
    else:
        mlp = read_mlp(shapes, f"{start}0.feed_forward.", "gate_up_down")
        if mlp is None:
            return None
        values.update(num_experts=1, intermediate_size=mlp.inner)
    if attending:
        att = read_attention(shapes, f"{start}{attending[0]}.self_attn.",
                             d // 32 if d >= 32 else None)
        if att is None:
            return None
        values.update(num_attention_heads=att.heads, num_key_value_heads=att.kv_heads,
                      head_dim=None if att.head_dim * att.heads == d else att.head_dim)
        notes.append(hybrid.heads_note(att))
    return hybrid.accept_values(shapes, NAME, prefix, JambaConfig, values, tensors, notes)


def _period(kind: str, layers: list[int], n: int) -> dict[str, int]:
    """``{kind}_period`` and ``_offset`` that put ``layers`` where they are (empty where no
    period and offset do; the exact check then refuses)."""
    if not layers:
        return {f"{kind}_period": n + 1, f"{kind}_offset": n}
    offset = layers[0]
    period = layers[1] - layers[0] if len(layers) > 1 else n
    period = max(period, offset + 1)
    return {f"{kind}_period": period, f"{kind}_offset": offset}
