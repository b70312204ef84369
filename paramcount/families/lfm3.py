"""LFM3 as transformers' ``Lfm3ForCausalLM`` builds it from an ``Lfm3Config``: LFM2's gated
short convolutions (:mod:`paramcount.families.lfm2`) and attention, full or sliding, where
``layer_types`` says (``conv``, ``full_attention``, ``sliding_attention``; by default full
attention at every 4th layer from 2, sliding at every 4th from 4, convolutions elsewhere).

Each layer holds its operator (``conv``: ``conv`` of ``conv_L_cache`` taps, ``in_proj``
(3D, D), ``out_proj`` (D, D), biases with ``conv_bias``; or ``self_attn``: q, k, v, o (biases
with ``attention_bias``), RMSNorms ``q_norm``, ``k_norm`` over a head (``head_dim``), and with
``use_attention_gate`` a per-head gate ``g_proj`` (heads, D)), the SwiGLU MLP
(``feed_forward``: w1, w3 (F, D), w2 (D, F)) and RMSNorms ``operator_norm``, ``ffn_norm`` and,
with ``use_sandwich_norm``, ``post_operator_norm``, ``post_ffn_norm``. Around them
``model.embed_tokens``, ``model.embedding_norm`` and ``lm_head``, tied by default.
"""

from __future__ import annotations

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.mixers import Attention, Mlp, ShortConv, read_mlp, read_short_conv
from paramcount.families.parts import at_most_blocks, linear
from paramcount.record import record, replace

NAME = "lfm3"
TITLE = "LFM3 (short convolutions + gated attention)"
REFERENCE = "transformers Lfm3ForCausalLM"
MODEL_TYPES = ("lfm3",)
CLASSES = ("Lfm3ForCausalLM", "Lfm3Model")
LAYER_TYPES = {"conv": "conv", "full_attention": "attention", "sliding_attention": "attention"}

LAYOUT = Layout("transformers Lfm3Config", frozenset({
    "attention_bias", "attention_dropout", "conv_L_cache", "conv_bias", "head_dim",
    "hidden_size", "initializer_range", "intermediate_size", "layer_types",
    "max_position_embeddings", "norm_eps", "num_attention_heads", "num_hidden_layers",
    "num_key_value_heads", "rms_norm_eps", "rope_parameters", "sliding_window",
    "use_attention_gate", "use_sandwich_norm", "vocab_size"}))
"""The keys transformers' ``Lfm3Config`` reads (``rms_norm_eps`` is ``norm_eps``)."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class Lfm3Config:
    """The options of transformers' ``Lfm3Config`` that shape its parameters, its defaults."""

    vocab_size: int = 128000
    hidden_size: int = 2048
    intermediate_size: int = 7680
    num_hidden_layers: int = 24
    num_attention_heads: int = 16
    num_key_value_heads: int = 4
    head_dim: int = 128
    conv_bias: bool = False
    conv_L_cache: int = 7
    attention_bias: bool = False
    use_attention_gate: bool = True
    use_sandwich_norm: bool = True
    layer_types: tuple[str, ...] | None = None
    tie_word_embeddings: bool = True
    sliding_window: int | None = 256
    """The tokens a sliding attention layer attends to: no parameter, what its cache keeps."""

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, (*hybrid.SIZES, "num_key_value_heads", "head_dim", "conv_L_cache"),
            ("conv_bias", "attention_bias", "use_attention_gate", "use_sandwich_norm",
             "tie_word_embeddings"), ("sliding_window",))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        hybrid.layer_types(self, LAYER_TYPES)

    @property
    def names(self) -> tuple[str, ...]:
        """Each layer's type as transformers names it: ``layer_types``, or full attention at
        every 4th layer from 2, sliding at every 4th from 4, convolutions elsewhere."""
        if self.layer_types is not None:
            return self.layer_types
        return tuple("full_attention" if i % 4 == 2 else "sliding_attention"
                     if i % 4 == 0 and i > 0 else "conv" for i in range(self.num_hidden_layers))

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's operator, ``attention`` or ``conv``."""
        return tuple(LAYER_TYPES[t] for t in self.names)

    @property
    def windows(self) -> tuple[int, ...]:
        """Each layer's sliding window (``sliding_window`` on a sliding attention layer,
        else 0: none)."""
        return tuple((self.sliding_window or 0) if t == "sliding_attention" else 0
                     for t in self.names)


Config = Lfm3Config

ALIASES: dict[str, tuple[str, ...]] = {**hybrid.HEAD_ALIASES, "conv_L_cache": ("--conv-kernel",)}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: Lfm3Config) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d, heads = config.hidden_size, config.num_attention_heads
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    att = Attention(d, heads, config.num_key_value_heads, config.head_dim, d,
                    config.attention_bias, "o_proj", True, "norm")
    conv = ShortConv(d, config.conv_L_cache, config.conv_bias)
    mlp = Mlp(d, config.intermediate_size, False, "w1_w3_w2")
    for i, kind in enumerate(config.types):
        p = f"model.layers.{i}."
        if kind == "attention":
            window = config.windows[i]
            s.part("attention", "attention", att, p + "self_attn.", i, state=not window)
            if window:
                s.holds(i, "sliding attention", replace(att, window=window))
            if config.use_attention_gate:
                s.add("attention", "attention gate H·D", heads * d,
                      linear(p + "self_attn.g_proj.", heads, d, False, i))
        else:
            s.part("recurrent", "short conv", conv, p + "conv.", i)
        s.part("mlp", "mlp", mlp, p + "feed_forward.", i)
        norms = ("operator_norm", "ffn_norm") + (
            ("post_operator_norm", "post_ffn_norm") if config.use_sandwich_norm else ())
        for name in norms:
            hybrid.norm_of(s, f"{p}{name}.", d, i)
    hybrid.final(s, "model.embedding_norm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


tensors, formula, from_hf_config = hybrid.conventions(
    stack, Lfm3Config, "Lfm3ForCausalLM", ("H", "num_attention_heads"))


SAVED = (".self_attn.g_proj.weight", ".self_attn.gate_proj.weight")
"""The attention gate's name in the model and in the checkpoint (transformers renames it when
it loads and saves)."""


def saved_tensors(config: Lfm3Config) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them: the attention gate as ``gate_proj``."""
    ours, theirs = SAVED
    return [replace(t, name=t.name.replace(ours, theirs)) for t in tensors(config)]


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Lfm3ForCausalLM`` among ``shapes`` (as the model holds its tensors, or as its
    checkpoint names them), checked exactly."""
    found = hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)
    ours, theirs = SAVED
    if found or not any(name.endswith(theirs) for name in shapes):
        return found
    view, back = hybrid.renamed_view(shapes, lambda name: name.replace(theirs, ours))
    return hybrid.from_saved(hybrid.recognise_roots(view, "embed_tokens", _recognise_at), back,
                             "the checkpoint names the attention gate gate_proj")


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    if f"{start}0.operator_norm.weight" not in shapes:
        return None
    n = hybrid.layer_count(shapes, start)
    mlp = read_mlp(shapes, f"{start}0.feed_forward.", "w1_w3_w2")
    if not n or mlp is None:
        return None
    types = tuple("full_attention" if f"{start}{i}.self_attn.q_proj.weight" in shapes
                  else "conv" for i in range(n))
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n, "layer_types": types,
        "intermediate_size": mlp.inner,
        "use_sandwich_norm": f"{start}0.post_operator_norm.weight" in shapes,
        "tie_word_embeddings": prefix + "lm_head.weight" not in shapes}
    notes = []
    if "conv" in types:
        conv = read_short_conv(shapes, f"{start}{types.index('conv')}.conv.")
        if conv is None:
            return None
        values.update(conv_L_cache=conv.kernel, conv_bias=conv.bias)
    if "full_attention" in types:
        p = f"{start}{types.index('full_attention')}.self_attn."
        q, k, qn = (shapes.get(p + n) for n in ("q_proj.weight", "k_proj.weight",
                                                "q_norm.weight"))
        if not (is_shape(q, 2) and is_shape(k, 2) and is_shape(qn, 1)):
            return None
        assert q is not None and k is not None and qn is not None
        if q[0] % qn[0] or k[0] % qn[0]:
            return None
        values.update(num_attention_heads=q[0] // qn[0], num_key_value_heads=k[0] // qn[0],
                      head_dim=qn[0], attention_bias=p + "q_proj.bias" in shapes,
                      use_attention_gate=p + "g_proj.weight" in shapes)
        notes.append("full and sliding attention hold the same tensors: read as full "
                     "attention (layer_types in config.json tells which)")
    return hybrid.accept_values(shapes, NAME, prefix, Lfm3Config, values, tensors, notes)
