"""The state that replaces the KV cache, against the cache transformers itself fills: a tiny
model of each model type, real weights, run forward on CPU for two lengths, the tensors its
cache holds summed, equal to paramcount's figure."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from paramcount.families import registry as families
from paramcount.families import state
from tests.conftest import CLI, have

REFERENCE = [
    pytest.mark.torch,
    pytest.mark.skipif(not (have("torch") and have("transformers")),
                       reason="torch and transformers are not installed"),
]

_MAMBA2 = {"mamba_d_state": 4, "mamba_d_conv": 3, "mamba_expand": 2}
_QWEN = {"hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 4,
         "num_key_value_heads": 2, "head_dim": 4, "linear_conv_kernel_dim": 3,
         "linear_key_head_dim": 4, "linear_value_head_dim": 6, "linear_num_key_heads": 2,
         "linear_num_value_heads": 4,
         "layer_types": ["linear_attention", "full_attention", "linear_attention"]}
_EXPERTS = {"num_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 8,
            "shared_expert_intermediate_size": 8}
_VISION = {"depth": 1, "hidden_size": 8, "intermediate_size": 16, "num_heads": 2,
           "patch_size": 2, "out_hidden_size": 16, "num_position_embeddings": 4}
"""A tiny Qwen3.5 vision tower (its output as wide as the tiny decoders)."""
TINY: dict[str, dict[str, Any]] = {
    "mamba": {"hidden_size": 8, "state_size": 4, "num_hidden_layers": 2, "expand": 2,
              "conv_kernel": 3, "time_step_rank": 2},
    "falcon_mamba": {"hidden_size": 8, "state_size": 5, "num_hidden_layers": 2, "expand": 3,
                     "conv_kernel": 4, "time_step_rank": 2},
    "mamba2": {"hidden_size": 8, "state_size": 4, "num_hidden_layers": 2, "expand": 2,
               "conv_kernel": 3, "num_heads": 4, "head_dim": 4, "n_groups": 2,
               "chunk_size": 4},
    "rwkv": {"hidden_size": 8, "num_hidden_layers": 2, "attention_hidden_size": 8,
             "intermediate_size": 16, "context_length": 64},
    "recurrent_gemma": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 3,
                        "num_attention_heads": 2, "num_key_value_heads": 1, "lru_width": 24,
                        "attention_window_size": 6, "conv1d_width": 3,
                        "block_types": ["recurrent", "attention", "recurrent"]},
    "jamba": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 4,
              "num_attention_heads": 4, "num_key_value_heads": 2, "num_experts": 2,
              "num_experts_per_tok": 1, "expert_layer_period": 2, "expert_layer_offset": 1,
              "attn_layer_period": 2, "attn_layer_offset": 1, "mamba_dt_rank": 2,
              "use_mamba_kernels": False, **_MAMBA2},
    "bamba": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 3,
              "num_attention_heads": 4, "num_key_value_heads": 2, "attn_layer_indices": [1],
              "mamba_n_heads": 4, "mamba_d_head": 8, "mamba_n_groups": 2,
              "mamba_chunk_size": 4, **_MAMBA2},
    "zamba2": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 4,
               "num_attention_heads": 4, "num_key_value_heads": 2, "mamba_ngroups": 2,
               "mamba_headdim": 8, "n_mamba_heads": 4, "num_mem_blocks": 1, "chunk_size": 4,
               "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"], **_MAMBA2},
    "falcon_h1": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 2,
                  "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4,
                  "mamba_d_ssm": 16, "mamba_n_heads": 4, "mamba_d_head": 4,
                  "mamba_n_groups": 2, "mamba_chunk_size": 4, **_MAMBA2},
    "nemotron_h": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 4,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4,
                   "mamba_num_heads": 4, "mamba_head_dim": 8, "n_groups": 2,
                   "ssm_state_size": 4, "conv_kernel": 3, "expand": 2, "chunk_size": 4,
                   "hybrid_override_pattern": "M*M-"},
    "lfm2": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 3,
             "num_attention_heads": 4, "num_key_value_heads": 2, "conv_L_cache": 3,
             "layer_types": ["conv", "full_attention", "conv"]},
    "lfm2_moe": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 3,
                 "moe_intermediate_size": 8, "num_experts": 2, "num_experts_per_tok": 1,
                 "num_dense_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
                 "conv_L_cache": 3, "layer_types": ["conv", "full_attention", "conv"]},
    "qwen3_next": {**_QWEN, **_EXPERTS, "intermediate_size": 32},
    "qwen3_5_text": {**_QWEN, "intermediate_size": 32},
    "qwen3_5_moe_text": {**_QWEN, **_EXPERTS},
    "qwen3_5": {"text_config": {**_QWEN, "intermediate_size": 32, "vocab_size": 32},
                "vision_config": _VISION},
    "qwen3_5_moe": {"text_config": {**_QWEN, **_EXPERTS, "vocab_size": 32},
                    "vision_config": _VISION},
    "granitemoehybrid": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 3,
                         "num_attention_heads": 4, "num_key_value_heads": 2,
                         "layer_types": ["mamba", "attention", "mamba"],
                         "num_local_experts": 2, "num_experts_per_tok": 1,
                         "shared_intermediate_size": 8, "mamba_n_heads": 4,
                         "mamba_n_groups": 2, "mamba_chunk_size": 4, **_MAMBA2},
    "minimax": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 2,
                "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4,
                "num_local_experts": 2, "num_experts_per_tok": 1,
                "layer_types": ["linear_attention", "full_attention"]},
    "lfm3": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 3,
             "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4,
             "conv_L_cache": 3, "sliding_window": 6, "pad_token_id": 0,
             "layer_types": ["conv", "sliding_attention", "full_attention"]},
    "olmo_hybrid": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 2,
                    "num_attention_heads": 4, "num_key_value_heads": 2,
                    "layer_types": ["linear_attention", "full_attention"],
                    "linear_conv_kernel_dim": 3, "linear_num_key_heads": 2,
                    "linear_num_value_heads": 4, "linear_key_head_dim": 4,
                    "linear_value_head_dim": 6, "pad_token_id": 0},
    "lara_mini": {**_QWEN, **_EXPERTS, "sliding_window": 6,
                  "layer_types": ["linear_attention", "sliding_attention", "full_attention"]},
    "zamba": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 4,
              "num_attention_heads": 4, "num_key_value_heads": 2, "n_mamba_heads": 2,
              "mamba_d_state": 4, "mamba_d_conv": 3, "mamba_expand": 2, "mamba_dt_rank": 2,
              "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"], "pad_token_id": 0},
    "kimi_linear": {"hidden_size": 16, "intermediate_size": 32, "moe_intermediate_size": 8,
                    "num_hidden_layers": 2, "num_attention_heads": 4, "kv_lora_rank": 4,
                    "qk_rope_head_dim": 2, "v_head_dim": 4, "qk_nope_head_dim": 4,
                    "num_experts_per_tok": 1, "num_local_experts": 2, "n_shared_experts": 1,
                    "linear_head_dim": 4, "linear_num_heads": 2, "linear_conv_kernel_dim": 3,
                    "layer_types": ["linear_attention", "full_attention"], "pad_token_id": 0},
    "bailing_hybrid": {"hidden_size": 16, "intermediate_size": 32, "moe_intermediate_size": 8,
                       "num_hidden_layers": 3, "num_attention_heads": 2, "kv_lora_rank": 4,
                       "qk_rope_head_dim": 2, "v_head_dim": 4, "qk_nope_head_dim": 4,
                       "num_experts_per_tok": 1, "num_local_experts": 2, "n_group": 1,
                       "topk_group": 1, "head_dim": 4, "short_conv_kernel_size": 3,
                       "layer_group_size": 3, "first_k_dense_replace": 1, "pad_token_id": 0,
                       "eos_token_id": 0},
    "zaya": {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 4,
             "num_key_value_heads": 2, "head_dim": 4, "moe_intermediate_size": 8,
             "num_experts": 2, "router_hidden_size": 8, "cca_time0": 3, "cca_time1": 2,
             "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0},
    "qwen4_exp_text": {**_QWEN, **_EXPERTS, "hc_count": 2, "hc_lowrank": 4,
                       "ple_layer_ids": [1], "ple_embed_dim": 8, "heads_per_ngram": 2,
                       "ngram_vocab_size_base": 50, "eos_token_id": 1, "indexer_n_heads": 2,
                       "indexer_kv_heads": 1, "indexer_head_dim": 4, "indexer_budget": 4,
                       "indexer_compress_ratio": 2},
    "inkling_text": {"hidden_size": 16, "intermediate_size": 32, "moe_intermediate_size": 8,
                     "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
                     "head_dim": 8, "swa_num_attention_heads": 2, "swa_num_key_value_heads": 1,
                     "swa_head_dim": 4, "sliding_window_size": 6, "d_rel": 3, "rel_extent": 7,
                     "conv_kernel_size": 3, "n_routed_experts": 2, "num_experts_per_tok": 1,
                     "n_shared_experts": 1, "mlp_layer_types": ["dense", "sparse", "sparse"],
                     "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding"],
                     "pad_token_id": 0},
    "inkling2_text": {"hidden_size": 16, "moe_intermediate_size": 8, "num_hidden_layers": 3,
                      "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
                      "swa_num_attention_heads": 2, "swa_num_key_value_heads": 1,
                      "swa_head_dim": 4, "sliding_window_size": 6, "d_rel": 3, "rel_extent": 7,
                      "conv_kernel_size": 3, "n_routed_experts": 2, "num_experts_per_tok": 1,
                      "unpadded_vocab_size": 32, "eos_token_id": 1,
                      "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding"],
                      "pad_token_id": 0},
    "inkling2_loop_text": {"hidden_size": 16, "moe_intermediate_size": 8,
                           "num_hidden_layers": 4, "num_attention_heads": 4,
                           "num_key_value_heads": 2, "head_dim": 8, "swa_num_attention_heads": 2,
                           "swa_num_key_value_heads": 1, "swa_head_dim": 4,
                           "sliding_window_size": 6, "d_rel": 3, "rel_extent": 7,
                           "conv_kernel_size": 3, "n_routed_experts": 2, "num_experts_per_tok": 1,
                           "unpadded_vocab_size": 32, "eos_token_id": 1,
                           "n_layers_per_attn_res_block": 1, "loop_layer_index_start": 1,
                           "loop_layer_index_end": 3, "loop_num_passes": 3, "loop_gate_rank": 2,
                           "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding",
                                           "hybrid"], "pad_token_id": 0},
    "glm5_next_text": {"hidden_size": 16, "intermediate_size": 32, "moe_intermediate_size": 8,
                       "num_hidden_layers": 4, "num_attention_heads": 2,
                       "num_key_value_heads": 2, "n_routed_experts": 2,
                       "num_experts_per_tok": 1, "kv_lora_rank": 4, "q_lora_rank": 6,
                       "v_head_dim": 4, "qk_nope_head_dim": 4, "index_topk": 4,
                       "index_head_dim": 4, "index_n_heads": 2, "index_kpool": 2,
                       "linear_head_dim": 4, "linear_num_heads": 2, "linear_conv_kernel_dim": 3,
                       "hc_mult": 2, "index_topk_pattern": "FFSF", "pad_token_id": 0,
                       "mlp_layer_types": ["dense", "sparse", "sparse", "sparse"],
                       "layer_types": ["linear_attention", "indexed_attention",
                                       "indexed_attention", "full_attention"]},
    "xlstm": {"hidden_size": 128, "embedding_dim": 128, "num_heads": 2, "num_blocks": 2,
              "num_hidden_layers": 2, "qk_dim_factor": 0.5},
}
"""A tiny config of each model type transformers builds that a family models (reference
keywords, a vocabulary of 32). xLSTM's widths are multiples of 64: ``xLSTMCache`` sizes its
zeros from ``qk_dim`` rounded up to 64, the mLSTM layer (whose states replace them) from
``int(hidden_size · qk_dim_factor)``, and only there do the two agree. GLM-5-Next's second
indexed layer shares the first's choice (``S``): it caches no indexer keys."""

NO_HEAD = ("glm5_next_text",)
"""Model types transformers builds no causal LM for: their base model class is run."""

VISION_LANGUAGE = ("qwen3_5", "qwen3_5_moe")
"""Model types run as the vision-language model (``…ForConditionalGeneration``, on text
alone): their state is their decoder's."""

CACHED = ("keys", "values", "conv_states", "recurrent_states", "indexer_keys",
          "indexer_position_ids")
"""What a transformers cache layer holds of a sequence (not its bookkeeping: a sliding layer's
window as a tensor; an indexed layer's indexer keys and the positions the first one keeps)."""

BUILT_IN_DTYPE = ("inkling2_text", "inkling2_loop_text")
"""Model types built in the dtype (not converted after): their classes keep some modules in
float32 (Inkling 2's router, which its forward feeds float32)."""

MODULE_STATES = ("conv1d_state", "recurrent_states")
"""State RecurrentGemma keeps on its modules rather than in the cache object."""


def _tensors(value: Any) -> list[Any]:
    """The tensors in a cache attribute (a tensor, a dict or list of them, or None)."""
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return [t for item in value for t in _tensors(item)]
    return []


def filled(model_type: str, tokens: int, batch: int, monkeypatch: pytest.MonkeyPatch,
           dtype: str = "fp32", keywords: dict[str, Any] | None = None) -> int:
    """The bytes of the state transformers keeps after a forward pass of ``batch`` sequences of
    ``tokens`` tokens through a tiny ``model_type`` model (its :data:`TINY` config, or
    ``keywords``) in ``dtype`` (xLSTM: the
    ``xLSTMCache`` its model makes, built as the model builds it, as its forward fails here in
    the xlstm package's native chunkwise kernel)."""
    import torch
    import transformers

    config = transformers.AutoConfig.for_model(model_type, vocab_size=32,
                                               **(keywords or TINY[model_type]))
    kind = {"fp32": torch.float32, "bf16": torch.bfloat16}[dtype]
    if model_type == "xlstm":
        from transformers.models.xlstm.modeling_xlstm import xLSTMCache

        cache = xLSTMCache(config, batch, dtype=kind)
        return sum(t.nbytes for t in _tensors(cache.rnn_state))
    made: list[Any] = []
    if model_type == "recurrent_gemma":  # it makes its cache inside and does not return it
        from transformers.models.recurrent_gemma import modeling_recurrent_gemma as module

        dynamic = module.DynamicCache
        monkeypatch.setattr(module, "DynamicCache",
                            lambda *a, **k: made.append(dynamic(*a, **k)) or made[-1])
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = (transformers.AutoModel if model_type in NO_HEAD
                else transformers.AutoModelForImageTextToText
                if model_type in VISION_LANGUAGE else transformers.AutoModelForCausalLM)
        if model_type in BUILT_IN_DTYPE:
            model = auto.from_config(config, dtype=kind).eval()
        else:
            model = auto.from_config(config).to(kind).eval()
        with torch.no_grad():
            out = model(torch.randint(0, 32, (batch, tokens)), use_cache=True)
    cache = made[-1] if made else (out.get("cache") if out.get("cache") is not None
                                   else out.get("state"))
    if isinstance(cache, list):  # RWKV: five (batch, hidden, layers) tensors
        held = cache
    else:
        held = [t for layer in cache.layers for name in CACHED
                for t in _tensors(getattr(layer, name, None))]
    held += _tensors(getattr(cache, "linear_cache", None))  # MiniMax's lightning attention
    held += [t for module in model.modules() for name in MODULE_STATES
             for t in _tensors(getattr(module, name, None))]
    return sum(t.nbytes for t in held)


VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "zamba-untied": ("zamba", {"tie_word_embeddings": False}),
    "kimi_linear-q_lora": ("kimi_linear", {"q_lora_rank": 4}),
    "qwen3_next-interval": ("qwen3_next", {"full_attention_interval": 2}),
    "minimax-two-linear": ("minimax", {"num_hidden_layers": 3, "layer_types": [
        "linear_attention", "linear_attention", "full_attention"]}),
    "zaya-sliding": ("zaya", {"layer_types": ["hybrid_sliding", "hybrid"],
                              "sliding_window": 4}),
    "qwen4_exp_text-two-indexed": ("qwen4_exp_text", {"num_hidden_layers": 4, "layer_types": [
        "indexed_attention", "linear_attention", "indexed_attention", "linear_attention"],
        "ple_layer_ids": [4, 2]}),
    "inkling2_loop_text-past-the-layers": ("inkling2_loop_text", {"loop_layer_index_end": 6,
                                                                  "loop_num_passes": 2}),
    "inkling_text-default-placement": ("inkling_text", {"num_hidden_layers": 6,
                                                        "mlp_layer_types": None,
                                                        "layer_types": None}),
    "glm5_next_text-frequency": ("glm5_next_text", {
        "index_topk_pattern": None, "index_topk_freq": 2, "index_skip_topk_offset": 1,
        "layer_types": ["indexed_attention", "indexed_attention", "linear_attention",
                        "linear_attention"], "attention_bias": True}),
}
"""Another path of a family's state, by id: its model type and the keywords that change its
:data:`TINY` config (Zamba's shared block listed in each hybrid layer, MLA's q through a low
rank, Qwen3-Next's layers placed by ``full_attention_interval``, lightning layers in a row,
ZAYA's sliding CCA layer; Qwen4-Exp's indexer positions kept by its first indexed layer
alone, two PLE layers; Inkling's sliding layers and experts where its config places them,
Inkling 2 Loop's loop running past the last layer; GLM-5-Next's indexers placed by frequency
and offset, biases)."""


def _variant(model_type: str, changed: dict[str, Any]) -> dict[str, Any]:
    """``model_type``'s tiny config with ``changed`` (``full_attention_interval`` in place of
    ``layer_types``)."""
    made = {**TINY[model_type], **changed}
    if "full_attention_interval" in changed:
        made.pop("layer_types")
    return made


CASES = [pytest.param(t, TINY[t], marks=REFERENCE, id=t) for t in TINY] + [
    pytest.param(t, _variant(t, changed), marks=REFERENCE, id=name)
    for name, (t, changed) in VARIANTS.items()]
"""Each tiny config the state is checked on: every model type's, then the variants."""


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
@pytest.mark.parametrize(("model_type", "keywords"), CASES)
def test_the_state_is_the_cache_transformers_fills(model_type: str, keywords: dict[str, Any],
                                                   dtype: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """paramcount's state of a tiny model, read from its config.json as transformers writes
    it, is the bytes transformers' cache holds after 5 and after 9 tokens (beyond a local
    attention's window), for a batch of 2, the model in float32 and in bfloat16 (the pieces
    a reference keeps in float32 whatever the model's dtype included)."""
    import transformers

    name = families.MODEL_TYPES[model_type]
    data = transformers.AutoConfig.for_model(model_type, vocab_size=32, **keywords).to_dict()
    config = families.load(name, data).config
    layers = state.declared(name, config)
    assert layers is not None
    for tokens in (5, 9):
        ours = state.memory(layers, tokens, 2, dtype)
        assert ours.total == filled(model_type, tokens, 2, monkeypatch, dtype, keywords), (
            tokens, ours)


def test_a_state_grows_only_with_attention() -> None:
    """A pure recurrent model's state does not grow with the context; a hybrid's grows by its
    attention layers' keys and values alone."""
    mamba = state.declared("mamba", families.build("mamba", {}))
    assert mamba is not None
    assert state.memory(mamba, 10).total == state.memory(mamba, 100_000).total
    lfm2 = families.build("lfm2", {"layer_types": ("conv", "full_attention", "conv"),
                                   "num_hidden_layers": 3})
    layers = state.declared("lfm2", lfm2)
    assert layers is not None
    grown = state.memory(layers, 11).total - state.memory(layers, 10).total
    assert grown == 2 * lfm2.num_key_value_heads * lfm2.heads_dim * 4


@pytest.mark.parametrize(("args", "says"), [
    (["mamba", "--batch", "2"], "give --context N"),
    (["mamba", "--context", "0"], "'0' must be at least 1"),
    (["mamba", "--context", "many"], "--context"),
], ids=["batch-alone", "zero", "not-a-number"])
def test_a_bad_context_is_one_line(cli: CLI, args: list[str], says: str) -> None:
    """A context or batch that is not a whole number of at least 1 is one line on stderr,
    exit 2."""
    result = cli(*args)
    assert (result.code, result.out, result.err.count("\n")) == (2, "", 1), result.err
    assert says in result.err


def test_the_state_in_text_json_and_the_library(cli: CLI) -> None:
    """``--context`` with ``--batch`` shows the state by kind and in total; the JSON and the
    library's result hold the same numbers."""
    import paramcount

    args = ["jamba", "--config", "examples/hf/jamba-1.5-mini/config.json", "--context",
            "32768", "--batch", "4", "--dtype", "bf16"]
    result = paramcount.family("jamba", "examples/hf/jamba-1.5-mini/config.json",
                               context=32768, batch=4, dtype="bf16")
    assert result.state is not None
    text = cli(*args)
    assert text.code == 0
    assert "State at 32,768 tokens" in text.out
    assert f"{result.state.total:,}" in text.out
    data = json.loads(cli(*args, "--json").out)["state"]
    assert data == result.state.to_data()
    assert {k["kind"]: k["layers"] for k in data["kinds"]} == {"mamba": 28, "attention": 4}
    assert data["bytes"] == sum(k["bytes"] for k in data["kinds"])


def test_a_mixer_without_its_state_makes_it_unknown() -> None:
    """A hybrid whose recurrent part declares no ``cache()`` has no state figure (None, and
    ``--context`` refuses it) rather than one that leaves that part out."""
    from paramcount.families import hybrid
    from paramcount.families.mixers import Mlp, ShortConv

    class Undeclared:
        """A recurrent part that does not say what it keeps."""

        count = 0

        def tensors(self, prefix: str, layer: int) -> list[Any]:
            """No tensors."""
            return []

    made = hybrid.Stack()
    made.part("recurrent", "short conv", ShortConv(8, 3), "a.", 0)
    made.part("mlp", "mlp", Mlp(8, 16, False, "w1_w3_w2"), "b.", 0)
    assert made.undeclared == []
    made.part("recurrent", "new mixer", Undeclared(), "c.", 1)
    assert made.undeclared == ["new mixer"]


def test_every_model_type_has_a_tiny_config() -> None:
    """Each model type a family models that transformers builds is in :data:`TINY`, so that its
    state is checked against transformers' cache (a model type added to the registry without
    one fails here, named)."""
    pytest.importorskip("transformers")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    missing = [t for t in families.MODEL_TYPES if t in CONFIG_MAPPING and t not in TINY]
    assert missing == []


@pytest.mark.parametrize(("model_type", "window"), [
    pytest.param("lfm3", 256, marks=REFERENCE, id="lfm3"),
    pytest.param("lara_mini", 512, marks=REFERENCE, id="lara_mini"),
])
def test_sliding_layers_where_transformers_places_them(model_type: str, window: int) -> None:
    """Without ``layer_types``, the layers whose cache keeps at most ``sliding_window`` − 1
    tokens are the ones transformers' config makes ``sliding_attention`` (its default window
    read; with ``sliding_window`` null, nothing bounds them)."""
    import transformers

    name = families.MODEL_TYPES[model_type]
    made = transformers.AutoConfig.for_model(model_type, num_hidden_layers=10)
    data = made.to_dict()
    data.pop("layer_types")
    layers = state.declared(name, families.load(name, data).config)
    assert layers is not None
    sliding = [i for i, t in enumerate(made.layer_types) if t == "sliding_attention"]
    assert sliding
    assert [s.layer for s in layers if s.kind == "sliding attention"] == sliding
    assert {p.window for s in layers for p in s.pieces if s.kind == "sliding attention"} == {
        window - 1}
    if model_type == "lfm3":
        unbounded = families.load(name, {**data, "sliding_window": None}).config
        assert not any(unbounded.windows)
