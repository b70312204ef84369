"""Nemotron-H as transformers' ``NemotronHForCausalLM`` builds it from a ``NemotronHConfig``:
one RMSNorm and one mixer per layer, the mixer chosen by the layer's type.

``layers_block_type`` (or the older ``hybrid_override_pattern``: ``M`` Mamba-2, ``*``
attention, ``-`` MLP, ``E`` experts) lists the layers; their number is its length
(``num_hidden_layers`` in config.json is ignored, as transformers ignores it). Each layer holds
``norm`` and ``mixer``: a Mamba-2 mixer (``mamba_num_heads`` heads ``mamba_head_dim`` wide,
``n_groups`` groups of ``ssm_state_size``; conv bias with ``use_conv_bias``, projection biases
with ``use_bias``), attention (q, k, v, o without biases, heads ``head_dim`` wide), a
squared-ReLU MLP (up, down; ``intermediate_size``, biases with ``mlp_bias``) or a mixture of
``n_routed_experts`` such MLPs (``moe_intermediate_size``) with a router ``gate``, a shared
expert and, with ``moe_latent_size``, projections into and out of a latent space. Around them
``model.embeddings``, ``model.norm_f`` and ``lm_head``, never tied: transformers'
``NemotronHForCausalLM`` ties nothing, whatever ``tie_word_embeddings`` says. The router's
``e_score_correction_bias`` is a buffer, not a parameter; multi-token-prediction layers
(``num_nextn_predict_layers``) are not built by transformers.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.base import Formula, Symbol, Tensor
from paramcount.engine.conventions.recognition import Shapes
from paramcount.errors import SpecError
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
    read_mamba2,
    read_mlp,
)
from paramcount.families.parts import at_most_blocks
from paramcount.record import record, replace

NAME = "nemotron-h"
TITLE = "Nemotron-H (Mamba-2 / attention / MLP / experts)"
REFERENCE = "transformers NemotronHForCausalLM"
MODEL_TYPES = ("nemotron_h",)
CLASSES = ("NemotronHForCausalLM", "NemotronHModel")
LAYER_TYPES = {"linear_attention": "mamba", "mamba": "mamba", "full_attention": "attention",
               "attention": "attention", "mlp": "mlp", "moe": "moe"}
"""The layer types config.json may name (transformers' own and the older ``mamba`` and
``attention``), and what each builds."""
PATTERN = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}
"""``hybrid_override_pattern``'s letters."""
DEFAULT_LAYERS = ("linear_attention", "moe", "full_attention", "mlp")


LAYOUT = Layout("transformers NemotronHConfig", frozenset({
    "attention_bias", "attention_dropout", "chunk_size", "conv_kernel", "expand", "head_dim",
    "hidden_dropout", "hidden_size", "hybrid_override_pattern", "initializer_range",
    "intermediate_size", "layer_norm_epsilon", "layer_types", "layers_block_type",
    "mamba_chunk_size", "mamba_conv_bias", "mamba_d_conv", "mamba_dt_init_floor",
    "mamba_dt_limit", "mamba_dt_max", "mamba_dt_min", "mamba_expand", "mamba_head_dim",
    "mamba_hidden_act", "mamba_n_groups", "mamba_num_heads", "mamba_proj_bias",
    "mamba_ssm_cache_dtype", "max_position_embeddings", "mlp_bias", "mlp_hidden_act",
    "moe_intermediate_size", "moe_latent_size", "moe_shared_expert_intermediate_size",
    "moe_shared_expert_overlap", "mtp_hybrid_override_pattern", "mtp_layers_block_type",
    "n_group", "n_groups", "n_routed_experts", "n_shared_experts", "norm_topk_prob",
    "num_attention_heads", "num_experts_per_tok", "num_hidden_layers", "num_key_value_heads",
    "num_local_experts", "num_logits_to_keep", "num_nextn_predict_layers", "output_router_logits",
    "rescale_prenorm_residual", "residual_in_fp32", "routed_scaling_factor", "sliding_window",
    "ssm_state_size", "time_step_floor", "time_step_limit", "time_step_max", "time_step_min",
    "topk_group", "use_bias", "use_conv_bias", "use_mamba_kernels", "vocab_size"}))
"""The keys transformers' ``NemotronHConfig`` reads (its fields, ``attribute_map`` and the older
names its ``__post_init__`` takes), and those the published files carry that it keeps but never
uses."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class NemotronHConfig:
    """The options of transformers' ``NemotronHConfig`` that shape its parameters, its
    defaults."""

    vocab_size: int = 131072
    hidden_size: int = 4096
    layers_block_type: tuple[str, ...] | None = None
    hybrid_override_pattern: str | None = None
    num_attention_heads: int = 32
    num_key_value_heads: int = 8
    head_dim: int = 128
    intermediate_size: int = 21504
    mlp_bias: bool = False
    ssm_state_size: int = 128
    mamba_num_heads: int = 128
    mamba_head_dim: int = 64
    n_groups: int = 8
    conv_kernel: int = 4
    use_conv_bias: bool = True
    use_bias: bool = False
    n_routed_experts: int = 8
    num_experts_per_tok: int = 2
    moe_intermediate_size: int = 7688
    moe_shared_expert_intermediate_size: int = 7688
    moe_latent_size: int | None = None

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, ("vocab_size", "hidden_size", "num_attention_heads", "num_key_value_heads",
                   "head_dim", "intermediate_size", "ssm_state_size", "mamba_num_heads",
                   "mamba_head_dim", "n_groups", "conv_kernel", "n_routed_experts",
                   "num_experts_per_tok", "moe_intermediate_size",
                   "moe_shared_expert_intermediate_size"),
            ("mlp_bias", "use_conv_bias", "use_bias"),
            ("moe_latent_size",))
        if self.layers_block_type is not None:
            hybrid.kinds_of(self, "layers_block_type", LAYER_TYPES)
        elif self.hybrid_override_pattern is not None:
            pattern = self.hybrid_override_pattern
            if not isinstance(pattern, str) or not pattern or any(
                    c not in PATTERN for c in pattern):
                raise SpecError("{hybrid_override_pattern} must be letters M (Mamba-2), * "
                                "(attention), - (MLP), E (experts)",
                                hybrid_override_pattern=pattern)
        at_most_blocks("num_hidden_layers", len(self.types))

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's mixer: ``mamba``, ``attention``, ``mlp`` or ``moe``."""
        if self.layers_block_type is not None:
            return tuple(LAYER_TYPES[t] for t in self.layers_block_type)
        if self.hybrid_override_pattern is not None:
            return tuple(PATTERN[c] for c in self.hybrid_override_pattern)
        return tuple(LAYER_TYPES[t] for t in DEFAULT_LAYERS)


Config = NemotronHConfig

ALIASES: dict[str, tuple[str, ...]] = {**hybrid.HEAD_ALIASES,
                                       "hybrid_override_pattern": ("--pattern",),
                                       "ssm_state_size": ("--d-state",),
                                       "n_routed_experts": ("--num-local-experts",
                                                            "--experts")}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: NemotronHConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embeddings.weight", config.vocab_size, d)
    inner = config.mamba_num_heads * config.mamba_head_dim
    parts: dict[str, tuple[str, str, hybrid.Part]] = {
        "mamba": ("recurrent", "mamba2", Mamba2(
            d, inner, config.mamba_num_heads, config.n_groups, config.ssm_state_size,
            config.conv_kernel, config.use_conv_bias, config.use_bias, config.use_bias)),
        "attention": ("attention", "attention", Attention(
            d, config.num_attention_heads, config.num_key_value_heads, config.head_dim, d)),
        "mlp": ("mlp", "mlp", Mlp(d, config.intermediate_size, config.mlp_bias, "up_down")),
        "moe": ("experts", "experts", Experts(
            d, config.moe_intermediate_size, config.n_routed_experts,
            min(config.num_experts_per_tok, config.n_routed_experts), "nemotron_h",
            config.moe_shared_expert_intermediate_size, config.moe_latent_size,
            config.mlp_bias)),
    }
    for i, kind in enumerate(config.types):
        p = f"model.layers.{i}."
        hybrid.norm_of(s, p + "norm.", d, i)
        group, label, part = parts[kind]
        s.part(group, label, part, p + "mixer.", i)
        if isinstance(part, Experts):
            s.idle += part.count - part.active
    hybrid.final(s, "model.norm_f.", config.vocab_size, d, False)
    return s


def formula(config: NemotronHConfig) -> Formula:
    """The sum of the parts' closed forms."""
    symbols = (Symbol("V", config.vocab_size, "vocab_size"),
               Symbol("D", config.hidden_size, "hidden_size"),
               Symbol("L", len(config.types), "layers (the pattern's length)"))
    return stack(config).formula(symbols)


ALIAS_KEYS = {"mamba_n_groups": "n_groups", "mamba_d_conv": "conv_kernel",
              "mamba_conv_bias": "use_conv_bias", "num_local_experts": "n_routed_experts"}
"""config.json keys transformers also reads (its ``__post_init__`` and ``attribute_map``)."""


def json_values(data: Mapping[str, object]) -> dict[str, object]:
    """The older ``mamba_…`` names win over the new where both are given, as its
    ``__post_init__`` pops them; ``layers_block_type`` over ``hybrid_override_pattern``."""
    values = dict(data)
    for key, field in ALIAS_KEYS.items():
        if key in values and (key.startswith("mamba_") or field not in values):
            values[field] = values[key]
    if values.get("layers_block_type") is None and values.get("layer_types") is not None:
        values["layers_block_type"] = values["layer_types"]
    return values


tensors, _, from_hf_config = hybrid.conventions(
    stack, NemotronHConfig, "NemotronHForCausalLM", lists=("layers_block_type",),
    prepare=json_values)


SAVED_BACKBONE = "backbone."
"""The prefix ``save_pretrained`` writes the causal LM's base model under (NVIDIA's own name,
where the model says ``model.``)."""


def saved_tensors(config: NemotronHConfig) -> list[Tensor]:
    """The parameters of ``NemotronHForCausalLM(config)`` as ``save_pretrained`` writes them:
    under ``backbone.``, each expert's projections one by one (the router's
    ``e_score_correction_bias`` buffer, which the checkpoint holds too, is no parameter)."""
    return [replace(t, name=SAVED_BACKBONE + t.name[len(BACKBONE):])
            if t.name.startswith(BACKBONE) else t
            for t in hybrid.saved_experts(tensors(config))]


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``NemotronHForCausalLM`` among ``shapes``, as the model names its tensors or as
    its checkpoint stores them (under ``backbone.``, experts one by one), checked exactly."""
    found = _recognise(shapes)
    if found:
        return found
    note = ("the checkpoint's names: under backbone., each expert's projections one by one; the "
            "routers' e_score_correction_bias buffers are not parameters")
    for name in shapes:
        if not name.endswith(SAVED_BACKBONE + "embeddings.weight"):
            continue
        root = name[: -len("embeddings.weight")]
        viewed = hybrid.stacked_view(shapes, (root, root[: -len(SAVED_BACKBONE)] + BACKBONE))
        if viewed is not None:
            models = [m for m in _recognise(viewed[0])
                      if set(m.config.types) != {"mamba"}]  # that is Mamba2ForCausalLM's shape
            found += hybrid.from_saved(models, viewed[1], note)
    if not found and any(".mixer.experts.0." in name for name in shapes):
        viewed = hybrid.stacked_view(shapes)
        if viewed is not None:
            found = hybrid.from_saved(_recognise(viewed[0]), viewed[1], note)
    return found


def _recognise(shapes: Shapes) -> list[RecognisedModel]:
    """The causal LMs named as the model holds its tensors."""
    return hybrid.recognise_roots(shapes, "embeddings", _recognise_at)


def _kind(shapes: Shapes, mixer: str) -> str | None:
    """A layer's mixer, from its tensors."""
    if mixer + "dt_bias" in shapes:
        return "M"
    if mixer + "q_proj.weight" in shapes:
        return "*"
    if mixer + "experts.down_proj" in shapes:
        return "E"
    if mixer + "up_proj.weight" in shapes:
        return "-"
    return None


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    if f"{start}0.norm.weight" not in shapes:
        return None
    n = hybrid.layer_count(shapes, start)
    kinds = [_kind(shapes, f"{start}{i}.mixer.") for i in range(n)]
    if not n or None in kinds or f"{prefix}model.norm_f.weight" not in shapes:
        return None
    pattern = "".join(k for k in kinds if k is not None)
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "hybrid_override_pattern": pattern}
    notes: list[str] = []
    if "M" in pattern:
        mixer = read_mamba2(shapes, f"{start}{pattern.index('M')}.mixer.", 8)
        if mixer is None or mixer.inner % mixer.heads:
            return None
        values.update(ssm_state_size=mixer.state, mamba_num_heads=mixer.heads,
                      mamba_head_dim=mixer.inner // mixer.heads, n_groups=mixer.groups,
                      conv_kernel=mixer.kernel, use_conv_bias=mixer.conv_bias,
                      use_bias=mixer.bias)
        notes.append(f"the weights hold only n_groups × ssm_state_size = "
                     f"{mixer.groups * mixer.state}: read as {mixer.groups} × {mixer.state}")
    if "*" in pattern:
        att = read_attention(shapes, f"{start}{pattern.index('*')}.mixer.", 128)
        if att is None:
            return None
        values.update(num_attention_heads=att.heads, num_key_value_heads=att.kv_heads,
                      head_dim=att.head_dim)
        notes.append(hybrid.heads_note(att))
    if "-" in pattern:
        mlp = read_mlp(shapes, f"{start}{pattern.index('-')}.mixer.", "up_down")
        if mlp is None:
            return None
        values.update(intermediate_size=mlp.inner, mlp_bias=mlp.bias)
    if "E" in pattern:
        moe = read_experts(shapes, f"{start}{pattern.index('E')}.mixer.", 2)
        if moe is None:
            return None
        values.update(n_routed_experts=moe.experts, moe_intermediate_size=moe.inner,
                      moe_shared_expert_intermediate_size=moe.shared_inner,
                      moe_latent_size=moe.latent, mlp_bias=moe.bias,
                      num_experts_per_tok=min(2, moe.experts))
        notes.append("num_experts_per_tok is not in the weights: read as 2, the default")
    return hybrid.accept_values(shapes, NAME, prefix, NemotronHConfig, values, tensors, notes)
