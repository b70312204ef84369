"""``check`` models given as a family and its config (``family = "mamba"``, ``config = {…}``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.families import registry as families
from tests.conftest import CLI


def write(tmp_path: Path, text: str) -> Path:
    """A models.toml holding ``text``."""
    path = tmp_path / "models.toml"
    path.write_text(text)
    return path


def test_a_family_model_is_counted_by_its_convention(cli: CLI, tmp_path: Path) -> None:
    """The total is the family command's; budgets and totals are checked; one row per part."""
    config = write(tmp_path, '[models.m]\nfamily = "rwkv"\n'
                             'config = { version = 6, hidden_size = 64, num_hidden_layers = 2, '
                             'vocab_size = 10 }\nmax_params = "100K"\n')
    expected = families.family("rwkv").from_hf_config(
        {"version": 6, "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 10})
    total = sum(t.count for t in families.family("rwkv").tensors(expected))
    result = cli("check", str(config), "--json")
    (model,) = json.loads(result.out)["models"]
    assert (model["source"], model["total"]) == ("family", total)
    assert result.code == (0 if total <= 100_000 else 1)
    assert [m["name"] for m in model["modules"]] == ["embeddings", "block 0", "block 1",
                                                     "ln_out", "ln_out.bias", "head"]
    assert sum(m["params"] for m in model["modules"]) == total


@pytest.mark.parametrize(("text", "message"), [
    ('family = "mamba"\nconfig = { hidden_size = 0 }', "hidden_size=0 must be a positive"),
    ('family = "mambo"', "'mambo' is not one of"),
    ('family = "mamba"\nconfig = 3', "expected a table of mamba's options"),
    ('config = { hidden_size = 8 }\nlayers = [{ kind = "relu" }]\ninput = 3', "add family ="),
    ('family = "mamba"\ninput = 3', "input does not apply to a family model"),
    ('family = "mamba"\nfile = "x"', "give one of"),
], ids=["bad-value", "unknown-family", "config-not-table", "config-alone", "input", "two"])
def test_bad_family_models(cli: CLI, tmp_path: Path, text: str, message: str) -> None:
    """Each a located error, exit 2."""
    result = cli("check", str(write(tmp_path, f"[models.m]\n{text}\n")))
    assert result.code == 2 and message in result.err, result.err


def test_update_sets_the_total_only(cli: CLI, tmp_path: Path) -> None:
    """--update writes a family model's total (its parts follow from its config), and the
    updated config passes."""
    config = write(tmp_path, '[models.m]\nfamily = "mamba"\n'
                             'config = { hidden_size = 16, num_hidden_layers = 1, '
                             'vocab_size = 10 }\ntotal = 1\n')
    assert cli("check", str(config), "--update").code == 0
    assert "modules" not in config.read_text()
    assert cli("check", str(config)).code == 0
