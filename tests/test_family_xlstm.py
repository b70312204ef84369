"""xLSTM, both references: transformers' xLSTMForCausalLM and the xlstm package's block stack.

Pure properties (the closed form equals the tensors, recognition inverts ``tensors``, config.json
is read as the reference reads it, bad options are one clear error), then verification against
the real references built on the meta device over random configurations.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.errors import SpecError
from paramcount.families import xlstm, xlstm_lm
from paramcount.families.xlstm import XLSTMConfig
from paramcount.families.xlstm_lm import XLSTMLMConfig
from paramcount.record import fields, replace
from tests.conftest import have

QUICK = settings(max_examples=40, deadline=None)
REAL = settings(max_examples=12, deadline=None)

needs_torch = [pytest.mark.torch, pytest.mark.skipif(not have("torch"), reason="needs torch")]


def hf_configs_args() -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for a small XLSTMConfig, not all of them valid."""
    return st.fixed_dictionaries({
        "vocab_size": st.integers(3, 40),
        "hidden_size": st.integers(1, 48),
        "num_blocks": st.integers(1, 3),
        "num_heads": st.integers(1, 4),
        "use_bias": st.booleans(),
        "qk_dim_factor": st.sampled_from([0.5, 0.25, 1.0, 0.3, 0.75]),
        "v_dim_factor": st.sampled_from([1.0, 0.5, 2.0, 0.7]),
        "ffn_proj_factor": st.sampled_from([2.667, 1.3, 4.0, 0.5]),
        "ffn_round_up_to_multiple_of": st.sampled_from([64, 1, 8, 10]),
        "weight_mode": st.sampled_from(xlstm.WEIGHT_MODES),
    })


def _try_hf(args: dict[str, Any]) -> XLSTMConfig | None:
    """The config, or None where the options are refused."""
    try:
        return XLSTMConfig(**args)
    except SpecError:
        return None


def lm_configs_args() -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for a small xlstm-package stack or model, not all of them valid."""
    return st.fixed_dictionaries({
        "vocab_size": st.sampled_from([0, 7, 30]),
        "embedding_dim": st.sampled_from([8, 16, 24, 32, 48, 64]),
        "num_blocks": st.integers(1, 4),
        "slstm_mask": st.lists(st.booleans(), min_size=4, max_size=4),
        "add_post_blocks_norm": st.booleans(),
        "bias": st.booleans(),
        "tie_weights": st.booleans(),
        "mlstm_num_heads": st.sampled_from([1, 2, 4]),
        "mlstm_proj_factor": st.sampled_from([2.0, 1.0, 1.5]),
        "mlstm_conv1d_kernel_size": st.integers(1, 4),
        "mlstm_qkv_proj_blocksize": st.sampled_from([4, 2, 8, 3]),
        "mlstm_round_proj_up_dim_up": st.booleans(),
        "mlstm_round_proj_up_to_multiple_of": st.sampled_from([64, 8, 16]),
        "slstm_num_heads": st.sampled_from([1, 2, 4]),
        "slstm_conv1d_kernel_size": st.integers(0, 4),
        "slstm_group_norm_weight": st.booleans(),
        "slstm_backend": st.just("vanilla"),
        "feedforward": st.booleans(),
        "feedforward_proj_factor": st.sampled_from([1.3, 2.0, 4.0]),
        "feedforward_bias": st.booleans(),
        "feedforward_round_proj_up_dim_up": st.booleans(),
        "feedforward_round_proj_up_to_multiple_of": st.sampled_from([64, 8, 16]),
    })


def _try_lm(args: dict[str, Any]) -> XLSTMLMConfig | None:
    """The config (slstm_at from the mask), or None where the options are refused."""
    args = dict(args)
    mask = args.pop("slstm_mask")
    args["slstm_at"] = tuple(i for i in range(args["num_blocks"]) if mask[i])
    try:
        return XLSTMLMConfig(**args)
    except SpecError:
        return None


HF = st.builds(_try_hf, hf_configs_args()).filter(lambda c: c is not None)
LM = st.builds(_try_lm, lm_configs_args()).filter(lambda c: c is not None)
LM_ANY_BACKEND = LM.flatmap(lambda c: st.sampled_from(
    [c, replace(c, slstm_backend="cuda")]))


@QUICK
@given(HF)
def test_xlstm_formula_total_equals_the_tensors(config: XLSTMConfig) -> None:
    """The closed form, computed on its own, equals the sum of the listed tensors."""
    assert xlstm.formula(config).total == sum(t.count for t in xlstm.tensors(config))


@QUICK
@given(LM_ANY_BACKEND)
def test_xlstm_lm_formula_total_equals_the_tensors(config: XLSTMLMConfig) -> None:
    """The stack's closed form equals the sum of its tensors, whichever blocks it mixes."""
    assert xlstm_lm.formula(config).total == sum(t.count for t in xlstm_lm.tensors(config))


def _shapes(tensors: list[Any], prefix: str = "") -> dict[str, tuple[int, ...]]:
    return {prefix + t.name: t.shape for t in tensors}


@QUICK
@given(HF, st.sampled_from(["", "model."]))
def test_xlstm_recognise_inverts_tensors(config: XLSTMConfig, prefix: str) -> None:
    """Tensors → recognise → a config writing the same tensors, equal but for the factors."""
    shapes = {"other.weight": (3, 3), **_shapes(xlstm.tensors(config), prefix)}
    [found] = xlstm.recognise(shapes)
    assert found.prefix == prefix and found.family == "xlstm"
    assert [t.name for t in xlstm.tensors(found.config)] == [
        n.removeprefix(prefix) for n in found.names]
    assert _shapes(xlstm.tensors(found.config)) == _shapes(xlstm.tensors(config))
    told = replace(found.config, qk_dim_factor=config.qk_dim_factor,
                   v_dim_factor=config.v_dim_factor, ffn_proj_factor=config.ffn_proj_factor,
                   ffn_round_up_to_multiple_of=config.ffn_round_up_to_multiple_of)
    assert told == config


def test_xlstm_recognise_gives_the_defaults_back_exactly() -> None:
    """xLSTM 7B's tensors read back as transformers' default config, factors included."""
    [found] = xlstm.recognise(_shapes(xlstm.tensors(XLSTMConfig())))
    assert found.config == XLSTMConfig()


def test_xlstm_recognise_leaves_an_incomplete_model() -> None:
    """A model with one tensor missing is not recognised (nothing is guessed)."""
    shapes = _shapes(xlstm.tensors(XLSTMConfig(hidden_size=64, vocab_size=10, num_blocks=2)))
    del shapes["backbone.blocks.1.ffn.proj_up.weight"]
    assert xlstm.recognise(shapes) == []


LM_TOLD = ("vocab_size", "embedding_dim", "num_blocks", "slstm_at", "add_post_blocks_norm",
           "tie_weights")


@QUICK
@given(LM_ANY_BACKEND, st.sampled_from(["", "net."]))
def test_xlstm_lm_recognise_inverts_tensors(config: XLSTMLMConfig, prefix: str) -> None:
    """Stack tensors → recognise → a config writing the same tensors, same block map."""
    shapes = _shapes(xlstm_lm.tensors(config), prefix)
    [found] = xlstm_lm.recognise(shapes)
    assert found.prefix == prefix
    assert _shapes(xlstm_lm.tensors(found.config)) == _shapes(xlstm_lm.tensors(config))
    assert all(getattr(found.config, f) == getattr(config, f) for f in LM_TOLD)


def test_xlstm_lm_recognise_gives_a_default_mix_back_exactly() -> None:
    """A default mLSTM/sLSTM mix reads back as exactly its config."""
    config = XLSTMLMConfig(vocab_size=50, embedding_dim=64, num_blocks=3, slstm_at=(1,))
    [found] = xlstm_lm.recognise(_shapes(xlstm_lm.tensors(config)))
    assert found.config == config


SEVEN_B = {
    "architectures": ["xLSTMForCausalLM"], "model_type": "xlstm", "embedding_dim": 4096,
    "num_blocks": 32, "num_heads": 8, "vocab_size": 50304, "qk_dim_factor": 0.5,
    "v_dim_factor": 1.0, "ffn_proj_factor": 2.667, "ffn_round_up_to_multiple_of": 64,
    "use_bias": False, "weight_mode": "single", "tie_word_embeddings": False,
    "add_out_norm": True, "chunkwise_kernel": "chunkwise--triton_xl_chunk",
}


def test_xlstm_7b_count_from_its_config_alone() -> None:
    """NX-AI/xLSTM-7b's config.json gives 6,865,424,896 parameters, as transformers counts."""
    config = xlstm.from_hf_config(SEVEN_B)
    assert config == XLSTMConfig()
    assert xlstm.formula(config).total == 6_865_424_896


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({}, XLSTMConfig()),
        ({"hidden_size": 256, "num_hidden_layers": 4}, XLSTMConfig(hidden_size=256, num_blocks=4)),
        ({"embedding_dim": 256, "hidden_size": None}, XLSTMConfig(hidden_size=256)),
        ({"num_blocks": None, "num_hidden_layers": 3}, XLSTMConfig(num_blocks=3)),
        ({"num_blocks": 2, "num_hidden_layers": 3}, XLSTMConfig(num_blocks=2)),
    ],
    ids=["defaults", "hidden-and-layers", "embedding-dim-when-hidden-null", "layers-fallback",
         "num-blocks-wins"],
)
def test_xlstm_reads_config_json_as_transformers(data: dict[str, Any],
                                                 expected: XLSTMConfig) -> None:
    """config.json values and fallbacks as xLSTMConfig resolves them."""
    assert xlstm.from_hf_config(data) == expected


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"hidden_size": 0}, "hidden_size=0 must be a positive integer"),
        ({"num_heads": 3}, "num_heads=3 must divide qk_dim=2048"),
        ({"weight_mode": "packed"}, "weight_mode='packed' must be one of 'single', 'fused'"),
        ({"qk_dim_factor": -1.0}, "qk_dim_factor=-1.0 must be a positive number"),
        ({"use_bias": "no"}, "use_bias='no' must be true or false"),
        ({"hidden_size": 8, "qk_dim_factor": 0.1}, "qk_dim_factor=0.1 leaves fewer features"),
        ({"hidden_size": 1, "num_heads": 1, "ffn_proj_factor": 0.5},
         "ffn_proj_factor=0.5 leaves the feed-forward no width"),
    ],
    ids=["hidden-zero", "heads-split", "weight-mode", "negative-factor", "bias-type",
         "too-narrow", "no-ffn-width"],
)
def test_xlstm_refuses_bad_options(args: dict[str, Any], message: str) -> None:
    """Each bad option is one error naming the option, its value and the rule."""
    with pytest.raises(SpecError, match=message):
        XLSTMConfig(**args)


def test_xlstm_refuses_a_config_json_with_two_widths() -> None:
    """embedding_dim without hidden_size (4096 by default) is refused, as it cannot run."""
    with pytest.raises(SpecError, match="embedding_dim=736 and hidden_size=4096 differ"):
        xlstm.from_hf_config({"embedding_dim": 736})


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"model": {"num_blocks": 2, "embedding_dim": 64, "mlstm_block": {"mlstm": {
            "num_heads": 1}}, "slstm_block": {"slstm": {"num_heads": 1}}, "slstm_at": [1],
            "context_length": 256, "vocab_size": 3}},
         XLSTMLMConfig(vocab_size=3, embedding_dim=64, num_blocks=2, slstm_at=(1,),
                       mlstm_num_heads=1, slstm_num_heads=1)),
        ({"num_blocks": 3, "mlstm_block": None}, XLSTMLMConfig(num_blocks=3, slstm_at=(0, 1, 2))),
        ({"num_blocks": 2, "slstm_at": "all", "slstm_block": {"feedforward": None}},
         XLSTMLMConfig(num_blocks=2, slstm_at=(0, 1), feedforward=False)),
        ({"embedding_dim": 32, "tie_weights": True, "vocab_size": 9},
         XLSTMLMConfig(vocab_size=9, embedding_dim=32, tie_weights=True)),
        ({"num_blocks": 2, "slstm_at": [1], "mlstm_num_heads": 2, "feedforward": False,
          "slstm_block": {"slstm": {"num_heads": 8}}},
         XLSTMLMConfig(num_blocks=2, slstm_at=(1,), mlstm_num_heads=2, slstm_num_heads=8,
                       feedforward=False)),
    ],
    ids=["parity-experiment", "no-mlstm-block-is-all-slstm", "slstm-without-ffn", "tied",
         "flat-names-as-the-command-spells-them"],
)
def test_xlstm_lm_reads_the_package_config(data: dict[str, Any],
                                           expected: XLSTMLMConfig) -> None:
    """The nested xLSTMLMModelConfig dict (the experiment YAML's model:) with its defaults."""
    assert xlstm_lm.from_hf_config(data) == expected


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"slstm_at": (2,), "num_blocks": 2}, "slstm_at=\\(2,\\) must list block indices"),
        ({"embedding_dim": 30, "slstm_at": (0,), "slstm_num_heads": 4},
         "slstm_num_heads=4 must divide embedding_dim=30"),
        ({"mlstm_qkv_proj_blocksize": 3}, "mlstm_qkv_proj_blocksize=3 must split"),
        ({"slstm_backend": "triton", "slstm_at": (0,)}, "slstm_backend='triton' must be one of"),
        ({"mlstm_conv1d_kernel_size": 0}, "mlstm_conv1d_kernel_size=0 must be a positive"),
    ],
    ids=["slstm-at-range", "slstm-heads", "qkv-blocksize", "backend", "mlstm-conv"],
)
def test_xlstm_lm_refuses_bad_options(args: dict[str, Any], message: str) -> None:
    """Each bad stack option is one error naming the option, its value and the rule."""
    with pytest.raises(SpecError, match=message):
        XLSTMLMConfig(**args)


def _named(module: Any) -> list[tuple[str, tuple[int, ...]]]:
    """A real module's named_parameters() as (name, shape)."""
    return [(name, tuple(p.shape)) for name, p in module.named_parameters()]


def _ours(tensors: list[Any]) -> list[tuple[str, tuple[int, ...]]]:
    return [(t.name, t.shape) for t in tensors]


@pytest.fixture(scope="module")
def transformers_xlstm() -> Any:
    """transformers' xLSTMConfig and xLSTMForCausalLM, imported once."""
    transformers = pytest.importorskip("transformers")
    return transformers.xLSTMConfig, transformers.xLSTMForCausalLM


@pytest.mark.torch
@REAL
@given(config=HF)
def test_xlstm_matches_transformers(transformers_xlstm: Any, config: XLSTMConfig) -> None:
    """Every named_parameters() name and shape of xLSTMForCausalLM on the meta device."""
    import torch

    config_class, model_class = transformers_xlstm
    options = {f: getattr(config, f) for f in fields(config)}
    real = config_class(**options, embedding_dim=config.hidden_size)
    with torch.device("meta"):
        model = model_class(real)
    assert _named(model) == _ours(xlstm.tensors(config))
    assert sum(p.numel() for p in model.parameters()) == xlstm.formula(config).total


@pytest.mark.torch
def test_xlstm_7b_matches_transformers(transformers_xlstm: Any) -> None:
    """xLSTM 7B from its config.json: transformers' own count on the meta device agrees (the
    triton kernel it names needs a GPU; the native one holds no parameters either)."""
    import torch

    config_class, model_class = transformers_xlstm
    data = dict(SEVEN_B, chunkwise_kernel="chunkwise--native_autograd")
    with torch.device("meta"):
        model = model_class(config_class.from_dict(data))
    assert sum(p.numel() for p in model.parameters()) == 6_865_424_896


def _package_config(config: XLSTMLMConfig) -> Any:
    """The xlstm package's own config object for ``config``."""
    from xlstm import (
        FeedForwardConfig,
        mLSTMBlockConfig,
        mLSTMLayerConfig,
        sLSTMBlockConfig,
        sLSTMLayerConfig,
        xLSTMLMModelConfig,
    )

    mlstm = mLSTMBlockConfig(mlstm=mLSTMLayerConfig(
        conv1d_kernel_size=config.mlstm_conv1d_kernel_size,
        qkv_proj_blocksize=config.mlstm_qkv_proj_blocksize, num_heads=config.mlstm_num_heads,
        proj_factor=config.mlstm_proj_factor,
        round_proj_up_dim_up=config.mlstm_round_proj_up_dim_up,
        round_proj_up_to_multiple_of=config.mlstm_round_proj_up_to_multiple_of))
    ffn = FeedForwardConfig(
        proj_factor=config.feedforward_proj_factor, bias=config.feedforward_bias,
        round_proj_up_dim_up=config.feedforward_round_proj_up_dim_up,
        round_proj_up_to_multiple_of=config.feedforward_round_proj_up_to_multiple_of,
    ) if config.feedforward else None
    slstm = sLSTMBlockConfig(slstm=sLSTMLayerConfig(
        backend=config.slstm_backend, num_heads=config.slstm_num_heads,
        conv1d_kernel_size=config.slstm_conv1d_kernel_size,
        group_norm_weight=config.slstm_group_norm_weight), feedforward=ffn)
    return xLSTMLMModelConfig(
        mlstm_block=mlstm if config.has_mlstm else None, slstm_block=slstm,
        context_length=8, num_blocks=config.num_blocks, embedding_dim=config.embedding_dim,
        add_post_blocks_norm=config.add_post_blocks_norm, bias=config.bias,
        slstm_at=list(config.slstm_at), vocab_size=config.vocab_size or 1,
        tie_weights=config.tie_weights)


@pytest.mark.torch
@REAL
@given(config=LM)
def test_xlstm_lm_matches_the_xlstm_package(config: XLSTMLMConfig) -> None:
    """xLSTMLMModel / xLSTMBlockStack (sLSTM on the vanilla backend), on the meta device."""
    pytest.importorskip("xlstm")
    import torch
    from xlstm import xLSTMBlockStack, xLSTMLMModel

    package = _package_config(config)
    with torch.device("meta"):
        model = xLSTMLMModel(package) if config.vocab_size else xLSTMBlockStack(package)
    assert _named(model) == _ours(xlstm_lm.tensors(config))
    assert sum(p.numel() for p in model.parameters()) == xlstm_lm.formula(config).total


@pytest.mark.torch
@pytest.mark.parametrize("heads", [1, 2, 4], ids=["1-head", "2-heads", "4-heads"])
def test_slstm_cuda_layout_matches_the_package_cell(heads: int) -> None:
    """The cuda backend's recurrent kernel layout, from the package's own cell class built
    without compiling its kernel (it needs CUDA); the whole layer needs the kernel to build."""
    pytest.importorskip("xlstm")
    import torch
    from xlstm.blocks.slstm.cell import sLSTMCell_cuda, sLSTMCellConfig

    config = XLSTMLMConfig(embedding_dim=32, slstm_at=(0,), slstm_num_heads=heads,
                           slstm_backend="cuda", feedforward=False)
    with torch.device("meta"):
        cell = sLSTMCell_cuda(sLSTMCellConfig(hidden_size=32, num_heads=heads),
                              skip_backend_init=True)
    ours = {t.name.split("slstm_cell.")[1]: t.shape
            for t in xlstm_lm.tensors(config) if ".slstm_cell." in t.name}
    assert dict(_named(cell)) == ours


@pytest.mark.torch
@REAL
@given(config=HF)
def test_xlstm_reads_what_transformers_writes(transformers_xlstm: Any,
                                              config: XLSTMConfig) -> None:
    """transformers' own config, written out as config.json's dict, reads back as the config."""
    config_class, _ = transformers_xlstm
    options = {f: getattr(config, f) for f in fields(config)}
    written = config_class(**options, embedding_dim=config.hidden_size).to_dict()
    assert xlstm.from_hf_config(written) == config


ISSUE_48 = {"vocab_size": 50257, "num_blocks": 24, "embedding_dim": 384,
            "mlstm_block": {"mlstm": {"num_heads": 4}},
            "slstm_block": {"slstm": {"num_heads": 4}}, "slstm_at": [3, 20],
            "context_length": 2048}
"""The model section of NX-AI/xlstm#48's YAML (the paper's xLSTM[7:1] at the width asked)."""


def _nested(package: Any, data: dict[str, Any]) -> Any:
    """The package's config from a nested dict, field by field as dacite's from_dict fills it
    (dacite itself is not installed here); the sLSTM on the vanilla backend."""
    mlstm = package.mLSTMBlockConfig(mlstm=package.mLSTMLayerConfig(
        **data.get("mlstm_block", {}).get("mlstm", {})))
    slstm = package.sLSTMBlockConfig(slstm=package.sLSTMLayerConfig(
        **{**data.get("slstm_block", {}).get("slstm", {}), "backend": "vanilla"}))
    top = {k: v for k, v in data.items() if k not in ("mlstm_block", "slstm_block")}
    return package.xLSTMLMModelConfig(mlstm_block=mlstm, slstm_block=slstm, **top)


@pytest.mark.torch
@pytest.mark.parametrize("data", [
    ISSUE_48,
    {**ISSUE_48, "embedding_dim": 768, "tie_weights": True},
    {"model": {"num_blocks": 2, "embedding_dim": 64, "mlstm_block": {"mlstm": {"num_heads": 1}},
               "slstm_block": {"slstm": {"num_heads": 1}}, "slstm_at": [1],
               "context_length": 256, "vocab_size": 3}},
], ids=["issue-48-384", "paper-125m-tied", "parity-experiment"])
def test_xlstm_lm_reads_the_nested_config_as_the_package(data: dict[str, Any]) -> None:
    """The package builds, from the same nested dict, exactly the tensors paramcount lists."""
    package = pytest.importorskip("xlstm")
    import torch

    config = replace(xlstm_lm.from_hf_config(data), slstm_backend="vanilla")
    with torch.device("meta"):
        model = package.xLSTMLMModel(_nested(package, data.get("model", data)))
    assert _named(model) == _ours(xlstm_lm.tensors(config))


def test_issue_48_counts() -> None:
    """NX-AI/xlstm#48: 60,575,792 at 384 wide (as the issue printed); 125,021,360 at 768 with
    the head tied (the paper's 125M), 163,618,736 untied."""
    assert xlstm_lm.formula(xlstm_lm.from_hf_config(ISSUE_48)).total == 60_575_792
    wide = xlstm_lm.from_hf_config({**ISSUE_48, "embedding_dim": 768})
    assert xlstm_lm.formula(wide).total == 163_618_736
    assert xlstm_lm.formula(replace(wide, tie_weights=True)).total == 125_021_360


INTERNAL = """
import json, sys
import transformers.utils
transformers.utils.is_xlstm_available = lambda: False
import torch
import transformers.models.xlstm.configuration_xlstm as configuration
import transformers.models.xlstm.modeling_xlstm as modeling
assert not modeling.external_xlstm
out = []
for options in json.loads(sys.argv[1]):
    with torch.device("meta"):
        model = modeling.xLSTMForCausalLM(configuration.xLSTMConfig(**options))
    out.append([[name, list(p.shape)] for name, p in model.named_parameters()])
print(json.dumps(out))
"""


@pytest.mark.torch
def test_xlstm_matches_transformers_own_copy_of_the_blocks() -> None:
    """Without the xlstm package, transformers builds its own copy of the xLSTM Large blocks
    (hidden_size wide where the package's are embedding_dim wide): the same tensors."""
    import subprocess
    import sys

    pytest.importorskip("transformers")
    configs = [XLSTMConfig(vocab_size=10, hidden_size=64, num_blocks=2, num_heads=2),
               XLSTMConfig(vocab_size=10, hidden_size=48, num_blocks=1, num_heads=3,
                           use_bias=True, weight_mode="fused", qk_dim_factor=0.25,
                           ffn_proj_factor=1.3, ffn_round_up_to_multiple_of=8)]
    options = [{**{f: getattr(c, f) for f in fields(c)}, "embedding_dim": c.hidden_size}
               for c in configs]
    result = subprocess.run([sys.executable, "-c", INTERNAL, json.dumps(options)],
                            capture_output=True, text=True, check=True)
    built = json.loads(result.stdout.splitlines()[-1])
    assert built == [[[t.name, list(t.shape)] for t in xlstm.tensors(c)] for c in configs]


@pytest.mark.torch
def test_xlstm_tie_and_out_norm_options_change_nothing(transformers_xlstm: Any) -> None:
    """tie_word_embeddings=True still builds a separate lm_head (transformers' xLSTM has no
    tied-weights keys), and add_out_norm=False still the final norm: the count does not change."""
    import torch

    config_class, model_class = transformers_xlstm
    config = XLSTMConfig(vocab_size=20, hidden_size=64, num_blocks=1, num_heads=2)
    options = {f: getattr(config, f) for f in fields(config)}
    with torch.device("meta"):
        model = model_class(config_class(**options, embedding_dim=64, tie_word_embeddings=True,
                                         add_out_norm=False))
    assert model.lm_head.weight is not model.backbone.embeddings.weight
    assert _named(model) == _ours(xlstm.tensors(config))
