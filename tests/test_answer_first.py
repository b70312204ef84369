"""The answer first: explain --brief in a dozen lines, the forum answer's numbers and reason at
the top, pitfalls of other frameworks only when asked, totals before details."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.engine.report import build_report
from paramcount.engine.spec import LayerSpec
from paramcount.render.explain import brief
from paramcount.render.markdown import to_markdown
from paramcount.render.plain import to_text
from tests.conftest import CLI
from tests.strategies import layer_specs
from tests.strategies_more import more_specs

Q1 = ["explain", "lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(layer_specs(max_size=4096, max_layers=12),
                 more_specs(max_size=4096, max_layers=12)))
def test_brief_is_at_most_a_dozen_lines(spec: LayerSpec) -> None:
    """Any layer's brief answer is at most 12 lines as text and names the real total first."""
    report = build_report(spec)
    text = to_text(brief(report))
    assert len(text.splitlines()) <= 12, text
    assert len(text.splitlines()[0]) <= 90  # a long stack is described, not spelled out
    assert text.splitlines()[1].startswith(f"{report.total:,} parameters")
    markdown = to_markdown(brief(report))
    assert f"{report.total:,} parameters" in markdown.splitlines()[2]


def test_brief_names_the_layer_and_the_extra_columns(cli: CLI) -> None:
    """The brief answer says which layer reads 2·H and how many columns that adds."""
    result = cli(*Q1, "--brief")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[1] == "561,152 parameters, not 2 × 215,040 = 430,080 (+131,072)"
    prose = " ".join(result.out.split())
    assert "its input is 2·128 = 256 wide, not 128" in prose
    assert "Layer 1 reads 256, not 128: 2 directions × 512 gate rows × 128 extra input columns" \
        " = +131,072." in prose
    assert len(lines) <= 12


def test_brief_groups_equal_layers(cli: CLI) -> None:
    """Layers that add the same are named once, with the sum."""
    out = " ".join(cli("explain", "lstm", "-i", "32", "-H", "128", "-L", "8", "--bidir",
                       "--brief").out.split())
    assert "Layers 1–7 each read 256, not 128" in out
    assert "+131,072 each, +917,504 in all." in out


def test_brief_with_json_is_refused(cli: CLI) -> None:
    """--brief shortens text; with --json it is refused rather than ignored."""
    result = cli(*Q1, "--brief", "--json")
    assert result.code == 2
    assert "--brief" in result.err


def test_markdown_answer_first(cli: CLI) -> None:
    """The forum answer states the numbers and the reason in its first lines, then the formula."""
    out = cli(*Q1, "--markdown").out
    head = out.splitlines()[:8]
    assert head[2] == ("561,152 parameters, not 2 × 215,040 = 430,080, because every layer "
                       "after the first reads both directions' outputs, 2·128 = 256 inputs, "
                       "not 128")
    assert head[4] == "#### Why not 2 × 215,040 = 430,080?"
    assert "2·128 = 256 wide, not 128" in head[6]
    assert out.index("#### Formula") > out.index("#### Why not")
    assert out.index("#### Tensors") > out.index("#### Formula")


def test_pytorch_question_gets_no_keras_pitfalls(cli: CLI) -> None:
    """A PyTorch question gets only PyTorch's pitfalls; --framework all adds the others."""
    torch = cli("explain", "gru", "-i", "13", "-H", "20", "-L", "2", "--bidir").out
    assert "Keras" not in torch
    keras = cli("explain", "gru", "-i", "13", "-H", "20", "-L", "2", "--bidir", "-f", "keras").out
    assert "Pitfall: Keras GRU: reset_after changed default in TF 2" in keras
    assert "Pitfall: PyTorch versus Keras" not in keras
    both = cli("explain", "gru", "-i", "13", "-H", "20", "-L", "2", "--bidir", "-f", "all").out
    assert "Pitfall: PyTorch versus Keras" in both
    proj = cli("explain", "lstm", "-i", "64", "-H", "512", "--proj", "256").out
    assert "Pitfall: PyTorch proj_size" in proj
    assert "Pitfall: PyTorch versus Keras" not in proj


def test_several_frameworks_lead_with_the_totals(cli: CLI) -> None:
    """Counts and explanations for several frameworks show the totals table first."""
    for command in (["lstm"], ["explain", "lstm"]):
        out = cli(*command, "-i", "28", "-H", "128", "--bidir", "-f", "all").out
        lines = out.splitlines()
        assert lines[3] == "Totals", lines[:5]
        assert out.index("Totals") < out.index("Tensors")


def test_brief_with_every_framework_is_refused(cli: CLI) -> None:
    """--brief promises a dozen lines; -f all would print five answers, so the pair is
    refused with the way out, rather than printing 50 lines."""
    result = cli(*Q1, "-f", "all", "--brief")
    assert result.code == 2
    assert result.out == ""
    assert len(result.err.splitlines()) == 1
    assert "--brief" in result.err and "-f" in result.err
