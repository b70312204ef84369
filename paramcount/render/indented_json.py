"""JSON indented by two spaces, as ``json.dumps(data, indent=2, ensure_ascii=False)`` writes it.

The standard library writes indented JSON in Python, one generator per container, and that is
most of the time a large answer takes to print (``paramcount read`` on a 1,000-row summary:
``benchmarks/read_speed.py``). This writer appends the same text to one list instead, about
twice as fast. It takes what the ``--json`` data is made of (dicts with string keys, lists,
tuples, strings, whole numbers, finite floats, booleans, None); anything else (another key or
value type, NaN, a nesting too deep) is left to ``json.dumps``, so that the text, and every
error, is always the standard library's.

>>> print(indented({"name": "lstm", "sizes": [1, 2.5], "notes": [], "spec": {"bias": None}}))
{
  "name": "lstm",
  "sizes": [
    1,
    2.5
  ],
  "notes": [],
  "spec": {
    "bias": null
  }
}
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from json.encoder import encode_basestring

__all__ = ["indented"]

INDENT = "  "

Emit = Callable[[str], None]
"""Where the text goes, piece by piece (a list's ``append``)."""


class _Unusual(Exception):
    """A value this writer leaves to ``json.dumps``."""


def indented(data: object) -> str:
    """``data`` as JSON indented by two spaces, non-ASCII characters as they are."""
    pieces: list[str] = []
    try:
        _value(data, "\n", pieces.append)
    except (_Unusual, RecursionError):
        return json.dumps(data, indent=2, ensure_ascii=False)
    return "".join(pieces)


def _value(value: object, newline: str, emit: Emit) -> None:
    """Write one value; ``newline`` is a line break with the indentation of its line."""
    if isinstance(value, str):
        emit(encode_basestring(value))
    elif value is None:
        emit("null")
    elif value is True:
        emit("true")
    elif value is False:
        emit("false")
    elif isinstance(value, int):
        emit(int.__repr__(value))
    elif isinstance(value, float) and math.isfinite(value):
        emit(float.__repr__(value))
    elif isinstance(value, (list, tuple)):
        _array(value, newline, emit)
    elif isinstance(value, dict):
        _object(value, newline, emit)
    else:
        raise _Unusual


def _array(values: Sequence[object], newline: str, emit: Emit) -> None:
    """Write a list: ``[]``, or one item a line, a level deeper."""
    if not values:
        emit("[]")
        return
    inner = newline + INDENT
    between = "," + inner
    if all(type(value) is int for value in values):  # a shape: one piece (not bool, not enums)
        emit("[" + inner + between.join(map(int.__repr__, values)) + newline + "]")
        return
    head = "[" + inner
    for value in values:
        if isinstance(value, str):  # the usual values, as _value writes them, in one piece
            emit(head + encode_basestring(value))
        elif value is None:
            emit(head + "null")
        elif type(value) is dict:
            emit(head)
            _object(value, inner, emit)
        else:
            emit(head)
            _value(value, inner, emit)
        head = between
    emit(newline + "]")


_KEYS: dict[str, str] = {}
"""Each key as written, with its ``": "``: the same few keys recur in every item of a list."""


def _object(members: Mapping[object, object], newline: str, emit: Emit) -> None:
    """Write a dict: ``{}``, or one ``"key": value`` a line, a level deeper."""
    if not members:
        emit("{}")
        return
    inner = newline + INDENT
    head = "{" + inner
    between = "," + inner
    keys = _KEYS
    for key, value in members.items():
        written = keys.get(key) if type(key) is str else None
        if written is None:
            if not isinstance(key, str):
                raise _Unusual
            written = encode_basestring(key) + ": "
            if type(key) is str and len(keys) < 4096:
                keys[key] = written
        if isinstance(value, str):  # the usual values, as _value writes them, in one piece
            emit(head + written + encode_basestring(value))
        elif value is None:
            emit(head + written + "null")
        elif value is True or value is False:
            emit(head + written + ("true" if value else "false"))
        elif isinstance(value, int):
            emit(head + written + int.__repr__(value))
        elif type(value) is list:
            emit(head + written)
            _array(value, inner, emit)
        else:
            emit(head + written)
            _value(value, inner, emit)
        head = between
    emit(newline + "}")
