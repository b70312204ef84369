"""The model types transformers builds with a recurrent, state-space, convolutional or
linear-attention mixer that paramcount does not count, each with the reason: refused by name,
never given a number for another class.

``tests/test_transformers_mixers.py`` walks transformers' own model list and fails on any such
model type that is neither a family's (:data:`paramcount.families.registry.MODEL_TYPES`) nor
listed here, so a new release's mixer is found by CI. Pure: no framework import.
"""

from __future__ import annotations

_TOWER = "the {} tower of {}: no decoder (its model is counted whole or not at all)"
_WRAPS = ("a {} model around the {} decoder, whose {} paramcount does not model: it counts "
          "none of the model rather than the decoder alone")

UNMODELLED: dict[str, str] = {
    # models around a decoder paramcount counts: the rest of them is not modelled
    "glm5_next": _WRAPS.format("vision-language", "GLM-5-Next", "vision tower"),
    "inkling_mm_model": _WRAPS.format("multimodal", "Inkling", "vision and audio towers"),
    "inkling2": _WRAPS.format("vision-language", "Inkling 2", "vision tower"),
    "inkling2_loop": _WRAPS.format("vision-language", "Inkling 2 Loop", "vision tower"),
    "lfm3_vl": _WRAPS.format("vision-language", "LFM3", "vision tower"),
    "qwen4_exp": _WRAPS.format("vision-language", "Qwen4-Exp", "vision tower"),
    "lfm2_vl": _WRAPS.format("vision-language", "LFM2", "vision tower"),
    "jev": _WRAPS.format("vision-language", "Qwen3.5", "vision tower"),
    "minicpm_ocr": _WRAPS.format("vision-language", "Qwen3.5", "vision tower"),
    "minicpmv4_6": _WRAPS.format("vision-language", "Qwen3.5", "vision tower"),
    "minicpmv4_7": _WRAPS.format("vision-language", "Qwen3.5", "vision tower"),
    "nemo_speechlm": _WRAPS.format("speech", "Nemotron-H", "audio encoder"),
    "nemotron_h_omni": _WRAPS.format("multimodal", "Nemotron-H", "vision and audio encoders"),
}
"""model_type → why paramcount does not count it."""

TOWERS: dict[str, str] = {
    "glm5_next_vision": _TOWER.format("vision", "GLM-5-Next"),
    "inkling_audio": _TOWER.format("audio", "Inkling"),
    "inkling_vision": _TOWER.format("vision", "Inkling"),
    "inkling2_vision": _TOWER.format("vision", "Inkling 2"),
    "lfm3_vl_vision": _TOWER.format("vision", "LFM3-VL"),
    "qwen3_5_vision": _TOWER.format("vision", "Qwen3.5"),
    "qwen3_5_moe_vision": _TOWER.format("vision", "Qwen3.5-MoE"),
    "qwen4_exp_vision": _TOWER.format("vision", "Qwen4-Exp"),
}
"""Encoder configs that share a modeling module with a model that has such a mixer, but hold
no decoder themselves."""


def why_not(model_type: str) -> str | None:
    """Why paramcount does not count ``model_type``, or None where it does not know it as one
    with a recurrent, state-space, convolutional or linear-attention mixer."""
    return UNMODELLED.get(model_type) or TOWERS.get(model_type)
