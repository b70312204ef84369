"""``paramcount mamba|mamba2|…`` (every family): the quick path prints what click prints, errors
are one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.cli import quick
from paramcount.cli.main import _run_click
from tests.conftest import CLI
from tests.test_quick import _run

LINES = {
    "flags": ["mamba", "--d-model", "64", "--layers", "2", "--vocab", "100", "--d-state", "8"],
    "json": ["mamba", "--hidden-size=32", "-L", "1", "--vocab", "10", "--no-tie", "--json"],
    "markdown": ["mamba2", "--d-model", "16", "--heads", "4", "--headdim", "8", "--vocab", "9",
                 "-L", "2", "--use-bias", "--markdown"],
    "dtype": ["mamba2", "--d-model", "16", "--heads", "4", "--headdim", "8", "--dtype", "bf16"],
    "rank": ["mamba", "--dt-rank", "auto", "--d-model", "40", "-L", "1", "--format", "json"],
    "config": ["mamba2", "--config", "examples/hf/mamba2-1.3b/config.json", "--layers", "2"],
    "xlstm": ["xlstm", "--hidden", "64", "--layers", "2", "--vocab", "100", "--heads", "2",
              "--qk-dim-factor", "0.25", "--weight-mode", "fused"],
    "xlstm-7b": ["xlstm", "--config", "examples/hf/xlstm-7b/config.json", "--json"],
    "xlstm-lm": ["xlstm-lm", "--d-model", "64", "-L", "4", "--slstm-at", "1,3", "--vocab", "50",
                 "--no-feedforward", "--slstm-backend", "vanilla", "--markdown"],
    "stack": ["xlstm-lm", "--embedding-dim", "32", "--mlstm-proj-factor", "1.5"],
    "rglru": ["rglru", "--hidden", "32", "-L", "5", "--heads", "2", "--num-key-value-heads", "1",
              "--intermediate-size", "48", "--block-types", "recurrent,attention", "--no-tie"],
    "gemma-2b": ["rglru", "--config", "examples/hf/recurrentgemma-2b/config.json", "--layers",
                 "4"],
    "minlm": ["minlm", "--vocab", "256", "--d-model", "64", "-L", "2", "--use-lstm",
              "--enable-conv", "--ff-mult", "2.5"],
    "mingru": ["mingru", "--dim", "96", "--expansion-factor", "1.5", "--no-proj-out", "--json"],
}


@pytest.mark.parametrize("args", list(LINES.values()), ids=list(LINES))
def test_quick_path_answers_as_click_does(args: list[str]) -> None:
    """The quick path answers these lines, and click prints the same bytes."""
    quick_code, quick_out, quick_err = _run(quick.answer, args)
    click_code, click_out, click_err = _run(_run_click, args)
    assert quick_code == 0
    assert (quick_code, quick_out, quick_err) == (click_code, click_out, click_err)


ERRORS = {
    "zero": (["mamba", "--d-model", "0"], "--hidden-size 0 must be a positive integer"),
    "heads": (["mamba2", "--d-model", "10"], "must equal --num-heads 128 · --head-dim 64"),
    "count": (["mamba", "--layers", "two"], "--num-hidden-layers two: 'two' is not a whole number"),
    "rank": (["mamba", "--dt-rank", "wide"], "--time-step-rank wide must be a positive integer"),
    "missing": (["mamba", "--config", "nowhere.json"], "nowhere.json: cannot be read"),
    "unknown": (["mamba", "--d-modle", "3"], "No such option '--d-modle'"),
    "factor": (["xlstm", "--qk-dim-factor", "half"], "--qk-dim-factor half must be a number"),
    "xlstm-heads": (["xlstm", "--heads", "3"], "--num-heads 3 must divide qk_dim=2048"),
    "list": (["xlstm-lm", "--slstm-at", "1,x"], "--slstm-at 1,x must be whole numbers"),
    "range": (["xlstm-lm", "--slstm-at", "5"], "--slstm-at (5,) must list block indices"),
    "block": (["rglru", "--block-types", "recurrent,mlp"], "must list 'recurrent' and"),
    "kv": (["rglru", "--num-key-value-heads", "3"], "--num-key-value-heads 3 must divide"),
    "width": (["mingru", "--dim", "3", "--expansion-factor", "0.2"],
              "--expansion-factor 0.2 leaves no inner width"),
    "depth": (["minlm", "-L", "100000000"], "--depth 100000000 is more blocks than"),
    "mamba-depth": (["mamba", "-L", "100000000"], "--num-hidden-layers 100000000 is more blocks"),
    "mamba2-depth": (["mamba2", "-L", "10001"], "--num-hidden-layers 10001 is more blocks"),
    "rwkv-depth": (["rwkv", "-L", "10001"], "--num-hidden-layers 10001 is more blocks"),
}


@pytest.mark.parametrize(("args", "message"), list(ERRORS.values()), ids=list(ERRORS))
def test_bad_input_is_one_line_and_exit_2(cli: CLI, args: list[str], message: str) -> None:
    """A value the reference refuses, a typo or an unreadable file: one line, exit 2, and the
    quick path leaves it to click."""
    assert _run(quick.answer, args) == (None, "", "")
    result = cli(*args)
    assert result.code == 2
    assert result.out == ""
    assert message in result.err and result.err.count("\n") == 1, result.err


@pytest.mark.parametrize("text", ["{", "[1, 2]"], ids=["broken", "not-object"])
def test_a_config_that_is_not_a_json_object(cli: CLI, tmp_path: Path, text: str) -> None:
    """A config.json that is not JSON, or not an object, is one line and exit 2."""
    path = tmp_path / "config.json"
    path.write_text(text)
    result = cli("mamba", "--config", str(path))
    assert (result.code, result.err.count("\n")) == (2, 1)
    assert str(path) in result.err


def test_json_lists_every_tensor(cli: CLI) -> None:
    """--json holds every tensor of every block (the table shows one block of a run)."""
    result = cli("mamba", "--d-model", "16", "-L", "3", "--vocab", "5", "--json")
    data = json.loads(result.out)
    assert data["schema"] == "paramcount.family/1"
    assert len(data["tensors"]) == 1 + 3 * 10 + 1
    assert data["total"] == sum(t["count"] for t in data["tensors"]) == data["formula"]["total"]
    assert [p["part"] for p in data["parts"]] == ["embeddings", "blocks 0–2", "norm_f"]
