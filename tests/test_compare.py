"""``paramcount compare``: configurations side by side, aligned, and the difference explained."""

from __future__ import annotations

import json

import pytest

from paramcount.analysis.compare import align, difference
from paramcount.engine.report import build_report
from paramcount.engine.spec import Cell, LayerSpec
from tests.conftest import CLI

Q2 = ("compare", "lstm -i 28 -H 256 --framework keras",
      "lstm -i 28 -H 128 --bidir --framework keras")


def flat(text: str) -> str:
    """Whitespace collapsed, so wrapped prose can be searched."""
    return " ".join(text.split())


def test_question_2_totals_and_reason(cli: CLI) -> None:
    """Question 2: 291,840 versus 160,768, because halving H quarters the recurrent kernel."""
    result = cli(*Q2)
    assert result.code == 0, result.err
    out = flat(result.out)
    assert "291,840 vs 160,768 parameters" in out
    assert "recurrent weights: 262,144 → 131,072 (−131,072, ×1/2)" in out
    assert "recurrent weight is H × 4H (256 × 1,024) → H × 4H (128 × 512)" in out
    assert "halving H quarters it (×1/4)" in out
    assert "two directions double it (×2)" in out
    assert "input weights: 28,672 → 28,672 (same)" in out
    assert "Both output 256 values per step." in out


def test_question_2_parts() -> None:
    """Only the recurrent weights differ, by exactly half."""
    a = build_report(LayerSpec(Cell.LSTM, 28, 256, framework="keras"))
    b = build_report(LayerSpec(Cell.LSTM, 28, 128, bidirectional=True, framework="keras"))
    diff = difference(a, b)
    assert diff.total == 160_768 - 291_840
    changes = {c.part: (c.before, c.after) for c in diff.parts}
    assert changes == {
        "input weights": (28_672, 28_672),
        "recurrent weights": (262_144, 131_072),
        "biases": (1_024, 1_024),
    }


def test_tensors_aligned_by_role_layer_direction() -> None:
    """Rows pair kernel with weight_ih and one Keras bias with torch's two."""
    torch = build_report(LayerSpec(Cell.LSTM, 32, 128, 2, True))
    keras = build_report(LayerSpec(Cell.LSTM, 32, 128, 2, True, framework="keras"))
    rows = align([torch, keras])
    assert len(rows) == 2 * 2 * 3
    bias = next(r for r in rows if r.layer == 1 and r.direction.value == "backward"
                and r.part == "biases")
    assert [t.name for t in bias.entries[0]] == ["bias_ih_l1_reverse", "bias_hh_l1_reverse"]
    assert [t.name for t in bias.entries[1]] == [
        "bidirectional_1/backward_lstm_1/lstm_cell/bias"
    ]
    assert bias.counts == (1_024, 512)


def test_frameworks_shows_the_bias_difference(cli: CLI) -> None:
    """--frameworks compares one config in PyTorch and Keras: the biases differ, nothing else."""
    result = cli("compare", "--frameworks", "lstm -i 32 -H 128 -L 2 --bidir")
    assert result.code == 0, result.err
    out = flat(result.out)
    assert "561,152 vs 559,104 parameters" in out
    assert "biases: 4,096 → 2,048 (−2,048, ×1/2)" in out
    assert "recurrent weights: 262,144 → 262,144 (same)" in out
    assert "1 bias vector per gate block instead of 2" in out


def test_frameworks_gru_agrees(cli: CLI) -> None:
    """A GRU with reset_after has the same count in both frameworks."""
    out = flat(cli("compare", "--frameworks", "gru -i 13 -H 20").out)
    assert "2,100 vs 2,100 parameters" in out


def test_three_configs(cli: CLI) -> None:
    """Three configurations: each later one is explained against the first."""
    result = cli(*Q2, "gru -i 28 -H 128 -L 2")
    assert result.code == 0
    out = flat(result.out)
    assert "Why #2 differs from #1" in out and "Why #3 differs from #1" in out
    assert "GRU has 3 gate blocks, LSTM 4 (×3/4)" in out


def test_json(cli: CLI) -> None:
    """--json: configs with totals and parts, aligned rows, and the explained differences."""
    data = json.loads(cli(*Q2, "--json").out)
    assert data["schema"] == "paramcount.compare/1"
    assert [c["total"] for c in data["configs"]] == [291_840, 160_768]
    assert [c["output_width"] for c in data["configs"]] == [256, 256]
    (diff,) = data["differences"]
    assert diff["difference"] == -131_072
    recurrent = next(p for p in diff["parts"] if p["part"] == "recurrent weights")
    assert recurrent["difference"] == -131_072
    assert "halving H quarters it (×1/4)" in recurrent["factors"]
    first = data["rows"][0]
    assert first["counts"] == [28_672, 14_336]
    assert first["tensors"][0][0]["shape"] == [28, 1024]


def test_markdown(cli: CLI) -> None:
    """--markdown gives pipe tables and the explanation in a code block."""
    out = cli(*Q2, "--markdown").out
    assert "| #1 | lstm -i 28 -H 256 --framework keras | LSTM(256) on 28 features |" in out
    assert "#### Why #2 differs from #1: 291,840 → 160,768 (−131,072)" in out
    assert "\n  · halving H quarters it (×1/4)\n" in out


BAD = [
    ("missing-hidden", ["lstm -i 3 -H 4", "lstm -i 28"],
     "argument 2 ('lstm -i 28'): Missing option '--hidden'"),
    ("bad-number", ["lstm -i x -H 4", "lstm -i 2 -H 4"],
     "argument 1 ('lstm -i x -H 4'): Invalid value for '--input': 'x' is not a whole"),
    ("bad-cell", ["lstm -i 3 -H 4", "lsmt -i 3 -H 4"], "argument 2 ('lsmt -i 3 -H 4'): "),
    ("spec-error", ["lstm -i 3 -H 4", "gru -i 3 -H 4 --proj 2"],
     "argument 2 ('gru -i 3 -H 4 --proj 2'): --proj 2 applies only to LSTM"),
    ("unclosed-quote", ["lstm -i 3 -H 4", "lstm 'x"], "No closing quotation"),
    ("empty", ["lstm -i 3 -H 4", ""], "argument 2 (''): empty"),
    ("help-inside", ["lstm -i 3 -H 4", "lstm -i 3 -H 4 --help"], "No such option '--help'"),
    ("only-one", ["lstm -i 3 -H 4"], "give two or more configurations"),
    ("frameworks-two", ["--frameworks", "lstm -i 3 -H 4", "gru -i 3 -H 4"],
     "--frameworks compares one configuration"),
    ("frameworks-proj", ["--frameworks", "lstm -i 3 -H 8 --proj 2"],
     "--frameworks: --proj 2 is a PyTorch option"),
]


@pytest.mark.parametrize(("args", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input(cli: CLI, args: list[str], message: str) -> None:
    """A bad configuration string is one line on stderr naming the argument, exit 2."""
    result = cli("compare", *args)
    assert result.code == 2
    assert message in result.err
    assert result.err.count("\n") == 1
