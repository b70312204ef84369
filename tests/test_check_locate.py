"""The locator: every value's span in TOML and JSON text holds exactly that value."""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.checking.locate import Path, Positions, json_spans, path_text, toml_spans

KEYS = st.one_of(st.from_regex(r"[A-Za-z0-9_-]{1,6}", fullmatch=True),
                 st.text(min_size=1, max_size=5))
SCALARS = st.one_of(st.booleans(), st.integers(-10**20, 10**20),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
DOCUMENTS = st.dictionaries(KEYS, st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=8), max_size=4)


def leaves(data: Any, path: Path = ()) -> list[tuple[Path, Any]]:
    """Every scalar of ``data`` with its path."""
    if isinstance(data, dict):
        return [leaf for k, v in data.items() for leaf in leaves(v, (*path, k))]
    if isinstance(data, list):
        return [leaf for i, v in enumerate(data) for leaf in leaves(v, (*path, i))]
    return [(path, data)]


@settings(max_examples=200, deadline=None)
@given(data=DOCUMENTS)
def test_toml_spans_hold_their_values(data: dict[str, Any]) -> None:
    """For TOML written by tomlkit, each scalar's span parses back to that scalar."""
    tomlkit = pytest.importorskip("tomlkit")
    try:
        text = tomlkit.dumps(data)
        parsed = tomllib.loads(text)
    except Exception:  # tomlkit cannot write every document (e.g. arrays of mixed tables)
        return
    spans = toml_spans(text)
    for path, value in leaves(parsed):
        span = spans[path]
        assert tomllib.loads(f"x = {text[span.start:span.end]}")["x"] == value, path_text(path)


@settings(max_examples=200, deadline=None)
@given(data=DOCUMENTS, indent=st.sampled_from([None, 0, 2, "\t"]))
def test_json_spans_hold_their_values(data: dict[str, Any], indent: int | str | None) -> None:
    """For JSON in any layout, each value's span parses back to that value."""
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    spans = json_spans(text)
    for path, value in leaves(json.loads(text)):
        span = spans[path]
        assert json.loads(text[span.start:span.end]) == value, path_text(path)


DOC = """\
# a comment with [brackets] and "quotes"
title = "x = [not, an, array]"   # trailing
"quoted key".inner = 1
multi = \"\"\"
[not.a.table]
\"\"\"
literal = '''
also ] not { special
'''

[tool.paramcount.models."my model"]
layers = [
  # comment inside an array
  { kind = "lstm", hidden = 8 },
  { kind = "linear", out = 2, params = 1_000 },  # trailing
]

[[tool.other]]
n = 1
[[tool.other]]
n = 2
[tool.other.sub]
m = 3
"""

WHERE = [
    (("title",), 2, 9, '"x = [not, an, array]"'),
    (("quoted key", "inner"), 3, 22, "1"),
    (("literal",), 7, 11, "'''\nalso ] not { special\n'''"),
    (("tool", "paramcount", "models", "my model", "layers", 1, "params"), 15, 40, "1_000"),
    (("tool", "paramcount", "models", "my model", "layers", 0, "hidden"), 14, 29, "8"),
    (("tool", "other", 1, "n"), 21, 5, "2"),
    (("tool", "other", 1, "sub", "m"), 23, 5, "3"),
]


@pytest.mark.parametrize(("path", "line", "column", "text"), WHERE,
                         ids=[path_text(w[0]) for w in WHERE])
def test_toml_positions(path: Path, line: int, column: int, text: str) -> None:
    """Comments, strings with brackets, quoted keys and arrays of tables do not confuse it."""
    tomllib.loads(DOC)
    span = toml_spans(DOC)[path]
    assert Positions(DOC).line_col(span.start) == (line, column)
    assert DOC[span.start:span.end] == text
