"""The family conventions against the reference implementations, built on the meta device:
every ``named_parameters()`` name and shape, in order, and the total."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.families import registry as families
from paramcount.record import fields
from tests.conftest import have
from tests.test_families import PUBLISHED

pytestmark = [
    pytest.mark.torch,
    pytest.mark.skipif(not (have("torch") and have("transformers")),
                       reason="torch and transformers are not installed"),
]

REFERENCES = {"mamba": ("MambaConfig", "MambaForCausalLM"),
              "mamba2": ("Mamba2Config", "Mamba2ForCausalLM"),
              "rwkv": ("RwkvConfig", "RwkvForCausalLM")}
"""The transformers classes each family is checked against (RWKV: version 4 only; 5 to 7
are checked against their reference source in tests/test_rwkv.py)."""


def reference_parameters(name: str, settings_: dict[str, Any]) -> list[tuple[str, tuple[int, ...]]]:
    """``named_parameters()`` of the transformers model built from ``settings_``, on meta."""
    import torch
    import transformers

    config_name, model_name = REFERENCES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = getattr(transformers, config_name)(**settings_)
        with torch.device("meta"):
            model = getattr(transformers, model_name)(config)
    return [(n, tuple(p.shape)) for n, p in model.named_parameters()]


REFERENCE_FIELDS = {
    "mamba": ("vocab_size", "hidden_size", "state_size", "num_hidden_layers", "expand",
              "conv_kernel", "use_bias", "use_conv_bias", "time_step_rank",
              "tie_word_embeddings"),
    "mamba2": ("num_heads", "head_dim", "vocab_size", "hidden_size", "state_size",
               "num_hidden_layers", "expand", "conv_kernel", "n_groups", "use_bias",
               "use_conv_bias", "tie_word_embeddings"),
    "rwkv": ("vocab_size", "hidden_size", "num_hidden_layers", "attention_hidden_size",
             "intermediate_size", "tie_word_embeddings"),
}
"""Our config fields that the reference's config class takes (RWKV's version, head size and
LoRA widths are BlinkDL's, for versions 5 to 7)."""


def ours(name: str, config: object) -> list[tuple[str, tuple[int, ...]]]:
    """Our tensors of ``config``, as (name, shape)."""
    return [(t.name, t.shape) for t in families.family(name).tensors(config)]


@st.composite
def raw_settings(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """Random keyword arguments for the reference config, as a user would pass them."""
    if name == "rwkv":
        return {"vocab_size": draw(st.integers(1, 64)), "hidden_size": draw(st.integers(1, 32)),
                "num_hidden_layers": draw(st.integers(1, 3)),
                "attention_hidden_size": draw(st.one_of(st.none(), st.integers(1, 32))),
                "intermediate_size": draw(st.one_of(st.none(), st.integers(1, 64))),
                "tie_word_embeddings": draw(st.booleans())}
    common = {"vocab_size": draw(st.integers(1, 64)), "num_hidden_layers": draw(st.integers(1, 3)),
              "conv_kernel": draw(st.integers(1, 5)), "use_bias": draw(st.booleans()),
              "use_conv_bias": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans()),
              "state_size": draw(st.integers(1, 8)), "expand": draw(st.integers(1, 3))}
    if name == "mamba":
        return {**common, "hidden_size": draw(st.integers(1, 48)),
                "time_step_rank": draw(st.one_of(st.just("auto"), st.integers(1, 6)))}
    heads, head_dim = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    inner = heads * head_dim
    hidden = draw(st.sampled_from([d for d in range(1, inner + 1) if inner % d == 0]))
    return {**common, "hidden_size": hidden, "expand": inner // hidden, "num_heads": heads,
            "head_dim": head_dim, "n_groups": draw(st.integers(1, 3))}


@pytest.mark.parametrize("name", list(REFERENCES))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_tensors_match_the_reference(name: str, data: st.DataObject) -> None:
    """Random configurations: every tensor's name and shape, in order, equal the reference's."""
    raw = data.draw(raw_settings(name))
    config = families.config_class(name)(**{k: "auto" if v is None else v
                                            for k, v in raw.items()})
    assert ours(name, config) == reference_parameters(name, raw)


@pytest.mark.parametrize(("family", "data", "total"), list(PUBLISHED.values()),
                         ids=list(PUBLISHED))
def test_published_models_match_the_reference(family: str, data: dict[str, Any],
                                              total: int) -> None:
    """Each published model's config, read by us and built by transformers, has the same
    tensors and the published total."""
    config = families.family(family).from_hf_config(data)
    reference = reference_parameters(family, {f: getattr(config, f) for f in fields(config)
                                              if f in REFERENCE_FIELDS[family]})
    assert ours(family, config) == reference
    assert sum(math.prod(shape) for _, shape in reference) == total


@pytest.mark.skipif(not have("mambapy"), reason="mambapy is not installed")
@settings(max_examples=8, deadline=None)
@given(d=st.integers(1, 40), layers=st.integers(1, 3), state=st.integers(1, 8),
       expand=st.integers(1, 3), conv=st.integers(1, 5), rank=st.one_of(st.just("auto"),
                                                                        st.integers(1, 6)),
       bias=st.booleans(), conv_bias=st.booleans())
def test_mamba_blocks_match_mambapy(d: int, layers: int, state: int, expand: int, conv: int,
                                    rank: int | str, bias: bool, conv_bias: bool) -> None:
    """A second reference for Mamba's blocks: mambapy's ``Mamba`` (a stack of blocks, no
    embeddings) holds the same tensors by name and shape (it registers them in another
    order: in_proj first, the norm last)."""
    import torch
    from mambapy.mamba import Mamba
    from mambapy.mamba import MambaConfig as PyConfig

    from paramcount.families import mamba

    with torch.device("meta"):
        model = Mamba(PyConfig(d_model=d, n_layers=layers, dt_rank=rank, d_state=state,
                               expand_factor=expand, d_conv=conv, bias=bias,
                               conv_bias=conv_bias))
    config = mamba.MambaConfig(hidden_size=d, num_hidden_layers=layers, state_size=state,
                               expand=expand, conv_kernel=conv, use_bias=bias,
                               use_conv_bias=conv_bias, time_step_rank=rank)
    blocks = {t.name: t.shape for i in range(layers)
              for t in mamba.block_tensors(config, i, prefix="")}
    assert blocks == {n: tuple(p.shape) for n, p in model.named_parameters()}
