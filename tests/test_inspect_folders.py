"""``paramcount inspect DIR`` on Hugging Face model folders saved by transformers itself."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from paramcount.families.mamba import MambaConfig
from paramcount.record import fields
from tests.conftest import CLI, have
from tests.docfiles import families as makers

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The saved folders, made once."""
    if not (have("torch") and have("transformers") and have("safetensors")):
        pytest.skip("torch, transformers and safetensors are needed")
    directory = tmp_path_factory.mktemp("folders")
    for _, make in makers.FILES.values():
        make(directory)
    return directory


def inspected(cli: CLI, folder: Path) -> dict[str, Any]:
    """``inspect FOLDER --json``, which must succeed."""
    result = cli("inspect", str(folder), "--json")
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def reference_total(model: Any) -> int:
    """What the saved model itself counts."""
    return sum(p.numel() for p in model.parameters())


@pytest.mark.torch
@pytest.mark.parametrize("name", ["mamba-tiny", "mamba-sharded"])
def test_a_folder_is_counted_recognised_and_checked(cli: CLI, folders: Path, name: str) -> None:
    """One file or shards with their index: the total is the model's own, the model is
    recognised with its family and config, every tensor and config value checked."""
    data = inspected(cli, folders / name)
    assert data["format"] == ("hf-folder-sharded" if "sharded" in name else "hf-folder")
    assert data["total"] == reference_total(makers.tiny_mamba())
    (model,) = data["recurrent"]
    assert (model["family"], model["name"], model["match"]) == ("mamba", "", True)
    assert model["config"]["hidden_size"] == 64 and model["config"]["tie_word_embeddings"]
    assert model["params"] == model["stored"] == data["total"]
    assert all(claim["match"] for claim in model["claims"]) and len(model["claims"]) == len(
        fields(MambaConfig))
    assert model["command"] == ("paramcount mamba --vocab-size 100 --hidden-size 64 "
                                "--num-hidden-layers 2")


@pytest.mark.torch
def test_the_config_settles_what_the_tensors_cannot_tell(cli: CLI, folders: Path) -> None:
    """Mamba-2's tensors hold only n_groups · state_size; the folder's config.json says 2 × 8."""
    (model,) = inspected(cli, folders / "mamba2-tiny")["recurrent"]
    assert (model["config"]["n_groups"], model["config"]["state_size"]) == (2, 8)
    assert model["match"] and "config.json describes exactly" in model["notes"][0]


@pytest.mark.torch
def test_a_config_that_disagrees_with_the_tensors(cli: CLI, folders: Path,
                                                  tmp_path: Path) -> None:
    """A config.json that claims another size is named value by value, and match is false."""
    folder = tmp_path / "edited"
    shutil.copytree(folders / "mamba-tiny", folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "state_size": 32}))
    (model,) = inspected(cli, folder)["recurrent"]
    wrong = [c for c in model["claims"] if not c["match"]]
    assert wrong == [{"field": "state_size", "config": 32, "tensors": 16, "match": False}]
    assert not model["match"]
    assert "config.json says state_size=32, the tensors hold 16" in model["notes"]


@pytest.mark.torch
def test_a_folder_with_only_its_config(cli: CLI, folders: Path, tmp_path: Path) -> None:
    """config.json alone: the model is counted from it, tensor by tensor."""
    folder = tmp_path / "config-only"
    folder.mkdir()
    shutil.copy(folders / "mamba-tiny" / "config.json", folder)
    data = inspected(cli, folder)
    assert data["format"] == "hf-config"
    assert data["total"] == reference_total(makers.tiny_mamba())
    assert data["recurrent"][0]["family"] == "mamba"


@pytest.mark.torch
def test_the_table_names_the_family(cli: CLI, folders: Path) -> None:
    """The table shows the family, the engine check, the config check and the command."""
    out = cli("inspect", str(folders / "mamba-sharded")).out
    assert "Hugging Face model folder (sharded)" in out
    assert "(top level)  mamba       71,872  ✓ 22 tensors  ✓ 11 values" in out
    assert "paramcount mamba --vocab-size 100 --hidden-size 64 --num-hidden-layers 2" in out


def test_a_published_config_alone_without_torch(cli: CLI, tmp_path: Path) -> None:
    """A folder holding mamba2-1.3b's config.json: counted without any framework."""
    shutil.copy(ROOT / "examples" / "hf" / "mamba2-1.3b" / "config.json", tmp_path)
    data = inspected(cli, tmp_path)
    assert data["total"] == 1_343_757_312


@pytest.mark.parametrize(("files", "message"), [
    ({}, "a directory with neither config.json nor *.safetensors"),
    ({"config.json": "{"}, "config.json:1:2: not JSON"),
    ({"config.json": '{"model_type": "llama"}'}, "model_type 'llama'"),
    ({"config.json": '{"model_type": "mamba", "hidden_size": -1}'}, "hidden_size=-1"),
], ids=["empty", "broken", "other-model", "bad-value"])
def test_folders_that_cannot_be_counted(cli: CLI, tmp_path: Path, files: dict[str, str],
                                        message: str) -> None:
    """Each one line, exit 2."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = cli("inspect", str(tmp_path))
    assert (result.code, result.out) == (2, "")
    assert message in result.err and result.err.count("\n") == 1, result.err


def test_check_counts_a_folder(cli: CLI, tmp_path: Path) -> None:
    """A check config's ``file =`` may be a model folder: here config.json alone."""
    folder = tmp_path / "mamba2"
    folder.mkdir()
    shutil.copy(ROOT / "examples" / "hf" / "mamba2-1.3b" / "config.json", folder)
    config = tmp_path / "models.toml"
    config.write_text('[models.m]\nfile = "mamba2"\ntotal = 1_343_757_312\n')
    assert cli("check", str(config)).code == 0
    config.write_text('[models.m]\nfile = "mamba2"\ntotal = 1_300_000_000\n')
    result = cli("check", str(config))
    assert result.code == 1 and "+43,757,312" in result.out
