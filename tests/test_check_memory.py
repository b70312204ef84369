"""A config's memory is proportional to its size: a long string costs its length, not 100×."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from paramcount.checking.source import load

SIZE = 2_000_000


def _config(description: str) -> str:
    """A valid one-model JSON config carrying ``description``."""
    return json.dumps({"models": {"tagger": {
        "description": description, "input": 8, "total": 544,
        "layers": [{"kind": "lstm", "hidden": 8}],
    }}})


@pytest.mark.parametrize("description", [
    "x" * SIZE,
    'x\\"y' * (SIZE // 4),
    "é\\u00e9" * (SIZE // 8),
], ids=["plain", "escaped-quotes", "unicode"])
def test_reading_a_long_json_string_peaks_within_five_times_the_file(
    tmp_path: Path, description: str
) -> None:
    """Reading (and locating) a JSON config holding one long string allocates at most 5× the
    file's size at its peak (1.2 GB for a 10 MB string before)."""
    path = tmp_path / "big.json"
    path.write_text(_config(description), encoding="utf-8")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        source = load(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert source.data["models"]["tagger"]["description"] == json.loads(
        _config(description))["models"]["tagger"]["description"]
    assert peak <= 5 * size, f"{peak:,} bytes at the peak for a {size:,}-byte file"


@pytest.mark.parametrize(("text", "where"), [
    ('{"models": {"a\\"b": {}, "a\\u0022b": {}}}', "1:25"),
    ('{"models": {"x": {"description": "}\\\\", "description": "a"}}}', "1:41"),
], ids=["escaped-name", "backslash-before-quote"])
def test_duplicate_keys_are_found_through_escapes(tmp_path: Path, text: str, where: str) -> None:
    """A key written twice, once escaped, is the same key; a string ending in an escaped
    backslash ends at its quote."""
    from paramcount.errors import ConfigError

    path = tmp_path / "dup.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=f"dup.json:{where}: .*declared twice"):
        load(str(path))
