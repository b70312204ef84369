"""The library calls behind the commands: each command's ``--json`` is its library result's
``to_dict()``, its table the result's text, and the results show themselves in Jupyter."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import paramcount
from paramcount.api.result import Result
from paramcount.families.registry import FAMILIES
from tests.conftest import CLI, have
from tests.hybrid_strategies import NEEDED, needed_flags

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


def _counted_with_workload() -> Result:
    """An ONNX ReLU RNN's count with its Adam training memory and a 4-step forward pass, as
    ``paramcount rnn ... --optimizer adam -T 4`` shows them."""
    from paramcount.analysis.compute import forward
    from paramcount.analysis.memory import training_memory
    from paramcount.api.count import Counted

    report = paramcount.count("rnn", 5, 7, nonlinearity="relu", framework="onnx")
    return Counted([report], [("ONNX", training_memory(report.spec, "adam"),
                               forward(report.spec, 4))])


def family_case(name: str) -> Callable[[Path], Case]:
    """A family command with every field at its default (but those :data:`NEEDED`), and the
    call it is a client of."""
    needed = NEEDED.get(name, {})
    return lambda d: ([name, *needed_flags(name)], lambda d: paramcount.family(name, **needed))


Case = tuple[list[str], Callable[[Path], Result]]
CASES: dict[str, Callable[[Path], Case]] = {
    "read": lambda d: (["read", str(PASTE)],
                       lambda d: paramcount.read(PASTE.read_text(), source=str(PASTE))),
    "read:details": lambda d: (["read", str(PASTE), "--details"],
                               lambda d: paramcount.read(PASTE.read_text(), source=str(PASTE),
                                                         details=True)),
    "inspect": lambda d: (["inspect", str(npz_file(d))],
                          lambda d: paramcount.inspect(d / "encoder.npz")),
    "inspect:as-keras": lambda d: (["inspect", str(npz_file(d)), "--as", "keras"],
                                   lambda d: paramcount.inspect(d / "encoder.npz",
                                                                as_framework="keras")),
    "inspect:error": lambda d: (["inspect", "--error", str(load_error_text(d))],
                                lambda d: paramcount.load_error((d / "error.txt").read_text())),
    "check": lambda d: (["check", str(CHECK)], lambda d: paramcount.check(CHECK)),
    "mamba": lambda d: (["mamba", "--config", str(MAMBA)],
                        lambda d: paramcount.family("mamba", MAMBA)),
    "mamba:explain": lambda d: (["mamba", "--config", str(MAMBA), "--state-size", "8",
                                 "--explain", "--what-if", "expand=4"],
                                lambda d: paramcount.family("mamba", MAMBA, state_size=8,
                                                            explain=True,
                                                            what_if={"expand": 4})),
    "lstm": lambda d: (["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"],
                       lambda d: paramcount.counted("lstm", 32, 128, num_layers=2,
                                                    bidirectional=True)),
    "gru:keras-fp16": lambda d: (["gru", "-i", "13", "-H", "20", "-f", "keras",
                                  "--no-reset-after", "--dtype", "fp16"],
                                 lambda d: paramcount.counted("gru", 13, 20, framework="keras",
                                                              reset_after=False,
                                                              dtype="fp16")),
    "port": lambda d: (["port", str(npz_file(d)), "--to", "keras"],
                       lambda d: paramcount.port(d / "encoder.npz", "keras")),
    "port:verify": lambda d: (["port", str(npz_file(d)), "--to", "onnx", "--verify"],
                              lambda d: paramcount.port(d / "encoder.npz", "onnx",
                                                        verify=True)),
    "rnn": lambda d: (["rnn", "-i", "5", "-H", "7", "--nonlinearity", "relu", "-f", "onnx",
                       "--optimizer", "adam", "-T", "4"],
                      lambda d: _counted_with_workload()),
    "explain": lambda d: (["explain", "lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"],
                          lambda d: paramcount.explain("lstm", 32, 128, num_layers=2,
                                                       bidirectional=True)),
    "explain:frameworks": lambda d: (["explain", "gru", "-i", "13", "-H", "20", "-f",
                                      "torch,keras", "--dtype", "bf16"],
                                     lambda d: paramcount.explain("gru", 13, 20,
                                                                  framework="torch,keras",
                                                                  dtype="bf16")),
    "explain:all": lambda d: (["explain", "rnn", "-i", "3", "-H", "5", "-f", "all"],
                              lambda d: paramcount.explain("rnn", 3, 5, framework="all")),
    "fit": lambda d: (["fit", "lstm", "-i", "32", "-L", "2", "--bidir", "--max-params", "1M",
                       "--round", "8"],
                      lambda d: paramcount.fit("lstm", 32, num_layers=2, bidirectional=True,
                                               max_params="1M", round_to=8)),
    "fit:bytes": lambda d: (["fit", "lstm", "-i", "32", "--proj", "16", "--max-bytes", "4MiB",
                             "--dtype", "fp16"],
                            lambda d: paramcount.fit("lstm", 32, proj_size=16,
                                                     max_bytes=4 * 2**20, dtype="fp16")),
    "compute": lambda d: (["compute", "lstm", "-i", "32", "-H", "128", "-T", "100", "-N", "8"],
                          lambda d: paramcount.compute("lstm", 32, 128, seq_len=100, batch=8)),
    "compute:packed": lambda d: (["compute", "gru", "-i", "8", "-H", "16", "--bidir",
                                  "--lengths", "7,3,1", "-f", "torch,onnx"],
                                 lambda d: paramcount.compute("gru", 8, 16, bidirectional=True,
                                                              lengths=(7, 3, 1),
                                                              framework=("torch", "onnx"))),
    "memory": lambda d: (["memory", "lstm", "-i", "32", "-H", "128"],
                         lambda d: paramcount.memory("lstm", 32, 128)),
    "memory:mixed": lambda d: (["memory", "gru", "-i", "32", "-H", "128", "--optimizer", "sgd",
                                "--dtype", "bf16", "--mixed-precision", "-f", "all"],
                               lambda d: paramcount.memory("gru", 32, 128, optimizer="sgd",
                                                           dtype="bf16", mixed_precision=True,
                                                           framework="all")),
    "compare": lambda d: (["compare", "lstm -i 28 -H 256", "gru -i 28 -H 256 -f keras"],
                          lambda d: paramcount.compare(
                              paramcount.count("lstm", 28, 256),
                              paramcount.counted("gru", 28, 256, framework="keras"))),
    "compare:frameworks": lambda d: (["compare", "gru -i 9 -H 16 --bidir -f onnx",
                                      "--frameworks"],
                                     lambda d: paramcount.compare(
                                         paramcount.count("gru", 9, 16, bidirectional=True,
                                                          framework="onnx"),
                                         frameworks=True)),
    "compare:families": lambda d: (["compare", "mamba --hidden-size 64",
                                    "mamba --hidden-size 128", "LSTM -i 3 -H 4"],
                                   lambda d: paramcount.compare(
                                       paramcount.family("mamba", hidden_size=64),
                                       paramcount.family("mamba", hidden_size=128),
                                       paramcount.count("lstm", 3, 4),
                                       labels=["mamba --hidden-size 64",
                                               "mamba --hidden-size 128", "LSTM -i 3 -H 4"])),
    "shapes": lambda d: (["shapes", "lstm", "-i", "3", "-H", "4", "-L", "2", "--bidir",
                          "--proj", "2", "-N", "2", "-T", "3"],
                         lambda d: paramcount.shapes("lstm", 3, 4, num_layers=2,
                                                     bidirectional=True, proj_size=2,
                                                     batch=2, seq_len=3)),
    "shapes:keras": lambda d: (["shapes", "gru", "-i", "3", "-H", "4", "--bidir", "-f", "keras",
                                "--merge-mode", "sum"],
                               lambda d: paramcount.shapes("gru", 3, 4, bidirectional=True,
                                                           framework="keras",
                                                           merge_mode="sum")),
    "shapes:verify": lambda d: (["shapes", "gru", "-i", "3", "-H", "4", "--bidir",
                                 "--batch-first", "--verify"],
                                lambda d: paramcount.shapes("gru", 3, 4, bidirectional=True,
                                                            batch_first=True, verify=True)),
    "trace": lambda d: (["trace", "gru", "-i", "3", "-H", "4", "--bidir", "-N", "2", "-T", "3",
                         "--seed", "7", "--show-mistake"],
                        lambda d: paramcount.trace("gru", 3, 4, bidirectional=True, batch=2,
                                                   seq_len=3, seed=7, show_mistake=True)),
    "convlstm": lambda d: (["convlstm", "--rank", "2", "-C", "3", "-F", "8", "-k", "3x5",
                            "-L", "2", "--bidir", "--data-format", "channels_first"],
                           lambda d: paramcount.convlstm(2, 3, 8, "3x5", num_layers=2,
                                                         bidirectional=True,
                                                         data_format="channels_first")),
    "convlstm:all": lambda d: (["convlstm", "--rank", "1", "-C", "3", "-F", "8", "-k", "3",
                                "-f", "all", "--dtype", "fp16"],
                               lambda d: paramcount.convlstm(1, 3, 8, (3,), framework="all",
                                                             dtype="fp16")),
    **{name: family_case(name) for name in FAMILIES if name != "mamba"},
}
"""Each command line and the library call it is a client of (named ``command`` or
``command:variant``)."""

RUNS = {"shapes:verify", "trace"}
"""The cases that run a real torch layer."""


def test_every_command_with_json_has_a_library_call() -> None:
    """Each command of the CLI that prints ``--json`` is compared with its library call
    above: a new command without one fails here."""
    import click

    from paramcount.cli.commands import COMMANDS, cli

    covered = {name.split(":")[0] for name in CASES}
    with click.Context(cli) as ctx:
        json_commands = {name for name in COMMANDS
                         if any("--json" in p.opts for p in cli.get_command(ctx, name).params)}
    assert json_commands - covered == set()
    assert {"explain", "fit", "compute", "memory", "compare", "shapes", "trace",
            "convlstm"} <= json_commands


@pytest.mark.parametrize("name", list(CASES))
def test_command_json_is_the_library_document(cli: CLI, tmp_path: Path, name: str) -> None:
    """``--json`` prints exactly the library result's ``to_dict()``, and the table the
    result's plain text: the command builds neither itself."""
    if name in RUNS and not have("torch"):
        pytest.skip("runs torch")
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


def test_calls_are_plain_functions() -> None:
    """``paramcount.read``, ``check`` and ``port`` are the library's functions themselves (no
    shim), loaded when first named, and the packages behind them have their own names."""
    import inspect

    import paramcount.api.calls
    import paramcount.checking.session
    import paramcount.reading.pipeline

    for name in ("read", "check", "port", "summary", "inspect", "family"):
        call = getattr(paramcount, name)
        assert inspect.isfunction(call), name
        assert call is getattr(paramcount.api.calls, name)
        assert name in dir(paramcount)
    assert paramcount.checking.session.check_file is not None
    assert paramcount.read("x = nn.GRU(2, 3)\n").recurrent[0].params == 3 * 3 * (2 + 3 + 2)
    with pytest.raises(AttributeError, match="no attribute 'reed'"):
        paramcount.reed  # noqa: B018


def test_bad_arguments_are_one_clear_error() -> None:
    """A family field that does not exist, a framework --as does not know: one line."""
    with pytest.raises(paramcount.SpecError, match="no field of mamba"):
        paramcount.family("mamba", d_model=3)
    with pytest.raises(paramcount.ParamcountError, match="as_framework='tf1'"):
        paramcount.inspect("x.npz", as_framework="tf1")


def test_forum_calls_refuse_bad_arguments_in_one_line() -> None:
    """The forum answers' calls name the argument at fault, in the Python API's words."""
    lstm = paramcount.count("lstm", 3, 4)
    with pytest.raises(paramcount.SpecError, match="two or more configurations"):
        paramcount.compare(lstm)
    with pytest.raises(paramcount.SpecError, match="no configuration to compare"):
        paramcount.compare("lstm -i 3 -H 4", lstm)
    with pytest.raises(paramcount.SpecError, match="framework='tf1': TF1's LSTMCell"):
        paramcount.compare(paramcount.count("lstm", 3, 4, framework="tf1"), lstm)
    with pytest.raises(paramcount.SpecError, match="give one budget"):
        paramcount.fit("lstm", 3)
    from paramcount.analysis.fit import BudgetTooSmall

    with pytest.raises(BudgetTooSmall, match="no hidden size fits 10 parameters") as info:
        paramcount.fit("lstm", 3, max_params=10)
    assert isinstance(info.value, paramcount.Mismatch)
    smallest = info.value.smallest
    assert (smallest.next_hidden_size, smallest.next_total) == (1, 4 * 1 * (3 + 1 + 2))
    with pytest.raises(paramcount.SpecError, match="framework='onnx' is not one of: torch, keras"):
        paramcount.shapes("lstm", 3, 4, framework="onnx")
    with pytest.raises(paramcount.SpecError, match="batch_first=True is a PyTorch option"):
        paramcount.shapes("lstm", 3, 4, framework="keras", batch_first=True)
    with pytest.raises(paramcount.SpecError, match="kernel='3x3x3' gives 3 sizes for rank=2"):
        paramcount.convlstm(2, 3, 8, "3x3x3")
    with pytest.raises(paramcount.SpecError, match="framework='bogus' is not one of"):
        paramcount.explain("lstm", 3, 4, framework="torch,bogus")
    with pytest.raises(paramcount.SpecError, match=r"\[keras refuses it"):
        paramcount.memory("lstm", 3, 4, framework="all", proj_size=2)
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        _ = paramcount.fit.nothing
