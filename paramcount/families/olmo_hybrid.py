"""OLMo Hybrid as transformers' ``OlmoHybridForCausalLM`` builds it from an
``OlmoHybridConfig``: Gated DeltaNet layers and attention where ``layer_types`` says
(``linear_attention``, ``full_attention``; by default attention at every 4th layer from 3, and
at the last where that places none), each with a gated MLP.

A Gated DeltaNet layer holds the MLP (``mlp``: gate, up, down), two RMSNorms
(``input_layernorm``, ``post_attention_layernorm``) and the mixer (``linear_attn``: ``A_log``,
``dt_bias``, ``q_proj``, ``k_proj`` (Hk·dk, D), ``v_proj``, the gate ``g_proj`` (Hv·dv, D),
``a_proj``, ``b_proj`` (Hv, D), ``o_proj``, the conv over q, k and v, the gated ``o_norm``).
An attention layer holds, OLMo 2's way, the attention (``self_attn``: q, k, v, o with
``attention_bias``, RMSNorms ``q_norm``, ``k_norm`` over all the heads), the MLP and two
RMSNorms after them (``post_attention_layernorm``, ``post_feedforward_layernorm``). The
DeltaNet's heads default to ``num_attention_heads`` and its widths to
int(0.75·hidden_size / heads) for keys and twice that for values. Around them
``model.embed_tokens``, ``model.norm`` and ``lm_head`` (untied by default).
"""

from __future__ import annotations

from math import gcd

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.linear_mixers import GatedDeltaNet, read_gated_deltanet
from paramcount.families.loader import Layout
from paramcount.families.mixers import Attention, Mlp, read_mlp
from paramcount.families.parts import at_most_blocks, norm
from paramcount.record import record, replace

NAME = "olmo-hybrid"
TITLE = "OLMo Hybrid (Gated DeltaNet + attention)"
REFERENCE = "transformers OlmoHybridForCausalLM"
MODEL_TYPES = ("olmo_hybrid",)
CLASSES = ("OlmoHybridForCausalLM", "OlmoHybridModel")
LAYER_TYPES = {"linear_attention": "linear", "full_attention": "attention"}

LAYOUT = Layout("transformers OlmoHybridConfig", frozenset({
    "attention_bias", "attention_dropout", "head_dim", "hidden_act", "hidden_size",
    "initializer_range", "intermediate_size", "layer_types", "linear_a_log_max",
    "linear_a_log_min", "linear_allow_neg_eigval", "linear_conv_kernel_dim", "linear_dt_init_floor",
    "linear_dt_max", "linear_dt_min", "linear_key_head_dim", "linear_num_key_heads",
    "linear_num_value_heads", "linear_value_head_dim", "max_position_embeddings",
    "num_attention_heads", "num_hidden_layers", "num_key_value_heads", "rms_norm_eps",
    "rope_parameters", "rope_scaling", "rope_theta", "vocab_size"}))
"""The keys transformers' ``OlmoHybridConfig`` reads (``head_dim``, which it does not declare,
through its attention)."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class OlmoHybridConfig:
    """The options of transformers' ``OlmoHybridConfig`` that shape its parameters, its
    defaults (the DeltaNet's heads and widths None: derived as the reference derives them)."""

    vocab_size: int = 100352
    hidden_size: int = 3840
    intermediate_size: int = 11008
    num_hidden_layers: int = 32
    num_attention_heads: int = 30
    num_key_value_heads: int | None = None
    head_dim: int | None = None
    attention_bias: bool = False
    layer_types: tuple[str, ...] | None = None
    linear_num_key_heads: int | None = None
    linear_num_value_heads: int | None = None
    linear_key_head_dim: int | None = None
    linear_value_head_dim: int | None = None
    linear_conv_kernel_dim: int = 4
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, (*hybrid.SIZES, "linear_conv_kernel_dim"),
            ("attention_bias", "tie_word_embeddings"),
            ("num_key_value_heads", "head_dim", "linear_num_key_heads",
             "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim"))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        hybrid.layer_types(self, LAYER_TYPES)
        if "linear" not in self.types or "attention" not in self.types:
            raise SpecError("{layer_types} must hold a linear_attention and a full_attention "
                            "layer (transformers: OLMoHybrid expects at least one of each)",
                            layer_types=self.layer_types or "(the default placement)")
        hybrid.heads_wide(self)
        if self.key_dim < 1:
            raise SpecError("{linear_key_head_dim} would be 0: give it, or a wider "
                            "hidden_size", linear_key_head_dim=self.linear_key_head_dim)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's mixer, ``linear`` or ``attention``."""
        if self.layer_types is not None:
            return tuple(LAYER_TYPES[t] for t in self.layer_types)
        n = self.num_hidden_layers
        kinds = ["attention" if i % 4 == 3 else "linear" for i in range(n)]
        if "attention" not in kinds:
            kinds[-1] = "attention"
        return tuple(kinds)

    @property
    def key_heads(self) -> int:
        """The DeltaNet's key heads: ``linear_num_key_heads`` or ``num_attention_heads``."""
        return self.linear_num_key_heads or self.num_attention_heads

    @property
    def key_dim(self) -> int:
        """A key head's width: ``linear_key_head_dim`` or int(0.75·hidden_size / heads)."""
        if self.linear_key_head_dim is not None:
            return self.linear_key_head_dim
        return int(0.75 * self.hidden_size / self.key_heads)

    def deltanet(self) -> GatedDeltaNet:
        """The Gated DeltaNet part."""
        return GatedDeltaNet(self.hidden_size, self.key_heads,
                             self.linear_num_value_heads or self.num_attention_heads,
                             self.key_dim, self.linear_value_head_dim or 2 * self.key_dim,
                             self.linear_conv_kernel_dim, "olmo")


Config = OlmoHybridConfig

ALIASES: dict[str, tuple[str, ...]] = hybrid.HEAD_ALIASES
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: OlmoHybridConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d, heads = config.hidden_size, config.num_attention_heads
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    kv = config.num_key_value_heads or heads
    width = hybrid.heads_dim(config)
    att = Attention(d, heads, kv, width, d, config.attention_bias)
    delta = config.deltanet()
    mlp = Mlp(d, config.intermediate_size)
    for i, kind in enumerate(config.types):
        p = f"model.layers.{i}."
        if kind == "attention":
            s.part("attention", "attention", att, p + "self_attn.", i)
            s.add("norms", "q and k norms", (heads + kv) * width,
                  [*norm(p + "self_attn.q_norm.", heads * width, i),
                   *norm(p + "self_attn.k_norm.", kv * width, i)])
            s.part("mlp", "mlp", mlp, p + "mlp.", i)
            hybrid.norm_of(s, p + "post_attention_layernorm.", d, i)
            hybrid.norm_of(s, p + "post_feedforward_layernorm.", d, i)
        else:
            s.part("mlp", "mlp", mlp, p + "mlp.", i)
            hybrid.norm_of(s, p + "input_layernorm.", d, i)
            hybrid.norm_of(s, p + "post_attention_layernorm.", d, i)
            s.part("recurrent", "gated deltanet", delta, p + "linear_attn.", i)
    hybrid.final(s, "model.norm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


tensors, formula, from_hf_config = hybrid.conventions(
    stack, OlmoHybridConfig, "OlmoHybridForCausalLM")


SAVED = ((".input_layernorm.", ".attention_layer_norm."),
         (".post_attention_layernorm.", ".feedforward_layer_norm."))
"""The norms' names in the model and in the checkpoint (transformers renames them when it
loads and saves; it also splits the DeltaNet's conv into ``q_conv1d``, ``k_conv1d`` and
``v_conv1d``; transformers 5.24 writes the three equally wide whatever the widths of q, k and
v, so a file it saved with v wider than q and k is recognised, the three summed, and its three
parts shown as not the widths the model reads)."""
CONVS = ("q_conv1d", "k_conv1d", "v_conv1d")


def saved_tensors(config: OlmoHybridConfig) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them: the norms renamed, each DeltaNet's conv
    as three, over q, k and v."""
    delta = config.deltanet()
    out = []
    for t in tensors(config):
        for ours, theirs in SAVED:
            t = replace(t, name=t.name.replace(ours, theirs))
        if t.name.endswith(".linear_attn.conv1d.weight"):
            stem = t.name.removesuffix("conv1d.weight")
            out += [replace(t, name=f"{stem}{conv}.weight", shape=(rows, *t.shape[1:]))
                    for conv, rows in zip(CONVS, (delta.keys, delta.keys, delta.values),
                                          strict=True)]
        else:
            out.append(t)
    return out


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``OlmoHybridForCausalLM`` among ``shapes`` (as the model holds its tensors, or as
    its checkpoint names them), checked exactly."""
    found = hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)
    if found or not any(name.endswith(".q_conv1d.weight") for name in shapes):
        return found
    view: dict[str, tuple[int, ...]] = {}
    back: dict[str, tuple[str, ...]] = {}
    for name, shape in shapes.items():
        ours = name
        for mine, theirs in SAVED:
            ours = ours.replace(theirs, mine)
        stem, _, last = ours.rpartition(".linear_attn.")
        if last in (f"{c}.weight" for c in CONVS):
            merged = f"{stem}.linear_attn.conv1d.weight"
            parts = [shapes.get(f"{name.rpartition('.linear_attn.')[0]}.linear_attn.{c}.weight")
                     for c in CONVS]
            if all(is_shape(p, 3) for p in parts) and merged not in view:
                assert all(p is not None for p in parts)
                view[merged] = (sum(p[0] for p in parts if p), *shape[1:])
                back[merged] = tuple(f"{name.rpartition('.linear_attn.')[0]}.linear_attn.{c}"
                                     ".weight" for c in CONVS)
            continue
        view[ours], back[ours] = shape, (name,)
    return hybrid.from_saved(hybrid.recognise_roots(view, "embed_tokens", _recognise_at), back,
                             "the checkpoint names the norms attention_layer_norm and "
                             "feedforward_layer_norm and splits each DeltaNet's conv in three")


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    n = hybrid.layer_count(shapes, start)
    types = tuple("full_attention" if f"{start}{i}.self_attn.q_proj.weight" in shapes
                  else "linear_attention" for i in range(n))
    if not n or "full_attention" not in types or "linear_attention" not in types:
        return None
    lin = types.index("linear_attention")
    delta = read_gated_deltanet(shapes, f"{start}{lin}.linear_attn.")
    mlp = read_mlp(shapes, f"{start}0.mlp.", "gate_up_down")
    p = f"{start}{types.index('full_attention')}.self_attn."
    q, k, qn = (shapes.get(p + n) for n in ("q_proj.weight", "k_proj.weight", "q_norm.weight"))
    if delta is None or delta.style != "olmo" or mlp is None or not (
            is_shape(q, 2) and is_shape(k, 2) and is_shape(qn, 1)):
        return None
    assert q is not None and k is not None
    common = gcd(q[0], k[0])  # the widest head transformers' RoPE takes: even, or at most 4
    width = next(w for w in range(common, 0, -1) if common % w == 0 and (w <= 4 or w % 2 == 0))
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n, "layer_types": types,
        "intermediate_size": mlp.inner, "num_attention_heads": q[0] // width,
        "num_key_value_heads": k[0] // width,
        "head_dim": None if width * (q[0] // width) == d else width,
        "attention_bias": p + "q_proj.bias" in shapes,
        "linear_num_key_heads": delta.key_heads, "linear_key_head_dim": delta.key_dim,
        "linear_num_value_heads": delta.value_heads,
        "linear_value_head_dim": delta.value_dim, "linear_conv_kernel_dim": delta.kernel,
        "tie_word_embeddings": prefix + "lm_head.weight" not in shapes}
    notes = [f"attention heads read as {q[0] // width} of width {width}, the DeltaNet's key "
             f"heads as {delta.key_heads} of width {delta.key_dim}: the weights hold only "
             "heads × width"]
    return hybrid.accept_values(shapes, NAME, prefix, OlmoHybridConfig, values, tensors, notes)
