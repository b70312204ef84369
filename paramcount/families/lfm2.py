"""LFM2 as transformers' ``Lfm2ForCausalLM`` builds it from an ``Lfm2Config``: gated short
convolutions, attention at ``full_attn_idxs`` (or where ``layer_types`` says
``full_attention``), a SwiGLU MLP in every layer.

Each layer holds either attention (``self_attn``: q, k, v, ``out_proj`` without biases and
RMSNorms ``q_layernorm``, ``k_layernorm`` over a head's width) or the short convolution
(``conv``: in_proj (3D, D), a depthwise ``conv`` of ``conv_L_cache`` taps, out_proj (D, D);
biases with ``conv_bias``), then the MLP (``feed_forward``: w1, w3 (F, D), w2 (D, F)) and two
RMSNorms (``operator_norm``, ``ffn_norm``). F is ``intermediate_size`` adjusted as the reference
does with ``block_auto_adjust_ff_dim``: int(2F/3), times ``block_ffn_dim_multiplier``, rounded
up to a multiple of ``block_multiple_of``. Around them ``model.embed_tokens``, the final norm
``model.embedding_norm`` and ``lm_head``, tied by default.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.recognition import Shapes
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.mixers import Attention, Mlp, ShortConv, read_attention, read_short_conv
from paramcount.families.parts import at_most_blocks, factor
from paramcount.record import record

NAME = "lfm2"
TITLE = "LFM2 (short convolutions + attention)"
REFERENCE = "transformers Lfm2ForCausalLM"
MODEL_TYPES = ("lfm2",)
CLASSES = ("Lfm2ForCausalLM", "Lfm2Model")
LAYER_TYPES = {"full_attention": "attention", "conv": "conv"}


LAYOUT = Layout("transformers Lfm2Config", frozenset({
    "block_auto_adjust_ff_dim", "block_dim", "block_ff_dim", "block_ffn_dim_multiplier",
    "block_mlp_init_scale", "block_multiple_of", "block_norm_eps", "block_out_init_scale",
    "block_use_swiglu", "block_use_xavier_init", "conv_L_cache", "conv_bias", "conv_dim",
    "conv_dim_out", "conv_use_xavier_init", "full_attn_idxs", "head_dim", "hidden_size",
    "initializer_range", "intermediate_size", "layer_types", "max_position_embeddings",
    "norm_eps", "num_attention_heads", "num_heads", "num_hidden_layers", "num_key_value_heads",
    "rope_parameters", "tie_embedding", "use_pos_enc", "vocab_size"}))
"""The keys transformers' ``Lfm2Config`` reads (its fields, ``attribute_map`` and the older
names its ``__post_init__`` takes), and those the published files carry that it keeps but never
uses."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class Lfm2Config:
    """The options of transformers' ``Lfm2Config`` that shape its parameters, its defaults."""

    vocab_size: int = 65536
    hidden_size: int = 2560
    intermediate_size: int = 12288
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: int = 8
    head_dim: int | None = None
    conv_bias: bool = False
    conv_L_cache: int = 3
    block_multiple_of: int = 256
    block_ffn_dim_multiplier: float = 1.0
    block_auto_adjust_ff_dim: bool = True
    full_attn_idxs: tuple[int, ...] | None = None
    layer_types: tuple[str, ...] | None = None
    tie_word_embeddings: bool = True

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, (*hybrid.SIZES, "num_key_value_heads", "conv_L_cache",
                   "block_multiple_of"),
            ("conv_bias", "block_auto_adjust_ff_dim", "tie_word_embeddings"), ("head_dim",))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        hybrid.rope_even("head_dim", self.head_dim)
        factor("block_ffn_dim_multiplier", self.block_ffn_dim_multiplier)
        if self.layer_types is not None:
            types = hybrid.kinds_of(self, "layer_types", LAYER_TYPES)
            if len(types) != self.num_hidden_layers:
                raise SpecError("{layer_types} lists " + str(len(types)) + " layers, "
                                "{num_hidden_layers} says " + str(self.num_hidden_layers),
                                layer_types=self.layer_types,
                                num_hidden_layers=self.num_hidden_layers)
        elif self.full_attn_idxs is not None:
            hybrid.indices(self, "full_attn_idxs", self.num_hidden_layers)
        if "attention" in self.types:
            hybrid.heads_wide(self)
        if self.ffn_size < 1:
            raise SpecError("{intermediate_size} leaves the MLP no width after the reference "
                            "adjusts it", intermediate_size=self.intermediate_size)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's operator, ``attention`` or ``conv``."""
        if self.layer_types is not None:
            return tuple(LAYER_TYPES[t] for t in self.layer_types)
        idxs = range(self.num_hidden_layers) if self.full_attn_idxs is None else set(
            self.full_attn_idxs)
        return tuple("attention" if i in idxs else "conv" for i in range(self.num_hidden_layers))

    @property
    def heads_dim(self) -> int:
        """``head_dim``, or hidden_size // num_attention_heads."""
        return hybrid.heads_dim(self)

    @property
    def ffn_size(self) -> int:
        """The MLP's width F, as ``Lfm2MLP`` computes it."""
        size = self.intermediate_size
        if self.block_auto_adjust_ff_dim:
            size = int(self.block_ffn_dim_multiplier * int(2 * size / 3))
            m = self.block_multiple_of
            size = m * ((size + m - 1) // m)
        return size


Config = Lfm2Config

ALIASES: dict[str, tuple[str, ...]] = {**hybrid.HEAD_ALIASES, "conv_L_cache": ("--conv-kernel",)}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: Lfm2Config) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    types = config.types
    att = Attention(d, config.num_attention_heads, config.num_key_value_heads,
                    config.heads_dim, d, False, "out_proj", True) if "attention" in types else None
    conv = ShortConv(d, config.conv_L_cache, config.conv_bias)
    mlp = Mlp(d, config.ffn_size, False, "w1_w3_w2")
    for i, kind in enumerate(types):
        p = f"model.layers.{i}."
        if att is not None and kind == "attention":
            s.part("attention", "attention", att, p + "self_attn.", i)
        else:
            s.part("recurrent", "short conv", conv, p + "conv.", i)
        s.part("mlp", "mlp", mlp, p + "feed_forward.", i)
        hybrid.norm_of(s, p + "operator_norm.", d, i)
        hybrid.norm_of(s, p + "ffn_norm.", d, i)
    hybrid.final(s, "model.embedding_norm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


def json_values(data: Mapping[str, object]) -> dict[str, object]:
    """``block_ff_dim`` and ``tie_embedding`` (LiquidAI's names) win over
    ``intermediate_size`` and ``tie_word_embeddings``; ``layer_types`` over
    ``full_attn_idxs``."""
    values = dict(data)
    for theirs, ours in (("block_ff_dim", "intermediate_size"),
                         ("tie_embedding", "tie_word_embeddings")):
        if theirs in values:
            values[ours] = values[theirs]
    if values.get("layer_types") is not None:
        values.pop("full_attn_idxs", None)
    return values


tensors, formula, from_hf_config = hybrid.conventions(
    stack, Lfm2Config, "Lfm2ForCausalLM",
    ("F", "ffn_size", "the MLP width, intermediate_size adjusted"),
    lists=("full_attn_idxs", "layer_types"), prepare=json_values)


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Lfm2ForCausalLM`` among ``shapes``, checked exactly."""
    return hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    if f"{start}0.operator_norm.weight" not in shapes:
        return None
    n = hybrid.layer_count(shapes, start)
    if not n:
        return None
    attending = tuple(i for i in range(n) if f"{start}{i}.self_attn.q_proj.weight" in shapes)
    w1 = shapes.get(f"{start}0.feed_forward.w1.weight")
    if w1 is None or len(w1) != 2:
        return None
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n,
        "intermediate_size": w1[0], "block_auto_adjust_ff_dim": False,
        "full_attn_idxs": attending,
        "tie_word_embeddings": prefix + "lm_head.weight" not in shapes}
    notes = [f"the MLP is {w1[0]} wide: read as intermediate_size {w1[0]} without "
             "block_auto_adjust_ff_dim (config.json's larger size, adjusted, gives the same)"]
    convs = [i for i in range(n) if i not in attending]
    if convs:
        conv = read_short_conv(shapes, f"{start}{convs[0]}.conv.")
        if conv is None:
            return None
        values.update(conv_L_cache=conv.kernel, conv_bias=conv.bias)
    if attending:
        att = read_attention(shapes, f"{start}{attending[0]}.self_attn.", rope=True)
        if att is None:
            return None
        values.update(num_attention_heads=att.heads, num_key_value_heads=att.kv_heads,
                      head_dim=None if att.head_dim * att.heads == d else att.head_dim)
    return hybrid.accept_values(shapes, NAME, prefix, Lfm2Config, values, tensors, notes)
