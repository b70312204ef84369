"""``paramcount read FILE|-``: answer a pasted question (code, summaries, reprs, shape dumps)."""

from __future__ import annotations

import sys

import click

from paramcount.counts import CountError, parse_int
from paramcount.errors import quote
from paramcount.options import format_options, resolve_format
from paramcount.output import show, show_json
from paramcount.read import Unreadable, layer_reports, read

MAX_BYTES = 16_000_000
"""Bytes read from the file before it is refused (the reader itself takes 10 MB of text)."""


def _overrides(values: tuple[str, ...]) -> dict[str, int]:
    """``--set name=N`` pairs as a dict; a malformed one is a usage error naming it."""
    found: dict[str, int] = {}
    for item in values:
        name, sep, value = item.partition("=")
        name = name.strip()
        too_large = None
        try:
            number: int | None = parse_int(value)
        except CountError as error:
            number, too_large = None, error if "too large" in str(error) else None
        if not sep or not name or not name.replace(".", "").replace("_", "").isalnum():
            number = None
        elif too_large is not None:
            raise click.BadParameter(f"{quote(name)}: {too_large}", param_hint="'--set'")
        if number is None:
            raise click.BadParameter(f"{quote(item)} is not name=N (a whole number), e.g. "
                                     "hidden_size=256", param_hint="'--set'")
        found[name] = number
    return found


def _text(path: str) -> tuple[str, str]:
    """The paste's text and how to name it; undecodable bytes are replaced, never run."""
    if path == "-":
        data = sys.stdin.buffer.read(MAX_BYTES + 1) if hasattr(sys.stdin, "buffer") else (
            sys.stdin.read(MAX_BYTES + 1).encode("utf-8", "replace"))
        source = "<stdin>"
    else:
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        except OSError as error:
            raise Unreadable(f"cannot read {path}: {error.strerror or error}") from None
        source = path
    if len(data) > MAX_BYTES:
        raise Unreadable(f"{source} is larger than {MAX_BYTES:,} bytes; paramcount read reads "
                         "pasted questions, not whole projects")
    return data.decode("utf-8", errors="replace"), source


@click.command(name="read")
@click.argument("path", metavar="FILE|-")
@click.option("--set", "settings", multiple=True, metavar="NAME=N",
              help="Give a size the paste leaves open, e.g. --set hidden_size=256 "
                   "(repeatable).")
@format_options()
@click.option("--details", is_flag=True, help="Also every tensor and formula.")
def read_command(path: str, settings: tuple[str, ...], output_format: str | None,
                 as_json: bool, as_markdown: bool, details: bool) -> int:
    """Answer a pasted question: count the layers in its code and printouts, nothing run.

    Reads Python (torch modules, Keras models, indentation lost or not), Keras 2/3 summaries,
    torchinfo and torchsummary tables, print(model) reprs and named_parameters() dumps; exit 2
    when nothing countable is found.
    """
    fmt = resolve_format(output_format, as_json, as_markdown)
    overrides = _overrides(settings)
    text, source = _text(path)
    answer = read(text, overrides, source)
    reports = layer_reports(answer) if details else None
    if fmt == "json":
        from paramcount.render.data import dumps
        from paramcount.render.read import read_data

        show_json(dumps(read_data(answer, reports)))
    else:
        from paramcount.render.read import read_document

        show(read_document(answer, reports), fmt)
    return 0
