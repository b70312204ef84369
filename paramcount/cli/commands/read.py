"""``paramcount read FILE|-``: answer a pasted question (code, summaries, reprs, shape dumps)."""

from __future__ import annotations

import click

from paramcount.cli.options import format_options, resolve_format
from paramcount.cli.paste import answer_paste
from paramcount.engine.counts import CountError, parse_int
from paramcount.errors import quote


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
    torchinfo, torchsummary, Lightning and pytorch-model-summary tables, Flax tabulate,
    print(model) reprs (Hugging Face models too) and named_parameters() dumps; exit 2 when
    nothing countable is found.
    """
    fmt = resolve_format(output_format, as_json, as_markdown)
    answer_paste(path, _overrides(settings), fmt, details)
    return 0
