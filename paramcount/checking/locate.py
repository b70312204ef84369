"""Where each key and value of a TOML or JSON document sits in its text.

``tomllib`` and ``json`` give positions only for syntax errors, so a config error found later
("hidden must be positive") needs its own map from a path such as
``("models", "tagger", "layers", 1, "hidden")`` to a line and column. The scanners here run
only on text the standard parser has already accepted, and only when a location is asked for.
"""

from __future__ import annotations

import bisect
import json
import re
import tomllib
from json.decoder import scanstring  # type: ignore[attr-defined]  # (not in typeshed)

from paramcount.record import record

Path = tuple[str | int, ...]
"""Keys and array indices from the document root to a value."""


@record
class Span:
    """Where one entry sits: its key (or table header) and its value, as text offsets."""

    key: int
    """Offset of the key, the table header or the array element."""
    start: int
    """Offset of the value's first character."""
    end: int
    """Offset just past the value's last character."""
    header: bool = False
    """Whether the entry is a TOML table declared by a ``[header]`` line."""


def path_text(path: Path, brief: bool = False) -> str:
    """A path as a user reads it: ``models.tagger.layers[1].hidden``; ``brief`` (for error
    lines) shortens a name of more than 40 characters to its start and its length."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            long = brief and len(part) > 40
            start = part[:24] if long else part
            name = start if re.fullmatch(r"[A-Za-z0-9_-]+", start) else json.dumps(start)
            if long:
                name += f"…({len(part):,} characters)"
            out += f".{name}" if out else name
    return out


class Positions:
    """Offsets of a text turned into 1-based line and column numbers."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = [0] + [m.end() for m in re.finditer(r"\r\n|\n|\r", text)]

    def line_col(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of ``offset``."""
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1


# ---------------------------------------------------------------------------------------- TOML

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_WS = re.compile(r"[ \t]*")
_SCALAR_END = re.compile(r"[,\]}\n#]|\r\n")


class _TomlScanner:
    """A tolerant scanner over valid TOML that records a Span per key path."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.spans: dict[Path, Span] = {}
        self.aot: dict[Path, int] = {}
        self.implicit: set[Path] = set()
        self.duplicate: tuple[Path, int] | None = None
        """The first key or table declared twice, and where the second declaration starts."""

    def claim(self, path: Path, offset: int) -> None:
        """Note a declaration of ``path``, remembering the first one made twice."""
        if path in self.spans and path not in self.implicit and self.duplicate is None:
            self.duplicate = (path, offset)
        self.implicit.discard(path)

    def skip_ws(self) -> None:
        self.i = _WS.match(self.s, self.i).end()  # type: ignore[union-attr]

    def skip_blank(self) -> None:
        """Whitespace, newlines and comments."""
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in " \t\r\n":
                self.i += 1
            elif c == "#":
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end + 1
            else:
                return

    def key(self) -> tuple[list[str], int]:
        """A dotted key and the offset of its first part."""
        self.skip_ws()
        start = self.i
        parts = []
        while True:
            self.skip_ws()
            c = self.s[self.i] if self.i < len(self.s) else ""
            if c in "\"'":
                raw_start = self.i
                self.string()
                raw = self.s[raw_start : self.i]
                parts.append(tomllib.loads(f"k = {raw}")["k"])
            else:
                m = _BARE.match(self.s, self.i)
                if not m:
                    break
                parts.append(m.group())
                self.i = m.end()
            self.skip_ws()
            if self.i < len(self.s) and self.s[self.i] == ".":
                self.i += 1
                continue
            break
        return parts, start

    def string(self) -> None:
        s, i = self.s, self.i
        quote = s[i]
        if s.startswith(quote * 3, i):
            end = s.find(quote * 3, i + 3)
            while quote == '"' and end > 0 and _escaped(s, end):
                end = s.find(quote * 3, end + 1)
            end = len(s) if end < 0 else end + 3
            while end < len(s) and s[end] == quote:  # up to two quotes may close the body
                end += 1
            self.i = end
            return
        j = i + 1
        while j < len(s) and s[j] != quote:
            j += 2 if quote == '"' and s[j] == "\\" else 1
        self.i = j + 1

    def resolve(self, parts: list[str], base: Path = ()) -> Path:
        """A header or key path with the current index of every array of tables inserted."""
        path: Path = base
        for part in parts:
            path = (*path, part)
            if path in self.aot:
                path = (*path, self.aot[path])
        return path

    def value(self, path: Path, key_offset: int) -> None:
        self.skip_ws()
        start = self.i
        c = self.s[self.i] if self.i < len(self.s) else ""
        if c in "\"'":
            self.string()
        elif c == "[":
            self.i += 1
            index = 0
            while True:
                self.skip_blank()
                if self.i >= len(self.s) or self.s[self.i] == "]":
                    self.i += 1
                    break
                if self.s[self.i] == ",":
                    self.i += 1
                    continue
                before = self.i
                self.value((*path, index), self.i)
                index += 1
                if self.i == before:  # never loop on text we do not understand
                    self.i += 1
        elif c == "{":
            self.i += 1
            while True:
                self.skip_ws()
                if self.i >= len(self.s) or self.s[self.i] == "}":
                    self.i += 1
                    break
                if self.s[self.i] == ",":
                    self.i += 1
                    continue
                parts, key_start = self.key()
                self.skip_ws()
                if self.i < len(self.s) and self.s[self.i] == "=":
                    self.i += 1
                else:  # not TOML we understand: stop rather than loop
                    self.i = len(self.s)
                    break
                self.claim((*path, *parts), key_start)
                self.value((*path, *parts), key_start)
        else:
            m = _SCALAR_END.search(self.s, self.i)
            end = m.start() if m else len(self.s)
            self.i = end
            while end > start and self.s[end - 1] in " \t\r":
                end -= 1
            self.spans.setdefault(path, Span(key_offset, start, end))
            return
        self.spans.setdefault(path, Span(key_offset, start, self.i))

    def scan(self) -> dict[Path, Span]:
        s = self.s
        table: Path = ()
        while True:
            self.skip_blank()
            if self.i >= len(s):
                break
            at = self.i
            if s.startswith("[[", at):
                self.i += 2
                parts, _ = self.key()
                prefix = self.resolve(parts[:-1])
                path = (*prefix, parts[-1])
                index = self.aot.get(path, -1) + 1
                self.aot[path] = index
                table = (*path, index)
                self.spans.setdefault(path, Span(at, at, at, header=True))
                self.spans[table] = Span(at, at, at, header=True)
                end = s.find("]]", self.i)
                self.i = len(s) if end < 0 else end + 2
            elif s[at] == "[":
                self.i += 1
                parts, _ = self.key()
                table = self.resolve(parts)
                self.claim(table, at)
                self.spans[table] = Span(at, at, at, header=True)
                end = s.find("]", self.i)
                self.i = len(s) if end < 0 else end + 1
            else:
                parts, key_start = self.key()
                self.skip_ws()
                if not parts or self.i >= len(s) or s[self.i] != "=":
                    end = s.find("\n", self.i)  # unreachable on valid TOML; keep moving
                    self.i = len(s) if end < 0 else end + 1
                    continue
                self.i += 1
                for n in range(1, len(parts)):  # dotted keys define their parent tables
                    parent = (*table, *parts[:n])
                    if parent not in self.spans:
                        self.spans[parent] = Span(key_start, key_start, key_start)
                        self.implicit.add(parent)
                self.claim((*table, *parts), key_start)
                self.value((*table, *parts), key_start)
        return self.spans


def _escaped(s: str, at: int) -> bool:
    """Whether the character at ``at`` is preceded by an odd number of backslashes."""
    n = 0
    while at - n - 1 >= 0 and s[at - n - 1] == "\\":
        n += 1
    return n % 2 == 1


def toml_spans(text: str) -> dict[Path, Span]:
    """The Span of every key, table and array element in valid TOML ``text``."""
    return _TomlScanner(text).scan()


def toml_duplicate(text: str) -> tuple[Path, int] | None:
    """The first key or table that ``text`` declares twice, and the second one's offset."""
    scanner = _TomlScanner(text)
    scanner.scan()
    return scanner.duplicate


# ---------------------------------------------------------------------------------------- JSON

_JSON_SCALAR = re.compile(r"[^,\]}\s]+")
_JSON_WS = re.compile(r"\s*")


class DuplicateKey(ValueError):
    """A JSON object that names the same key twice."""

    def __init__(self, path: Path, offset: int) -> None:
        self.path = path
        self.offset = offset
        super().__init__(f"duplicate key {path_text(path, brief=True)}")


def json_spans(text: str) -> dict[Path, Span]:
    """The Span of every value in valid JSON ``text``; raises DuplicateKey on repeated keys.

    Strings are skipped by ``json``'s own scanner, in time and memory linear in their length
    (a regular expression keeps a state per character or per escape: 1.2 GB for a 10 MB one).
    """
    spans: dict[Path, Span] = {}

    def ws(i: int) -> int:
        return _JSON_WS.match(text, i).end()  # type: ignore[union-attr]

    def value(i: int, path: Path, key: int) -> int:
        i = ws(i)
        start = i
        c = text[i] if i < len(text) else ""
        if c == "{":
            i = ws(i + 1)
            seen: set[str] = set()
            while i < len(text) and text[i] != "}":
                if text[i] == ",":
                    i = ws(i + 1)
                    continue
                if text[i] != '"':
                    break
                name, after = scanstring(text, i + 1)
                if name in seen:
                    raise DuplicateKey((*path, name), i)
                seen.add(name)
                key_at = i
                i = ws(after)
                i = ws(i + 1)  # the colon
                i = ws(value(i, (*path, name), key_at))
            i += 1
        elif c == "[":
            i = ws(i + 1)
            index = 0
            while i < len(text) and text[i] != "]":
                if text[i] == ",":
                    i = ws(i + 1)
                    continue
                i = ws(value(i, (*path, index), i))
                index += 1
            i += 1
        elif c == '"':
            i = scanstring(text, i + 1)[1]
        else:
            m = _JSON_SCALAR.match(text, i)
            i = m.end() if m else i + 1
        spans[path] = Span(key, start, i)
        return i

    if not text.strip():
        return {(): Span(0, 0, 0)}
    value(0, (), 0)
    return spans
