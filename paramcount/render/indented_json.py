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

import math
from collections.abc import Callable, Mapping, Sequence

try:  # json's own string encoder, without loading the json package (a millisecond of start-up)
    from _json import encode_basestring
except ImportError:  # an interpreter without the C accelerator
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
        import json

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
    head = "[" + inner
    for value in values:
        kind = value.__class__
        if kind is str:  # the usual values, as _value writes them, in one piece
            emit(head + encode_basestring(value))  # type: ignore[arg-type]
        elif value is None:
            emit(head + "null")
        elif kind is dict:
            emit(head)
            _object(value, inner, emit)  # type: ignore[arg-type]
        else:
            emit(head)
            _value(value, inner, emit)
        head = between
    emit(newline + "]")


_KEYS: dict[str, str] = {}
"""Keys written so far, each encoded with the ``": "`` after it: an answer's thousand layers
repeat a few dozen keys (at most ``_MOST_KEYS`` are kept)."""

_MOST_KEYS = 4096


def _object(members: Mapping[object, object], newline: str, emit: Emit) -> None:
    """Write a dict: ``{}``, or one ``"key": value`` a line, a level deeper."""
    if not members:
        emit("{}")
        return
    inner = newline + INDENT
    between = "," + inner
    head = "{" + inner
    for key, value in members.items():
        name = _KEYS.get(key)  # type: ignore[call-overload]
        if name is None:
            if not isinstance(key, str):
                raise _Unusual
            name = encode_basestring(key) + ": "
            if len(_KEYS) < _MOST_KEYS:
                _KEYS[key] = name
        kind = value.__class__
        if kind is str:  # the usual values, as _value writes them, in one piece
            emit(head + name + encode_basestring(value))  # type: ignore[arg-type]
        elif value is None:
            emit(head + name + "null")
        elif value is True or value is False:
            emit(head + name + ("true" if value else "false"))
        elif kind is int:
            emit(head + name + int.__repr__(value))
        elif kind is dict:
            emit(head + name)
            _object(value, inner, emit)  # type: ignore[arg-type]
        elif kind is list:
            emit(head + name)
            _array(value, inner, emit)  # type: ignore[arg-type]
        else:
            emit(head + name)
            _value(value, inner, emit)
        head = between
    emit(newline + "}")
