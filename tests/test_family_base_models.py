"""Base model classes (``MambaModel``, ``xLSTMModel``, ``RecurrentGemmaModel`` …: no head,
names without the backbone's prefix) round-trip: random config → the base model's tensors,
alone or under a prefix → recognised as that family's base model, every tensor claimed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.families import registry as families
from tests.test_families import mamba2_configs, mamba_configs, rwkv_configs
from tests.test_family_rglru import CONFIGS as RGLRU
from tests.test_family_xlstm import HF as XLSTM

STRATEGIES: dict[str, Any] = {
    "mamba": mamba_configs(), "mamba2": mamba2_configs(),
    "rwkv": rwkv_configs().filter(lambda c: c.version == 4), "xlstm": XLSTM, "rglru": RGLRU}
"""The families whose reference has a base model class, and random configs of each."""


@pytest.mark.parametrize("name", list(STRATEGIES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), prefix=st.sampled_from(["", "encoder."]))
def test_a_base_model_is_recognised(name: str, data: st.DataObject, prefix: str) -> None:
    """The base model's tensors are one model of the family, marked as the base class, whose
    base tensors are exactly those found."""
    config = data.draw(STRATEGIES[name])
    shapes = {prefix + t.name: t.shape for t in families.tensors(name, config, base=True)}
    found = families.recognise({"other.weight": (3, 3), **shapes})
    assert len(found) == 1
    (model,) = found
    assert (model.family, model.prefix, model.base) == (name, prefix, True)
    assert set(model.names) == set(shapes)
    assert {prefix + t.name: t.shape
            for t in families.tensors(name, model.config, base=True)} == shapes


def test_the_base_command_counts_without_the_head(cli: Any) -> None:
    """``--base`` drops the head and the backbone's prefix from the family command's answer."""
    import json

    causal = json.loads(cli("mamba", "--d-model", "8", "-L", "1", "--vocab", "10", "--no-tie",
                            "--json").out)
    base = json.loads(cli("mamba", "--d-model", "8", "-L", "1", "--vocab", "10", "--no-tie",
                          "--base", "--json").out)
    assert base["base"] and not causal["base"]
    assert causal["total"] - base["total"] == 10 * 8
    assert [t["name"] for t in base["tensors"]] == [
        t["name"].removeprefix("backbone.") for t in causal["tensors"]
        if t["name"] != "lm_head.weight"]
    assert base["formula"]["total"] == base["total"]
