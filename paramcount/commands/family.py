"""``paramcount mamba|mamba2|…``: one command per family, its options made from the family's
config record (see :mod:`paramcount.families`)."""

from __future__ import annotations

from typing import Any

import click

from paramcount import families
from paramcount.errors import ParamcountError, SpecError
from paramcount.options import output_options, resolve_format


def _option(option: families.Option) -> Any:
    """The click option for one config field."""
    default = option.default
    shown = "" if default is None else f" [default: {default}]"
    if option.kind == "bool":
        return click.option(f"{option.label}/{option.off}", *(
            f"{name}/--no-{name.removeprefix('--')}" for name in option.names[1:]),
            option.field, default=None, help=f"{option.field}{shown}.")
    return click.option(*option.names, option.field, default=None, metavar=_metavar(option),
                        help=f"{option.field}{shown}.")


def _metavar(option: families.Option) -> str:
    return "N|auto" if option.kind == "int | str" else "N" if option.kind == "int" else "TEXT"


def make_command(name: str) -> click.Command:
    """The counting command of family ``name``."""
    module = families.family(name)

    @click.command(name=name, help=f"Parameters of {module.TITLE} ({module.REFERENCE}), tensor "
                   "by tensor, from options or a config.json.")
    @click.option("--config", "config_file", metavar="FILE",
                  help="A Hugging Face (or the reference's own) config.json; options given "
                       "beside it override its values.")
    @output_options
    def command(config_file: str | None, output_format: str | None, as_json: bool,
                as_markdown: bool, dtype: str, **given: Any) -> int:
        fmt = resolve_format(output_format, as_json, as_markdown)
        values = {}
        for option in families.options(name):
            text = given.get(option.field)
            if text is not None:
                values[option.field] = text if option.kind == "bool" else families.value_of(
                    option, text)
        return answer(name, values, config_file, fmt, dtype)

    for option in reversed(families.options(name)):
        command = _option(option)(command)
    return command


def answer(name: str, values: dict[str, object], config_file: str | None, fmt: str,
           dtype: str) -> int:
    """Count family ``name``'s model and print it; a bad value is one error line (exit 2)."""
    from paramcount.family_report import build_family_report
    from paramcount.output import show_family
    from paramcount.spec import DType

    try:
        config = families.build(name, values, config_file)
    except SpecError as error:
        raise ParamcountError(error.render(families.label_for(name))) from None
    show_family(build_family_report(name, config, DType(dtype)), fmt)
    return 0


def __getattr__(name: str) -> click.Command:
    """``paramcount.commands.family.mamba`` and so on: each family's command, made on demand."""
    if name in families.FAMILIES:
        return make_command(name)
    raise AttributeError(name)
