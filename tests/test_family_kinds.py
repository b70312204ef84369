"""A config is counted only as what it is: a family command refuses, in one line, a config.json
whose ``model_type`` or ``architectures`` names another family (giving the command that counts
it) or a model no family models (saying so), and never gives a number for the wrong class."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from paramcount.errors import ConfigError
from paramcount.families import registry as families
from tests.conftest import CLI
from tests.hybrid_strategies import NEEDED

CROSS = [(name, model_type, other) for name in families.FAMILIES
         for model_type, other in families.MODEL_TYPES.items() if other != name]
"""Every family command × every model type of every other family."""

CROSS_CLASSES = [(name, cls, other) for name in families.FAMILIES
                 for cls, (other, built) in families.CLASSES.items()
                 if other != name and built == "lm"]
"""Every family command × every other family's causal LM class, named in ``architectures``."""

UNMODELLED = ("lfm2_vl", "qwen4_exp", "lfm3_vl", "llama")
"""Model types transformers builds that no family models (a mixer not modelled yet, a
vision-language wrapper, a decoder with no recurrent mixer)."""


def _write(tmp_path: Path, data: dict[str, Any]) -> str:
    """``data`` written as ``tmp_path/config.json``; its path."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize(("name", "model_type", "other"), CROSS,
                         ids=[f"{n}-on-{t}" for n, t, _ in CROSS])
def test_a_family_refuses_another_familys_model_type(tmp_path: Path, name: str,
                                                     model_type: str, other: str) -> None:
    """``paramcount NAME --config`` on a file of another family's model type names the
    command that counts it, and counts nothing."""
    path = _write(tmp_path, {"model_type": model_type})
    with pytest.raises(ConfigError) as raised:
        families.build(name, {}, path)
    message = str(raised.value)
    assert f"model_type {model_type!r}" in message
    assert f"(count it with 'paramcount {other} --config {path}')" in message
    assert "\n" not in message


@pytest.mark.parametrize(("name", "cls", "other"), CROSS_CLASSES,
                         ids=[f"{n}-on-{c}" for n, c, _ in CROSS_CLASSES])
def test_a_family_refuses_another_familys_class(tmp_path: Path, name: str, cls: str,
                                                other: str) -> None:
    """A file naming only another family's class in ``architectures`` is refused the same
    way."""
    path = _write(tmp_path, {"architectures": [cls]})
    with pytest.raises(ConfigError, match=f"count it with 'paramcount {other} --config"):
        families.build(name, {}, path)


@pytest.mark.parametrize("name", list(families.FAMILIES))
@pytest.mark.parametrize("model_type", UNMODELLED)
def test_a_family_refuses_a_model_type_nobody_models(tmp_path: Path, name: str,
                                                     model_type: str) -> None:
    """A model type no family models is refused with its name, saying it is not modelled."""
    path = _write(tmp_path, {"model_type": model_type, "hidden_size": 64})
    with pytest.raises(ConfigError, match=f"model_type '{model_type}' is not a model "
                                          "paramcount models"):
        families.build(name, {}, path)


@pytest.mark.parametrize(("name", "cls"), [("lfm2", "Lfm2VlForConditionalGeneration"),
                                           ("bamba", "Qwen4ExpForConditionalGeneration"),
                                           ("mamba", "Glm5NextForConditionalGeneration")])
def test_an_unmodelled_class_is_refused(tmp_path: Path, name: str, cls: str) -> None:
    """A class in ``architectures`` that no family is (its name only starting like one's) is
    refused, beside a model type of the family itself too."""
    for data in ({"architectures": [cls]}, {"model_type": name, "architectures": [cls]}):
        path = _write(tmp_path, data)
        with pytest.raises(ConfigError, match=f"architectures '{cls}' is not a model"):
            families.build(name, {}, path)


@pytest.mark.parametrize(("model_type", "name"), list(families.MODEL_TYPES.items()))
def test_a_familys_own_model_types_and_classes_are_read(model_type: str, name: str) -> None:
    """Each model type a family models, and each of its classes, is its own: not refused."""
    families.refuse_other(name, {"model_type": model_type}, "config.json")
    for cls in (c for c, (f, _) in families.CLASSES.items() if f == name):
        families.refuse_other(name, {"model_type": model_type, "architectures": [cls]},
                              "config.json")


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The default config.json of each model type the issue names, as transformers writes it."""
    transformers = pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp("shipped")
    made = {}
    for model_type in ("lfm2_moe", "granitemoehybrid", "qwen3_next", "qwen3_5"):
        config = transformers.AutoConfig.for_model(model_type)
        config.architectures = [type(config).__name__.replace("Config", "ForCausalLM")]
        (root / model_type).mkdir()
        config.save_pretrained(root / model_type)
        made[model_type] = str(root / model_type / "config.json")
    return made


@pytest.mark.parametrize(("command", "model_type"), [
    ("lfm2", "lfm2_moe"), ("bamba", "granitemoehybrid"), ("bamba", "qwen3_next"),
    ("lfm2", "qwen3_5")])
def test_the_issues_configs_are_refused_in_one_line(cli: CLI, shipped: dict[str, str],
                                                    command: str, model_type: str) -> None:
    """The four cases of issue 37 (a family counting a neighbour's config with exit 0): now
    exit 2, one line naming the model type and the command that counts it (or that none
    does), nothing on stdout, on the quick path and click's (``--json`` too)."""
    for extra in ((), ("--json",)):
        result = cli(command, "--config", shipped[model_type], *extra)
        assert (result.code, result.out, result.err.count("\n")) == (2, "", 1), result.err
        counted_by = families.MODEL_TYPES.get(model_type)
        if counted_by is None:
            assert f"model_type {model_type!r} is not a model paramcount models" in result.err
        else:  # modelled since the issue: its own command is named
            assert f"(model_type {model_type!r})" in result.err
            assert f"count it with 'paramcount {counted_by} --config" in result.err


def test_notes_name_no_key_the_model_types_class_reads() -> None:
    """For each model type a family models that transformers has, its own default config.json
    read by the family leaves no note calling a key its class reads unread."""
    transformers = pytest.importorskip("transformers")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    for model_type, name in families.MODEL_TYPES.items():
        if model_type not in CONFIG_MAPPING:
            continue
        data = transformers.AutoConfig.for_model(model_type,
                                                 **NEEDED.get(name, {})).to_dict()
        unread = {key for note in families.load(name, data).notes if "does not read" in note
                  for key in re.findall(r"(\w+)=", note)}
        assert not unread & data.keys(), (model_type, unread)
