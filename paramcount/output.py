"""Printing a Document in the format the user chose: rich on a terminal, plain when piped."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:  # the JSON path never needs the document model
    from paramcount.render.document import Document


def use_rich() -> bool:
    """Whether stdout is a terminal (or the user forces one with FORCE_COLOR / TTY_COMPATIBLE)."""
    forced = os.environ.get("TTY_COMPATIBLE") == "1" or bool(os.environ.get("FORCE_COLOR"))
    return forced or sys.stdout.isatty()


def show(document: Document, output_format: str) -> None:
    """Print ``document`` as a table (rich or plain) or as Markdown."""
    if output_format == "markdown":
        from paramcount.render.markdown import to_markdown

        click.echo(to_markdown(document), nl=False)
    elif use_rich():
        from paramcount.render.terminal import console, to_renderable

        terminal = console()
        terminal.print(to_renderable(document, terminal.width))
    else:
        from paramcount.render.plain import to_text

        click.echo(to_text(document), nl=False)


def show_json(text: str) -> None:
    """Print JSON text as it is."""
    click.echo(text, nl=False)
