"""A command line from the page (its count form, its command box, a ``#cmd=`` share link) read
by the count and family commands' own click objects and answered as the library result that
command shows, for :mod:`paramcount.web`. Only the commands that count from their options are
answered: nothing here reads a file (``--config``), builds a framework's layer (``--verify``)
or runs anything a user wrote."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from paramcount.errors import quote
from paramcount.families import command as family_commands
from paramcount.families.registry import FAMILIES
from paramcount.web.answers import Refused, answer_json

if TYPE_CHECKING:
    import click

    from paramcount.api.result import Result

CELLS = ("rnn", "lstm", "gru")
"""The count commands the page answers, beside the families' commands."""

_OUTPUT = ("output_format", "as_json", "as_markdown")
"""The output options: the page shows every form itself."""


def page_answer(kind: str, text: str) -> str:
    """The page's answer to a question (``read``: a paste; ``cmd``: a command line) as JSON
    text: the served page's server and the static page's Python both call this."""
    return answer_json(kind, text, result_of)


def result_of(line: str) -> Result:
    """The result of ``line`` (the words after ``paramcount``) as its command shows it; any
    other command, an option that reads a file or runs a framework, or a bad value is
    :class:`~paramcount.web.answers.Refused`, in the command line's words."""
    try:
        args = shlex.split(line)
    except ValueError as error:
        raise Refused(f"the command line cannot be read: {error}") from None
    if args[:1] == ["paramcount"]:
        args = args[1:]
    if args[:1] == ["explain"] and args[1:2] and args[1] in FAMILIES:
        args = [args[1], *args[2:], "--explain"]  # as the command line reads it
    answered = (*CELLS, *FAMILIES)
    if not args or args[0] not in answered:
        what = f"not {quote(args[0])}" if args else "give one"
        raise Refused(f"the page answers the counting commands ({', '.join(answered)}); {what}")
    if any(arg in ("-h", "--help") for arg in args[1:]):
        raise Refused(f"'paramcount {args[0]} --help' lists the options; the page answers counts")
    import click

    from paramcount.cli.commands import cli

    name = args[0]
    found = cli.get_command(click.Context(cli), name)
    assert found is not None  # every name answered is one of the group's commands
    try:
        with found.make_context(name, args[1:]) as ctx:  # click's own parsing, nothing invoked
            params = dict(ctx.params)
    except click.ClickException as error:
        raise Refused(_clicked(error)) from None
    for key in _OUTPUT:
        params.pop(key, None)
    if name in CELLS:
        return _counted(name, params)
    return _family(name, args[1:], params)


def _clicked(error: click.ClickException) -> str:
    """A click error's one line, naming the option as the command line does."""
    import click

    if isinstance(error, click.BadParameter):
        from paramcount.cli.options import name_option_once

        return name_option_once(error).format_message().replace("\n\t", " ")
    if isinstance(error, click.NoSuchOption):
        from paramcount.cli.options import not_offered

        command = error.ctx.command.name if error.ctx and error.ctx.command.name else ""
        return not_offered(error.option_name, command) or error.format_message()
    return error.format_message().replace("\n\t", " ")


def _counted(name: str, params: dict[str, Any]) -> Result:
    """``rnn``, ``lstm`` or ``gru`` counted from its parsed options (never ``--verify``)."""
    from paramcount.api.count import Counted
    from paramcount.cli.commands.count import reports_of
    from paramcount.engine.spec import Cell

    if params.pop("verify"):
        raise Refused("--verify builds the real framework's layer; the page counts without it "
                      "(run 'paramcount ... --verify' on your machine)")
    reports, extras = reports_of(Cell(name), params.pop("dtype"), params)
    return Counted(reports, extras)


def _family(name: str, args: list[str], params: dict[str, Any]) -> Result:
    """A family's model counted from its parsed options (never ``--config``, a file)."""
    from paramcount.cli.commands.family import family_result, values_of

    if params.pop("config_file"):
        raise Refused("--config reads a file; the page counts from the options alone")
    family = family_commands.chosen(name, args)
    params.pop("impl", None)
    base = bool(params.pop("base", False))
    explain, what_if, dtype = params.pop("explain"), params.pop("what_if"), params.pop("dtype")
    return family_result(family, values_of(family, params), None, dtype, explain, what_if, base)
