"""Tables on an 80-column terminal: nothing wider, no tensor name or count cut."""

from __future__ import annotations

import json
import re

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
    """rich drawing for an 80-column terminal, without colour."""
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
    assert "\x1b[1m" in result.out  # rich drew it
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
