"""``paramcount inspect`` on xLSTM, RecurrentGemma, xlstm-package and minLM models saved by
their references: the family recognised, its config read back, the count the model's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CLI, have
from tests.docfiles import families_b as makers


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every saved model, made once (each needs its reference installed)."""
    directory = tmp_path_factory.mktemp("saved")
    for needs, make in makers.FILES.values():
        if all(have(module) for module in needs):
            make(directory)
    return directory


def inspected(cli: CLI, path: Path) -> dict[str, Any]:
    """``inspect PATH --json``, which must succeed."""
    if not path.exists():
        pytest.skip(f"{path.name} needs its reference installed")
    result = cli("inspect", str(path), "--json")
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


CASES = [
    ("xlstm-tiny", makers.tiny_xlstm, "xlstm", "paramcount xlstm --vocab-size 100 "
     "--hidden-size 64 --num-blocks 2 --num-heads 2"),
    ("rglru-tiny", makers.tiny_gemma, "rglru", "paramcount rglru --vocab-size 100 "
     "--hidden-size 32 --intermediate-size 48 --num-hidden-layers 3 --num-attention-heads 2 "
     "--num-key-value-heads 1 --lru-width 32 --attention-window-size 16"),
    ("xlstm-stack.safetensors", makers.tiny_xlstm_stack, "xlstm-lm",
     "paramcount xlstm --impl xlstm --vocab-size 50 --embedding-dim 32 --num-blocks 3 "
     "--slstm-at 1 --slstm-backend vanilla"),
    ("minlm.safetensors", makers.tiny_minlm, "minlm",
     "paramcount mingru --impl lm --num-tokens 40 --dim 16 --depth 2 --use-lstm --enable-conv"),
]


@pytest.mark.torch
@pytest.mark.parametrize(("name", "model", "family", "command"), CASES,
                         ids=[case[0] for case in CASES])
def test_a_saved_model_is_recognised_with_its_config(
        cli: CLI, saved: Path, name: str, model: Any, family: str, command: str) -> None:
    """The whole file is one model of the family, counted as the reference counts it, and the
    command paramcount writes for it counts the same."""
    data = inspected(cli, saved / name)
    total = sum(p.numel() for p in model().parameters())
    assert data["total"] == total
    (found,) = data["recurrent"]
    assert (found["family"], found["params"]) == (family, total)
    assert found["command"] == command
    again = cli(*command.split()[1:], "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out)["total"] == total


@pytest.mark.torch
def test_a_folders_config_is_checked_against_the_tensors(cli: CLI, saved: Path) -> None:
    """RecurrentGemma's config.json claims (heads, widths, layer pattern) all hold."""
    (found,) = inspected(cli, saved / "rglru-tiny")["recurrent"]
    assert found["match"] and found["claims"]
    assert all(claim["match"] for claim in found["claims"])
