"""Ling 3 (``bailing_hybrid``) as transformers' ``BailingHybridForCausalLM`` builds it from a
``BailingHybridConfig``: Kimi Linear's layout (:mod:`paramcount.families.kimi_linear`) with
Ling's parts. Kimi Delta Attention whose gates are full rank (``forget_gate.f_proj``,
``g_proj``: :class:`~paramcount.families.linear_mixers.KimiDeltaAttention`, style ``bailing``)
and latent attention with a head-wise output gate (``g_proj`` (H, D)) where ``layer_types``
says (by default the last layer of every ``layer_group_size``), a dense MLP in the first
``first_k_dense_replace`` layers (or where ``mlp_layer_types`` says ``dense``) and experts with
shared experts elsewhere; the head never tied.

The delta attention's heads are ``num_attention_heads`` and its head ``head_dim`` (transformers
copies them to ``linear_num_heads`` and ``linear_head_dim``, and a saved file's copies win, as
there: its ``head_dim`` is then the rope width), its kernel ``short_conv_kernel_size``. The
checkpoint's multi-token-prediction layers (``num_mtp_layers``, after the decoder's) are not
loaded by transformers and not counted.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes
from paramcount.families import hybrid, kimi_linear
from paramcount.families.family import RecognisedModel
from paramcount.families.linear_mixers import KimiDeltaAttention, read_kda
from paramcount.families.loader import Layout
from paramcount.record import record, replace

NAME = "bailing-hybrid"
TITLE = "Ling 3 (gated Kimi Delta Attention + gated latent attention + experts)"
REFERENCE = "transformers BailingHybridForCausalLM"
MODEL_TYPES = ("bailing_hybrid",)
CLASSES = ("BailingHybridForCausalLM", "BailingHybridModel")
LAYER_TYPES = kimi_linear.LAYER_TYPES
MLP_TYPES = kimi_linear.MLP_TYPES

LAYOUT = Layout("transformers BailingHybridConfig", (kimi_linear.LAYOUT.keys - {
    "linear_attn_config", "rope_scaling"}) | {
    "kda_lower_bound", "kda_safe_gate", "layer_group_size", "mtp_loss_scaling_factor",
    "num_mtp_layers", "num_nextn_predict_layers", "short_conv_kernel_size"})
"""The keys transformers' ``BailingHybridConfig`` reads (its fields, ``attribute_map`` and what
its ``__post_init__`` writes: ``linear_*``, ``head_dim``, ``qk_head_dim``)."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class BailingHybridConfig:
    """The options of transformers' ``BailingHybridConfig`` that shape its parameters, in its
    order, its defaults (no ``tie_word_embeddings``: the model ties nothing);
    ``linear_num_heads`` None is ``num_attention_heads``."""

    vocab_size: int = 157184
    hidden_size: int = 2560
    intermediate_size: int = 6144
    moe_intermediate_size: int = 768
    num_hidden_layers: int = 42
    num_attention_heads: int = 32
    num_local_experts: int = 512
    num_experts_per_tok: int = 8
    n_shared_experts: int = 1
    first_k_dense_replace: int = 2
    attention_bias: bool = False
    kv_lora_rank: int = 512
    q_lora_rank: int | None = None
    qk_nope_head_dim: int = 128
    qk_rope_head_dim: int = 64
    v_head_dim: int = 128
    head_dim: int = 128
    short_conv_kernel_size: int = 4
    layer_group_size: int = 6
    layer_types: tuple[str, ...] | None = None
    mlp_layer_types: tuple[str, ...] | None = None
    linear_num_heads: int | None = None

    def __post_init__(self) -> None:
        hybrid.check_types(self, (*kimi_linear.SIZES, "head_dim", "short_conv_kernel_size",
                                  "layer_group_size"), ("attention_bias",),
                           ("q_lora_rank", "linear_num_heads"))
        kimi_linear.check_layers(self, LAYER_TYPES, MLP_TYPES)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's attention, ``kda`` or ``mla`` (by default ``mla`` closing each group of
        ``layer_group_size``)."""
        if self.layer_types is not None:
            return tuple(LAYER_TYPES[t] for t in self.layer_types)
        return tuple("mla" if (i + 1) % self.layer_group_size == 0 else "kda"
                     for i in range(self.num_hidden_layers))

    @property
    def mlps(self) -> tuple[str, ...]:
        """Each layer's MLP, ``dense`` or ``sparse``."""
        return kimi_linear.mlps_of(self)


Config = BailingHybridConfig

ALIASES: dict[str, tuple[str, ...]] = {"num_attention_heads": ("--heads",),
                                       "num_local_experts": ("--num-experts",)}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: BailingHybridConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    return kimi_linear.build(config, KimiDeltaAttention(
        config.hidden_size, config.linear_num_heads or config.num_attention_heads,
        config.head_dim, config.short_conv_kernel_size, "bailing"), gate=True)


COPIES = {"linear_head_dim": "head_dim", "linear_conv_kernel_dim": "short_conv_kernel_size"}
"""The copies transformers' ``__post_init__`` writes, which a saved file's win over the keys
they were copied from (read back as the field they stand for)."""


def json_values(data: Mapping[str, object]) -> dict[str, object]:
    """The alias keys (``num_experts``, ``num_experts_per_token``, ``num_shared_experts``) and
    the saved copies (``linear_head_dim``, ``linear_conv_kernel_dim``) win over the fields they
    stand for."""
    values = dict(data)
    for key, field in {**kimi_linear.ALIAS_KEYS, **COPIES}.items():
        if key in values:
            values[field] = values.pop(key)
    return values


tensors, formula, from_hf_config = hybrid.conventions(
    stack, BailingHybridConfig, "BailingHybridForCausalLM", ("E", "num_local_experts"),
    lists=("layer_types", "mlp_layer_types"), prepare=json_values)


SAVED = (("model.embed_tokens.", "model.word_embeddings."), (".self_attn.", ".attention."),
         (".attention.o_proj.", ".attention.dense."), (".forget_gate.", "."))
"""How the checkpoint renames the model's tensors (transformers' conversion mapping read
backwards), in order; its experts are stored one by one and its conv as three, ``q_conv1d``,
``k_conv1d``, ``v_conv1d``, as Kimi Linear's."""


def saved_tensors(config: BailingHybridConfig) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them (:data:`SAVED`)."""
    return kimi_linear.saved_renamed(tensors(config), SAVED)


def saved_base(tensors: list[Tensor]) -> list[Tensor]:
    """The base model class's saved tensors (``tensors``, the causal LM's without ``model.``):
    its embedding keeps its own name, as the checkpoint renames it only under ``model.``."""
    return [replace(t, name="embed_tokens.weight") if t.name == "word_embeddings.weight" else t
            for t in tensors]


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``BailingHybridForCausalLM`` among ``shapes`` (as the model holds its tensors, or
    as its checkpoint names them), checked exactly."""
    found = hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)
    if found or not any(".attention." in name for name in shapes):
        return found
    return kimi_linear.recognise_split(
        shapes, _model_name, _recognise_at, "the checkpoint names the embedding "
        "word_embeddings and every attention attention (its output dense), holds each "
        "expert's weights one by one, the forget gate's tensors in the attention and each "
        "conv as three")


def _model_name(name: str) -> str | None:
    """A checkpoint's name as the model's stacked view reads it; None for the routers'
    buffers."""
    if name.endswith((".expert_bias", ".e_score_correction_bias")):
        return None
    for ours, theirs in reversed(SAVED[:3]):
        name = name.replace(theirs, ours)
    stem, _, last = name.rpartition(".self_attn.")
    if stem and last in ("A_log", "dt_bias", "f_proj.weight"):
        return f"{stem}.self_attn.forget_gate.{last}"
    return name


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    n = hybrid.layer_count(shapes, start)
    if not n:
        return None
    types, mlps = kimi_linear.kinds_in(shapes, start, n)
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n, "layer_types": types,
        "mlp_layer_types": mlps}
    notes = ["num_experts_per_tok is not in the weights: read as 8, the default"]
    if not kimi_linear.read_rest(shapes, start, types, mlps, values, notes):
        return None
    if "linear_attention" in types:
        kda = read_kda(shapes, f"{start}{types.index('linear_attention')}.self_attn.")
        if kda is None or kda.style != "bailing":
            return None
        values.update(head_dim=kda.head_dim, short_conv_kernel_size=kda.kernel)
        heads = values.setdefault("num_attention_heads", kda.heads)
        if heads != kda.heads:
            values["linear_num_heads"] = kda.heads
    return hybrid.accept_values(shapes, NAME, prefix, BailingHybridConfig, values, tensors,
                                notes)
