"""``paramcount inspect`` as a command: the documented JSON schema, usage errors, light imports."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CLI
from tests.docfiles import inspect as makers
from tests.test_imports import loaded_after

ROOT = Path(__file__).resolve().parent.parent


def documented_keys() -> dict[str, set[str]]:
    """The keys each ``### `path`` table of docs/inspect.md's JSON section lists."""
    text = (ROOT / "docs" / "inspect.md").read_text()
    section = text.split("## JSON: `paramcount.inspect/1`", 1)[1].split("\n## ", 1)[0]
    tables: dict[str, set[str]] = {}
    for part in section.split("\n### ")[1:]:
        heading, body = part.split("\n", 1)
        tables[heading.strip().strip("`")] = set(re.findall(r"^\| `(\w+)` \|", body, re.M))
    return tables


def produced_keys(data: dict[str, Any]) -> dict[str, set[str]]:
    """The keys the same paths hold in real output."""
    layer = data["recurrent"][0]
    return {
        "Top level": set(data),
        "dtypes[]": set(data["dtypes"][0]),
        "tensors[]": set(data["tensors"][0]),
        "recurrent[]": set(layer),
        "recurrent[].tensors[]": set(layer["tensors"][0]),
        "as": set(data["as"]),
    }


def test_documented_keys_are_the_produced_keys(cli: CLI, tmp_path: Path) -> None:
    """docs/inspect.md documents exactly the keys --json writes, at every level."""
    pytest.importorskip("torch")
    makers.make_checkpoint(tmp_path)
    result = cli("inspect", str(tmp_path / "checkpoint.pt"), "--json", "--as", "torch")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["schema"] == "paramcount.inspect/1"
    assert documented_keys() == produced_keys(data)
    issue_keys = {"schema", "file", "format", "total", "bytes", "tensors", "recurrent", "notes"}
    assert issue_keys <= set(data)
    assert {"name", "framework", "cell", "input", "hidden", "layers", "bidirectional", "bias",
            "proj", "cell_only", "reset_after", "params", "command"} <= set(data["recurrent"][0])


@pytest.mark.parametrize(
    ("args", "message"),
    [((), "name at least one model file"),
     (("x.pt", "--error", "-"), "give FILES or --error, not both"),
     (("x.pt", "--json", "--markdown"), "choose one output format"),
     (("x.pt", "--as", "flax"), "'flax' is not one of")],
    ids=["nothing", "both", "two-formats", "bad-as"],
)
def test_usage_errors(cli: CLI, args: tuple[str, ...], message: str) -> None:
    """Missing files, conflicting options and unknown --as values exit 2 in one line."""
    result = cli("inspect", *args)
    assert result.code == 2 and message in result.err and result.out == ""


def test_markdown_output(cli: CLI, tmp_path: Path) -> None:
    """--markdown renders the same sections as Markdown tables."""
    pytest.importorskip("torch")
    makers.make_legacy(tmp_path)
    result = cli("inspect", str(tmp_path / "legacy.pt"), "--markdown")
    assert result.code == 0
    assert "#### Recurrent layers" in result.out
    assert "| (top level) | nn.RNN(6, 12, bidirectional=True) | 480 | ✓ 8 tensors |" in result.out


def test_inspecting_safetensors_imports_no_framework(tmp_path: Path) -> None:
    """Reading a safetensors or torch file imports neither torch nor any other framework."""
    pytest.importorskip("safetensors")
    pytest.importorskip("torch")
    makers.make_safetensors(tmp_path)
    makers.make_encoder(tmp_path)
    args = ["inspect", str(tmp_path / "model.safetensors"), str(tmp_path / "encoder.pt"),
            "--json"]
    code = ("import contextlib, io\nfrom paramcount.cli.main import run\n"
            f"with contextlib.redirect_stdout(io.StringIO()): assert run({args!r}) == 0")
    assert not loaded_after(code) & {"torch", "tensorflow", "keras", "jax", "flax", "onnx",
                                     "safetensors", "numpy", "rich"}


def test_error_from_a_file_and_from_stdin(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--error FILE and --error - read torch's real load_state_dict error alike, and the
    JSON names what the checkpoint holds against what the model expects."""
    pytest.importorskip("torch")
    import io
    import sys

    makers.make_load_error(tmp_path)
    path = tmp_path / "load_error.txt"
    from_file = cli("inspect", "--error", str(path), "--json")
    monkeypatch.setattr(sys, "stdin", io.StringIO(path.read_text()))
    from_stdin = cli("inspect", "--error", "-", "--json")
    assert from_file.code == from_stdin.code == 0
    assert from_file.out == from_stdin.out
    data = json.loads(from_file.out)
    assert (data["checkpoint"][0]["hidden"], data["model"][0]["hidden"]) == (128, 256)
    assert data["checkpoint"][0]["bidirectional"] is True


def test_error_text_without_an_error_exits_2(cli: CLI, tmp_path: Path) -> None:
    """Text holding no load error is refused in one line."""
    path = tmp_path / "log.txt"
    path.write_text("epoch 1: loss 0.3\n")
    result = cli("inspect", "--error", str(path))
    assert result.code == 2 and result.out == "" and len(result.err.splitlines()) == 1
    missing = cli("inspect", "--error", str(tmp_path / "absent.txt"))
    assert missing.code == 2 and "absent.txt" in missing.err


def test_as_takes_the_names_people_type(cli: CLI, tmp_path: Path) -> None:
    """--as pytorch / tensorflow / tf.keras are --as torch / keras, as -f takes them."""
    pytest.importorskip("torch")
    makers.make_checkpoint(tmp_path)
    path = str(tmp_path / "checkpoint.pt")
    assert cli("inspect", path, "--json", "--as", "tensorflow").out == \
        cli("inspect", path, "--json", "--as", "keras").out
    result = cli("inspect", path, "--json", "--as", "pytorch")
    assert result.code == 0, result.err
    assert json.loads(result.out)["as"]["framework"] == "torch"
