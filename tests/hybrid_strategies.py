"""Random small configurations of the hybrid families, as keyword arguments for transformers'
config class (lists) and for paramcount's config record (tuples): the same values."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

small = st.integers(1, 4)
bools = st.booleans()


def _rope_head(draw: st.DrawFn) -> int | None:
    """An explicit head width transformers' RoPE accepts (even, or at most 4), or None."""
    return draw(st.one_of(st.none(), st.sampled_from([1, 2, 3, 4, 6, 8])))


def _subset(draw: st.DrawFn, layers: int) -> list[int]:
    return sorted(draw(st.sets(st.integers(0, layers - 1), max_size=layers)))


@st.composite
def jamba(draw: st.DrawFn) -> dict[str, Any]:
    """JambaConfig keywords."""
    heads = draw(small)
    attn_period, expert_period = draw(small), draw(small)
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": heads * draw(small),
        "intermediate_size": draw(st.integers(1, 12)), "num_hidden_layers": draw(st.integers(1, 5)),
        "num_attention_heads": heads, "num_key_value_heads": draw(small),
        "num_experts": draw(small), "num_experts_per_tok": draw(st.integers(1, 3)),
        "attn_layer_period": attn_period,
        "attn_layer_offset": draw(st.integers(0, attn_period - 1)),
        "expert_layer_period": expert_period,
        "expert_layer_offset": draw(st.integers(0, expert_period - 1)),
        "mamba_d_state": draw(small), "mamba_d_conv": draw(small), "mamba_expand": draw(small),
        "mamba_dt_rank": draw(st.one_of(st.just("auto"), small)),
        "mamba_conv_bias": draw(bools), "mamba_proj_bias": draw(bools),
        "tie_word_embeddings": draw(bools),
        **({"head_dim": draw(small)} if draw(bools) else {}),
    }


def _mamba2_heads(draw: st.DrawFn, inner: int) -> int:
    return draw(st.sampled_from([h for h in range(1, inner + 1) if inner % h == 0]))


@st.composite
def bamba(draw: st.DrawFn) -> dict[str, Any]:
    """BambaConfig keywords."""
    heads = draw(small)
    hidden, expand = heads * draw(small), draw(st.integers(1, 2))
    layers = draw(st.integers(1, 4))
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": hidden,
        "intermediate_size": draw(st.integers(1, 12)), "num_hidden_layers": layers,
        "num_attention_heads": heads, "num_key_value_heads": draw(small),
        "attn_layer_indices": _subset(draw, layers),
        "mamba_n_heads": _mamba2_heads(draw, expand * hidden), "mamba_n_groups": draw(small),
        "mamba_d_state": draw(small), "mamba_d_conv": draw(small), "mamba_expand": expand,
        "mamba_conv_bias": draw(bools), "mamba_proj_bias": draw(bools),
        "attention_bias": draw(bools), "mlp_bias": draw(bools),
        "tie_word_embeddings": draw(bools), "mamba_chunk_size": 4,
        **({"head_dim": head} if (head := _rope_head(draw)) else {}),
    }


@st.composite
def falcon_h1(draw: st.DrawFn) -> dict[str, Any]:
    """FalconH1Config keywords."""
    heads = draw(small)
    hidden, expand = heads * draw(small), draw(st.integers(1, 2))
    d_ssm = draw(st.one_of(st.none(), st.integers(1, 12)))
    inner = d_ssm or expand * hidden
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": hidden,
        "intermediate_size": draw(st.integers(1, 12)), "num_hidden_layers": draw(small),
        "num_attention_heads": heads, "num_key_value_heads": draw(small),
        "mamba_d_ssm": d_ssm, "mamba_n_heads": _mamba2_heads(draw, inner),
        "mamba_n_groups": draw(small), "mamba_d_state": draw(small),
        "mamba_d_conv": draw(small), "mamba_expand": expand, "mamba_conv_bias": draw(bools),
        "mamba_proj_bias": draw(bools), "mamba_rms_norm": draw(bools),
        "projectors_bias": draw(bools), "attention_bias": draw(bools), "mlp_bias": draw(bools),
        "tie_word_embeddings": draw(bools), "mamba_chunk_size": 4,
        **({"head_dim": head} if (head := _rope_head(draw)) else {}),
    }


@st.composite
def lfm2(draw: st.DrawFn) -> dict[str, Any]:
    """Lfm2Config keywords (attention at full_attn_idxs, or layer_types)."""
    heads = draw(small)
    layers = draw(st.integers(1, 4))
    attending = _subset(draw, layers)
    where: dict[str, Any] = {"full_attn_idxs": attending} if draw(bools) else {
        "layer_types": ["full_attention" if i in attending else "conv" for i in range(layers)]}
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": heads * draw(small),
        "intermediate_size": draw(st.integers(3, 30)), "num_hidden_layers": layers,
        "num_attention_heads": heads, "num_key_value_heads": draw(small),
        "conv_bias": draw(bools), "conv_L_cache": draw(small),
        "block_multiple_of": draw(small),
        "block_ffn_dim_multiplier": draw(st.sampled_from([1.0, 0.75, 1.5, 2])),
        "block_auto_adjust_ff_dim": draw(bools), "tie_word_embeddings": draw(bools), **where,
        **({"head_dim": head} if (head := _rope_head(draw)) else {}),
    }


NEMOTRON_TYPES = ["linear_attention", "moe", "full_attention", "mlp"]


@st.composite
def nemotron_h(draw: st.DrawFn) -> dict[str, Any]:
    """NemotronHConfig keywords."""
    heads = draw(small)
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": draw(st.integers(1, 12)),
        "layers_block_type": draw(st.lists(st.sampled_from(NEMOTRON_TYPES), min_size=1,
                                           max_size=5)),
        "num_attention_heads": heads, "num_key_value_heads": draw(small),
        "head_dim": draw(small), "intermediate_size": draw(st.integers(1, 12)),
        "mlp_bias": draw(bools), "ssm_state_size": draw(small), "mamba_num_heads": draw(small),
        "mamba_head_dim": draw(small), "n_groups": draw(small), "conv_kernel": draw(small),
        "use_conv_bias": draw(bools), "use_bias": draw(bools),
        "n_routed_experts": draw(small), "num_experts_per_tok": draw(small),
        "moe_intermediate_size": draw(small), "moe_shared_expert_intermediate_size": draw(small),
        "moe_latent_size": draw(st.one_of(st.none(), small)),
        "tie_word_embeddings": draw(bools), "chunk_size": 4,  # (ties nothing: see nemotron_h)
    }


@st.composite
def zamba2(draw: st.DrawFn) -> dict[str, Any]:
    """Zamba2Config keywords (head widths 2·hidden / heads even or at most 4)."""
    hidden = draw(st.integers(1, 8))
    heads = draw(st.sampled_from([h for h in range(1, 2 * hidden + 1)
                                  if (2 * hidden // h) <= 4 or (2 * hidden // h) % 2 == 0]))
    types = draw(st.lists(st.sampled_from(["mamba", "hybrid"]), min_size=1, max_size=6))
    expand = draw(st.integers(1, 2))
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": hidden,
        "num_hidden_layers": len(types), "layers_block_type": types,
        "mamba_d_state": draw(small), "mamba_d_conv": draw(small), "mamba_expand": expand,
        "mamba_ngroups": draw(small), "n_mamba_heads": draw(small),
        "add_bias_linear": draw(bools),
        "intermediate_size": draw(st.one_of(st.none(), st.integers(1, 12))),
        "num_attention_heads": heads,
        "num_key_value_heads": draw(st.one_of(st.none(), small)),
        "num_mem_blocks": draw(st.integers(1, 3)),
        "use_shared_attention_adapter": draw(bools), "adapter_rank": draw(small),
        "tie_word_embeddings": draw(bools), "chunk_size": 4,
    }


@st.composite
def lfm2_moe(draw: st.DrawFn) -> dict[str, Any]:
    """Lfm2MoeConfig keywords (layer_types always: the reference has no default; one layer
    with experts at least, else the tensors are an LFM2 model's)."""
    heads = draw(small)
    layers = draw(st.integers(1, 4))
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": heads * draw(small),
        "intermediate_size": draw(st.integers(1, 12)), "num_hidden_layers": layers,
        "moe_intermediate_size": draw(small), "num_experts": draw(small),
        "num_experts_per_tok": draw(small), "num_dense_layers": draw(st.integers(0, layers - 1)),
        "num_attention_heads": heads, "num_key_value_heads": draw(small),
        "conv_bias": draw(bools), "conv_L_cache": draw(small),
        "layer_types": draw(st.lists(st.sampled_from(["conv", "full_attention"]),
                                     min_size=layers, max_size=layers)),
        "tie_word_embeddings": draw(bools),
        **({"head_dim": head} if (head := _rope_head(draw)) else {}),
    }


def _qwen_layers(draw: st.DrawFn) -> dict[str, Any]:
    """The keywords every Qwen3-Next and Qwen3.5 text config shares: attention where
    layer_types says, or every full_attention_interval-th layer."""
    layers = draw(st.integers(1, 5))
    where: dict[str, Any] = {"full_attention_interval": draw(small)} if draw(bools) else {
        "layer_types": draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]),
                                     min_size=layers, max_size=layers))}
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": draw(st.integers(1, 12)),
        "num_hidden_layers": layers, "num_attention_heads": draw(small),
        "num_key_value_heads": draw(small), "head_dim": draw(small),
        "attention_bias": draw(bools), "linear_conv_kernel_dim": draw(small),
        "linear_key_head_dim": draw(small), "linear_value_head_dim": draw(small),
        "linear_num_key_heads": draw(small), "linear_num_value_heads": draw(small),
        "tie_word_embeddings": draw(bools), **where,
    }


def _qwen_experts(draw: st.DrawFn, experts: st.SearchStrategy[int]) -> dict[str, Any]:
    return {"num_experts": draw(experts), "num_experts_per_tok": draw(small),
            "moe_intermediate_size": draw(small),
            "shared_expert_intermediate_size": draw(small)}


@st.composite
def qwen3_next(draw: st.DrawFn) -> dict[str, Any]:
    """Qwen3NextConfig keywords (no experts at all with num_experts 0)."""
    shared = _qwen_layers(draw)
    return {**shared, **_qwen_experts(draw, st.integers(0, 4)),
            "intermediate_size": draw(st.integers(1, 12)), "decoder_sparse_step": draw(small),
            "mlp_only_layers": _subset(draw, shared["num_hidden_layers"])}


@st.composite
def qwen3_5(draw: st.DrawFn) -> dict[str, Any]:
    """Qwen3_5TextConfig keywords."""
    return {**_qwen_layers(draw), "intermediate_size": draw(st.integers(1, 12))}


@st.composite
def qwen3_5_moe(draw: st.DrawFn) -> dict[str, Any]:
    """Qwen3_5MoeTextConfig keywords."""
    return {**_qwen_layers(draw), **_qwen_experts(draw, small)}


@st.composite
def qwen4_exp(draw: st.DrawFn) -> dict[str, Any]:
    """Qwen4ExpTextConfig keywords (indexed attention written either way; PLE on some linear
    layers, tables from a small prime base; the indexer given unless no layer needs it)."""
    made = {**_qwen_layers(draw), **_qwen_experts(draw, small)}
    made["num_experts_per_tok"] = min(made["num_experts_per_tok"], made["num_experts"])
    if "layer_types" in made:
        made["layer_types"] = [draw(st.sampled_from([t, "indexed_attention"]))
                               if t == "full_attention" else t for t in made["layer_types"]]
        linear = [i + 1 for i, t in enumerate(made["layer_types"]) if t == "linear_attention"]
    else:
        every = made["full_attention_interval"]
        linear = [i + 1 for i in range(made["num_hidden_layers"]) if (i + 1) % every]
    size, per = draw(st.integers(2, 3)), draw(st.integers(1, 3))
    made.update(hc_count=draw(st.integers(2, 3)), hc_lowrank=draw(small),
                ple_layer_ids=sorted(draw(st.sets(st.sampled_from(linear), max_size=2)))
                if linear else [], ngram_size=size, heads_per_ngram=per,
                ple_embed_dim=(size - 1) * per * draw(small), ple_conv_kernel_size=draw(small),
                ngram_vocab_size_base=draw(st.integers(1, 60)),
                make_ngram_vocab_size_divisible_by=draw(st.integers(1, 8)), eos_token_id=0)
    if len(linear) < made["num_hidden_layers"] or draw(bools):
        ratio = draw(small)
        made.update(indexer_n_heads=draw(small), indexer_kv_heads=1,
                    indexer_head_dim=made["head_dim"] + draw(st.integers(0, 3)),
                    indexer_compress_ratio=ratio, indexer_budget=ratio * draw(small))
    return made


@st.composite
def granitemoehybrid(draw: st.DrawFn) -> dict[str, Any]:
    """GraniteMoeHybridConfig keywords (mamba_n_heads dividing the Mamba-2 width; no experts
    with num_local_experts 0)."""
    heads = draw(small)
    hidden, expand = heads * draw(small), draw(st.integers(1, 2))
    layers = draw(st.integers(1, 4))
    where = {"layer_types": draw(st.lists(st.sampled_from(
        ["mamba", "attention", "linear_attention", "full_attention"]), min_size=layers,
        max_size=layers))} if draw(bools) else {}
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": hidden,
        "intermediate_size": draw(st.integers(1, 12)), "num_hidden_layers": layers,
        "num_attention_heads": heads, "num_key_value_heads": draw(st.one_of(st.none(), small)),
        "attention_bias": draw(bools), "num_local_experts": draw(st.integers(0, 3)),
        "num_experts_per_tok": draw(small), "shared_intermediate_size": draw(small),
        "mamba_n_heads": _mamba2_heads(draw, expand * hidden), "mamba_n_groups": draw(small),
        "mamba_d_state": draw(small), "mamba_d_conv": draw(small), "mamba_expand": expand,
        "mamba_conv_bias": draw(bools), "mamba_proj_bias": draw(bools),
        "tie_word_embeddings": draw(bools), "mamba_chunk_size": 4, **where,
        **({"head_dim": head} if (head := _rope_head(draw)) else {}),
    }


@st.composite
def minimax(draw: st.DrawFn) -> dict[str, Any]:
    """MiniMaxConfig keywords (lightning and full attention where layer_types says, or
    alternating)."""
    heads = draw(small)
    layers = draw(st.integers(1, 4))
    where = {"layer_types": draw(st.lists(st.sampled_from(
        ["linear_attention", "full_attention"]), min_size=layers, max_size=layers))} if draw(
        bools) else {}
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": heads * draw(small),
        "intermediate_size": draw(st.integers(1, 12)), "num_hidden_layers": layers,
        "num_attention_heads": heads, "num_key_value_heads": draw(small),
        "num_local_experts": draw(small), "num_experts_per_tok": draw(small),
        "tie_word_embeddings": draw(bools), **where,
        **({"head_dim": head} if (head := _rope_head(draw)) else {}),
    }


@st.composite
def lfm3(draw: st.DrawFn) -> dict[str, Any]:
    """Lfm3Config keywords (layer_types, or the default placement; sandwich norms where every
    layer is a convolution, else the tensors are an LFM2 model's)."""
    layers = draw(st.integers(1, 6))
    where = {"layer_types": draw(st.lists(st.sampled_from(
        ["conv", "full_attention", "sliding_attention"]), min_size=layers, max_size=layers))
    } if draw(bools) else {}
    convs = where["layer_types"].count("conv") if where else sum(
        1 for i in range(layers) if i % 4 != 2 and (i % 4 or not i))
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": draw(st.integers(1, 12)),
        "intermediate_size": draw(st.integers(1, 12)), "num_hidden_layers": layers,
        "num_attention_heads": draw(small), "num_key_value_heads": draw(small),
        "head_dim": draw(st.sampled_from([2, 4, 6, 8])), "conv_bias": draw(bools),
        "conv_L_cache": draw(small), "attention_bias": draw(bools),
        "use_attention_gate": draw(bools),
        "use_sandwich_norm": convs == layers or draw(bools),
        "tie_word_embeddings": draw(bools), "pad_token_id": 0, **where,
    }


@st.composite
def olmo_hybrid(draw: st.DrawFn) -> dict[str, Any]:
    """OlmoHybridConfig keywords (a linear and an attention layer at least; the DeltaNet's
    heads and widths given or derived)."""
    heads = draw(small)
    layers = draw(st.integers(2, 5))
    types = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]),
                          min_size=layers, max_size=layers).filter(
        lambda t: len(set(t)) == 2))
    given = draw(bools)
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": heads * draw(st.integers(2, 4)),
        "intermediate_size": draw(st.integers(1, 12)), "num_hidden_layers": layers,
        "num_attention_heads": heads, "num_key_value_heads": draw(st.one_of(st.none(), small)),
        "attention_bias": draw(bools), "layer_types": types,
        "linear_conv_kernel_dim": draw(small), "tie_word_embeddings": draw(bools),
        "pad_token_id": 0,
        **({"linear_num_key_heads": draw(small), "linear_num_value_heads": draw(small),
            "linear_key_head_dim": draw(small), "linear_value_head_dim": draw(small)}
           if given else {}),
    }


@st.composite
def lara_mini(draw: st.DrawFn) -> dict[str, Any]:
    """LaraMiniConfig keywords (heads a multiple of the key/value heads, value heads of the
    key heads)."""
    kv, key_heads = draw(small), draw(small)
    layers = draw(st.integers(1, 6))
    where = {"layer_types": draw(st.lists(st.sampled_from(
        ["linear_attention", "full_attention", "sliding_attention"]), min_size=layers,
        max_size=layers))} if draw(bools) else {}
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": draw(st.integers(1, 12)),
        "num_hidden_layers": layers, "num_attention_heads": kv * draw(small),
        "num_key_value_heads": kv, "head_dim": draw(small), "attention_bias": draw(bools),
        "linear_conv_kernel_dim": draw(small), "linear_key_head_dim": draw(small),
        "linear_value_head_dim": draw(small), "linear_num_key_heads": key_heads,
        "linear_num_value_heads": key_heads * draw(small),
        **_qwen_experts(draw, small), "tie_word_embeddings": draw(bools), **where,
    }


@st.composite
def zamba(draw: st.DrawFn) -> dict[str, Any]:
    """ZambaConfig keywords (n_mamba_heads dividing the Mamba width; layers_block_type, or the
    default placement of three layers and more)."""
    hidden, expand = draw(st.integers(1, 8)), draw(st.integers(1, 2))
    layers = draw(st.integers(3, 7))
    where = {"layers_block_type": draw(st.lists(st.sampled_from(["mamba", "hybrid"]),
                                                min_size=layers, max_size=layers))} if draw(
        bools) else {"attn_layer_period": draw(small),
                     "attn_layer_offset": draw(st.integers(0, 3))}
    heads = draw(st.sampled_from([h for h in range(1, 2 * hidden + 1)
                                  if (2 * hidden // h) <= 4 or (2 * hidden // h) % 2 == 0]))
    types = where.get("layers_block_type") or ["mamba", "mamba", "hybrid"] + [
        "hybrid" if i % where["attn_layer_period"] == where["attn_layer_offset"] else "mamba"
        for i in range(layers - 3)]
    return {  # tied with one hybrid layer, transformers cannot build it (a test says so)
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": hidden,
        "intermediate_size": draw(st.integers(1, 12)), "num_hidden_layers": layers,
        "num_attention_heads": heads, "num_key_value_heads": draw(small),
        "tie_word_embeddings": types.count("hybrid") != 1 and draw(bools),
        "n_mamba_heads": _mamba2_heads(draw, expand * hidden), "mamba_d_state": draw(small),
        "mamba_d_conv": draw(small), "mamba_expand": expand,
        "mamba_dt_rank": draw(st.one_of(st.just("auto"), small)),
        "mamba_conv_bias": draw(bools), "mamba_proj_bias": draw(bools),
        "pad_token_id": 0, **where,
    }


@st.composite
def latent_layout(draw: st.DrawFn, types_else: dict[str, Any], mlps_else: dict[str, Any]
                  ) -> dict[str, Any]:
    """The keywords Kimi Linear's and Ling's configs share (layer and MLP types given, or
    ``types_else`` and ``mlps_else``; q through a low rank or not)."""
    layers = draw(st.integers(1, 6))
    types = {"layer_types": draw(st.lists(st.sampled_from(
        ["linear_attention", "full_attention"]), min_size=layers, max_size=layers))} if draw(
        bools) else types_else
    mlps = {"mlp_layer_types": draw(st.lists(st.sampled_from(["dense", "sparse"]),
                                             min_size=layers, max_size=layers))} if draw(
        bools) else mlps_else
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": draw(st.integers(1, 12)),
        "intermediate_size": draw(st.integers(1, 12)), "moe_intermediate_size": draw(small),
        "num_hidden_layers": layers, "num_attention_heads": draw(small),
        "n_shared_experts": draw(small), "kv_lora_rank": draw(small),
        "q_lora_rank": draw(st.one_of(st.none(), small)),
        "qk_rope_head_dim": draw(st.sampled_from([2, 4])), "v_head_dim": draw(small),
        "qk_nope_head_dim": draw(small), "num_experts_per_tok": draw(small),
        "attention_bias": draw(bools), "num_local_experts": draw(small),
        "tie_word_embeddings": draw(bools), "pad_token_id": 0, **types, **mlps,
    }


@st.composite
def kimi_linear(draw: st.DrawFn) -> dict[str, Any]:
    """KimiLinearConfig keywords (layer and MLP types given, or the defaults)."""
    return {**draw(latent_layout({}, {})), "linear_head_dim": draw(small),
            "linear_num_heads": draw(small), "linear_conv_kernel_dim": draw(small)}


@st.composite
def bailing_hybrid(draw: st.DrawFn) -> dict[str, Any]:
    """BailingHybridConfig keywords (layer and MLP types given, or placed by
    ``layer_group_size`` and ``first_k_dense_replace``; the delta attention's heads apart from
    the latent attention's, or not)."""
    made = draw(latent_layout({"layer_group_size": draw(small)},
                              {"first_k_dense_replace": draw(st.integers(0, 3))}))
    apart = {"linear_num_heads": draw(small)} if draw(bools) else {}
    return {**made, "head_dim": draw(small), "short_conv_kernel_size": draw(small),
            "eos_token_id": 0, **apart}


@st.composite
def zaya(draw: st.DrawFn) -> dict[str, Any]:
    """ZayaConfig keywords (full and sliding layers, or the default; tied or not, with a head
    bias or not; the CCA's two kernels)."""
    layers = draw(st.integers(1, 5))
    kv = draw(small)
    types = {"layer_types": draw(st.lists(st.sampled_from(["hybrid", "hybrid_sliding"]),
                                          min_size=layers, max_size=layers)),
             "sliding_window": draw(st.integers(1, 8))} if draw(bools) else {}
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": draw(st.integers(1, 12)),
        "num_hidden_layers": layers, "num_attention_heads": kv * draw(st.integers(1, 3)),
        "num_key_value_heads": kv, "head_dim": draw(small),
        "moe_intermediate_size": draw(small), "num_experts": draw(small),
        "router_hidden_size": draw(small), "cca_time0": draw(st.integers(1, 4)),
        "cca_time1": draw(st.integers(1, 4)), "attention_bias": draw(bools),
        "lm_head_bias": draw(bools), "tie_word_embeddings": draw(bools), "pad_token_id": 0,
        "bos_token_id": 0, "eos_token_id": 0, **types,
    }


@st.composite
def inkling(draw: st.DrawFn) -> dict[str, Any]:
    """InklingTextConfig keywords (layer types given, placed by ``local_layer_ids`` or by
    default; MLP types given, or dense before ``dense_mlp_idx``; a tie transformers ignores)."""
    layers = draw(st.integers(1, 7))
    kinds = st.lists(st.sampled_from(["hybrid", "hybrid_sliding"]), min_size=layers,
                     max_size=layers)
    where = draw(st.sampled_from(["types", "local", "default"]))
    types = {"layer_types": draw(kinds)} if where == "types" else {
        "local_layer_ids": draw(st.lists(st.integers(0, layers - 1), unique=True))
    } if where == "local" else {}
    mlps = {"mlp_layer_types": draw(st.lists(st.sampled_from(["dense", "sparse"]),
                                             min_size=layers, max_size=layers))} if draw(
        bools) else {"dense_mlp_idx": draw(st.integers(0, layers))}
    return {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": draw(st.integers(1, 12)),
        "num_hidden_layers": layers, "num_attention_heads": draw(small),
        "num_key_value_heads": draw(small), "head_dim": draw(small),
        "swa_num_attention_heads": draw(small), "swa_num_key_value_heads": draw(small),
        "swa_head_dim": draw(small), "sliding_window_size": draw(st.integers(1, 9)),
        "d_rel": draw(small), "rel_extent": draw(st.integers(1, 9)),
        "conv_kernel_size": draw(small), "intermediate_size": draw(st.integers(1, 12)),
        "moe_intermediate_size": draw(small), "n_routed_experts": draw(small),
        "num_experts_per_tok": draw(small), "n_shared_experts": draw(small),
        "tie_word_embeddings": draw(bools), **types, **mlps,
    }


@st.composite
def inkling2(draw: st.DrawFn) -> dict[str, Any]:
    """Inkling2TextConfig keywords (layer types given or by default; a head narrower or wider
    than the vocabulary; a tie transformers ignores)."""
    layers = draw(st.integers(1, 7))
    types = {"layer_types": draw(st.lists(st.sampled_from(["hybrid", "hybrid_sliding"]),
                                          min_size=layers, max_size=layers))} if draw(
        bools) else {}
    return {
        "vocab_size": draw(st.integers(1, 40)), "unpadded_vocab_size": draw(st.integers(1, 40)),
        "hidden_size": draw(st.integers(1, 12)), "num_hidden_layers": layers,
        "num_attention_heads": draw(small), "num_key_value_heads": draw(small),
        "head_dim": draw(small), "swa_num_attention_heads": draw(small),
        "swa_num_key_value_heads": draw(small), "swa_head_dim": draw(small),
        "sliding_window_size": draw(st.integers(1, 9)), "d_rel": draw(small),
        "rel_extent": draw(st.integers(1, 9)), "conv_kernel_size": draw(small),
        "moe_intermediate_size": draw(small), "n_routed_experts": draw(small),
        "num_experts_per_tok": draw(small), "tie_word_embeddings": draw(bools), **types,
    }


@st.composite
def inkling2_loop(draw: st.DrawFn) -> dict[str, Any]:
    """Inkling2LoopTextConfig keywords: Inkling 2's, and a loop whose ends are multiples of
    ``n_layers_per_attn_res_block`` (past the layers, or none, sometimes)."""
    block = draw(st.integers(1, 3))
    start = block * draw(st.integers(1, 3))
    return {**draw(inkling2()), "n_layers_per_attn_res_block": block,
            "loop_layer_index_start": start,
            "loop_layer_index_end": start + block * draw(st.integers(0, 2)),
            "loop_num_passes": draw(small), "loop_gate_rank": draw(small)}


@st.composite
def glm5_next(draw: st.DrawFn) -> dict[str, Any]:
    """Glm5NextTextConfig keywords (layer, MLP and indexer types given, or the defaults;
    indexed attention written either way; the index pool dividing index_topk)."""
    layers, heads, pool = draw(st.integers(1, 5)), draw(small), draw(small)

    def kinds(names: list[str]) -> list[str] | None:
        return draw(st.one_of(st.none(), st.lists(st.sampled_from(names), min_size=layers,
                                                  max_size=layers)))

    made = {
        "vocab_size": draw(st.integers(1, 40)), "hidden_size": draw(st.integers(1, 12)),
        "intermediate_size": draw(small), "moe_intermediate_size": draw(small),
        "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": heads,
        "n_shared_experts": draw(small), "n_routed_experts": draw(small),
        "num_experts_per_tok": draw(small), "kv_lora_rank": draw(small),
        "q_lora_rank": draw(small), "v_head_dim": draw(small), "qk_nope_head_dim": draw(small),
        "attention_bias": draw(bools), "index_kpool": pool, "index_topk": pool * draw(small),
        "index_head_dim": draw(small), "index_n_heads": draw(small),
        "linear_head_dim": draw(small), "linear_num_heads": draw(small),
        "linear_conv_kernel_dim": draw(small), "hc_mult": draw(small), "pad_token_id": 0,
        "layer_types": kinds(["linear_attention", "indexed_attention", "full_attention"]),
        "mlp_layer_types": kinds(["dense", "sparse"]), "indexer_types": kinds(["full", "shared"]),
    }
    return {k: v for k, v in made.items() if v is not None}


STRATEGIES = {"jamba": jamba(), "bamba": bamba(), "zamba2": zamba2(),
              "falcon-h1": falcon_h1(), "nemotron-h": nemotron_h(), "lfm2": lfm2(),
              "lfm2-moe": lfm2_moe(), "qwen3-next": qwen3_next(), "qwen3.5": qwen3_5(),
              "qwen3.5-moe": qwen3_5_moe(), "granitemoehybrid": granitemoehybrid(),
              "minimax": minimax(), "lfm3": lfm3(), "olmo-hybrid": olmo_hybrid(),
              "lara-mini": lara_mini(), "zamba": zamba(), "kimi-linear": kimi_linear(),
              "bailing-hybrid": bailing_hybrid(), "zaya": zaya(),
              "qwen4-exp": qwen4_exp(),
              "inkling": inkling(), "inkling2": inkling2(),
              "inkling2-loop": inkling2_loop(), "glm5-next": glm5_next()}
"""Each hybrid's strategy, by command name."""

NEEDED: dict[str, dict[str, int]] = {"qwen4-exp": {
    "indexer_n_heads": 16, "indexer_kv_heads": 1, "indexer_head_dim": 256,
    "indexer_budget": 2048, "indexer_compress_ratio": 64}}
"""The fields a family's defaults lack for a model to be built (Qwen4-Exp's QSA indexer has
no default: transformers' config takes that, its model cannot be built)."""


def needed_flags(name: str) -> list[str]:
    """:data:`NEEDED`'s fields of family ``name`` as its command's options."""
    return [f for field, value in NEEDED.get(name, {}).items()
            for f in ("--" + field.replace("_", "-"), str(value))]


REFERENCE_ONLY = ("mamba_chunk_size", "chunk_size", "pad_token_id", "eos_token_id",
                  "bos_token_id")
"""Keywords the reference needs for small models that do not shape parameters."""


NEVER_TIED = ("nemotron-h", "kimi-linear", "bailing-hybrid", "inkling", "inkling2",
              "inkling2-loop")
"""The hybrids whose causal LM ties nothing, whatever ``tie_word_embeddings`` says."""


def ours(raw: dict[str, Any], name: str = "") -> dict[str, Any]:
    """The same values as paramcount's config record takes them (tuples for lists; Nemotron-H,
    Kimi Linear, Ling 3 and Inkling (1 and 2) have no ``tie_word_embeddings``: transformers
    ties nothing in them)."""
    skip = (*REFERENCE_ONLY,
            *(("tie_word_embeddings",) if name in NEVER_TIED else ()))
    return {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items() if k not in skip}
