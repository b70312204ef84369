"""GLM-5-Next's text model as transformers' ``Glm5NextTextModel`` builds it from a
``Glm5NextTextConfig`` (model_type ``glm5_next_text``): Kimi Delta Attention and latent
attention with a DSA token indexer over ``hc_mult`` residual streams.

transformers has no causal LM for this model type: ``Glm5NextTextModel`` is the model, its
tensors named ``embed_tokens.``, ``layers.``, ``norm.`` and no head. Each layer holds Kimi
Delta Attention (``self_attn``, Kimi's low-rank gates, ``A_log`` (H):
:class:`~paramcount.families.linear_mixers.KimiDeltaAttention`, style ``glm5``) or, where
``layer_types`` says ``indexed_attention`` (``full_attention`` read as it; by default every 4th
layer from the 4th), latent attention with q through a low rank and no rope part, and where
``indexer_types`` says ``full`` a DSA indexer beside it
(:class:`~paramcount.families.streams.SparseIndexedAttention`; a ``shared`` layer reuses the
previous full layer's choice and holds none); then a dense MLP (``mlp_layer_types`` ``dense``,
by default the first 3 layers) or the routed experts, the router ``gate`` and
``shared_experts``; two RMSNorms and two hyper-connections (``attn_hc``, ``ffn_hc``:
:class:`~paramcount.families.streams.HyperConnection`). Around them ``embed_tokens`` and
``norm`` (the streams' final mean has no parameter).

The published GLM-5-Next models are vision-language models (model_type ``glm5_next``): their
vision tower is not modelled, so a file of that model type is refused; this is its decoder
alone, as the text configs (``text_config``) describe it.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError
from paramcount.families import hybrid, kimi_linear
from paramcount.families.family import RecognisedModel
from paramcount.families.linear_mixers import KimiDeltaAttention, read_kda
from paramcount.families.loader import Layout, is_int, mapping
from paramcount.families.mixers import Experts, LatentAttention, Mlp, read_latent_attention
from paramcount.families.parts import at_most_blocks, exact
from paramcount.families.streams import HyperConnection, SparseIndexedAttention
from paramcount.record import record

NAME = "glm5-next"
TITLE = "GLM-5-Next text (Kimi Delta Attention + indexed latent attention + experts, mHC)"
REFERENCE = "transformers Glm5NextTextModel"
MODEL_TYPES = ("glm5_next_text",)
CLASSES = ("Glm5NextTextModel",)
LAYER_TYPES = {"linear_attention": "kda", "indexed_attention": "mla", "full_attention": "mla"}
MLP_TYPES = {"dense": "dense", "sparse": "sparse"}
INDEXER_TYPES = {"full": "full", "shared": "shared"}

LAYOUT = Layout("transformers Glm5NextTextConfig", frozenset({
    "vocab_size", "hidden_size", "intermediate_size", "moe_intermediate_size",
    "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "n_shared_experts",
    "n_routed_experts", "num_local_experts", "output_router_logits", "routed_scaling_factor",
    "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "v_head_dim", "qk_nope_head_dim",
    "qk_head_dim", "n_group", "topk_group", "num_experts_per_tok", "norm_topk_prob",
    "hidden_act", "max_position_embeddings", "initializer_range", "rms_norm_eps",
    "mlp_layer_types", "attention_bias", "attention_dropout", "index_topk", "index_head_dim",
    "index_n_heads", "head_dim", "layer_types", "indexer_types", "index_topk_pattern",
    "index_topk_freq", "index_skip_topk_offset", "linear_attn_config", "swiglu_limit",
    "linear_head_dim", "linear_num_heads", "linear_conv_kernel_dim", "linear_lower_bound",
    "hc_mult", "hc_eps", "hc_sinkhorn_iters", "router_aux_loss_coef", "index_kpool",
    "index_kpool_always_select_tail", "rope_parameters", "rope_theta"}))
"""The keys transformers' ``Glm5NextTextConfig`` reads (its fields, ``attribute_map`` and what
its ``__post_init__`` takes: ``index_topk_pattern``, ``index_topk_freq``,
``index_skip_topk_offset``, ``linear_attn_config``), and those it writes itself (``head_dim``,
``qk_head_dim``: derived again on load)."""
BACKBONE = ""
"""No causal LM: the model's own names."""
SIZES = ("vocab_size", "hidden_size", "intermediate_size", "moe_intermediate_size",
         "num_hidden_layers", "num_attention_heads", "n_shared_experts", "n_routed_experts",
         "kv_lora_rank", "q_lora_rank", "v_head_dim", "qk_nope_head_dim",
         "num_experts_per_tok", "index_topk", "index_head_dim", "index_n_heads",
         "linear_head_dim", "linear_num_heads", "linear_conv_kernel_dim", "hc_mult",
         "index_kpool")


@record
class Glm5NextTextConfig:
    """The options of transformers' ``Glm5NextTextConfig`` that shape its parameters (and its
    rules), its defaults; ``num_key_value_heads`` None is ``num_attention_heads``."""

    vocab_size: int = 154880
    hidden_size: int = 4096
    intermediate_size: int = 12288
    moe_intermediate_size: int = 2048
    num_hidden_layers: int = 45
    num_attention_heads: int = 64
    num_key_value_heads: int | None = 64
    n_shared_experts: int = 1
    n_routed_experts: int = 288
    kv_lora_rank: int = 512
    q_lora_rank: int = 1536
    qk_rope_head_dim: int = 0
    v_head_dim: int = 256
    qk_nope_head_dim: int = 256
    num_experts_per_tok: int = 8
    attention_bias: bool = False
    mlp_layer_types: tuple[str, ...] | None = None
    index_topk: int = 2048
    index_head_dim: int = 128
    index_n_heads: int = 32
    layer_types: tuple[str, ...] | None = None
    indexer_types: tuple[str, ...] | None = None
    linear_head_dim: int = 128
    linear_num_heads: int = 64
    linear_conv_kernel_dim: int = 4
    hc_mult: int = 4
    index_kpool: int = 16

    def __post_init__(self) -> None:
        hybrid.check_types(self, SIZES, ("attention_bias",), ("num_key_value_heads",))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        for name, allowed in (("layer_types", LAYER_TYPES), ("mlp_layer_types", MLP_TYPES),
                              ("indexer_types", INDEXER_TYPES)):
            if getattr(self, name) is None:
                continue
            made = hybrid.kinds_of(self, name, allowed)
            if len(made) != self.num_hidden_layers:
                raise SpecError("{" + name + "} lists " + str(len(made)) + " layers, "
                                "{num_hidden_layers} says " + str(self.num_hidden_layers),
                                **{name: getattr(self, name)},
                                num_hidden_layers=self.num_hidden_layers)
        _rules(self)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's attention, ``kda`` or ``mla`` (by default ``mla`` at every 4th layer
        from the 4th)."""
        if self.layer_types is not None:
            return tuple(LAYER_TYPES[t] for t in self.layer_types)
        return tuple("mla" if i % 4 == 3 else "kda" for i in range(self.num_hidden_layers))

    @property
    def mlps(self) -> tuple[str, ...]:
        """Each layer's MLP, ``dense`` or ``sparse`` (by default the first 3 dense)."""
        if self.mlp_layer_types is not None:
            return self.mlp_layer_types
        return tuple("dense" if i < 3 else "sparse" for i in range(self.num_hidden_layers))

    @property
    def indexers(self) -> tuple[str, ...]:
        """Each layer's indexer, ``full`` or ``shared`` (by default ``full``: transformers'
        ``index_topk_freq`` 1)."""
        return self.indexer_types or ("full",) * self.num_hidden_layers


def _rules(config: Glm5NextTextConfig) -> None:
    """transformers' ``validate_architecture``."""
    kv = config.num_key_value_heads
    if kv is not None and kv != config.num_attention_heads:
        raise SpecError("{num_key_value_heads} must equal num_attention_heads (transformers: "
                        "num_attention_heads must be the same as num_key_value_heads)",
                        num_key_value_heads=kv)
    if config.index_topk % config.index_kpool:
        raise SpecError("{index_topk} must be a multiple of {index_kpool}",
                        index_topk=config.index_topk, index_kpool=config.index_kpool)
    if not (is_int(config.qk_rope_head_dim) and config.qk_rope_head_dim == 0):
        raise SpecError("{qk_rope_head_dim} must be 0 (transformers: expecting NoPE for the "
                        "DSA attention layers)", qk_rope_head_dim=config.qk_rope_head_dim)


Config = Glm5NextTextConfig

ALIASES: dict[str, tuple[str, ...]] = {"num_attention_heads": ("--heads",),
                                       "n_routed_experts": ("--num-experts",)}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: Glm5NextTextConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "embed_tokens.weight", config.vocab_size, d)
    kda = KimiDeltaAttention(d, config.linear_num_heads, config.linear_head_dim,
                             config.linear_conv_kernel_dim, "glm5")
    mla = LatentAttention(d, config.num_attention_heads, config.qk_nope_head_dim, 0,
                          config.v_head_dim, config.kv_lora_rank, config.q_lora_rank,
                          config.attention_bias)
    e = config.n_routed_experts
    moe = Experts(d, config.moe_intermediate_size, e, min(config.num_experts_per_tok, e), "kimi",
                  config.moe_intermediate_size * config.n_shared_experts)
    hc = HyperConnection(d, config.hc_mult)
    for i, (kind, mlp, index) in enumerate(zip(config.types, config.mlps, config.indexers,
                                               strict=True)):
        p = f"layers.{i}."
        if kind == "kda":
            s.part("recurrent", "kimi delta attention", kda, p + "self_attn.", i)
        else:
            full = index == "full"
            s.part("attention", "indexed latent attention" if full else "latent attention",
                   SparseIndexedAttention(mla, config.index_n_heads, config.index_head_dim,
                                          config.index_kpool, full), p + "self_attn.", i)
        hybrid.feed_forward(s, p, i, d, Mlp(d, config.intermediate_size),
                            moe if mlp == "sparse" else None)
        for name in ("attn_hc.", "ffn_hc."):
            s.part("connections", "hyper-connection", hc, p + name, i)
    hybrid.norm_of(s, "norm.", d, -1)
    return s


LINEAR_KEYS = {"head_dim": "linear_head_dim", "num_heads": "linear_num_heads",
               "short_conv_kernel_size": "linear_conv_kernel_dim"}
"""``linear_attn_config``'s keys and the fields they win over."""


def json_values(data: Mapping[str, object]) -> dict[str, object]:
    """``linear_attn_config``'s keys win over the linear fields, ``full_attention`` is read as
    ``indexed_attention``; where ``indexer_types`` is not given, ``index_topk_pattern``
    (``F``/``S`` letters or a list) makes it, else ``index_topk_freq`` and
    ``index_skip_topk_offset`` (1 and 2: every layer full); its ``head_dim`` (transformers
    overwrites it with ``qk_rope_head_dim``) is not read."""
    values = dict(data)
    values.pop("head_dim", None)
    for key, field in LINEAR_KEYS.items():
        linear = mapping(data, "linear_attn_config")
        if key in linear:
            values[field] = linear[key]
    if values.get("indexer_types") is None:
        values["indexer_types"] = _indexer_types(data)
    return values


tensors, formula, from_hf_config = hybrid.conventions(
    stack, Glm5NextTextConfig, "Glm5NextTextModel", ("E", "n_routed_experts"), ("S", "hc_mult"),
    lists=("layer_types", "mlp_layer_types", "indexer_types"),
    aliases={"num_local_experts": "n_routed_experts"}, prepare=json_values)


def _indexer_types(data: Mapping[str, object]) -> object:
    """``indexer_types`` as transformers' ``__post_init__`` makes it from the pattern or the
    frequency and offset; None where they say nothing (every layer full)."""
    pattern = data.get("index_topk_pattern")
    if isinstance(pattern, str):
        letters = {"F": "full", "S": "shared"}
        if not set(pattern) <= letters.keys():
            raise SpecError("config.json: {index_topk_pattern} must be letters F and S",
                            index_topk_pattern=pattern)
        return [letters[c] for c in pattern]
    if pattern is not None:
        return pattern
    freq, offset = data.get("index_topk_freq", 1), data.get("index_skip_topk_offset", 2)
    if "index_topk_freq" not in data and "index_skip_topk_offset" not in data:
        return None
    layers = data.get("num_hidden_layers", Glm5NextTextConfig.num_hidden_layers)
    if not (is_int(freq) and is_int(offset) and is_int(layers)):
        raise SpecError("config.json: {index_topk_freq} and index_skip_topk_offset must be "
                        "whole numbers", index_topk_freq=freq)
    assert isinstance(freq, int) and isinstance(offset, int) and isinstance(layers, int)
    every = max(freq, 1)
    return ["full" if max(i - offset + 1, 0) % every == 0 else "shared" for i in range(layers)]


SAVED = ((".attn_hc.", ".hc_attn_"), (".ffn_hc.", ".hc_ffn_"), (".forget_gate.", "."))
"""How the checkpoint renames the model's tensors (transformers' conversion mapping read
backwards); its experts are stored one by one and each KDA's conv as three, ``q_conv1d``,
``k_conv1d``, ``v_conv1d``, as Kimi Linear's."""


def saved_tensors(config: Glm5NextTextConfig) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them (:data:`SAVED`)."""
    return kimi_linear.saved_renamed(tensors(config), SAVED)


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Glm5NextTextModel`` among ``shapes`` (as the model holds its tensors, or as its
    checkpoint names them), checked exactly."""
    found = _recognise(shapes)
    if found or not any(".hc_attn_fn" in name for name in shapes):
        return found
    return kimi_linear.recognise_split(
        shapes, _model_name, lambda *_: None, "the checkpoint names the hyper-connections "
        "hc_attn_* and hc_ffn_*, holds the forget gate's tensors in the attention, each "
        "expert's weights one by one and each conv as three", _recognise)


def _model_name(name: str) -> str | None:
    """A checkpoint's name as the model's stacked view reads it; None for the routers'
    buffers."""
    if name.endswith(".e_score_correction_bias"):
        return None
    for ours, theirs in SAVED[:2]:
        name = name.replace(theirs, ours)
    stem, _, last = name.rpartition(".self_attn.")
    if stem and last in ("A_log", "dt_bias", "f_a_proj.weight", "f_b_proj.weight"):
        return f"{stem}.self_attn.forget_gate.{last}"
    return name


def _recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Glm5NextTextModel`` among ``shapes`` as the model names its tensors: under each
    prefix that holds ``embed_tokens.weight`` beside layers with hyper-connections."""
    found = []
    for name, shape in shapes.items():
        if not name.endswith("embed_tokens.weight") or not is_shape(shape, 2):
            continue
        prefix = name.removesuffix("embed_tokens.weight")
        if prefix and not prefix.endswith("."):
            continue
        model = _recognise_at(shapes, prefix, shape[0], shape[1])
        if model is not None:
            found.append(model)
    return found


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = prefix + "layers."
    n = hybrid.layer_count(shapes, start)
    hc = shapes.get(start + "0.attn_hc.fn")
    if not n or not is_shape(hc, 2):
        return None
    assert hc is not None
    streams = next((s for s in range(1, hc[0] + 1) if (2 + s) * s == hc[0]), 0)
    if not streams or hc[1] != streams * d:
        return None
    types = tuple("indexed_attention" if f"{start}{i}.self_attn.kv_b_proj.weight" in shapes
                  else "linear_attention" for i in range(n))
    mlps = tuple("sparse" if f"{start}{i}.mlp.gate.weight" in shapes else "dense"
                 for i in range(n))
    indexers = tuple("shared" if t == "indexed_attention" and f"{start}{i}.self_attn.indexer."
                     "wk.weight" not in shapes else "full" for i, t in enumerate(types))
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n, "layer_types": types,
        "mlp_layer_types": mlps, "indexer_types": indexers, "hc_mult": streams}
    notes = ["num_experts_per_tok is not in the weights: read as 8, the default",
             "index_topk is not in the weights: read as the index pool's size"]
    if "linear_attention" in types:
        kda = read_kda(shapes, f"{start}{types.index('linear_attention')}.self_attn.")
        if kda is None or kda.style != "glm5":
            return None
        values.update(linear_num_heads=kda.heads, linear_head_dim=kda.head_dim,
                      linear_conv_kernel_dim=kda.kernel)
    if "indexed_attention" in types:
        p = f"{start}{types.index('indexed_attention')}.self_attn."
        mla = read_latent_attention(shapes, p, no_rope=True)
        if mla is None:
            return None
        values.update(num_attention_heads=mla.heads, num_key_value_heads=mla.heads,
                      kv_lora_rank=mla.kv_lora, v_head_dim=mla.value,
                      qk_nope_head_dim=mla.nope, q_lora_rank=mla.q_lora,
                      attention_bias=mla.bias)
        notes.append(f"latent attention read as {mla.heads} heads: the weights hold only "
                     "heads × widths")
    if "full" in (x for x, t in zip(indexers, types, strict=True) if t == "indexed_attention"):
        i = next(i for i, (x, t) in enumerate(zip(indexers, types, strict=True))
                 if x == "full" and t == "indexed_attention")
        ape, heads = (shapes.get(f"{start}{i}.self_attn.indexer.{n}") for n in (
            "index_kpool_compress_ape", "weights_proj.weight"))
        if not (is_shape(ape, 2) and is_shape(heads, 2)):
            return None
        assert ape is not None and heads is not None
        values.update(index_kpool=ape[0], index_topk=ape[0], index_head_dim=ape[1],
                      index_n_heads=heads[0])
    else:
        values["index_topk"] = Glm5NextTextConfig.index_kpool
    if not kimi_linear.read_mlps(shapes, start, mlps, values, "n_routed_experts"):
        return None
    config = hybrid.build(Glm5NextTextConfig, **values)
    if not isinstance(config, Glm5NextTextConfig):
        return None
    names = exact(shapes, prefix, ("embed_tokens.", "layers.", "norm."), tensors(config))
    if names is None:
        return None
    return RecognisedModel(prefix, NAME, config, names, tuple(notes))
