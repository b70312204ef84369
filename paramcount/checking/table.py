"""A config table with typed, located accessors, and the wording of values in messages."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TypeVar, overload

from paramcount.checking.locate import Path
from paramcount.checking.records import MAX_SIZE, Config
from paramcount.checking.source import Source, did_you_mean
from paramcount.errors import ConfigError


class ConfigErrors(ConfigError):
    """Every problem found in one config, each a located ConfigError on its own line."""

    partial: Config | None = None
    """The models that are valid, when the errors are in others (to find their errors too)."""

    def __init__(self, errors: Sequence[ConfigError]) -> None:
        self.errors: list[ConfigError] = []
        for error in errors:
            self.errors += error.errors if isinstance(error, ConfigErrors) else [error]
        super().__init__("\n".join(str(e) for e in self.errors))


def _raise_all(errors: Sequence[ConfigError]) -> None:
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ConfigErrors(errors)


_LOST = 0
"""The width given to layers after a layer in error: checked for all but their width."""


class _UnknownWidth(ConfigError):
    """A layer whose input width is unknown (after an earlier layer's error: not reported)."""


class _Table:
    """A mapping from the config, with typed, located accessors."""

    def __init__(self, source: Source, path: Path, data: object, what: str,
                 allowed: Sequence[str]) -> None:
        if not isinstance(data, dict):
            raise source.error(path, f"expected a table ({what}), got {_describe(data)}")
        self.source, self.path, self.data = source, path, data
        _raise_all([
            source.error((*path, key), f"unknown key in {what}; expected one of: "
                                       f"{', '.join(allowed)}." + did_you_mean(key, allowed),
                         at="key")
            for key in data if key not in allowed
        ])

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def error(self, key: str | None, message: str) -> ConfigError:
        path = self.path if key is None else (*self.path, key)
        return self.source.error(path, message)

    def integer(self, key: str, *, minimum: int = 1, what: str = "a positive whole number",
                default: int | None = None, required: bool = False) -> int | None:
        if key not in self.data:
            if required:
                raise self.source.error(self.path, f"missing key '{key}' ({what})")
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected {what}, got {_describe(value)}")
        if value < minimum:
            raise self.error(key, f"expected {what}, got {_int(value)}")
        if value > MAX_SIZE:
            raise self.error(key, f"expected {what} up to 2^63 − 1 (what the frameworks hold), "
                                  f"got {_int(value)}")
        return value

    def budget(self, key: str, what: str, unit: str) -> int | None:
        """A budget: a whole number, or a string as the command line takes it ("1.5M",
        "1e6" for parameters; "16MB", "4MiB" for bytes)."""
        value = self.data.get(key)
        if not isinstance(value, str):
            return self.integer(key, what=what)
        from paramcount.engine.counts import CountError, parse_bytes, parse_count

        try:
            return parse_bytes(value) if unit == "bytes" else parse_count(value)
        except CountError as error:
            raise self.error(key, f"expected {what}, but {error}") from None

    def required_int(self, key: str, what: str = "a positive whole number") -> int:
        value = self.integer(key, what=what, required=True)
        assert value is not None
        return value

    def boolean(self, key: str, default: bool | None) -> bool | None:
        if key not in self.data:
            return default
        value = self.data[key]
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {_describe(value)}")
        return value

    @overload
    def choice(self, key: str, choices: Sequence[str], default: str) -> str: ...
    @overload
    def choice(self, key: str, choices: Sequence[str], default: None) -> str | None: ...
    def choice(self, key: str, choices: Sequence[str], default: str | None) -> str | None:
        """The value of ``key``, which must be one of ``choices``, or ``default``."""
        if key not in self.data:
            return default
        value = self.data[key]
        if not isinstance(value, str):
            raise self.error(key, f"expected one of {', '.join(choices)}, got {_describe(value)}")
        if value not in choices:
            raise self.error(
                key,
                f"{_q(value)} is not one of: {', '.join(choices)}." + did_you_mean(value, choices),
            )
        return value

    def text(self, key: str) -> str | None:
        if key not in self.data:
            return None
        value = self.data[key]
        if not isinstance(value, str) or not value:
            raise self.error(key, f"expected a non-empty string, got {_describe(value)}")
        return value

    def choices(self, key: str, choices: Sequence[str], default: tuple[str, ...] | None
                ) -> tuple[str, ...] | None:
        """One choice, or a non-empty list of them."""
        if key not in self.data:
            return default
        value = self.data[key]
        items = value if isinstance(value, list) else [value]
        if not items:
            raise self.error(key, f"expected one of {', '.join(choices)}, or a list of them; "
                                  "got an empty list")
        out = []
        for n, item in enumerate(items):
            where = (*self.path, key, n) if isinstance(value, list) else (*self.path, key)
            if not isinstance(item, str) or item not in choices:
                hint = did_you_mean(item, choices) if isinstance(item, str) else ""
                raise self.source.error(
                    where, f"expected one of {', '.join(choices)}, got {_describe(item)}." + hint
                )
            out.append(item)
        return tuple(out)


def _q(text: str) -> str:
    """A user's string quoted for a one-line message: ``'enc'``, escaped if unprintable, and
    at most a few dozen characters of it with its length when long."""
    if len(text) > 40:
        return f"{_q(text[:24])}… ({len(text):,} characters)"
    return f"'{text}'" if text.isprintable() and "'" not in text else json.dumps(text)


def _int(value: int) -> str:
    """An integer for a message: in full up to 20 digits, else its first digits and length."""
    if value.bit_length() <= 64:
        return str(value)
    digits = int(value.bit_length() * 0.30103) + 1  # str() refuses over 4,300 digits
    head = str(value)[:12] if value.bit_length() < 10_000 else ""
    if head:
        return f"{head}... (about {digits:,} digits)"
    return f"a number of about {digits:,} digits"


def _describe(value: object) -> str:
    """A value and its TOML/JSON type, for messages: ``string '12k'``."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {_int(value)}"
    if isinstance(value, float):
        return f"float {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if value is None:
        return "null"
    return type(value).__name__


_T = TypeVar("_T")


def _attempt(errors: list[ConfigError], get: Callable[[], _T], default: _T) -> _T:
    """``get()``, or ``default`` with its error noted (so that checking goes on)."""
    try:
        return get()
    except ConfigError as error:
        errors.append(error)
        return default
