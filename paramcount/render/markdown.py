"""Documents as GitHub-flavoured Markdown, ready to paste into a forum answer.

Every text a document holds is text: ``<``, ``>`` and ``&`` become entities (a layer named
``<script>`` or ``<img onerror=…>`` reaches no renderer that passes HTML through), and the
characters that would start emphasis, code, a link or an escape are backslash-escaped; a code
block's fence is longer than any run of backticks inside it.
"""

from __future__ import annotations

import re

from paramcount.render.document import Document, Paragraph, Table

_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_SPECIAL = re.compile(r"[&<>\\`*\[\]|~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
"""What Markdown or HTML would read as markup: an underscore only where it may open or close
emphasis (``weight_ih_l0`` stays as it is written)."""


def escape(text: str) -> str:
    """``text`` as Markdown that renders as exactly ``text``."""
    return _SPECIAL.sub(lambda m: _ENTITIES.get(m.group(), "\\" + m.group()), text)


def _fence(lines: tuple[str, ...]) -> str:
    """A backtick fence longer than any run of backticks in ``lines``."""
    longest = max((len(run) for line in lines for run in re.findall("`+", line)), default=0)
    return "`" * max(3, longest + 1)


def table_lines(table: Table) -> list[str]:
    """A table as Markdown lines."""
    align = ["---:" if h in table.numeric else ":---" for h in table.headers]
    body = [tuple(escape(c) for c in row) for row in table.rows]
    if table.footer:
        body.append(tuple(f"**{escape(c)}**" if c else c for c in table.footer))
    return [
        "| " + " | ".join(escape(h) for h in table.headers) + " |",
        "| " + " | ".join(align) + " |",
        *("| " + " | ".join(row) + " |" for row in body),
    ]


def _paragraph(lines: tuple[str, ...]) -> str:
    """Prose lines as one paragraph; a leading ``- `` stays a list item."""
    text = " ".join(lines)
    if text.startswith("- "):
        return "- " + escape(text[2:])
    return escape(text)


def to_markdown(document: Document) -> str:
    """The whole document as Markdown, ending in a newline."""
    out = [f"**{escape(document.title)}**", "", escape(document.summary)]
    for section in document.sections:
        out += ["", f"#### {escape(section.title)}", ""]
        for block in section.blocks:
            if isinstance(block, Table):
                out += [*table_lines(block), ""]
            elif isinstance(block, Paragraph):
                out += [_paragraph(block.lines), ""]
            else:
                fence = _fence(block.lines)
                out += [fence, *block.lines, fence, ""]
        while out and out[-1] == "":
            out.pop()
    return "\n".join(out) + "\n"
