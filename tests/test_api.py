"""The library calls behind the commands: each command's ``--json`` is its library result's
``to_dict()``, its table the result's text, and the results show themselves in Jupyter."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import paramcount
from paramcount.api.result import Result
from tests.conftest import CLI, have

ROOT = Path(__file__).resolve().parent.parent
PASTE = ROOT / "examples" / "pastes" / "bilstm-question.txt"
MAMBA = ROOT / "examples" / "hf" / "mamba-130m" / "config.json"
CHECK = ROOT / "examples" / "bilstm.toml"


def npz_file(folder: Path) -> Path:
    """A numpy archive of an encoder's state dict (a bidirectional GRU and a head), written by
    numpy."""
    np = pytest.importorskip("numpy")
    path = folder / "encoder.npz"
    arrays = {"embed.weight": np.zeros((40, 6), np.float32)}
    for suffix in ("", "_reverse"):
        arrays |= {f"gru.weight_ih_l0{suffix}": np.zeros((24, 6), np.float32),
                   f"gru.weight_hh_l0{suffix}": np.zeros((24, 8), np.float32),
                   f"gru.bias_ih_l0{suffix}": np.zeros((24,), np.float32),
                   f"gru.bias_hh_l0{suffix}": np.zeros((24,), np.float32)}
    arrays |= {"head.weight": np.zeros((3, 16), np.float32), "head.bias": np.zeros((3,))}
    np.savez(path, **arrays)
    return path


def load_error_text(folder: Path) -> Path:
    """The message torch's ``load_state_dict`` raises for a checkpoint of another hidden
    size, as torch writes it."""
    torch = pytest.importorskip("torch")
    saved, wanted = torch.nn.LSTM(4, 6), torch.nn.LSTM(4, 8)
    try:
        wanted.load_state_dict(saved.state_dict())
    except RuntimeError as error:
        path = folder / "error.txt"
        path.write_text(str(error))
        return path
    raise AssertionError("torch loaded a state dict of another size")


Case = tuple[list[str], Callable[[Path], Result]]
CASES: dict[str, Callable[[Path], Case]] = {
    "read": lambda d: (["read", str(PASTE)],
                       lambda d: paramcount.read(PASTE.read_text(), source=str(PASTE))),
    "read-details": lambda d: (["read", str(PASTE), "--details"],
                               lambda d: paramcount.read(PASTE.read_text(), source=str(PASTE),
                                                         details=True)),
    "inspect": lambda d: (["inspect", str(npz_file(d))],
                          lambda d: paramcount.inspect(d / "encoder.npz")),
    "inspect-as-keras": lambda d: (["inspect", str(npz_file(d)), "--as", "keras"],
                                   lambda d: paramcount.inspect(d / "encoder.npz",
                                                                as_framework="keras")),
    "inspect-error": lambda d: (["inspect", "--error", str(load_error_text(d))],
                                lambda d: paramcount.load_error((d / "error.txt").read_text())),
    "check": lambda d: (["check", str(CHECK)], lambda d: paramcount.check(CHECK)),
    "mamba": lambda d: (["mamba", "--config", str(MAMBA)],
                        lambda d: paramcount.family("mamba", MAMBA)),
    "mamba-explain": lambda d: (["mamba", "--config", str(MAMBA), "--state-size", "8",
                                 "--explain", "--what-if", "expand=4"],
                                lambda d: paramcount.family("mamba", MAMBA, state_size=8,
                                                            explain=True,
                                                            what_if={"expand": 4})),
    "lstm": lambda d: (["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"],
                       lambda d: paramcount.counted("lstm", 32, 128, num_layers=2,
                                                    bidirectional=True)),
    "gru-keras-fp16": lambda d: (["gru", "-i", "13", "-H", "20", "-f", "keras",
                                  "--no-reset-after", "--dtype", "fp16"],
                                 lambda d: paramcount.counted("gru", 13, 20, framework="keras",
                                                              reset_after=False,
                                                              dtype="fp16")),
    "port": lambda d: (["port", str(npz_file(d)), "--to", "keras"],
                       lambda d: paramcount.port(d / "encoder.npz", "keras")),
    "port-verify": lambda d: (["port", str(npz_file(d)), "--to", "onnx", "--verify"],
                              lambda d: paramcount.port(d / "encoder.npz", "onnx",
                                                        verify=True)),
}
"""Each command line and the library call it is a client of."""


@pytest.mark.parametrize("name", list(CASES))
def test_command_json_is_the_library_document(cli: CLI, tmp_path: Path, name: str) -> None:
    """``--json`` prints exactly the library result's ``to_dict()``, and the table the
    result's plain text: the command builds neither itself."""
    args, call = CASES[name](tmp_path)
    result = call(tmp_path)
    printed = cli(*args, "--json")
    assert printed.code == getattr(result, "exit_code", 0)
    assert json.loads(printed.out) == json.loads(result.to_json()) == result.to_dict()
    if name.startswith("check"):
        return  # check's table is coloured lines, not a document
    table = cli(*args)
    assert table.out == result.to_text()
    assert cli(*args, "--markdown").out == result.to_markdown()


def test_results_answer_the_common_questions(tmp_path: Path) -> None:
    """The typed attributes say what the JSON says."""
    reading = paramcount.read(PASTE.read_text())
    assert reading.total == reading.to_dict()["models"][0]["total"]
    assert [layer.params for layer in reading.recurrent] == [
        r["params"] for r in reading.to_dict()["recurrent"]]
    inspection = paramcount.inspect(npz_file(tmp_path))
    assert inspection.total == inspection.to_dict()["total"] == 40 * 6 + 2 * 3 * 8 * (
        6 + 8 + 2) + 3 * 16 + 3
    assert [layer.spec.hidden_size for layer in inspection.recurrent] == [8]
    checked = paramcount.check(CHECK)
    assert checked.passed and checked.exit_code == 0 and not checked.errors
    mamba = paramcount.family("mamba", MAMBA)
    assert mamba.total == mamba.to_dict()["total"] and mamba.family == "mamba"


def test_results_show_in_jupyter() -> None:
    """HTML (tables, no script, every name escaped) and Markdown for Jupyter; the plain text
    as the Python prompt's repr."""
    result = paramcount.family("mamba", hidden_size=64, num_hidden_layers=2, vocab_size=100)
    html = result._repr_html_()
    assert html.startswith('<div class="paramcount">') and "<table>" in html
    assert "<script" not in html and "style=" not in html.replace(
        'style="text-align: right"', "")
    assert "Mamba" in html and f"{result.total:,}" in html
    assert result._repr_markdown_() == result.to_markdown()
    assert repr(result) == result.to_text().rstrip("\n")
    from paramcount.render.document import Document, Section, Table
    from paramcount.render.html import to_html

    hostile = to_html(Document("<script>alert(1)</script>", "a & b", (Section("<i>", (
        Table(("name", "count"), (("<img src=x>", "1"),), frozenset({"count"})),)),)))
    assert "<script" not in hostile and "<img" not in hostile and "<i>" not in hostile
    assert "&lt;script&gt;" in hostile and "a &amp; b" in hostile


@pytest.mark.skipif(not have("rich"), reason="needs rich")
def test_results_render_in_rich() -> None:
    """rich prints a result as the CLI draws it on a terminal, fitted to rich's width."""
    from rich.console import Console

    console = Console(width=100, record=True, color_system=None)
    console.print(paramcount.family("mamba", hidden_size=64, num_hidden_layers=2,
                                    vocab_size=100))
    text = console.export_text()
    assert "Mamba" in text and max(len(line) for line in text.splitlines()) <= 100


def test_calls_and_subpackages_share_their_names() -> None:
    """``paramcount.read`` and ``paramcount.check`` stay the library calls once their
    subpackages are imported, which are still reached through them and by import."""
    import paramcount.check.session
    import paramcount.read.pipeline
    from paramcount.read import pipeline

    assert callable(paramcount.read) and callable(paramcount.check)
    assert paramcount.read.pipeline is pipeline
    assert paramcount.check.session.check_file is not None
    assert paramcount.read("x = nn.GRU(2, 3)\n").recurrent[0].params == 3 * 3 * (2 + 3 + 2)


def test_bad_arguments_are_one_clear_error() -> None:
    """A family field that does not exist, a framework --as does not know: one line."""
    with pytest.raises(paramcount.SpecError, match="no field of mamba"):
        paramcount.family("mamba", d_model=3)
    with pytest.raises(paramcount.ParamcountError, match="as_framework='tf1'"):
        paramcount.inspect("x.npz", as_framework="tf1")
