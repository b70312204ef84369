"""``paramcount read``: exit codes, options, output formats, bad and hostile input (nothing runs).

No framework is needed here: these pastes are read statically, and their counts follow from the
formulas checked against real torch and Keras in test_read_torch.py and test_read_keras.py.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.reading.code.python_code import MAX_TEXT
from paramcount.reading.pipeline import Unreadable, read
from tests.conftest import CLI

ROOT = Path(__file__).resolve().parent.parent

QUESTION = """\
Why does my model have 561,152 parameters in the LSTM? I expected 2 x 215,040 = 430,080.

import torch.nn as nn
class Net(nn.Module):
    def __init__(self, hidden_size=128):
        super().__init__()
        self.lstm = nn.LSTM(32, hidden_size, num_layers=2, batch_first=True,
                            bidirectional=True)
        self.fc = nn.Linear(hidden_size * 2, n_classes)
"""


@pytest.fixture
def question(tmp_path: Path) -> Path:
    """The question above, as a file."""
    path = tmp_path / "question.txt"
    path.write_text(QUESTION)
    return path


def test_answer_leads_with_the_numbers_and_the_reason(cli: CLI, question: Path) -> None:
    """The plain answer's first lines are the count and the one-sentence growth reason."""
    result = cli("read", str(question))
    assert result.code == 0, result.err
    first, second = result.out.splitlines()[:2]
    assert first == ("nn.LSTM(32, 128, num_layers=2, bidirectional=True): 561,152 parameters")
    assert second == ("Naive 2 × 215,040 = 430,080 vs actual 561,152, because every layer "
                      "after the first reads both directions' outputs, 2·128 = 256 inputs, "
                      "not 128.")
    assert "stated in the question: the naive 2 × 215,040" in result.out
    assert "paramcount lstm -i 32 -H 128 -L 2 --bidir" in result.out
    assert re.search(r"n_classes +9 +pass --set n_classes=N", result.out)


def test_set_completes_the_model(cli: CLI, question: Path) -> None:
    """``--set`` gives a name the paste leaves open, and the model total appears."""
    result = cli("read", str(question), "--set", "n_classes=5", "--json")
    data = json.loads(result.out)
    assert data["unresolved"] == []
    assert data["models"][0]["total"] == 561_152 + 256 * 5 + 5
    assert data["overrides"] == {"n_classes": 5}


def test_markdown_is_post_ready(cli: CLI, question: Path) -> None:
    """``--markdown`` starts with the bold numbers, then the reason, then Markdown tables."""
    result = cli("read", str(question), "--markdown")
    lines = result.out.splitlines()
    assert lines[0] == "**nn.LSTM(32, 128, num_layers=2, bidirectional=True): 561,152 parameters**"
    assert lines[2].startswith("Naive 2 × 215,040 = 430,080 vs actual 561,152, because")
    assert "| model | layer | line |" in result.out


def test_stdin(cli: CLI, monkeypatch: pytest.MonkeyPatch) -> None:
    """``-`` reads the paste from standard input."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        b"import torch.nn as nn\ngru = nn.GRU(10, 20)\n")))
    result = cli("read", "-", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["source"] == "<stdin>"
    assert data["recurrent"][0]["params"] == 3 * 20 * (10 + 20 + 2)


@pytest.mark.parametrize(
    ("content", "code", "message"),
    [
        (b"", 2, "Error: nothing countable found in"),
        (b"Hello, why is my model so big? Thanks!\n", 2, "Error: nothing countable found in"),
        (bytes(range(256)) * 64, 2, "Error: nothing countable found in"),
        (b"x = " + b"(" * 5000 + b"1" + b")" * 5000, 2, "Error: nothing countable found in"),
        (b"x = " + b"+".join([b"1"] * 20000), 2, "Error: nothing countable found in"),
        (b"lstm = nn.LSTM(" * 3000, 2, "Error: nothing countable found in"),
    ],
    ids=["empty", "prose", "binary", "deep-parentheses", "deep-sum", "unclosed-calls"],
)
def test_nothing_countable_is_one_line_exit_2(
    cli: CLI, tmp_path: Path, content: bytes, code: int, message: str
) -> None:
    """Input without a countable layer is bad input: exit 2, one line on stderr saying what
    was looked for, no traceback."""
    path = tmp_path / "paste.txt"
    path.write_bytes(content)
    result = cli("read", str(path))
    assert result.code == code
    assert result.err.startswith(message) and result.err.count("\n") == 1
    assert "looked for recurrent" in result.err or "brackets nest more than 100 deep" in result.err
    assert result.out == ""


def test_unreadable_input_is_exit_2(cli: CLI, tmp_path: Path) -> None:
    """A missing file, a directory and a paste over the size limit: exit 2, one line."""
    for target in (tmp_path / "missing.txt", tmp_path):
        result = cli("read", str(target))
        assert result.code == 2 and result.err.startswith("Error: cannot read")
    big = tmp_path / "big.txt"
    big.write_bytes(b"#" * 17_000_000)
    result = cli("read", str(big))
    assert result.code == 2 and "larger than 16,000,000 bytes" in result.err
    with pytest.raises(Unreadable, match="at most 10,000,000"):
        read("#" * (MAX_TEXT + 1))


@pytest.mark.parametrize("setting", ["hidden", "hidden=", "=3", "hidden=big", "a b=3"])
def test_bad_set_is_a_usage_error(cli: CLI, question: Path, setting: str) -> None:
    """A malformed ``--set`` names itself and the expected form."""
    result = cli("read", str(question), "--set", setting)
    assert result.code == 2
    assert "is not name=N" in result.err and "--set" in result.err


def test_ten_megabytes_of_text_are_read(cli: CLI, tmp_path: Path) -> None:
    """A 10 MB paste (a big module and prose) is answered, not refused."""
    body = "".join(f"        self.fc{i} = nn.Linear({i % 50 + 1}, 3)\n" for i in range(2000))
    prose = "This is a line of prose that pads the paste out to ten megabytes.\n"
    text = (f"import torch.nn as nn\nclass Big(nn.Module):\n    def __init__(self):\n{body}"
            + prose * ((MAX_TEXT - len(body) - 100) // len(prose)))
    assert 9_900_000 < len(text) <= MAX_TEXT
    path = tmp_path / "big.txt"
    path.write_text(text)
    result = cli("read", str(path), "--json")
    assert result.code == 0
    total = json.loads(result.out)["models"][0]["total"]
    assert total == sum((i % 50 + 1) * 3 + 3 for i in range(2000))


HOSTILE = {
    "os-system": "import os\nos.system('touch {marker}')\nlstm = nn.LSTM(4, 8)\n",
    "open-write": "open('{marker}', 'w').write('ran')\nlstm = nn.LSTM(4, 8)\n",
    "dunder-import": "__import__('os').system('touch {marker}')\nlstm = nn.LSTM(4, 8)\n",
    "in-argument": "lstm = nn.LSTM(open('{marker}', 'w').write('1'), 8)\n",
    "eval-exec": "lstm = nn.LSTM(eval(\"exec('open(\\'{marker}\\', \\'w\\')')\"), 8)\n",
    "default": ("class M(nn.Module):\n    def __init__(self, n=open('{marker}','w')):\n"
                "        super().__init__()\n        self.l = nn.LSTM(4, 8)\n"),
    "save": "import torch\nlstm = nn.LSTM(4, 8)\ntorch.save(lstm, '{marker}')\n",
    "unknown-module": "import paramcount_hostile_probe\nlstm = nn.LSTM(4, 8)\n",
}


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_hostile_code_is_never_run(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """Code that would run commands, write files or import a module is only read: the marker
    file is not created and no module is imported (the probe module would write it too)."""
    marker = tmp_path / "MARKER"
    probe = tmp_path / "paramcount_hostile_probe.py"
    probe.write_text(f"open({str(marker)!r}, 'w').write('imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    paste = tmp_path / "hostile.py"
    paste.write_text("import torch.nn as nn\n" + HOSTILE[case].format(marker=marker))
    cli("read", str(paste))  # the first run imports paramcount's own modules
    before = set(sys.modules)
    result = cli("read", str(paste), "--json")
    assert set(sys.modules) == before
    assert not marker.exists()
    assert "paramcount_hostile_probe" not in sys.modules
    data = json.loads(result.out)
    if case in ("in-argument", "eval-exec"):
        assert result.code == 0 and data["recurrent"][0]["params"] is None
        assert data["unresolved"]
    else:
        assert data["recurrent"][0]["params"] == 4 * 8 * (4 + 8 + 2)


def documented_keys() -> set[str]:
    """The key paths docs/read.md documents in its JSON tables (``recurrent[].cell``)."""
    text = (ROOT / "docs" / "read.md").read_text()
    section = text.split("## JSON", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([\w\[\].]+)` \|", section, re.M))


def produced_keys(data: object, prefix: str = "") -> set[str]:
    """Every key path in ``data``, lists written ``[]``."""
    keys: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            path = f"{prefix}.{key}" if prefix else key
            keys.add(path)
            if key != "overrides":
                keys |= produced_keys(value, path)
    elif isinstance(data, list):
        for item in data:
            keys |= produced_keys(item, f"{prefix}[]")
    return keys


def test_documented_json_keys_are_the_produced_keys(cli: CLI, question: Path) -> None:
    """docs/read.md documents exactly the keys ``--json --details`` produces (for the question,
    and for a summary whose rows are solved from their counts)."""
    result = cli("read", str(question), "--json", "--details")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["schema"] == "paramcount.read/1"
    assert data["disagreements"] and data["unresolved"] and data["recurrent"]
    summary = json.loads(cli("read", str(ROOT / "examples" / "pastes" / "keras2-gru.txt"),
                             "--json").out)
    # errors[] is checked with a real torch error, in test_read_runtime_errors.py, and
    # models[].candidates[] with a real family repr, in test_read_leftovers.py
    assert produced_keys(data) | produced_keys(summary) == {
        k for k in documented_keys() if not k.startswith(("errors[]", "models[].candidates[]"))}


def test_help_documents_the_command(cli: CLI) -> None:
    """``paramcount read --help`` names its options."""
    result = cli("read", "--help")
    assert result.code == 0
    for option in ("--set", "--json", "--markdown", "--details"):
        assert option in result.out


def test_read_imports_no_framework(tmp_path: Path) -> None:
    """Reading a paste of torch and Keras code loads neither framework, nor rich for JSON."""
    import subprocess

    paste = tmp_path / "paste.txt"
    paste.write_text("import torch\nimport keras\nimport torch.nn as nn\nm = nn.GRU(3, 4)\n")
    probe = (
        "import contextlib, io, sys\nfrom paramcount.cli.main import run\n"
        f"with contextlib.redirect_stdout(io.StringIO()): assert run(['read', {str(paste)!r}, "
        "'--json']) == 0\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    loaded = set(out.stdout.split())
    assert not loaded & {"torch", "keras", "tensorflow", "jax", "flax", "onnx", "rich"}


@settings(max_examples=60, deadline=None)
@given(
    cell=st.sampled_from(["RNN", "LSTM", "GRU"]),
    input_size=st.integers(1, 4096),
    hidden_size=st.integers(2, 4096),
    num_layers=st.integers(1, 6),
    bidirectional=st.booleans(),
    bias=st.booleans(),
    indent=st.booleans(),
)
def test_constructor_text_reads_back_to_its_spec(
    cell: str, input_size: int, hidden_size: int, num_layers: int, bidirectional: bool,
    bias: bool, indent: bool,
) -> None:
    """Any torch RNN/LSTM/GRU written as code (keywords, positional, or inside a module whose
    indentation was lost) reads back to the spec the convention describes."""
    from paramcount.engine import conventions
    from paramcount.engine.spec import LayerSpec

    spec = LayerSpec(cell.lower(), input_size, hidden_size, num_layers=num_layers,  # type: ignore[arg-type]
                     bidirectional=bidirectional, bias=bias)
    call = conventions.describe(spec)
    code = (f"import torch.nn as nn\nclass M(nn.Module):\n{'' if indent else '    '}"
            f"def __init__(self):\n{'' if indent else '        '}self.rnn = {call}\n")
    answer = read(code)
    [(_, layer)] = answer.recurrent
    assert layer.spec == spec
    assert layer.params == conventions.total(spec)


def test_set_takes_counts_as_people_write_them(cli: CLI, question: Path) -> None:
    """--set hidden_size=1.5K is --set hidden_size=1500, as every count option reads it."""
    assert cli("read", str(question), "--set", "hidden_size=1.5K", "--json").out == \
        cli("read", str(question), "--set", "hidden_size=1500", "--json").out


@pytest.mark.parametrize("value", ["9" * 5000, "9" * 4000, "9223372036854775808"])
def test_set_refuses_huge_values_in_one_short_line(cli: CLI, question: Path,
                                                   value: str) -> None:
    """A --set value above 2^63 − 1 is refused in one short line (not quoted in full, not
    silently left unresolved)."""
    result = cli("read", str(question), "--set", f"hidden_size={value}")
    assert result.code == 2 and result.out == ""
    assert result.err.count("\n") == 1 and len(result.err) < 300
    assert "too large" in result.err and "--set" in result.err


def test_a_set_name_the_paste_never_uses_is_noted(cli: CLI, question: Path) -> None:
    """--set of a name the paste does not use is said in the notes, not silently ignored;
    a name it uses is not."""
    data = json.loads(cli("read", str(question), "--set", "hidden_sise=256", "--json").out)
    assert any("hidden_sise" in note for note in data["notes"]), data["notes"]
    used = json.loads(cli("read", str(question), "--set", "hidden_size=256", "--json").out)
    assert not any("hidden_size" in note for note in used["notes"]), used["notes"]
