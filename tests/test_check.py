"""``paramcount check``: counts of whole models, expectations, budgets and the output formats."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paramcount.checking import read
from paramcount.checking.config import recurrent_count
from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode
from paramcount.errors import SpecError
from tests.conftest import CLI

BILSTM = """\
[models.bilstm]   # nn.LSTM(32, 64, num_layers=2, bidirectional=True)
input = 32
total = 149_504
layers = [{ kind = "lstm", hidden = 64, layers = 2, bidirectional = true }]
"""


def write(tmp_path: Path, text: str, name: str = "models.toml") -> Path:
    """Write a config file and return its path."""
    path = tmp_path / name
    path.write_text(text)
    return path


def model_total(text: str, tmp_path: Path, name: str = "models.toml") -> int:
    """The total paramcount computes for the only model of a config text."""
    (model,) = read(str(write(tmp_path, text, name))).models
    return model.total


# (id, layers, first-layer input or None, framework, expected total) — each total worked out
# by hand from the layer formulas (formulas.md) and the framework's constructor.
TOTALS = [
    ("bilstm", '{ kind = "lstm", hidden = 64, layers = 2, bidirectional = true }', 32, "torch",
     149_504),
    ("gru-keras-reset-after", '{ kind = "gru", units = 20 }', 13, "keras", 3 * 20 * (13 + 20 + 2)),
    ("gru-keras-v1", '{ kind = "gru", units = 20, reset_after = false }', 13, "keras",
     3 * 20 * (13 + 20 + 1)),
    ("lstm-proj", '{ kind = "lstm", hidden = 128, proj = 64 }', 32, "torch",
     4 * 128 * (32 + 64 + 2) + 64 * 128),
    ("lstm-cell", '{ kind = "lstm", hidden = 20, cell = true }', 10, "torch",
     4 * 20 * (10 + 20 + 2)),
    ("rnn-relu-no-bias", '{ kind = "rnn", hidden = 8, nonlinearity = "relu", bias = false }', 4,
     "torch", 8 * (4 + 8)),
    ("linear-no-bias", '{ kind = "linear", out = 7, bias = false }', 5, "torch", 35),
    ("embedding-padding", '{ kind = "embedding", vocab = 100, dim = 8, padding_idx = 0 }', None,
     "torch", 800),
    ("embedding-then-gru",
     '{ kind = "embedding", vocab = 10, dim = 4 }, { kind = "gru", hidden = 3 }', None, "torch",
     40 + 3 * 3 * (4 + 3 + 2)),
    ("pool-concat-widens",
     '{ kind = "pool", mode = ["last", "max", "mean"] }, { kind = "linear", out = 2 }', 6,
     "torch", 18 * 2 + 2),
    ("keras-merge-sum-halves-width",
     '{ kind = "lstm", units = 8, bidirectional = true, merge_mode = "sum" }, '
     '{ kind = "dense", units = 1 }', 4, "keras", 2 * 4 * 8 * (4 + 8 + 1) + 9),
    ("time-distributed", '{ kind = "time_distributed", units = 9 }', 16, "keras", 16 * 9 + 9),
    ("layer-norm", '{ kind = "layer_norm" }, { kind = "dropout", rate = 0.1 }, '
     '{ kind = "tanh" }', 10, "torch", 20),
    ("attention", '{ kind = "attention", layers = [{ kind = "linear", out = 4 }, '
     '{ kind = "tanh" }, { kind = "linear", out = 1 }] }, { kind = "linear", out = 3 }', 6,
     "torch", (6 * 4 + 4) + (4 + 1) + (6 * 3 + 3)),
    ("keras-attention", '{ kind = "lstm", units = 4, bidirectional = true }, '
     '{ kind = "attention", layers = [{ kind = "dense", units = 1, activation = "tanh" }] }, '
     '{ kind = "dense", units = 2 }', 3, "keras", 2 * 16 * (3 + 4 + 1) + 9 + 18),
    ("keras-sequence-through-dropout", '{ kind = "lstm", units = 4 }, { kind = "dropout" }, '
     '{ kind = "dense", units = 3 }, { kind = "gru", units = 2, reset_after = false }', 5,
     "keras", 16 * (5 + 4 + 1) + 15 + 6 * (3 + 2 + 1)),
    ("keras-lstm-cell", '{ kind = "lstm", units = 5, cell = true }', 3, "keras",
     4 * 5 * (3 + 5 + 1)),
    ("keras-stacked-merge-modes", '{ kind = "gru", units = 4, layers = 3, bidirectional = true, '
     'merge_mode = ["concat", "ave", "mul"] }, { kind = "layer_norm" }', 2, "keras",
     2 * 12 * (2 + 4 + 2) + 2 * 12 * (8 + 4 + 2) + 2 * 12 * (4 + 4 + 2) + 8),
    ("keras-rnn-pool", '{ kind = "rnn", units = 3, nonlinearity = "relu" }, '
     '{ kind = "pool", mode = ["max", "mean", "first"] }, { kind = "dense", units = 1 }', 2,
     "keras", 3 * (2 + 3 + 1) + 10),
    ("torch-gru-bias-free-stack", '{ kind = "gru", hidden = 6, layers = 3, bias = false }, '
     '{ kind = "layer_norm", bias = false }, { kind = "gelu" }, { kind = "sigmoid" }, '
     '{ kind = "activation", function = "silu" }', 5, "torch",
     18 * (5 + 6) + 2 * 18 * (6 + 6) + 6),
]


@pytest.mark.parametrize(("layers", "width", "framework", "total"),
                         [t[1:] for t in TOTALS], ids=[t[0] for t in TOTALS])
def test_model_totals(tmp_path: Path, layers: str, width: int | None, framework: str,
                      total: int) -> None:
    """Each layer kind counts what its framework holds, reading the previous layer's width."""
    head = f"input = {width}\n" if width else ""
    text = f'[models.m]\nframework = "{framework}"\n{head}layers = [{layers}]\n'
    assert model_total(text, tmp_path) == total


@pytest.mark.torch
@pytest.mark.keras
def test_every_kind_verifies_with_its_framework(cli: CLI, tmp_path: Path) -> None:
    """--verify builds each TOTALS model for real and agrees with paramcount's count."""
    text = ""
    for name, layers, width, framework, total in TOTALS:
        pytest.importorskip(framework)
        head = f"input = {width}\n" if width else ""
        text += (f'[models.{name}]\nframework = "{framework}"\n{head}total = {total}\n'
                 f"layers = [{layers}]\n\n")
    result = cli("check", str(write(tmp_path, text)), "--verify")
    assert result.code == 0, result.out + result.err
    assert result.out.count("verified with") == len(TOTALS)
    data = json.loads(cli("check", str(tmp_path / "models.toml"), "--verify", "--json").out)
    for model in data["models"]:
        assert model["verified_total"] == model["total"]
        assert [la["verified"] for la in model["layers"]] == [la["params"] for la in
                                                               model["layers"]]


@given(
    cell=st.sampled_from(list(Cell)), framework=st.sampled_from(list(Framework)),
    input_size=st.integers(1, 300), hidden=st.integers(2, 300), layers=st.integers(1, 4),
    bidirectional=st.booleans(), bias=st.booleans(), proj=st.integers(0, 300),
    single=st.booleans(), reset_after=st.sampled_from([None, True, False]),
    modes=st.lists(st.sampled_from(["concat", "sum", "mul", "ave"]), min_size=1, max_size=4),
)
def test_closed_form_count_equals_tensors(
    cell: Cell, framework: Framework, input_size: int, hidden: int, layers: int,
    bidirectional: bool, bias: bool, proj: int, single: bool, reset_after: bool | None,
    modes: list[str],
) -> None:
    """check's closed-form recurrent count is the sum of the convention's tensors."""
    keras = framework is Framework.KERAS
    try:
        spec = LayerSpec(
            cell, input_size, hidden, num_layers=1 if single else layers,
            bidirectional=bidirectional and not single, bias=bias,
            proj_size=proj if cell is Cell.LSTM and not keras and not single else 0,
            framework=framework,
            merge_modes=tuple(MergeMode(m) for m in modes[:layers]) if keras and bidirectional
            and not single and len(modes[:layers]) in (1, layers) else None,
            reset_after=reset_after if cell is Cell.GRU and keras else None,
            single_cell=single,
        )
    except SpecError:
        return
    assert recurrent_count(spec) == sum(t.count for t in conventions.tensors(spec))


def test_backend_missing_exits_3(cli: CLI, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """--verify without the model's framework installed exits 3 with the install hint."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    result = cli("check", str(write(tmp_path, BILSTM)), "--verify")
    assert result.code == 3
    assert result.err == ("Error: verifying with torch requires the torch package: pip "
                          "install 'paramcount[torch]' (in a clone: pip install -e '.[torch]')\n")


def test_from_reads_a_named_layer(tmp_path: Path) -> None:
    """``from`` makes a layer read an earlier named layer, like a bridge reading final states."""
    text = """{"models": {"enc": {"layers": [
      {"kind": "embedding", "vocab": 10, "dim": 4},
      {"kind": "lstm", "name": "encoder", "hidden": 3, "bidirectional": true},
      {"kind": "linear", "from": "encoder", "out": 3},
      {"kind": "linear", "from": "encoder", "out": 3}]}}}"""
    lstm = 2 * 4 * 3 * (4 + 3 + 2)
    assert model_total(text, tmp_path, "m.json") == 40 + lstm + 2 * (6 * 3 + 3)


def test_pass_prints_one_line_per_model_and_a_summary(cli: CLI, tmp_path: Path) -> None:
    """A passing file prints ✓ lines with expected and actual, a summary, and exits 0."""
    path = write(tmp_path, BILSTM)
    result = cli("check", str(path))
    assert result.code == 0, result.err
    assert result.out == (
        "✓ bilstm: 149,504 parameters, expected total 149,504 (±0)\n"
        f"1 model in {path}: 1 passed, 0 failed\n"
    )


@pytest.mark.parametrize(
    ("setting", "line"),
    [
        ("total = 149_000", "✗ bilstm: 149,504 parameters, expected total 149,000 (+504)"),
        ("max_params = 100_000",
         "✗ bilstm: 149,504 parameters, over max_params 100,000 (+49,504)"),
        ('max_bytes = 500_000\ndtype = "fp32"',
         "✗ bilstm: 149,504 parameters, 598,016 bytes as fp32 over max_bytes 500,000 "
         "(+98,016)"),
        ("max_params = 200_000",
         "✓ bilstm: 149,504 parameters, within max_params 200,000 (−50,496)"),
        ('max_bytes = 300_000\ndtype = "fp16"',
         "✓ bilstm: 149,504 parameters, 299,008 bytes as fp16 within max_bytes 300,000 "
         "(−992)"),
    ],
    ids=["total-mismatch", "over-params", "over-bytes", "within-params", "within-bytes-fp16"],
)
def test_expectations_and_budgets(cli: CLI, tmp_path: Path, setting: str, line: str) -> None:
    """Totals must match exactly; budgets are upper bounds; a failure exits 1."""
    text = BILSTM.replace("total = 149_504", setting)
    result = cli("check", str(write(tmp_path, text)))
    assert result.out.splitlines()[0] == line
    assert result.code == (0 if line.startswith("✓") else 1)


def test_layer_expectation_mismatch(cli: CLI, tmp_path: Path) -> None:
    """A layer's ``params`` is checked on its own and named in the line."""
    text = BILSTM.replace("bidirectional = true }", "bidirectional = true, params = 5 }")
    result = cli("check", str(write(tmp_path, text)))
    assert result.code == 1
    assert "layers[0] (lstm) 149,504, expected 5 (+149,499)" in result.out


def test_json_output(cli: CLI, tmp_path: Path) -> None:
    """``--json`` prints the paramcount.check/1 schema with located problems."""
    path = write(tmp_path, BILSTM.replace("149_504", "149_000"))
    result = cli("check", str(path), "--json")
    data = json.loads(result.out)
    assert result.code == 1
    assert data["schema"] == "paramcount.check/1"
    assert (data["passed"], data["failed"]) == (0, 1)
    (model,) = data["models"]
    assert model["total"] == 149_504 and model["expected"]["total"] == 149_000
    assert model["layers"][0]["layer"] == "nn.LSTM(32, 64, num_layers=2, bidirectional=True)"
    (problem,) = model["problems"]
    assert problem == {"key": "total", "at": "models.bilstm.total", "line": 3, "column": 9,
                       "expected": 149_000, "actual": 149_504, "difference": 504,
                       "message": "149,504 parameters, expected total 149,000 (+504)"}


def test_junit_output(cli: CLI, tmp_path: Path) -> None:
    """``--junit FILE`` writes one test case per model, failures carrying file:line."""
    text = BILSTM + BILSTM.replace("bilstm]", "other]").replace("149_504", "1")
    path = write(tmp_path, text)
    report = tmp_path / "report.xml"
    assert cli("check", str(path), "--junit", str(report)).code == 1
    root = ET.parse(report).getroot()
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["bilstm", "other"]
    assert root.get("tests") == "2" and root.get("failures") == "1"
    assert cases[0].find("failure") is None
    failure = cases[1].find("failure")
    assert failure is not None and failure.text == (
        f"{path}:7:9: other: 149,504 parameters, expected total 1 (+149,503)\n"
        "  layers[0]: LSTM(32, 64, 2 layers, bidirectional) 149,504 (100.0% of the total)"
    )
    assert cases[1].get("line") == "5"


def test_github_annotations(cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under GitHub Actions each unmet expectation becomes an ::error annotation on its line."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    path = write(tmp_path, BILSTM.replace("149_504", "149_000"))
    result = cli("check", str(path))
    # The message is workflow-command data: its commas stay as they are (only the file
    # property escapes ',' and ':').
    assert result.out.splitlines()[-1] == (
        f"::error file={path},line=3,col=9,title=paramcount%3A bilstm total changed::bilstm: "
        "149,504 parameters, expected total 149,000 (+504)%0Alayers[0]: LSTM(32, 64, 2 layers, "
        "bidirectional) 149,504 (100.0%25 of the total)"
    )


def test_github_annotations_keep_json_clean(cli: CLI, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """With --json, annotations go to stderr and stdout stays one JSON document."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = cli("check", str(write(tmp_path, BILSTM.replace("149_504", "1"))), "--json")
    assert json.loads(result.out)["failed"] == 1
    assert result.err.startswith("::error file=")


def test_github_annotation_for_config_error(cli: CLI, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """An invalid config is annotated at its location too, and still exits 2."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    path = write(tmp_path, BILSTM.replace("hidden = 64", "hidden = 0"))
    result = cli("check", str(path))
    assert result.code == 2
    assert result.out.startswith(f"::error file={path},line=4,col=")
    assert "hidden: expected the hidden size" in result.out


def test_no_annotations_outside_github(cli: CLI, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Without GITHUB_ACTIONS the output has no workflow commands."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    result = cli("check", str(write(tmp_path, BILSTM.replace("149_504", "1"))))
    assert "::error" not in result.out


def test_reads_pyproject_by_default(cli: CLI, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """With no FILE, ``[tool.paramcount]`` of ./pyproject.toml is the config."""
    text = '[project]\nname = "x"\n\n' + BILSTM.replace("[models.", "[tool.paramcount.models.")
    write(tmp_path, text.replace("149_504", "1"), "pyproject.toml")
    monkeypatch.chdir(tmp_path)
    result = cli("check")
    assert result.code == 1
    assert result.out.endswith("1 model in pyproject.toml: 0 passed, 1 failed\n")
    located = cli("check", "--json")
    assert json.loads(located.out)["models"][0]["problems"][0]["at"] == (
        "tool.paramcount.models.bilstm.total")
    assert json.loads(located.out)["models"][0]["problems"][0]["line"] == 6


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "Error: no FILE given and no pyproject.toml here"),
        ({"pyproject.toml": '[project]\nname = "x"\n'},
         "Error: pyproject.toml:1:1: no [tool.paramcount] table"),
    ],
    ids=["no-pyproject", "no-tool-table"],
)
def test_pyproject_missing(cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           files: dict[str, str], message: str) -> None:
    """Without FILE and without a usable pyproject.toml the error says what to add (exit 2)."""
    for name, text in files.items():
        write(tmp_path, text, name)
    monkeypatch.chdir(tmp_path)
    result = cli("check")
    assert result.code == 2
    assert result.err.startswith(message)


def test_check_imports_no_framework() -> None:
    """Checking a config (without --verify) imports no framework and not rich."""
    root = Path(__file__).resolve().parent.parent
    code = (
        "import contextlib, io, sys\nfrom paramcount.cli.main import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert run(['check', {str(root / 'examples' / 'keras.toml')!r}, '--json']) == 0\n"
        "heavy = {m.split('.')[0] for m in sys.modules} & "
        "{'torch', 'tensorflow', 'keras', 'jax', 'rich'}\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)


@pytest.mark.torch
def test_verify_refused_by_framework_is_a_finding(cli: CLI, tmp_path: Path) -> None:
    """A model torch cannot build (4 · 2^62 rows overflow int64) fails cleanly with exit 1."""
    pytest.importorskip("torch")
    text = BILSTM.replace("hidden = 64", "hidden = 4_611_686_018_427_387_904")
    result = cli("check", str(write(tmp_path, text)), "--verify")
    assert result.code == 1 and result.err == ""
    assert "; PyTorch could not build it: " in result.out


def test_junit_for_invalid_config(cli: CLI, tmp_path: Path) -> None:
    """With --junit, an invalid config still leaves a JUnit file: one test case in error."""
    path = write(tmp_path, BILSTM.replace("hidden = 64", "hidden = -1"))
    report = tmp_path / "report.xml"
    result = cli("check", str(path), "--junit", str(report))
    assert result.code == 2
    root = ET.parse(report).getroot()
    assert root.get("errors") == "1"
    error = root.find("./testsuite/testcase/error")
    assert error is not None and error.get("message") == result.err.removeprefix("Error: ").strip()


def test_help_lists_check(cli: CLI) -> None:
    """``paramcount --help`` lists the command and ``check --help`` documents the exit codes."""
    assert "check" in cli("--help").out
    text = cli("check", "--help").out
    assert "--verify" in text and "--update" in text and "3 a framework missing" in text


def test_explicit_pyproject_without_table(cli: CLI, tmp_path: Path) -> None:
    """Naming a pyproject.toml that has no [tool.paramcount] says so, not "unknown key"."""
    path = write(tmp_path, '[project]\nname = "x"\n', "pyproject.toml")
    result = cli("check", str(path))
    assert result.code == 2
    assert result.err.startswith(f"Error: {path}:1:1: no [tool.paramcount] table")


def test_github_annotation_escaping() -> None:
    """Workflow-command data escapes %, CR and LF; the file property also ':' and ','."""
    from paramcount.render.check_ci import annotation, error_annotation

    assert annotation("a:b,c%.toml", 1, 2, "50% a:b,c\r\nnext") == (
        "::error file=a%3Ab%2Cc%25.toml,line=1,col=2,title=paramcount check::"
        "50%25 a:b,c%0D%0Anext")
    assert error_annotation("50% a:b,c\r\nnext") == (
        "::error title=paramcount check::50%25 a:b,c%0D%0Anext")


def test_github_annotation_for_unlocated_error_is_escaped(
        cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error with no line and column (a missing file) is annotated escaped, on one line."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.chdir(tmp_path)
    result = cli("check", "100%,a:b\r\nc.toml")
    assert result.code == 2
    assert result.out == ("::error title=paramcount check::100%25,a:b%0D%0Ac.toml: "
                          "no such file\n")


def test_config_error_survives_an_unwritable_junit_file(cli: CLI, tmp_path: Path) -> None:
    """When the --junit file cannot be written, the config error is still printed, first."""
    path = write(tmp_path, BILSTM.replace("hidden = 64", "hidden = -1"))
    result = cli("check", str(path), "--junit", str(tmp_path / "missing" / "report.xml"))
    assert result.code == 2
    first, second = result.err.splitlines()
    assert first.startswith(f"Error: {path}:4:") and "hidden" in first
    assert "--junit" in second and "cannot write" in second


def test_config_error_annotation_keeps_json_stdout_clean(
        cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under --json on GitHub Actions a config error's annotation goes to stderr, as results do."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    path = write(tmp_path, BILSTM.replace("hidden = 64", "hidden = 0"))
    result = cli("check", str(path), "--json")
    assert result.code == 2
    assert json.loads(result.out)["errors"][0]["line"] == 4
    assert f"::error file={path},line=4,col=" in result.err


@pytest.mark.torch
def test_json_for_a_model_that_could_not_be_built(cli: CLI, tmp_path: Path) -> None:
    """--verify --json records no actual count (null) for a model torch could not build."""
    pytest.importorskip("torch")
    text = BILSTM.replace("hidden = 64", "hidden = 4_611_686_018_427_387_904")
    result = cli("check", str(write(tmp_path, text)), "--verify", "--json")
    assert result.code == 1
    (problem,) = [p for p in json.loads(result.out)["models"][0]["problems"]
                  if p["key"] == "verify"]
    assert (problem["actual"], problem["difference"]) == (None, None)
    assert problem["message"].startswith("PyTorch could not build it: ")


def test_in_process_runs_leave_nothing_frozen(cli: CLI, tmp_path: Path) -> None:
    """The command thaws what it froze for the collector, so repeated runs do not pile up
    (from nothing frozen: a console entry run in this process before, as test_cli's are,
    freezes for a process about to end, and check never thaws what it did not freeze)."""
    import gc

    path = str(write(tmp_path, BILSTM))
    gc.unfreeze()
    before = gc.get_freeze_count()
    for _ in range(2):
        assert cli("check", path).code == 0
        assert cli("check", str(write(tmp_path, "models = 3\n", "bad.toml"))).code == 2
    assert gc.get_freeze_count() == before


def test_factory_without_its_framework_says_building_not_verifying(
        cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A factory model without torch installed exits 3, and the line says a factory needs it
    (no --verify was given, so "verifying" would mislead)."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    path = tmp_path / "models.toml"
    path.write_text('[models.net]\nfactory = "nets:build"\n')
    result = cli("check", str(path))
    assert result.code == 3
    assert result.err == ("Error: building a factory model with torch requires the torch "
                          "package: pip install 'paramcount[torch]' (in a clone: pip install "
                          "-e '.[torch]')\n")


def test_errors_are_listed_in_reading_order(cli: CLI, tmp_path: Path) -> None:
    """Several errors in one config are listed by line and column, whichever was found
    first."""
    path = tmp_path / "bad.toml"
    path.write_text('[models.a]\nlayers = [\n  { kind = "lstm", hidden = -3 },\n'
                    '  { kind = "conv9d", filters = 3 },\n]\ninput = 8\n\n'
                    '[models.b]\ntotal = "many"\n'
                    'layers = [{ kind = "gru", hidden = 8, input = 4, bogus = 1 }]\n')
    result = cli("check", str(path), "--json")
    assert result.code == 2
    places = [(e["line"], e["column"]) for e in json.loads(result.out)["errors"]]
    assert len(places) == 4
    assert places == sorted(places)
    lines = result.err.splitlines()
    assert [line.split(":")[2] for line in lines] == [str(p[0]) for p in places]
