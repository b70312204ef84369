"""``paramcount compare``: two or more configurations side by side, the difference explained."""

from __future__ import annotations

import click

from paramcount.commands.configs import parse_config
from paramcount.errors import SpecError
from paramcount.options import FORMATS, cli_label, resolve_format
from paramcount.output import show, show_json
from paramcount.report import build_report
from paramcount.spec import Framework


@click.command(name="compare")
@click.argument("configs", nargs=-1, required=True, metavar='"CELL OPTIONS"...')
@click.option("--frameworks", is_flag=True,
              help="Compare one configuration across PyTorch and Keras.")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default=None,
              help="Output format. [default: table]")
@click.option("--json", "as_json", is_flag=True, help="Shorthand for --format json.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Shorthand for --format markdown.")
def compare(configs: tuple[str, ...], frameworks: bool, output_format: str | None,
            as_json: bool, as_markdown: bool) -> None:
    """Compare configurations, each one quoted string: "lstm -i 28 -H 256 --framework keras"."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    arguments: list[str] = []
    specs = []
    for position, text in enumerate(configs, start=1):
        parsed = parse_config(text, position)
        if tuple(spec.framework for spec in parsed) == Framework.current():
            # --framework all: compare explains the PyTorch and Keras conventions.
            parsed = [spec for spec in parsed
                      if spec.framework in (Framework.TORCH, Framework.KERAS)]
        specs += parsed
        arguments += [text] * len(parsed)
    if frameworks:
        if len(configs) != 1:
            raise click.UsageError(
                f"--frameworks compares one configuration across frameworks; {len(configs)} "
                "were given"
            )
        base = specs[0]
        try:
            specs = [base.replace(framework=Framework.TORCH, merge_modes=None),
                     base.replace(framework=Framework.KERAS)]
        except SpecError as error:
            raise click.UsageError(
                f"--frameworks: {error.render(cli_label)}"
            ) from None
        arguments = [f"{configs[0]} (PyTorch)", f"{configs[0]} (Keras)"]
    if len(specs) < 2:
        raise click.UsageError(
            "give two or more configurations to compare, or one with --frameworks"
        )
    for spec in specs:
        if spec.framework not in (Framework.TORCH, Framework.KERAS):
            raise click.UsageError(
                f"compare explains PyTorch and Keras configurations; --framework "
                f"{spec.framework.value} is not supported here yet (use paramcount "
                f"{spec.cell.value} -f torch,{spec.framework.value} to see both)"
            )
    reports = [build_report(spec) for spec in specs]
    if fmt == "json":
        from paramcount.render.compare import compare_data
        from paramcount.render.data import dumps

        show_json(dumps(compare_data(reports, arguments)))
        return
    from paramcount.render.compare import compare_document

    show(compare_document(reports, arguments), fmt)
