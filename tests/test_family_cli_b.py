"""``paramcount xlstm|xlstm-lm|rglru|minlm|mingru``: float, list and optional options reach the
config, pasted code and check files count these families, and alternating blocks are listed once
(their quick-path and error lines are in test_family_cli.py)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import CLI


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
    from paramcount.families import rglru, xlstm
    from paramcount.families.report import build_family_report
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
