"""Documents as rich renderables on a terminal: the only module that imports rich.

rich honours NO_COLOR and the terminal's width by itself.
"""

from __future__ import annotations

from rich import box
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Table as RichTable
from rich.text import Text

from paramcount.render.document import Document, Math, Paragraph, Table


def console(stderr: bool = False) -> Console:
    """The console every paramcount command prints through."""
    # markup=False: tensor names and formulas contain [brackets] that are not rich markup.
    return Console(stderr=stderr, highlight=False, markup=False, emoji=False)


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


def _table(table: Table, width: int | None = None) -> RichTable:
    widths: list[int | None] = [None] * len(table.headers)
    if width is not None:
        table = fitted(table, width)
        if _width(_least_widths(table)) <= width:
            widths = list(_widths(table, width))
    out = RichTable(box=box.SIMPLE_HEAD, show_footer=table.footer is not None, pad_edge=False,
                    show_edge=False)
    for i, header in enumerate(table.headers):
        out.add_column(
            header,
            justify="right" if header in table.numeric else "left",
            footer=table.footer[i] if table.footer else "",
            footer_style="bold",
            # Nothing is cut: what does not fit wraps onto the next line.
            overflow="fold",
            width=widths[i],
        )
    for row in table.rows:
        out.add_row(*row)
    return out


def _placed(table: Table, width: int | None) -> RenderableType:
    """``table`` indented, or unindented when only that fits, or stacked when nothing fits."""
    if width is None or _fits(table, width - _INDENT):
        return Padding(_table(table, None if width is None else width - _INDENT),
                       (0, 0, 0, _INDENT))
    if _fits(table, width):
        return _table(table, width)
    return _stacked(table, width)


def _stacked(table: Table, width: int) -> RenderableType:
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

    rule = " " * 2 * _INDENT + "  ".join("─" * w for w in widths)
    lines = [Text(" " * _INDENT + table.headers[wide], style="bold"),
             Text(line(rest.headers), style="bold"), Text(rule)]
    for row in table.rows:
        indent = max(0, min(_INDENT, width - len(row[wide])))  # an 80-character name at 0
        lines += [Text(" " * indent + row[wide]), Text(line(tuple(row[i] for i in keep)))]
    if table.footer:
        lines += [Text(rule), Text(" " * _INDENT + table.footer[wide], style="bold"),
                  Text(line(tuple(table.footer[i] for i in keep)), style="bold")]
    return Group(*lines)


def to_renderable(document: Document, width: int | None = None) -> RenderableType:
    """The whole document as one rich renderable; tables fit ``width`` columns if given."""
    parts: list[RenderableType] = [
        Text(document.title, style="bold"),
        Text(document.summary, style="bold cyan"),
    ]
    for section in document.sections:
        parts.append(Text("\n" + section.title, style="bold underline"))
        for block in section.blocks:
            if isinstance(block, Table):
                parts.append(_placed(block, width))
            elif isinstance(block, Math):
                parts.append(Padding(Text("\n".join(block.lines), style="green"), (0, 0, 0, 2)))
            elif isinstance(block, Paragraph):
                parts.append(Padding(Text("\n".join(block.lines)), (0, 0, 0, 2)))
    return Group(*parts)
