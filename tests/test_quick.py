"""The quick path (paramcount/cli/quick.py) says exactly what click would, or leaves it to click.

It reads the count commands' everyday command lines without loading click. Each command line
generated here, valid or not, is run both ways: where the quick path answers, click must print
the same bytes and exit with the same code; where it declines, it must have printed nothing.
"""

from __future__ import annotations

import contextlib
import io

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.cli import quick
from paramcount.cli.commands import cli
from paramcount.cli.main import _run_click
from paramcount.engine.spec import Cell


def _run(function: object, args: list[str]) -> tuple[int | None, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = function(args)  # type: ignore[operator]
    return code, out.getvalue(), err.getvalue()


def _click_options(cell: Cell) -> dict[str, click.Option]:
    """Every option name of ``cell``'s click command (``--no-`` forms too): the option."""
    command = cli.get_command(click.Context(cli), cell.value)
    assert command is not None
    return {name: param for param in command.params if isinstance(param, click.Option)
            for name in (*param.opts, *param.secondary_opts)}


@pytest.mark.parametrize("cell", list(Cell))
def test_quick_path_reads_only_what_click_offers(cell: Cell) -> None:
    """Every name the quick path reads is an option of the click command, taking a value
    exactly when click's does: the two parsers cannot drift apart unnoticed."""
    options = _click_options(cell)
    valued, switches = quick.offered(cell)
    assert valued | switches <= options.keys(), (valued | switches) - options.keys()
    for name in valued:
        assert not options[name].is_flag, name
    for name in switches:
        assert options[name].is_flag, name
    left = options.keys() - valued - switches
    # What the quick path leaves to click: verification, memory and compute, help.
    assert left <= {"--verify", "-T", "--seq-len", "--batch", "-N", "--lengths", "--optimizer",
                    "--mixed-precision", "--help", "-h"}, left


VALUES = {  # valid ones first, then mistakes
    "count": (["32", "4", "1", "2", "3", "1.5K", "1e2", "1_000", "12"],
              ["0", "-3", "2.5", "abc", "", "9" * 30]),
    "framework": (["torch", "keras", "onnx", "all", "torch,keras", "pytorch", "TensorFlow",
                   "flax-linen", "flax-nnx", "tf1", "tf1-cudnn", "keras,keras", " onnx",
                   "all,tf1"], ["flax", "x"]),
    "merge": (["concat", "sum", "mul", "ave", "none", "concat,sum", "CONCAT"], ["bogus"]),
    "format": (["table", "json", "markdown"], ["JSON", "csv"]),
    "dtype": (["fp32", "fp16", "bf16", "fp64", "int8"], ["FP32", "fp8"]),
    "nonlinearity": (["tanh", "relu"], ["Relu", "gelu"]),
    "other": (["5", "adam"], ["x"]),
}
KIND = {"--input": "count", "--input-size": "count", "-i": "count", "--hidden": "count",
        "--hidden-size": "count", "--units": "count", "-H": "count", "--layers": "count",
        "--num-layers": "count", "-L": "count", "--proj": "count", "--proj-size": "count",
        "--framework": "framework", "-f": "framework", "--merge-mode": "merge",
        "--format": "format", "--dtype": "dtype", "--nonlinearity": "nonlinearity"}
SWITCHES = ["--bidir", "--no-bidir", "--bidirectional", "--no-bidirectional", "--bias",
            "--no-bias", "--use-bias", "--no-use-bias", "--reset-after", "--no-reset-after",
            "--cell", "--peepholes", "--json", "--markdown"]
ODD = ["--verify", "-T", "--optimizer", "-h", "--bogus", "extra", "--", "-i32", "--json=1",
       "--input", "--input="]


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """A count command line: mostly plausible, sometimes wrong in every way people are."""
    def value(kind: str) -> str:
        valid, wrong = VALUES[kind]
        return draw(st.sampled_from(wrong if draw(st.integers(0, 9)) == 0 else valid))

    args = [draw(st.sampled_from([c.value for c in Cell]))]
    if draw(st.integers(0, 9)) > 0:
        args += ["-i", draw(st.sampled_from(VALUES["count"][0][:5])),
                 "-H", draw(st.sampled_from(VALUES["count"][0][:5]))]
    for _ in range(draw(st.integers(0, 5))):
        choice = draw(st.integers(0, 19))
        if choice < 10:
            name = draw(st.sampled_from(sorted(KIND)))
            text = value(KIND[name])
            args += [f"{name}={text}"] if name.startswith("--") and draw(st.booleans()) \
                else [name, text]
        elif choice < 19:
            args.append(draw(st.sampled_from(SWITCHES)))
        else:
            args.append(draw(st.sampled_from(ODD)))
            if args[-1] in ("-T", "--optimizer"):
                args.append(value("other"))
    return args


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                               HealthCheck.function_scoped_fixture])
@given(args=command_lines())
def test_quick_path_says_what_click_says(args: list[str], monkeypatch_env: None) -> None:
    """Both paths print the same bytes, or the quick path leaves the line to click."""
    code, out, err = _run(quick.answer, args)
    if code is None:
        assert out == "" and err == ""
        return
    assert (code, out, err) == _run(_run_click, args), args


@pytest.mark.parametrize("args", [
    ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"],
    ["lstm", "--input-size=32", "--hidden-size", "1.5K", "--num-layers", "2", "--bidirectional",
     "--proj-size", "64", "--json"],
    ["gru", "-i", "13", "-H", "20", "-f", "tensorflow", "--no-reset-after", "--markdown"],
    ["rnn", "-i", "3", "-H", "4", "--nonlinearity", "relu", "-f", "all", "--dtype", "bf16"],
    ["lstm", "-i", "28", "-H", "128", "--bidir", "-f", "keras", "--merge-mode", "sum"],
])
def test_everyday_lines_take_the_quick_path(args: list[str]) -> None:
    """The lines people type most are answered without click, as click would answer them."""
    code, out, err = _run(quick.answer, args)
    assert code == 0 and out
    assert (code, out, err) == _run(_run_click, args)


@pytest.mark.parametrize("args", [
    ["lstm", "-i", "32", "-H", "0"],  # an error: click's message
    ["gru", "-i", "3", "-H", "4", "--proj", "2"],  # not a gru option
    ["lstm", "-i", "3", "-H", "4", "--verify"],
    ["lstm", "-i", "3", "-H", "4", "-T", "10"],
    ["lstm", "-i", "3", "-H", "4", "--json", "--markdown"],
    ["lstm", "-i", "3", "-H", "4", "-L", "2", "-L", "3"],  # given twice
    ["lstm", "-h"],
    ["explain", "lstm", "-i", "3", "-H", "4"],
])
def test_everything_else_is_left_to_click(args: list[str]) -> None:
    """Mistakes, help, verification and other commands are click's, untouched."""
    assert _run(quick.answer, args) == (None, "", "")


@pytest.fixture
def monkeypatch_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain output on both paths, whatever the environment of the test run."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "_PARAMCOUNT_COMPLETE"):
        monkeypatch.delenv(name, raising=False)


PASTE = "examples/pastes/bilstm-question.txt"
READ_OPTIONS = ["--json", "--markdown", "--details", "--format", "--format=json", "json",
                "table", "--set", "hidden_size=8", "-h", "--", "-", "--json=1", "--bogus"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                               HealthCheck.function_scoped_fixture])
@given(args=st.lists(st.sampled_from(READ_OPTIONS), max_size=4).flatmap(
    lambda options: st.permutations([PASTE, *options])))
def test_read_quick_path_says_what_click_says(args: list[str], monkeypatch_env: None) -> None:
    """``read`` command lines, valid or not: the quick path prints what click prints, or
    leaves the line to click untouched."""
    from paramcount.cli.main import run

    code, out, err = _run(quick.answer, ["read", *args])
    if code is None:
        assert out == "" and err == ""
        return
    assert _run(run, ["read", *args]) == _run(_run_click, ["read", *args]), args


@pytest.mark.parametrize("args", [
    [PASTE], [PASTE, "--json"], ["--details", PASTE, "--markdown"],
    [PASTE, "--format", "json", "--details"], ["examples/pastes/keras2-gru.txt", "--format=table"],
])
def test_read_takes_the_quick_path(args: list[str], monkeypatch_env: None) -> None:
    """A paste with its output options is answered without click, as click answers it."""
    code, out, err = _run(quick.answer, ["read", *args])
    assert code == 0 and out
    assert (code, out, err) == _run(_run_click, ["read", *args])


@pytest.mark.parametrize("path", ["no/such/file.txt", "examples", "/dev/null", ""])
def test_read_refusals_are_click_s(path: str, monkeypatch_env: None) -> None:
    """A file that cannot be read, or holds nothing countable: the same line and exit code
    both ways."""
    from paramcount.cli.main import run

    refused = _run(run, ["read", path, "--json"])
    assert refused[0] == 2 and refused[1] == "" and refused[2].startswith("Error: ")
    assert refused == _run(_run_click, ["read", path, "--json"])
