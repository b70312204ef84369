"""A config.json is read as the class that loads it reads it: the published layouts of every
family (transformers', the original repository's, a file mixing both), the issue's examples,
base model classes, and the three routes (``inspect DIR``, ``FAMILY --config``, flags)
agreeing; the counts checked against transformers built on the meta device."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.families import registry as families
from tests.conftest import CLI, have

REFERENCE = pytest.mark.skipif(not (have("torch") and have("transformers")),
                               reason="torch and transformers are not installed")
ROOT = Path(__file__).resolve().parent.parent

CAUSAL = {"mamba": "MambaForCausalLM", "falcon_mamba": "FalconMambaForCausalLM",
          "mamba2": "Mamba2ForCausalLM", "rwkv": "RwkvForCausalLM",
          "xlstm": "xLSTMForCausalLM", "recurrent_gemma": "RecurrentGemmaForCausalLM"}
"""The class transformers' AutoModelForCausalLM builds for each model_type."""


def reference(data: dict[str, Any]) -> list[tuple[str, tuple[int, ...]]]:
    """``named_parameters()`` of the model transformers loads from ``data``: the config class
    of its ``model_type`` (``from_dict``, as ``from_pretrained`` reads a file), the class its
    ``architectures`` names (the causal LM where it names none), built on the meta device."""
    import torch
    import transformers

    values = dict(data)
    model_type = values.pop("model_type")
    cls = (values.get("architectures") or [CAUSAL[model_type]])[0]
    if model_type == "xlstm":  # the published Triton kernel is not on this machine; no shapes
        values["chunkwise_kernel"] = "chunkwise--native_autograd"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.CONFIG_MAPPING[model_type].from_dict(values)
        with torch.device("meta"):
            model = getattr(transformers, cls)(config)
    return [(n, tuple(p.shape)) for n, p in model.named_parameters()]


def ours(data: dict[str, Any]) -> tuple[str, list[tuple[str, tuple[int, ...]]], Any]:
    """The family, the tensors paramcount reads from ``data``, and its reading."""
    name = families.family_of(data)
    assert name is not None
    reading = families.load(name, data)
    made = families.tensors(name, reading.config, reading.base)
    return name, [(t.name, t.shape) for t in made], reading


def total(tensors: list[tuple[str, tuple[int, ...]]]) -> int:
    """The parameters of (name, shape) pairs."""
    count = 0
    for _, shape in tensors:
        size = 1
        for n in shape:
            size *= n
        count += size
    return count


MAMBA_HF = {
    "architectures": ["MambaForCausalLM"], "bos_token_id": 0, "conv_kernel": 4,
    "d_model": 2560, "eos_token_id": 0, "expand": 2, "fused_add_norm": True,
    "hidden_act": "silu", "hidden_size": 2560, "initializer_range": 0.1,
    "intermediate_size": 5120, "layer_norm_epsilon": 1e-05, "model_type": "mamba",
    "n_layer": 64, "num_hidden_layers": 64, "pad_token_id": 0, "pad_vocab_size_multiple": 8,
    "rescale_prenorm_residual": False, "residual_in_fp32": True, "rms_norm": True,
    "state_size": 16, "time_step_floor": 0.0001, "time_step_init_scheme": "random",
    "time_step_max": 0.1, "time_step_min": 0.001, "time_step_rank": 160,
    "time_step_scale": 1.0, "torch_dtype": "float32", "transformers_version": "4.39.0.dev0",
    "use_bias": False, "use_cache": True, "use_conv_bias": True, "vocab_size": 50280}
"""A state-spaces ``-hf`` conversion as published: both layouts' keys (mamba-2.8b-hf)."""

FALCON: dict[str, Any] = json.loads(
    (ROOT / "examples/hf/falcon-mamba-7b/config.json").read_text())
"""Falcon-Mamba-7B's layout (examples/hf): an ``expand`` its ``intermediate_size`` overrides."""

LAYOUTS: dict[str, dict[str, Any]] = {
    # the issue's three examples first
    "mamba-hf-both-layouts": MAMBA_HF,
    "mamba-stale-d_model": {**MAMBA_HF, "hidden_size": 4096, "intermediate_size": 8192,
                            "time_step_rank": 256, "vocab_size": 65024,
                            "tie_word_embeddings": False},
    "mamba-without-d_model": {k: v for k, v in {
        **MAMBA_HF, "hidden_size": 1536, "intermediate_size": 3072, "time_step_rank": 96,
        "n_layer": 48, "num_hidden_layers": 48}.items() if k != "d_model"},
    "mamba-transformers": {k: v for k, v in MAMBA_HF.items() if k not in (
        "d_model", "n_layer", "fused_add_norm", "pad_vocab_size_multiple", "rms_norm")},
    "mamba-base-class": {**MAMBA_HF, "architectures": ["MambaModel"],
                         "tie_word_embeddings": False},
    "falcon_mamba": FALCON,
    "falcon_mamba-base-class": {**FALCON, "architectures": ["FalconMambaModel"]},
    "mamba2-transformers": {
        "architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "num_heads": 128,
        "head_dim": 64, "hidden_size": 4096, "expand": 2, "n_groups": 8, "state_size": 128,
        "num_hidden_layers": 64, "vocab_size": 32768, "conv_kernel": 4,
        "tie_word_embeddings": False, "use_bias": False, "use_conv_bias": True},
    "mamba2-mixed": {
        "model_type": "mamba2", "d_model": 2048, "n_layer": 48,
        "ssm_cfg": {"layer": "Mamba2", "d_state": 64}, "pad_vocab_size_multiple": 16,
        "tie_embeddings": True, "hidden_size": 1024, "num_heads": 32, "head_dim": 64,
        "n_groups": 1, "num_hidden_layers": 24, "vocab_size": 50288},
    "mamba2-base-class": {"architectures": ["Mamba2Model"], "model_type": "mamba2",
                          "num_heads": 8, "head_dim": 64, "hidden_size": 256, "n_groups": 2,
                          "num_hidden_layers": 4, "vocab_size": 1000},
    "rwkv-transformers": {"architectures": ["RwkvForCausalLM"], "model_type": "rwkv",
                          "vocab_size": 50277, "hidden_size": 768, "num_hidden_layers": 12,
                          "attention_hidden_size": 768, "intermediate_size": 3072,
                          "context_length": 1024, "tie_word_embeddings": False},
    "rwkv-base-class": {"architectures": ["RwkvModel"], "model_type": "rwkv",
                        "vocab_size": 1000, "hidden_size": 64, "num_hidden_layers": 3},
    "xlstm-transformers": json.loads((ROOT / "examples/hf/xlstm-7b/config.json").read_text()),
    "xlstm-base-class": {**json.loads((ROOT / "examples/hf/xlstm-7b/config.json").read_text()),
                         "architectures": ["xLSTMModel"], "num_blocks": 2},
    "recurrent_gemma-transformers": json.loads(
        (ROOT / "examples/hf/recurrentgemma-2b/config.json").read_text()),
    "recurrent_gemma-base-class": {
        **json.loads((ROOT / "examples/hf/recurrentgemma-2b/config.json").read_text()),
        "architectures": ["RecurrentGemmaModel"], "num_hidden_layers": 4},
}
"""Configs as the published repositories ship them, and edited as users edit them."""


@REFERENCE
@pytest.mark.torch
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_a_published_layout_gives_the_references_tensors(name: str) -> None:
    """Read as the class the file names reads it: every tensor's name and shape, in order,
    is what that class builds from the same file."""
    data = LAYOUTS[name]
    _, tensors, reading = ours(data)
    assert tensors == reference(data)
    assert reading.base == name.endswith("base-class")


ISSUE = [("mamba-hf-both-layouts", 2_768_345_600),
         ("mamba-stale-d_model", 7_272_665_088),
         ("mamba-without-d_model", 793_204_224)]
"""The issue's examples: counted as another model (2.81 B, 2.81 B, 2.11 B) before."""


@pytest.mark.parametrize(("name", "expected"), ISSUE, ids=[n for n, _ in ISSUE])
def test_the_issues_examples(name: str, expected: int) -> None:
    """A -hf conversion, a copied config edited to a new size and one without d_model give
    the loader's count (checked against transformers above), and name d_model where the
    loader ignored it."""
    data = LAYOUTS[name]
    _, tensors, reading = ours(data)
    assert total(tensors) == expected  # docs/families.md's table
    assert reading.loader == "transformers MambaConfig"
    if "d_model" in data:
        (note,) = [n for n in reading.notes if "d_model" in n]
        assert f"d_model={data['d_model']} (it reads hidden_size={data['hidden_size']})" in note


def test_mamba_ssm_layout_is_read_only_where_the_file_says_so() -> None:
    """mamba_ssm's own file (no model_type, no architectures) keeps its reading, and names
    the transformers keys beside it that mamba_ssm ignores."""
    data = {"d_model": 768, "n_layer": 24, "vocab_size": 50277, "ssm_cfg": {},
            "pad_vocab_size_multiple": 8, "hidden_size": 1024}
    name, tensors, reading = ours(data)
    assert (name, total(tensors), reading.loader) == ("mamba", 129_135_360,
                                                      "mamba_ssm MambaConfig")
    assert any("hidden_size=1024 (it reads d_model=768)" in note for note in reading.notes)


def test_an_unknown_size_key_is_named() -> None:
    """A key no layout knows whose name says size is named in the answer, never dropped (in
    mamba_ssm's ssm_cfg too)."""
    data = {**LAYOUTS["mamba-transformers"], "num_experts": 8, "rope_theta": 10000.0}
    _, _, reading = ours(data)
    (note,) = [n for n in reading.notes if "does not know" in n]
    assert "num_experts=8" in note and "rope_theta" not in note
    data = {"d_model": 64, "n_layer": 2, "ssm_cfg": {"layer": "Mamba2", "n_experts": 4,
                                                     "dt_min": 0.001}}
    _, _, reading = ours(data)
    (note,) = [n for n in reading.notes if "does not know" in n]
    assert "n_experts=4" in note and "dt_min" not in note


RWKV7: dict[str, Any] = json.loads(
    (ROOT / "examples/hf/rwkv7-1.5b-fla/config.json").read_text())
"""fla-hub's RWKV-7 1.5B config.json layout, with its LoRA widths."""


def test_rwkv7_lora_width_keys_are_honoured() -> None:
    """fla's LoRA width keys give the widths; the suggested ones counted 3,145,728 more; the
    answer names what fla's own model lacks (layer 0's value LoRA)."""
    _, tensors, reading = ours(RWKV7)
    config = reading.config
    assert (config.decay_lora, config.aaa_lora, config.mv_lora, config.gate_lora) == (
        96, 96, 64, 256)
    suggested = families.config_class("rwkv")(version=7, vocab_size=65536, hidden_size=2048,
                                               num_hidden_layers=24)
    assert total([(t.name, t.shape) for t in families.family("rwkv").tensors(suggested)]) - \
        total(tensors) == 3_145_728
    layer0 = 2 * 2048 * 64 + 2048
    assert any(f"{total(tensors) - layer0:,}" in note for note in reading.notes)
    assert total(tensors) == 1_527_668_736  # docs/families.md's table


def routes(cli: CLI, tmp_path: Path, data: dict[str, Any]) -> list[int]:
    """The totals of ``inspect DIR`` (config.json alone), ``FAMILY --config`` and the flags
    paramcount writes for the config (with ``--base`` for a base model class)."""
    name, _, reading = ours(data)
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(data))
    totals = []
    for args in (["inspect", str(folder)], [name, "--config", str(folder / "config.json")],
                 [*families.command_line(name, reading.config).split()[1:],
                  *(["--base"] if reading.base else [])]):
        result = cli(*args, "--json")
        assert result.code == 0, result.err
        totals.append(json.loads(result.out)["total"])
    return totals


@pytest.mark.parametrize("name", [*LAYOUTS, "rwkv7"])
def test_the_three_routes_agree(cli: CLI, tmp_path: Path, name: str) -> None:
    """inspect DIR, FAMILY --config and the flags count every config in these tests alike."""
    data = RWKV7 if name == "rwkv7" else LAYOUTS[name]
    expected = total(ours(data)[1])
    assert routes(cli, tmp_path, data) == [expected] * 3


@st.composite
def config_files(draw: st.DrawFn) -> dict[str, Any]:
    """A random transformers-layout config.json of Mamba, Falcon-Mamba, Mamba-2 or RWKV-4,
    perhaps with stale mamba_ssm keys beside it and naming the base model class."""
    model_type = draw(st.sampled_from(["mamba", "falcon_mamba", "mamba2", "rwkv"]))
    data: dict[str, Any] = {"model_type": model_type,
                            "vocab_size": draw(st.integers(1, 64)),
                            "num_hidden_layers": draw(st.integers(1, 3)),
                            "tie_word_embeddings": draw(st.booleans())}
    if model_type == "rwkv":
        data["hidden_size"] = draw(st.integers(1, 32))
        for key in ("attention_hidden_size", "intermediate_size"):
            if draw(st.booleans()):
                data[key] = draw(st.integers(1, 48))
    else:
        data.update(conv_kernel=draw(st.integers(1, 5)), use_bias=draw(st.booleans()),
                    use_conv_bias=draw(st.booleans()), state_size=draw(st.integers(1, 8)))
    if model_type in ("mamba", "falcon_mamba"):
        data.update(hidden_size=draw(st.integers(1, 40)), expand=draw(st.integers(1, 3)),
                    time_step_rank=draw(st.one_of(st.just("auto"), st.integers(1, 6))))
        if draw(st.booleans()):
            data["intermediate_size"] = draw(st.integers(1, 90))
    if model_type == "mamba2":
        heads, head_dim = draw(st.integers(1, 6)), draw(st.integers(1, 6))
        inner = heads * head_dim
        hidden = draw(st.sampled_from([d for d in range(1, inner + 1) if inner % d == 0]))
        data.update(hidden_size=hidden, expand=inner // hidden, num_heads=heads,
                    head_dim=head_dim, n_groups=draw(st.integers(1, 3)))
    if draw(st.booleans()):  # a copied file's stale mamba_ssm keys
        data.update(d_model=draw(st.integers(1, 64)), n_layer=draw(st.integers(1, 4)),
                    ssm_cfg={"d_state": draw(st.integers(1, 9))}, tie_embeddings=True,
                    pad_vocab_size_multiple=8)
    if draw(st.booleans()):
        prefix = CAUSAL[model_type].removesuffix("ForCausalLM")
        data["architectures"] = [prefix + draw(st.sampled_from(["ForCausalLM", "Model"]))]
    return data


@REFERENCE
@pytest.mark.torch
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=config_files())
def test_random_config_files_match_the_reference(data: dict[str, Any]) -> None:
    """Random config.json files, stale keys of another layout included: every tensor as the
    class that loads the file builds it."""
    assert ours(data)[1] == reference(data)
