"""The body of ``paramcount read``: a paste's text taken from a file or stdin, answered, printed.

Both the click command (:mod:`paramcount.cli.commands.read`) and the quick path
(:mod:`paramcount.cli.quick`) call :func:`answer_paste` once they have read the command line, so
that the two print the same bytes; click is not loaded here.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from paramcount.read.pipeline import Unreadable, layer_reports, read

MAX_BYTES = 16_000_000
"""Bytes read from the file before it is refused (the reader itself takes 10 MB of text)."""


def paste_text(path: str) -> tuple[str, str]:
    """The paste's text (``-``: stdin) and how to name it; undecodable bytes are replaced,
    never run."""
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


def answer_paste(path: str, overrides: Mapping[str, int], output_format: str,
                 details: bool) -> None:
    """Read the paste at ``path``, answer it with the ``--set`` sizes ``overrides``, and print
    the answer in ``output_format`` (with every tensor where ``details``)."""
    text, source = paste_text(path)
    answer = read(text, overrides, source)
    reports = layer_reports(answer) if details else None
    if output_format == "json":
        from paramcount.cli.output import show_json
        from paramcount.render.data import dumps
        from paramcount.render.read import read_data

        show_json(dumps(read_data(answer, reports)))
    else:
        from paramcount.cli.output import show
        from paramcount.render.read import read_document

        show(read_document(answer, reports), output_format)
