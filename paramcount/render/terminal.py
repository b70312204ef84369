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


def _table(table: Table) -> RichTable:
    out = RichTable(box=box.SIMPLE_HEAD, show_footer=table.footer is not None, pad_edge=False)
    for i, header in enumerate(table.headers):
        out.add_column(
            header,
            justify="right" if header in table.numeric else "left",
            footer=table.footer[i] if table.footer else "",
            footer_style="bold",
        )
    for row in table.rows:
        out.add_row(*row)
    return out


def to_renderable(document: Document) -> RenderableType:
    """The whole document as one rich renderable."""
    parts: list[RenderableType] = [
        Text(document.title, style="bold"),
        Text(document.summary, style="bold cyan"),
    ]
    for section in document.sections:
        parts.append(Text("\n" + section.title, style="bold underline"))
        for block in section.blocks:
            if isinstance(block, Table):
                parts.append(Padding(_table(block), (0, 0, 0, 2)))
            elif isinstance(block, Math):
                parts.append(Padding(Text("\n".join(block.lines), style="green"), (0, 0, 0, 2)))
            elif isinstance(block, Paragraph):
                parts.append(Padding(Text("\n".join(block.lines)), (0, 0, 0, 2)))
    return Group(*parts)
