"""RWKV versions 5 to 7 against their reference source, BlinkDL's RWKV-LM.

No package builds these models on the CPU without weights (the ``rwkv`` package loads a
checkpoint; RWKV-LM's training model compiles CUDA kernels on import), so block 0's tensors
are written out here as the reference source defines them (RWKV-v5/src/model.py x052 and x060,
RWKV-v7/train_temp/src/model.py x070: each ``nn.Parameter`` and ``nn.Linear`` in the order
``__init__`` creates them), for one small configuration per version, and the LoRA widths the
source suggests for a given width. Version 4 is checked against transformers itself in
tests/test_verify_families.py.
"""

from __future__ import annotations

import pytest

from paramcount.families import rwkv

C, A, F, H, N = 64, 64, 96, 2, 32
ROW = (1, 1, C)
LN = [("ln1.weight", (C,)), ("ln1.bias", (C,)), ("ln2.weight", (C,)), ("ln2.bias", (C,)),
      ("ln0.weight", (C,)), ("ln0.bias", (C,))]
MATRICES = [("att.receptance.weight", (A, C)), ("att.key.weight", (A, C)),
            ("att.value.weight", (A, C)), ("att.output.weight", (C, A))]
LN_X = [("att.ln_x.weight", (A,)), ("att.ln_x.bias", (A,))]
FFN = [("ffn.key.weight", (F, C)), ("ffn.receptance.weight", (C, C)),
       ("ffn.value.weight", (C, F))]

BLOCK_0 = {
    5: [*LN, *((f"att.time_mix_{x}", ROW) for x in "kvrg"), ("att.time_decay", (H, N)),
        ("att.time_faaaa", (H, N)), *MATRICES, ("att.gate.weight", (A, C)), *LN_X,
        ("ffn.time_mix_k", ROW), ("ffn.time_mix_r", ROW), *FFN],
    6: [*LN, *((f"att.time_maa_{x}", ROW) for x in "xwkvrg"), ("att.time_maa_w1", (C, 5 * 8)),
        ("att.time_maa_w2", (5, 8, C)), ("att.time_decay", (1, 1, A)),
        ("att.time_decay_w1", (C, 16)), ("att.time_decay_w2", (16, A)),
        ("att.time_faaaa", (H, N)), *MATRICES, ("att.gate.weight", (A, C)), *LN_X,
        ("ffn.time_maa_k", ROW), ("ffn.time_maa_r", ROW), *FFN],
    7: [*LN, *((f"att.x_{x}", ROW) for x in "rwkvag"),
        ("att.w1", (C, 8)), ("att.w2", (8, C)), ("att.w0", ROW),
        ("att.a1", (C, 16)), ("att.a2", (16, C)), ("att.a0", ROW),
        ("att.v1", (C, 24)), ("att.v2", (24, C)), ("att.v0", ROW),
        ("att.g1", (C, 40)), ("att.g2", (40, C)),
        ("att.k_k", ROW), ("att.k_a", ROW), ("att.r_k", (H, N)), *MATRICES, *LN_X,
        ("ffn.x_k", ROW), ("ffn.key.weight", (F, C)), ("ffn.value.weight", (C, F))],
}
LORAS = {5: {}, 6: {"mix_lora": 8, "decay_lora": 16},
         7: {"decay_lora": 8, "aaa_lora": 16, "mv_lora": 24, "gate_lora": 40}}


@pytest.mark.parametrize("version", [5, 6, 7])
def test_block_0_is_the_reference_block(version: int) -> None:
    """Block 0's names and shapes, in order; the model is emb, blocks, ln_out, head."""
    config = rwkv.RwkvConfig(version=version, vocab_size=10, hidden_size=C,
                             num_hidden_layers=2, attention_hidden_size=A,
                             intermediate_size=F, head_size=N, **LORAS[version])
    made = [(t.name, t.shape) for t in rwkv.tensors(config)]
    block_0 = [(n.removeprefix("blocks.0."), s) for n, s in made if n.startswith("blocks.0.")]
    assert block_0 == BLOCK_0[version]
    block_1 = [(n.removeprefix("blocks.1."), s) for n, s in made if n.startswith("blocks.1.")]
    assert block_1 == [t for t in BLOCK_0[version] if not t[0].startswith("ln0.")]
    assert made[0] == ("emb.weight", (10, C))
    assert made[-3:] == [("ln_out.weight", (C,)), ("ln_out.bias", (C,)), ("head.weight", (10, C))]


@pytest.mark.parametrize(("version", "width", "expected"), [
    (5, 768, {"intermediate_size": 2688, "head_size": 64}),
    (6, 2048, {"intermediate_size": 7168, "mix_lora": 32, "decay_lora": 64}),
    (6, 4096, {"mix_lora": 64, "decay_lora": 128}),
    (7, 2048, {"intermediate_size": 8192, "decay_lora": 128, "aaa_lora": 128, "mv_lora": 64,
               "gate_lora": 224}),
    (7, 768, {"decay_lora": 64, "aaa_lora": 64, "mv_lora": 32, "gate_lora": 128}),
    (4, 768, {"intermediate_size": 3072, "attention_hidden_size": 768}),
], ids=["v5-ffn", "v6-2048", "v6-4096", "v7-2048", "v7-768", "v4"])
def test_auto_sizes_are_the_references(version: int, width: int,
                                       expected: dict[str, int]) -> None:
    """"auto" takes the reference's default: dim_ffn 3.5C rounded down to 32 (v5, v6) or 4C
    (v4, v7); v6's LoRA widths by C; v7's suggested max(32, round(k·√C / 32)·32)."""
    config = rwkv.RwkvConfig(version=version, hidden_size=width)
    assert {k: getattr(config, k) for k in expected} == expected


@pytest.mark.parametrize(("values", "message"), [
    ({"version": 3}, "version=3 must be 4, 5, 6 or 7"),
    ({"version": 4, "mix_lora": 8}, "mix_lora=8 is not an option of RWKV-4"),
    ({"version": 7, "hidden_size": 64, "attention_hidden_size": 128}, "must equal"),
    ({"version": 5, "hidden_size": 64, "head_size": 48}, "must be a multiple of"),
    ({"version": 6, "tie_word_embeddings": True}, "its head is its own"),
    ({"version": 5, "hidden_size": 8}, "give it"),
], ids=["version", "lora-v4", "v7-dim-att", "heads", "tie", "tiny-ffn"])
def test_refused(values: dict[str, object], message: str) -> None:
    """What the reference cannot build is one SpecError naming the option."""
    with pytest.raises(ValueError, match=message):
        rwkv.RwkvConfig(**values)  # type: ignore[arg-type]
