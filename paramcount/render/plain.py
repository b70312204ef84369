"""Documents as plain text: aligned columns, no colour, no escape codes (for pipes and files)."""

from __future__ import annotations

import textwrap

from paramcount.render.document import Document, Paragraph, Table

WIDTH = 92
"""Where plain prose wraps."""


def table_lines(table: Table, indent: str = "  ") -> list[str]:
    """A table as aligned text lines."""
    rows = [table.headers, *table.rows] + ([table.footer] if table.footer else [])
    widths = [max(len(row[i]) for row in rows) for i in range(len(table.headers))]

    def line(row: tuple[str, ...]) -> str:
        cells = [
            cell.rjust(w) if header in table.numeric else cell.ljust(w)
            for cell, w, header in zip(row, widths, table.headers, strict=True)
        ]
        return (indent + "  ".join(cells)).rstrip()

    rule = indent + "  ".join("─" * w for w in widths)
    out = [line(table.headers), rule, *(line(r) for r in table.rows)]
    if table.footer:
        out += [rule, line(table.footer)]
    return out


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
