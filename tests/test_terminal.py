"""Tables on an 80-column terminal: nothing wider, no tensor name or count cut."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from paramcount.render.document import Table
from paramcount.render.terminal import fitted
from tests.conftest import CLI, have

ESCAPE = re.compile(r"\x1b\[[0-9;]*m")

CASES = [
    ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"],
    ["lstm", "-i", "32", "-H", "128", "-L", "12", "--bidir", "-f", "keras"],
    ["gru", "-i", "32", "-H", "1280", "-L", "3", "--bidir", "-f", "all"],
    ["gru", "-i", "32", "-H", "128", "-L", "2", "--bidir", "-f", "tf1-cudnn"],
    ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir", "-f", "tf1", "--proj", "64",
     "--peepholes"],
    ["lstm", "-i", "32", "-H", "100000", "-L", "2", "--bidir", "-f", "keras", "-T", "1000",
     "--optimizer", "adam"],
    ["explain", "gru", "-i", "32", "-H", "128", "-L", "2", "--bidir", "-f", "keras"],
    ["convlstm", "--rank", "3", "-C", "3", "-F", "64", "-k", "3x3x3", "-L", "2", "--bidir",
     "-f", "all"],
]


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawing for an 80-column terminal, without colour."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "25")
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.mark.parametrize("args", CASES, ids=[" ".join(a[:2] + a[-2:]) for a in CASES])
def test_tables_fit_80_columns_uncut(
    cli: CLI, monkeypatch: pytest.MonkeyPatch, terminal: None, args: list[str]
) -> None:
    """No line is wider than 80, and every tensor name and count appears whole on one line."""
    data = json.loads(cli(*args, "--json").out)
    monkeypatch.setenv("FORCE_COLOR", "1")
    result = cli(*args)
    assert result.code == 0, result.err
    lines = ESCAPE.sub("", result.out).splitlines()
    assert "\x1b[1m" in result.out  # drawn for a terminal
    assert max(len(line) for line in lines) <= 80
    words = {word for line in lines for word in line.split()}
    for report in data.get("reports", [data]):
        for tensor in report["tensors"]:
            assert tensor["name"] in words, tensor["name"]
            assert f"{tensor['count']:,}" in words
        assert f"{report['total']:,}" in words
    assert "…" not in "".join(lines)


@pytest.mark.skipif(not have("torch"), reason="needs torch")
def test_verified_table_fits(cli: CLI, monkeypatch: pytest.MonkeyPatch, terminal: None) -> None:
    """With a ``verified`` column, Keras' longest names still fit 80 columns whole."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    result = cli("lstm", "-i", "32", "-H", "128", "-L", "12", "--bidir", "--verify")
    lines = ESCAPE.sub("", result.out).splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any("weight_hh_l11_reverse" in line.split() for line in lines)


def test_optional_columns_go_first_named_first() -> None:
    """A table too wide loses its optional columns in order, and only as many as needed."""
    table = Table(("layer", "direction", "tensor", "count"),
                  (("0", "backward", "x" * 50, "1,000"),), frozenset({"count"}),
                  optional=("direction", "layer"))
    assert fitted(table, 80).headers == table.headers
    assert fitted(table, 70).headers == ("layer", "tensor", "count")
    assert fitted(table, 40).headers == ("tensor", "count")


def test_check_details_fit_80_columns(cli: CLI, monkeypatch: pytest.MonkeyPatch,
                                      terminal: None) -> None:
    """check --details on an 80-column terminal wraps the type column at spaces instead of
    drawing a wider table; every module name and count stays whole on its line."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    result = cli("check", "examples/convlstm.toml", "--details")
    assert result.code == 0, result.err
    lines = ESCAPE.sub("", result.out).splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    rows = [line.split() for line in lines]
    for name, count in (("layers[4]", "361"), ("layers[8]", "102,464"),
                        ("layers[12]", "1,000"), ("total", "291,451")):
        assert any(row[:1] == [name] and count in row for row in rows), name
    words = {word for row in rows for word in row}
    assert {"Conv2D(1,", "padding='same',", "activation='sigmoid')"} <= words


def test_check_details_unchanged_when_piped(cli: CLI) -> None:
    """Piped (no terminal), check --details keeps one row per module, however wide."""
    result = cli("check", "examples/convlstm.toml", "--details")
    assert any("Conv2D(1, (3, 3), padding='same', activation='sigmoid')" in line
               and "361" in line for line in result.out.splitlines())


def test_control_characters_in_names_are_shown_not_obeyed() -> None:
    """A name read from a hostile file cannot move the cursor or retitle the terminal: its
    control characters are printed as escapes; only the renderer's own styles remain."""
    from paramcount.render.document import Document, Section
    from paramcount.render.terminal import to_terminal

    hostile = "w\x1b]0;owned\x07\x1b[2J\r"
    table = Table(("tensor", "count"), ((hostile, "1"),), frozenset({"count"}))
    out = to_terminal(Document(hostile, "1 parameter", (Section("Tensors", (table,)),)), 80)
    assert "\x07" not in out and "\r" not in out
    assert not ESCAPE.sub("", out).count("\x1b")
    assert "w\\x1b]0;owned\\x07\\x1b[2J\\x0d" in out


def test_a_terminal_too_narrow_for_columns_gets_records() -> None:
    """When even the stacked layout is too wide, each row becomes a record of
    ``header  value`` lines: nothing cut, nothing wider than the terminal."""
    from paramcount.render.document import Document, Section
    from paramcount.render.terminal import to_terminal

    table = Table(("layer", "input MACs", "recurrent MACs", "MACs"),
                  (("0", "12,800,000", "40,000,000,000", "40,012,800,000"),),
                  frozenset({"input MACs", "recurrent MACs", "MACs"}), ("total", "", "", "4"))
    out = to_terminal(Document("t", "s", (Section("Compute", (table,)),)), 40, colour=False)
    lines = ESCAPE.sub("", out).splitlines()
    assert max(map(len, lines)) <= 40
    assert "  layer 0" in lines and "    recurrent MACs  40,000,000,000" in lines
    assert "    MACs                         4" in lines


def test_no_color_keeps_bold_and_drops_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    """NO_COLOR removes colours only (no-color.org), as rich's console does."""
    from paramcount.render.document import Document
    from paramcount.render.terminal import to_terminal

    document = Document("title", "summary")
    assert to_terminal(document, 80) == "\x1b[1mtitle\x1b[0m\n\x1b[1;36msummary\x1b[0m\n"
    monkeypatch.setenv("NO_COLOR", "1")
    assert to_terminal(document, 80) == "\x1b[1mtitle\x1b[0m\n\x1b[1msummary\x1b[0m\n"


def test_a_terminal_count_loads_neither_click_nor_rich_console() -> None:
    """On a terminal the count commands' quick path styles with rich.style alone: no click,
    no rich console (whose import alone is about 5x a bare start)."""
    import os
    import subprocess
    import sys

    code = ("import sys\nfrom paramcount.cli.main import run\n"
            "assert run(['lstm', '-i', '32', '-H', '128', '-L', '2', '--bidir']) == 0\n"
            "print(sorted(m for m in sys.modules if m in ('click', 'rich.console', 'rich.style')),"
            " file=sys.stderr)")
    env = {**os.environ, "FORCE_COLOR": "1", "COLUMNS": "80"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, check=True)
    assert "\x1b[1m" in result.stdout and "561,152" in result.stdout
    assert result.stderr.strip() == "['rich.style']"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
@pytest.mark.parametrize(("term", "styled"), [("xterm-256color", True), ("dumb", False)])
def test_a_real_terminal_is_styled_unless_dumb(term: str, styled: bool) -> None:
    """On a real (pseudo-)terminal the table is styled, and plain on TERM=dumb, as rich did."""
    import os
    import pty
    import subprocess

    main, child = pty.openpty()
    env = {k: v for k, v in os.environ.items()
           if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")}
    process = subprocess.Popen([sys.executable, "-m", "paramcount", "lstm", "-i", "3", "-H", "4"],
                               stdout=child, stderr=child, env={**env, "TERM": term},
                               cwd=Path(__file__).parent.parent)
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert process.wait(timeout=60) == 0
    out = b"".join(chunks).decode()
    assert "weight_ih_l0" in out
    assert ("\x1b[1m" in out) is styled


@pytest.mark.parametrize("width", [40, 60])
@pytest.mark.parametrize("args", [
    ["shapes", "rnn", "-i", "25", "-H", "50", "-L", "4", "--bidir", "--batch", "3"],
    ["lstm", "-i", "28", "-H", "128", "--bidir", "-f", "all"],
    ["gru", "-i", "13", "-H", "20", "-f", "flax-linen,flax-nnx"],
    ["explain", "gru", "-i", "32", "-H", "128", "-L", "2", "--bidir", "-f", "keras"],
], ids=lambda a: " ".join(a[:2]) if isinstance(a, list) else str(a))
def test_narrow_terminals(cli: CLI, monkeypatch: pytest.MonkeyPatch, width: int,
                          args: list[str]) -> None:
    """On a terminal 40 or 60 columns wide every line that can wrap (it has a space) fits:
    tables become stacked rows or records, whose long values wrap too."""
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setenv("FORCE_COLOR", "1")
    result = cli(*args)
    assert result.code == 0, result.err
    lines = ESCAPE.sub("", result.out).splitlines()
    assert [line for line in lines if len(line) > width and " " in line.strip()] == []
