"""The hybrid families (Jamba, Bamba, Zamba2, Falcon-H1, Nemotron-H, LFM2, LFM2-MoE,
Qwen3-Next, Qwen3.5 and Qwen3.5-MoE text, Granite 4.0-H, MiniMax,
LFM3, OLMo Hybrid, Lara Mini, Zamba, Kimi Linear, Ling 3, ZAYA, Qwen4-Exp text): closed forms,
config.json, recognition, the published models' totals, and the three routes (flags,
``--config``, ``inspect DIR``) agreeing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.errors import SpecError
from paramcount.families import registry as families
from paramcount.families.report import build_family_report
from paramcount.record import fields
from tests.conftest import CLI
from tests.hybrid_strategies import STRATEGIES, ours

NAMES = list(STRATEGIES)

NEMOTRON_SUPER_PATTERN = ("MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*"
                          "EMEMEMEM*EMEMEMEME")

def _example(folder: str) -> dict[str, Any]:
    """The config.json of ``examples/hf/{folder}`` (where the source is named below)."""
    path = Path(__file__).resolve().parent.parent / "examples" / "hf" / folder / "config.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


PUBLISHED: dict[str, tuple[str, dict[str, Any], int, int | None]] = {
    # name: (family, config.json's keys as the model repository holds them, total, active)
    # ai21labs/AI21-Jamba-1.5-Mini/config.json (as copied in sdpython/onnx-diagnostic's
    # model builders); Jamba-v0.1's differs only in keys that shape no parameter.
    "Jamba-1.5-Mini": ("jamba", {
        "model_type": "jamba", "architectures": ["JambaForCausalLM"], "attn_layer_offset": 4,
        "attn_layer_period": 8, "expert_layer_offset": 1, "expert_layer_period": 2,
        "hidden_size": 4096, "intermediate_size": 14336, "mamba_conv_bias": True,
        "mamba_d_conv": 4, "mamba_d_state": 16, "mamba_dt_rank": 256, "mamba_expand": 2,
        "mamba_proj_bias": False, "num_attention_heads": 32, "num_experts": 16,
        "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_key_value_heads": 8,
        "tie_word_embeddings": False, "vocab_size": 65536}, 51_570_323_328, 12_110_311_296),
    # ibm-ai-platform/Bamba-9B: 32 layers, attention at 9, 18, 27, d_state 128 (its
    # config.json); the other sizes are BambaConfig's defaults, which the model keeps, and
    # Llama 3's vocabulary of 128,256.
    "Bamba-9B": ("bamba", {
        "model_type": "bamba", "hidden_size": 4096, "num_hidden_layers": 32,
        "attn_layer_indices": [9, 18, 27], "num_attention_heads": 32,
        "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
        "mamba_n_heads": 128, "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 128,
        "mamba_d_conv": 4, "mamba_expand": 2, "tie_word_embeddings": False},
        9_780_235_392, None),
    # Zyphra/Zamba2-1.2B @ 6b05bf29 as transformers 5.14 reads it: 38 layers (a hybrid layer
    # after every five Mamba layers, six in all), one shared block with attention adapters
    # (406 parameter tensors).
    "Zamba2-1.2B": ("zamba2", {
        "model_type": "zamba2", "hidden_size": 2048, "num_hidden_layers": 38,
        "layers_block_type": (["mamba"] * 5 + ["hybrid"]) * 6 + ["mamba"] * 2,
        "num_attention_heads": 32, "num_key_value_heads": 32, "intermediate_size": 8192,
        "vocab_size": 32000, "mamba_d_state": 128, "mamba_ngroups": 1, "n_mamba_heads": 64,
        "mamba_headdim": 64, "mamba_d_conv": 4, "mamba_expand": 2, "num_mem_blocks": 1,
        "adapter_rank": 128, "use_shared_attention_adapter": True,
        "tie_word_embeddings": True}, 1_215_064_704, None),
    # tiiuae/Falcon-H1-1.5B-Base and -7B-Base config.json.
    "Falcon-H1-1.5B": ("falcon-h1", {
        "model_type": "falcon_h1", "num_hidden_layers": 24, "hidden_size": 2048,
        "intermediate_size": 4608, "num_attention_heads": 8, "num_key_value_heads": 2,
        "head_dim": 128, "vocab_size": 65537, "mamba_d_state": 256, "mamba_d_conv": 4,
        "mamba_n_groups": 1, "mamba_n_heads": 48, "mamba_d_head": 64, "mamba_d_ssm": 3072},
        1_554_789_760, None),
    "Falcon-H1-7B": ("falcon-h1", {
        "model_type": "falcon_h1", "hidden_size": 3072, "num_hidden_layers": 44,
        "num_attention_heads": 12, "num_key_value_heads": 2, "head_dim": 128,
        "intermediate_size": 12288, "vocab_size": 130048, "tie_word_embeddings": False,
        "mamba_d_state": 256, "mamba_n_groups": 1, "mamba_n_heads": 24, "mamba_d_head": 128,
        "mamba_d_ssm": 3072, "mamba_expand": 2, "mamba_d_conv": 4, "mamba_chunk_size": 128},
        7_585_513_568, None),
    # nvidia/Nemotron-H-8B-Base-8K config.json (its own attention_head_dim key is not one
    # transformers reads; head_dim's default 128 is the same width).
    "Nemotron-H-8B": ("nemotron-h", {
        "model_type": "nemotron_h", "hidden_size": 4096,
        "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
        "intermediate_size": 21504, "mamba_head_dim": 64, "mamba_num_heads": 128,
        "n_groups": 8, "num_attention_heads": 32, "num_hidden_layers": 52,
        "num_key_value_heads": 8, "attention_head_dim": 128, "ssm_state_size": 128,
        "conv_kernel": 4, "vocab_size": 131072, "tie_word_embeddings": False,
        "use_bias": False, "use_conv_bias": True, "mlp_bias": False,
        "mamba_proj_bias": False, "expand": 2}, 8_100_852_736, None),
    # NVIDIA Nemotron 3 Super's config.json: latent mixture of 512 experts, 22 per token.
    "Nemotron-3-Super": ("nemotron-h", {
        "model_type": "nemotron_h", "hidden_size": 4096, "head_dim": 128,
        "hybrid_override_pattern": NEMOTRON_SUPER_PATTERN, "intermediate_size": 2688,
        "mamba_head_dim": 64, "mamba_num_heads": 128, "moe_intermediate_size": 2688,
        "moe_latent_size": 1024, "moe_shared_expert_intermediate_size": 5376, "n_groups": 8,
        "n_routed_experts": 512, "n_shared_experts": 1, "num_attention_heads": 32,
        "num_experts_per_tok": 22, "num_hidden_layers": 88, "num_key_value_heads": 2,
        "ssm_state_size": 128, "conv_kernel": 4, "tie_word_embeddings": False,
        "vocab_size": 131072, "mlp_bias": False, "num_nextn_predict_layers": 1},
        120_668_687_360, 12_770_216_960),
    # LiquidAI/LFM2-1.2B/config.json (LiquidAI's own key names: block_ff_dim, tie_embedding).
    "LFM2-1.2B": ("lfm2", {
        "model_type": "lfm2", "architectures": ["Lfm2ForCausalLM"],
        "block_auto_adjust_ff_dim": True, "block_dim": 2048, "block_ff_dim": 12288,
        "block_ffn_dim_multiplier": 1.0, "block_multiple_of": 256, "conv_L_cache": 3,
        "conv_bias": False, "conv_dim": 2048, "full_attn_idxs": [2, 5, 8, 10, 12, 14],
        "hidden_size": 2048, "intermediate_size": 8192, "num_attention_heads": 32,
        "num_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
        "tie_embedding": True, "vocab_size": 65536}, 1_170_340_608, None),
    # LiquidAI/LFM2-8B-A1B/config.json as mlxcel's tests transcribe it ("a trimmed LFM2-8B-A1B
    # config": quantization dropped here); published: 8.3B total, 1.5B active.
    "LFM2-8B-A1B": ("lfm2-moe", _example("lfm2-8b-a1b"), 8_339_929_856, 1_557_740_288),
    # Qwen/Qwen3-Next-80B-A3B-Instruct/config.json as transcribed in a public test (the keys
    # that shape parameters and their neighbours; its layer_types, attention every fourth
    # layer, written as full_attention_interval 4); published: 80B total, 3B active.
    "Qwen3-Next-80B-A3B": ("qwen3-next", _example("qwen3-next-80b-a3b"), 79_674_391_296,
                           3_874_929_408),
    # Qwen/Qwen3.5-27B's text_config (megatron-bridge's test fixture of it, model_type
    # qwen3_5_text as its text_config says); published: 27B with the vision tower.
    "Qwen3.5-27B text": ("qwen3.5", _example("qwen3.5-27b-text"), 26_895_998_464, None),
    # Qwen/Qwen3.5-397B-A17B/config.json's text_config (its key fields as a public analysis
    # quotes them; vocab_size and tie_word_embeddings the class's defaults, 248320 and false,
    # as Qwen3.5-27B's); published: 397B total with the vision tower, 17B active.
    "Qwen3.5-397B-A17B text": ("qwen3.5-moe", _example("qwen3.5-397b-a17b-text"),
                               396_346_350_336, 17_349_040_896),
    # ibm-granite/granite-4.0-h-tiny/config.json as a public simulator's test transcribes it
    # (the keys that shape parameters); published: 7B total, 1B active.
    "Granite-4.0-H-Tiny": ("granitemoehybrid", _example("granite-4.0-h-tiny"),
                           6_939_037_248, 1_465_470_528),
    # MiniMaxAI/MiniMax-Text-01 in transformers' MiniMaxConfig keys: not the shipped file
    # (MiniMax's own, model_type minimax_text_01, names the layers attn_type_list), its layout
    # as the MiniMax-01 report and a public printout of the model give it: hidden 6144, 80
    # layers (softmax attention after every 7 lightning layers), 64 heads of 128, 8 key/value
    # heads, 32 experts of 9216, 2 per token, vocabulary 200064; published: 456B total, 45.9B
    # active (without the embeddings and head: 48,403,306,496 − 2·1,229,193,216).
    "MiniMax-Text-01": ("minimax", _example("minimax-text-01"), 456_089_655_296,
                        48_403_306_496),
}
"""Published models, each counted from its config.json alone (docs/families.md's table);
tests/test_verify_hybrids.py builds each with transformers on the meta device."""


def config_of(name: str, raw: dict[str, Any]) -> Any:
    """Our config record from reference keywords."""
    return families.config_class(name)(**ours(raw, name))


def as_json(name: str, config: Any) -> dict[str, Any]:
    """``config`` written as a config.json's object (lists for tuples, the model_type)."""
    model_type = next(t for t, f in families.MODEL_TYPES.items() if f == name)
    return {"model_type": model_type, **{
        f: list(v) if isinstance(v, tuple) else v for f in fields(config)
        for v in (getattr(config, f),)}}


@pytest.mark.parametrize(("family", "data", "total", "active"), list(PUBLISHED.values()),
                         ids=list(PUBLISHED))
def test_published_sizes_from_their_config_alone(family: str, data: dict[str, Any],
                                                 total: int, active: int | None) -> None:
    """Each published config.json gives the model's total (and, with experts, what a token
    uses); the registry names its family by model_type."""
    assert families.family_of(data) == family
    report = build_family_report(family, families.family(family).from_hf_config(data))
    assert (report.total, report.active) == (total, active)
    assert sum(n for _, n in report.shares) == total


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_formula_equals_the_tensors(name: str, data: st.DataObject) -> None:
    """The parts' closed forms, summed on their own, equal the sum of the tensors; the shares
    add up to it too."""
    config = config_of(name, data.draw(STRATEGIES[name]))
    report = build_family_report(name, config)
    assert report.formula.total == report.total == sum(n for _, n in report.shares)
    assert report.active is None or 0 < report.active <= report.total


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_config_json_round_trip(name: str, data: st.DataObject) -> None:
    """A config written as config.json reads back as the same config."""
    config = config_of(name, data.draw(STRATEGIES[name]))
    written = as_json(name, config)
    assert families.family_of(written) == name
    assert families.family(name).from_hf_config(written) == config


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_recognition_inverts_the_tensors(name: str, data: st.DataObject) -> None:
    """Random config → tensors → recognised config: every tensor claimed, and the config read
    back writes the same tensors (what the weights cannot tell, such as groups × state, may
    be read another way that builds the same model)."""
    config = config_of(name, data.draw(STRATEGIES[name]))
    module = families.family(name)
    shapes = {t.name: t.shape for t in module.tensors(config)}
    found = families.recognise({"other.weight": (3, 3), **shapes})
    assert [m.prefix for m in found] == [""]
    (model,) = found
    recurrent = dict(build_family_report(name, config).shares).get("recurrent")
    assert model.family == name or not recurrent  # attention and MLPs alone: any of them
    assert set(model.names) == set(shapes)
    assert {t.name: t.shape for t in families.family(model.family).tensors(model.config)
            } == shapes


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_model_under_a_prefix_keeps_it(name: str, data: st.DataObject) -> None:
    """A hybrid nested in another model is found under its prefix."""
    config = config_of(name, data.draw(STRATEGIES[name]))
    shapes = {"outer." + t.name: t.shape for t in families.family(name).tensors(config)}
    (model,) = families.recognise(shapes)
    assert (model.prefix, len(model.names)) == ("outer.", len(shapes))


def test_an_almost_hybrid_is_not_recognised() -> None:
    """One tensor of the wrong shape, or one extra in a layer, and nothing is claimed."""
    config = config_of("jamba", {"vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 3,
                                 "num_attention_heads": 2, "num_experts": 2,
                                 "attn_layer_period": 2, "attn_layer_offset": 1})
    shapes = {t.name: t.shape for t in families.family("jamba").tensors(config)}
    assert families.recognise({**shapes, "model.layers.1.self_attn.q_proj.weight": (3, 8)}
                              ) == []
    assert families.recognise({**shapes, "model.layers.2.mamba.extra": (3,)}) == []


ROUTES = [
    ("jamba", ["--hidden-size", "64", "--num-hidden-layers", "4", "--num-attention-heads", "4",
               "--num-key-value-heads", "2", "--intermediate-size", "96", "--vocab-size",
               "100", "--num-experts", "4", "--attn-layer-period", "2",
               "--attn-layer-offset", "1"]),
    ("bamba", ["--hidden-size", "32", "--num-hidden-layers", "3", "--attn-layer-indices", "1",
               "--mamba-n-heads", "8", "--mamba-d-state", "16", "--vocab-size", "50",
               "--intermediate-size", "48", "--num-attention-heads", "4"]),
    ("zamba2", ["--hidden-size", "16", "--num-hidden-layers", "4", "--layers-block-type",
                "mamba,hybrid,mamba,hybrid", "--num-attention-heads", "4",
                "--n-mamba-heads", "4", "--num-mem-blocks", "2",
                "--use-shared-attention-adapter", "--adapter-rank", "4", "--vocab-size", "40"]),
    ("falcon-h1", ["--hidden-size", "32", "--num-hidden-layers", "2", "--mamba-d-ssm", "48",
                   "--mamba-n-heads", "4", "--mamba-d-state", "8", "--head-dim", "8",
                   "--num-attention-heads", "4", "--num-key-value-heads", "2",
                   "--intermediate-size", "64", "--vocab-size", "50"]),
    ("nemotron-h", ["--hidden-size", "32", "--pattern", "M*-E", "--mamba-num-heads", "4",
                    "--mamba-head-dim", "8", "--n-groups", "2", "--ssm-state-size", "8",
                    "--num-attention-heads", "4", "--head-dim", "8",
                    "--intermediate-size", "48", "--n-routed-experts", "4",
                    "--moe-intermediate-size", "16",
                    "--moe-shared-expert-intermediate-size", "24", "--vocab-size", "60"]),
    ("lfm2", ["--hidden-size", "32", "--num-hidden-layers", "4", "--full-attn-idxs", "1,3",
              "--num-attention-heads", "4", "--num-key-value-heads", "2",
              "--intermediate-size", "96", "--block-multiple-of", "16", "--vocab-size", "80"]),
    ("lfm2-moe", ["--hidden-size", "32", "--num-hidden-layers", "3", "--layer-types",
                  "conv,full_attention,conv", "--num-attention-heads", "4",
                  "--num-key-value-heads", "2", "--intermediate-size", "48",
                  "--moe-intermediate-size", "16", "--num-experts", "4",
                  "--num-dense-layers", "1", "--vocab-size", "80"]),
    ("qwen3-next", ["--hidden-size", "32", "--num-hidden-layers", "4", "--num-attention-heads",
                    "4", "--num-key-value-heads", "2", "--head-dim", "8",
                    "--linear-num-key-heads", "2", "--linear-num-value-heads", "4",
                    "--linear-key-head-dim", "8", "--linear-value-head-dim", "8",
                    "--num-experts", "4", "--moe-intermediate-size", "8",
                    "--shared-expert-intermediate-size", "16", "--intermediate-size", "48",
                    "--mlp-only-layers", "0", "--vocab-size", "80"]),
    ("qwen3.5", ["--hidden-size", "32", "--num-hidden-layers", "4", "--num-attention-heads",
                 "4", "--num-key-value-heads", "2", "--head-dim", "8",
                 "--linear-num-key-heads", "2", "--linear-num-value-heads", "4",
                 "--linear-key-head-dim", "8", "--linear-value-head-dim", "8",
                 "--intermediate-size", "48", "--vocab-size", "80"]),
    ("qwen3.5-moe", ["--hidden-size", "32", "--num-hidden-layers", "4",
                     "--num-attention-heads", "4", "--num-key-value-heads", "2", "--head-dim",
                     "8", "--linear-num-key-heads", "2", "--linear-num-value-heads", "4",
                     "--linear-key-head-dim", "8", "--linear-value-head-dim", "8",
                     "--num-experts", "4", "--moe-intermediate-size", "8",
                     "--shared-expert-intermediate-size", "16", "--vocab-size", "80"]),
    ("granitemoehybrid", ["--hidden-size", "32", "--num-hidden-layers", "3", "--layer-types",
                          "mamba,attention,mamba", "--num-attention-heads", "4",
                          "--num-key-value-heads", "2", "--intermediate-size", "16",
                          "--num-local-experts", "4", "--shared-intermediate-size", "24",
                          "--mamba-n-heads", "8", "--mamba-d-state", "16",
                          "--vocab-size", "80"]),
    ("minimax", ["--hidden-size", "32", "--num-hidden-layers", "4", "--num-attention-heads",
                 "4", "--num-key-value-heads", "2", "--intermediate-size", "16",
                 "--num-local-experts", "4", "--vocab-size", "80"]),
    ("lfm3", ["--hidden-size", "32", "--num-hidden-layers", "4", "--num-attention-heads", "4",
              "--num-key-value-heads", "2", "--head-dim", "8", "--intermediate-size", "48",
              "--vocab-size", "80"]),
    ("olmo-hybrid", ["--hidden-size", "32", "--num-hidden-layers", "4",
                     "--num-attention-heads", "4", "--num-key-value-heads", "2",
                     "--intermediate-size", "48", "--vocab-size", "80"]),
    ("lara-mini", ["--hidden-size", "32", "--num-hidden-layers", "5", "--num-attention-heads",
                   "4", "--num-key-value-heads", "2", "--head-dim", "8",
                   "--linear-num-key-heads", "2", "--linear-num-value-heads", "4",
                   "--linear-key-head-dim", "8", "--linear-value-head-dim", "8",
                   "--num-experts", "4", "--moe-intermediate-size", "8",
                   "--shared-expert-intermediate-size", "16", "--vocab-size", "80"]),
    ("zamba", ["--hidden-size", "16", "--num-hidden-layers", "5", "--layers-block-type",
               "mamba,hybrid,mamba,hybrid,mamba", "--num-attention-heads", "4",
               "--num-key-value-heads", "4", "--intermediate-size", "32", "--n-mamba-heads",
               "2", "--vocab-size", "80"]),
    ("kimi-linear", ["--hidden-size", "32", "--num-hidden-layers", "5", "--num-attention-heads",
                     "4", "--kv-lora-rank", "16", "--qk-rope-head-dim", "4", "--v-head-dim",
                     "8", "--qk-nope-head-dim", "8", "--num-local-experts", "4",
                     "--moe-intermediate-size", "8", "--linear-head-dim", "8",
                     "--linear-num-heads", "4", "--intermediate-size", "48",
                     "--vocab-size", "80"]),
    ("bailing-hybrid", ["--hidden-size", "32", "--num-hidden-layers", "5",
                        "--num-attention-heads", "4", "--kv-lora-rank", "16",
                        "--qk-rope-head-dim", "4", "--v-head-dim", "8", "--qk-nope-head-dim",
                        "8", "--num-local-experts", "4", "--moe-intermediate-size", "8",
                        "--head-dim", "8", "--layer-group-size", "2", "--intermediate-size",
                        "48", "--q-lora-rank", "8", "--vocab-size", "80"]),
    ("zaya", ["--hidden-size", "32", "--num-hidden-layers", "3", "--num-attention-heads",
              "4", "--num-key-value-heads", "2", "--head-dim", "8", "--num-experts", "4",
              "--moe-intermediate-size", "16", "--router-hidden-size", "8",
              "--cca-time0", "3", "--no-tie-word-embeddings", "--lm-head-bias",
              "--vocab-size", "80"]),
    ("qwen4-exp", ["--hidden-size", "32", "--num-hidden-layers", "4", "--num-attention-heads",
                   "4", "--num-key-value-heads", "2", "--head-dim", "8",
                   "--linear-num-key-heads", "2", "--linear-num-value-heads", "4",
                   "--linear-key-head-dim", "8", "--linear-value-head-dim", "8",
                   "--num-experts", "4", "--num-experts-per-tok", "2",
                   "--moe-intermediate-size", "8", "--shared-expert-intermediate-size", "16",
                   "--hc-count", "2", "--hc-lowrank", "8", "--ple-layer-ids", "1,3",
                   "--ple-embed-dim", "16", "--indexer-n-heads", "2", "--indexer-kv-heads",
                   "1", "--indexer-head-dim", "8", "--indexer-budget", "8",
                   "--indexer-compress-ratio", "4", "--vocab-size", "80"]),
    ("inkling", ["--hidden-size", "32", "--num-hidden-layers", "6", "--num-attention-heads",
                 "4", "--num-key-value-heads", "2", "--head-dim", "8",
                 "--swa-num-attention-heads", "2", "--swa-num-key-value-heads", "1",
                 "--swa-head-dim", "8", "--sliding-window", "16", "--rel-extent", "32",
                 "--d-rel", "4", "--intermediate-size", "48", "--moe-intermediate-size", "8",
                 "--num-experts", "4", "--n-shared-experts", "1", "--dense-mlp-idx", "1",
                 "--vocab-size", "80"]),
    ("inkling2", ["--hidden-size", "32", "--num-hidden-layers", "6", "--num-attention-heads",
                  "4", "--num-key-value-heads", "2", "--head-dim", "8",
                  "--swa-num-attention-heads", "2", "--swa-num-key-value-heads", "1",
                  "--swa-head-dim", "8", "--sliding-window", "16", "--rel-extent", "32",
                  "--d-rel", "4", "--moe-intermediate-size", "8", "--num-experts", "4",
                  "--vocab-size", "80", "--unpadded-vocab-size", "70"]),
    ("inkling2-loop", ["--hidden-size", "32", "--num-hidden-layers", "6",
                       "--num-attention-heads", "4", "--num-key-value-heads", "2", "--head-dim",
                       "8", "--swa-num-attention-heads", "2", "--swa-num-key-value-heads", "1",
                       "--swa-head-dim", "8", "--moe-intermediate-size", "8", "--num-experts",
                       "4", "--vocab-size", "80", "--n-layers-per-attn-res-block", "2",
                       "--loop-layer-index-start", "2", "--loop-layer-index-end", "4",
                       "--loop-gate-rank", "4"]),
    ("glm5-next", ["--hidden-size", "32", "--num-hidden-layers", "4", "--num-attention-heads",
                   "4", "--num-key-value-heads", "4", "--kv-lora-rank", "8", "--q-lora-rank",
                   "12", "--v-head-dim", "6", "--qk-nope-head-dim", "10", "--intermediate-size",
                   "48", "--moe-intermediate-size", "16", "--n-routed-experts", "4",
                   "--num-experts-per-tok", "2", "--linear-head-dim", "4",
                   "--linear-num-heads", "3", "--index-head-dim", "8", "--index-n-heads", "2",
                   "--index-kpool", "4", "--index-topk", "16", "--hc-mult", "2",
                   "--indexer-types", "full,full,full,shared", "--mlp-layer-types",
                   "dense,sparse,sparse,sparse", "--layer-types",
                   "linear_attention,indexed_attention,linear_attention,indexed_attention",
                   "--vocab-size", "80"]),
]


@pytest.mark.parametrize(("name", "flags"), ROUTES, ids=[r[0] for r in ROUTES])
def test_the_three_routes_agree(cli: CLI, tmp_path: Path, name: str, flags: list[str]) -> None:
    """Flags, ``--config`` with the config.json they make, ``inspect`` on a folder with that
    config.json alone, and ``check`` of a model whose ``file =`` is that folder: the same
    tensors, the same total."""
    by_flags = cli(name, *flags, "--json")
    assert by_flags.code == 0, by_flags.err
    data = json.loads(by_flags.out)
    folder = tmp_path / name
    folder.mkdir()
    config = families.config_class(name)(**data["config"] | {
        k: tuple(v) for k, v in data["config"].items() if isinstance(v, list)})
    (folder / "config.json").write_text(json.dumps(as_json(name, config)))
    by_config = json.loads(cli(name, "--config", str(folder / "config.json"), "--json").out)
    assert by_config["tensors"] == data["tensors"]
    inspected = cli("inspect", str(folder), "--json")
    assert inspected.code == 0, inspected.err
    found = json.loads(inspected.out)
    assert found["total"] == data["total"]
    assert [(m["family"], m["params"]) for m in found["recurrent"]] == [(name, data["total"])]
    (tmp_path / "paramcount.toml").write_text(f'[models.m]\nfile = "{name}"\n'
                                              f'total = {data["total"]}\n')
    checked = cli("check", str(tmp_path / "paramcount.toml"), "--json")
    assert checked.code == 0, checked.err + checked.out
    (model,) = json.loads(checked.out)["models"]
    assert model["total"] == data["total"]


def test_shares_and_active_parameters_are_shown(cli: CLI) -> None:
    """A hybrid's answer shares its parameters among kinds of part; with experts, it says what
    one token uses, in the text and the JSON."""
    flags = ("--hidden-size", "64", "--num-hidden-layers", "4", "--num-attention-heads", "4",
             "--intermediate-size", "96", "--vocab-size", "100", "--num-experts", "4",
             "--attn-layer-period", "2", "--attn-layer-offset", "1")
    result = cli("jamba", *flags)
    assert result.code == 0, result.err
    assert "Shares" in result.out and "Active per token" in result.out
    data = json.loads(cli("jamba", *flags, "--json").out)
    assert set(data["shares"]) == {"embeddings", "recurrent", "attention", "mlp", "experts",
                                   "norms"}
    assert sum(data["shares"].values()) == data["total"] > data["active"]


BAD = [
    ("jamba", ["--attn-layer-offset", "8"], "attn-layer-offset"),
    ("bamba", ["--mamba-n-heads", "3"], "mamba-n-heads"),
    ("zamba2", ["--num-hidden-layers", "6"], "num-hidden-layers"),
    ("falcon-h1", ["--head-dim", "7"], "head-dim"),
    ("nemotron-h", ["--pattern", "MX"], "pattern"),
    ("lfm2", ["--full-attn-idxs", "40"], "full-attn-idxs"),
    ("lfm2-moe", ["--layer-types", "conv,full_attention"], "layer-types"),
    ("qwen3-next", ["--mlp-only-layers", "48"], "mlp-only-layers"),
    ("qwen3.5", ["--layer-types", "mamba"], "layer-types"),
    ("qwen3.5-moe", ["--num-experts", "0"], "num-experts"),
    ("granitemoehybrid", ["--mamba-n-heads", "3"], "mamba-n-heads"),
    ("minimax", ["--layer-types", "mamba"], "layer-types"),
    ("lfm3", ["--conv-L-cache", "0"], "conv-L-cache"),
    ("olmo-hybrid", ["--num-hidden-layers", "1"], "layer-types"),
    ("lara-mini", ["--num-key-value-heads", "3"], "num-key-value-heads"),
    ("zamba", ["--n-mamba-heads", "3"], "n-mamba-heads"),
    ("kimi-linear", ["--mlp-layer-types", "dense"], "mlp-layer-types"),
    ("bailing-hybrid", ["--layer-group-size", "0"], "layer-group-size"),
    ("zaya", ["--layer-types", "hybrid_sliding,hybrid", "-L", "2"], "sliding-window"),
    ("zaya", ["--num-experts-per-tok", "2"], "num-experts-per-tok"),
    ("qwen4-exp", ["--indexer-n-heads", "4"], "indexer-"),
    ("qwen4-exp", ["--ple-layer-ids", "5", "--layer-types",
                   "linear_attention,linear_attention,linear_attention,linear_attention",
                   "-L", "4"], "ple-layer-ids"),
    ("qwen4-exp", ["--hc-count", "1"], "hc-count"),
    ("qwen4-exp", ["--indexer-n-heads", "4", "--indexer-kv-heads", "1", "--indexer-head-dim",
                   "128", "--indexer-budget", "64", "--indexer-compress-ratio", "4"],
     "indexer-head-dim"),
    ("inkling", ["--local-layer-ids", "66"], "local-layer-ids"),
    ("inkling", ["--impl", "inkling2", "--layer-types", "hybrid"], "layer-types"),
    ("inkling", ["--impl", "inkling2-loop", "--loop-layer-index-end", "7"],
     "loop-layer-index-end"),
    ("glm5-next", ["--num-key-value-heads", "8"], "num-key-value-heads"),
    ("glm5-next", ["--qk-rope-head-dim", "64"], "qk-rope-head-dim"),
    ("glm5-next", ["--index-topk", "10"], "index-topk"),
    ("glm5-next", ["--indexer-types", "full"], "indexer-types"),
]


@pytest.mark.parametrize(("name", "flags", "named"), BAD, ids=[b[0] for b in BAD])
def test_a_config_the_reference_refuses_is_one_line(cli: CLI, name: str, flags: list[str],
                                                    named: str) -> None:
    """What transformers would refuse (or paramcount cannot count faithfully) is one line on
    stderr naming the option, exit 2, no traceback."""
    result = cli(name, *flags)
    assert result.code == 2
    assert named in result.err and "Traceback" not in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_a_wrong_config_json_value_names_its_key() -> None:
    """A config.json value of the wrong type is a SpecError naming the key."""
    with pytest.raises(SpecError, match="mamba_d_state"):
        families.family("bamba").from_hf_config({"mamba_d_state": "big"})
    with pytest.raises(SpecError, match="layers_block_type"):
        families.family("zamba2").from_hf_config({"layers_block_type": ["attention"]})
    with pytest.raises(SpecError, match="write layers_block_type"):
        families.family("zamba2").from_hf_config({"layer_types": ["mamba", "hybrid"]})


EXAMPLES = {"Jamba-1.5-Mini": "jamba-1.5-mini", "Bamba-9B": "bamba-9b",
            "Zamba2-1.2B": "zamba2-1.2b", "Falcon-H1-1.5B": "falcon-h1-1.5b",
            "Falcon-H1-7B": "falcon-h1-7b", "Nemotron-H-8B": "nemotron-h-8b",
            "Nemotron-3-Super": "nemotron-3-super", "LFM2-1.2B": "lfm2-1.2b",
            "LFM2-8B-A1B": "lfm2-8b-a1b", "Qwen3-Next-80B-A3B": "qwen3-next-80b-a3b",
            "Qwen3.5-27B text": "qwen3.5-27b-text",
            "Qwen3.5-397B-A17B text": "qwen3.5-397b-a17b-text",
            "Granite-4.0-H-Tiny": "granite-4.0-h-tiny", "MiniMax-Text-01": "minimax-text-01"}
"""The published configs as files in examples/hf (what docs/families.md counts)."""


@pytest.mark.parametrize(("name", "folder"), EXAMPLES.items())
def test_the_example_files_are_the_published_configs(cli: CLI, name: str, folder: str) -> None:
    """Each examples/hf file holds the published config above, and inspect counts it whole,
    with the shares (and, with experts, the parameters active per token) in a note."""
    path = Path(__file__).resolve().parent.parent / "examples" / "hf" / folder
    assert json.loads((path / "config.json").read_text()) == PUBLISHED[name][1]
    result = cli("inspect", str(path), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["total"] == PUBLISHED[name][2]
    (shares,) = [n for n in data["recurrent"][0]["notes"] if n.startswith("shares: ")]
    active = PUBLISHED[name][3]
    assert ("active per token" in shares) == (active is not None)
    assert active is None or f"{active:,} active per token" in shares


@pytest.mark.parametrize("name", [n for n in NAMES if families.has_base(n)])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_base_model_class_is_recognised(name: str, data: st.DataObject) -> None:
    """``…Model`` (no head, names without ``model.``): recognised as the base class, every
    tensor claimed, and its config writes the same tensors (Zamba2's tied shared blocks
    included; GLM-5-Next's text model is itself a base model class, with no causal LM
    around it)."""
    config = config_of(name, data.draw(STRATEGIES[name]))
    shapes = {t.name: t.shape for t in families.tensors(name, config, base=True)}
    (model,) = families.recognise(shapes)
    assert model.base and set(model.names) == set(shapes)
    assert {t.name: t.shape for t in families.tensors(model.family, model.config, base=True)
            } == shapes


def test_a_size_key_the_loader_does_not_read_is_named(cli: CLI) -> None:
    """Nemotron-H 8B's config.json carries NVIDIA's ``attention_head_dim``, which transformers'
    NemotronHConfig does not read: the answer names it and counts without it."""
    result = cli("nemotron-h", "--config", "examples/hf/nemotron-h-8b/config.json", "--json")
    assert result.code == 0, result.err
    (note,) = json.loads(result.out)["notes"]
    assert "attention_head_dim=128" in note and "NemotronHConfig" in note


@pytest.mark.parametrize("name", ["jamba", "nemotron-h", "qwen4-exp", "glm5-next"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_checkpoint_in_its_saved_layout_is_recognised(name: str, data: st.DataObject) -> None:
    """Random config → the checkpoint's names (experts one by one; Nemotron-H under
    ``backbone.`` with its routers' buffers; Qwen4-Exp's n-gram tables in row shards;
    GLM-5-Next's hyper-connections and forget gate renamed, its convs as three) →
    recognised, every parameter claimed, the buffers
    left out, the config writing the same checkpoint."""
    config = config_of(name, data.draw(STRATEGIES[name]))
    saved = {t.name: t.shape for t in families.tensors(name, config, saved=True)}
    if name == "nemotron-h" and set(config.types) == {"mamba"}:
        return  # under backbone., Mamba-2 layers alone are Mamba2ForCausalLM's checkpoint
    router = ".mlp.gate.weight" if name == "glm5-next" else "mixer.gate.weight"
    buffers = {n.replace(".gate.weight", ".gate.e_score_correction_bias"): (s[0],)
               for n, s in saved.items() if n.endswith(router)}
    found = families.recognise({**saved, **buffers})
    assert [(m.prefix, len(m.names)) for m in found] == [("", len(saved))]
    (model,) = found
    assert set(model.names) == set(saved)
    again = {t.name: t.shape for t in families.tensors(model.family, model.config,
                                                      saved=model.saved)}
    assert again == saved
