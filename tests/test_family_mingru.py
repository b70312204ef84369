"""minGRU / minLSTM and minLM: closed forms, recognition, options, and mingru-pytorch itself.

The verification builds mingru-pytorch's ``minGRU`` / ``minLSTM`` and ``minLM`` on the meta
device with the same arguments and compares every named_parameters() name and shape.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.errors import SpecError
from paramcount.families import mingru, minlm
from paramcount.families.mingru import MinGRUConfig
from paramcount.families.minlm import MinLMConfig
from paramcount.record import replace

QUICK = settings(max_examples=40, deadline=None)
REAL = settings(max_examples=15, deadline=None)
FACTORS = [1.0, 1.5, 2.0, 0.5, 0.3, 3.7]

LAYERS = st.builds(
    MinGRUConfig, dim=st.integers(4, 40), expansion_factor=st.sampled_from(FACTORS),
    proj_out=st.sampled_from([None, True, False]), use_lstm=st.booleans())
MODELS = st.builds(
    MinLMConfig, num_tokens=st.integers(1, 30), dim=st.integers(4, 24), depth=st.integers(1, 3),
    ff_mult=st.sampled_from([4.0, 1.0, 1.3, 2.5]), expansion=st.sampled_from(FACTORS),
    conv_kernel_size=st.integers(1, 4), use_lstm=st.booleans(), enable_conv=st.booleans())


@QUICK
@given(LAYERS)
def test_layer_formula_total_equals_the_tensors(config: MinGRUConfig) -> None:
    """G·Di·d + p·d·Di equals the sum of the layer's tensors."""
    assert mingru.formula(config).total == sum(t.count for t in mingru.tensors(config))


@QUICK
@given(MODELS)
def test_minlm_formula_total_equals_the_tensors(config: MinLMConfig) -> None:
    """minLM's closed form equals the sum of its tensors."""
    assert minlm.formula(config).total == sum(t.count for t in minlm.tensors(config))


@QUICK
@given(LAYERS, st.sampled_from(["", "rnn.", "layers.3."]))
def test_layer_recognise_inverts_tensors(config: MinGRUConfig, prefix: str) -> None:
    """Layer tensors → recognise → a config writing the same tensors (same cell, same dim)."""
    shapes = {prefix + t.name: t.shape for t in mingru.tensors(config)}
    [found] = mingru.recognise(shapes)
    assert found.prefix == prefix
    again = {prefix + t.name: t.shape for t in mingru.tensors(found.config)}
    assert again == shapes
    assert (found.config.dim, found.config.use_lstm, found.config.projects) == (
        config.dim, config.use_lstm, config.projects)


@QUICK
@given(MODELS, st.sampled_from(["", "model."]))
def test_minlm_recognise_inverts_tensors(config: MinLMConfig, prefix: str) -> None:
    """minLM tensors → recognise → a config writing the same tensors; its layers are not also
    read as separate models by the layer recogniser's prefix (they are inside it)."""
    shapes = {prefix + t.name: t.shape for t in minlm.tensors(config)}
    [found] = minlm.recognise(shapes)
    assert found.prefix == prefix
    assert {prefix + t.name: t.shape for t in minlm.tensors(found.config)} == shapes
    assert replace(found.config, ff_mult=config.ff_mult, expansion=config.expansion,
                   conv_kernel_size=config.conv_kernel_size) == config


def test_minlm_defaults_read_back_exactly() -> None:
    """The default minLM's tensors read back as exactly its config."""
    [found] = minlm.recognise({t.name: t.shape for t in minlm.tensors(MinLMConfig())})
    assert found.config == MinLMConfig()


@pytest.mark.parametrize(
    ("config", "total"),
    [
        (MinGRUConfig(512), 2 * 512 * 512),
        (MinGRUConfig(512, use_lstm=True), 3 * 512 * 512),
        (MinGRUConfig(512, 1.5), 2 * 768 * 512 + 512 * 768),
        (MinGRUConfig(512, 1.5, proj_out=False), 2 * 768 * 512),
        (MinGRUConfig(512, 1.0, proj_out=True), 3 * 512 * 512),
    ],
    ids=["mingru", "minlstm", "expanded-projects", "expanded-no-proj", "proj-out-forced"],
)
def test_layer_counts(config: MinGRUConfig, total: int) -> None:
    """What expansion_factor and proj_out add, in small worked cases."""
    assert mingru.formula(config).total == total


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"dim": 0}, "dim=0 must be a positive integer"),
        ({"dim": 3, "expansion_factor": 0.2}, "expansion_factor=0.2 leaves no inner width"),
        ({"proj_out": "yes"}, "proj_out='yes' must be true or false"),
    ],
    ids=["dim", "no-inner-width", "proj-out-type"],
)
def test_layer_refuses_bad_options(args: dict[str, Any], message: str) -> None:
    """Each bad option is one error naming the option, its value and the rule."""
    with pytest.raises(SpecError, match=message):
        MinGRUConfig(**args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"depth": 0}, "depth=0 must be a positive integer"),
        ({"dim": 3, "expansion": 0.2}, "expansion=0.2 leaves the minGRU no inner width"),
        ({"dim": 3, "ff_mult": 0.2}, "ff_mult=0.2 leaves the feed-forward no width"),
    ],
    ids=["depth", "expansion", "ff-mult"],
)
def test_minlm_refuses_bad_options(args: dict[str, Any], message: str) -> None:
    """Each bad minLM option is one error naming it."""
    with pytest.raises(SpecError, match=message):
        MinLMConfig(**args)


def test_minlm_reads_its_keyword_arguments() -> None:
    """minLM's keyword arguments with its defaults (the command's where it has none)."""
    assert minlm.from_hf_config({"num_tokens": 256, "dim": 512, "depth": 6}) == MinLMConfig()
    assert minlm.from_hf_config({"depth": 2}) == MinLMConfig(depth=2)
    with pytest.raises(SpecError, match="depth=0 must be a positive integer"):
        minlm.from_hf_config({"depth": 0})
    assert mingru.from_hf_config({"dim": 64, "expansion_factor": 2.0}) == MinGRUConfig(64, 2.0)


def _named(module: Any) -> list[tuple[str, tuple[int, ...]]]:
    return [(name, tuple(p.shape)) for name, p in module.named_parameters()]


@pytest.mark.torch
@REAL
@given(config=LAYERS)
def test_layer_matches_mingru_pytorch(config: MinGRUConfig) -> None:
    """minGRU / minLSTM built by mingru-pytorch on the meta device: same tensors, same total."""
    pytest.importorskip("minGRU_pytorch")
    import torch
    from minGRU_pytorch.minGRU import minGRU
    from minGRU_pytorch.minLSTM import minLSTM

    with torch.device("meta"):
        layer = (minLSTM if config.use_lstm else minGRU)(
            config.dim, expansion_factor=config.expansion_factor, proj_out=config.proj_out)
    assert _named(layer) == [(t.name, t.shape) for t in mingru.tensors(config)]
    assert sum(p.numel() for p in layer.parameters()) == mingru.formula(config).total


@pytest.mark.torch
@REAL
@given(config=MODELS)
def test_minlm_matches_mingru_pytorch(config: MinLMConfig) -> None:
    """minLM built by mingru-pytorch on the meta device: same tensors, same total."""
    pytest.importorskip("minGRU_pytorch")
    import torch
    from minGRU_pytorch.minLM import minLM

    with torch.device("meta"):
        model = minLM(num_tokens=config.num_tokens, dim=config.dim, depth=config.depth,
                      ff_mult=config.ff_mult, expansion=config.expansion,
                      conv_kernel_size=config.conv_kernel_size, use_lstm=config.use_lstm,
                      enable_conv=config.enable_conv)
    assert _named(model) == [(t.name, t.shape) for t in minlm.tensors(config)]
    assert sum(p.numel() for p in model.parameters()) == minlm.formula(config).total
