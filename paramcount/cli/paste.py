"""The body of ``paramcount read``: a paste's text taken from a file or stdin, answered, printed.

Both the click command (:mod:`paramcount.cli.commands.read`) and the quick path
(:mod:`paramcount.cli.quick`) call :func:`answer_paste` once they have read the command line, so
that the two print the same bytes; click is not loaded here.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from paramcount.reading.pipeline import Unreadable

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
    from paramcount.api.paste import read as read_text

    text, source = paste_text(path)
    result = read_text(text, overrides, source=source, details=details)
    if output_format == "json":
        from paramcount.cli.output import show_json

        show_json(result.to_json())
    else:
        from paramcount.cli.output import show

        show(result.documents()[0], output_format)
