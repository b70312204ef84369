"""``paramcount mamba|mamba2|…``: one command per family, its options made from the family's
config record (see :mod:`paramcount.families.registry`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from paramcount.cli.options import output_options, resolve_format
from paramcount.errors import ParamcountError, SpecError
from paramcount.families import command
from paramcount.families import registry as families

if TYPE_CHECKING:
    from paramcount.api.family import FamilyCount


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


class Implementations(click.Command):
    """A family command with several implementations (``paramcount xlstm``): each command line
    is read by the command of the implementation it chooses (``--impl``, else the one
    ``--config``'s file describes, else the one offering every option given, else the first),
    so its help lists that implementation's options."""

    def __init__(self, *args: Any, family: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.family = family

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        """The context of the chosen implementation's command."""
        family = command.chosen(self.name or "", args)
        if family == self.family:
            return super().make_context(info_name, args, parent, **extra)
        return make_command(self.name or "", family).make_context(info_name, args, parent,
                                                                   **extra)


def make_command(name: str, family: str | None = None) -> click.Command:
    """The counting command ``name`` of ``family`` (by default the command's own or, for a
    command with several implementations, the first)."""
    variants = command.VARIANTS.get(name)
    family = family or (next(iter(variants.values())) if variants else name)
    module = families.family(family)
    if variants:
        titles = " or ".join(f"{families.family(f).TITLE} with --impl {impl}"
                             for impl, f in variants.items())
        shown = next(impl for impl, f in variants.items() if f == family)
        text = (f"Parameters of {titles}, tensor by tensor, from options or a config.json (whose "
                f"implementation is recognised). This help lists the options of --impl {shown}; "
                f"'paramcount {name} --impl IMPL --help' those of another.")
    else:
        # the title's own parentheses stay alone: the reference after a dash, as the report's
        # heading writes it
        text = (f"Parameters of {module.TITLE} — {module.REFERENCE}: tensor by tensor, from "
                "options or a config.json.")
        if name in command.HIDDEN:
            text += f" (The same as 'paramcount {' '.join(command.command_words(name))}'.)"

    @click.command(name=name, help=text, hidden=name in command.HIDDEN,
                   cls=Implementations if variants else click.Command,
                   **({"family": family} if variants else {}))
    @click.option("--config", "config_file", metavar="FILE",
                  help="A Hugging Face (or the reference's own) config.json; options given "
                       "beside it override its values.")
    @click.option("--explain", "explain", is_flag=True,
                  help="Also explain the count: what each option adds, the LSTM and GRU of the "
                       "same width" + (", the bidirectional variant" if name == "mamba" else "")
                       + ". ('paramcount explain " + name + " ...' is the same.)")
    @click.option("--what-if", "what_if", multiple=True, metavar="FIELD=VALUE",
                  help="What changing one option does, tensor by tensor (repeatable): "
                       f"--what-if {what_if_example(family)}.")
    @click.option("--context", "context", metavar="N", default=None,
                  help="Also the state one inference keeps at N tokens (what replaces the KV "
                       "cache): the attention layers' keys and values, growing with the "
                       "tokens, and the recurrent, SSM and convolution state, which does not; "
                       "in bytes of --dtype, by kind of layer.")
    @click.option("--batch", "batch", metavar="N", default=None,
                  help="With --context: for N sequences at once. [default: 1]")
    @click.option("--via", "via", type=click.Choice(("transformers",)), default=None,
                  help="With --config of a model type paramcount does not model: count the "
                       "model transformers builds from it, on the meta device (no weights, no "
                       "code from the hub), module by module; no closed form claimed.")
    @output_options
    def counted(config_file: str | None, explain: bool, what_if: tuple[str, ...],
                context: str | None, batch: str | None, via: str | None,
                output_format: str | None, as_json: bool, as_markdown: bool, dtype: str,
                impl: str | None = None, **given: Any) -> int:
        fmt = resolve_format(output_format, as_json, as_markdown)
        if via is not None:
            return built(config_file, fmt, explain or bool(what_if) or context is not None
                         or any(v not in (None, False) for v in given.values()))
        base = bool(given.pop("base", False))
        return answer(family, values_of(family, given), config_file, fmt, dtype, explain,
                      what_if, base, _tokens(context, batch))

    if variants:  # click.option on a command appends: --impl, then the fields in their order
        counted = click.option(
            command.IMPL, "impl", type=click.Choice(list(variants)), default=None,
            help="Which implementation: " + "; ".join(
                f"{impl}, {families.family(f).REFERENCE}" for impl, f in variants.items())
            + f" (default: the one --config describes, else {next(iter(variants))}).",
        )(counted)
    for option in families.options(family):
        counted = _option(option)(counted)
    if families.has_base(family):
        counted = click.option(
            "--base", "base", is_flag=True,
            help="Count the base model class (" + families.base_class_name(family)
                 + "): no head, names without the backbone's prefix.")(counted)
    return counted


def built(config_file: str | None, fmt: str, more: bool) -> int:
    """``--via transformers``: the model ``--config``'s file describes, as transformers builds
    it (``more``: other options were given, which it does not take)."""
    from paramcount.api.built import via_transformers
    from paramcount.cli.output import show, show_json

    if config_file is None:
        raise click.UsageError("--via transformers counts a --config file: give --config FILE")
    if more:
        raise click.UsageError("--via transformers counts the file as it is: give --config "
                               "and an output format only")
    result = via_transformers(config_file)
    if fmt == "json":
        show_json(result.to_json())
    else:
        show(result.documents()[0], fmt)
    return 0


def _tokens(context: str | None, batch: str | None) -> tuple[int, int] | None:
    """``--context`` and ``--batch`` read as whole numbers (``32k`` too), or None without
    ``--context``; a bad value is a usage error naming the option."""
    from paramcount.engine.counts import CountError, parse_int

    if context is None:
        if batch is not None:
            raise click.UsageError("--batch counts sequences for --context: give --context N")
        return None
    read = []
    for option, text in (("--context", context), ("--batch", batch or "1")):
        try:
            value = parse_int(text)
        except CountError as error:
            raise click.BadParameter(str(error), param_hint=f"'{option}'") from None
        if value < 1:
            raise click.BadParameter(f"{text!r} must be at least 1", param_hint=f"'{option}'")
        read.append(value)
    return read[0], read[1]


def what_if_example(family: str) -> str:
    """A ``--what-if`` setting that ``family``'s command takes: ``state_size=64`` where the
    family has a state size, else its first whole-number option doubled."""
    found = families.options(family)
    if any(option.field == "state_size" for option in found):
        return "state_size=64"
    for option in found:
        if option.kind == "int" and isinstance(option.default, int) and option.default > 0:
            return f"{option.field}={2 * option.default}"
    return "FIELD=VALUE"


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


def parse_family(args: list[str], where: str) -> tuple[str, Any]:
    """A family model from ``["mamba", "--d-model", "768", ...]`` (compare's quoted
    arguments), read by the family's own command: the family and its config; bad input names
    ``where``."""
    name = args[0]
    family = command.chosen(name, args[1:])
    counted = make_command(name, family)
    try:
        with counted.make_context(name, args[1:]) as ctx:
            given = dict(ctx.params)
    except click.ClickException as error:
        raise click.UsageError(f"{where}: {error.format_message()}") from None
    given.pop("impl", None)
    if given.pop("via", None) is not None:
        raise click.UsageError(f"{where}: --via is not compared (compare counts what "
                               "paramcount models)")
    if given.pop("context", None) is not None or given.pop("batch", None) is not None:
        raise click.UsageError(f"{where}: --context is not compared (compare counts "
                               "parameters)")
    if given.pop("base", False):
        raise click.UsageError(f"{where}: --base is not compared (compare counts causal LMs)")
    if given.pop("explain") or given.pop("what_if") or given.pop("output_format") or given.pop(
            "as_json") or given.pop("as_markdown") or given.pop("dtype") != "fp32":
        raise click.UsageError(f"{where}: give the model's options only (compare chooses the "
                               "output)")
    config_file = given.pop("config_file")
    try:
        command.check_config(family, config_file)
        return family, families.build(family, values_of(family, given), config_file)
    except SpecError as error:
        raise click.UsageError(f"{where}: {error.render(families.label_for(family))}") from None


def answer(name: str, values: dict[str, object], config_file: str | None, fmt: str,
           dtype: str, explain: bool = False, what_if: tuple[str, ...] = (),
           base: bool = False, tokens: tuple[int, int] | None = None) -> int:
    """Count family ``name``'s model (its base model class with ``base``, or where the
    ``config.json`` names one) and print it, with ``tokens`` (context, batch) its inference
    state; a bad value is one error line (exit 2)."""
    from paramcount.cli.output import show_family

    result = family_result(name, values, config_file, dtype, explain, what_if, base, tokens)
    show_family(result.report, fmt, result.explain, result.what_if, result.state)
    return 0


def family_result(name: str, values: dict[str, object], config_file: str | None, dtype: str,
                  explain: bool = False, what_if: tuple[str, ...] = (), base: bool = False,
                  tokens: tuple[int, int] | None = None) -> FamilyCount:
    """Family ``name``'s model counted from the command's parsed values (and ``--what-if``
    settings) as the library's result, with ``tokens`` (context, batch) its inference state;
    a bad value is a :class:`ParamcountError`."""
    from paramcount.api.family import FamilyCount
    from paramcount.engine.spec import DType
    from paramcount.families.explain import knob_change
    from paramcount.families.report import build_family_report

    command.check_config(name, config_file)
    try:
        reading = families.build_reading(name, values, config_file)
    except SpecError as error:
        raise ParamcountError(error.render(families.label_for(name))) from None
    config = reading.config
    changes = [knob_change(name, config, *_setting(name, text)) for text in what_if]
    report = build_family_report(name, config, DType(dtype), reading.notes, base or reading.base)
    memory = None
    if tokens is not None:
        from paramcount.families.state import at_context

        try:
            memory = at_context(name, config, *tokens, dtype=DType(dtype).value)
        except SpecError as error:
            raise ParamcountError(error.render(families.label_for(name))) from None
    return FamilyCount(report, explain, changes, memory)


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
