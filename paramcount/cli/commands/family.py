"""``paramcount mamba|mamba2|…``: one command per family, its options made from the family's
config record (see :mod:`paramcount.families.registry`)."""

from __future__ import annotations

from typing import Any

import click

from paramcount.cli.options import output_options, resolve_format
from paramcount.errors import ParamcountError, SpecError
from paramcount.families import registry as families


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
    @click.option("--explain", "explain", is_flag=True,
                  help="Also explain the count: what each option adds, the LSTM and GRU of the "
                       "same width" + (", the bidirectional variant" if name == "mamba" else "")
                       + ". ('paramcount explain " + name + " ...' is the same.)")
    @click.option("--what-if", "what_if", multiple=True, metavar="FIELD=VALUE",
                  help="What changing one option does, tensor by tensor (repeatable): "
                       "--what-if state_size=64.")
    @output_options
    def command(config_file: str | None, explain: bool, what_if: tuple[str, ...],
                output_format: str | None, as_json: bool, as_markdown: bool, dtype: str,
                **given: Any) -> int:
        fmt = resolve_format(output_format, as_json, as_markdown)
        base = bool(given.pop("base", False))
        return answer(name, values_of(name, given), config_file, fmt, dtype, explain, what_if,
                      base)

    for option in reversed(families.options(name)):
        command = _option(option)(command)
    if families.has_base(name):
        command = click.option(
            "--base", "base", is_flag=True,
            help="Count the base model class (" + families.base_class_name(name)
                 + "): no head, names without the backbone's prefix.")(command)
    return command


def values_of(name: str, given: dict[str, Any]) -> dict[str, object]:
    """The family options click read (text, or a bool for a switch), converted; those not
    given left out."""
    values = {}
    for option in families.options(name):
        text = given.get(option.field)
        if text is not None:
            values[option.field] = text if option.kind == "bool" else families.value_of(
                option, text)
    return values


def parse_family(args: list[str], where: str) -> Any:
    """A family model from ``["mamba", "--d-model", "768", ...]`` (compare's quoted
    arguments), read by the family's own command; bad input names ``where``."""
    name = args[0]
    command = make_command(name)
    try:
        with command.make_context(name, args[1:]) as ctx:
            given = dict(ctx.params)
    except click.ClickException as error:
        raise click.UsageError(f"{where}: {error.format_message()}") from None
    if given.pop("base", False):
        raise click.UsageError(f"{where}: --base is not compared (compare counts causal LMs)")
    if given.pop("explain") or given.pop("what_if") or given.pop("output_format") or given.pop(
            "as_json") or given.pop("as_markdown") or given.pop("dtype") != "fp32":
        raise click.UsageError(f"{where}: give the model's options only (compare chooses the "
                               "output)")
    config_file = given.pop("config_file")
    try:
        return families.build(name, values_of(name, given), config_file)
    except SpecError as error:
        raise click.UsageError(f"{where}: {error.render(families.label_for(name))}") from None


def answer(name: str, values: dict[str, object], config_file: str | None, fmt: str,
           dtype: str, explain: bool = False, what_if: tuple[str, ...] = (),
           base: bool = False) -> int:
    """Count family ``name``'s model (its base model class with ``base``, or where the
    ``config.json`` names one) and print it; a bad value is one error line (exit 2)."""
    from paramcount.cli.output import show_family
    from paramcount.engine.spec import DType
    from paramcount.families.explain import knob_change
    from paramcount.families.report import build_family_report

    try:
        reading = families.build_reading(name, values, config_file)
    except SpecError as error:
        raise ParamcountError(error.render(families.label_for(name))) from None
    config = reading.config
    changes = [knob_change(name, config, *_setting(name, text)) for text in what_if]
    report = build_family_report(name, config, DType(dtype), reading.notes, base or reading.base)
    show_family(report, fmt, explain, changes)
    return 0


def _setting(name: str, text: str) -> tuple[str, object]:
    """``state_size=64`` (or ``--d-state=64``) read as the field and its value."""
    key, equals, value = text.partition("=")
    spelled = {n: o for o in families.options(name) for n in (o.field, *o.names)}
    option = spelled.get(key.strip()) or spelled.get("--" + key.strip().replace("_", "-"))
    if not equals or option is None:
        fields = ", ".join(o.field for o in families.options(name))
        raise click.BadParameter(f"{text!r} is not FIELD=VALUE with a field of {name} "
                                 f"({fields})", param_hint="'--what-if'")
    if option.kind == "bool":
        if value.lower() not in ("true", "false"):
            raise click.BadParameter(f"{text!r}: {option.field} is true or false",
                                     param_hint="'--what-if'")
        return option.field, value.lower() == "true"
    try:
        return option.field, families.value_of(option, value)
    except SpecError as error:
        raise ParamcountError(error.render(families.label_for(name))) from None


def __getattr__(name: str) -> click.Command:
    """``paramcount.cli.commands.family.mamba`` and so on: each family's command, made on demand."""
    if name in families.FAMILIES:
        return make_command(name)
    raise AttributeError(name)
