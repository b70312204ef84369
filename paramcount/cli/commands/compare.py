"""``paramcount compare``: two or more configurations side by side, the difference explained."""

from __future__ import annotations

import click

from paramcount.analysis.compare import COMPARABLE
from paramcount.cli.commands.configs import parse_config
from paramcount.cli.options import format_options, resolve_format, verify_option
from paramcount.cli.output import show, show_json
from paramcount.engine.flags import cli_label
from paramcount.engine.report import Report, build_report
from paramcount.errors import SpecError
from paramcount.families.registry import FAMILIES


@click.command(name="compare")
@click.argument("configs", nargs=-1, required=True, metavar='"CELL OPTIONS"...')
@click.option("--frameworks", is_flag=True,
              help="Compare one configuration across PyTorch and Keras (and its own "
                   "framework, if it names another).")
@format_options()
@verify_option("Build every configuration's real layer and check every tensor and the total; "
               "exit 1 on a mismatch, 3 if none is installed.")
def compare(configs: tuple[str, ...], frameworks: bool, output_format: str | None,
            as_json: bool, as_markdown: bool, verify: bool) -> int:
    """Compare configurations, each one quoted string: "lstm -i 28 -H 256 --framework keras"."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    if any(text.split()[:1] and text.split()[0] in FAMILIES for text in configs):
        if frameworks or verify:
            raise click.UsageError("--frameworks and --verify compare RNN, LSTM and GRU "
                                   "layers; a family model's tensors are verified by its tests")
        return _with_families(configs, fmt)
    arguments: list[str] = []
    specs = []
    for position, text in enumerate(configs, start=1):
        parsed = parse_config(text, position)
        specs += parsed
        arguments += [text] * len(parsed)
    if frameworks:
        if len(configs) != 1 or len(specs) != 1:
            raise click.UsageError(
                "--frameworks compares one configuration with one --framework across "
                f"frameworks; {len(specs)} were given"
            )
        from paramcount.api.compare import across_frameworks

        try:
            specs, arguments = across_frameworks(specs[0], configs[0])
        except SpecError as error:
            raise click.UsageError(f"--frameworks: {error.render(cli_label)}") from None
    if len(specs) < 2:
        raise click.UsageError(
            "give two or more configurations to compare, or one with --frameworks"
        )
    for spec in specs:
        if spec.framework not in COMPARABLE:
            raise click.UsageError(
                f"--framework {spec.framework.value}: TF1's LSTMCell keeps its input and "
                "recurrent weights in one kernel, so compare cannot align them with another "
                f"layer's; use paramcount {spec.cell.value} -f {spec.framework.value} to see "
                "its tensors"
            )
    from paramcount.api.compare import compare_layers

    result = compare_layers(specs, arguments, verify)
    if fmt == "json":
        show_json(result.to_json())
    else:
        show(result.documents()[0], fmt)
    for line in result.problems:
        click.echo(f"Error: {line}", err=True)
    return result.exit_code


def _with_families(configs: tuple[str, ...], fmt: str) -> int:
    """Family models (and RNN, LSTM or GRU layers) side by side: totals, and what changed
    between two models of one family, tensor by tensor."""
    import shlex

    from paramcount.cli.commands.family import parse_family
    from paramcount.families.report import FamilyReport, build_family_report

    if len(configs) < 2:
        raise click.UsageError("give two or more configurations to compare")
    items: list[tuple[str, Report | FamilyReport]] = []
    for position, text in enumerate(configs, start=1):
        args = shlex.split(text)
        if args[0] in FAMILIES:
            report = build_family_report(*parse_family(args, f"argument {position} ({text!r})"))
            items.append((text, report))
        else:
            items += [(text, build_report(spec)) for spec in parse_config(text, position)]
    from paramcount.api.compare import Compared

    result = Compared(items)
    if fmt == "json":
        show_json(result.to_json())
    else:
        show(result.documents()[0], fmt)
    return 0
