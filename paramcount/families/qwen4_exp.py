"""Qwen4-Exp's text model as transformers' ``Qwen4ExpForCausalLM`` builds it from a
``Qwen4ExpTextConfig`` (model_type ``qwen4_exp_text``): Qwen3.5-MoE's Gated DeltaNet and gated
attention (:mod:`paramcount.families.qwen3_5_moe`) over ``hc_count`` residual streams.

Each layer holds the Gated DeltaNet (``linear_attn``, Qwen3.5's separate projections; its gated
norm's activation is no parameter) or, where ``layer_types`` says ``indexed_attention`` (or
``full_attention``, read as it), gated attention with a QSA token indexer (``self_attn``,
``self_attn.indexer``: :class:`~paramcount.families.streams.IndexedAttention`), then the
mixture of experts and its shared expert (``mlp``), in the 1-indexed ``ple_layer_ids`` a
per-layer n-gram embedding (``ple``: :class:`~paramcount.families.streams.NgramEmbedding`), and
two hyper-connections (``attn_hyper_connection``, ``mlp_hyper_connection``:
:class:`~paramcount.families.streams.GatedResidual`) in place of the layer norms. Around them
``model.embed_tokens``, the last mixer ``model.hyper_connection_mixer`` (no final norm) and
``lm_head`` (untied by default).

The published Qwen4-Exp models are vision-language models (model_type ``qwen4_exp``): their
vision tower is not modelled, so a file of that model type is refused; this is its decoder
alone, as the text configs (``text_config``) describe it.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.linear_mixers import GatedDeltaNet, read_gated_deltanet
from paramcount.families.loader import Layout
from paramcount.families.mixers import Attention, Experts, read_experts
from paramcount.families.parts import factor, linear
from paramcount.families.qwen3_next import ALIASES, COMMON, EXPERT_KEYS, check, read_layers
from paramcount.families.streams import (
    GatedResidual,
    IndexedAttention,
    NgramEmbedding,
    read_ngram_tables,
)
from paramcount.record import fields, record, replace

NAME = "qwen4-exp"
TITLE = "Qwen4-Exp text (Gated DeltaNet + indexed attention + experts, hyper-connections)"
REFERENCE = "transformers Qwen4ExpForCausalLM"
MODEL_TYPES = ("qwen4_exp_text",)
CLASSES = ("Qwen4ExpForCausalLM", "Qwen4ExpTextModel")
LAYER_TYPES = {"linear_attention": "linear", "indexed_attention": "attention",
               "full_attention": "attention"}
INDEXER = ("indexer_n_heads", "indexer_kv_heads", "indexer_head_dim", "indexer_budget",
           "indexer_compress_ratio")
"""The QSA indexer's options: all given or none (transformers' rule)."""
MAX_HEADS = 100_000
"""The most n-gram heads over all PLE layers: paramcount finds each head's prime."""

LAYOUT = Layout("transformers Qwen4ExpTextConfig", COMMON | EXPERT_KEYS | frozenset(INDEXER) | {
    "norm_topk_prob", "output_gate_type", "hc_count", "hc_lowrank", "ple_layer_ids",
    "ple_embed_dim", "ple_conv_kernel_size", "ngram_size", "heads_per_ngram",
    "ngram_vocab_size_base", "make_ngram_vocab_size_divisible_by", "seed",
    "split_ngram_parts", "number_of_conv_states"})
"""The keys transformers' ``Qwen4ExpTextConfig`` reads (and ``number_of_conv_states``, which
it writes itself from ``ple_layer_ids``: no stray key)."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""
__all__ = ["ALIASES"]


@record
class Qwen4ExpTextConfig:
    """The options of transformers' ``Qwen4ExpTextConfig`` that shape its parameters, its
    defaults (the indexer's none: the config takes that, but no model with an attention layer
    can be built without them, so :func:`stack` refuses it)."""

    vocab_size: int = 248320
    hidden_size: int = 2048
    num_hidden_layers: int = 40
    num_attention_heads: int = 16
    num_key_value_heads: int = 2
    head_dim: int = 256
    attention_bias: bool = False
    linear_conv_kernel_dim: int = 4
    linear_key_head_dim: int = 128
    linear_value_head_dim: int = 128
    linear_num_key_heads: int = 16
    linear_num_value_heads: int = 32
    moe_intermediate_size: int = 512
    shared_expert_intermediate_size: int = 512
    num_experts_per_tok: int = 10
    num_experts: int = 512
    full_attention_interval: int = 4
    layer_types: tuple[str, ...] | None = None
    tie_word_embeddings: bool = False
    hc_count: int = 4
    hc_lowrank: int = 320
    ple_layer_ids: tuple[int, ...] = ()
    ple_embed_dim: int | None = None
    ple_conv_kernel_size: int = 4
    ngram_size: int = 3
    heads_per_ngram: int = 8
    ngram_vocab_size_base: int = 20_000_000
    make_ngram_vocab_size_divisible_by: int = 128
    split_ngram_parts: int = 512
    indexer_n_heads: int | None = None
    indexer_kv_heads: int | None = None
    indexer_head_dim: int | None = None
    indexer_budget: int | None = None
    indexer_compress_ratio: int | None = None
    partial_rotary_factor: float = 1.0

    def __post_init__(self) -> None:
        check(self, ("moe_intermediate_size", "shared_expert_intermediate_size",
                     "num_experts_per_tok", "num_experts", "hc_count", "hc_lowrank",
                     "ple_conv_kernel_size", "ngram_size", "heads_per_ngram",
                     "ngram_vocab_size_base", "make_ngram_vocab_size_divisible_by",
                     "split_ngram_parts"),
              LAYER_TYPES)
        hybrid.check_types(self, optional=("ple_embed_dim", *INDEXER))
        factor("partial_rotary_factor", self.partial_rotary_factor)
        _rules(self)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's mixer, ``linear`` or ``attention``."""
        if self.layer_types is not None:
            return tuple(LAYER_TYPES[t] for t in self.layer_types)
        every = self.full_attention_interval
        return tuple("linear" if (i + 1) % every else "attention"
                     for i in range(self.num_hidden_layers))

    @property
    def ple_layers(self) -> tuple[int, ...]:
        """The PLE layers, 0-indexed, in order (transformers sorts and dedups the ids)."""
        return tuple(i - 1 for i in sorted(set(self.ple_layer_ids)))

    @property
    def ngram_heads(self) -> int:
        """The n-gram heads of each PLE layer: (ngram_size − 1) · heads_per_ngram."""
        return (self.ngram_size - 1) * self.heads_per_ngram


def _rules(config: Qwen4ExpTextConfig) -> None:
    """transformers' ``validate_architecture`` and what building the model needs."""
    if config.hc_count < 2:
        raise SpecError("{hc_count} must be at least 2 (transformers: Qwen4-Exp requires "
                        "hc_count > 1)", hc_count=config.hc_count)
    if config.num_experts_per_tok > config.num_experts:
        raise SpecError("{num_experts_per_tok} must be at most {num_experts}",
                        num_experts_per_tok=config.num_experts_per_tok,
                        num_experts=config.num_experts)
    given = [getattr(config, f) is not None for f in INDEXER]
    if any(given) and not all(given):
        missing = [f for f, g in zip(INDEXER, given, strict=True) if not g]
        raise SpecError("{" + missing[0] + "}: the QSA indexer's options are given all or none "
                        "(transformers: QSA config is missing required fields)",
                        **{missing[0]: "unset"})
    if all(given):
        if config.indexer_kv_heads != 1:
            raise SpecError("{indexer_kv_heads} must be 1 (transformers: Qwen4-Exp QSA "
                            "requires indexer_kv_heads=1)",
                            indexer_kv_heads=config.indexer_kv_heads)
        assert config.indexer_head_dim is not None and config.indexer_budget is not None
        assert config.indexer_compress_ratio is not None
        rotary = int(config.head_dim * config.partial_rotary_factor)
        if rotary > config.indexer_head_dim:
            raise SpecError("{indexer_head_dim} must be at least the rotary width, "
                            f"head_dim · partial_rotary_factor = {rotary:,} (transformers: "
                            "the attention's RoPE dimensions must fit the QSA index head)",
                            indexer_head_dim=config.indexer_head_dim)
        if config.indexer_budget % config.indexer_compress_ratio:
            raise SpecError("{indexer_budget} must be a multiple of {indexer_compress_ratio}",
                            indexer_budget=config.indexer_budget,
                            indexer_compress_ratio=config.indexer_compress_ratio)
    if not config.ple_layer_ids:
        return
    ids = config.ple_layer_ids
    if not isinstance(ids, tuple) or not all(
            isinstance(i, int) and not isinstance(i, bool) and 1 <= i <= config.num_hidden_layers
            for i in ids):
        raise SpecError("{ple_layer_ids} must list layer ids from 1 to num_hidden_layers "
                        f"({config.num_hidden_layers:,}): they are 1-indexed",
                        ple_layer_ids=ids)
    if any(config.types[i] != "linear" for i in config.ple_layers):
        raise SpecError("{ple_layer_ids} must name linear_attention layers only "
                        "(transformers: PLE is only supported on linear_attention layers)",
                        ple_layer_ids=config.ple_layer_ids)
    embed = config.ple_embed_dim or config.hidden_size
    if embed % config.ngram_heads:
        raise SpecError("{ple_embed_dim} must be a multiple of the n-gram heads, "
                        f"(ngram_size − 1) · heads_per_ngram = {config.ngram_heads:,}",
                        ple_embed_dim=embed)
    if config.ngram_heads * len(config.ple_layers) > MAX_HEADS:
        raise SpecError("{heads_per_ngram}: more n-gram heads over the PLE layers than "
                        f"paramcount finds primes for (at most {MAX_HEADS:,})",
                        heads_per_ngram=config.heads_per_ngram)


Config = Qwen4ExpTextConfig


@hybrid.cached
def stack(config: Qwen4ExpTextConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    if config.indexer_n_heads is None and "attention" in config.types:
        raise SpecError("{indexer_n_heads}: every indexed_attention layer holds a QSA indexer, "
                        "which transformers builds from " + ", ".join(INDEXER) + " (its "
                        "config accepts them unset; its model cannot be built without them)",
                        indexer_n_heads="unset")
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    delta = GatedDeltaNet(d, config.linear_num_key_heads, config.linear_num_value_heads,
                          config.linear_key_head_dim, config.linear_value_head_dim,
                          config.linear_conv_kernel_dim, "split")
    types = config.types
    moe = Experts(d, config.moe_intermediate_size, config.num_experts,
                  config.num_experts_per_tok, "qwen_next",
                  config.shared_expert_intermediate_size)
    residual = GatedResidual(d, config.hc_count, config.hc_lowrank)
    ple = config.ple_layers
    for i, kind in enumerate(types):
        p = f"model.layers.{i}."
        if kind == "attention":
            att = Attention(d, config.num_attention_heads, config.num_key_value_heads,
                            config.head_dim, d, config.attention_bias, "o_proj", True, "norm",
                            True)
            assert config.indexer_n_heads and config.indexer_kv_heads and config.indexer_head_dim
            first = types.index("attention") == i
            s.part("attention", "indexed attention", IndexedAttention(
                att, config.indexer_n_heads, config.indexer_kv_heads, config.indexer_head_dim,
                3 if first else 0), p + "self_attn.", i)
        else:
            s.part("recurrent", "gated deltanet", delta, p + "linear_attn.", i)
        s.part("experts", "experts", moe, p + "mlp.", i)
        s.idle += moe.count - moe.active
        if i in ple:
            s.part("embeddings", "per-layer embedding", NgramEmbedding(
                d, config.hc_count, config.ple_embed_dim or d, config.ngram_heads,
                config.ple_conv_kernel_size, config.ngram_size, ple.index(i),
                config.ngram_vocab_size_base, config.make_ngram_vocab_size_divisible_by),
                p + "ple.", i)
        for name in ("attn", "mlp"):
            s.part("connections", "hyper-connection", residual, f"{p}{name}_hyper_connection.", i)
    s.part("connections", "stream mixer", GatedResidual(d, config.hc_count, config.hc_lowrank,
                                                        False),
           "model.hyper_connection_mixer.", -1)
    if not config.tie_word_embeddings:
        s.add("embeddings", "head V·D", config.vocab_size * d,
              linear("lm_head.", config.vocab_size, d, False, -1))
    return s


def json_values(data: Mapping[str, object]) -> dict[str, object]:
    """``full_attention_interval`` places attention only where ``layer_types`` is not given; a
    null ``ple_layer_ids`` is none; ``rope_parameters``' ``partial_rotary_factor`` wins over
    the key's own."""
    values = read_layers(data)
    if values.get("ple_layer_ids", ()) is None:
        values.pop("ple_layer_ids")
    rope = data.get("rope_parameters")
    if isinstance(rope, Mapping) and "partial_rotary_factor" in rope:
        values["partial_rotary_factor"] = rope["partial_rotary_factor"]  # it wins, as there
    return values


tensors, formula, from_hf_config = hybrid.conventions(
    stack, Qwen4ExpTextConfig, "Qwen4ExpForCausalLM", ("S", "hc_count"),
    lists=("layer_types", "ple_layer_ids"), prepare=json_values)


SHARD = ".ngram_embedding.shard_"
BUFFERS = ("layer_multipliers", "ngram_heads_offsets", "ngram_heads_vocab_sizes")
"""The n-gram embedding's buffers a checkpoint holds beside the parameters (not counted, not
claimed)."""


def saved_tensors(config: Qwen4ExpTextConfig) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them: each expert's gate, up and down
    projections one by one (the model stacks them), each n-gram table in
    ``split_ngram_parts`` row shards as ``torch.chunk`` cuts it (``…ngram_embedding.shard_0
    .weight``, …: fewer where the rows run out)."""
    out = []
    for t in hybrid.saved_experts(tensors(config)):
        if not t.name.endswith(".ngram_embedding.weight"):
            out.append(t)
            continue
        rows, cols = t.shape
        size = -(-rows // config.split_ngram_parts)
        stem = t.name.removesuffix(".weight")
        out += [replace(t, name=f"{stem}.shard_{k}.weight", shape=(min(size, rows - k * size),
                                                                    cols))
                for k in range(-(-rows // size))]
    return out


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Qwen4ExpForCausalLM`` among ``shapes`` (as the model holds its tensors, or as
    its checkpoint stores them: experts one by one, n-gram tables in shards, their buffers
    beside them), its config read from the tensors and checked exactly."""
    from paramcount.families.qwen3_next import recognise_family

    found = recognise_family(shapes, _recognise_at)
    if found or not any(SHARD in name or name.endswith(BUFFERS) for name in shapes):
        return found
    view: dict[str, tuple[int, ...]] = {}
    back: dict[str, tuple[str, ...]] = {}
    for name, shape in shapes.items():
        stem, cut, _ = name.partition(SHARD)
        if name.endswith(BUFFERS) or (cut and not is_shape(shape, 2)):
            continue
        ours = f"{stem}.ngram_embedding.weight" if cut else name
        back[ours] = (*back.get(ours, ()), name)
    for ours, names in back.items():
        if len(names) == 1 and names[0] == ours:
            view[ours] = shapes[ours]
            continue
        order = sorted(names, key=lambda n: int(n.partition(SHARD)[2].split(".")[0])
                       if n.partition(SHARD)[2].split(".")[0].isdigit() else -1)
        if {shapes[n][1] for n in order} != {shapes[order[0]][1]}:
            return []
        back[ours] = tuple(order)
        view[ours] = (sum(shapes[n][0] for n in order), shapes[order[0]][1])
    models = hybrid.from_saved(recognise_family(view, _recognise_at), back,
                               "the checkpoint stores each n-gram table in row shards (the "
                               "model joins them): split_ngram_parts read as their number")
    out = []
    for m in models:  # split_ngram_parts: the first table's shards (torch.chunk's cut)
        shards = max((len(names) for ours, names in back.items()
                      if ours.startswith(m.prefix) and ours.endswith(".ngram_embedding.weight")),
                     default=0)
        config = hybrid.build(Qwen4ExpTextConfig, **{
            **{f: getattr(m.config, f) for f in fields(m.config)},
            "split_ngram_parts": shards or Qwen4ExpTextConfig.split_ngram_parts})
        if isinstance(config, Qwen4ExpTextConfig) and {
                m.prefix + t.name for t in saved_tensors(config)} == set(m.names):
            out.append(replace(m, config=config))
    return out


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    mixer = shapes.get(f"{prefix}model.hyper_connection_mixer.input_mix_weight_down.weight")
    n = hybrid.layer_count(shapes, start)
    if not n or not is_shape(mixer, 2):
        return None
    assert mixer is not None
    kinds = tuple("indexed_attention" if f"{start}{i}.self_attn.q_proj.weight" in shapes
                  else "linear_attention" for i in range(n))
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n, "layer_types": kinds,
        "tie_word_embeddings": prefix + "lm_head.weight" not in shapes,
        "hc_lowrank": mixer[0], "hc_count": mixer[1] // d}
    notes = ["num_experts_per_tok is not in the weights: read as 10, the default"]
    if "linear_attention" in kinds:
        delta = read_gated_deltanet(shapes, f"{start}{kinds.index('linear_attention')}"
                                    ".linear_attn.", 128)
        if delta is None or delta.style != "split":
            return None
        values.update(linear_num_key_heads=delta.key_heads, linear_key_head_dim=delta.key_dim,
                      linear_num_value_heads=delta.value_heads,
                      linear_value_head_dim=delta.value_dim, linear_conv_kernel_dim=delta.kernel)
    if "indexed_attention" in kinds and not _read_attention(
            shapes, f"{start}{kinds.index('indexed_attention')}.self_attn.", values, notes):
        return None
    moe = read_experts(shapes, f"{start}0.mlp.", 10)
    if moe is None or moe.style != "qwen_next":
        return None
    values.update(num_experts=moe.experts, moe_intermediate_size=moe.inner,
                  shared_expert_intermediate_size=moe.shared_inner,
                  num_experts_per_tok=min(10, moe.experts))
    ple = [i for i in range(n) if f"{start}{i}.ple.key_proj.weight" in shapes]
    if ple:
        key, table = (shapes.get(f"{start}{ple[0]}.ple.{n}.weight") for n in (
            "key_proj", "ple_embedding.ngram_embedding"))
        conv = shapes.get(f"{start}{ple[0]}.ple.conv1d.weight")
        if not (is_shape(key, 2) and is_shape(table, 2) and is_shape(conv, 3)):
            return None
        assert key is not None and table is not None and conv is not None
        heads = key[1] // table[1] if table[1] and key[1] % table[1] == 0 else 0
        if not heads:
            return None
        size, per = (3, heads // 2) if heads % 2 == 0 else (heads + 1, 1)
        tables = [shapes.get(f"{start}{i}.ple.ple_embedding.ngram_embedding.weight")
                  for i in ple]
        if len(ple) * heads > MAX_HEADS or not all(is_shape(t, 2) for t in tables):
            return None
        found = read_ngram_tables([t[0] for t in tables if t], heads,
                                  Qwen4ExpTextConfig.ngram_vocab_size_base,
                                  Qwen4ExpTextConfig.make_ngram_vocab_size_divisible_by)
        if found is None:
            return None
        values.update(ple_layer_ids=tuple(i + 1 for i in ple), ple_embed_dim=key[1],
                      ple_conv_kernel_size=conv[2], ngram_size=size, heads_per_ngram=per,
                      ngram_vocab_size_base=found[0],
                      make_ngram_vocab_size_divisible_by=found[1])
        notes.append(f"n-gram heads read as ngram_size − 1 = {size - 1} times heads_per_ngram "
                     f"= {per}: the weights hold only their product; the tables' prime base "
                     f"and padding read from their rows ({found[0]:,} and {found[1]:,})")
    return hybrid.accept_values(shapes, NAME, prefix, Qwen4ExpTextConfig, values, tensors,
                                notes)


def _read_attention(shapes: Shapes, p: str, values: dict[str, object],
                    notes: list[str]) -> bool:
    """The indexed attention's values under ``p`` into ``values``; False where they are not
    one."""
    q, k, qn, iq, iqn = (shapes.get(p + n) for n in (
        "q_proj.weight", "k_proj.weight", "q_norm.weight", "indexer.index_qk_proj.weight",
        "indexer.q_layernorm.weight"))
    if not (is_shape(q, 2) and is_shape(k, 2) and is_shape(qn, 1) and is_shape(iq, 2)
            and is_shape(iqn, 1)):
        return False
    assert q is not None and k is not None and qn is not None and iq is not None
    assert iqn is not None
    width, index = qn[0], iqn[0]
    if q[0] % (2 * width) or k[0] % width or iq[0] % index or iq[0] // index < 2:
        return False
    values.update(num_attention_heads=q[0] // (2 * width), num_key_value_heads=k[0] // width,
                  head_dim=width, attention_bias=p + "q_proj.bias" in shapes,
                  indexer_n_heads=iq[0] // index - 1, indexer_kv_heads=1,
                  indexer_head_dim=index, indexer_budget=1, indexer_compress_ratio=1)
    notes.append("the indexer's budget and compress ratio are not in the weights (they shape "
                 "no parameter): read as 1")
    if index < width:  # the rotary width must fit an index head: the weights say it does
        values["partial_rotary_factor"] = index / width
        notes.append(f"partial_rotary_factor read as {index}/{width}: the rotary width must fit "
                     "the indexer's head")
    return True
