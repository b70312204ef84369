"""``inspect DIR`` on folders saved by transformers' ``save_pretrained`` for every family,
causal LMs and base model classes alike: the family recognised from the weights, counted as
the model's own ``parameters()``, and the folder's config.json read back to the same tensors."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CLI, have

pytestmark = [
    pytest.mark.torch,
    pytest.mark.skipif(not (have("torch") and have("transformers") and have("safetensors")),
                       reason="torch, transformers and safetensors are needed"),
]

TINY: dict[str, tuple[str, dict[str, Any]]] = {
    "mamba": ("MambaConfig", {"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 2,
                              "state_size": 4, "time_step_rank": 3,
                              "tie_word_embeddings": False}),
    "falcon_mamba": ("FalconMambaConfig", {"vocab_size": 40, "hidden_size": 16,
                                           "num_hidden_layers": 2, "state_size": 4}),
    "mamba2": ("Mamba2Config", {"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 2,
                                "num_heads": 4, "head_dim": 8, "n_groups": 2,
                                "state_size": 4}),
    "rwkv": ("RwkvConfig", {"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 2,
                            "attention_hidden_size": 8, "intermediate_size": 24}),
    "xlstm": ("xLSTMConfig", {"vocab_size": 40, "hidden_size": 64, "embedding_dim": 64,
                              "num_hidden_layers": 2, "num_blocks": 2, "num_heads": 2}),
    "rglru": ("RecurrentGemmaConfig", {"vocab_size": 40, "hidden_size": 32,
                                       "intermediate_size": 48, "num_attention_heads": 2,
                                       "num_key_value_heads": 1, "num_hidden_layers": 3,
                                       "attention_window_size": 16}),
}
"""A tiny configuration of each transformers family (Falcon-Mamba counts as ``mamba``)."""

CLASSES = {"mamba": "Mamba", "falcon_mamba": "FalconMamba", "mamba2": "Mamba2", "rwkv": "Rwkv",
           "xlstm": "xLSTM", "rglru": "RecurrentGemma"}
CASES = [(name, kind) for name in TINY for kind in ("ForCausalLM", "Model")]


def save_model(directory: Path, name: str, kind: str) -> Any:
    """``{Family}{kind}`` built from the tiny config, saved to ``directory``; the model."""
    import torch
    import transformers

    config_name, settings = TINY[name]
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = getattr(transformers, config_name)(**settings)
        model = getattr(transformers, CLASSES[name] + kind)(config)
        model.save_pretrained(directory, safe_serialization=True)
    return model


@pytest.mark.parametrize(("name", "kind"), CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_a_saved_folder_is_recognised(cli: CLI, tmp_path: Path, name: str, kind: str) -> None:
    """Every tensor of the folder belongs to one recognised family model, whose count is the
    model's own; the config.json beside it describes the same tensors; the command paramcount
    writes for it, the family command on the config.json, and the folder's config.json alone
    (no weights) all count the same."""
    model = save_model(tmp_path / "saved", name, kind)
    total = sum(p.numel() for p in model.parameters())
    result = cli("inspect", str(tmp_path / "saved"), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["total"] == total
    (found,) = data["recurrent"]
    family = "mamba" if name == "falcon_mamba" else name
    assert (found["family"], found["params"]) == (family, total)
    assert found["match"]
    assert found["command"].endswith(" --base") == (kind == "Model")
    again = cli(*found["command"].split()[1:], "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out)["total"] == total
    again = cli(family, "--config", str(tmp_path / "saved" / "config.json"), "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out)["total"] == total
    alone = tmp_path / "config-only"
    alone.mkdir()
    (alone / "config.json").write_text((tmp_path / "saved" / "config.json").read_text())
    result = cli("inspect", str(alone), "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["total"] == total
