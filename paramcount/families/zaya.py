"""ZAYA as transformers' ``ZayaForCausalLM`` builds it from a ``ZayaConfig``: every layer
compressed convolutional attention (CCA: :class:`~paramcount.families.mixers.CcaAttention`,
full or sliding as ``layer_types`` says, ``hybrid`` or ``hybrid_sliding``) and a mixture of
experts behind an MLP router (:class:`~paramcount.families.mixers.RoutedExperts`, one expert
per token), two RMSNorms and two residual scalings (``post_attention_residual_scale``,
``post_mlp_residual_scale``: a scale and a bias for the branch and for the residual, D each).
Around them ``model.input_hidden_states_scale`` and ``…_bias`` (D each, the model's own, so
first), ``model.embed_tokens``, ``model.norm`` and ``lm_head`` (tied by default; its bias, with
``lm_head_bias``, is not).
"""

from __future__ import annotations

from paramcount.engine.conventions.recognition import Shapes
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.mixers import CcaAttention, RoutedExperts, read_cca, read_routed_experts
from paramcount.families.parts import at_most_blocks, linear, tensor
from paramcount.record import record, replace

NAME = "zaya"
TITLE = "ZAYA (convolutional CCA attention + MLP-routed experts)"
REFERENCE = "transformers ZayaForCausalLM"
MODEL_TYPES = ("zaya",)
CLASSES = ("ZayaForCausalLM", "ZayaModel")
LAYER_TYPES = {"hybrid": "hybrid", "hybrid_sliding": "hybrid_sliding"}

LAYOUT = Layout("transformers ZayaConfig", frozenset({
    "attention_bias", "attention_dropout", "cca_time0", "cca_time1", "head_dim", "hidden_act",
    "hidden_size", "initializer_range", "layer_types", "lm_head_bias",
    "max_position_embeddings", "moe_intermediate_size", "num_attention_heads", "num_experts",
    "num_experts_per_tok", "num_hidden_layers", "num_key_value_heads", "output_router_logits",
    "rms_norm_eps", "rope_parameters", "router_hidden_size", "sliding_window",
    "vocab_size"}))
"""The keys transformers' ``ZayaConfig`` reads."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""
RESIDUAL = ("hidden_states_scale", "hidden_states_bias", "residual_scale", "residual_bias")
"""A residual scaling's four vectors, in order."""


@record
class ZayaConfig:
    """The options of transformers' ``ZayaConfig`` that shape its parameters, its defaults
    (``layer_types`` None: every layer ``hybrid``, full attention)."""

    vocab_size: int = 262272
    hidden_size: int = 2048
    num_hidden_layers: int = 40
    num_attention_heads: int = 8
    num_key_value_heads: int = 2
    tie_word_embeddings: bool = True
    sliding_window: int | None = None
    """The tokens a ``hybrid_sliding`` layer attends to: no parameter, what its cache keeps."""
    moe_intermediate_size: int = 2048
    num_experts_per_tok: int = 1
    num_experts: int = 16
    layer_types: tuple[str, ...] | None = None
    head_dim: int = 128
    attention_bias: bool = False
    lm_head_bias: bool = False
    router_hidden_size: int = 256
    cca_time0: int = 2
    cca_time1: int = 2

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                   "num_key_value_heads", "moe_intermediate_size", "num_experts_per_tok",
                   "num_experts", "head_dim", "router_hidden_size", "cca_time0", "cca_time1"),
            ("tie_word_embeddings", "attention_bias", "lm_head_bias"), ("sliding_window",))
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        hybrid.layer_types(self, LAYER_TYPES)
        for bad, why in (
                ("num_experts_per_tok", self.num_experts_per_tok != 1 and "must be 1 "
                 "(transformers: ZAYA currently supports num_experts_per_tok=1 only)"),
                ("num_key_value_heads", self.num_attention_heads % self.num_key_value_heads
                 and "must divide num_attention_heads"),
                ("sliding_window", "hybrid_sliding" in self.names and not self.sliding_window
                 and "must be set when layer_types holds hybrid_sliding")):
            if why:
                raise SpecError("{" + bad + "} " + str(why), **{bad: getattr(self, bad)})

    @property
    def names(self) -> tuple[str, ...]:
        """Each layer's type: ``layer_types``, or ``hybrid`` (full attention) everywhere."""
        return self.layer_types or ("hybrid",) * self.num_hidden_layers

    @property
    def windows(self) -> tuple[int, ...]:
        """Each layer's sliding window (``sliding_window`` on a ``hybrid_sliding`` layer, else
        0: none)."""
        return tuple((self.sliding_window or 0) if t == "hybrid_sliding" else 0
                     for t in self.names)


Config = ZayaConfig

ALIASES: dict[str, tuple[str, ...]] = {**hybrid.HEAD_ALIASES}
"""Names people use for this family's options beside ``--field-name``."""


@hybrid.cached
def stack(config: ZayaConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    s.add("norms", "input scaling 2D", 2 * d, [
        tensor(f"model.input_hidden_states_{name}", (d,), -1, d, name)
        for name in ("scale", "bias")])
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    cca = CcaAttention(d, config.num_attention_heads, config.num_key_value_heads,
                       config.head_dim, config.cca_time0, config.cca_time1,
                       config.attention_bias)
    for i, window in enumerate(config.windows):
        p = f"model.layers.{i}."
        s.part("attention", "cca attention", cca, p + "self_attn.", i, state=not window)
        if window:
            s.holds(i, "sliding cca attention", replace(cca, window=window))
        moe = RoutedExperts(d, config.moe_intermediate_size, config.num_experts,
                            config.router_hidden_size, i > 0)
        s.part("experts", "experts" if i else "experts (no router_states_scale)", moe,
               p + "mlp.", i)
        s.idle += moe.count - moe.active
        hybrid.norm_of(s, p + "input_layernorm.", d, i)
        hybrid.norm_of(s, p + "post_attention_layernorm.", d, i)
        for scaling in ("post_attention_residual_scale", "post_mlp_residual_scale"):
            s.add("norms", "residual scaling 4D", 4 * d, [
                tensor(f"{p}{scaling}.{name}", (d,), i, d, name) for name in RESIDUAL])
    hybrid.norm_of(s, "model.norm.", d, -1)
    v, b = config.vocab_size, config.lm_head_bias
    head = linear("lm_head.", v, d, b, -1)[config.tie_word_embeddings:]
    if head:
        label = "head bias V" if config.tie_word_embeddings else "head V·D" + " + V" * b
        s.add("embeddings", label, sum(t.count for t in head), head)
    return s


tensors, formula, from_hf_config = hybrid.conventions(
    stack, ZayaConfig, "ZayaForCausalLM", ("E", "num_experts"))


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``ZayaForCausalLM`` among ``shapes`` (as the model holds its parameters, or as
    its checkpoint holds them, the routers' ``balancing_biases`` buffers beside them), checked
    exactly."""
    found = hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)
    if found or not any(name.endswith(BUFFER) for name in shapes):
        return found
    return hybrid.recognise_renamed(
        shapes, lambda name: None if name.endswith(BUFFER) else name, _recognise_at,
        "the routers' balancing_biases buffers beside the parameters are not parameters")


BUFFER = ".gate.balancing_biases"
"""The router's buffer (E + 1,) a checkpoint holds: not a parameter, not claimed."""


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    n = hybrid.layer_count(shapes, start)
    cca = read_cca(shapes, f"{start}0.self_attn.") if n else None
    moe = read_routed_experts(shapes, f"{start}0.mlp.") if n else None
    if cca is None or moe is None:
        return None
    head = prefix + "lm_head.weight"
    values: dict[str, object] = {
        "vocab_size": vocab, "hidden_size": d, "num_hidden_layers": n,
        "num_attention_heads": cca.heads, "num_key_value_heads": cca.kv_heads,
        "head_dim": cca.head_dim, "cca_time0": cca.time0, "cca_time1": cca.time1,
        "attention_bias": cca.bias, "moe_intermediate_size": moe.inner,
        "num_experts": moe.experts, "router_hidden_size": moe.router,
        "tie_word_embeddings": head not in shapes,
        "lm_head_bias": prefix + "lm_head.bias" in shapes}
    notes = ["layer_types is not in the weights (full and sliding layers hold the same "
             "tensors): read as every layer hybrid, full attention"]
    return hybrid.accept_values(shapes, NAME, prefix, ZayaConfig, values, tensors, notes)
