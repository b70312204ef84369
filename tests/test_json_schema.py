"""docs/json.md documents exactly the keys every command's --json prints, no more, no fewer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CLI, have

DOC = Path(__file__).resolve().parent.parent / "docs" / "json.md"
ROW = re.compile(r"^\| `([^`]+)` \| ([^|]*) \|")
TORCH = pytest.mark.skipif(not have("torch"), reason="torch is not installed")
FLAX = pytest.mark.skipif(not have("flax"), reason="flax is not installed")

# Every schema, and commands that between them print every documented key (with --json).
RUNS: dict[str, list[Any]] = {
    "paramcount.count/1": [
        ["lstm", "-i", "3", "-H", "4", "-L", "2", "--bidir"],
        ["gru", "-i", "3", "-H", "4", "-T", "5", "--optimizer", "adam", "--no-bias"],
        ["gru", "-i", "3", "-H", "4", "-L", "2", "--bidir", "-f", "keras",
         "--merge-mode", "sum", "-T", "5"],
        pytest.param(["lstm", "-i", "3", "-H", "4", "--verify"], marks=TORCH),
        pytest.param(["lstm", "-i", "3", "-H", "4", "-f", "keras", "-T", "2", "--verify"],
                     marks=pytest.mark.skipif(not have("keras"), reason="keras is missing")),
    ],
    "paramcount.explain/1": [
        ["explain", "lstm", "-i", "3", "-H", "4", "-L", "2", "--bidir", "-f", "keras"],
        pytest.param(["explain", "gru", "-i", "3", "-H", "4", "--verify"], marks=TORCH),
    ],
    "paramcount.fit/1": [
        ["fit", "gru", "-i", "3", "--max-bytes", "4KB"],
        ["fit", "lstm", "-i", "4", "--max-params", "1"],
        pytest.param(["fit", "lstm", "-i", "3", "--max-params", "1000", "--verify"],
                     marks=TORCH),
    ],
    "paramcount.compute/1": [
        ["compute", "gru", "-i", "3", "-H", "4", "-L", "2", "--bidir", "-f", "keras",
         "--merge-mode", "sum", "-T", "5"],
        pytest.param(["compute", "lstm", "-i", "3", "-H", "4", "--lengths", "3,1",
                      "--verify"], marks=TORCH),
    ],
    "paramcount.memory/1": [
        ["memory", "gru", "-i", "3", "-H", "4", "--no-bias"],
        pytest.param(["memory", "lstm", "-i", "3", "-H", "4", "--verify"], marks=TORCH),
    ],
    "paramcount.compare/1": [
        ["compare", "gru -i 3 -H 4", "lstm -i 3 -H 5 -L 2 --proj 2"],
        pytest.param(["compare", "lstm -i 3 -H 4", "--frameworks", "--verify"], marks=TORCH),
    ],
    "paramcount.convlstm/1": [
        ["convlstm", "--rank", "2", "-C", "3", "-F", "4", "-k", "3", "--bidir", "-L", "2"],
        pytest.param(["convlstm", "--rank", "1", "-C", "2", "-F", "3", "-k", "3",
                      "-f", "flax-linen", "--verify"], marks=FLAX),
    ],
    "paramcount.family/1": [
        ["mamba", "--d-model", "8", "-L", "2", "--vocab", "4", "--no-tie"],
        ["mamba2", "--d-model", "8", "--heads", "2", "--headdim", "8", "--vocab", "4"],
        ["rwkv", "--version", "7", "--n-embd", "64", "--n-layer", "2", "--vocab", "4"],
        ["mamba", "--d-model", "8", "-L", "2", "--vocab", "4", "--explain",
         "--what-if", "state_size=32"],
        ["mamba2", "--d-model", "8", "--heads", "2", "--headdim", "8", "--vocab", "4",
         "--what-if", "num_heads=4"],
        ["jamba", "--hidden-size", "8", "-L", "2", "--heads", "2", "--intermediate-size", "8",
         "--vocab", "4", "--num-experts", "2", "--attn-layer-period", "2",
         "--attn-layer-offset", "1"],
    ],
    "paramcount.family-compare/1": [
        ["compare", "mamba --d-model 8 -L 1 --vocab 4", "mamba --d-model 8 -L 2 --vocab 4",
         "gru -i 8 -H 8"],
    ],
    "paramcount.shapes/1": [
        ["shapes", "lstm", "-i", "3", "-H", "4", "--bidir"],
        pytest.param(["shapes", "gru", "-i", "3", "-H", "4", "-L", "2", "--verify"],
                     marks=TORCH),
    ],
    "paramcount.trace/1": [
        pytest.param(["trace", "lstm", "-i", "3", "-H", "4", "-L", "2", "--bidir",
                      "--show-mistake"], marks=TORCH),
    ],
}


# Runs whose answer is "over budget": exit 1, and the answer is still JSON.
OVER_BUDGET = [["fit", "lstm", "-i", "4", "--max-params", "1"]]


def documented() -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """Each schema's and each shared object's keys, with their documented types."""
    schemas: dict[str, dict[str, str]] = {}
    objects: dict[str, dict[str, str]] = {}
    table: dict[str, str] | None = None
    for line in DOC.read_text().splitlines():
        if heading := re.match(r"^##+ `([^`]+)`$", line):
            name = heading.group(1)
            table = schemas.setdefault(name, {}) if "/" in name else objects.setdefault(name, {})
        elif line.startswith("## "):
            table = None
        elif table is not None and (row := ROW.match(line)):
            table[row.group(1)] = row.group(2).strip()
    return schemas, objects


SCHEMAS, OBJECTS = documented()


def _object(kind: str) -> str | None:
    """The shared object a documented type refers to: "list of `Tensor`" -> Tensor."""
    named = re.search(r"`([A-Za-z]+)`", kind)
    return named.group(1) if named and named.group(1) in OBJECTS else None


def keys(value: Any, table: dict[str, str], seen: dict[str, set[str]], path: str = "") -> set[str]:
    """Every key path in ``value``; values of a shared object's type are collected in ``seen``."""
    found: set[str] = set()
    if isinstance(value, list):
        for item in value:
            found |= keys(item, table, seen, path + "[]")
        return found
    if not isinstance(value, dict):
        return found
    for key, item in value.items():
        here = f"{path}.{key}" if path else key
        found.add(here)
        kind = table.get(here, "")
        if (name := _object(kind)) is not None:
            for element in item if isinstance(item, list) else [item]:
                if element is not None:
                    seen[name] |= keys(element, OBJECTS[name], seen)
        elif not kind.startswith("map"):
            found |= keys(item, table, seen, here)
    return found


def test_every_schema_is_documented_and_run() -> None:
    """The document and this test name the same schemas, and every object is used."""
    assert set(SCHEMAS) == set(RUNS)
    used = {_object(kind) for table in (*SCHEMAS.values(), *OBJECTS.values())
            for kind in table.values()}
    assert set(OBJECTS) <= used


CASES = [
    pytest.param(schema, run.values[0] if hasattr(run, "values") else run,
                 marks=getattr(run, "marks", ()), id=f"{schema}:{k}")
    for schema, runs in RUNS.items() for k, run in enumerate(runs)
]


@pytest.mark.parametrize(("schema", "args"), CASES)
def test_printed_keys_are_documented(cli: CLI, schema: str, args: list[str]) -> None:
    """Every key a command prints is documented for its schema, and its schema is named."""
    result = cli(*args, "--json")
    assert result.code == (1 if args in OVER_BUDGET else 0), result.err
    data = json.loads(result.out)
    assert data["schema"] == schema
    seen: dict[str, set[str]] = {name: set() for name in OBJECTS}
    printed = keys(data, SCHEMAS[schema], seen)
    assert printed <= set(SCHEMAS[schema]), sorted(printed - set(SCHEMAS[schema]))
    for name, object_keys in seen.items():
        assert object_keys <= set(OBJECTS[name]), (name, sorted(object_keys - set(OBJECTS[name])))


def test_documented_keys_are_printed(cli: CLI) -> None:
    """Every documented key is printed by some run: the union of the runs equals the doc."""
    printed: dict[str, set[str]] = {schema: set() for schema in SCHEMAS}
    seen: dict[str, set[str]] = {name: set() for name in OBJECTS}
    for schema, runs in RUNS.items():
        for run in runs:
            args = run.values[0] if hasattr(run, "values") else run
            if any(mark.args[0] for mark in getattr(run, "marks", ()) if mark.name == "skipif"):
                pytest.skip("a framework is missing: some keys appear only with --verify")
            result = cli(*args, "--json")
            assert result.code == (1 if args in OVER_BUDGET else 0), result.err
            printed[schema] |= keys(json.loads(result.out), SCHEMAS[schema], seen)
    for schema, table in SCHEMAS.items():
        assert printed[schema] == set(table), (schema, set(table) ^ printed[schema])
    for name, table in OBJECTS.items():
        assert seen[name] == set(table), (name, set(table) ^ seen[name])
