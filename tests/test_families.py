"""The Mamba and Mamba-2 conventions: closed forms, config.json, recognition, and the registry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.errors import ConfigError, SpecError
from paramcount.families import mamba, mamba2, rwkv
from paramcount.families import registry as families
from paramcount.families.report import build_family_report
from paramcount.record import replace

small = st.integers(1, 6)


@st.composite
def mamba_configs(draw: st.DrawFn) -> mamba.MambaConfig:
    """A random small MambaConfig (its mixer's width set apart from expand · D or not)."""
    return mamba.MambaConfig(
        vocab_size=draw(st.integers(1, 40)), hidden_size=draw(st.integers(1, 40)),
        state_size=draw(small), num_hidden_layers=draw(small), expand=draw(st.integers(1, 3)),
        intermediate_size=draw(st.one_of(st.just("auto"), st.integers(1, 90))),
        conv_kernel=draw(small), use_bias=draw(st.booleans()), use_conv_bias=draw(st.booleans()),
        time_step_rank=draw(st.one_of(st.just("auto"), small)),
        tie_word_embeddings=draw(st.booleans()))


@st.composite
def mamba2_configs(draw: st.DrawFn) -> mamba2.Mamba2Config:
    """A random small Mamba2Config (expand · hidden_size = num_heads · head_dim)."""
    heads, head_dim = draw(small), draw(small)
    inner = heads * head_dim
    hidden = draw(st.sampled_from([d for d in range(1, inner + 1)
                                   if inner % d == 0 and inner // d <= 4]))
    return mamba2.Mamba2Config(
        num_heads=heads, head_dim=head_dim, vocab_size=draw(st.integers(1, 40)),
        hidden_size=hidden, state_size=draw(small), num_hidden_layers=draw(small),
        expand=inner // hidden, conv_kernel=draw(small), n_groups=draw(st.integers(1, 3)),
        use_bias=draw(st.booleans()), use_conv_bias=draw(st.booleans()),
        tie_word_embeddings=draw(st.booleans()))


@st.composite
def rwkv_configs(draw: st.DrawFn) -> rwkv.RwkvConfig:
    """A random small RwkvConfig of any version, LoRA widths drawn or left "auto"."""
    version = draw(st.sampled_from(rwkv.VERSIONS))
    head = draw(st.integers(1, 4))
    hidden = head * draw(st.integers(1, 4))
    maybe = st.one_of(st.just("auto"), st.integers(1, 9))
    loras = {name: draw(maybe) for name in rwkv.USED_LORAS[version]}
    if version > 4:
        loras["head_size"] = head
    return rwkv.RwkvConfig(
        version=version, vocab_size=draw(st.integers(1, 40)), hidden_size=hidden,
        num_hidden_layers=draw(small),
        attention_hidden_size=hidden if version == 7 else head * draw(st.integers(1, 4)),
        intermediate_size=draw(st.integers(1, 50) if version in (5, 6) and hidden < 10
                               else st.one_of(st.just("auto"), st.integers(1, 50))),
        tie_word_embeddings=version == 4 and draw(st.booleans()), **loras)


CONFIGS = {"mamba": mamba_configs(), "mamba2": mamba2_configs(), "rwkv": rwkv_configs()}


@pytest.mark.parametrize("name", list(CONFIGS))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_formula_equals_the_tensors(name: str, data: st.DataObject) -> None:
    """The closed form's total, computed on its own, equals the sum of the tensors."""
    config = data.draw(CONFIGS[name])
    module = families.family(name)
    assert module.formula(config).total == sum(t.count for t in module.tensors(config))


@pytest.mark.parametrize("name", list(CONFIGS))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_recognition_inverts_the_tensors(name: str, data: st.DataObject) -> None:
    """Random config → tensors → recognised config: the same config (Mamba-2: the same
    tensors, since only n_groups · state_size is stored; Mamba: its expand is not stored),
    every tensor claimed."""
    config = data.draw(CONFIGS[name])
    module = families.family(name)
    shapes = {t.name: t.shape for t in module.tensors(config)}
    found = module.recognise({"other.weight": (3, 3), **shapes})
    assert len(found) == 1
    model = found[0]
    assert (model.prefix, model.family, set(model.names)) == ("", name, set(shapes))
    if name == "mamba2":
        assert model.config.n_groups * model.config.state_size == (
            config.n_groups * config.state_size)
        config = replace(config, n_groups=1, state_size=config.n_groups * config.state_size)
    if name == "mamba":  # only the mixer's width is stored, not the expand that made it
        config = replace(config, expand=model.config.expand)
    assert model.config == config


def test_recognition_under_a_prefix_and_as_a_bare_backbone() -> None:
    """A model nested in another keeps its prefix; a MambaModel (no head) is the tied LM."""
    config = mamba.MambaConfig(vocab_size=10, hidden_size=8, num_hidden_layers=2,
                               tie_word_embeddings=False)
    shapes = {"encoder." + t.name: t.shape for t in mamba.tensors(config)}
    (model,) = mamba.recognise(shapes)
    assert (model.prefix, model.config) == ("encoder.", config)
    bare = {t.name.removeprefix("backbone."): t.shape for t in mamba.tensors(config)
            if t.name != "lm_head.weight"}
    (model,) = mamba.recognise(bare)
    assert model.config == replace(config, tie_word_embeddings=True)
    assert any("no head" in note for note in model.notes)


def test_an_almost_mamba_is_not_recognised() -> None:
    """One tensor of the wrong shape, or one extra in a block, and nothing is claimed."""
    shapes = {t.name: t.shape for t in mamba.tensors(mamba.MambaConfig(
        vocab_size=10, hidden_size=8, num_hidden_layers=2))}
    assert mamba.recognise({**shapes, "backbone.layers.1.mixer.D": (3,)}) == []
    assert mamba.recognise({**shapes, "backbone.layers.1.mixer.extra": (3,)}) == []


PUBLISHED = {
    # name: (config.json as the model repository holds it, total as the reference counts it)
    "mamba-130m": ("mamba", {"d_model": 768, "n_layer": 24, "vocab_size": 50277,
                             "ssm_cfg": {}, "rms_norm": True, "residual_in_fp32": True,
                             "fused_add_norm": True, "pad_vocab_size_multiple": 8},
                   129_135_360),
    "mamba-370m": ("mamba", {"d_model": 1024, "n_layer": 48, "vocab_size": 50277,
                             "pad_vocab_size_multiple": 8}, 371_516_416),
    "mamba-790m": ("mamba", {"d_model": 1536, "n_layer": 48, "vocab_size": 50277,
                             "pad_vocab_size_multiple": 8}, 793_204_224),
    "mamba-1.4b": ("mamba", {"d_model": 2048, "n_layer": 48, "vocab_size": 50277,
                             "pad_vocab_size_multiple": 8}, 1_372_178_432),
    "mamba-2.8b": ("mamba", {"d_model": 2560, "n_layer": 64, "vocab_size": 50277,
                             "pad_vocab_size_multiple": 8}, 2_768_345_600),
    "mamba-130m-hf": ("mamba", {"model_type": "mamba", "hidden_size": 768,
                                "num_hidden_layers": 24, "vocab_size": 50280,
                                "state_size": 16, "expand": 2, "conv_kernel": 4,
                                "time_step_rank": 48, "intermediate_size": 1536},
                      129_135_360),
    "rwkv-4-169m-pile": ("rwkv", {"model_type": "rwkv", "vocab_size": 50277,
                                  "hidden_size": 768, "num_hidden_layers": 12,
                                  "attention_hidden_size": 768, "intermediate_size": 3072,
                                  "context_length": 1024, "tie_word_embeddings": False},
                         169_342_464),
    "mamba2-1.3b": ("mamba2", {"d_model": 2048, "d_intermediate": 0, "n_layer": 48,
                               "vocab_size": 50277, "ssm_cfg": {"layer": "Mamba2"},
                               "attn_layer_idx": [], "attn_cfg": {}, "rms_norm": True,
                               "pad_vocab_size_multiple": 16, "tie_embeddings": True},
                    1_343_757_312),
}


@pytest.mark.parametrize(("family", "data", "total"), list(PUBLISHED.values()),
                         ids=list(PUBLISHED))
def test_published_sizes_from_their_config_alone(family: str, data: dict[str, Any],
                                                 total: int) -> None:
    """Each published model's config.json gives its total (checked against transformers in
    tests/test_verify_families.py), and the registry names its family."""
    assert families.family_of(data) == family
    config = families.family(family).from_hf_config(data)
    assert build_family_report(family, config).total == total


HF_DEFAULTS = [
    ("mamba", {}, mamba.MambaConfig(time_step_rank=48)),
    ("mamba", {"hidden_size": 100, "time_step_rank": "auto"},
     mamba.MambaConfig(hidden_size=100, time_step_rank=7)),
    ("mamba2", {}, mamba2.Mamba2Config()),
    ("mamba", {"d_model": 64, "n_layer": 2, "vocab_size": 10, "pad_vocab_size_multiple": 16,
               "ssm_cfg": {"d_state": 8, "dt_rank": 3}, "tie_embeddings": False},
     mamba.MambaConfig(vocab_size=16, hidden_size=64, num_hidden_layers=2, state_size=8,
                       time_step_rank=3, tie_word_embeddings=False)),
]


@pytest.mark.parametrize(("family", "data", "expected"), HF_DEFAULTS,
                         ids=["mamba-defaults", "auto-rank", "mamba2-defaults", "mamba_ssm"])
def test_config_json_is_read_as_the_reference_reads_it(family: str, data: dict[str, Any],
                                                       expected: object) -> None:
    """Missing keys take the reference's defaults; "auto" is ⌈D/16⌉; mamba_ssm pads the vocab."""
    assert families.family(family).from_hf_config(data) == expected


BAD = [
    ("mamba", {"hidden_size": 0}, r"hidden_size=0 must be a positive integer"),
    ("mamba", {"hidden_size": 1.5}, r"hidden_size=1.5 must be a whole number"),
    ("mamba", {"use_bias": "yes"}, r"use_bias='yes' must be true or false"),
    ("mamba", {"time_step_rank": "big"}, r"time_step_rank='big' must be a positive integer"),
    ("mamba2", {"hidden_size": 100}, r"must equal num_heads=128 · head_dim=64"),
    ("mamba", {"d_model": 8, "n_layer": 1, "ssm_cfg": {"layer": "Mamba2"}},
     r"'paramcount mamba2'"),
    ("mamba2", {"d_model": 8, "n_layer": 1, "ssm_cfg": {"layer": "Mamba2"},
                "attn_layer_idx": [0]}, r"hybrid"),
    ("mamba2", {"d_model": 8, "n_layer": 1, "ssm_cfg": {"layer": "Mamba2", "headdim": 3}},
     r"headdim=3"),
]


@pytest.mark.parametrize(("family", "data", "message"), BAD,
                         ids=["zero", "float", "bool", "rank", "heads", "layer", "hybrid",
                              "headdim"])
def test_bad_config_json_names_the_option(family: str, data: dict[str, Any],
                                          message: str) -> None:
    """A value the reference would refuse is one SpecError naming the key and the rule."""
    with pytest.raises(SpecError, match=message):
        families.family(family).from_hf_config(data)


def test_options_are_the_fields(tmp_path: Path) -> None:
    """Each field is an option spelled as the field, with the usual aliases, and --config
    values are overridden by options."""
    spelled = {o.field: o.names for o in families.options("mamba")}
    assert spelled["state_size"] == ("--state-size", "--d-state")
    assert spelled["use_bias"] == ("--use-bias",)
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "mamba", "hidden_size": 64}))
    config = families.build("mamba", {"num_hidden_layers": 3}, str(path))
    assert (config.hidden_size, config.num_hidden_layers) == (64, 3)
    path.write_text(json.dumps({"model_type": "mamba2"}))
    with pytest.raises(ConfigError, match="describes a Mamba-2 model"):
        families.build("mamba", {}, str(path))
