"""A ``config.json`` read: one JSON object, or one line saying why not (no pathlib, no
dataclasses: the family count commands read it on their quick path)."""

from __future__ import annotations

import json
import os

from paramcount.errors import ConfigError

MAX_CONFIG = 10_000_000
"""The largest ``config.json`` read (real ones are a few kilobytes)."""


def read_config(path: str | os.PathLike[str]) -> dict[str, object]:
    """A ``config.json`` file's object, or a ConfigError saying why it cannot be read: only a
    regular file, at most :data:`MAX_CONFIG` bytes, every whole number within ±(2^63 − 1)."""
    from paramcount.filekind import NotRegular, read_regular

    try:
        raw = read_regular(path, MAX_CONFIG, "a config")
        data = json.loads(raw.decode("utf-8"), parse_int=_whole)
    except NotRegular as error:
        raise ConfigError(f"{path}: {error.strerror}") from None
    except OverflowError as error:
        raise ConfigError(f"{path}: {error}") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    except (UnicodeDecodeError, RecursionError) as error:
        raise ConfigError(f"{path}: not JSON: {str(error).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: holds no JSON object (a config.json is one object)")
    problem = oversized(data)
    if problem is not None:
        raise ConfigError(f"{path}: {problem}")
    return data


MAX_SIZE = 2**63 - 1
"""The largest size a config may hold: what the frameworks' int64 sizes hold."""


class _Digits:
    """A whole number too long to read (int() refuses over 4,300 digits): its text's length."""

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))
        self.head = text[:13]


def _whole(text: str) -> int | _Digits:
    """A JSON whole number: an int, or a stand-in past 30 digits (never a size)."""
    return int(text) if len(text) <= 30 else _Digits(text)


def oversized(data: object, where: str = "") -> str | None:
    """Where ``data`` (a parsed config: objects, arrays, numbers) holds a whole number past
    ±(2^63 − 1), as a message naming the key; None when none does.

    >>> oversized({"hidden_size": 768, "layers": [1, 10**30]})
    'layers[1]: 1000000000000... (31 digits) is past 2^63 − 1 (what the frameworks hold)'
    """
    stack: list[tuple[str, object]] = [(where, data)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, bool):
            continue
        if isinstance(value, int) and not -MAX_SIZE <= value <= MAX_SIZE:
            value = _Digits(str(value) if value.bit_length() < 14_000 else "9" * 4_301)
        if isinstance(value, _Digits):
            return (f"{key or 'a value'}: {value.head}... ({value.digits:,} digits) is past "
                    "2^63 − 1 (what the frameworks hold)")
        if isinstance(value, dict):
            stack += [(f"{key}.{k}" if key else str(k), v) for k, v in reversed(value.items())]
        elif isinstance(value, list):
            stack += [(f"{key}[{n}]", v) for n, v in reversed(list(enumerate(value)))]
    return None
