"""RG-LRU / RecurrentGemma: closed form, recognition, config.json, errors, and transformers.

The verification builds transformers' RecurrentGemmaForCausalLM on the meta device from the same
configuration and compares every named_parameters() name and shape, and the total.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.errors import SpecError
from paramcount.families import rglru
from paramcount.families.rglru import RecurrentGemmaConfig
from paramcount.record import fields, replace

QUICK = settings(max_examples=40, deadline=None)
REAL = settings(max_examples=12, deadline=None)

GEMMA_2B = {
    "_block_types": ["recurrent", "recurrent", "attention"],
    "architectures": ["RecurrentGemmaForCausalLM"], "attention_bias": False,
    "attention_dropout": 0.0, "attention_window_size": 2048, "conv1d_width": 4,
    "embeddings_scale_by_sqrt_dim": True, "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 2560, "intermediate_size": 15360,
    "logits_soft_cap": 30.0, "lru_width": 2560, "model_type": "recurrent_gemma",
    "num_attention_heads": 10, "num_hidden_layers": 26, "num_key_value_heads": 1,
    "partial_rotary_factor": 0.5, "rms_norm_eps": 1e-06, "rope_theta": 10000.0,
    "vocab_size": 256000,
}
"""google/recurrentgemma-2b's config.json."""


def _try(args: dict[str, Any]) -> RecurrentGemmaConfig | None:
    """The config, or None where the options are refused."""
    try:
        return RecurrentGemmaConfig(**args)
    except SpecError:
        return None


CONFIGS = st.builds(_try, st.fixed_dictionaries({
    "vocab_size": st.integers(3, 40),
    "hidden_size": st.sampled_from([4, 6, 8, 12, 16, 24]),
    "intermediate_size": st.integers(1, 40),
    "num_hidden_layers": st.integers(1, 5),
    "num_attention_heads": st.sampled_from([1, 2, 4]),
    "num_key_value_heads": st.sampled_from([None, 1, 2]),
    "lru_width": st.sampled_from([None, 4, 8, 12]),
    "conv1d_width": st.integers(1, 5),
    "block_types": st.lists(st.sampled_from(rglru.BLOCK_TYPES), min_size=1, max_size=4).map(
        tuple),
    "attention_bias": st.booleans(),
    "tie_word_embeddings": st.booleans(),
})).filter(lambda c: c is not None)


@QUICK
@given(CONFIGS)
def test_formula_total_equals_the_tensors(config: RecurrentGemmaConfig) -> None:
    """The closed form, computed on its own, equals the sum of the listed tensors."""
    assert rglru.formula(config).total == sum(t.count for t in rglru.tensors(config))


def _shapes(config: RecurrentGemmaConfig, prefix: str = "") -> dict[str, tuple[int, ...]]:
    return {prefix + t.name: t.shape for t in rglru.tensors(config)}


@QUICK
@given(CONFIGS, st.sampled_from(["", "wrapped."]))
def test_recognise_inverts_tensors(config: RecurrentGemmaConfig, prefix: str) -> None:
    """Tensors → recognise → a config writing the same tensors, with the same layer types."""
    [found] = rglru.recognise({"head.weight": (2, 2), **_shapes(config, prefix)})
    assert found.prefix == prefix and found.family == "rglru"
    assert _shapes(found.config) == _shapes(config)
    assert found.config.layer_types == config.layer_types
    for field in ("vocab_size", "hidden_size", "num_hidden_layers", "tie_word_embeddings"):
        assert getattr(found.config, field) == getattr(config, field)


def test_recognise_gives_the_2b_config_back() -> None:
    """RecurrentGemma 2B's tensors read back as its config (lru_width left unset = hidden)."""
    config = rglru.from_hf_config(GEMMA_2B)
    [found] = rglru.recognise(_shapes(config))
    assert found.config == replace(config, lru_width=None)


def test_recurrent_gemma_2b_count_from_its_config_alone() -> None:
    """google/recurrentgemma-2b's config.json: 2,682,862,080 parameters, the head tied."""
    config = rglru.from_hf_config(GEMMA_2B)
    assert config.num_key_value_heads == 1 and config.intermediate_size == 15360
    assert rglru.formula(config).total == 2_682_862_080


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({}, RecurrentGemmaConfig()),
        ({"block_types": ["attention"], "num_hidden_layers": 2},
         RecurrentGemmaConfig(block_types=("attention",), num_hidden_layers=2)),
        ({"_block_types": ["recurrent", "recurrent", "attention"]}, RecurrentGemmaConfig()),
        ({"_block_types": ["attention"], "block_types": ["recurrent"]},
         RecurrentGemmaConfig(block_types=("recurrent",))),
        ({"tie_word_embeddings": False, "lru_width": 1280},
         RecurrentGemmaConfig(tie_word_embeddings=False, lru_width=1280)),
    ],
    ids=["defaults", "block-types", "old-key-same-as-default", "block-types-wins", "untied"],
)
def test_reads_config_json_as_transformers(data: dict[str, Any],
                                           expected: RecurrentGemmaConfig) -> None:
    """config.json values and defaults as RecurrentGemmaConfig reads them."""
    assert rglru.from_hf_config(data) == expected


def test_refuses_an_old_block_types_key_that_versions_read_differently() -> None:
    """_block_types alone, not the default: transformers 4 reads it and 5 ignores it."""
    with pytest.raises(SpecError, match="_block_types=\\['attention'\\] differs"):
        rglru.from_hf_config({"_block_types": ["attention"]})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"num_key_value_heads": 20}, "num_key_value_heads=20 must not exceed"),
        ({"num_key_value_heads": 3}, "num_key_value_heads=3 must divide num_attention_heads=10"),
        ({"lru_width": 25}, "num_attention_heads=10 must divide lru_width=25"),
        ({"block_types": ("recurrent", "mlp")}, "block_types=.* must list 'recurrent'"),
        ({"block_types": ("attention",), "num_hidden_layers": 101},
         "num_hidden_layers=101 is more than 100 × len\\(block_types\\)"),
        ({"hidden_size": 4, "block_types": ("attention",)}, "num_attention_heads=10 exceeds"),
        ({"vocab_size": 0}, "vocab_size=0 must be a positive integer"),
    ],
    ids=["kv-more-than-heads", "kv-groups", "lru-heads", "block-type", "repeat-limit",
         "zero-wide-heads", "vocab"],
)
def test_refuses_bad_options(args: dict[str, Any], message: str) -> None:
    """Each bad option is one error naming the option, its value and the rule."""
    with pytest.raises(SpecError, match=message):
        RecurrentGemmaConfig(**args)


@pytest.fixture(scope="module")
def transformers_gemma() -> Any:
    """transformers' RecurrentGemmaConfig and RecurrentGemmaForCausalLM, imported once."""
    transformers = pytest.importorskip("transformers")
    return transformers.RecurrentGemmaConfig, transformers.RecurrentGemmaForCausalLM


def _named(module: Any) -> list[tuple[str, tuple[int, ...]]]:
    return [(name, tuple(p.shape)) for name, p in module.named_parameters()]


@pytest.mark.torch
@REAL
@given(config=CONFIGS)
def test_matches_transformers(transformers_gemma: Any, config: RecurrentGemmaConfig) -> None:
    """Every named_parameters() name and shape of RecurrentGemmaForCausalLM (meta device)."""
    import torch

    config_class, model_class = transformers_gemma
    options = {f: getattr(config, f) for f in fields(config)}
    options["block_types"] = list(config.block_types)
    with torch.device("meta"):
        model = model_class(config_class(**options))
    assert _named(model) == [(t.name, t.shape) for t in rglru.tensors(config)]
    assert sum(p.numel() for p in model.parameters()) == rglru.formula(config).total


@pytest.mark.torch
def test_2b_matches_transformers(transformers_gemma: Any) -> None:
    """RecurrentGemma 2B from its config.json: transformers' own count on the meta device."""
    import torch

    config_class, model_class = transformers_gemma
    with torch.device("meta"):
        model = model_class(config_class.from_dict(GEMMA_2B))
    assert sum(p.numel() for p in model.parameters()) == 2_682_862_080


@pytest.mark.torch
@REAL
@given(config=CONFIGS)
def test_reads_what_transformers_writes(transformers_gemma: Any,
                                        config: RecurrentGemmaConfig) -> None:
    """transformers' own config, written out as config.json's dict, reads back as the config
    (with the widths it resolved written in)."""
    config_class, _ = transformers_gemma
    options = {f: getattr(config, f) for f in fields(config)}
    options["block_types"] = list(config.block_types)
    written = config_class(**options).to_dict()
    resolved = replace(config, lru_width=config.width, num_key_value_heads=config.kv_heads)
    assert rglru.from_hf_config(written) == resolved
