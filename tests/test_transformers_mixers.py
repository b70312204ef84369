"""transformers' own model list walked for recurrent, state-space, convolutional and
linear-attention mixers: each model type that builds one is counted by a paramcount family or
refused by name (``paramcount/families/unmodelled.py``), so the next release's is found here."""

from __future__ import annotations

import re
import warnings
from functools import cache
from pathlib import Path

import pytest

from paramcount.families import registry
from paramcount.families.unmodelled import TOWERS, UNMODELLED, why_not
from tests.conftest import CLI, have

pytestmark = pytest.mark.skipif(not have("transformers"), reason="transformers is not installed")

MARKERS = re.compile(
    r"(A_log|conv_state|recurrent_state|ssm_state|causal_conv1d|[A-Za-z0-9]*ShortConv"
    r"[A-Za-z]*|[A-Za-z0-9]*DeltaNet|[A-Za-z0-9]*LightningAttention|[A-Za-z0-9]*LinearAttention"
    r"|[A-Za-z0-9]*DeltaAttention|[A-Za-z0-9]*MambaMixer|time_mix[a-z_]*|mLSTM[A-Za-z]*)")
"""What a modeling module that builds such a mixer holds: the state a cache keeps for it
(``conv_state``, ``recurrent_state``, ``ssm_state``), its kernels (``causal_conv1d``), its
parameters (``A_log``) or its class (``…GatedDeltaNet``, ``…ShortConv``,
``…LightningAttention``, ``…LinearAttention``, ``…MambaMixer``, RWKV's ``time_mix``, xLSTM's
``mLSTM``)."""


@cache
def model_types() -> dict[str, str]:
    """transformers' CONFIG_MAPPING_NAMES: model_type → config class name."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    return dict(CONFIG_MAPPING_NAMES)


@cache
def with_mixer() -> dict[str, tuple[str, ...]]:
    """Each model type whose own modeling module holds a mixer marker, with the markers."""
    import transformers
    from transformers.models.auto.configuration_auto import model_type_to_module_name

    root = Path(transformers.__file__).parent / "models"
    found = {}
    for model_type in model_types():
        module = model_type_to_module_name(model_type)
        path = root / module / f"modeling_{module}.py"
        if not path.exists():
            continue  # a config-only entry (a tokenizer's, a remote model's): nothing built
        hits = tuple(sorted(set(MARKERS.findall(path.read_text(encoding="utf-8")))))
        if hits:
            found[model_type] = hits
    return found


@cache
def decoders() -> dict[str, str]:
    """Each model type built around a decoder of a model type in :func:`with_mixer` (a
    vision-language or speech model whose ``text_config`` is one): model_type → the decoder's."""
    from transformers import AutoConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    mixers = with_mixer()
    found = {}
    for model_type in model_types():
        try:
            kind = CONFIG_MAPPING[model_type]
        except (KeyError, ImportError, AttributeError):
            continue
        text = (getattr(kind, "sub_configs", None) or {}).get("text_config")
        if text is None:
            continue
        inner = getattr(text, "model_type", "")
        if text is AutoConfig or not inner:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    inner = getattr(kind().text_config, "model_type", "")
            except Exception:  # a config class that cannot be built bare
                continue
        if inner in mixers and inner != model_type:
            found[model_type] = inner
    return found


def test_every_model_type_with_such_a_mixer_is_counted_or_refused_by_name() -> None:
    """A model type of transformers whose decoder holds a recurrent, state-space,
    convolutional or linear-attention mixer is a paramcount family's, or listed with the reason
    it is not: a new one fails here, named."""
    flagged = {**{t: ", ".join(m) for t, m in with_mixer().items()},
               **{t: f"a {d} decoder" for t, d in decoders().items()}}
    missing = {t: why for t, why in flagged.items()
               if t not in registry.MODEL_TYPES and why_not(t) is None}
    assert not missing, ("model types with a mixer paramcount neither counts nor refuses "
                         "by name (model them, or list them in families/unmodelled.py): "
                         + "; ".join(f"{t} ({why})" for t, why in sorted(missing.items())))


def test_the_walk_finds_every_model_type_paramcount_counts() -> None:
    """The markers find each transformers model type a family counts (they would miss a new
    mixer only if they missed these)."""
    counted = {t for t in registry.MODEL_TYPES if t in model_types()}
    assert counted - set(with_mixer()) == set()


@pytest.mark.parametrize("model_type", sorted(UNMODELLED | TOWERS))
def test_each_refusal_names_a_model_type_transformers_has_and_paramcount_does_not_count(
        model_type: str) -> None:
    """The list stays honest: each entry is a model type transformers builds with such a mixer
    (or around one), and not one a family counts."""
    assert model_type in model_types()
    assert model_type in with_mixer() or model_type in decoders()
    assert model_type not in registry.MODEL_TYPES


@pytest.mark.parametrize("model_type", sorted(UNMODELLED | TOWERS))
def test_inspect_of_a_config_alone_says_why_it_is_not_counted(
        cli: CLI, tmp_path: Path, model_type: str) -> None:
    """``inspect DIR`` of a folder with only its ``config.json`` names the reason (a wrapper
    whose tower is not modelled, a mixer not modelled yet), as the family commands do, and
    offers ``--via transformers``: one line, exit 2."""
    (tmp_path / "config.json").write_text(f'{{"model_type": "{model_type}"}}')
    result = cli("inspect", str(tmp_path))
    assert result.code == 2 and len(result.err.splitlines()) == 1
    assert f"({why_not(model_type)})" in result.err and "--via transformers" in result.err
