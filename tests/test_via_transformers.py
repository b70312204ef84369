"""``--via transformers``: a model type paramcount does not model is refused with its name, and
with transformers installed counted as transformers builds it on the meta device, from the
built tree (no closed form claimed), never running code from the hub."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CLI, have

REFERENCE = pytest.mark.skipif(not (have("torch") and have("transformers")),
                               reason="torch and transformers are not installed")

TINY: dict[str, dict[str, Any]] = {
    "llama": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 64},
}
"""Tiny configs of model types transformers builds and paramcount does not model."""


def _folder(tmp_path: Path, model_type: str) -> Path:
    """A folder holding only the tiny ``model_type`` config.json, as transformers writes it."""
    import transformers

    folder = tmp_path / model_type
    transformers.AutoConfig.for_model(model_type, **TINY[model_type]).save_pretrained(folder)
    return folder


def _reference(folder: Path) -> int:
    """transformers' own count: the config read back, the causal LM built on the meta device."""
    import torch
    import transformers

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.AutoConfig.from_pretrained(folder)
        with torch.device("meta"):
            model = transformers.AutoModelForCausalLM.from_config(config)
    return sum(p.numel() for p in model.parameters())


@REFERENCE
@pytest.mark.parametrize("model_type", list(TINY))
def test_an_unmodelled_type_is_refused_then_counted_via_transformers(
        cli: CLI, tmp_path: Path, model_type: str) -> None:
    """``inspect DIR`` and a family's ``--config`` refuse the model type by name (exit 2); with
    ``--via transformers`` both give transformers' own total, its modules summing to it."""
    folder = _folder(tmp_path, model_type)
    config = str(folder / "config.json")
    for args in (["inspect", str(folder)], ["lfm2", "--config", config]):
        refused = cli(*args)
        assert (refused.code, refused.out, refused.err.count("\n")) == (2, "", 1)
        assert f"model_type {model_type!r}" in refused.err
        assert "--via transformers" in refused.err
    expected = _reference(folder)
    for args in (["inspect", str(folder)], ["bamba", "--config", config]):
        result = cli(*args, "--via", "transformers", "--json")
        assert result.code == 0, result.err
        data = json.loads(result.out)
        assert (data["model_type"], data["total"], data["closed_form"]) == (
            model_type, expected, False)
        assert sum(m["total"] for m in data["modules"]) == expected
    text = cli("inspect", str(folder), "--via", "transformers")
    assert f"{expected:,} parameters" in text.out
    assert "no closed form" in " ".join(text.out.split())


@REFERENCE
def test_hub_code_is_never_run(cli: CLI, tmp_path: Path) -> None:
    """A model type transformers does not ship is refused even with an ``auto_map`` naming
    code on the hub; beside a type it ships, the ``auto_map`` is ignored and said so."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "evil_model", "auto_map": {
        "AutoModelForCausalLM": "someone/repo--modeling_evil.EvilForCausalLM"}}))
    result = cli("inspect", str(path.parent), "--via", "transformers")
    assert (result.code, result.out, result.err.count("\n")) == (2, "", 1)
    assert "runs no code from the hub" in result.err
    folder = _folder(tmp_path, "llama")
    data = json.loads((folder / "config.json").read_text())
    data["auto_map"] = {"AutoModelForCausalLM": "someone/repo--modeling.Other"}
    (folder / "config.json").write_text(json.dumps(data))
    built = json.loads(cli("inspect", str(folder), "--via", "transformers", "--json").out)
    assert built["total"] == _reference(folder)
    assert any("auto_map" in note for note in built["notes"])


@REFERENCE
def test_a_config_transformers_refuses_is_one_line(cli: CLI, tmp_path: Path) -> None:
    """A config transformers cannot build (LFM2-MoE's defaults list no layer types) is one
    line naming the error, exit 2."""
    import transformers

    transformers.AutoConfig.for_model("lfm2_moe").save_pretrained(tmp_path)
    result = cli("inspect", str(tmp_path), "--via", "transformers")
    assert (result.code, result.out, result.err.count("\n")) == (2, "", 1)
    assert "transformers could not build it" in result.err


@pytest.mark.parametrize(("args", "says"), [
    (["bamba", "--via", "transformers"], "give --config FILE"),
    (["bamba", "--config", "examples/hf/bamba-9b/config.json", "--via", "transformers",
      "--context", "8"], "give --config and an output format only"),
], ids=["no-config", "other-options"])
def test_via_takes_a_config_alone(cli: CLI, args: list[str], says: str) -> None:
    """A family's ``--via transformers`` needs ``--config`` and takes no model option."""
    result = cli(*args)
    assert (result.code, result.out, result.err.count("\n")) == (2, "", 1)
    assert says in result.err


def test_without_transformers_it_says_what_to_install(cli: CLI, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Without transformers (or torch), ``--via transformers`` exits 3 naming what to
    install."""
    monkeypatch.setitem(sys.modules, "transformers", None)
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "qwen3_next"}))
    result = cli("inspect", str(tmp_path), "--via", "transformers")
    assert (result.code, result.out, result.err.count("\n")) == (3, "", 1)
    assert "pip install" in result.err
