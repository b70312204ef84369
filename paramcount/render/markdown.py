"""Documents as GitHub-flavoured Markdown, ready to paste into a forum answer."""

from __future__ import annotations

from paramcount.render.document import Document, Paragraph, Table


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|")


def table_lines(table: Table) -> list[str]:
    """A table as Markdown lines."""
    align = ["---:" if h in table.numeric else ":---" for h in table.headers]
    rows = [*table.rows] + ([tuple(f"**{c}**" if c else c for c in table.footer)]
                            if table.footer else [])
    return [
        "| " + " | ".join(_escape(h) for h in table.headers) + " |",
        "| " + " | ".join(align) + " |",
        *("| " + " | ".join(_escape(c) for c in row) + " |" for row in rows),
    ]


def to_markdown(document: Document) -> str:
    """The whole document as Markdown, ending in a newline."""
    out = [f"**{document.title}**", "", document.summary]
    for section in document.sections:
        out += ["", f"#### {section.title}", ""]
        for block in section.blocks:
            if isinstance(block, Table):
                out += [*table_lines(block), ""]
            elif isinstance(block, Paragraph):
                out += [" ".join(block.lines), ""]
            else:
                out += ["```", *block.lines, "```", ""]
        while out and out[-1] == "":
            out.pop()
    return "\n".join(out) + "\n"
