"""Documents as plain text: aligned columns, no colour, no escape codes (for pipes and files)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from paramcount.render.document import Document, Paragraph, Table

WIDTH = 92
"""Where plain prose wraps."""

Paint = Callable[[str, str], str]
"""``paint(line, style)``: a line in a style such as ``"bold"`` (for a terminal)."""


def unstyled(line: str, style: str) -> str:
    """A line as it is: plain text has no styles."""
    return line


def wrapped(cell: str, width: int) -> list[str]:
    """``cell`` on lines of at most ``width``, broken at spaces only (a word is never cut)."""
    if len(cell) <= width:
        return [cell]
    return textwrap.wrap(cell, width, break_long_words=False, break_on_hyphens=False) or [""]


def table_lines(table: Table, indent: str = "  ", widths: list[int] | None = None,
                paint: Paint = unstyled) -> list[str]:
    """A table as aligned text lines: headers over a rule, rows, a rule and the footer, in
    columns of ``widths`` (each column's widest cell by default; a longer cell wraps at spaces
    onto further lines of its row), headers and footer painted ``"bold"``."""
    if widths is None:
        rows = [table.headers, *table.rows] + ([table.footer] if table.footer else [])
        widths = [max(len(row[i]) for row in rows) for i in range(len(table.headers))]
        widths = _prose_widths(table, widths, WIDTH - len(indent))

    def lines(cells: tuple[str, ...], style: str = "") -> list[str]:
        parts = [wrapped(cell, w) for cell, w in zip(cells, widths, strict=True)]
        return [paint(indent + "  ".join(
            (p[k] if k < len(p) else "").rjust(w) if header in table.numeric
            else (p[k] if k < len(p) else "").ljust(w)
            for p, w, header in zip(parts, widths, table.headers, strict=True)).rstrip(), style)
            for k in range(max(len(p) for p in parts))]

    rule = paint(indent + "  ".join("─" * w for w in widths), "")
    out = [*lines(table.headers, "bold"), rule]
    for row in table.rows:
        out += lines(row)
    if table.footer:
        out += [rule, *lines(table.footer, "bold")]
    return out


PROSE_LEAST = 40
"""The narrowest a column of sentences is wrapped to."""


def _prose_widths(table: Table, widths: list[int], width: int) -> list[int]:
    """``widths`` with the table's columns of sentences narrowed (not below
    :data:`PROSE_LEAST`) so that the table fits ``width`` where it can."""
    over = sum(widths) + 2 * (len(widths) - 1) - width
    prose = [i for i, header in enumerate(table.headers) if header in table.prose]
    for i in sorted(prose, key=lambda i: -widths[i]):
        if over <= 0:
            break
        cut = min(over, max(widths[i] - PROSE_LEAST, 0))
        widths[i] -= cut
        over -= cut
    return widths


def to_text(document: Document) -> str:
    """The whole document as plain text, ending in a newline."""
    out = [document.title, document.summary]
    for section in document.sections:
        out += ["", section.title]
        for block in section.blocks:
            if isinstance(block, Table):
                out += table_lines(block)
            elif isinstance(block, Paragraph):
                for line in block.lines:
                    out += textwrap.wrap(line, WIDTH, initial_indent="  ", subsequent_indent="  ")
            else:
                out += ["  " + line for line in block.lines]
    return "\n".join(out) + "\n"
