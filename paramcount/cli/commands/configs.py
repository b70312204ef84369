"""What the forum-answer commands share: the cell argument and configs given as strings.

``compare`` takes each configuration as one string, ``"lstm -i 28 -H 256 --framework keras"``,
parsed with exactly the options of the counting commands.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any, TypeVar

import click

from paramcount.cli.options import layer_options, layer_specs, name_option_once
from paramcount.engine.flags import cli_label
from paramcount.engine.spec import Cell, LayerSpec
from paramcount.errors import SpecError, quote

F = TypeVar("F", bound=Callable[..., Any])

CELLS = tuple(c.value for c in Cell)


def cell_argument(function: F) -> F:
    """The leading ``rnn|lstm|gru`` argument."""
    return click.argument("cell", type=click.Choice(CELLS, case_sensitive=False))(function)


@click.command(name="config", add_help_option=False)
@cell_argument
@layer_options
def _config(**options: Any) -> None:
    """The options of one configuration string (never run; parsed with make_context)."""


def specs_of(cell: str, options: dict[str, Any]) -> list[LayerSpec]:
    """The specs of parsed cell options (several with ``--framework all``)."""
    return layer_specs(Cell(cell.lower()), options)


def parse_config(text: str, position: int) -> list[LayerSpec]:
    """Parse ``"lstm -i 28 -H 256 --framework keras"``; bad input names the argument."""
    where = f"argument {position} ({quote(text)})"
    try:
        args = shlex.split(text)
    except ValueError as error:
        raise click.UsageError(f"{where}: {error}") from None
    if not args:
        raise click.UsageError(f"{where}: empty; give a cell and its options, e.g. "
                               "\"lstm -i 28 -H 128\"")
    try:
        with _config.make_context("config", args) as ctx:
            options = dict(ctx.params)
    except click.BadParameter as error:
        raise click.UsageError(f"{where}: {name_option_once(error).format_message()}") from None
    except click.ClickException as error:
        raise click.UsageError(f"{where}: {error.format_message()}") from None
    cell = options.pop("cell")
    try:
        return specs_of(cell, options)
    except SpecError as error:
        raise click.UsageError(f"{where}: {error.render(cli_label)}") from None
