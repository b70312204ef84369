"""Qwen3-Next as transformers' ``Qwen3NextForCausalLM`` builds it from a ``Qwen3NextConfig``:
Gated DeltaNet layers with gated attention every ``full_attention_interval``-th layer (or where
``layer_types`` says ``full_attention``), a mixture of experts with a shared expert in every
``decoder_sparse_step``-th layer (a gated MLP in ``mlp_only_layers`` and where
``num_experts`` is 0).

Each layer holds either the Gated DeltaNet (``linear_attn``: ``dt_bias``, ``A_log``, a
depthwise ``conv1d`` over q, k and v, ``in_proj_qkvz``, ``in_proj_ba``, the gated ``norm`` and
``out_proj``) or gated attention (``self_attn``: q_proj makes q and the output gate,
2·heads·head_dim rows; k, v, o; RMSNorms ``q_norm``, ``k_norm`` over a head), then the MLP
(``mlp``: the router ``gate``, ``experts.gate_up_proj`` (E, 2I, D), ``experts.down_proj``
(E, D, I), the ``shared_expert`` (gate, up, down) and its ``shared_expert_gate`` (1, D)) and two
RMSNorms (``input_layernorm``, ``post_attention_layernorm``). Around them
``model.embed_tokens``, ``model.norm`` and ``lm_head`` (untied by default). Qwen3.5's text
models (:mod:`paramcount.families.qwen3_5`, :mod:`paramcount.families.qwen3_5_moe`) are built
from the same parts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.linear_mixers import GatedDeltaNet, read_gated_deltanet
from paramcount.families.loader import Layout
from paramcount.families.mixers import Attention, Experts, Mlp, read_experts, read_mlp
from paramcount.families.parts import at_most_blocks, whole_or_zero
from paramcount.record import record, replace

NAME = "qwen3-next"
TITLE = "Qwen3-Next (Gated DeltaNet + gated attention + experts)"
REFERENCE = "transformers Qwen3NextForCausalLM"
MODEL_TYPES = ("qwen3_next",)
CLASSES = ("Qwen3NextForCausalLM", "Qwen3NextModel")
LAYER_TYPES = {"linear_attention": "linear", "full_attention": "attention"}

COMMON = frozenset({
    "attention_bias", "attention_dropout", "head_dim", "hidden_act", "hidden_size",
    "initializer_range", "layer_types", "linear_conv_kernel_dim", "linear_key_head_dim",
    "linear_num_key_heads", "linear_num_value_heads", "linear_value_head_dim",
    "max_position_embeddings", "num_attention_heads", "num_hidden_layers",
    "num_key_value_heads", "rms_norm_eps", "rope_parameters", "rope_scaling", "rope_theta",
    "partial_rotary_factor", "full_attention_interval", "vocab_size"})
"""The keys every Qwen3-Next and Qwen3.5 text config reads (``full_attention_interval`` and
the rope keys through ``__post_init__``)."""
EXPERT_KEYS = frozenset({"moe_intermediate_size", "shared_expert_intermediate_size",
                         "num_experts_per_tok", "num_experts", "output_router_logits",
                         "router_aux_loss_coef"})
"""The keys of the configs with experts."""

LAYOUT = Layout("transformers Qwen3NextConfig", COMMON | EXPERT_KEYS | {
    "intermediate_size", "decoder_sparse_step", "mlp_only_layers", "norm_topk_prob"})
"""The keys transformers' ``Qwen3NextConfig`` reads."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class Qwen3NextConfig:
    """The options of transformers' ``Qwen3NextConfig`` that shape its parameters, its
    defaults (``full_attention_interval`` places attention when ``layer_types`` is not
    given)."""

    vocab_size: int = 151936
    hidden_size: int = 2048
    intermediate_size: int = 5632
    num_hidden_layers: int = 48
    num_attention_heads: int = 16
    num_key_value_heads: int = 2
    head_dim: int = 256
    attention_bias: bool = False
    linear_conv_kernel_dim: int = 4
    linear_key_head_dim: int = 128
    linear_value_head_dim: int = 128
    linear_num_key_heads: int = 16
    linear_num_value_heads: int = 32
    decoder_sparse_step: int = 1
    moe_intermediate_size: int = 512
    shared_expert_intermediate_size: int = 512
    num_experts_per_tok: int = 10
    num_experts: int = 512
    mlp_only_layers: tuple[int, ...] = ()
    full_attention_interval: int = 4
    layer_types: tuple[str, ...] | None = None
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        check(self, ("intermediate_size", "decoder_sparse_step", "moe_intermediate_size",
                     "shared_expert_intermediate_size", "num_experts_per_tok"))
        whole_or_zero("num_experts", self.num_experts)
        hybrid.indices(self, "mlp_only_layers", self.num_hidden_layers)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's mixer, ``linear`` or ``attention``."""
        return layer_kinds(self)

    def experts_at(self, layer: int) -> bool:
        """Whether layer ``layer`` holds the mixture of experts (else a gated MLP)."""
        return (layer not in self.mlp_only_layers and self.num_experts > 0
                and (layer + 1) % self.decoder_sparse_step == 0)


Config = Qwen3NextConfig

ALIASES: dict[str, tuple[str, ...]] = hybrid.HEAD_ALIASES
"""Names people use for this family's options beside ``--field-name``."""


def check(config: Any, more: tuple[str, ...], kinds: Mapping[str, str] = LAYER_TYPES) -> None:
    """The rules of a Qwen3-Next-like config: sizes whole and positive, bools,
    ``layer_types`` one per layer, each one of ``kinds`` (``linear_attention`` or
    ``full_attention``)."""
    interval = ("full_attention_interval",) if hasattr(config, "full_attention_interval") else ()
    hybrid.check_types(
        config, ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                 "num_key_value_heads", "head_dim", "linear_conv_kernel_dim",
                 "linear_key_head_dim", "linear_value_head_dim", "linear_num_key_heads",
                 "linear_num_value_heads", *interval, *more),
        ("attention_bias", "tie_word_embeddings"))
    at_most_blocks("num_hidden_layers", config.num_hidden_layers)
    hybrid.layer_types(config, kinds)


def layer_kinds(config: Any) -> tuple[str, ...]:
    """Each layer's mixer: ``layer_types``, or attention every ``full_attention_interval``-th
    layer."""
    if config.layer_types is not None:
        return tuple(LAYER_TYPES[t] for t in config.layer_types)
    every = config.full_attention_interval
    return tuple("linear" if (i + 1) % every else "attention"
                 for i in range(config.num_hidden_layers))


def build(config: Any, style: str, experts_at: Any, kinds: tuple[str, ...] | None = None,
          gated: bool = True, moe_style: str = "qwen_next") -> hybrid.Stack:
    """The stack of a Qwen3-Next-like config: Gated DeltaNet of ``style`` or attention (gated
    unless ``gated`` is false) where ``kinds`` (by default :func:`layer_kinds`) says, then
    experts of ``moe_style`` where ``experts_at(i)`` says so, else the gated MLP
    ``intermediate_size`` wide."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    att = Attention(d, config.num_attention_heads, config.num_key_value_heads, config.head_dim,
                    d, config.attention_bias, "o_proj", True, "norm", gated)
    delta = GatedDeltaNet(d, config.linear_num_key_heads, config.linear_num_value_heads,
                          config.linear_key_head_dim, config.linear_value_head_dim,
                          config.linear_conv_kernel_dim, style)
    windows = getattr(config, "windows", None)  # Lara Mini's sliding attention
    for i, kind in enumerate(kinds or layer_kinds(config)):
        p = f"model.layers.{i}."
        if kind == "attention":
            window = windows[i] if windows else 0
            s.part("attention", "gated attention" if gated else "attention", att,
                   p + "self_attn.", i, state=not window)
            if window:
                s.holds(i, "sliding attention", replace(att, window=window))
        else:
            s.part("recurrent", "gated deltanet", delta, p + "linear_attn.", i)
        if experts_at(i):
            moe = Experts(d, config.moe_intermediate_size, config.num_experts,
                          min(config.num_experts_per_tok, config.num_experts), moe_style,
                          config.shared_expert_intermediate_size)
            s.part("experts", "experts", moe, p + "mlp.", i)
            s.idle += moe.count - moe.active
        else:
            s.part("mlp", "mlp", Mlp(d, config.intermediate_size), p + "mlp.", i)
        hybrid.norm_of(s, p + "input_layernorm.", d, i)
        hybrid.norm_of(s, p + "post_attention_layernorm.", d, i)
    hybrid.final(s, "model.norm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


@hybrid.cached
def stack(config: Qwen3NextConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    return build(config, "fused", config.experts_at)


def read_layers(data: Mapping[str, object]) -> dict[str, object]:
    """The values of ``data`` but ``full_attention_interval`` where ``layer_types`` is given
    (the reference reads it only to make ``layer_types``), null lists as the reference's
    defaults."""
    values = dict(data)
    if values.get("layer_types") is not None:
        values.pop("full_attention_interval", None)
    if values.get("mlp_only_layers", ()) is None:
        values.pop("mlp_only_layers")
    return values


tensors, formula, from_hf_config = hybrid.conventions(
    stack, Qwen3NextConfig, "Qwen3NextForCausalLM", lists=("layer_types", "mlp_only_layers"),
    prepare=read_layers)


def saved_tensors(config: Qwen3NextConfig) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them: each expert's gate, up and down
    projections one by one (the model stacks them)."""
    return hybrid.saved_experts(tensors(config))


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Qwen3NextForCausalLM`` among ``shapes`` (as the model holds its tensors, or as
    its checkpoint stores them), its config read from the tensors and checked exactly."""
    return recognise_family(shapes, _recognise_at)


def recognise_family(shapes: Shapes, at: Any) -> list[RecognisedModel]:
    """The models ``at`` finds at each causal LM's root, as the model holds its tensors or,
    failing that, with each expert stored on its own."""
    found: list[RecognisedModel] = hybrid.recognise_roots(shapes, "embed_tokens", at)
    if found or not any(".mlp.experts.0." in name for name in shapes):
        return found
    viewed = hybrid.stacked_view(shapes)
    if viewed is None:
        return []
    view, back = viewed
    return hybrid.from_saved(hybrid.recognise_roots(view, "embed_tokens", at), back,
                             "the checkpoint stores each expert's projections one by one "
                             "(the model stacks them)")


def read_stack(shapes: Shapes, prefix: str, vocab: int, d: int, style: str,
               gated: bool = True, moe_style: str = "qwen_next"
               ) -> tuple[dict[str, object], list[str], list[int]] | None:
    """What a Qwen3-Next-like stack's tensors say (its DeltaNet of ``style``, its attention
    gated or not, its experts of ``moe_style``): the config's values, the notes, and the
    layers whose MLP is a mixture of experts; None where they are not such a stack."""
    start = f"{prefix}model.layers."
    if f"{start}0.post_attention_layernorm.weight" not in shapes:
        return None
    n = hybrid.layer_count(shapes, start)
    if not n:
        return None
    kinds = ["full_attention" if f"{start}{i}.self_attn.q_proj.weight" in shapes
             else "linear_attention" for i in range(n)]
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n,
        "layer_types": tuple(kinds), "tie_word_embeddings": prefix + "lm_head.weight" not in shapes}
    notes: list[str] = []
    if "linear_attention" in kinds:
        i = kinds.index("linear_attention")
        delta = read_gated_deltanet(shapes, f"{start}{i}.linear_attn.", 128)
        if delta is None or delta.style != style:
            return None
        values.update(linear_num_key_heads=delta.key_heads, linear_key_head_dim=delta.key_dim,
                      linear_num_value_heads=delta.value_heads,
                      linear_value_head_dim=delta.value_dim,
                      linear_conv_kernel_dim=delta.kernel)
        notes.append(f"key heads read as {delta.key_heads} of width {delta.key_dim}: the "
                     "weights hold only heads × width")
    if "full_attention" in kinds:
        p = f"{start}{kinds.index('full_attention')}.self_attn."
        q, k, qn = (shapes.get(p + n) for n in ("q_proj.weight", "k_proj.weight",
                                                "q_norm.weight"))
        if not (is_shape(q, 2) and is_shape(k, 2) and is_shape(qn, 1)):
            return None
        assert q is not None and k is not None and qn is not None
        width = qn[0]
        g = 1 + int(gated)
        if q[0] % (g * width) or k[0] % width:
            return None
        values.update(num_attention_heads=q[0] // (g * width),
                      num_key_value_heads=k[0] // width, head_dim=width,
                      attention_bias=p + "q_proj.bias" in shapes)
    moe = [i for i in range(n) if f"{start}{i}.mlp.gate.weight" in shapes]
    dense = [i for i in range(n) if i not in moe]
    if moe:
        experts = read_experts(shapes, f"{start}{moe[0]}.mlp.", 10)
        if experts is None or experts.style != moe_style:
            return None
        values.update(num_experts=experts.experts, moe_intermediate_size=experts.inner,
                      shared_expert_intermediate_size=experts.shared_inner)
        notes.append("num_experts_per_tok is not in the weights: read as the default")
    if dense:
        mlp = read_mlp(shapes, f"{start}{dense[0]}.mlp.", "gate_up_down")
        if mlp is None:
            return None
        values["intermediate_size"] = mlp.inner
    return values, notes, moe


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    read = read_stack(shapes, prefix, vocab, d, "fused")
    if read is None:
        return None
    values, notes, moe = read
    n = int(str(values["num_hidden_layers"]))
    if not moe:
        values["num_experts"] = 0
    values["mlp_only_layers"] = tuple(i for i in range(n) if i not in moe) if moe else ()
    return hybrid.accept_values(shapes, NAME, prefix, Qwen3NextConfig, values, tensors, notes)
