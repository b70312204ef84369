"""Qwen3.5's and Qwen3.5-MoE's vision-language models (model_type ``qwen3_5``,
``qwen3_5_moe``) against transformers: ``…ForConditionalGeneration`` built on the meta device
from random configs and from the class's defaults, every ``named_parameters()`` name and shape
in order, as paramcount reads the same ``config.json``; and ``inspect`` on the folders
``save_pretrained`` writes."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.families import registry as families
from tests.conftest import CLI, have
from tests.hybrid_strategies import STRATEGIES

pytestmark = [
    pytest.mark.torch,
    pytest.mark.skipif(not (have("torch") and have("transformers") and have("safetensors")),
                       reason="torch, transformers and safetensors are needed"),
]

MODELS = {"qwen3.5": ("Qwen3_5Config", "Qwen3_5ForConditionalGeneration"),
          "qwen3.5-moe": ("Qwen3_5MoeConfig", "Qwen3_5MoeForConditionalGeneration")}
"""Each family's vision-language config class and model class in transformers."""


@st.composite
def towers(draw: st.DrawFn) -> dict[str, Any]:
    """Qwen3_5VisionConfig keywords (no more heads than the width: each at least 1 wide, as
    transformers needs; the width need not be a multiple of them)."""
    width = draw(st.integers(1, 12))
    return {"depth": draw(st.integers(1, 3)), "num_heads": draw(st.integers(1, width)),
            "hidden_size": width,
            "intermediate_size": draw(st.integers(1, 12)), "in_channels": draw(st.integers(1, 3)),
            "patch_size": draw(st.integers(1, 3)),
            "temporal_patch_size": draw(st.integers(1, 2)),
            "spatial_merge_size": draw(st.integers(1, 2)),
            "out_hidden_size": draw(st.integers(1, 12)),
            "num_position_embeddings": draw(st.integers(1, 9))}


def reference(name: str, data: dict[str, Any]) -> list[tuple[str, tuple[int, ...]]]:
    """``named_parameters()`` of transformers' vision-language model of ``config.json`` object
    ``data``, built on the meta device."""
    import torch
    import transformers

    config_name, model_name = MODELS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = getattr(transformers, config_name).from_dict(
            {k: v for k, v in data.items() if k != "model_type"})
        with torch.device("meta"):
            model = getattr(transformers, model_name)(config)
    return [(n, tuple(p.shape)) for n, p in model.named_parameters()]


def written(name: str, **keywords: Any) -> dict[str, Any]:
    """The ``config.json`` object transformers writes for ``keywords``."""
    import transformers

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data: dict[str, Any] = getattr(transformers, MODELS[name][0])(**keywords).to_dict()
    return data


def ours(name: str, data: dict[str, Any]) -> tuple[list[tuple[str, tuple[int, ...]]], int]:
    """paramcount's tensors of ``config.json`` object ``data`` read by family ``name``, and
    its closed form's total."""
    module = families.family(name)
    config = families.load(name, data).config
    return [(t.name, t.shape) for t in module.tensors(config)], module.formula(config).total


@pytest.mark.parametrize("name", list(MODELS))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_tensors_match_the_reference(name: str, data: st.DataObject) -> None:
    """Random text and vision configs, the head tied or not by the top-level flag (the text
    config's own flag drawn apart): every tensor's name and shape, in order, and the closed
    form's total equal transformers'."""
    text = data.draw(STRATEGIES[name])
    tower = data.draw(towers())
    tie = data.draw(st.booleans())
    saved = written(name, text_config=text, vision_config=tower, tie_word_embeddings=tie)
    theirs = reference(name, saved)
    tensors, total = ours(name, saved)
    assert tensors == theirs
    assert total == sum(math.prod(shape) for _, shape in theirs)


DEFAULTS = {"qwen3.5": 9_407_453_936, "qwen3.5-moe": 35_114_261_360}
"""Each vision-language config class's defaults counted (docs/families.md)."""


@pytest.mark.parametrize(("name", "total"), list(DEFAULTS.items()))
def test_the_documented_default_counts_are_transformers(name: str, total: int) -> None:
    """docs/families.md's count of each class's default config is the total of the model
    transformers builds on the meta device, tensor by tensor."""
    saved = written(name)
    theirs = reference(name, saved)
    assert ours(name, saved) == (theirs, total)
    assert sum(math.prod(shape) for _, shape in theirs) == total


TEXT = {"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 8, "linear_conv_kernel_dim": 3,
        "linear_key_head_dim": 4, "linear_value_head_dim": 4, "linear_num_key_heads": 2,
        "linear_num_value_heads": 2, "layer_types": ["linear_attention", "full_attention"]}
FOLDERS: dict[str, dict[str, Any]] = {
    "qwen3.5": {**TEXT, "intermediate_size": 24},
    "qwen3.5-moe": {**TEXT, "num_experts": 3, "num_experts_per_tok": 2,
                    "moe_intermediate_size": 8, "shared_expert_intermediate_size": 12}}
"""Each family's tiny text config for the saved folders."""
VISION = {"depth": 2, "hidden_size": 8, "intermediate_size": 12, "num_heads": 2,
          "patch_size": 2, "out_hidden_size": 16, "num_position_embeddings": 4}


def _save(name: str, folder: Path, tie: bool, weights: bool) -> int:
    """A tiny vision-language model of family ``name`` saved to ``folder`` (its config.json
    alone without ``weights``); its parameters."""
    import torch
    import transformers

    config_name, model_name = MODELS[name]
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = getattr(transformers, config_name)(
            text_config=FOLDERS[name], vision_config=VISION, tie_word_embeddings=tie)
        model = getattr(transformers, model_name)(config)
        if weights:
            model.save_pretrained(folder, safe_serialization=True)
        else:
            config.save_pretrained(folder)
    return sum(p.numel() for p in model.parameters())


FOLDER_CASES = [(name, tie, weights, config) for name in MODELS for tie in (False, True)
                for weights, config in ((True, True), (True, False), (False, True))]


@pytest.mark.parametrize(("name", "tie", "weights", "config"), FOLDER_CASES,
                         ids=[f"{n}-{'tied' if t else 'untied'}-"
                              f"{'weights' if w else 'config-only'}{'' if c else '-no-config'}"
                              for n, t, w, c in FOLDER_CASES])
def test_a_saved_vision_language_model_is_counted(cli: CLI, tmp_path: Path, name: str,
                                                  tie: bool, weights: bool,
                                                  config: bool) -> None:
    """``inspect`` on the folder (weights with and without config.json, config.json alone)
    counts the model's own parameters, as one model of the family (its experts stored one by
    one included), and the command it gives counts the same."""
    total = _save(name, tmp_path, tie, weights)
    if not config:
        (tmp_path / "config.json").unlink()
    result = cli("inspect", str(tmp_path), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["total"] == total
    (found,) = data["recurrent"]
    assert (found["family"], found["params"]) == (name, total)
    assert found["match"]
    words = found["command"].split()  # its config.json read, else the folder inspected again
    assert words[1:] == ([name, "--config", str(tmp_path / "config.json")] if config
                         else ["inspect", str(tmp_path)])
    again = cli(*words[1:], "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out)["total"] == total


@pytest.mark.parametrize(("command", "other"), [("qwen3.5-moe", "qwen3.5"),
                                                ("qwen3.5", "qwen3.5-moe"),
                                                ("lfm2", "qwen3.5")])
def test_another_familys_command_refuses_it(cli: CLI, tmp_path: Path, command: str,
                                            other: str) -> None:
    """A vision-language config.json given to another family's command is refused in one line
    naming the command that counts it."""
    _save(other, tmp_path, False, False)
    result = cli(command, "--config", str(tmp_path / "config.json"))
    assert (result.code, result.out, result.err.count("\n")) == (2, "", 1), result.err
    assert f"count it with 'paramcount {other} --config" in result.err


@pytest.mark.parametrize("name", list(MODELS))
def test_the_base_model_class_is_the_model_without_its_head(name: str) -> None:
    """``--base``: ``Qwen3_5Model`` (and the MoE's), the tower and the decoder without ``model.``
    and without the head, as transformers builds it."""
    import torch
    import transformers

    saved = written(name, text_config=FOLDERS[name], vision_config=VISION)
    config = families.load(name, saved).config
    base = MODELS[name][1].replace("ForConditionalGeneration", "Model")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(transformers, MODELS[name][0]).from_dict(saved)
        with torch.device("meta"):
            model = getattr(transformers, base)(theirs)
    assert [(t.name, t.shape) for t in families.tensors(name, config, base=True)] == [
        (n, tuple(p.shape)) for n, p in model.named_parameters()]


@pytest.mark.parametrize("name", list(MODELS))
def test_options_change_the_decoder_and_the_tie_the_head(cli: CLI, tmp_path: Path,
                                                         name: str) -> None:
    """On a vision-language config.json, ``--tie`` ties the head as the top-level flag does
    (``--what-if`` the same), a decoder option changes the decoder, and ``--explain`` explains
    the decoder's blocks: each as transformers counts it."""
    untied = _save(name, tmp_path, False, False)
    path = str(tmp_path / "config.json")
    tied = json.loads(cli(name, "--config", path, "--tie", "--json").out)["total"]
    what_if = json.loads(cli(name, "--config", path, "--what-if", "tie_word_embeddings=true",
                             "--json").out)
    wider = json.loads(cli(name, "--config", path, "--hidden-size", "32", "--json").out)
    saved = written(name, text_config=FOLDERS[name], vision_config=VISION)
    assert tied == untied - 40 * 16 == sum(math.prod(s) for _, s in reference(
        name, {**saved, "tie_word_embeddings": True}))
    (change,) = what_if["explanation"]["what_if"]
    assert (change["total_before"], change["total_after"]) == (untied, tied)
    assert wider["total"] == sum(math.prod(s) for _, s in reference(
        name, {**saved, "text_config": {**saved["text_config"], "hidden_size": 32}}))
    explained = cli(name, "--config", path, "--explain")
    assert explained.code == 0, explained.err
    assert "nn.LSTM(16, 16)" in explained.out


HOSTILE: dict[str, tuple[dict[str, Any], str]] = {
    "vision-not-an-object": ({"vision_config": "big"}, "vision_config must be an object"),
    "text-not-an-object": ({"text_config": [1, 2]}, "text_config must be an object"),
    "no-blocks": ({"vision_config": {"depth": 0}}, "vision_config: depth=0"),
    "a-float-width": ({"vision_config": {"hidden_size": 11.5}},
                      "vision_config: hidden_size=11.5"),
    "patch-as-a-list": ({"vision_config": {"patch_size": [16, 16]}},
                        "vision_config: patch_size=[16, 16]"),
    "more-heads-than-width": ({"vision_config": {"hidden_size": 8, "num_heads": 9}},
                              "vision_config: num_heads=9 is more than hidden_size=8"),
    "a-tie-as-text": ({"tie_word_embeddings": "yes"}, "tie_word_embeddings='yes'"),
    "a-bad-decoder": ({"text_config": {"num_hidden_layers": -3}},
                      "text_config: num_hidden_layers=-3"),
}
"""Vision-language config.json files paramcount must refuse, and what the line names."""


@pytest.mark.parametrize(("changed", "says"), list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_bad_vision_language_config_is_one_line(cli: CLI, tmp_path: Path,
                                                  changed: dict[str, Any], says: str) -> None:
    """A broken ``qwen3_5`` config.json is refused with exit 2 and one line naming what is
    wrong, by the family command and by ``inspect`` alike, never a traceback."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "qwen3_5", **changed}))
    for args in (("qwen3.5", "--config", str(path)), ("inspect", str(tmp_path))):
        result = cli(*args)
        assert (result.code, result.out, result.err.count("\n")) == (2, "", 1), result.err
        assert says in result.err


@pytest.mark.parametrize(("top", "text", "noted"), [(False, True, True), (True, False, True),
                                                    (True, True, False), (False, None, False)],
                         ids=["text-tied", "top-tied", "both", "text-unsaid"])
def test_the_text_configs_tie_is_noted_where_it_differs(top: bool, text: bool | None,
                                                        noted: bool) -> None:
    """A ``text_config`` whose ``tie_word_embeddings`` differs from the top-level flag is
    noted (transformers ties the head by the top-level one alone); the count follows the
    top-level flag."""
    inner = {**FOLDERS["qwen3.5"], **({} if text is None else {"tie_word_embeddings": text})}
    data = {"model_type": "qwen3_5", "text_config": inner, "vision_config": VISION,
            "tie_word_embeddings": top}
    reading = families.load("qwen3.5", data)
    said = [n for n in reading.notes if "is not what transformers ties the head by" in n]
    assert bool(said) == noted
    assert reading.config.tie_word_embeddings is top
    assert ours("qwen3.5", data)[0] == reference("qwen3.5", data)

