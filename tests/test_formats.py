"""Every command speaks the same formats: --json, --markdown, and --verify where a count shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.analysis.compare import align, part
from paramcount.engine.report import build_report
from paramcount.engine.spec import Cell, Framework, LayerSpec
from tests.conftest import CLI, have

TORCH = pytest.mark.skipif(not have("torch"), reason="torch is not installed")
ONNX = pytest.mark.skipif(not have("onnx"), reason="onnx is not installed")


def test_compare_onnx_row_has_onnx_names_and_shapes(cli: CLI) -> None:
    """An ONNX configuration is compared as ONNX: W, R, B with the direction axis first."""
    result = cli("compare", "lstm -i 10 -H 20 --bidir -f onnx", "lstm -i 10 -H 20 --bidir",
                 "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert [c["framework"] for c in data["configs"]] == ["onnx", "torch"]
    first = [(t["name"], t["shape"]) for row in data["rows"] for t in row["tensors"][0]]
    assert first == [("layer0/W", [2, 80, 10]), ("layer0/R", [2, 80, 20]),
                     ("layer0/B", [2, 160])]
    torch_names = [t["name"] for row in data["rows"] for t in row["tensors"][1]]
    assert "weight_ih_l0_reverse" in torch_names
    assert {row["direction"] for row in data["rows"]} == {"both"}
    assert [c["total"] for c in data["configs"]] == [5120, 5120]


def test_compare_table_says_onnx_stacks_directions(cli: CLI) -> None:
    """The table shows ONNX's tensors, and says why its rows hold both directions."""
    result = cli("compare", "gru -i 4 -H 3 --bidir -f onnx", "gru -i 4 -H 3 --bidir -f keras")
    assert result.code == 0, result.err
    assert "W (2, 9, 4)" in result.out
    assert "2 × kernel (4, 9)" in result.out
    assert "ONNX stacks both directions in one tensor" in result.out


def test_compare_frameworks_keeps_the_named_framework(cli: CLI) -> None:
    """--frameworks on an ONNX configuration shows ONNX first, and labels the others honestly."""
    result = cli("compare", "lstm -i 10 -H 20 -f onnx", "--frameworks", "--json")
    assert result.code == 0, result.err
    configs = json.loads(result.out)["configs"]
    assert [(c["framework"], c["argument"]) for c in configs] == [
        ("onnx", "lstm -i 10 -H 20 -f onnx"),
        ("torch", "lstm -i 10 -H 20 -f onnx (as PyTorch)"),
        ("keras", "lstm -i 10 -H 20 -f onnx (as Keras)"),
    ]


def test_compare_all_frameworks_drops_none(cli: CLI) -> None:
    """-f all compares every current framework; none is dropped silently."""
    result = cli("compare", "gru -i 4 -H 3 -f all", "--json")
    assert result.code == 0, result.err
    frameworks = [c["framework"] for c in json.loads(result.out)["configs"]]
    assert frameworks == [f.value for f in Framework.current()]


def test_compare_refuses_tf1_in_one_line(cli: CLI) -> None:
    """TF1's fused kernel cannot be aligned: refused with the reason, exit 2."""
    result = cli("compare", "lstm -i 4 -H 3 -f tf1", "lstm -i 4 -H 3")
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1
    assert "one kernel" in result.err


@pytest.mark.parametrize(
    ("framework", "cell"),
    [(f, c) for f in Framework if f is not Framework.TF1 for c in Cell
     if not (f is Framework.TF1_CUDNN and c is Cell.RNN)],  # CuDNN has LSTM and GRU only
    ids=lambda value: value.value,
)
def test_every_tensor_has_one_part(framework: Framework, cell: Cell) -> None:
    """Every comparable framework's tensors fall into parts that add up to the total."""
    spec = LayerSpec(cell, 5, 3, num_layers=2, bidirectional=True, framework=framework,
                     peepholes=framework is Framework.ONNX and cell is Cell.LSTM)
    report = build_report(spec)
    assert all(part(t) for t in report.tensors)
    assert sum(sum(row.counts) for row in align([report])) == report.total


@TORCH
@ONNX
def test_compare_verify_checks_every_config(cli: CLI) -> None:
    """compare --verify builds each configuration's real layer and shows each verdict."""
    result = cli("compare", "lstm -i 4 -H 3 -f onnx", "lstm -i 4 -H 3", "--verify")
    assert result.code == 0, result.err
    assert "#1: ✓ Verified against ONNX" in result.out
    assert "#2: ✓ Verified against PyTorch" in result.out


@TORCH
def test_explain_verify_marks_every_tensor(cli: CLI) -> None:
    """explain --verify adds the verified column and the verdict under the tensors."""
    result = cli("explain", "gru", "-i", "3", "-H", "4", "--verify")
    assert result.code == 0, result.err
    assert "✓ Verified against PyTorch" in result.out
    assert "verified" in result.out


@TORCH
def test_fit_verify_checks_answer_and_next(cli: CLI) -> None:
    """fit --verify builds the answer's layer and the next size up."""
    result = cli("fit", "lstm", "-i", "32", "--max-params", "1M", "--verify", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["verification"]["answer"]["total"]["real"] == data["total"]
    assert data["verification"]["next"]["total"]["real"] == data["next"]["total"]


@TORCH
@pytest.mark.parametrize(
    "args",
    [["explain", "lstm", "-i", "3", "-H", "4"],
     ["fit", "lstm", "-i", "3", "--max-params", "1000"],
     ["compare", "lstm -i 3 -H 4", "lstm -i 3 -H 5"]],
    ids=["explain", "fit", "compare"],
)
def test_verify_mismatch_exits_1(
    cli: CLI, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    """A framework that disagrees makes --verify exit 1 with one error line."""
    from paramcount.verify import torch_backend

    real = torch_backend.tensors
    monkeypatch.setattr(torch_backend, "tensors", lambda spec: real(spec)[:-1])
    result = cli(*args, "--verify")
    assert result.code == 1
    assert "disagrees with the formula engine" in result.err


@pytest.mark.skipif(not have("flax"), reason="flax is not installed")
def test_convlstm_verify_flax(cli: CLI) -> None:
    """convlstm --verify builds the real Flax stack and agrees with the engine."""
    result = cli("convlstm", "--rank", "2", "-C", "3", "-F", "4", "-k", "3", "--bidir",
                 "-f", "flax-linen", "--verify")
    assert result.code == 0, result.err
    assert "✓ Verified against Flax linen" in result.out


@pytest.mark.parametrize(
    "args",
    [["shapes", "lstm", "-i", "3", "-H", "4"], ["explain", "gru", "-i", "3", "-H", "4"],
     ["fit", "gru", "-i", "3", "--max-params", "1000"],
     ["compare", "gru -i 3 -H 4", "gru -i 3 -H 5"],
     ["convlstm", "--rank", "1", "-C", "2", "-F", "3", "-k", "3"]],
    ids=["shapes", "explain", "fit", "compare", "convlstm"],
)
def test_markdown_and_json_everywhere(cli: CLI, args: list[str]) -> None:
    """--markdown prints Markdown and --json parses, on every command; both together is an error."""
    markdown = cli(*args, "--markdown")
    assert markdown.code == 0, markdown.err
    assert markdown.out.startswith("**")
    assert "\n#### " in markdown.out
    data = cli(*args, "--json")
    assert data.code == 0, data.err
    assert json.loads(data.out)["schema"].startswith("paramcount.")
    both = cli(*args, "--json", "--markdown")
    assert both.code == 2
    assert "choose one output format" in both.err


@pytest.mark.parametrize(
    ("args", "formats"),
    [(["read", "examples/pastes/bilstm-question.txt"], ("table", "json", "markdown")),
     (["check", "examples/text_classifier.toml"], ("table", "json"))],
    ids=["read", "check"],
)
def test_format_option_on_read_and_check(cli: CLI, args: list[str],
                                         formats: tuple[str, ...]) -> None:
    """read and check take --format as every other command does, equal to its shorthands;
    a format the command cannot give is refused."""
    for fmt in formats:
        long = cli(*args, "--format", fmt)
        assert long.code == 0, long.err
        if fmt != "table":
            assert cli(*args, f"--{fmt}").out == long.out
    assert json.loads(cli(*args, "--format", "json").out)["schema"].startswith("paramcount.")
    if "markdown" not in formats:
        refused = cli(*args, "--format", "markdown")
        assert refused.code == 2 and refused.err.count("\n") == 1
    both = cli(*args, "--format", "table", "--json")
    assert both.code == 2 and "choose one output format" in both.err


@TORCH
def test_format_option_on_port(cli: CLI, tmp_path: Path) -> None:
    """port takes --format table|json|markdown: the plan as the other commands give it."""
    import torch

    path = tmp_path / "decoder.pt"
    torch.save(torch.nn.GRU(8, 16).state_dict(), path)
    args = ["port", str(path), "--to", "keras"]
    assert cli(*args, "--format", "json").out == cli(*args, "--json").out
    markdown = cli(*args, "--markdown")
    assert markdown.code == 0, markdown.err
    assert markdown.out.startswith("**") and "gru/gru_cell/kernel" in markdown.out
    assert cli(*args, "--format", "table").out == cli(*args).out
