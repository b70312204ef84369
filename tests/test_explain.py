"""``paramcount explain``: the answer's numbers, depth chart, pitfalls, Markdown, JSON, plot."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from paramcount.analysis.pitfalls import pitfalls
from paramcount.engine.report import build_report, depth_limit, depth_table
from paramcount.engine.spec import Cell, LayerSpec
from paramcount.render.explain import ratio_chart
from tests.conftest import CLI, have

Q1 = ["explain", "lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"]


def test_question_1_numbers(cli: CLI) -> None:
    """Question 1: 561,152, not 2 × 215,040, and the gap is layer 1's wider input weights."""
    result = cli(*Q1)
    assert result.code == 0, result.err
    out = result.out
    assert "561,152 parameters, not 2 × 215,040 = 430,080" in out
    assert "= 2·[512·(32 + 128 + 2)] + 1·2·[512·(2·128 + 128 + 2)]" in out
    assert "reads 256, not 128: 2 directions × 512 gate rows × 128 extra input columns = " \
           "+131,072" in out
    assert "1        256  197,632   197,632  395,264" in out


DEPTH_Q1 = [
    (1, 82_944, 165_888),
    (2, 215_040, 561_152),
    (3, 347_136, 956_416),
    (4, 479_232, 1_351_680),
    (5, 611_328, 1_746_944),
    (6, 743_424, 2_142_208),
    (7, 875_520, 2_537_472),
    (8, 1_007_616, 2_932_736),
]


@pytest.mark.parametrize(("layers", "uni", "bi"), DEPTH_Q1, ids=[f"L{r[0]}" for r in DEPTH_Q1])
def test_question_3_depth_table(cli: CLI, layers: int, uni: int, bi: int) -> None:
    """Question 3: the depth table lists uni and bi totals and their ratio for 1…8 layers."""
    out = cli("explain", "lstm", "-i", "32", "-H", "128", "--bidir").out
    ratio = f"{bi / uni:.3f}"
    assert any(
        line.split() == [str(layers), f"{uni:,}", f"{bi:,}", ratio] for line in out.splitlines()
    )
    name = f"{layers} layer" + ("s" if layers > 1 else "")
    assert any(line.strip().startswith(name) and ratio in line and "█" in line
               for line in out.splitlines()), "the chart has a bar per depth"


def test_question_3_only_one_layer_is_2p(cli: CLI) -> None:
    """A single bidirectional layer is exactly 2P; the answer says the ratio then climbs."""
    out = " ".join(cli("explain", "lstm", "-i", "32", "-H", "128", "--bidir").out.split())
    assert "Exactly 2 × 82,944" in out
    assert "holds for one layer only: with 2 layers the ratio is 2.610, with 8 it is 2.911" in out
    assert "limit 2.992" in out


def test_chart_bars_grow_with_the_ratio() -> None:
    """Each bar's length is proportional to its ratio on a 0…3 axis."""
    spec = LayerSpec(Cell.LSTM, 32, 128, bidirectional=True)
    rows = depth_table(spec, 8)
    chart = ratio_chart(rows, depth_limit(spec), width=42)
    bars = [line.split("  ")[-1] for line in chart.lines[:8]]
    assert bars[0] == "█" * 28  # 2.000 of 3 on 42 characters
    lengths = [len(b) for b in bars]
    assert lengths == sorted(lengths)
    assert chart.lines[8].strip().startswith("├") and chart.lines[9].split() == ["0", "1", "2",
                                                                                    "3"]


def test_depth_limit_is_exact() -> None:
    """The limit quoted under the chart is (6H + 4)/(2H + 2) for a torch LSTM, correctly rounded."""
    spec = LayerSpec(Cell.LSTM, 32, 128, bidirectional=True)
    assert depth_limit(spec) == (6 * 128 + 4) / (2 * 128 + 2)


PITFALLS = [
    ("torch-lstm", LayerSpec(Cell.LSTM, 32, 128, 2, True),
     {"bias": {"torch": 561_152, "keras": 559_104, "bias_difference": 2_048},
      "merge_mode": {"concat": 559_104, "sum": 428_032}}),
    ("keras-gru", LayerSpec(Cell.GRU, 13, 20, framework="keras"),
     {"bias": {"torch": 2_100, "keras": 2_100, "bias_difference": 0},
      "reset_after": {"reset_after": 2_100, "no_reset_after": 2_040, "difference": 60}}),
    ("torch-gru-bidir-2", LayerSpec(Cell.GRU, 10, 16, 2, True),
     {"reset_after": {"reset_after": 7_488, "no_reset_after": 7_296,
                      "difference": 3 * 16 * 2 * 2}}),
    ("proj", LayerSpec(Cell.LSTM, 64, 512, 3, proj_size=256),
     {"bias": {}, "proj_size": {"without_proj": 5_386_240}}),
    ("keras-lstm-1", LayerSpec(Cell.LSTM, 28, 128, bidirectional=True, framework="keras"),
     {"bias": {"torch": 161_792, "keras": 160_768, "bias_difference": 1_024},
      "merge_mode": {"concat": 160_768, "sum": 160_768}}),
]


@pytest.mark.parametrize(("spec", "expected"), [p[1:] for p in PITFALLS],
                         ids=[p[0] for p in PITFALLS])
def test_pitfall_numbers(spec: LayerSpec, expected: dict[str, dict[str, int]]) -> None:
    """Each pitfall quotes the exact totals and differences of the configuration at hand."""
    found = {p.key: p.numbers for p in pitfalls(spec)}
    for key, numbers in expected.items():
        assert key in found, key
        for name, value in numbers.items():
            assert found[key][name] == value, (key, name)


def test_reset_after_pitfall_is_3h_per_direction_and_layer() -> None:
    """Older Keras GRU counts are 3H per direction and layer smaller."""
    for layers, bidir in ((1, False), (3, True)):
        spec = LayerSpec(Cell.GRU, 7, 11, layers, bidir, framework="keras")
        (numbers,) = [p.numbers for p in pitfalls(spec) if p.key == "reset_after"]
        assert numbers["difference"] == 3 * 11 * spec.directions * layers


def test_pitfalls_in_the_answer(cli: CLI) -> None:
    """Asked about every framework, the answer names the Keras single bias, the GRU default
    change and the merge mode."""
    out = " ".join(cli("explain", "gru", "-i", "13", "-H", "20", "-L", "2", "--bidir",
                       "-f", "all").out.split())
    assert "Pitfall: PyTorch versus Keras" in out
    assert "Pitfall: Keras GRU: reset_after changed default in TF 2" in out
    assert "3H = 60 smaller per direction and layer" in out
    assert "Pitfall: Keras Bidirectional merge_mode" in out
    proj = " ".join(cli("explain", "lstm", "-i", "64", "-H", "512", "--proj", "256").out.split())
    assert "h_n is (D·L, N, P) = (1, N, 256) but c_n stays (D·L, N, H) = (1, N, 512)" in proj


def test_markdown_is_paste_ready(cli: CLI) -> None:
    """--markdown gives headings, pipe tables and the chart in a code block."""
    result = cli(*Q1, "--markdown")
    assert result.code == 0
    out = result.out
    assert out.startswith("**nn.LSTM(32, 128, num_layers=2, bidirectional=True) — PyTorch**")
    assert "#### Bidirectional ÷ unidirectional, 1 to 8 layers" in out
    assert "| 8 | 1,007,616 | 2,932,736 | 2.911 |" in out
    chart_start = out.index("```\n1 layer ")
    assert "8 layers  2.911" in out[chart_start:out.index("```", chart_start + 3)]


FIRST_PARAGRAPHS = [
    ("bidirectional", Q1[1:], "561,152 parameters, not 2 × 215,040 = 430,080, because every "
     "layer after the first reads both directions' outputs, 2·128 = 256 inputs, not 128"),
    ("stacked", ["gru", "-i", "32", "-H", "128", "-L", "3"], "260,352 parameters, not 3 × "
     "62,208 = 186,624, because every layer after the first reads the previous layer's 128 "
     "outputs, not the 32 inputs"),
    ("keras-concat-once", ["lstm", "-i", "8", "-H", "16", "-L", "3", "--bidir", "-f", "keras",
                           "--merge-mode", "concat,sum,concat"],
     "13,696 parameters, not 2 × 5,824 = 11,648, because a layer after a concat merge reads "
     "2·16 = 32 inputs, not 16"),
]


@pytest.mark.parametrize(("args", "paragraph"), [c[1:] for c in FIRST_PARAGRAPHS],
                         ids=[c[0] for c in FIRST_PARAGRAPHS])
def test_markdown_first_paragraph_has_count_and_reason(
    cli: CLI, args: list[str], paragraph: str
) -> None:
    """The Markdown answer's first paragraph carries both the count and the reason, as
    read's headline does, before any heading."""
    result = cli("explain", *args, "--markdown")
    assert result.code == 0, result.err
    assert result.out.split("\n\n")[1] == paragraph


def test_json_has_depth_to_8_and_pitfalls(cli: CLI) -> None:
    """--json carries the report, eight depth rows and the pitfalls' numbers."""
    data = json.loads(cli(*Q1, "--json").out)
    assert data["schema"] == "paramcount.explain/1"
    assert data["total"] == 561_152
    assert [r["bidirectional"] for r in data["depth"]] == [bi for _, _, bi in DEPTH_Q1]
    assert data["pitfalls"] == []  # a PyTorch question: no Keras pitfalls
    both = json.loads(cli(*Q1, "-f", "torch,keras", "--json").out)["reports"]
    bias = next(p for p in both[0]["pitfalls"] if p["key"] == "bias")
    assert bias["numbers"]["bias_difference"] == 2_048


@pytest.mark.skipif(not have("matplotlib"), reason="needs matplotlib")
@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_writes_the_chart(cli: CLI, tmp_path: Path, suffix: str) -> None:
    """--plot draws the depth chart to a PNG or SVG file."""
    path = tmp_path / f"depth{suffix}"
    result = cli(*Q1, "--plot", str(path))
    assert result.code == 0, result.err
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in data[:2000]


def test_plot_without_matplotlib(cli: CLI, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Without matplotlib, --plot exits 3 with the pip command that installs it."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = cli(*Q1, "--plot", str(tmp_path / "x.png"))
    assert result.code == 3
    assert result.err == (
        "Error: --plot requires the matplotlib package: pip install 'paramcount[plot]' (in a "
        "clone: pip install -e '.[plot]')\n"
    )


BAD = [
    ("plot-suffix", [*Q1, "--plot", "x.pdf"], "'x.pdf' must end in .png or .svg"),
    ("plot-cell", ["explain", "lstm", "-i", "3", "-H", "4", "--cell", "--plot", "x.png"],
     "drop --cell"),
    ("bad-cell", ["explain", "lstn", "-i", "3", "-H", "4"], "'lstn' is not one of"),
    ("bad-proj", ["explain", "lstm", "-i", "3", "-H", "4", "--proj", "4"],
     "--proj 4 must be smaller than --hidden 4"),
    ("two-formats", [*Q1, "--json", "--markdown"], "choose one output format"),
]


@pytest.mark.parametrize(("args", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input(cli: CLI, args: list[str], message: str) -> None:
    """Bad input is one line on stderr and exit 2."""
    result = cli(*args)
    assert result.code == 2
    assert message in result.err
    assert result.err.count("\n") == 1


def test_single_cell_is_explained_without_depth(cli: CLI) -> None:
    """A single-step cell gets the formula and pitfalls, and no depth table."""
    result = cli("explain", "lstm", "-i", "10", "-H", "20", "--cell")
    assert result.code == 0
    assert "2,560 parameters" in result.out
    assert "1 to 8 layers" not in result.out


def test_framework_all_explains_each(cli: CLI) -> None:
    """--framework all explains the configuration once per framework."""
    out = cli("explain", "lstm", "-i", "28", "-H", "128", "--bidir", "-f", "all").out
    assert "161,792 parameters" in out and "160,768 parameters" in out


def test_explain_uses_the_report() -> None:
    """The answer's total is the report's total."""
    assert build_report(LayerSpec(Cell.LSTM, 32, 128, 2, True)).total == 561_152
