"""The rnn/lstm/gru commands: options, formats, one-line errors, and a fuzz test."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.cli.commands import COMMANDS, LISTED, cli
from tests.conftest import CLI

ROOT = Path(__file__).resolve().parent.parent


def total(cli: CLI, *args: str) -> int:
    """The total that ``paramcount ARGS --json`` reports."""
    result = cli(*args, "--json")
    assert result.code == 0, result.err
    value: int = json.loads(result.out)["total"]
    return value


OPTIONS = [
    ("long-names", ["lstm", "--input", "32", "--hidden", "128", "--layers", "2", "--bidir"],
     561_152),
    ("short-names", ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"], 561_152),
    ("units-alias", ["lstm", "-i", "32", "--units", "128", "-L", "2", "--bidir"], 561_152),
    ("no-bidir", ["lstm", "-i", "32", "-H", "128", "-L", "2", "--no-bidir"], 215_040),
    ("no-bias", ["gru", "-i", "10", "-H", "20", "--no-bias"], 1_800),
    ("proj", ["lstm", "-i", "64", "-H", "512", "-L", "3", "--proj", "256"], 3_158_016),
    ("proj-zero", ["lstm", "-i", "64", "-H", "512", "--proj", "0"], 1_183_744),
    ("keras", ["lstm", "-i", "28", "-H", "128", "--bidir", "--framework", "keras"], 160_768),
    ("keras-short", ["lstm", "-i", "28", "-H", "256", "-f", "keras"], 291_840),
    ("keras-gru-v1", ["gru", "-i", "13", "-H", "20", "-f", "keras", "--no-reset-after"], 2_040),
    ("keras-gru-v2", ["gru", "-i", "13", "-H", "20", "-f", "keras", "--reset-after"], 2_100),
    ("torch-gru-reset-after", ["gru", "-i", "13", "-H", "20", "--reset-after"], 2_100),
    ("merge-one", ["lstm", "-i", "16", "-H", "32", "-L", "2", "--bidir", "-f", "keras",
                   "--merge-mode", "sum"], 29_184),
    ("merge-list", ["lstm", "-i", "16", "-H", "32", "-L", "3", "--bidir", "-f", "keras",
                    "--merge-mode", "concat,sum,none"],
     2 * 128 * (16 + 32 + 1) + 2 * 128 * (64 + 32 + 1) + 2 * 128 * (32 + 32 + 1)),
    ("merge-case", ["lstm", "-i", "16", "-H", "32", "-L", "2", "--bidir", "-f", "keras",
                    "--merge-mode", "SUM"], 29_184),
    ("rnn-relu", ["rnn", "-i", "25", "-H", "50", "-L", "4", "--bidir", "--nonlinearity", "relu"],
     53_300),
    ("cell", ["lstm", "-i", "10", "-H", "20", "--cell"], 2_560),
    ("keras-cell", ["gru", "-i", "10", "-H", "20", "--cell", "-f", "keras"], 1_920),
    ("underscores", ["lstm", "-i", "1_000", "-H", "10"], 40 * (1000 + 10 + 2)),
    ("huge", ["lstm", "-i", "10", "-H", "1000000000"], 4_000_000_048_000_000_000),
    ("largest", ["lstm", "-i", "10", "-H", str(2**63 - 1)],
     4 * (2**63 - 1) * (10 + 2**63 - 1 + 2)),
    ("torch-words", ["lstm", "--input-size", "32", "--hidden-size", "128", "--num-layers", "2",
                     "--bidirectional", "-f", "pytorch"], 561_152),
    ("torch-proj-size", ["lstm", "-i", "64", "-H", "512", "-L", "3", "--proj-size", "256"],
     3_158_016),
    ("no-bidirectional", ["lstm", "-i", "32", "-H", "128", "-L", "2", "--no-bidirectional"],
     215_040),
    ("keras-words", ["lstm", "-i", "28", "--units", "256", "-f", "tensorflow"], 291_840),
    ("tf.keras", ["lstm", "-i", "28", "--units", "256", "-f", "tf.keras", "--no-use-bias"],
     4 * 256 * (28 + 256)),
    ("framework-case", ["lstm", "-i", "28", "-H", "256", "-f", "Keras"], 291_840),
    ("count-1e3", ["lstm", "-i", "1e3", "-H", "10"], 40 * (1000 + 10 + 2)),
    ("count-1.5K", ["lstm", "-i", "1.5K", "-H", "10"], 40 * (1500 + 10 + 2)),
    ("count-250k", ["lstm", "-i", "250k", "-H", "10"], 40 * (250_000 + 10 + 2)),
    ("count-commas", ["lstm", "-i", "1,000", "-H", "10"], 40 * (1000 + 10 + 2)),
    ("count-1.5M", ["rnn", "-i", "1", "-H", "1.5M", "--no-bias"], 1_500_000 * 1_500_001),
    ("concat-on-torch", ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir",
                         "--merge-mode", "concat"], 561_152),
    ("concat-list-on-onnx", ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir", "-f",
                             "onnx", "--merge-mode", "concat,concat"], 561_152),
]


@pytest.mark.parametrize(
    ("args", "expected"), [o[1:] for o in OPTIONS], ids=[o[0] for o in OPTIONS]
)
def test_options(cli: CLI, args: list[str], expected: int) -> None:
    """Each option spelling gives the exact total."""
    assert total(cli, *args) == expected


BAD = [
    ("zero-hidden", ["lstm", "-i", "8", "-H", "0"], "--hidden 0 must be a positive integer"),
    ("negative-hidden", ["lstm", "-i", "8", "-H", "-5"], "--hidden -5 must be a positive integer"),
    ("float-input", ["lstm", "-i", "12.5", "-H", "8"], "'12.5' is not a whole number"),
    ("fraction-after-suffix", ["lstm", "-i", "1.2345K", "-H", "8"],
     "'1.2345K' is not a whole number (1234.5)"),
    ("negative-exponent", ["lstm", "-i", "5e-1", "-H", "8"], "'5e-1' is not a whole number"),
    ("text-input", ["lstm", "-i", "abc", "-H", "8"], "'abc' is not a whole number"),
    ("bad-grouping", ["lstm", "-i", "1,00", "-H", "8"], "'1,00' is not a whole number"),
    ("above-int64", ["lstm", "-i", "8", "-H", str(2**63)],
     "'9223372036854775808' is too large: at most 9,223,372,036,854,775,807"),
    ("2200-digits", ["lstm", "-i", "8", "-H", "1" + "0" * 2200], "(2,201 characters) is too large"),
    ("5000-digits", ["lstm", "-i", "8", "-H", "9" * 5000], "(5,000 characters) is too large"),
    ("huge-exponent", ["lstm", "-i", "8", "-H", "1e999999999"], "is too large"),
    ("huge-proj", ["lstm", "-i", "8", "-H", "16", "--proj", "1e30"], "is too large"),
    ("huge-layers", ["lstm", "-i", "8", "-H", "16", "-L", "1e30"], "is too large"),
    ("long-text", ["lstm", "-i", "x" * 5000, "-H", "8"], "(5,000 characters) is not a whole"),
    ("long-framework", ["lstm", "-i", "8", "-H", "8", "-f", "y" * 5000], "(5,000 characters)"),
    ("long-merge", ["lstm", "-i", "8", "-H", "8", "--merge-mode", "z" * 5000],
     "(5,000 characters)"),
    ("sum-on-onnx", ["lstm", "-i", "8", "-H", "16", "--bidir", "-f", "onnx",
                     "--merge-mode", "sum"], "--merge-mode sum is a Keras Bidirectional option"),
    ("concat-no-bidir-torch", ["lstm", "-i", "8", "-H", "16", "--merge-mode", "concat"],
     "--merge-mode concat needs --bidir"),
    ("zero-layers", ["lstm", "-i", "8", "-H", "8", "-L", "0"], "--layers 0 must be a positive"),
    ("missing-input", ["lstm", "-H", "8"], "Missing option '--input'"),
    ("proj-gru", ["gru", "-i", "8", "-H", "16", "--proj", "4"],
     "--proj applies only to LSTM (nn.GRU has no proj_size)"),
    ("proj-rnn", ["rnn", "-i", "8", "-H", "16", "--proj", "4"], "nn.RNN has no proj_size"),
    ("proj-too-big", ["lstm", "-i", "64", "-H", "128", "--proj", "128"],
     "--proj 128 must be smaller than --hidden 128 (torch requires proj_size < hidden_size)"),
    ("proj-keras", ["lstm", "-i", "8", "-H", "16", "--proj", "4", "-f", "keras"],
     "--proj 4 is a PyTorch option"),
    ("proj-all", ["lstm", "-i", "8", "-H", "16", "--proj", "4", "-f", "all"],
     "--proj 4 is a PyTorch option"),
    ("merge-no-bidir", ["lstm", "-i", "8", "-H", "16", "-f", "keras", "--merge-mode", "sum"],
     "--merge-mode sum needs --bidir"),
    ("merge-torch", ["lstm", "-i", "8", "-H", "16", "--bidir", "--merge-mode", "sum"],
     "--merge-mode sum is a Keras Bidirectional option"),
    ("merge-none-early", ["lstm", "-i", "8", "-H", "16", "-L", "2", "--bidir", "-f", "keras",
                          "--merge-mode", "none,concat"], "uses 'none' before the last layer"),
    ("merge-wrong-length", ["lstm", "-i", "8", "-H", "16", "-L", "3", "--bidir", "-f", "keras",
                            "--merge-mode", "sum,sum"], "lists 2 modes for --layers 3"),
    ("merge-unknown", ["lstm", "-i", "8", "-H", "16", "--bidir", "-f", "keras",
                       "--merge-mode", "avg"], "'avg' is not a merge mode"),
    ("reset-after-torch", ["gru", "-i", "8", "-H", "16", "--no-reset-after"],
     "--no-reset-after is a Keras GRU option"),
    ("reset-after-lstm", ["lstm", "-i", "8", "-H", "16", "-f", "keras", "--no-reset-after"],
     "--no-reset-after applies only to GRU (nn.LSTM has no reset_after)"),
    ("cell-layers", ["lstm", "-i", "8", "-H", "16", "--cell", "-L", "2"],
     "--layers 2 does not apply to a single-step cell (--cell)"),
    ("cell-bidir", ["lstm", "-i", "8", "-H", "16", "--cell", "--bidir"],
     "--bidir does not apply to a single-step cell (--cell)"),
    ("nonlinearity-lstm", ["lstm", "-i", "8", "-H", "16", "--nonlinearity", "relu"],
     "--nonlinearity applies only to RNN (nn.LSTM has no nonlinearity)"),
    ("peepholes-gru", ["gru", "-i", "8", "-H", "16", "-f", "onnx", "--peepholes"],
     "--peepholes applies only to LSTM (nn.GRU has no peephole weights)"),
    ("proj-size-rnn", ["rnn", "-i", "8", "-H", "16", "--proj-size=4"],
     "--proj-size applies only to LSTM (nn.RNN has no proj_size)"),
    ("unknown-cell", ["lstmm", "-i", "8", "-H", "16"], "Did you mean 'lstm'?"),
    ("unknown-format", ["lstm", "-i", "8", "-H", "16", "--format", "yaml"],
     "'yaml' is not one of 'table', 'json', 'markdown'"),
    ("two-formats", ["lstm", "-i", "8", "-H", "16", "--json", "--markdown"],
     "choose one output format: json and markdown were both given"),
    ("unknown-framework", ["lstm", "-i", "8", "-H", "16", "-f", "jax"],
     "'jax' is not one of torch, keras, onnx, flax-linen, flax-nnx, tf1, tf1-cudnn, all "
     "(Flax: flax-linen or flax-nnx)"),
    ("unknown-dtype", ["lstm", "-i", "8", "-H", "16", "--dtype", "fp8"], "'fp8' is not one of"),
    ("unknown-option", ["lstm", "-i", "8", "-H", "16", "--hiden", "3"], "No such option"),
]


@pytest.mark.parametrize(("args", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_exit_2(cli: CLI, args: list[str], message: str) -> None:
    """Bad input prints one line naming option, value and rule, exits 2, prints nothing else."""
    result = cli(*args)
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1 and result.err.startswith("Error: ")
    assert message in result.err
    assert len(result.err) < 300, "an error quotes at most a few dozen characters of a value"


TOKENS = [
    "rnn", "lstm", "gru", "lstmm", "-i", "--input", "-H", "--hidden", "--units", "-L",
    "--layers", "--bidir", "--no-bidir", "--bias", "--no-bias", "--proj", "-f", "--framework",
    "torch", "keras", "all", "--merge-mode", "concat", "sum,none", "none", "--reset-after",
    "--no-reset-after", "--nonlinearity", "relu", "--cell", "--format", "json", "markdown",
    "--json", "--markdown", "--dtype", "bf16", "0", "1", "2", "3", "-1", "7", "64", "1.5", "1e3",
    "10000000000000000000000", "", "--", "-", "=", "--input=3", "\x00", "ü",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=6)), max_size=12))
def test_no_argument_list_escapes_as_a_traceback(args: list[str]) -> None:
    """Whatever the argument list, the CLI exits 0 or 2 and errors are one line."""
    from paramcount.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(args)
    assert code in (0, 2)
    assert "method " not in out.getvalue()  # a method formatted by mistake, e.g. str.title
    if code == 2:
        assert err.getvalue().startswith("Error: ") and err.getvalue().count("\n") == 1
    else:
        assert out.getvalue() and not err.getvalue()


def test_json_values(cli: CLI) -> None:
    """The JSON of the 2-layer bidirectional LSTM holds the numbers the docs explain (its keys are
    checked against docs/json.md by tests/test_json_schema.py)."""
    data = json.loads(cli("lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir", "--json").out)
    assert data["total"] == 561_152
    assert data["explanation"]["difference"] == 131_072
    assert data["tensors"][8] == {
        "name": "weight_ih_l1", "shape": [512, 256], "count": 131_072, "layer": 1,
        "direction": "forward", "input_width": 256, "role": "weight_ih",
    }
    assert [row["total"] for row in data["layers"]] == [165_888, 395_264]


def test_json_all_frameworks(cli: CLI) -> None:
    """``--framework all --json`` holds one report per current (non-legacy) framework."""
    data = json.loads(cli("lstm", "-i", "28", "-H", "128", "--bidir", "-f", "all", "--json").out)
    assert [(r["framework"], r["total"]) for r in data["reports"]] == [
        ("torch", 161_792), ("keras", 160_768), ("onnx", 161_792), ("flax-linen", 160_768),
        ("flax-nnx", 160_768)]


def test_format_shorthands_match_format_option(cli: CLI) -> None:
    """--json equals --format json and --markdown equals --format markdown."""
    args = ["gru", "-i", "13", "-H", "20", "-L", "2", "--bidir"]
    assert cli(*args, "--json").out == cli(*args, "--format", "json").out
    assert cli(*args, "--markdown").out == cli(*args, "--format", "markdown").out


def test_dtype_changes_bytes_only(cli: CLI) -> None:
    """--dtype bf16 halves the bytes of fp32 and leaves the count alone."""
    args = ["lstm", "-i", "32", "-H", "128", "--json"]
    fp32, bf16 = (json.loads(cli(*args, "--dtype", d).out) for d in ("fp32", "bf16"))
    assert fp32["total"] == bf16["total"] and fp32["bytes"] == 2 * bf16["bytes"]


@pytest.mark.parametrize("fmt", ["--format=table", "--markdown", "--json"])
def test_largest_sizes_render_exactly(cli: CLI, fmt: str) -> None:
    """The largest accepted sizes (2^63 - 1) render in every format, the total digit for digit."""
    result = cli("lstm", "-i", "10", "-H", str(2**63 - 1), "-L", "2", "--bidir", fmt)
    assert result.code == 0, result.err
    assert re.search(r"\(1\.\d\de40 B\)", result.out) or fmt == "--json"
    exact = 2_722_258_935_367_507_708_149_718_717_223_174_930_352
    assert f"{exact:,}" in result.out or json.loads(result.out)["total"] == exact


def test_piped_table_is_plain(cli: CLI) -> None:
    """Piped output has no escape codes."""
    out = cli("lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir").out
    assert "\x1b" not in out and "561,152" in out


@pytest.mark.parametrize(
    ("env", "colour"),
    [({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False)],
    ids=["terminal", "no-color"],
)
def test_terminal_table_honours_no_color(
    cli: CLI, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], colour: bool
) -> None:
    """On a terminal the table is styled, without colour when NO_COLOR is set."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    out = cli("lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir").out
    assert "561,152" in out and "weight_ih_l1_reverse" in out
    assert "\x1b[1m" in out  # bold: drawn for a terminal
    assert "2·[512·(32 + 128 + 2)]" in out  # brackets are text, not markup
    assert bool(re.search(r"\x1b\[[0-9;]*(3[0-8]|9[0-7])[;m]", out)) is colour


def test_every_command_has_help_and_is_documented() -> None:
    """Each command has help text and each listed one (the old names kept as hidden aliases
    aside) an executed example in the README or docs/."""
    from tests.test_docs import DOCS, examples

    commands = {c.split()[1] for doc in DOCS for c, _ in examples(doc) if len(c.split()) > 1}
    for name in COMMANDS:
        assert _help(name), name
    for name in LISTED:
        assert name in commands, f"{name} has no example in README.md or docs/*.md"


def _help(name: str) -> str:
    import click

    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    return command.help or ""


def test_console_script_runs() -> None:
    """``python -m paramcount`` runs, and says its version."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "paramcount", "lstm", "-i", "32", "-H", "8"],
                          capture_output=True, text=True, env=env, check=True)
    assert done.stdout.startswith("nn.LSTM(32, 8")
    version = subprocess.run([sys.executable, "-m", "paramcount", "--version"],
                             capture_output=True, text=True, env=env)
    assert version.returncode == 0 and "paramcount" in version.stdout


BROKEN_PIPE = ("Error: cannot write the output: its reader closed the pipe (broken pipe); "
               "the answer was cut\n")


@pytest.mark.parametrize("args", [
    ["lstm", "-i", "32", "-H", "128", "--json"],  # the quick path
    ["lstm", "-i", "32", "-H", "128"],
    ["explain", "lstm", "-i", "32", "-H", "128", "--markdown"],  # click, through output.py
    ["check", "examples/convlstm.toml"],  # click.echo, which click itself guards
    ["--help"],  # click's own help
    ["read", "README.md"],  # read's quick path
], ids=["quick-json", "quick-table", "explain", "check", "help", "read"])
@pytest.mark.parametrize("stderr_too", [False, True], ids=["stdout", "stdout-and-stderr"])
def test_a_broken_pipe_is_one_line_and_exit_2(args: list[str], stderr_too: bool) -> None:
    """A reader that went away before the answer was written (``| head``) cuts the answer:
    exit 2 with one line, never 0 (a ``pipefail`` pipeline would take the cut answer for a
    whole one), click's silent exit 1 or a traceback; with stderr on the same pipe, exit 2
    and nothing written."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write
    try:
        done = subprocess.run([sys.executable, "-m", "paramcount", *args], stdout=write_end,
                              stderr=write_end if stderr_too else subprocess.PIPE, text=True,
                              env=env, cwd=ROOT)
    finally:
        os.close(write_end)
    assert done.returncode == 2
    assert (done.stderr is None) if stderr_too else (done.stderr == BROKEN_PIPE)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [
    ["lstm", "-i", "32", "-H", "128", "--json"],  # the quick path
    ["lstm", "-i", "32", "-H", "128"],
    ["explain", "lstm", "-i", "32", "-H", "128", "--markdown"],  # click, through output.py
    ["check", "examples/convlstm.toml"],  # click.echo
    ["--help"],  # click's own help
])
def test_a_full_disk_is_one_line_not_a_traceback(args: list[str]) -> None:
    """Output that cannot be written (a full disk) is one error line, exit 2."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "paramcount", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr == "Error: cannot write the output: No space left on device\n"


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.integers(-3, 40), st.integers(10_001, 10**30)), st.booleans())
def test_any_layer_count_is_counted_or_refused_in_one_line(layers: int, bidir: bool) -> None:
    """Any --layers value gives a count (exit 0) or a one-line error (exit 2), never a crash."""
    from paramcount.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    args = ["gru", "-i", "3", "-H", "4", "-L", str(layers), "--json", *(["--bidir"] * bidir)]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(args)
    assert code == (0 if 1 <= layers <= 10_000 else 2)
    assert code == 0 or err.getvalue().count("\n") == 1


@pytest.mark.parametrize("name", [None, *COMMANDS])
def test_dash_h_is_help(cli: CLI, name: str | None) -> None:
    """``-h`` prints exactly what ``--help`` prints, for the group and every command."""
    args = [name] if name else []
    short, long = cli(*args, "-h"), cli(*args, "--help")
    assert short.code == long.code == 0 and short.err == long.err == ""
    assert short.out == long.out and "Usage: paramcount" in short.out


def test_bare_paramcount_lists_the_commands(cli: CLI) -> None:
    """``paramcount`` alone shows the help with every command but the hidden old names, exit
    0."""
    result = cli()
    assert result.code == 0 and result.err == ""
    assert all(f"  {name} " in result.out for name in LISTED)


HUGE_PLACES = [
    ["lstm", "-i", "{}", "-H", "4"], ["gru", "-i", "3", "-H", "{}"],
    ["rnn", "-i", "3", "-H", "4", "-L", "{}"], ["lstm", "-i", "3", "-H", "4", "--proj", "{}"],
    ["lstm", "-i", "3", "-H", "4", "-T", "{}"],
    ["lstm", "-i", "3", "-H", "4", "-T", "2", "-N", "{}"],
    ["lstm", "-i", "3", "-H", "4", "--lengths", "3,{}"],
    ["explain", "lstm", "-i", "3", "-H", "{}"], ["shapes", "lstm", "-i", "3", "-H", "{}"],
    ["trace", "lstm", "-i", "3", "-H", "4", "-T", "{}"],
    ["fit", "lstm", "-i", "3", "--max-params", "{}"],
    ["fit", "lstm", "-i", "3", "--max-bytes", "{}"],
    ["fit", "lstm", "-i", "3", "--max-params", "1M", "--round", "{}"],
    ["convlstm", "--rank", "2", "-C", "{}", "-F", "2", "-k", "3"],
    ["convlstm", "--rank", "2", "-C", "1", "-F", "2", "-k", "{}"],
    ["compare", "lstm -i 3 -H {}", "lstm -i 3 -H 4"],
]


@pytest.mark.parametrize("digits", [2201, 5000])
@pytest.mark.parametrize("args", HUGE_PLACES, ids=[" ".join(a) for a in HUGE_PLACES])
def test_huge_values_are_one_short_line(cli: CLI, args: list[str], digits: int) -> None:
    """A size of thousands of digits, wherever a count is read, is refused in one short line."""
    value = "1" + "0" * (digits - 1)
    result = cli(*(a.replace("{}", value) for a in args))
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("Error: ") and result.err.count("\n") == 1
    assert len(result.err) < 300 and "too large" in result.err


def test_every_install_hint_works_from_a_clone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a file whose library is missing names the extra for an index and for a clone,
    as --verify does (port's torch reader, the Keras HDF5 reader)."""
    from paramcount.errors import BackendUnavailable, install_hint
    from paramcount.files import keras_file
    from paramcount.porting.load import _require

    with pytest.raises(BackendUnavailable) as torch_missing:
        _require("paramcount_surely_not_installed", "torch")
    assert str(torch_missing.value).endswith(install_hint("torch"))
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(BackendUnavailable) as h5_missing:
        keras_file._h5py()
    assert str(h5_missing.value).endswith(install_hint("h5"))


@pytest.mark.parametrize("args", [
    ["lstm", "-i", "4", "-H", "4"],  # the quick path
    ["explain", "lstm", "-i", "4", "-H", "4"],  # click
    ["lstm", "-i", "4", "-H", "4", "-T", "5"],  # the quick path leaves it to click
], ids=["quick", "click", "quick-then-click"])
def test_a_bug_exits_70_and_names_its_traceback(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An unexpected exception is a bug, not a budget failure: exit 70 (EX_SOFTWARE) with one
    line that says so and names the file in the temporary directory that holds the traceback."""
    import tempfile

    from paramcount.cli import main as entry
    from paramcount.engine import conventions

    def broken(*_: object, **__: object) -> None:
        raise ZeroDivisionError("planted\nsecond line")

    monkeypatch.setattr(conventions, "tensors", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(sys, "argv", ["paramcount", *args])
    interrupt = signal.getsignal(signal.SIGINT)  # the console's entry traps Ctrl-C, then
    with pytest.raises(SystemExit) as ended:  # ignores it once its exit code is settled
        entry.main()
    signal.signal(signal.SIGINT, interrupt)
    err = capsys.readouterr().err
    assert ended.value.code == entry.BUG == 70
    assert err.count("\n") == 1 and "a bug in paramcount (ZeroDivisionError: planted)" in err
    (written,) = tmp_path.iterdir()
    assert str(written) in err
    assert "Traceback" in written.read_text() and "in broken" in written.read_text()
