"""Kimi Linear as transformers' ``KimiLinearForCausalLM`` builds it from a
``KimiLinearConfig``: Kimi Delta Attention (KDA) layers and multi-head latent attention (MLA)
where ``layer_types`` says (else the checkpoint's ``linear_attn_config`` lists, 1-indexed,
``kda_layers`` and ``full_attn_layers``; else MLA at every 4th layer from 4), a dense MLP in the
``mlp_layer_types`` ``dense`` layers (by default the first ``first_k_dense_replace``, 1) and a
mixture of experts with shared experts elsewhere.

Each layer holds its attention (``self_attn``: :class:`~paramcount.families.linear_mixers.
KimiDeltaAttention` or :class:`~paramcount.families.mixers.LatentAttention`), its MLP
(``mlp``: gate, up, down; or ``experts.gate_up_proj`` (E, 2I, D), ``experts.down_proj``
(E, D, I), the router ``gate`` (E, D) and ``shared_experts`` (gate, up, down) ``n_shared_experts``
· I wide) and two RMSNorms. Around them ``model.embed_tokens``, ``model.norm`` and ``lm_head``
(never tied: ``KimiLinearForCausalLM`` ties nothing, whatever ``tie_word_embeddings`` says).
The checkpoint's ``linear_attn_config`` (``head_dim``, ``num_heads``,
``short_conv_kernel_size``) wins over ``linear_head_dim``, ``linear_num_heads`` and
``linear_conv_kernel_dim``, as in transformers; so do ``num_experts``,
``num_experts_per_token`` and ``num_shared_experts`` over the names they stand for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.linear_mixers import KimiDeltaAttention, read_kda
from paramcount.families.loader import Layout, is_int, mapping
from paramcount.families.mixers import (
    Experts,
    LatentAttention,
    Mlp,
    read_experts,
    read_latent_attention,
    read_mlp,
)
from paramcount.families.parts import at_most_blocks
from paramcount.record import record, replace

NAME = "kimi-linear"
TITLE = "Kimi Linear (Kimi Delta Attention + latent attention + experts)"
REFERENCE = "transformers KimiLinearForCausalLM"
MODEL_TYPES = ("kimi_linear",)
CLASSES = ("KimiLinearForCausalLM", "KimiLinearModel")
LAYER_TYPES = {"linear_attention": "kda", "full_attention": "mla"}
MLP_TYPES = {"dense": "dense", "sparse": "sparse"}

LAYOUT = Layout("transformers KimiLinearConfig", frozenset({
    "attention_bias", "attention_dropout", "first_k_dense_replace", "head_dim", "hidden_act",
    "hidden_size",
    "initializer_range", "intermediate_size", "kv_lora_rank", "layer_types",
    "linear_attn_config", "linear_conv_kernel_dim", "linear_head_dim", "linear_num_heads",
    "max_position_embeddings", "mlp_layer_types", "model_max_length", "moe_intermediate_size",
    "moe_renormalize", "n_group", "n_shared_experts", "norm_topk_prob", "num_attention_heads",
    "num_expert_group", "num_experts", "num_experts_per_tok", "num_experts_per_token",
    "num_hidden_layers", "num_key_value_heads", "num_local_experts", "num_shared_experts",
    "output_router_logits", "pretraining_tp", "q_lora_rank", "qk_head_dim", "qk_nope_head_dim",
    "qk_rope_head_dim", "rms_norm_eps", "rope_parameters", "rope_scaling", "rope_theta",
    "routed_scaling_factor", "topk_group", "v_head_dim", "vocab_size"}))
"""The keys transformers' ``KimiLinearConfig`` reads (its fields, ``attribute_map`` and what
its ``__post_init__`` takes), and the two it writes itself from them (``head_dim``,
``qk_head_dim``: derived again on load, so a saved file's are no stray keys)."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""
SIZES = ("vocab_size", "hidden_size", "intermediate_size", "moe_intermediate_size",
         "num_hidden_layers", "num_attention_heads", "n_shared_experts", "kv_lora_rank",
         "qk_rope_head_dim", "v_head_dim", "qk_nope_head_dim", "num_experts_per_tok",
         "num_local_experts")
"""The sizes a Kimi Linear layout's config holds (Kimi Linear's, Ling's): whole numbers of at
least 1."""


@record
class KimiLinearConfig:
    """The options of transformers' ``KimiLinearConfig`` that shape its parameters, its
    defaults (no ``tie_word_embeddings``: the model ties nothing)."""

    vocab_size: int = 163840
    hidden_size: int = 2304
    intermediate_size: int = 9216
    moe_intermediate_size: int = 1024
    num_hidden_layers: int = 27
    num_attention_heads: int = 32
    n_shared_experts: int = 1
    kv_lora_rank: int = 512
    q_lora_rank: int | None = None
    qk_rope_head_dim: int = 64
    v_head_dim: int = 128
    qk_nope_head_dim: int = 128
    num_experts_per_tok: int = 8
    attention_bias: bool = False
    num_local_experts: int = 256
    first_k_dense_replace: int = 1
    mlp_layer_types: tuple[str, ...] | None = None
    layer_types: tuple[str, ...] | None = None
    linear_head_dim: int = 128
    linear_num_heads: int = 32
    linear_conv_kernel_dim: int = 4

    def __post_init__(self) -> None:
        hybrid.check_types(self, (*SIZES, "linear_head_dim", "linear_num_heads",
                                  "linear_conv_kernel_dim"), ("attention_bias",),
                           ("q_lora_rank",))
        check_layers(self, LAYER_TYPES, MLP_TYPES)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's attention, ``kda`` or ``mla``."""
        if self.layer_types is not None:
            return tuple(LAYER_TYPES[t] for t in self.layer_types)
        return tuple("mla" if i and i % 4 == 0 else "kda" for i in range(self.num_hidden_layers))

    @property
    def mlps(self) -> tuple[str, ...]:
        """Each layer's MLP, ``dense`` or ``sparse``."""
        return mlps_of(self)


def check_layers(config: Any, kinds: Mapping[str, str], mlps: Mapping[str, str]) -> None:
    """A Kimi Linear layout's layers as transformers accepts them: ``first_k_dense_replace``
    0 or more, ``layer_types`` and ``mlp_layer_types`` (where given) one per layer."""
    at_most_blocks("num_hidden_layers", config.num_hidden_layers)
    if not (is_int(config.first_k_dense_replace) and config.first_k_dense_replace >= 0):
        raise SpecError("{first_k_dense_replace} must be 0 or a positive whole number",
                        first_k_dense_replace=config.first_k_dense_replace)
    hybrid.layer_types(config, kinds)
    if config.mlp_layer_types is not None:
        made = hybrid.kinds_of(config, "mlp_layer_types", mlps)
        if len(made) != config.num_hidden_layers:
            raise SpecError("{mlp_layer_types} lists " + str(len(made)) + " layers, "
                            "{num_hidden_layers} says " + str(config.num_hidden_layers),
                            mlp_layer_types=config.mlp_layer_types,
                            num_hidden_layers=config.num_hidden_layers)


def mlps_of(config: Any) -> tuple[str, ...]:
    """Each layer's MLP: ``mlp_layer_types``, else ``dense`` in the first
    ``first_k_dense_replace`` layers and ``sparse`` after them."""
    if config.mlp_layer_types is not None:
        return tuple(config.mlp_layer_types)
    return tuple("dense" if i < config.first_k_dense_replace else "sparse"
                 for i in range(config.num_hidden_layers))


Config = KimiLinearConfig

ALIASES: dict[str, tuple[str, ...]] = {"num_attention_heads": ("--heads",),
                                       "num_local_experts": ("--num-experts",)}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: KimiLinearConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    return build(config, KimiDeltaAttention(
        config.hidden_size, config.linear_num_heads, config.linear_head_dim,
        config.linear_conv_kernel_dim))


def build(config: Any, kda: KimiDeltaAttention, gate: bool = False) -> hybrid.Stack:
    """The stack of a Kimi Linear layout (Kimi Linear's, Ling's): ``kda`` in the ``kda``
    layers, latent attention (with Ling's output ``gate``) in the others, ``mlps`` dense or
    experts, the head never tied."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    mla = LatentAttention(d, config.num_attention_heads, config.qk_nope_head_dim,
                          config.qk_rope_head_dim, config.v_head_dim, config.kv_lora_rank,
                          config.q_lora_rank, config.attention_bias, gate)
    e = config.num_local_experts
    moe = Experts(d, config.moe_intermediate_size, e, min(config.num_experts_per_tok, e), "kimi",
                  config.moe_intermediate_size * config.n_shared_experts)
    for i, (kind, mlp) in enumerate(zip(config.types, config.mlps, strict=True)):
        p = f"model.layers.{i}."
        if kind == "kda":
            s.part("recurrent", "kimi delta attention", kda, p + "self_attn.", i)
        else:
            s.part("attention", "latent attention", mla, p + "self_attn.", i)
        hybrid.feed_forward(s, p, i, d, Mlp(d, config.intermediate_size),
                            moe if mlp == "sparse" else None)
    hybrid.final(s, "model.norm.", config.vocab_size, d, False)
    return s


ALIAS_KEYS = {"num_experts": "num_local_experts",
              "num_experts_per_token": "num_experts_per_tok",
              "num_shared_experts": "n_shared_experts"}
"""The keys transformers reads in place of a field's own (they win where both are given)."""


def json_values(data: Mapping[str, object]) -> dict[str, object]:
    """The alias keys and ``linear_attn_config`` win over the fields they stand for; its
    1-indexed ``kda_layers`` and ``full_attn_layers`` make ``layer_types`` where that is not
    given."""
    values = dict(data)
    for key, field in ALIAS_KEYS.items():
        if key in values:
            values[field] = values.pop(key)
    linear = mapping(data, "linear_attn_config")
    for key, field in (("head_dim", "linear_head_dim"), ("num_heads", "linear_num_heads"),
                       ("short_conv_kernel_size", "linear_conv_kernel_dim")):
        if key in linear:
            values[field] = linear[key]
    full, kda = linear.get("full_attn_layers"), linear.get("kda_layers")
    if values.get("layer_types") is None and isinstance(full, list) and isinstance(kda, list):
        layers = values.get("num_hidden_layers", KimiLinearConfig.num_hidden_layers)
        if not is_int(layers) or not all(is_int(i) and 1 <= i <= layers for i in full + kda):
            raise SpecError("config.json: {linear_attn_config} lists layers that are not "
                            "among num_hidden_layers (1-indexed)", linear_attn_config=linear)
        kinds: list[object] = [None] * int(str(layers))
        for i in full:
            kinds[i - 1] = "full_attention"
        for i in kda:
            kinds[i - 1] = "linear_attention"
        values["layer_types"] = kinds
    return values


tensors, formula, from_hf_config = hybrid.conventions(
    stack, KimiLinearConfig, "KimiLinearForCausalLM", ("E", "num_local_experts"),
    lists=("layer_types", "mlp_layer_types"), prepare=json_values)


SAVED = {"gate_proj": "w1", "up_proj": "w3", "down_proj": "w2"}
"""How the checkpoint names each expert's projections (one by one, under
``block_sparse_moe.``, as every layer's MLP; the forget gate's tensors sit in ``self_attn``
itself and the conv is three, ``q_conv1d``, ``k_conv1d``, ``v_conv1d``)."""
CONVS = ("q_conv1d", "k_conv1d", "v_conv1d")


def saved_tensors(config: KimiLinearConfig) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them (:data:`SAVED`)."""
    return split_convs(replace(t, name=t.name.replace(".forget_gate.", "."))
                       for t in hybrid.per_expert_names(tensors(config), SAVED,
                                                        (".mlp.", ".block_sparse_moe.")))


def saved_renamed(tensors: list[Tensor], renames: Iterable[tuple[str, str]]) -> list[Tensor]:
    """``tensors`` as a KDA model's ``save_pretrained`` writes them: experts one by one, each
    conv as three (:func:`split_convs`) and each name with ``renames`` (ours, theirs) applied
    in order (Ling 3's, GLM-5-Next's)."""
    out = []
    for t in split_convs(hybrid.saved_experts(tensors)):
        name = t.name
        for ours, theirs in renames:
            name = name.replace(ours, theirs)
        out.append(replace(t, name=name))
    return out


def split_convs(tensors: Iterable[Tensor]) -> list[Tensor]:
    """``tensors`` with each KDA's conv over q, k and v as the checkpoint stores it: three,
    :data:`CONVS`."""
    out = []
    for t in tensors:
        if t.name.endswith(".self_attn.conv1d.weight") or t.name.endswith(
                ".attention.conv1d.weight"):
            stem = t.name.removesuffix("conv1d.weight")
            rows = t.shape[0] // 3
            out += [replace(t, name=f"{stem}{c}.weight", shape=(rows, *t.shape[1:]))
                    for c in CONVS]
        else:
            out.append(t)
    return out


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``KimiLinearForCausalLM`` among ``shapes`` (as the model holds its tensors, or as
    its checkpoint names them), checked exactly."""
    found = hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)
    if found or not any(".block_sparse_moe." in name for name in shapes):
        return found
    return recognise_split(shapes, _model_name, _recognise_at,
                           "the checkpoint names every MLP block_sparse_moe, holds each "
                           "expert's w1, w3, w2 one by one, the forget gate's tensors in "
                           "self_attn and each conv as three")


def recognise_split(shapes: Shapes, rename: Callable[[str], str | None],
                    at: Callable[[Shapes, str, int, int], RecognisedModel | None],
                    note: str, find: Callable[[Shapes], list[RecognisedModel]] | None = None
                    ) -> list[RecognisedModel]:
    """The models ``at`` (or ``find``, as :func:`~paramcount.families.hybrid.
    recognise_renamed` takes it) finds in a checkpoint that stores each KDA's conv as three
    (:data:`CONVS`) and names the rest as ``rename`` reads them back; they claim the
    checkpoint's own names."""
    merged: dict[str, tuple[int, ...]] = {}
    convs: dict[str, tuple[str, ...]] = {}
    for name, shape in shapes.items():
        stem, _, last = name.rpartition(".")
        stem, _, conv = stem.rpartition(".")
        if f"{conv}.{last}" not in (f"{c}.weight" for c in CONVS):
            merged[name] = shape
        elif conv == CONVS[0]:
            parts = tuple(f"{stem}.{c}.weight" for c in CONVS)
            if not all(is_shape(shapes.get(p), 3) for p in parts):
                return []
            merged[f"{stem}.conv1d.weight"] = (sum(shapes[p][0] for p in parts), *shape[1:])
            convs[f"{stem}.conv1d.weight"] = parts
    models = hybrid.recognise_renamed(merged, rename, at, note, find)
    return [replace(m, names=tuple(n for name in m.names for n in convs.get(name, (name,))))
            for m in models]


def kinds_in(shapes: Shapes, start: str, n: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``layer_types`` and ``mlp_layer_types`` of the ``n`` layers under ``start``: latent
    attention where ``kv_b_proj`` is, experts where the router ``gate`` is."""
    return (tuple("full_attention" if f"{start}{i}.self_attn.kv_b_proj.weight" in shapes
                  else "linear_attention" for i in range(n)),
            tuple("sparse" if f"{start}{i}.mlp.gate.weight" in shapes else "dense"
                  for i in range(n)))


def _model_name(name: str) -> str | None:
    """A checkpoint's name as the model's stacked view reads it; None for the routers'
    buffers."""
    if name.endswith(".e_score_correction_bias"):
        return None
    name = name.replace(".block_sparse_moe.", ".mlp.")
    stem, _, last = name.rpartition(".self_attn.")
    if last in ("A_log", "dt_bias", "f_a_proj.weight", "f_b_proj.weight"):
        return f"{stem}.self_attn.forget_gate.{last}"
    head, _, rest = name.rpartition(".experts.")
    e, _, proj = rest.partition(".")
    theirs = {v: k for k, v in SAVED.items()}
    proj = proj.removesuffix(".weight")
    return f"{head}.experts.{e}.{theirs[proj]}.weight" if head and proj in theirs else name


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    n = hybrid.layer_count(shapes, start)
    if not n:
        return None
    types, mlps = kinds_in(shapes, start, n)
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n, "layer_types": types,
        "mlp_layer_types": mlps}
    notes = ["num_experts_per_tok is not in the weights: read as 8, the default"]
    if "linear_attention" in types:
        kda = read_kda(shapes, f"{start}{types.index('linear_attention')}.self_attn.")
        if kda is None:
            return None
        values.update(linear_num_heads=kda.heads, linear_head_dim=kda.head_dim,
                      linear_conv_kernel_dim=kda.kernel)
    if not read_rest(shapes, start, types, mlps, values, notes):
        return None
    return hybrid.accept_values(shapes, NAME, prefix, KimiLinearConfig, values, tensors, notes)


def read_rest(shapes: Shapes, start: str, types: tuple[str, ...], mlps: tuple[str, ...],
              values: dict[str, object], notes: list[str]) -> bool:
    """Into ``values``: the latent attention, the experts and the dense MLP of a Kimi Linear
    layout's layers under ``start`` (``…model.layers.``), as their first layer of each kind
    holds them; False where one is not there."""
    if "full_attention" in types:
        mla = read_latent_attention(shapes, f"{start}{types.index('full_attention')}.self_attn.")
        if mla is None:
            return False
        values.update(num_attention_heads=mla.heads, kv_lora_rank=mla.kv_lora,
                      qk_rope_head_dim=mla.rope, v_head_dim=mla.value,
                      qk_nope_head_dim=mla.nope, q_lora_rank=mla.q_lora,
                      attention_bias=mla.bias)
        if not mla.gate:
            notes.append(f"latent attention read as {mla.heads} heads: the weights hold only "
                         "heads × widths")
    return read_mlps(shapes, start, mlps, values)


def read_mlps(shapes: Shapes, start: str, mlps: tuple[str, ...], values: dict[str, object],
              experts: str = "num_local_experts") -> bool:
    """Into ``values``: the experts (their count as field ``experts``) and the dense MLP of a
    Kimi Linear layout's layers under ``start``, as their first layer of each kind holds them;
    False where one is not there."""
    if "sparse" in mlps:
        moe = read_experts(shapes, f"{start}{mlps.index('sparse')}.mlp.", 8)
        if moe is None or moe.style != "kimi" or moe.shared_inner % moe.inner:
            return False
        values.update({experts: moe.experts}, moe_intermediate_size=moe.inner,
                      n_shared_experts=moe.shared_inner // moe.inner,
                      num_experts_per_tok=min(8, moe.experts))
    if "dense" in mlps:
        mlp = read_mlp(shapes, f"{start}{mlps.index('dense')}.mlp.", "gate_up_down")
        if mlp is None:
            return False
        values["intermediate_size"] = mlp.inner
    return True
