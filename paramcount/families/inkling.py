"""Inkling as transformers' ``InklingForCausalLM`` builds it from an ``InklingTextConfig``
(``model_type`` ``inkling_text``, the text model of Thinking Machines' Inkling): every layer
attention, sliding (``hybrid_sliding``) or full (``hybrid``), and an MLP, dense or a mixture of
experts, each followed by a short convolution added to its input.

A layer holds ``self_attn`` (q, k, v (heads·head_dim / kv_heads·head_dim, D), ``r_proj``
(heads·d_rel, D) making the relative states, o (D, heads·head_dim), short convolutions
``k_sconv``, ``v_sconv`` over k and v, RMSNorms ``q_norm``, ``k_norm`` over a head, and
``rel_logits_proj.proj`` (d_rel, extent): the relative position bias's profiles, as many
distances as the window on a sliding layer, ``rel_extent`` on a full one; the sliding layers'
widths are the ``swa_…`` options), the MLP (dense: ``global_scale`` (1) and a gated MLP;
sparse: the router ``gate`` over the routed and shared experts with its ``global_scale``, the
stacked routed experts and the shared ones, stacked too), RMSNorms ``input_layernorm``,
``post_attention_layernorm`` and the short convolutions ``attn_sconv``, ``mlp_sconv`` over D.
Around them ``model.embed_tokens`` with its RMSNorm ``embed_norm``, ``model.norm`` and
``lm_head``, never tied. Its multi-token-prediction layers (``num_mtp_layers``) are not built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout, is_int
from paramcount.families.mixers import DepthwiseConv, Mlp
from paramcount.families.parts import at_most_blocks, linear, norm, sizes, tensor
from paramcount.families.state import Piece, attention
from paramcount.record import record

NAME = "inkling"
TITLE = "Inkling (short convolutions + attention + experts)"
REFERENCE = "transformers InklingForCausalLM"
MODEL_TYPES = ("inkling_text",)
CLASSES = ("InklingForCausalLM", "InklingTextModel")
LAYER_TYPES = {"hybrid": "full", "hybrid_sliding": "sliding"}
MLP_TYPES = {"dense": "dense", "sparse": "sparse"}

LAYOUT = Layout("transformers InklingTextConfig", frozenset({
    "attention_dropout", "chain_hidden_post_norm", "conv_kernel_size", "d_rel",
    "dense_intermediate_size", "dense_mlp_idx", "embedding_multiplier", "head_dim",
    "hidden_act", "hidden_size", "initializer_range", "intermediate_size", "layer_types",
    "local_layer_ids", "log_scaling_alpha", "log_scaling_n_floor",
    "logits_mup_width_multiplier", "max_position_embeddings", "mlp_layer_types",
    "model_max_length", "moe_intermediate_size", "mtp_hidden_states_first",
    "mtp_local_layer_ids", "n_routed_experts", "n_shared_experts", "num_attention_heads",
    "num_experts_per_tok", "num_hidden_layers", "num_key_value_heads", "num_local_experts",
    "num_mtp_layers", "number_of_conv_states", "rel_extent", "rms_norm_eps",
    "rms_norm_eps_moe_gate", "route_scale", "sconv_kernel_size", "shared_expert_sink",
    "sliding_window", "sliding_window_size", "swa_head_dim", "swa_num_attention_heads",
    "swa_num_key_value_heads", "unpadded_vocab_size", "vocab_size"}))
"""The keys transformers' ``InklingTextConfig`` reads (its fields, ``attribute_map``, the
``dense_mlp_idx`` and ``dense_intermediate_size`` its ``__post_init__`` takes, and the
``number_of_conv_states`` it writes)."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class InklingAttention:
    """Inkling's attention (``style`` ``inkling``): q, k, v, ``r_proj`` (heads·d_rel, D), o,
    short convolutions over k and v (``kernel`` taps), RMSNorms over a head's q and k, and the
    relative position bias's ``d_rel`` profiles over ``extent`` distances; or Inkling 2's
    (``sink``; ``dynamic``: a full layer's, its convolutions over k and v dynamic), in
    :mod:`paramcount.families.inkling2`'s docstring. A sliding ``window`` > 0 bounds what its
    cache keeps."""

    width: int
    heads: int
    kv_heads: int
    head_dim: int
    d_rel: int
    extent: int
    kernel: int
    window: int = 0
    style: str = "inkling"

    def __post_init__(self) -> None:
        sizes(self, "width", "heads", "kv_heads", "head_dim", "d_rel", "extent", "kernel")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """Its tensors in ``named_parameters()`` order."""
        if self.style != "inkling":
            return self._sink_tensors(prefix, layer)
        d, q, kv = self.width, self.heads * self.head_dim, self.kv_heads * self.head_dim
        conv = DepthwiseConv(kv, self.kernel)
        out = [t for name, rows in (("q_proj", q), ("k_proj", kv), ("v_proj", kv),
                                    ("r_proj", self.heads * self.d_rel))
               for t in linear(f"{prefix}{name}.", rows, d, False, layer)]
        out += linear(prefix + "o_proj.", d, q, False, layer)
        out += conv.tensors(prefix + "k_sconv.", layer) + conv.tensors(prefix + "v_sconv.", layer)
        out += norm(prefix + "q_norm.", self.head_dim, layer)
        out += norm(prefix + "k_norm.", self.head_dim, layer)
        return [*out, tensor(prefix + "rel_logits_proj.proj", (self.d_rel, self.extent), layer,
                             self.d_rel, "rel_logits_proj")]

    def _sink_tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """Inkling 2's: q with its scale, k and v with their convolutions, the gated o, the
        sinks and the relative position bias."""
        d, h, hd, r = self.width, self.heads, self.head_dim, self.d_rel
        kv, k = self.kv_heads * hd, self.kernel
        out = [*linear(prefix + "q_proj.linear.", h * hd, d, False, layer),
               tensor(prefix + "q_proj.norm.scale", (h, hd), layer, hd, "q_proj.norm.scale")]
        for name in ("k_proj.", "v_proj."):
            p = prefix + name
            out += linear(p + "linear.", kv, d, False, layer)
            if self.style == "dynamic":
                out += [tensor(p + "sconv.static_weight", (k, kv), layer, kv,
                               name + "sconv.static_weight"),
                        *linear(p + "sconv.weight_proj.", self.kv_heads * k, d, False, layer)]
            else:
                out += DepthwiseConv(kv, k).tensors(p + "sconv.", layer)
        out += linear(prefix + "o_proj.gate_proj.", h * hd, d, False, layer)
        out += linear(prefix + "o_proj.linear.", d, h * hd, False, layer)
        out += linear(prefix + "sink_proj.", h, d, False, layer)
        p = prefix + "relative_position_bias."
        return [*out, tensor(p + "proj", (r, self.extent), layer, r, "relative_position_bias"),
                *linear(p + "linear.", h * r, d, False, layer),
                tensor(p + "norm.scale", (h, r), layer, r, "relative_position_bias.norm.scale")]

    def cache(self) -> tuple[Piece, ...]:
        """Keys and values, kv_heads·head_dim each per token (a sliding window's last window − 1
        tokens), and the k and v convolutions' last K inputs (float32; a dynamic convolution
        keeps the same)."""
        conv = DepthwiseConv(self.kv_heads * self.head_dim, self.kernel).cache()
        return (*attention(self.kv_heads, self.head_dim, max(self.window - 1, 0)), *conv, *conv)

    @property
    def count(self) -> int:
        """Inkling: (2q + 2kv + H·r)·D + 2·kv·K + 2·hd + r·X, q = H·hd, kv = kv_heads·hd.
        Inkling 2: q·(3D + 1) + 2·kv·D + 2·kv·K [+ 2·kv_heads·K·D dynamic] + H·D
        + r·(X + H·D + H)."""
        d, h, hd, r, k = self.width, self.heads, self.head_dim, self.d_rel, self.kernel
        q, kv = h * hd, self.kv_heads * hd
        if self.style == "inkling":
            return (2 * q + 2 * kv + h * r) * d + 2 * kv * k + 2 * hd + r * self.extent
        conv = kv * k + (self.kv_heads * k * d if self.style == "dynamic" else 0)
        return q * (3 * d + 1) + 2 * kv * d + 2 * conv + h * d + r * (self.extent + h * d + h)


@record
class ScaledMlp:
    """Inkling's dense MLP: ``global_scale`` (1), then a gated MLP ``inner`` wide."""

    width: int
    inner: int

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The scale, then gate, up and down."""
        return [tensor(prefix + "global_scale", (1,), layer, self.width, "global_scale"),
                *Mlp(self.width, self.inner).tensors(prefix, layer)]

    @property
    def count(self) -> int:
        """1 + 3·I·D."""
        return 1 + Mlp(self.width, self.inner).count


@record
class SinkExperts:
    """Inkling's mixture of experts: the router ``gate`` (E + S, D) scoring the ``experts``
    routed and the ``shared`` ones, its ``global_scale`` (1), the routed experts' stacked
    ``gate_up_proj`` (E, 2I, D) and ``down_proj`` (E, D, I), the shared experts'
    ``gate_proj``, ``up_proj`` (S, I, D) and ``down_proj`` (S, D, I)."""

    width: int
    inner: int
    experts: int
    shared: int
    top_k: int

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The router and its scale, the routed experts, the shared ones."""
        d, i, e, s = self.width, self.inner, self.experts, self.shared
        return [tensor(prefix + name, shape, layer, d if shape[-1] == d else i, role)
                for name, shape, role in (
                    ("gate.weight", (e + s, d), "router"),
                    ("gate.global_scale", (1,), "router.global_scale"),
                    ("experts.gate_up_proj", (e, 2 * i, d), "experts.gate_up_proj"),
                    ("experts.down_proj", (e, d, i), "experts.down_proj"),
                    ("shared_experts.gate_proj", (s, i, d), "shared_experts.gate_proj"),
                    ("shared_experts.up_proj", (s, i, d), "shared_experts.up_proj"),
                    ("shared_experts.down_proj", (s, d, i), "shared_experts.down_proj"))]

    @property
    def count(self) -> int:
        """(E + S)·D + 1 + 3·(E + S)·I·D."""
        both = self.experts + self.shared
        return both * self.width + 1 + 3 * both * self.inner * self.width

    @property
    def active(self) -> int:
        """What one token uses: all but the ``experts − top_k`` routed experts it is not
        routed to (the shared ones run for every token)."""
        return self.count - max(self.experts - self.top_k, 0) * 3 * self.inner * self.width


@record
class LayerConvs:
    """The short convolutions after a layer's attention and its MLP: what they keep."""

    conv: DepthwiseConv

    def cache(self) -> tuple[Piece, ...]:
        """Each one's last K inputs (float32)."""
        return self.conv.cache() * 2


@record
class InklingConfig:
    """The options of transformers' ``InklingTextConfig`` that shape its parameters (and the
    sliding window its cache keeps), its defaults (no ``tie_word_embeddings``: the model ties
    nothing)."""

    vocab_size: int = 201024
    hidden_size: int = 6144
    num_hidden_layers: int = 66
    num_attention_heads: int = 64
    num_key_value_heads: int = 8
    head_dim: int = 128
    swa_num_attention_heads: int = 64
    swa_num_key_value_heads: int = 16
    swa_head_dim: int = 128
    sliding_window_size: int = 512
    d_rel: int = 16
    rel_extent: int = 1024
    conv_kernel_size: int = 4
    intermediate_size: int = 24576
    moe_intermediate_size: int = 3072
    n_routed_experts: int = 256
    num_experts_per_tok: int = 6
    n_shared_experts: int = 2
    dense_mlp_idx: int = 0
    """The first layers with a dense MLP where ``mlp_layer_types`` is not given."""
    local_layer_ids: tuple[int, ...] | None = None
    layer_types: tuple[str, ...] | None = None
    mlp_layer_types: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        hybrid.check_types(self, (
            "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
            "num_key_value_heads", "head_dim", "swa_num_attention_heads",
            "swa_num_key_value_heads", "swa_head_dim", "sliding_window_size", "d_rel",
            "rel_extent", "conv_kernel_size", "intermediate_size", "moe_intermediate_size",
            "n_routed_experts", "num_experts_per_tok", "n_shared_experts"))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        if not (is_int(self.dense_mlp_idx) and self.dense_mlp_idx >= 0):
            raise SpecError("{dense_mlp_idx} must be 0 or a positive whole number",
                            dense_mlp_idx=self.dense_mlp_idx)
        if self.local_layer_ids is not None:
            hybrid.indices(self, "local_layer_ids", self.num_hidden_layers)
        hybrid.layer_types(self, LAYER_TYPES)
        hybrid.layer_types(self, MLP_TYPES, "mlp_layer_types")

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's attention, ``full`` or ``sliding``: ``layer_types``, else sliding at
        ``local_layer_ids``, else at every layer but each 6th."""
        if self.layer_types is not None:
            return tuple(LAYER_TYPES[t] for t in self.layer_types)
        local = set(self.local_layer_ids) if self.local_layer_ids is not None else {
            i for i in range(self.num_hidden_layers) if (i + 1) % 6}
        return tuple("sliding" if i in local else "full" for i in range(self.num_hidden_layers))

    @property
    def mlps(self) -> tuple[str, ...]:
        """Each layer's MLP, ``dense`` or ``sparse``: ``mlp_layer_types``, else dense before
        ``dense_mlp_idx``."""
        if self.mlp_layer_types is not None:
            return self.mlp_layer_types
        return tuple("dense" if i < self.dense_mlp_idx else "sparse"
                     for i in range(self.num_hidden_layers))

    def attention(self, kind: str) -> InklingAttention:
        """A ``full`` or ``sliding`` layer's attention."""
        heads, kv, head_dim, extent, window = widths(self, kind)
        return InklingAttention(self.hidden_size, heads, kv, head_dim, self.d_rel, extent,
                                self.conv_kernel_size, window)


def widths(config: Any, kind: str) -> tuple[int, int, int, int, int]:
    """A ``full`` or ``sliding`` layer's heads, kv heads, head width, relative bias extent and
    window (0: none) in an Inkling (1 or 2) config: a sliding layer's are the ``swa_…``
    options, its extent the window."""
    if kind == "sliding":
        window = config.sliding_window_size
        return (config.swa_num_attention_heads, config.swa_num_key_value_heads,
                config.swa_head_dim, window, window)
    return (config.num_attention_heads, config.num_key_value_heads, config.head_dim,
            config.rel_extent, 0)


Config = InklingConfig

ALIASES: dict[str, tuple[str, ...]] = {
    **hybrid.HEAD_ALIASES, "n_routed_experts": ("--num-experts",),
    "conv_kernel_size": ("--conv-kernel",), "sliding_window_size": ("--sliding-window",)}
"""Names people use for this family's options beside ``--field-name``."""

LABELS = {"full": "attention", "sliding": "sliding attention"}


@hybrid.cached
def stack(config: InklingConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    hybrid.norm_of(s, "model.embed_tokens.embed_norm.", d, -1)
    conv = DepthwiseConv(d, config.conv_kernel_size)
    dense = ScaledMlp(d, config.intermediate_size)
    moe = SinkExperts(d, config.moe_intermediate_size, config.n_routed_experts,
                      config.n_shared_experts, config.num_experts_per_tok)
    for i, (kind, mlp) in enumerate(zip(config.types, config.mlps, strict=True)):
        p = f"model.layers.{i}."
        s.part("attention", LABELS[kind], config.attention(kind), p + "self_attn.", i)
        if mlp == "sparse":
            s.part("experts", "experts", moe, p + "mlp.", i)
            s.idle += moe.count - moe.active
        else:
            s.part("mlp", "mlp", dense, p + "mlp.", i)
        for name in ("input_layernorm", "post_attention_layernorm"):
            hybrid.norm_of(s, f"{p}{name}.", d, i)
        for name in ("attn_sconv", "mlp_sconv"):
            s.part("recurrent", "short conv", conv, f"{p}{name}.", i, state=False)
        s.holds(i, "short convs", LayerConvs(conv))
    hybrid.final(s, "model.norm.", config.vocab_size, d, False)
    return s


ALIAS_KEYS = {"sconv_kernel_size": "conv_kernel_size", "sliding_window": "sliding_window_size",
              "num_local_experts": "n_routed_experts"}
"""The ``attribute_map`` keys transformers reads for a field (the field's own key wins)."""


def json_values(data: Mapping[str, object]) -> dict[str, object]:
    """A checkpoint's ``dense_intermediate_size`` (then ``intermediate_size`` is the experts'
    width, and ``dense_intermediate_size`` the dense MLP's)."""
    values = dict(data)
    dense = values.pop("dense_intermediate_size", None)
    if dense is not None:
        values["moe_intermediate_size"] = values.get(
            "intermediate_size", InklingConfig.intermediate_size)
        values["intermediate_size"] = dense
    return values


tensors, formula, from_hf_config = hybrid.conventions(
    stack, InklingConfig, "InklingForCausalLM", ("E", "n_routed_experts"),
    lists=("layer_types", "mlp_layer_types", "local_layer_ids"), aliases=ALIAS_KEYS,
    prepare=json_values)


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``InklingForCausalLM`` among ``shapes``, checked exactly."""
    return recognise_params(shapes, _recognise_at)


def recognise_params(shapes: Shapes, at: Callable[[Shapes, str, int, int],
                                                  RecognisedModel | None]
                     ) -> list[RecognisedModel]:
    """The models ``at`` finds at each causal LM root, a checkpoint's router buffers
    (``e_score_correction_bias``) left out and not claimed (Inkling 1 and 2)."""
    params = {n: s for n, s in shapes.items() if n.rsplit(".", 1)[-1] not in hybrid.BUFFERS}
    return hybrid.recognise_roots(params, "embed_tokens", at)


def _attention_at(shapes: Shapes, p: str) -> tuple[int, int, int, int, int] | None:
    """(heads, kv_heads, head_dim, d_rel, extent) of the attention under ``p``, or None."""
    q, k, r, qn, rel = (shapes.get(p + n) for n in (
        "q_proj.weight", "k_proj.weight", "r_proj.weight", "q_norm.weight",
        "rel_logits_proj.proj"))
    if not (is_shape(q, 2) and is_shape(k, 2) and is_shape(r, 2) and is_shape(qn, 1)
            and is_shape(rel, 2)):
        return None
    assert q is not None and k is not None and r is not None and qn is not None
    assert rel is not None
    hd, heads = qn[0], q[0] // qn[0]
    if q[0] % hd or k[0] % hd or r[0] != heads * rel[0]:
        return None
    return heads, k[0] // hd, hd, rel[0], rel[1]


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    conv = shapes.get(f"{start}0.attn_sconv.conv1d.weight")
    if f"{prefix}model.embed_tokens.embed_norm.weight" not in shapes or not is_shape(conv, 3):
        return None
    assert conv is not None
    n = hybrid.layer_count(shapes, start)
    heads = [_attention_at(shapes, f"{start}{i}.self_attn.") for i in range(n)]
    kinds = list(dict.fromkeys(heads))
    if not n or None in kinds or len(kinds) > 2:
        return None
    sliding, full = kinds[0], kinds[-1]
    assert sliding is not None and full is not None
    mlps = tuple("sparse" if f"{start}{i}.mlp.experts.gate_up_proj" in shapes else "dense"
                 for i in range(n))
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n,
        "conv_kernel_size": conv[2], "mlp_layer_types": mlps,
        "layer_types": tuple("hybrid_sliding" if h == sliding else "hybrid" for h in heads),
        "swa_num_attention_heads": sliding[0], "swa_num_key_value_heads": sliding[1],
        "swa_head_dim": sliding[2], "d_rel": sliding[3], "sliding_window_size": sliding[4],
        "num_attention_heads": full[0], "num_key_value_heads": full[1], "head_dim": full[2],
        "rel_extent": full[4]}
    notes = []
    if len(kinds) == 1:
        notes.append("full and sliding attention hold the same tensors: read as sliding, "
                     "the window the relative bias's extent (layer_types in config.json tells "
                     "which)")
    if "dense" in mlps:
        down = shapes.get(f"{start}{mlps.index('dense')}.mlp.down_proj.weight")
        if not is_shape(down, 2):
            return None
        assert down is not None
        values["intermediate_size"] = down[1]
    if "sparse" in mlps:
        p = f"{start}{mlps.index('sparse')}.mlp."
        down, shared = shapes.get(p + "experts.down_proj"), shapes.get(
            p + "shared_experts.gate_proj")
        if not (is_shape(down, 3) and is_shape(shared, 3)):
            return None
        assert down is not None and shared is not None
        values.update(n_routed_experts=down[0], moe_intermediate_size=down[2],
                      n_shared_experts=shared[0])
        notes.append(f"the experts used per token are not in the weights: read as "
                     f"{InklingConfig.num_experts_per_tok} (transformers' default)")
    return hybrid.accept_values(shapes, NAME, prefix, InklingConfig, values, tensors, notes)
