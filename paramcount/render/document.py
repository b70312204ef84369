"""A neutral model of what a command shows: headings, paragraphs, tables and formulas."""

from __future__ import annotations

from paramcount.errors import printable
from paramcount.record import record


@record
class Table:
    """Rows of cells under headers; columns named in ``numeric`` are right-aligned."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: frozenset[str] = frozenset()
    footer: tuple[str, ...] | None = None
    """A closing row such as the total, set apart from the body."""
    optional: tuple[str, ...] = ()
    """Columns a narrow terminal may leave out, the first named first (their content is
    repeated elsewhere, e.g. the layer and direction are in every tensor's name)."""
    prose: frozenset[str] = frozenset()
    """Columns of sentences (notes, reasons), which plain text wraps so the table fits its
    prose width rather than running a long one out on one line."""


@record
class Paragraph:
    """Prose, one line per string."""

    lines: tuple[str, ...]


@record
class Math:
    """Formula lines, shown verbatim (a code block in Markdown)."""

    lines: tuple[str, ...]


Block = Table | Paragraph | Math


@record
class Section:
    """A titled group of blocks."""

    title: str
    blocks: tuple[Block, ...]


@record
class Document:
    """What one command shows: a headline, a summary line, and sections."""

    title: str
    summary: str
    sections: tuple[Section, ...] = ()


def aligned(lines: list[tuple[str, str]]) -> Math:
    """Label–text pairs with the texts lined up: ``naive guess  2 × 215,040 ...``."""
    width = max(len(label) for label, _ in lines)
    return Math(tuple(f"{label.ljust(width)}  {text}" for label, text in lines))


def number(value: int) -> str:
    """An exact integer with thousands separators: 561,152."""
    return f"{value:,}"


def signed(value: int) -> str:
    """An exact integer with its sign: +131,072, −2,048, 0."""
    return f"+{value:,}" if value > 0 else (f"−{-value:,}" if value < 0 else "0")


def shape(dims: tuple[int, ...]) -> str:
    """A shape as the framework prints it: (512, 32), (64,)."""
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


_PREFIXES = ("", "k", "M", "G", "T", "P", "E", "Z", "Y", "R", "Q")


def scaled(value: int, unit: str) -> str:
    """A non-negative count in decimal prefixes, by integer arithmetic at any size.

    >>> scaled(999, "B"), scaled(2_244_608, "B"), scaled(6_661_000_000, "FLOPs")
    ('999 B', '2.24 MB', '6.66 GFLOPs')
    >>> scaled(4 * 10**45, "B")
    '4.00e45 B'
    """
    if value < 1000:
        return f"{value:,} {unit}"
    power = min((len(str(value)) - 1) // 3, len(_PREFIXES) - 1)
    hundredths = (value * 100 + 1000**power // 2) // 1000**power
    if hundredths >= 100_000 and power < len(_PREFIXES) - 1:  # 999.995 k rounds to 1.00 M
        power += 1
        hundredths = (value * 100 + 1000**power // 2) // 1000**power
    if hundredths >= 100_000:  # beyond the largest prefix
        digits = str(value)
        return f"{digits[0]}.{digits[1:3]}e{len(digits) - 1} {unit}"
    return f"{hundredths // 100}.{hundredths % 100:02d} {_PREFIXES[power]}{unit}"


def size(byte_count: int) -> str:
    """Bytes in decimal units: 2.24 MB."""
    return scaled(byte_count, "B")


def escaped(document: Document) -> Document:
    """``document`` with every unprintable character of its text (a line break, a
    right-to-left override in a name read from a file) written as its Python escape, so that
    nothing a file holds can break or spoof a line."""
    def block(item: Block) -> Block:
        if isinstance(item, Table):
            return Table(item.headers, tuple(tuple(map(printable, row)) for row in item.rows),
                         item.numeric, item.footer, item.optional)
        return type(item)(tuple(map(printable, item.lines)))

    return Document(printable(document.title), printable(document.summary), tuple(
        Section(section.title, tuple(block(b) for b in section.blocks))
        for section in document.sections))
