"""A config file's text, parsed with the standard library, and errors located in it."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path as FilePath
from typing import Any

from paramcount.checking.locate import (
    DuplicateKey,
    Path,
    Positions,
    Span,
    json_spans,
    path_text,
    toml_duplicate,
    toml_spans,
)
from paramcount.errors import ConfigError

PYPROJECT_ROOT: Path = ("tool", "paramcount")


class Plain:
    """A plain class's equality and repr, field by field as a dataclass's (:attr:`_FIELDS`,
    its public fields, in order); not hashable, as it may change. ``check``'s mutable values
    are such classes, not dataclasses: ``dataclasses`` costs every ``check`` ~6 ms to
    import."""

    _FIELDS: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS)
        return f"{type(self).__name__}({inner})"


class Source(Plain):
    """One config document: where it came from, its text, its data and (lazily) positions."""

    name: str
    """The file name as the user gave it, used in every message."""
    text: str
    format: str
    """``toml`` or ``json``."""
    data: Any
    root: Path
    """Where the paramcount settings start: ``("tool", "paramcount")`` in pyproject.toml."""
    path: str
    """The file to write back to (``--update``)."""
    bom: bool
    """Whether the file starts with a UTF-8 byte order mark (kept when writing back)."""

    _FIELDS = ("name", "text", "format", "data", "root", "path", "bom")

    def __init__(self, name: str, text: str, format: str, data: Any,
                 root: Path = (), path: str = "", bom: bool = False) -> None:
        self.name, self.text, self.format, self.data = name, text, format, data
        self.root, self.path, self.bom = root, path, bom
        self._spans: dict[Path, Span] | None = None
        self._positions: Positions | None = None

    @property
    def spans(self) -> dict[Path, Span]:
        """Every entry's Span, scanned on first use."""
        if self._spans is None:
            try:
                scan = toml_spans if self.format == "toml" else json_spans
                self._spans = scan(self.text)
            except Exception:  # a locator bug must not hide the user's error: locate at 1:1
                self._spans = {}
        return self._spans

    @property
    def positions(self) -> Positions:
        """Offsets to lines and columns."""
        if self._positions is None:
            self._positions = Positions(self.text)
        return self._positions

    def span(self, path: Path) -> Span | None:
        """The Span of ``path`` (relative to the root), or of its nearest located ancestor."""
        full = (*self.root, *path)
        for n in range(len(full), -1, -1):
            found = self.spans.get(full[:n])
            if found is not None:
                return found
        return None

    def where(self, path: Path, at: str = "value") -> tuple[int, int]:
        """The 1-based line and column of ``path``'s value (``at="value"``) or key."""
        span = self.span(path)
        if span is None:
            return 1, 1
        return self.positions.line_col(span.start if at == "value" else span.key)

    def error(self, path: Path, message: str, at: str = "value") -> ConfigError:
        """A ConfigError reading ``file:line:column: key: message``."""
        line, column = self.where(path, at)
        key = path_text((*self.root, *path), brief=True) or "(top level)"
        return ConfigError(f"{self.name}:{line}:{column}: {key}: {message}")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` Did you mean 'hidden'?`` for the closest choice, or nothing."""
    import difflib  # here, not at the top: only a mistake needs it

    options = list(choices)
    folded = {choice.lower(): choice for choice in reversed(options)}
    close = [folded[word.lower()]] if word.lower() in folded else []
    if not close:
        close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if not close:
        close = [folded[c] for c in difflib.get_close_matches(word.lower(), list(folded), n=1,
                                                              cutoff=0.6)]
    if not close:
        return ""
    shown = f"'{close[0]}'" if close[0].isprintable() else json.dumps(close[0])
    return f" Did you mean {shown}?"


_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_TOML_END = re.compile(r"\s*\(at end of document\)$")


def _toml_error(name: str, text: str, error: tomllib.TOMLDecodeError) -> ConfigError:
    message = str(error)
    positions = Positions(text)
    found = _TOML_AT.search(message)
    if found:
        line, column = int(found.group(1)), int(found.group(2))
        message = message[: found.start()]
    else:
        line, column = positions.line_col(len(text.rstrip()))
        message = _TOML_END.sub("", message)
    if "overwrite" in message or "declare" in message:
        duplicate = _toml_duplicate(text)
        if duplicate is not None:
            path, offset = duplicate
            line, column = positions.line_col(offset)
            return ConfigError(
                f"{name}:{line}:{column}: {path_text(path, brief=True)}: declared twice (a model "
                "name or key must be unique)"
            )
    return ConfigError(f"{name}:{line}:{column}: invalid TOML: {message[:1].lower()}{message[1:]}")


def _toml_duplicate(text: str) -> tuple[Path, int] | None:
    try:
        return toml_duplicate(text)
    except Exception:  # the text is invalid anyway: keep tomllib's own location
        return None


_LONG_NUMBER = re.compile(r"[0-9][0-9_]{4299,}")


def _too_long(name: str, text: str) -> ConfigError:
    """The number Python refuses to read (over 4,300 digits), located, quoted briefly."""
    found = _LONG_NUMBER.search(text)
    offset = found.start() if found else 0
    digits = len(found.group().replace("_", "")) if found else 4300
    line, column = Positions(text).line_col(offset)
    return ConfigError(f"{name}:{line}:{column}: a number of {digits:,} digits: sizes and "
                       "counts must be at most 2^63 − 1 (what the frameworks hold)")


def parse(name: str, text: str, format: str) -> Any:
    """The document's data, or a located ConfigError for invalid syntax."""
    if format == "toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise _toml_error(name, text, error) from None
        except RecursionError:
            raise ConfigError(f"{name}:1:1: invalid TOML: nested too deeply") from None
        except ValueError:  # an integer over Python's 4,300-digit limit for int(str)
            raise _too_long(name, text) from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as error:
        if not isinstance(error, json.JSONDecodeError):
            raise _too_long(name, text) from None
        raise ConfigError(
            f"{name}:{error.lineno}:{error.colno}: invalid JSON: {error.msg[:1].lower()}"
            f"{error.msg[1:]}"
        ) from None
    except RecursionError:
        raise ConfigError(f"{name}:1:1: invalid JSON: nested too deeply") from None
    try:
        json_spans(text)
    except DuplicateKey as duplicate:
        line, column = Positions(text).line_col(duplicate.offset)
        raise ConfigError(
            f"{name}:{line}:{column}: {path_text(duplicate.path, brief=True)}: declared twice "
            "(a model name or key must be unique)"
        ) from None
    return data


def load(path: str | None) -> Source:
    """Read and parse a config file; with no path, ``[tool.paramcount]`` of ./pyproject.toml."""
    if path is None:
        file = FilePath("pyproject.toml")
        if not file.is_file():
            raise ConfigError(
                "no FILE given and no pyproject.toml here: give a .toml or .json config, or "
                "add [tool.paramcount] to pyproject.toml"
            )
        source = _read(file, "pyproject.toml", "toml")
        tool = source.data.get("tool") if isinstance(source.data, dict) else None
        if not isinstance(tool, dict) or not isinstance(tool.get("paramcount"), dict):
            raise ConfigError(
                "pyproject.toml:1:1: no [tool.paramcount] table: add one with your models "
                "(see 'Parameter budgets in CI' in the README)"
            )
        source.data = tool["paramcount"]
        source.root = PYPROJECT_ROOT
        return source
    file = FilePath(path)
    suffix = file.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise ConfigError(f"{path}: expected a .toml or .json config file")
    from paramcount.filekind import kind_of, not_regular

    kind = kind_of(file)
    if kind is not None:
        raise ConfigError(f"{path}: {not_regular(kind)}")
    source = _read(file, path, suffix[1:])
    if file.name == "pyproject.toml":
        tool = source.data.get("tool")
        if not isinstance(tool, dict) or not isinstance(tool.get("paramcount"), dict):
            raise ConfigError(
                f"{path}:1:1: no [tool.paramcount] table: add one with your models "
                "(see 'Parameter budgets in CI' in the README)"
            )
        source.data = tool["paramcount"]
        source.root = PYPROJECT_ROOT
    return source


def _read(file: FilePath, name: str, format: str) -> Source:
    text = _text(file, name)  # the bytes are let go before parsing: memory is the text's
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    return Source(name, text, format, parse(name, text, format), path=str(file), bom=bom)


def _text(file: FilePath, name: str) -> str:
    """The file's text, or a located ConfigError if it cannot be read or is not UTF-8."""
    try:
        raw = file.read_bytes()
    except OSError as error:
        raise ConfigError(f"{name}: cannot read: {error.strerror}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = Positions(raw[: error.start].decode("utf-8", "replace")).line_col(
            len(raw[: error.start].decode("utf-8", "replace"))
        )
        raise ConfigError(f"{name}:{line}:{column}: not UTF-8 text") from None
