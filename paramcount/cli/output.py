"""Printing an answer in the format the user chose: styled on a terminal, plain when piped.

click is not loaded here unless it changes what is printed, so that the quick path
(:mod:`paramcount.cli.quick`) prints exactly what the click commands print, without loading click.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the JSON path never needs the document model
    from paramcount.analysis.compute import Compute
    from paramcount.analysis.memory import Memory
    from paramcount.engine.report import Report
    from paramcount.families.explain import KnobChange
    from paramcount.families.report import FamilyReport
    from paramcount.families.state import StateMemory
    from paramcount.render.document import Document
    from paramcount.verify import Outcome
    from paramcount.verify.flops import FlopOutcome

_ANSWER: list[Any] = []
"""Where answers go instead of stdout (``port --model``'s fenced child), innermost last."""


@contextlib.contextmanager
def answering_to(stream: Any) -> Any:
    """Print answers to ``stream`` instead of stdout for the duration (the fenced child of
    ``port --model`` keeps stdout for what the user's code prints)."""
    _ANSWER.append(stream)
    try:
        yield stream
    finally:
        _ANSWER.pop()


def _stdout() -> Any:
    return _ANSWER[-1] if _ANSWER else sys.stdout


Extras = tuple[str, "Memory | None", "Compute | None"]
"""A report's framework name, training memory and forward compute (None when not asked)."""


def on_terminal() -> bool:
    """Whether to draw for a terminal: stdout is one that takes escape codes (not
    ``TERM=dumb``), or the user forces it with ``FORCE_COLOR`` / ``TTY_COMPATIBLE=1``."""
    if os.environ.get("TTY_COMPATIBLE") == "1" or os.environ.get("FORCE_COLOR"):
        return True
    if sys.stdout is None or not sys.stdout.isatty():
        return False
    return os.environ.get("TERM") not in ("dumb", "unknown") and _takes_escape_codes()


def _takes_escape_codes() -> bool:
    """Whether the terminal reads escape codes: always, but on Windows only once the console
    is switched to them (Windows 10 and later); a console that cannot be gets plain text."""
    if sys.platform != "win32":
        return True
    import ctypes

    kernel32 = ctypes.windll.kernel32
    handle = kernel32.GetStdHandle(-11)  # the standard output
    mode = ctypes.c_uint32()
    if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
        return False
    return bool(kernel32.SetConsoleMode(handle, mode.value | 0x0004))  # virtual terminal


def show(document: Document, output_format: str) -> None:
    """Print ``document`` as a table (for a terminal, or plain) or as Markdown."""
    if output_format == "markdown":
        from paramcount.render.markdown import to_markdown

        echo(to_markdown(document))
    elif on_terminal():
        from paramcount.render.terminal import to_terminal

        write(to_terminal(document))
    else:
        from paramcount.render.plain import to_text

        echo(to_text(document))


def show_json(text: str) -> None:
    """Print JSON text as it is."""
    echo(text)


def echo(text: str) -> None:
    """Print ``text`` (no newline added) as ``click.echo`` does: click is loaded only where it
    changes something, escape codes to strip from piped output or a stream that is not UTF-8."""
    stream = _stdout()
    encoding = getattr(stream, "encoding", None)
    if "\x1b" in text or (encoding and encoding.lower().replace("-", "") != "utf8"):
        import click

        click.echo(text, nl=False, file=stream)
    else:
        write(text)


def write(text: str) -> None:
    """Write ``text`` to stdout as it is (escape codes and all) and flush."""
    stream = _stdout()
    if stream is not None:
        stream.write(text)
        stream.flush()


def discard_stdout() -> None:
    """Send what is left for stdout to the null device after a write to it failed (a full
    disk), so that the interpreter's own flush at exit fails no more."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def show_reports(
    reports: Sequence[Report],
    output_format: str,
    extras: Sequence[Extras] | None = None,
    outcomes: Sequence[Outcome] | None = None,
    flops: Sequence[FlopOutcome | None] | None = None,
) -> None:
    """Print the count commands' answer: one report's breakdown, or several side by side,
    with training memory and compute when asked for and verification when run."""
    from paramcount.api.count import Counted

    result = Counted(reports, extras, outcomes, flops)
    if output_format == "json":
        show_json(result.to_json())
        return
    show(result.documents()[0], output_format)


def show_family(report: FamilyReport, output_format: str, explain: bool = False,
                what_if: Sequence[KnobChange] = (), state: StateMemory | None = None) -> None:
    """Print a family model's answer: its tensors, parts and formula (and, to explain it, what
    each option adds; its inference ``state`` at a context length), or its JSON."""
    from paramcount.api.family import FamilyCount

    result = FamilyCount(report, explain, what_if, state)
    if output_format == "json":
        show_json(result.to_json())
        return
    show(result.documents()[0], output_format)
