"""Qwen3.5-MoE's text model as transformers' ``Qwen3_5MoeForCausalLM`` builds it from a
``Qwen3_5MoeTextConfig`` (model_type ``qwen3_5_moe_text``): Qwen3.5's layers
(:mod:`paramcount.families.qwen3_5`) with a mixture of experts and a shared expert in every
layer, as Qwen3-Next's (:mod:`paramcount.families.qwen3_next`).

The published Qwen3.5-MoE models are vision-language models (model_type ``qwen3_5_moe``,
``Qwen3_5MoeForConditionalGeneration``): their ``config.json`` is read here too, its
``text_config`` as this decoder's, and counted with the vision tower around it
(:mod:`paramcount.families.vision_language`).
"""

from __future__ import annotations

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes
from paramcount.families import hybrid, vision_language
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.qwen3_next import (
    ALIASES,
    COMMON,
    EXPERT_KEYS,
    build,
    check,
    layer_kinds,
    read_layers,
    read_stack,
    recognise_family,
)
from paramcount.record import record

NAME = "qwen3.5-moe"
TITLE = "Qwen3.5-MoE text (Gated DeltaNet + gated attention + experts)"
REFERENCE = "transformers Qwen3_5MoeForCausalLM"
MODEL_TYPES = ("qwen3_5_moe_text",)
CLASSES = ("Qwen3_5MoeForCausalLM", "Qwen3_5MoeTextModel")
LAYOUT = Layout("transformers Qwen3_5MoeTextConfig", COMMON | EXPERT_KEYS)
"""The keys transformers' ``Qwen3_5MoeTextConfig`` reads."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""
__all__ = ["ALIASES"]


@record
class Qwen3_5MoeTextConfig:
    """The options of transformers' ``Qwen3_5MoeTextConfig`` that shape its parameters, its
    defaults."""

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
    num_experts_per_tok: int = 8
    num_experts: int = 256
    full_attention_interval: int = 4
    layer_types: tuple[str, ...] | None = None
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        check(self, ("moe_intermediate_size", "shared_expert_intermediate_size",
                     "num_experts_per_tok", "num_experts"))

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's mixer, ``linear`` or ``attention``."""
        return layer_kinds(self)


Config = Qwen3_5MoeTextConfig


@hybrid.cached
def stack(config: Qwen3_5MoeTextConfig | vision_language.VisionLanguageConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order (of
    ``Qwen3_5MoeForConditionalGeneration`` for a vision-language config)."""
    if vision_language.is_wrapper(config):
        return vision_language.build(stack, config)  # type: ignore[arg-type]
    return build(config, "split", lambda i: True)


tensors, text_formula, from_hf_config = hybrid.conventions(
    stack, Qwen3_5MoeTextConfig, "Qwen3_5MoeForCausalLM", prepare=read_layers)


formula, title, reference, load_wrapper = vision_language.conventions(
    stack, text_formula, from_hf_config, LAYOUT, (TITLE, REFERENCE), ("qwen3_5_moe", "Qwen3_5Moe"))


def saved_tensors(config: Qwen3_5MoeTextConfig) -> list[Tensor]:
    """The tensors as ``save_pretrained`` writes them: each expert's gate, up and down
    projections one by one (the model stacks them)."""
    return hybrid.saved_experts(tensors(config))


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Qwen3_5MoeForCausalLM`` among ``shapes`` (as the model holds its tensors, or
    as its checkpoint stores them), its config read from the tensors and checked exactly; a
    vision-language model's tower and decoder first."""
    wrapped = vision_language.recognise(shapes,
                                        lambda view: recognise_family(view, _recognise_at))
    return wrapped + recognise_family(shapes, _recognise_at)


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    read = read_stack(shapes, prefix, vocab, d, "split")
    if read is None or len(read[2]) != int(str(read[0]["num_hidden_layers"])):
        return None
    values, notes, _ = read
    return hybrid.accept_values(shapes, NAME, prefix, Qwen3_5MoeTextConfig, values, tensors,
                                notes)
