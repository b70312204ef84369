"""What every library result shares: its JSON document and its display, one place for each."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from os import PathLike
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paramcount.render.document import Document

FileName = str | PathLike[str]
"""A file's name: text or a path."""


class Result:
    """A library call's answer: ``to_dict()`` is its command's ``--json`` document, and it
    shows itself as the command does (plain text, a terminal's styles, HTML, Markdown)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready document the command prints under ``--json``."""
        raise NotImplementedError

    def documents(self) -> list[Document]:
        """What the command shows, one document per answer."""
        raise NotImplementedError

    def to_json(self) -> str:
        """``to_dict()`` as the JSON text the command prints."""
        from paramcount.render.data import dumps

        return dumps(self.to_dict())

    def to_text(self) -> str:
        """The answer as plain text, as the command prints it into a pipe."""
        from paramcount.render.plain import to_text

        return "\n".join(to_text(d) for d in self.documents())

    def to_markdown(self) -> str:
        """The answer as GitHub-flavoured Markdown, as ``--markdown`` prints it."""
        from paramcount.render.markdown import to_markdown

        return "\n".join(to_markdown(d) for d in self.documents())

    def to_html(self) -> str:
        """The answer as HTML tables (no script, no style sheet)."""
        from paramcount.render.html import to_html

        return "\n".join(to_html(d) for d in self.documents())

    def show(self) -> None:
        """Print the answer as the command does: styled for a terminal, plain into a pipe."""
        from paramcount.render.plain import to_text
        from paramcount.render.terminal import to_terminal

        terminal = sys.stdout is not None and sys.stdout.isatty()
        for document in self.documents():
            sys.stdout.write(to_terminal(document) if terminal else to_text(document))
        sys.stdout.flush()

    def __repr__(self) -> str:
        """The plain text (what a Python prompt shows)."""
        return self.to_text().rstrip("\n")

    def _repr_html_(self) -> str:
        """Jupyter's rich display: the tables as HTML."""
        return self.to_html()

    def _repr_markdown_(self) -> str:
        """Where a front end shows Markdown but not HTML."""
        return self.to_markdown()

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        """rich's protocol (``rich.print(result)``): the terminal rendering, styles kept."""
        from rich.text import Text

        from paramcount.render.terminal import to_terminal

        for document in self.documents():
            yield Text.from_ansi(to_terminal(document, width=options.max_width).rstrip("\n"))
