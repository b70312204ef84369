"""A question from the page turned into what the page shows: the library's result in its own
HTML (``_repr_html_``) and Markdown (``_repr_markdown_``), and for a bidirectional stack the
ratio chart; an error is one line, as the command line prints it.

The page asks two kinds of question: ``read`` (a paste, answered by :func:`paramcount.read`)
and ``cmd`` (a command line as typed after ``paramcount``, answered by the function the caller
hands in: the command line's own parser, which lives above this package).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from paramcount.errors import ParamcountError, SpecError, printable

if TYPE_CHECKING:
    from paramcount.api.result import Result

Commands = Callable[[str], "Result"]
"""A command line (after ``paramcount``) → the library result its command shows."""

KINDS = ("read", "cmd")
"""The kinds of question the page asks."""


class Refused(ParamcountError):
    """A question the page does not answer (a command it does not run, a bad option)."""

    exit_code = 2


def answer(kind: str, text: str, commands: Commands) -> dict[str, Any]:
    """The page's answer to one question: ``title``, ``summary``, ``html``, ``markdown`` and
    ``chart`` (SVG, or empty), or ``error`` (one line) and its ``exit_code``."""
    try:
        if kind == "read":
            from paramcount.api.paste import read

            result: Result = read(text, source="the paste")
        elif kind == "cmd":
            result = commands(text)
        else:
            raise Refused(f"{kind!r} is not a question the page asks ({', '.join(KINDS)})")
        document = result.documents()[0]
        return {"kind": kind, "title": document.title, "summary": document.summary,
                "html": result._repr_html_(), "markdown": result._repr_markdown_(),
                "chart": chart_of(result)}
    except SpecError as error:
        from paramcount.engine.flags import cli_label

        return _error(error.render(cli_label), error.exit_code)
    except ParamcountError as error:
        return _error(str(error), error.exit_code)
    except RecursionError:
        return _error("the question nests too deeply to be read", 2)


def answer_json(kind: str, text: str, commands: Commands) -> str:
    """:func:`answer` as JSON text (what the server sends and the static page's Python hands
    to its script)."""
    return json.dumps(answer(kind, text, commands), ensure_ascii=False)


def _error(message: str, code: int) -> dict[str, Any]:
    """An error as the page shows it: one printable line."""
    return {"error": printable(message.strip()), "exit_code": code}


def chart_of(result: Result) -> str:
    """The ratio chart of the result's one bidirectional stack (a count, or a paste holding
    exactly one recurrent layer); empty otherwise."""
    from paramcount.api.count import Counted
    from paramcount.api.paste import Reading
    from paramcount.web.chart import ratio_chart

    if isinstance(result, Counted) and len(result.reports) == 1:
        report = result.reports[0]
        return ratio_chart(report.depth, report.depth_limit)
    if isinstance(result, Reading):
        specs = [layer.spec for layer in result.recurrent if layer.spec is not None]
        if len(specs) == 1 and specs[0].bidirectional:
            from paramcount.engine.report import build_report

            report = build_report(specs[0])
            return ratio_chart(report.depth, report.depth_limit)
    return ""
