"""Mutated config files: the checker passes, fails cleanly or reports a located error."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import CLI

ROOT = Path(__file__).resolve().parent.parent
SEEDS = {path.name: path.read_text() for path in sorted((ROOT / "examples").iterdir())
         if path.suffix in (".toml", ".json")}
LOCATED = re.compile(r"^Error: .+?:\d+:\d+: \S.*$")

TOKENS = ['"', "'", "[", "]", "[[", "]]", "{", "}", "=", ",", ".", "#", "\n", " ", "0", "-1",
          "1.5", "true", '"x"', "kind", "hidden", "layers", "models", "total", "input", "_",
          "[models.x]", '{ kind = "lstm" }', "\\", '"""', "1e999", "inf", "nan", "\ufeff"]

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str]:
    """A seed file with a few random cuts, insertions, duplications and swaps."""
    name = draw(st.sampled_from(sorted(SEEDS)))
    text = SEEDS[name]
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["cut", "insert", "text", "dup-line", "swap-lines"]))
        if op == "cut":
            text = text[:at] + text[at + draw(st.integers(1, 20)):]
        elif op == "insert":
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif op == "text":
            text = text[:at] + draw(st.text(max_size=5)) + text[at:]
        else:
            lines = text.splitlines(keepends=True)
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            if op == "dup-line":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "".join(lines)
    return name, text


def _values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**20), st.floats(
        allow_nan=False, allow_infinity=False), st.text(max_size=8),
        st.sampled_from(["lstm", "gru", "keras", "torch", "max", "last", "fp16", "concat"]))
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
        max_leaves=6)


@st.composite
def restructured(draw: st.DrawFn) -> str:
    """A seed's data with one value replaced (or a key removed or added), as JSON."""
    name = draw(st.sampled_from(sorted(SEEDS)))
    text = SEEDS[name]
    data = json.loads(text) if name.endswith(".json") else tomllib.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        node: Any = data
        while isinstance(node, (dict, list)) and node and draw(st.booleans()):
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            child = node[draw(st.sampled_from(keys))]
            if not isinstance(child, (dict, list)):
                break
            node = child
        action = draw(st.sampled_from(["set", "delete", "add"]))
        if isinstance(node, dict) and node:
            key = draw(st.sampled_from(list(node)))
            if action == "delete":
                del node[key]
            elif action == "add":
                node[draw(st.sampled_from(["kind", "hidden", "units", "out", "from", "name",
                                           "params", "total", "input", "mode", "layers",
                                           "vocab", "dim", "proj", "zzz"]))] = draw(_values())
            else:
                node[key] = draw(_values())
        elif isinstance(node, list) and node:
            i = draw(st.integers(0, len(node) - 1))
            if action == "delete":
                del node[i]
            else:
                node[i] = draw(_values())
    return json.dumps(data, indent=1)


def assert_clean(cli: CLI, path: Path, *args: str) -> int:
    """Run check and assert the outcome is a clean pass, a clean failure or located errors."""
    before = path.read_bytes()
    result = cli("check", str(path), *args)
    assert result.code in (0, 1, 2), (result.code, result.err)
    if result.code == 2:
        lines = result.err.splitlines()  # every problem, each on its own located line
        assert lines and all(LOCATED.match(line) for line in lines), result.err
        assert len(set(lines)) == len(lines), result.err
    else:
        assert result.err == ""
    if "--update" not in args:
        assert path.read_bytes() == before
    return result.code


@SETTINGS
@given(case=mutated())
def test_mutated_text(cli: CLI, tmp_path: Path, case: tuple[str, str]) -> None:
    """Random edits of the example files never crash the checker and never touch the file."""
    name, text = case
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    assert_clean(cli, path)


@SETTINGS
@given(text=restructured())
def test_mutated_structure(cli: CLI, tmp_path: Path, text: str) -> None:
    """Wrong types, missing and extra keys anywhere give a located error or a clean result."""
    path = tmp_path / "models.json"
    path.write_text(text)
    code = assert_clean(cli, path)
    if code in (0, 1):  # what loads can be updated, and then its exact expectations hold
        assert_clean(cli, path, "--update")
        result = cli("check", str(path), "--json")
        problems = [p for m in json.loads(result.out)["models"] for p in m["problems"]]
        assert all(p["key"] in ("max_params", "max_bytes") for p in problems), problems


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seeds_are_valid(cli: CLI, tmp_path: Path, name: str) -> None:
    """The fuzzers start from files that pass."""
    path = tmp_path / name
    path.write_text(SEEDS[name])
    assert assert_clean(cli, path) == 0
