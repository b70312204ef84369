"""Lara Mini as transformers' ``LaraMiniForCausalLM`` builds it from a ``LaraMiniConfig``:
Qwen3.5's Gated DeltaNet (:mod:`paramcount.families.qwen3_5`) and attention, full or sliding,
where ``layer_types`` says (by default the released period of five: linear, sliding, linear,
full, sliding), a mixture of experts in every layer.

Each layer holds its mixer (``linear_attn``: the Gated DeltaNet with its input projections
apart; or ``self_attn``: q, k, v, o (biases with ``attention_bias``), RMSNorms ``q_norm``,
``k_norm`` over a head, no output gate), the experts (``mlp``: ``experts.gate_up_proj``
(E, 2I, D), ``experts.down_proj`` (E, D, I), the router ``gate`` (E, D), then the gated
``shared_expert``) and two RMSNorms. Around them ``model.embed_tokens``, ``model.norm`` and
``lm_head``, tied by default. Its checkpoints' fused ``in_proj`` and ``out_norm`` are names
transformers converts when it loads; paramcount recognises the model's own names.
"""

from __future__ import annotations

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.qwen3_next import (
    ALIASES,
    COMMON,
    EXPERT_KEYS,
    build,
    check,
    read_stack,
)
from paramcount.record import record, replace

NAME = "lara-mini"
TITLE = "Lara Mini (Gated DeltaNet + attention + experts)"
REFERENCE = "transformers LaraMiniForCausalLM"
MODEL_TYPES = ("lara_mini",)
CLASSES = ("LaraMiniForCausalLM", "LaraMiniModel")
LAYER_TYPES = {"linear_attention": "linear", "full_attention": "attention",
               "sliding_attention": "attention"}
PATTERN = ("linear_attention", "sliding_attention", "linear_attention", "full_attention",
           "sliding_attention")
"""The layers' default period, as released."""
LAYOUT = Layout("transformers LaraMiniConfig", COMMON | EXPERT_KEYS | {
    "norm_topk_prob", "sliding_window"})
"""The keys transformers' ``LaraMiniConfig`` reads."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""
__all__ = ["ALIASES"]


@record
class LaraMiniConfig:
    """The options of transformers' ``LaraMiniConfig`` that shape its parameters, its
    defaults."""

    vocab_size: int = 151936
    hidden_size: int = 1024
    num_hidden_layers: int = 34
    num_attention_heads: int = 16
    num_key_value_heads: int = 4
    head_dim: int = 128
    attention_bias: bool = False
    linear_conv_kernel_dim: int = 4
    linear_key_head_dim: int = 128
    linear_value_head_dim: int = 128
    linear_num_key_heads: int = 8
    linear_num_value_heads: int = 16
    moe_intermediate_size: int = 512
    shared_expert_intermediate_size: int = 512
    num_experts_per_tok: int = 4
    num_experts: int = 128
    layer_types: tuple[str, ...] | None = None
    tie_word_embeddings: bool = True
    sliding_window: int = 512
    """The tokens a sliding attention layer attends to: no parameter, what its cache keeps."""

    def __post_init__(self) -> None:
        check(self, ("moe_intermediate_size", "shared_expert_intermediate_size",
                     "num_experts_per_tok", "num_experts", "sliding_window"), LAYER_TYPES)
        if self.num_attention_heads % self.num_key_value_heads:
            raise SpecError("{num_attention_heads} must be a multiple of {num_key_value_heads}"
                            " (transformers' LaraMiniConfig)",
                            num_attention_heads=self.num_attention_heads,
                            num_key_value_heads=self.num_key_value_heads)
        if self.linear_num_value_heads % self.linear_num_key_heads:
            raise SpecError("{linear_num_value_heads} must be a multiple of "
                            "{linear_num_key_heads} (transformers' LaraMiniConfig)",
                            linear_num_value_heads=self.linear_num_value_heads,
                            linear_num_key_heads=self.linear_num_key_heads)

    def deltanet_rows(self) -> int:
        """The rows of the DeltaNet's input projections together: 2·Hk·dk + 2·Hv·dv + 2·Hv."""
        values = self.linear_num_value_heads * self.linear_value_head_dim
        return (2 * self.linear_num_key_heads * self.linear_key_head_dim + 2 * values
                + 2 * self.linear_num_value_heads)

    @property
    def names(self) -> tuple[str, ...]:
        """Each layer's type as transformers names it: ``layer_types``, or the period."""
        return self.layer_types or tuple(PATTERN[i % len(PATTERN)]
                                         for i in range(self.num_hidden_layers))

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's mixer, ``linear`` or ``attention``."""
        return tuple(LAYER_TYPES[t] for t in self.names)

    @property
    def windows(self) -> tuple[int, ...]:
        """Each layer's sliding window (``sliding_window`` on a sliding attention layer,
        else 0)."""
        return tuple(self.sliding_window if t == "sliding_attention" else 0
                     for t in self.names)


Config = LaraMiniConfig


@hybrid.cached
def stack(config: LaraMiniConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    return build(config, "split", lambda i: True, config.types, False, "lara")


tensors, formula, from_hf_config = hybrid.conventions(stack, LaraMiniConfig, "LaraMiniForCausalLM")


SPLIT = ("in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a")
"""The DeltaNet's input projections the checkpoint holds as one ``in_proj`` (rows q, k, v, z,
b, a), its norm as ``out_norm``."""


def saved_tensors(config: LaraMiniConfig) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them: each DeltaNet's input projections as
    one ``in_proj``, its norm as ``out_norm``."""
    out: list[Tensor] = []
    for t in tensors(config):
        stem, _, last = t.name.rpartition(".linear_attn.")
        if last == "norm.weight":
            t = replace(t, name=f"{stem}.linear_attn.out_norm.weight")
        elif last.removesuffix(".weight") in SPLIT:
            if last.startswith(SPLIT[0]):
                rows = config.deltanet_rows()
                t = replace(t, name=f"{stem}.linear_attn.in_proj.weight",
                            shape=(rows, t.shape[1]))
            else:
                continue
        out.append(t)
    return out


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``LaraMiniForCausalLM`` among ``shapes`` (as the model holds its tensors, or as
    its checkpoint names them), its config read from the tensors and checked exactly."""
    found = hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)
    if found or not any(name.endswith(".linear_attn.in_proj.weight") for name in shapes):
        return found
    view: dict[str, tuple[int, ...]] = {}
    back: dict[str, tuple[str, ...]] = {}
    for name, shape in shapes.items():
        stem, _, last = name.rpartition(".linear_attn.")
        here = f"{stem}.linear_attn."
        if last == "out_norm.weight":
            view[here + "norm.weight"], back[here + "norm.weight"] = shape, (name,)
        elif last == "in_proj.weight":
            conv, out, heads = (shapes.get(here + n) for n in (
                "conv1d.weight", "out_proj.weight", "A_log"))
            if conv is None or out is None or heads is None or len(shape) != 2:
                return []
            rows = (conv[0], out[1], heads[0], heads[0])
            if sum(rows) != shape[0]:
                return []
            for proj, n in zip(SPLIT, rows, strict=True):
                view[f"{here}{proj}.weight"] = (n, shape[1])
            back[f"{here}{SPLIT[0]}.weight"] = (name,)
            for proj in SPLIT[1:]:
                back[f"{here}{proj}.weight"] = ()
        else:
            view[name], back[name] = shape, (name,)
    return hybrid.from_saved(hybrid.recognise_roots(view, "embed_tokens", _recognise_at), back,
                             "the checkpoint holds each DeltaNet's input projections as one "
                             "in_proj and its norm as out_norm")


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    read = read_stack(shapes, prefix, vocab, d, "split", False, "lara")
    if read is None or len(read[2]) != int(str(read[0]["num_hidden_layers"])):
        return None
    values, notes, _ = read
    values["num_experts_per_tok"] = min(4, int(str(values["num_experts"])))
    return hybrid.accept_values(shapes, NAME, prefix, LaraMiniConfig, values, tensors, notes)
