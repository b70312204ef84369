"""``paramcount read`` on pasted transformers code that builds a Mamba, Mamba-2 or RWKV model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.families import registry as families
from tests.conftest import CLI

PASTES = {
    "causal-lm": ("from transformers import MambaConfig, MambaForCausalLM\n"
                  "config = MambaConfig(hidden_size=768, num_hidden_layers=24)\n"
                  "model = MambaForCausalLM(config)\n",
                  families.family("mamba").from_hf_config(
                      {"hidden_size": 768, "num_hidden_layers": 24}), False),
    "backbone": ("import transformers\n"
                 "m = transformers.RwkvModel(transformers.RwkvConfig(hidden_size=64,\n"
                 "    num_hidden_layers=2, vocab_size=10))\n",
                 families.family("rwkv").from_hf_config(
                     {"hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 10}), True),
    "config-alone": ("from transformers import Mamba2Config\n"
                     "c = Mamba2Config(hidden_size=64, num_heads=2, head_dim=64, "
                     "vocab_size=10, num_hidden_layers=1)\n",
                     families.family("mamba2").from_hf_config(
                         {"hidden_size": 64, "num_heads": 2, "head_dim": 64, "vocab_size": 10,
                          "num_hidden_layers": 1}), False),
}


@pytest.mark.parametrize(("text", "config", "backbone"), list(PASTES.values()), ids=list(PASTES))
def test_a_pasted_model_is_counted(cli: CLI, tmp_path: Path, text: str, config: object,
                                   backbone: bool) -> None:
    """The paste's model holds what its family's convention counts (the backbone without its
    head)."""
    path = tmp_path / "paste.py"
    path.write_text(text)
    result = cli("read", str(path), "--json")
    assert result.code == 0, result.err
    (model,) = json.loads(result.out)["models"]
    name = type(config).__module__.rsplit(".", 1)[-1]
    tensors = families.family(name).tensors(config)
    expected = sum(t.count for t in tensors if not (backbone and t.name == "head.weight"))
    assert model["total"] == expected


def test_an_unknown_size_is_asked_for(cli: CLI, tmp_path: Path) -> None:
    """A size the paste leaves open is listed, and --set gives it."""
    path = tmp_path / "paste.py"
    path.write_text("from transformers import MambaConfig, MambaForCausalLM\n"
                    "model = MambaForCausalLM(MambaConfig(hidden_size=d, vocab_size=10,"
                    " num_hidden_layers=1))\n")
    data = json.loads(cli("read", str(path), "--json").out)
    assert data["models"][0]["total"] is None
    assert [m["name"] for m in data["unresolved"]] == ["d"]
    data = json.loads(cli("read", str(path), "--set", "d=16", "--json").out)
    config = families.family("mamba").from_hf_config({"hidden_size": 16, "vocab_size": 10,
                                                      "num_hidden_layers": 1})
    assert data["models"][0]["total"] == sum(t.count for t in
                                             families.family("mamba").tensors(config))
