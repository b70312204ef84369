"""The hybrid families against transformers, built on the meta device: every
``named_parameters()`` name and shape, in order (tied weights once), for random configurations
and for the published models' configs."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.families import registry as families
from tests.conftest import have
from tests.hybrid_strategies import STRATEGIES, ours
from tests.test_hybrids import PUBLISHED

pytestmark = [
    pytest.mark.torch,
    pytest.mark.skipif(not (have("torch") and have("transformers")),
                       reason="torch and transformers are not installed"),
]

REFERENCES = {"jamba": ("JambaConfig", "JambaForCausalLM"),
              "bamba": ("BambaConfig", "BambaForCausalLM"),
              "zamba2": ("Zamba2Config", "Zamba2ForCausalLM"),
              "falcon-h1": ("FalconH1Config", "FalconH1ForCausalLM"),
              "nemotron-h": ("NemotronHConfig", "NemotronHForCausalLM"),
              "lfm2": ("Lfm2Config", "Lfm2ForCausalLM"),
              "lfm2-moe": ("Lfm2MoeConfig", "Lfm2MoeForCausalLM"),
              "qwen3-next": ("Qwen3NextConfig", "Qwen3NextForCausalLM"),
              "qwen3.5": ("Qwen3_5TextConfig", "Qwen3_5ForCausalLM"),
              "qwen3.5-moe": ("Qwen3_5MoeTextConfig", "Qwen3_5MoeForCausalLM"),
              "granitemoehybrid": ("GraniteMoeHybridConfig", "GraniteMoeHybridForCausalLM"),
              "minimax": ("MiniMaxConfig", "MiniMaxForCausalLM"),
              "lfm3": ("Lfm3Config", "Lfm3ForCausalLM"),
              "olmo-hybrid": ("OlmoHybridConfig", "OlmoHybridForCausalLM"),
              "lara-mini": ("LaraMiniConfig", "LaraMiniForCausalLM"),
              "zamba": ("ZambaConfig", "ZambaForCausalLM"),
              "kimi-linear": ("KimiLinearConfig", "KimiLinearForCausalLM"),
              "bailing-hybrid": ("BailingHybridConfig", "BailingHybridForCausalLM"),
              "zaya": ("ZayaConfig", "ZayaForCausalLM"),
              "qwen4-exp": ("Qwen4ExpTextConfig", "Qwen4ExpForCausalLM"),
              "inkling": ("InklingTextConfig", "InklingForCausalLM"),
              "inkling2": ("Inkling2TextConfig", "Inkling2ForCausalLM"),
              "inkling2-loop": ("Inkling2LoopTextConfig", "Inkling2LoopForCausalLM"),
              "glm5-next": ("Glm5NextTextConfig", "Glm5NextTextModel")}
"""The transformers classes each hybrid is checked against (GLM-5-Next's text model has no
causal LM: its ``Glm5NextTextModel``)."""


def reference_parameters(name: str, keywords: dict[str, Any], cls: int = 1
                         ) -> list[tuple[str, tuple[int, ...]]]:
    """``named_parameters()`` of the transformers model built from ``keywords``, on meta
    (``cls`` 1: the causal LM; 2: the base model class)."""
    import transformers

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = getattr(transformers, REFERENCES[name][0])(**keywords)
    return built(name, config, cls)


def built(name: str, config: Any, cls: int = 1) -> list[tuple[str, tuple[int, ...]]]:
    """``named_parameters()`` of the transformers model built from the config object."""
    import torch
    import transformers

    model_name = REFERENCES[name][1]
    if cls == 2:
        model_name = families.base_class_name(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.device("meta"):
            model = getattr(transformers, model_name)(config)
    return [(n, tuple(p.shape)) for n, p in model.named_parameters()]


def tensors_of(name: str, config: object) -> list[tuple[str, tuple[int, ...]]]:
    """Our tensors of ``config``, as (name, shape)."""
    return [(t.name, t.shape) for t in families.family(name).tensors(config)]


@pytest.mark.parametrize("name", list(REFERENCES))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_tensors_match_the_reference(name: str, data: st.DataObject) -> None:
    """Random configurations: every tensor's name and shape, in order, equal the reference's."""
    raw = data.draw(STRATEGIES[name])
    config = families.config_class(name)(**ours(raw, name))
    assert tensors_of(name, config) == reference_parameters(name, raw)


@pytest.mark.parametrize("name", [n for n in REFERENCES if families.has_base(n)])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_base_model_class_is_the_causal_lm_without_its_head(name: str,
                                                               data: st.DataObject) -> None:
    """``…Model`` (no head) holds the causal LM's tensors but ``lm_head``, without ``model.``."""
    raw = data.draw(STRATEGIES[name])
    config = families.config_class(name)(**ours(raw, name))
    base = [(n.removeprefix("model."), s) for n, s in tensors_of(name, config)
            if not n.startswith("lm_head.")]
    assert base == reference_parameters(name, raw, cls=2)


@pytest.mark.parametrize(("family", "data", "total", "active"), list(PUBLISHED.values()),
                         ids=list(PUBLISHED))
def test_published_models_match_the_reference(family: str, data: dict[str, Any], total: int,
                                              active: int | None) -> None:
    """Each published model's config.json, read by us and by transformers' config class (from
    the same dict), builds the same tensors, with the published total."""
    import transformers

    config = families.family(family).from_hf_config(data)
    config_name, _ = REFERENCES[family]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(transformers, config_name).from_dict(
            {k: v for k, v in data.items() if k != "model_type"})
    reference = built(family, theirs)
    assert tensors_of(family, config) == reference
    assert sum(math.prod(shape) for _, shape in reference) == total


def test_the_documented_qwen4_exp_count_is_transformers() -> None:
    """docs/families.md's Qwen4-Exp row (none published: the class's defaults, an indexer and
    one per-layer embedding) is the total of the model transformers builds on the meta device,
    tensor by tensor, its default n-gram table among them."""
    import transformers

    keywords = {"indexer_n_heads": 16, "indexer_kv_heads": 1, "indexer_head_dim": 256,
                "indexer_budget": 2048, "indexer_compress_ratio": 64, "ple_layer_ids": [1]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = transformers.Qwen4ExpTextConfig(eos_token_id=1, **keywords)
    reference = built("qwen4-exp", theirs)
    config = families.config_class("qwen4-exp")(**ours(keywords, "qwen4-exp"))
    assert tensors_of("qwen4-exp", config) == reference
    assert sum(math.prod(shape) for _, shape in reference) == 108_391_988_864
    assert dict(reference)["model.layers.0.ple.ple_embedding.ngram_embedding.weight"] == (
        320_001_536, 128)


def test_the_documented_glm5_next_count_is_transformers() -> None:
    """docs/families.md's GLM-5-Next row (none published: the class's defaults) is the total of
    the ``Glm5NextTextModel`` transformers builds on the meta device, tensor by tensor."""
    import transformers

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = transformers.Glm5NextTextConfig()
    reference = built("glm5-next", theirs)
    assert tensors_of("glm5-next", families.config_class("glm5-next")()) == reference
    assert sum(math.prod(shape) for _, shape in reference) == 312_692_428_286


_GLM5 = {"model_type": "glm5_next_text", "vocab_size": 10, "hidden_size": 8,
         "intermediate_size": 8, "moe_intermediate_size": 4, "num_hidden_layers": 4,
         "num_attention_heads": 2, "num_key_value_heads": 2, "kv_lora_rank": 4,
         "q_lora_rank": 4, "v_head_dim": 2, "qk_nope_head_dim": 2, "index_topk": 4,
         "index_head_dim": 2, "index_n_heads": 2, "index_kpool": 2, "hc_mult": 2,
         "pad_token_id": 0, "linear_head_dim": 4, "linear_num_heads": 2}
"""A small GLM-5-Next text config.json, as the files below change it."""

_LATENT = {"vocab_size": 10, "hidden_size": 16, "intermediate_size": 8,
           "moe_intermediate_size": 4, "num_hidden_layers": 4, "num_attention_heads": 2,
           "kv_lora_rank": 4, "qk_rope_head_dim": 2, "v_head_dim": 2, "qk_nope_head_dim": 2,
           "num_local_experts": 5, "num_experts": 3, "num_experts_per_token": 2,
           "num_shared_experts": 2, "pad_token_id": 0}
"""What the Kimi Linear layouts' files below share (``num_experts``,
``num_experts_per_token``, ``num_shared_experts`` beside the fields they stand for)."""

MIXED = {
    "nemotron-h old and new names": ("nemotron-h", {
        "model_type": "nemotron_h", "hidden_size": 16, "hybrid_override_pattern": "M*-E",
        "n_groups": 2, "mamba_n_groups": 4, "conv_kernel": 3, "mamba_d_conv": 2,
        "use_conv_bias": True, "mamba_conv_bias": False, "mamba_num_heads": 4,
        "mamba_head_dim": 4, "ssm_state_size": 4, "num_attention_heads": 2, "head_dim": 8,
        "intermediate_size": 8, "n_routed_experts": 2, "moe_intermediate_size": 4,
        "moe_shared_expert_intermediate_size": 4, "vocab_size": 10, "num_hidden_layers": 9}),
    "nemotron-h layers_block_type over the pattern": ("nemotron-h", {
        "model_type": "nemotron_h", "hidden_size": 16, "hybrid_override_pattern": "MMMM",
        "layers_block_type": ["mamba", "attention", "mlp"], "mamba_num_heads": 4,
        "mamba_head_dim": 4, "ssm_state_size": 4, "n_groups": 1, "num_attention_heads": 2,
        "head_dim": 8, "intermediate_size": 8, "vocab_size": 10}),
    "nemotron-h layer_types": ("nemotron-h", {
        "model_type": "nemotron_h", "hidden_size": 16,
        "layer_types": ["mamba", "moe", "attention"], "mamba_num_heads": 4,
        "mamba_head_dim": 4, "ssm_state_size": 4, "n_groups": 1, "num_attention_heads": 2,
        "head_dim": 8, "n_routed_experts": 2, "moe_intermediate_size": 4,
        "moe_shared_expert_intermediate_size": 4, "vocab_size": 10}),
    "lfm2 LiquidAI's names and transformers'": ("lfm2", {
        "model_type": "lfm2", "hidden_size": 16, "num_hidden_layers": 3,
        "intermediate_size": 40, "block_ff_dim": 64, "tie_word_embeddings": False,
        "tie_embedding": True, "full_attn_idxs": [0], "layer_types": [
            "conv", "full_attention", "conv"], "num_attention_heads": 2,
        "num_key_value_heads": 1, "block_multiple_of": 8, "vocab_size": 10}),
    "jamba num_local_experts": ("jamba", {
        "model_type": "jamba", "hidden_size": 16, "num_hidden_layers": 4,
        "num_local_experts": 3, "num_attention_heads": 2, "num_key_value_heads": 1,
        "intermediate_size": 8, "attn_layer_period": 2, "attn_layer_offset": 1,
        "vocab_size": 10}),
    "kimi-linear alias keys and linear_attn_config": ("kimi-linear", {
        "model_type": "kimi_linear", **_LATENT, "linear_head_dim": 8,
        "first_k_dense_replace": 2,
        "linear_attn_config": {"head_dim": 4, "num_heads": 3, "short_conv_kernel_size": 3,
                               "kda_layers": [1, 2, 4], "full_attn_layers": [3]}}),
    "bailing-hybrid alias keys and the saved copies": ("bailing-hybrid", {
        "model_type": "bailing_hybrid", **_LATENT, "head_dim": 2, "linear_head_dim": 6,
        "linear_num_heads": 3, "short_conv_kernel_size": 5, "linear_conv_kernel_dim": 3,
        "layer_group_size": 2, "first_k_dense_replace": 1, "eos_token_id": 0}),
    "zamba layer_types and head_dim": ("zamba", {
        "model_type": "zamba", "vocab_size": 10, "hidden_size": 8, "intermediate_size": 8,
        "num_hidden_layers": 4, "num_attention_heads": 2, "num_key_value_heads": 2,
        "head_dim": 4, "layer_types": ["mamba", "hybrid", "mamba", "hybrid"]}),
    "qwen4-exp rope_parameters' partial_rotary_factor and full_attention": ("qwen4-exp", {
        "model_type": "qwen4_exp_text", "vocab_size": 10, "hidden_size": 8,
        "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
        "head_dim": 8, "linear_num_key_heads": 1, "linear_num_value_heads": 2,
        "linear_key_head_dim": 4, "linear_value_head_dim": 4, "num_experts": 2,
        "num_experts_per_tok": 1, "moe_intermediate_size": 4,
        "shared_expert_intermediate_size": 4, "hc_count": 2, "hc_lowrank": 2,
        "layer_types": ["linear_attention", "full_attention"], "ple_layer_ids": None,
        "partial_rotary_factor": 1.0, "rope_parameters": {
            "rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        "indexer_n_heads": 1, "indexer_kv_heads": 1, "indexer_head_dim": 2,
        "indexer_budget": 2, "indexer_compress_ratio": 1}),
    "inkling attribute_map keys and a checkpoint's dense widths": ("inkling", {
        "model_type": "inkling_text", "vocab_size": 10, "hidden_size": 16,
        "num_hidden_layers": 4, "num_attention_heads": 2, "num_key_value_heads": 1,
        "head_dim": 4, "swa_num_attention_heads": 4, "swa_num_key_value_heads": 2,
        "swa_head_dim": 2, "sliding_window": 5, "sconv_kernel_size": 3, "d_rel": 2,
        "rel_extent": 6, "num_local_experts": 3, "n_shared_experts": 1,
        "intermediate_size": 6, "dense_intermediate_size": 20, "dense_mlp_idx": 2,
        "local_layer_ids": [0, 2]}),
    "inkling2 attribute_map keys": ("inkling2", {
        "model_type": "inkling2_text", "vocab_size": 10, "unpadded_vocab_size": 9,
        "hidden_size": 16, "num_hidden_layers": 6, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 4, "swa_num_attention_heads": 4,
        "swa_num_key_value_heads": 2, "swa_head_dim": 2, "sliding_window": 5,
        "sconv_kernel_size": 3, "d_rel": 2, "rel_extent": 6, "num_local_experts": 3,
        "intermediate_size": 6}),
    "inkling2-loop loop_config over the loop's fields": ("inkling2-loop", {
        "model_type": "inkling2_loop_text", "vocab_size": 10, "unpadded_vocab_size": 9,
        "hidden_size": 16, "num_hidden_layers": 6, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 4, "swa_num_attention_heads": 4,
        "swa_num_key_value_heads": 2, "swa_head_dim": 2, "sliding_window": 5, "d_rel": 2,
        "rel_extent": 6, "num_local_experts": 3, "intermediate_size": 6,
        "n_layers_per_attn_res_block": 2, "loop_layer_index_start": 4,
        "loop_layer_index_end": 6, "loop_gate_rank": 3,
        "loop_config": {"core_start": 2, "core_end": 6, "num_passes": 2, "gate_rank": 5}}),
    "glm5-next linear_attn_config, index_topk_pattern, num_local_experts, full_attention and a "
    "saved head_dim": ("glm5-next", {
        **_GLM5, "num_local_experts": 3, "head_dim": 64, "qk_head_dim": 2,
        "linear_attn_config": {"head_dim": 2, "num_heads": 3, "short_conv_kernel_size": 2},
        "index_topk_pattern": "FSFS", "layer_types": [
            "full_attention", "indexed_attention", "indexed_attention", "linear_attention"]}),
    "glm5-next indexers by index_topk_freq and index_skip_topk_offset": ("glm5-next", {
        **_GLM5, "index_topk_freq": 2, "index_skip_topk_offset": 1,
        "layer_types": ["indexed_attention"] * 4}),
}
"""config.json files that give a value under two names (the loader's and another layout's),
or the older name alone (or, for GLM-5-Next, what its ``__post_init__`` reads beside its
fields): the loader's reading wins, as transformers' own."""


@pytest.mark.parametrize(("family", "data"), list(MIXED.values()), ids=list(MIXED))
def test_a_file_mixing_layouts_is_read_as_transformers_reads_it(family: str,
                                                                data: dict[str, Any]) -> None:
    """transformers' config class reads the same dict; the model it builds has our tensors."""
    import transformers

    config_name, _ = REFERENCES[family]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(transformers, config_name).from_dict(
            {k: v for k, v in data.items() if k != "model_type"})
    ours_ = families.family(family).from_hf_config(data)
    assert tensors_of(family, ours_) == built(family, theirs)


def test_a_tied_zamba_with_one_hybrid_layer_is_refused_as_transformers_refuses_it() -> None:
    """transformers 5.24 cannot build a Zamba whose shared block is tied with one hybrid layer;
    paramcount refuses it too, in one line naming the option."""
    from paramcount.errors import SpecError

    keywords = {"vocab_size": 10, "hidden_size": 8, "intermediate_size": 8,
                "num_hidden_layers": 3, "num_attention_heads": 2, "num_key_value_heads": 2,
                "layers_block_type": ["mamba", "hybrid", "mamba"], "tie_word_embeddings": True}
    with pytest.raises(ValueError, match="tie"):
        reference_parameters("zamba", keywords)
    with pytest.raises(SpecError, match="tie_word_embeddings"):
        families.config_class("zamba")(**ours(keywords))


@pytest.mark.parametrize("name", ["inkling", "inkling2", "inkling2-loop"])
def test_inklings_defaults_are_transformers_defaults(name: str) -> None:
    """``paramcount inkling`` (``--impl inkling2``, ``inkling2-loop``) with no option counts
    the causal LM of its config class's defaults (the layouts transformers documents as
    ``thinkingmachines/Inkling``'s, ``Inkling-2-Small``'s and ``Inkling-2-Mini``'s), tensor by
    tensor."""
    import transformers

    assert tensors_of(name, families.build(name, {})) == built(
        name, getattr(transformers, REFERENCES[name][0])())
