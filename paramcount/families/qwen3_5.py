"""Qwen3.5's text model as transformers' ``Qwen3_5ForCausalLM`` builds it from a
``Qwen3_5TextConfig`` (model_type ``qwen3_5_text``): Qwen3-Next's layers
(:mod:`paramcount.families.qwen3_next`) with a gated MLP in every layer and the Gated DeltaNet's
input projections apart (``in_proj_qkv``, ``in_proj_z``, ``in_proj_b``, ``in_proj_a``, created
after its norm and ``out_proj``).

The published Qwen3.5 models are vision-language models (model_type ``qwen3_5``,
``Qwen3_5ForConditionalGeneration``): their ``config.json`` is read here too, its
``text_config`` as this decoder's, and counted with the vision tower around it
(:mod:`paramcount.families.vision_language`).
"""

from __future__ import annotations

from paramcount.engine.conventions.recognition import Shapes
from paramcount.families import hybrid, vision_language
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.qwen3_next import (
    ALIASES,
    COMMON,
    build,
    check,
    layer_kinds,
    read_layers,
    read_stack,
    recognise_family,
)
from paramcount.record import record

NAME = "qwen3.5"
TITLE = "Qwen3.5 text (Gated DeltaNet + gated attention)"
REFERENCE = "transformers Qwen3_5ForCausalLM"
MODEL_TYPES = ("qwen3_5_text",)
CLASSES = ("Qwen3_5ForCausalLM", "Qwen3_5TextModel")
LAYOUT = Layout("transformers Qwen3_5TextConfig", COMMON | {"intermediate_size"})
"""The keys transformers' ``Qwen3_5TextConfig`` reads."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""
__all__ = ["ALIASES"]


@record
class Qwen3_5TextConfig:
    """The options of transformers' ``Qwen3_5TextConfig`` that shape its parameters, its
    defaults."""

    vocab_size: int = 248320
    hidden_size: int = 4096
    intermediate_size: int = 12288
    num_hidden_layers: int = 32
    num_attention_heads: int = 16
    num_key_value_heads: int = 4
    head_dim: int = 256
    attention_bias: bool = False
    linear_conv_kernel_dim: int = 4
    linear_key_head_dim: int = 128
    linear_value_head_dim: int = 128
    linear_num_key_heads: int = 16
    linear_num_value_heads: int = 32
    full_attention_interval: int = 4
    layer_types: tuple[str, ...] | None = None
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        check(self, ("intermediate_size",))

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer's mixer, ``linear`` or ``attention``."""
        return layer_kinds(self)


Config = Qwen3_5TextConfig


@hybrid.cached
def stack(config: Qwen3_5TextConfig | vision_language.VisionLanguageConfig) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order (of
    ``Qwen3_5ForConditionalGeneration`` for a vision-language config)."""
    if vision_language.is_wrapper(config):
        return vision_language.build(stack, config)  # type: ignore[arg-type]
    return build(config, "split", lambda i: False)


tensors, text_formula, from_hf_config = hybrid.conventions(
    stack, Qwen3_5TextConfig, "Qwen3_5ForCausalLM", prepare=read_layers)


formula, title, reference, load_wrapper = vision_language.conventions(
    stack, text_formula, from_hf_config, LAYOUT, (TITLE, REFERENCE), ("qwen3_5", "Qwen3_5"))


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Qwen3_5ForCausalLM`` among ``shapes``, its config read from the tensors and
    checked exactly; a vision-language model's tower and decoder first."""
    wrapped = vision_language.recognise(shapes,
                                        lambda view: recognise_family(view, _recognise_at))
    return wrapped + recognise_family(shapes, _recognise_at)


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    read = read_stack(shapes, prefix, vocab, d, "split")
    if read is None or read[2]:
        return None
    values, notes, _ = read
    return hybrid.accept_values(shapes, NAME, prefix, Qwen3_5TextConfig, values, tensors, notes)
