"""Explaining a family model: what each option adds, the same-width LSTM and GRU, the
bidirectional Mamba; every number checked against the closed forms."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.families import mamba
from paramcount.families import registry as families
from paramcount.families.explain import bidirectional, knob_change, knob_changes, same_width
from paramcount.record import replace
from tests.conftest import CLI
from tests.test_families import CONFIGS


@pytest.mark.parametrize("name", list(CONFIGS))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_each_option_adds_what_the_closed_forms_say(name: str, data: st.DataObject) -> None:
    """Every option's change equals the difference of the two closed forms, and the tensor
    rows add up to it."""
    config = data.draw(CONFIGS[name])
    module = families.family(name)
    for change in knob_changes(name, config):
        if change.refused:
            continue
        other = replace(config, **{change.field: change.after})
        assert change.delta == module.formula(other).total - module.formula(config).total
        assert change.delta == sum(t.delta for t in change.tensors)


def test_state_size_16_to_64() -> None:
    """mamba-130m's d_state 16 → 64 adds 48 columns to A_log and 96 rows to x_proj per block:
    24 · 1,536 · 144."""
    config = mamba.MambaConfig(hidden_size=768, num_hidden_layers=24)
    change = knob_change("mamba", config, "state_size", 64)
    assert change.delta == 24 * 1536 * (48 + 96)
    assert [t.pattern for t in change.tensors] == ["backbone.layers.#.mixer.A_log",
                                                   "backbone.layers.#.mixer.x_proj.weight"]


def test_a_change_the_reference_refuses_is_said() -> None:
    """Mamba-2's heads alone cannot double: the reference's rule is given instead."""
    config = families.config_class("mamba2")(hidden_size=64, num_heads=8, head_dim=16)
    change = knob_change("mamba2", config, "num_heads", 16)
    assert "must equal" in change.refused and change.tensors == ()


def test_bidirectional_mamba_is_not_twice() -> None:
    """The reverse mixer adds its conv, x_proj, dt_proj, A_log and D per block (projections
    tied), or a whole mixer (untied); embeddings, norms and head stay single."""
    config = mamba.MambaConfig(vocab_size=100, hidden_size=64, num_hidden_layers=3,
                               state_size=8, conv_kernel=4)
    e, n, k, r = 128, 8, 4, 4
    reverse = e * n + e + e * k + e + e * (r + 2 * n) + r * e + e
    bi = bidirectional(mamba.tensors(config))
    total = mamba.formula(config).total
    assert bi.tied == total + 3 * reverse
    assert bi.untied == bi.tied + 3 * (2 * e * 64 + 64 * e)
    assert bi.naive == 2 * total > bi.untied


def test_same_width_layers() -> None:
    """One block beside nn.LSTM(D, D) and nn.GRU(D, D): 4·D·(2D + 2) and 3·D·(2D + 2)."""
    config = mamba.MambaConfig(hidden_size=64, num_hidden_layers=2)
    width = same_width(config, mamba.tensors(config))
    assert (width.lstm, width.gru) == (4 * 64 * 130, 3 * 64 * 130)
    assert width.blocks_total == 2 * width.block


def test_explain_is_the_command_with_explain(cli: CLI) -> None:
    """``explain mamba ...`` prints what ``mamba ... --explain`` prints, with its sections."""
    args = ["--d-model", "64", "-L", "2", "--vocab", "10"]
    routed, direct = cli("explain", "mamba", *args), cli("mamba", *args, "--explain")
    assert routed.code == direct.code == 0 and routed.out == direct.out
    for title in ("What each option adds", "Against an LSTM or GRU of the same width",
                  "Bidirectional (Vision Mamba, Caduceus)"):
        assert title in routed.out


def test_what_if_json(cli: CLI) -> None:
    """--what-if in JSON: the change tensor by tensor, beside every option's."""
    result = cli("rwkv", "--version", "7", "--n-embd", "64", "--n-layer", "2", "--vocab", "5",
                 "--what-if", "gate_lora=64", "--json")
    data = json.loads(result.out)["explanation"]
    (change,) = data["what_if"]
    assert (change["field"], change["before"], change["after"]) == ("gate_lora", 32, 64)
    assert change["delta"] == 2 * 2 * 64 * 32
    assert data["bidirectional"] is None


@pytest.mark.parametrize(("setting", "message"), [
    ("state", "is not FIELD=VALUE"), ("colour=3", "is not FIELD=VALUE"),
    ("state_size=x", "'x' is not a whole number"), ("use_bias=maybe", "true or false"),
], ids=["no-equals", "unknown", "not-a-count", "not-a-bool"])
def test_bad_what_if(cli: CLI, setting: str, message: str) -> None:
    """A --what-if that names no field or a bad value: one line, exit 2."""
    result = cli("mamba", "--what-if", setting)
    assert result.code == 2 and message in result.err and result.err.count("\n") == 1


def test_compare_across_families(cli: CLI) -> None:
    """compare puts a family model beside an LSTM, and names what changed within a family;
    every total is its own command's."""
    first, second = "mamba --d-model 32 -L 2 --vocab 9", "mamba --d-model 32 -L 3 --vocab 9"
    result = cli("compare", first, second, "lstm -i 32 -H 32 -L 2", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    totals = [c["total"] for c in data["configurations"]]
    for text, total in zip((first, second, "lstm -i 32 -H 32 -L 2"), totals, strict=True):
        assert json.loads(cli(*text.split(), "--json").out)["total"] == total
    (pair,) = data["changes"]
    assert (pair["from"], pair["to"], pair["change"]["field"]) == (first, second,
                                                                    "num_hidden_layers")
    assert pair["change"]["delta"] == totals[1] - totals[0]


@pytest.mark.parametrize(("args", "message"), [
    (["mamba --d-model 0", "lstm -i 3 -H 4"], "argument 1 ('mamba --d-model 0'): --hidden-size 0"),
    (["mamba --json", "mamba"], "give the model's options only"),
    (["mamba", "mamba", "--verify"], "--frameworks and --verify compare"),
], ids=["bad-value", "output-option", "verify"])
def test_compare_refuses(cli: CLI, args: list[str], message: str) -> None:
    """Bad family arguments to compare: one line, exit 2."""
    result = cli("compare", *args)
    assert result.code == 2 and message in result.err, result.err
