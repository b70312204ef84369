"""``paramcount xlstm|xlstm-lm|rglru|minlm|mingru``: the quick path prints what click prints,
float, list and optional options are read, and bad values are one line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount import quick
from paramcount.cli import _run_click
from tests.conftest import CLI
from tests.test_quick import _run

LINES = {
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


def test_options_reach_the_config(cli: CLI) -> None:
    """A float, a comma list, an optional int and a --no- switch land in the config."""
    result = cli("xlstm-lm", "--slstm-at", "0,2", "-L", "3", "--mlstm-proj-factor", "1.5",
                 "--json")
    config = json.loads(result.out)["config"]
    assert (config["slstm_at"], config["mlstm_proj_factor"]) == ([0, 2], 1.5)
    config = json.loads(cli("rglru", "--num-key-value-heads", "2", "--json").out)["config"]
    assert config["num_key_value_heads"] == 2 and config["lru_width"] is None
    config = json.loads(cli("mingru", "--no-proj-out", "--json").out)["config"]
    assert config["proj_out"] is False


ERRORS = {
    "factor": (["xlstm", "--qk-dim-factor", "half"], "--qk-dim-factor half must be a number"),
    "heads": (["xlstm", "--heads", "3"], "--num-heads 3 must divide qk_dim=2048"),
    "list": (["xlstm-lm", "--slstm-at", "1,x"], "--slstm-at 1,x must be whole numbers"),
    "range": (["xlstm-lm", "--slstm-at", "5"], "--slstm-at (5,) must list block indices"),
    "block": (["rglru", "--block-types", "recurrent,mlp"], "must list 'recurrent' and"),
    "kv": (["rglru", "--num-key-value-heads", "3"], "--num-key-value-heads 3 must divide"),
    "width": (["mingru", "--dim", "3", "--expansion-factor", "0.2"],
              "--expansion-factor 0.2 leaves no inner width"),
    "depth": (["minlm", "-L", "100000000"], "--depth 100000000 is more blocks than"),
}


@pytest.mark.parametrize(("args", "message"), list(ERRORS.values()), ids=list(ERRORS))
def test_bad_input_is_one_line_and_exit_2(cli: CLI, args: list[str], message: str) -> None:
    """A value the reference refuses: one line naming the option, exit 2, nothing on stdout."""
    result = cli(*args)
    assert result.code == 2
    assert result.out == ""
    assert message in result.err and result.err.count("\n") == 1, result.err


PASTE = """from transformers import xLSTMConfig, xLSTMForCausalLM
from transformers import RecurrentGemmaConfig, RecurrentGemmaModel

config = xLSTMConfig(vocab_size=1000, hidden_size=512, num_blocks=4, num_heads=4)
model = xLSTMForCausalLM(config)
gemma = RecurrentGemmaModel(RecurrentGemmaConfig(
    hidden_size=256, num_hidden_layers=6, num_attention_heads=4, vocab_size=500,
    intermediate_size=768, tie_word_embeddings=False))
"""


def test_read_counts_pasted_xlstm_and_recurrent_gemma(cli: CLI, tmp_path: Path) -> None:
    """Pasted transformers code: the causal LM as its family counts it, the bare model without
    its untied head."""
    path = tmp_path / "paste.py"
    path.write_text(PASTE)
    result = cli("read", str(path), "--json")
    assert result.code == 0, result.err
    totals = {m["name"]: m["total"] for m in json.loads(result.out)["models"]}
    lm = json.loads(cli("xlstm", "--vocab", "1000", "--hidden", "512", "--num-blocks", "4",
                        "--heads", "4", "--json").out)["total"]
    gemma = json.loads(cli("rglru", "--hidden", "256", "-L", "6", "--heads", "4", "--vocab",
                           "500", "--intermediate-size", "768", "--no-tie", "--json").out)
    assert totals == {"model": lm, "gemma": gemma["total"] - 500 * 256}


def test_alternating_blocks_show_each_kind_once() -> None:
    """RecurrentGemma 2B's table shows one recurrent and one attention block, and says which
    blocks repeat which; a single repeated block reads as one."""
    from paramcount.conventions import rglru, xlstm
    from paramcount.family_report import build_family_report
    from paramcount.render.family import tensor_rows

    config = rglru.from_hf_config(json.loads(Path(
        "examples/hf/recurrentgemma-2b/config.json").read_text()))
    rows, note = tensor_rows(build_family_report("rglru", config))
    assert {row[0] for row in rows} == {"", "0", "2"}
    assert note == ("Blocks 1, 3–4, 6–7, 9–10, 12–13, 15–16, 18–19, 21–22, 24–25 repeat block "
                    "0's tensors; blocks 5, 8, 11, 14, 17, 20, 23 repeat block 2's tensors.")
    two = xlstm.Config(num_blocks=2, hidden_size=64, vocab_size=10)
    _, note = tensor_rows(build_family_report("xlstm", two))
    assert note == "Block 1 repeats block 0's tensors."


CHECKED = """[models.gemma]
family = "rglru"
total = 2_682_862_080
config = { hidden_size = 2560, intermediate_size = 15360, num_key_value_heads = 1 }

[models.stack]
family = "xlstm-lm"
total = 125_021_360

[models.stack.config]
embedding_dim = 768
num_blocks = 24
slstm_at = [3, 20]
vocab_size = 50257
tie_weights = true
mlstm_num_heads = 4
"""


def test_check_holds_recurrent_gemma_and_the_xlstm_paper_model(cli: CLI, tmp_path: Path) -> None:
    """``check`` counts RecurrentGemma 2B and the paper's 125M xLSTM[7:1] from their configs."""
    path = tmp_path / "models.toml"
    path.write_text(CHECKED)
    result = cli("check", str(path))
    assert result.code == 0, result.out + result.err
    assert "2 passed, 0 failed" in result.out
