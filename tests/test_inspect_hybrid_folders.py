"""``inspect DIR`` on the hybrids' folders saved by transformers' ``save_pretrained``, causal
LMs and base model classes: the family recognised from the checkpoint's own names (Jamba's and
Nemotron-H's experts stored one by one, Nemotron-H under ``backbone.``), counted as the model's
own ``parameters()``."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CLI, have

pytestmark = [
    pytest.mark.torch,
    pytest.mark.skipif(not (have("torch") and have("transformers") and have("safetensors")),
                       reason="torch, transformers and safetensors are needed"),
]

INKLING2: dict[str, Any] = {
    "vocab_size": 40, "unpadded_vocab_size": 40, "hidden_size": 16, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 8, "swa_num_attention_heads": 2,
    "swa_num_key_value_heads": 1, "swa_head_dim": 4, "sliding_window_size": 6, "d_rel": 3,
    "rel_extent": 7, "moe_intermediate_size": 8, "n_routed_experts": 3, "eos_token_id": 0,
    "bos_token_id": 0, "pad_token_id": 0}
"""Inkling 2's tiny settings (its head as wide as the vocabulary: save_pretrained pads a
narrower one to ``vocab_size`` rows, :func:`test_a_saved_inkling2s_padded_head`)."""

TINY: dict[str, tuple[str, dict[str, Any]]] = {
    "jamba": ("Jamba", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 8,
                        "num_hidden_layers": 4, "num_attention_heads": 2,
                        "num_key_value_heads": 1, "num_experts": 3, "attn_layer_period": 2,
                        "attn_layer_offset": 1, "expert_layer_period": 2,
                        "expert_layer_offset": 0}),
    "bamba": ("Bamba", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24,
                        "num_hidden_layers": 3, "num_attention_heads": 2,
                        "num_key_value_heads": 1, "attn_layer_indices": [1],
                        "mamba_n_heads": 4, "mamba_d_state": 8, "mamba_chunk_size": 8}),
    "zamba2": ("Zamba2", {"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 4,
                          "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"],
                          "num_attention_heads": 4, "n_mamba_heads": 4, "mamba_d_state": 8,
                          "adapter_rank": 4, "intermediate_size": 32, "chunk_size": 8}),
    "falcon-h1": ("FalconH1", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24,
                               "num_hidden_layers": 2, "num_attention_heads": 2,
                               "num_key_value_heads": 1, "mamba_d_ssm": 32,
                               "mamba_n_heads": 4, "mamba_d_state": 8, "mamba_chunk_size": 8,
                               "mamba_rms_norm": True}),
    "nemotron-h": ("NemotronH", {"vocab_size": 40, "hidden_size": 16,
                                 "layers_block_type": ["mamba", "moe", "attention", "mlp"],
                                 "num_attention_heads": 2, "num_key_value_heads": 1,
                                 "head_dim": 8, "mamba_num_heads": 4, "mamba_head_dim": 8,
                                 "ssm_state_size": 8, "n_groups": 2, "intermediate_size": 24,
                                 "n_routed_experts": 3, "moe_intermediate_size": 8,
                                 "moe_shared_expert_intermediate_size": 12,
                                 "moe_latent_size": 8, "chunk_size": 8}),
    "lfm2": ("Lfm2", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 48,
                      "num_hidden_layers": 3, "num_attention_heads": 2,
                      "num_key_value_heads": 1, "full_attn_idxs": [1],
                      "block_multiple_of": 8}),
    "lfm2-moe": ("Lfm2Moe", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24,
                             "moe_intermediate_size": 8, "num_hidden_layers": 3,
                             "num_attention_heads": 2, "num_key_value_heads": 1,
                             "num_experts": 3, "num_dense_layers": 1,
                             "layer_types": ["conv", "full_attention", "conv"]}),
    "qwen3-next": ("Qwen3Next", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24,
                                 "num_hidden_layers": 4, "num_attention_heads": 2,
                                 "num_key_value_heads": 1, "head_dim": 8,
                                 "linear_num_key_heads": 2, "linear_num_value_heads": 4,
                                 "linear_key_head_dim": 8, "linear_value_head_dim": 4,
                                 "num_experts": 3, "moe_intermediate_size": 8,
                                 "shared_expert_intermediate_size": 12,
                                 "mlp_only_layers": [0]}),
    "qwen3.5": ("Qwen3_5", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24,
                            "num_hidden_layers": 4, "num_attention_heads": 2,
                            "num_key_value_heads": 1, "head_dim": 8,
                            "linear_num_key_heads": 2, "linear_num_value_heads": 4,
                            "linear_key_head_dim": 8, "linear_value_head_dim": 4}),
    "qwen3.5-moe": ("Qwen3_5Moe", {"vocab_size": 40, "hidden_size": 16,
                                   "num_hidden_layers": 4, "num_attention_heads": 2,
                                   "num_key_value_heads": 1, "head_dim": 8,
                                   "linear_num_key_heads": 2, "linear_num_value_heads": 4,
                                   "linear_key_head_dim": 8, "linear_value_head_dim": 4,
                                   "num_experts": 3, "moe_intermediate_size": 8,
                                   "shared_expert_intermediate_size": 12}),
    "granitemoehybrid": ("GraniteMoeHybrid", {"vocab_size": 40, "hidden_size": 16,
                                              "intermediate_size": 8, "num_hidden_layers": 3,
                                              "num_attention_heads": 2,
                                              "num_key_value_heads": 1, "num_local_experts": 3,
                                              "shared_intermediate_size": 12,
                                              "layer_types": ["mamba", "attention", "mamba"],
                                              "mamba_n_heads": 4, "mamba_d_state": 8,
                                              "mamba_chunk_size": 8}),
    "minimax": ("MiniMax", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 8,
                            "num_hidden_layers": 3, "num_attention_heads": 2,
                            "num_key_value_heads": 1, "num_local_experts": 3,
                            "layer_types": ["linear_attention", "full_attention",
                                            "linear_attention"]}),
    "lfm3": ("Lfm3", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24,
                      "num_hidden_layers": 3, "num_attention_heads": 2, "num_key_value_heads": 1,
                      "head_dim": 8, "pad_token_id": 0,
                      "layer_types": ["conv", "sliding_attention", "full_attention"]}),
    "olmo-hybrid": ("OlmoHybrid", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24,
                                   "num_hidden_layers": 3, "num_attention_heads": 2,
                                   "num_key_value_heads": 1, "pad_token_id": 0,
                                   "linear_key_head_dim": 6, "linear_value_head_dim": 6,
                                   "layer_types": ["linear_attention", "full_attention",
                                                   "linear_attention"]}),
    "lara-mini": ("LaraMini", {"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 3,
                               "num_attention_heads": 2, "num_key_value_heads": 1,
                               "head_dim": 8, "linear_num_key_heads": 2,
                               "linear_num_value_heads": 4, "linear_key_head_dim": 4,
                               "linear_value_head_dim": 4, "num_experts": 3,
                               "moe_intermediate_size": 8,
                               "shared_expert_intermediate_size": 12}),
    "zamba": ("Zamba", {"vocab_size": 40, "hidden_size": 8, "intermediate_size": 12,
                        "num_hidden_layers": 5, "num_attention_heads": 2,
                        "num_key_value_heads": 2,
                        "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid", "mamba"]}),
    "kimi-linear": ("KimiLinear", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24,
                                   "moe_intermediate_size": 8, "num_hidden_layers": 3,
                                   "num_attention_heads": 2, "kv_lora_rank": 8,
                                   "qk_rope_head_dim": 4, "v_head_dim": 4,
                                   "qk_nope_head_dim": 4, "num_local_experts": 3,
                                   "linear_head_dim": 4, "linear_num_heads": 2,
                                   "pad_token_id": 0,
                                   "layer_types": ["linear_attention", "full_attention",
                                                   "linear_attention"]}),
    "bailing-hybrid": ("BailingHybrid", {
        "vocab_size": 40, "hidden_size": 16, "intermediate_size": 24,
        "moe_intermediate_size": 8, "num_hidden_layers": 3, "num_attention_heads": 2,
        "kv_lora_rank": 8, "qk_rope_head_dim": 4, "v_head_dim": 4, "qk_nope_head_dim": 4,
        "num_local_experts": 3, "head_dim": 4, "first_k_dense_replace": 1,
        "pad_token_id": 0, "eos_token_id": 0,
        "layer_types": ["linear_attention", "full_attention", "linear_attention"]}),
    "zaya": ("Zaya", {"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 2,
                      "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4,
                      "moe_intermediate_size": 8, "num_experts": 3, "router_hidden_size": 8,
                      "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}),
    "qwen4-exp": ("Qwen4Exp", {"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 4,
                               "num_attention_heads": 2, "num_key_value_heads": 1,
                               "head_dim": 8, "linear_key_head_dim": 4,
                               "linear_value_head_dim": 4, "linear_num_key_heads": 2,
                               "linear_num_value_heads": 4, "moe_intermediate_size": 4,
                               "shared_expert_intermediate_size": 6, "num_experts": 3,
                               "num_experts_per_tok": 2, "hc_count": 2, "hc_lowrank": 5,
                               "indexer_n_heads": 2, "indexer_kv_heads": 1,
                               "indexer_head_dim": 8, "indexer_budget": 4,
                               "indexer_compress_ratio": 2, "ple_layer_ids": [1, 3],
                               "heads_per_ngram": 2, "ple_embed_dim": 8, "eos_token_id": 1,
                               "ngram_vocab_size_base": 500, "split_ngram_parts": 3}),
    "inkling": ("Inkling", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 24,
                            "moe_intermediate_size": 8, "num_hidden_layers": 3,
                            "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
                            "swa_num_attention_heads": 2, "swa_num_key_value_heads": 1,
                            "swa_head_dim": 4, "sliding_window_size": 6, "d_rel": 3,
                            "rel_extent": 7, "n_routed_experts": 3, "n_shared_experts": 2,
                            "mlp_layer_types": ["dense", "sparse", "sparse"],
                            "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding"]}),
    "inkling2": ("Inkling2", {**INKLING2, "num_hidden_layers": 3,
                              "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding"]}),
    "inkling2-loop": ("Inkling2Loop", {
        **INKLING2, "num_hidden_layers": 4, "n_layers_per_attn_res_block": 1,
        "loop_layer_index_start": 1, "loop_layer_index_end": 3, "loop_gate_rank": 2,
        "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding", "hybrid"]}),
    "glm5-next": ("Glm5Next", {"vocab_size": 40, "hidden_size": 16, "intermediate_size": 32,
                               "moe_intermediate_size": 8, "num_hidden_layers": 4,
                               "num_attention_heads": 2, "num_key_value_heads": 2,
                               "n_routed_experts": 3, "num_experts_per_tok": 2,
                               "kv_lora_rank": 4, "q_lora_rank": 6, "v_head_dim": 4,
                               "qk_nope_head_dim": 4, "index_topk": 4, "index_head_dim": 4,
                               "index_n_heads": 2, "index_kpool": 2, "linear_head_dim": 4,
                               "linear_num_heads": 2, "hc_mult": 2, "pad_token_id": 0,
                               "index_topk_pattern": "FFSF",
                               "mlp_layer_types": ["dense", "sparse", "sparse", "dense"],
                               "layer_types": ["linear_attention", "indexed_attention",
                                               "indexed_attention", "linear_attention"]}),
}
"""A tiny configuration of each hybrid (experts in Jamba, Nemotron-H, LFM2-MoE, Qwen3-Next,
Qwen3.5-MoE, Qwen4-Exp, whose n-gram tables are saved in three shards; OLMo Hybrid's q, k
and v alike wide: transformers saves its DeltaNet's conv as
three equal parts whatever their widths)."""

CLASSES = {"qwen3.5": ("Qwen3_5TextConfig", "Qwen3_5TextModel"),
           "qwen3.5-moe": ("Qwen3_5MoeTextConfig", "Qwen3_5MoeTextModel"),
           "qwen4-exp": ("Qwen4ExpTextConfig", "Qwen4ExpTextModel"),
           "inkling": ("InklingTextConfig", "InklingTextModel"),
           "inkling2": ("Inkling2TextConfig", "Inkling2TextModel"),
           "inkling2-loop": ("Inkling2LoopTextConfig", "Inkling2LoopTextModel"),
           "glm5-next": ("Glm5NextTextConfig", "Glm5NextTextModel")}
"""The config and base model classes not named ``{cls}Config``, ``{cls}Model``."""

NO_HEAD = ("glm5-next",)
"""The hybrids transformers builds no causal LM for (GLM-5-Next's text model): their model
class alone is saved."""

CASES = [(name, kind) for name in TINY for kind in ("ForCausalLM", "Model")
         if kind == "Model" or name not in NO_HEAD]


@pytest.mark.parametrize(("name", "kind"), CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_a_saved_hybrid_is_recognised(cli: CLI, tmp_path: Path, name: str, kind: str) -> None:
    """The folder's tensors are one recognised model of the family (but for Nemotron-H's
    router buffers), counted as the model's own parameters and checked tensor by tensor; its
    command counts the same."""
    import torch
    import transformers

    cls, settings = TINY[name]
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config_name, base = CLASSES.get(name, (cls + "Config", cls + "Model"))
        model = getattr(transformers, cls + kind if kind != "Model" else base)(
            getattr(transformers, config_name)(**settings))
        model.save_pretrained(tmp_path, safe_serialization=True)
    total = sum(p.numel() for p in model.parameters())
    buffers = sum(b.numel() for n, b in model.state_dict().items()
                  if n.endswith(("e_score_correction_bias", "expert_bias", "slope_rate",
                                 "query_decay", "key_decay", "diagonal_decay",
                                 "balancing_biases", "layer_multipliers",
                                 "ngram_heads_offsets", "ngram_heads_vocab_sizes")))
    result = cli("inspect", str(tmp_path), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["total"] == total + buffers
    (found,) = data["recurrent"]
    assert (found["family"], found["params"], found["stored"]) == (name, total, total)
    assert found["match"]
    again = cli(*found["command"].split()[1:], "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out)["total"] == total


PADDED: list[tuple[str, int, int | None, bool]] = [
    ("inkling2", 37, None, True), ("inkling2-loop", 37, None, True),
    ("inkling2", 40, None, True), ("inkling2", 37, 37, True), ("inkling2", 37, 38, False),
    ("inkling2", 37, 36, False)]
"""(family, unpadded_vocab_size of a vocabulary of 40, the head's rows as the file stores them
where rewritten, whether the folder matches): save_pretrained's padded head, a head as wide as
the vocabulary, a head stored unpadded, and two widths that are neither."""


@pytest.mark.parametrize(("name", "unpadded", "rows", "match"), PADDED,
                         ids=["padded", "loop-padded", "unpadded-is-vocab", "stored-unpadded",
                              "wider", "narrower"])
def test_a_saved_inkling2s_padded_head(cli: CLI, tmp_path: Path, name: str, unpadded: int,
                                       rows: int | None, match: bool) -> None:
    """A saved Inkling 2 whose lm_head is narrower than the vocabulary (save_pretrained stores
    it padded to vocab_size rows, transformers drops them on load) counts the model's own
    parameters, the padding named as stored and not a parameter; a head stored unpadded needs
    none, and a head of any other width is a mismatch."""
    import torch
    import transformers
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file

    cls, settings = TINY[name]
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(transformers, cls + "ForCausalLM")(getattr(
            transformers, cls + "TextConfig")(**{**settings, "unpadded_vocab_size": unpadded}))
        model.save_pretrained(tmp_path, safe_serialization=True)
    params = sum(p.numel() for p in model.parameters())
    file = tmp_path / "model.safetensors"
    head = "model.llm.unembed.weight"
    if rows is not None:
        state = load_file(file)
        state[head] = state[head][:rows].clone()
        save_file(state, file, metadata={"format": "pt"})
    with safe_open(file, "pt") as handle:
        stored = {k: handle.get_slice(k).get_shape() for k in handle.keys()}  # noqa: SIM118
    assert tuple(model.lm_head.weight.shape) == (unpadded, 16)
    assert stored[head] == [40 if rows is None else rows, 16]
    padding = (stored[head][0] - unpadded) * 16
    result = cli("inspect", str(tmp_path), "--json")
    assert result.code == 0, result.err
    (found,) = json.loads(result.out)["recurrent"]
    assert found["family"] == name and found["match"] is match
    if not match:
        assert found["stored"] == params + padding
        assert f"config.json says unpadded_vocab_size={unpadded}, the tensors hold " \
               f"{stored[head][0]}" in found["notes"]
        return
    assert (found["params"], found["stored"]) == (params, params + padding)
    assert found["config"]["unpadded_vocab_size"] == unpadded
    assert found["padding"] == ([{
        "name": head, "shape": [unpadded, 16], "stored_shape": [40, 16], "count": padding,
        "why": f"save_pretrained pads the head to vocab_size=40 rows; lm_head holds "
               f"unpadded_vocab_size={unpadded}"}] if padding else [])
    assert not any("config.json says" in note for note in found["notes"])
    assert found["exact"] is True and found["at_most"] is None
    torch_way = json.loads(cli("inspect", str(tmp_path), "--json", "--as", "torch").out)["as"]
    assert [d["delta"] for d in torch_way["differences"]] == ([-padding] if padding else [])


NO_CONFIG = [("inkling2", 37, "ForCausalLM"), ("inkling2-loop", 37, "ForCausalLM"),
             ("inkling2", 40, "ForCausalLM"), ("inkling2", 37, "Model")]
"""(family, unpadded_vocab_size of a vocabulary of 40, the class saved) of the folders
saved without their config.json."""


@pytest.mark.parametrize(("name", "unpadded", "kind"), NO_CONFIG,
                         ids=["padded", "loop-padded", "unpadded-is-vocab", "base-model"])
def test_a_saved_inkling2_without_config_is_at_most_its_stored_count(
        cli: CLI, tmp_path: Path, name: str, unpadded: int, kind: str) -> None:
    """A saved Inkling 2 whose config.json is gone: the head's own width is not in the weights,
    so its count is the stored count as an upper bound (at least the model's own), named so
    in the JSON (exact false, at_most) and the text (≤, a note on the head's rows); a base
    model class, which has no head, is exact."""
    import torch
    import transformers

    cls, settings = TINY[name]
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = getattr(transformers, CLASSES[name][0])(
            **{**settings, "unpadded_vocab_size": unpadded})
        model = getattr(transformers, cls + kind if kind != "Model" else CLASSES[name][1])(
            config)
        model.save_pretrained(tmp_path, safe_serialization=True)
    (tmp_path / "config.json").unlink()
    params = sum(p.numel() for p in model.parameters())
    result = cli("inspect", str(tmp_path), "--json")
    assert result.code == 0, result.err
    (found,) = json.loads(result.out)["recurrent"]
    assert found["family"] == name and found["match"]
    text = cli("inspect", str(tmp_path)).out
    if kind == "Model":
        assert (found["params"], found["exact"], found["at_most"]) == (params, True, None)
        assert "at most" not in text and not any("pads the head" in n for n in found["notes"])
        return
    stored = params + (40 - unpadded) * 16
    assert (found["params"], found["stored"]) == (stored, stored) and stored >= params
    assert (found["exact"], found["at_most"]) == (False, stored)
    why = (f"at most {stored:,} parameters: model.llm.unembed.weight holds vocab_size=40 rows "
           "and save_pretrained stores the head padded to vocab_size: lm_head's own "
           "unpadded_vocab_size is not in the weights (config.json says it), so the rows beyond "
           "it may be padding, not parameters")
    assert why in found["notes"]
    assert f"≤ {stored:,}" in text and "at most" in text
