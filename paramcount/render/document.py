"""A neutral model of what a command shows: headings, paragraphs, tables and formulas."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Table:
    """Rows of cells under headers; columns named in ``numeric`` are right-aligned."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: frozenset[str] = frozenset()
    footer: tuple[str, ...] | None = None
    """A closing row such as the total, set apart from the body."""


@dataclass(frozen=True)
class Paragraph:
    """Prose, one line per string."""

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Math:
    """Formula lines, shown verbatim (a code block in Markdown)."""

    lines: tuple[str, ...]


Block = Table | Paragraph | Math


@dataclass(frozen=True)
class Section:
    """A titled group of blocks."""

    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Document:
    """What one command shows: a headline, a summary line, and sections."""

    title: str
    summary: str
    sections: tuple[Section, ...] = field(default=())


def number(value: int) -> str:
    """An exact integer with thousands separators: 561,152."""
    return f"{value:,}"


def signed(value: int) -> str:
    """An exact integer with its sign: +131,072, −2,048, 0."""
    return f"+{value:,}" if value > 0 else (f"−{-value:,}" if value < 0 else "0")


def shape(dims: tuple[int, ...]) -> str:
    """A shape as the framework prints it: (512, 32), (64,)."""
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def size(byte_count: int) -> str:
    """Bytes in decimal units: 2.24 MB."""
    value = float(byte_count)
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if value < 1000 or unit == "PB":
            return f"{byte_count:,} B" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")
