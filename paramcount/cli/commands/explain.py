"""``paramcount explain``: the complete forum answer for one configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from paramcount.cli.commands.configs import cell_argument, specs_of
from paramcount.cli.options import layer_options, output_options, resolve_format, verify_option
from paramcount.cli.output import show, show_json


@click.command(name="explain")
@cell_argument
@layer_options
@output_options
@verify_option()
@click.option("--brief", is_flag=True,
              help="Only the answer, in at most a dozen lines: actual versus naive, the "
                   "reason, the formula.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Also draw the depth chart to FILE.png or FILE.svg "
                                 "(needs matplotlib, the 'plot' extra).")
def explain(cell: str, output_format: str | None, as_json: bool, as_markdown: bool, dtype: str,
            verify: bool, brief: bool, plot_path: Path | None, **options: Any) -> int:
    """Explain a layer's count: the answer first, then formula, tables, depth and pitfalls."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    if brief and fmt == "json":
        raise click.UsageError(
            "--brief shortens the text answer; --json always carries everything (drop one)"
        )
    if plot_path is not None and plot_path.suffix.lower() not in (".png", ".svg"):
        raise click.BadParameter(
            f"{str(plot_path)!r} must end in .png or .svg", param_hint="'--plot'"
        )
    specs = specs_of(cell, options)
    if brief and len(specs) > 1:
        raise click.UsageError(
            f"--brief answers for one framework in at most a dozen lines; -f all gives "
            f"{len(specs)}: choose one with -f, or drop --brief"
        )
    from paramcount.api.explain import explain_specs

    result = explain_specs(specs, dtype, verify, brief)
    if plot_path is not None:
        from paramcount.analysis.plot import depth_plot

        depth_plot(result.reports[0], plot_path)
    if fmt == "json":
        show_json(result.to_json())
    else:
        for k, document in enumerate(result.documents()):
            if k:
                click.echo()
            show(document, fmt)
    for line in result.problems:
        click.echo(f"Error: {line}", err=True)
    return result.exit_code
