"""Documents on a terminal: the plain layout fitted to the terminal's width, in bold and colour.

No tensor name or count is ever cut: a table too wide loses its optional columns, then wraps
its long cells at spaces, then stands each row's name on a line of its own (issue 15). rich's
``Style`` turns the styles into the terminal's escape codes, and ``NO_COLOR`` drops the colours
(bold and underline stay), as rich's console does; the console itself, whose import alone takes
five times as long as starting Python, is not loaded (``benchmarks/cli_speed.py``).
"""

from __future__ import annotations

import os
import shutil

from paramcount.render.document import Document, Math, Paragraph, Table
from paramcount.render.plain import table_lines, wrapped

_INDENT = 2
_SHORT = 12
"""Cells up to this long are never wrapped (shapes such as (128, 512)); longer cells wrap at
spaces only, so a name or a count (no spaces) is never broken."""


def _least_widths(table: Table) -> list[int]:
    """Each column's narrowest width that cuts nothing: whole short cells and whole words."""
    rows = [table.headers, *table.rows, *([table.footer] if table.footer else [])]
    return [
        max((len(cell) if len(cell) <= _SHORT else max(map(len, cell.split()), default=0))
            for cell in (row[i] for row in rows))
        for i in range(len(table.headers))
    ]


def _width(widths: list[int]) -> int:
    # Between two columns: a space of padding on each side and the box's blank divider.
    return sum(widths) + 3 * (len(widths) - 1)


def _without(table: Table, header: str) -> Table:
    """``table`` without the column ``header``."""
    keep = [i for i, h in enumerate(table.headers) if h != header]
    return Table(
        tuple(table.headers[i] for i in keep),
        tuple(tuple(row[i] for i in keep) for row in table.rows),
        table.numeric - {header},
        tuple(table.footer[i] for i in keep) if table.footer else None,
        tuple(h for h in table.optional if h != header),
    )


def fitted(table: Table, width: int) -> Table:
    """``table`` without as many of its optional columns as it takes to fit ``width``."""
    while _width(_least_widths(table)) > width and table.optional:
        table = _without(table, table.optional[0])
    return table


def _widths(table: Table, width: int) -> list[int]:
    """Column widths within ``width``: every column at its least, then the room left given to
    the columns that would wrap, up to their natural widths, the least wrapping first (a short
    cell made whole is worth more than a long paragraph made one line shorter)."""
    least = _least_widths(table)
    rows = [table.headers, *table.rows, *([table.footer] if table.footer else [])]
    natural = [max(len(row[i]) for row in rows) for i in range(len(table.headers))]
    room = width - _width(least)
    out = list(least)
    for i in sorted(range(len(natural)), key=lambda i: natural[i] - least[i]):
        extra = min(room, natural[i] - out[i])
        out[i] += extra
        room -= extra
    return out


def _fits(table: Table, width: int) -> bool:
    """Whether ``table``, without its optional columns if need be, fits ``width`` uncut."""
    return _width(_least_widths(fitted(table, width))) <= width


_VISIBLE = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F) if code != 0x0A}


class Painter:
    """Styles (``"bold cyan"``) as escape codes, without colours under ``NO_COLOR``."""

    def __init__(self, colour: bool) -> None:
        from rich.color import ColorSystem
        from rich.style import Style

        self._system = ColorSystem.STANDARD
        self._styles: dict[str, Style] = {}
        self._parse = Style.parse
        self._colour = colour

    def __call__(self, text: str, style: str = "") -> str:
        """``text`` in ``style``, its control characters shown as escapes (a name read from a
        file cannot move the cursor or retitle the terminal)."""
        text = text.translate(_VISIBLE)
        if not style:
            return text
        if style not in self._styles:
            parsed = self._parse(style)
            self._styles[style] = parsed if self._colour else parsed.without_color
        return self._styles[style].render(text, color_system=self._system)


def _placed(table: Table, width: int, paint: Painter) -> list[str]:
    """``table`` indented, or unindented when only that fits, or stacked when nothing fits."""
    for indent in (_INDENT, 0):
        room = width - indent
        if _fits(table, room):
            table = fitted(table, room)
            return table_lines(table, " " * indent, _widths(table, room), paint)
    return _stacked(table, width, paint)


def _stacked(table: Table, width: int, paint: Painter) -> list[str]:
    """Each row's widest text cell (a long tensor name) on a line of its own, whole, and the
    other cells aligned on the line below it."""
    least = _least_widths(table)
    wide = max((i for i, h in enumerate(table.headers) if h not in table.numeric),
               key=lambda i: least[i], default=0)
    rest = fitted(_without(table, table.headers[wide]), width - 2 * _INDENT)
    keep = [table.headers.index(h) for h in rest.headers]
    rows = [rest.headers, *rest.rows, *([rest.footer] if rest.footer else [])]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rest.headers))]

    def line(cells: tuple[str, ...]) -> str:
        return " " * 2 * _INDENT + "  ".join(
            cell.rjust(w) if header in rest.numeric else cell.ljust(w)
            for cell, w, header in zip(cells, widths, rest.headers, strict=True)).rstrip()

    if _width(widths) > width - 2 * _INDENT:
        return _records(table, wide, width, paint)
    rule = " " * 2 * _INDENT + "  ".join("─" * w for w in widths)
    lines = [paint(" " * _INDENT + table.headers[wide], "bold"),
             paint(line(rest.headers), "bold"), rule]
    for row in table.rows:
        indent = max(0, min(_INDENT, width - len(row[wide])))  # an 80-character name at 0
        lines += [*(paint(" " * indent + part) for part in wrapped(row[wide], width - indent)),
                  paint(line(tuple(row[i] for i in keep)))]
    if table.footer:
        lines += [rule, *(paint(" " * _INDENT + part, "bold")
                          for part in wrapped(table.footer[wide], width - _INDENT)),
                  paint(line(tuple(table.footer[i] for i in keep)), "bold")]
    return lines


def _records(table: Table, wide: int, width: int, paint: Painter) -> list[str]:
    """Each row as a record, for a terminal too narrow for any columns: its ``wide`` cell on a
    line of its own, then one ``header  value`` line per other cell, long values wrapped."""
    others = [i for i in range(len(table.headers)) if i != wide]
    label = max((len(table.headers[i]) for i in others), default=0)
    rows = [*table.rows, *([table.footer] if table.footer else [])]
    value = max((len(row[i]) for row in rows for i in others
                 if table.headers[i] in table.numeric), default=0)
    lines = []
    for row in rows:
        style = "bold" if row is table.footer else ""
        title = row[wide] if row is table.footer else f"{table.headers[wide]} {row[wide]}"
        lines += [paint(" " * _INDENT + part, "bold")
                  for part in wrapped(title, width - _INDENT)]
        for i in (i for i in others if row[i]):
            head = " " * 2 * _INDENT + table.headers[i].ljust(label) + "  "
            text = row[i].rjust(value) if table.headers[i] in table.numeric else row[i]
            first, *more = wrapped(text, max(width - len(head), _SHORT))
            lines += [paint(head + first, style), *(paint(" " * len(head) + part, style)
                                                    for part in more)]
    return lines


def _prose(lines: tuple[str, ...], width: int) -> list[str]:
    """Lines of prose or formulas, indented and wrapped at spaces within ``width``."""
    room = max(width - _INDENT, 20)
    return [" " * _INDENT + part for line in lines for part in wrapped(line, room)]


def terminal_width() -> int:
    """The terminal's width in columns (``COLUMNS`` if set; 80 when it cannot be told)."""
    return shutil.get_terminal_size((80, 25)).columns


def to_terminal(document: Document, width: int | None = None,
                colour: bool | None = None) -> str:
    """The whole document for a terminal ``width`` columns wide (the terminal's own by default),
    ending in a newline; without colours if ``colour`` is false (by default, if ``NO_COLOR``
    is set)."""
    width = terminal_width() if width is None else width
    paint = Painter(not os.environ.get("NO_COLOR") if colour is None else colour)
    out = [*(paint(line, "bold") for line in wrapped(document.title, width)),
           *(paint(line, "bold cyan") for line in wrapped(document.summary, width))]
    for section in document.sections:
        out += ["", *(paint(line, "bold underline") for line in wrapped(section.title, width))]
        for block in section.blocks:
            if isinstance(block, Table):
                out += _placed(block, width, paint)
            elif isinstance(block, Math):
                out += [paint(line, "green") for line in _prose(block.lines, width)]
            elif isinstance(block, Paragraph):
                out += [paint(line) for line in _prose(block.lines, width)]
    return "\n".join(out) + "\n"
