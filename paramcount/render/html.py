"""Documents as HTML for Jupyter: plain tables and headings, no script and no stylesheet, so
that a notebook reads the same in a static render (GitHub, nbviewer) as in a live kernel."""

from __future__ import annotations

from html import escape

from paramcount.render.document import Document, Paragraph, Table

_RIGHT = ' style="text-align: right"'


def table_html(table: Table) -> str:
    """A table as an HTML ``<table>``: numeric columns right-aligned, the footer in bold."""
    def cells(row: tuple[str, ...], tag: str, bold: bool = False) -> str:
        out = []
        for header, cell in zip(table.headers, row, strict=True):
            align = _RIGHT if header in table.numeric else ""
            text = escape(cell)
            out.append(f"<{tag}{align}>{f'<b>{text}</b>' if bold and text else text}</{tag}>")
        return "<tr>" + "".join(out) + "</tr>"

    parts = ["<table>", "<thead>" + cells(table.headers, "th") + "</thead>", "<tbody>",
             *(cells(row, "td") for row in table.rows), "</tbody>"]
    if table.footer:
        parts.append("<tfoot>" + cells(table.footer, "td", bold=True) + "</tfoot>")
    parts.append("</table>")
    return "\n".join(parts)


def to_html(document: Document) -> str:
    """The whole document as an HTML fragment (a ``<div>``), ending in a newline."""
    out = ['<div class="paramcount">', f"<p><b>{escape(document.title)}</b></p>",
           f"<p>{escape(document.summary)}</p>"]
    for section in document.sections:
        out.append(f"<h4>{escape(section.title)}</h4>")
        for block in section.blocks:
            if isinstance(block, Table):
                out.append(table_html(block))
            elif isinstance(block, Paragraph):
                out.append("<p>" + "<br>".join(escape(line) for line in block.lines) + "</p>")
            else:
                out.append("<pre>" + "\n".join(escape(line) for line in block.lines) + "</pre>")
    out.append("</div>")
    return "\n".join(out) + "\n"
