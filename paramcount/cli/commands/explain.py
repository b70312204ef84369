"""``paramcount explain``: the complete forum answer for one configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from paramcount.cli.commands.configs import cell_argument, specs_of
from paramcount.cli.options import layer_options, output_options, resolve_format, verify_option
from paramcount.cli.output import show, show_json
from paramcount.engine.report import build_report
from paramcount.engine.spec import DType


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
    reports = [build_report(spec, DType(dtype)) for spec in specs]
    outcomes = None
    if verify:
        from paramcount.verify import verify_reports

        outcomes = verify_reports(reports, skip_missing=len(reports) > 1)
    if plot_path is not None:
        from paramcount.analysis.plot import depth_plot

        depth_plot(reports[0], plot_path)
    if fmt == "json":
        from paramcount.render.data import dumps
        from paramcount.render.explain import explain_data

        others = len(reports) > 1
        data = [explain_data(r, outcomes[k] if outcomes else None, others)
                for k, r in enumerate(reports)]
        show_json(dumps(data[0] if len(data) == 1 else {"reports": data}))
    else:
        from paramcount.render import explain as render

        if len(reports) > 1:
            from paramcount.render.breakdown import totals_table
            from paramcount.render.document import Document, Section, number

            show(Document(
                "The same configuration in "
                + ", ".join(r.spec.framework.display_name for r in reports),
                " vs ".join(number(r.total) for r in reports) + " parameters",
                (Section("Totals", (totals_table(reports, outcomes),)),),
            ), fmt)
        for k, report in enumerate(reports):
            outcome = outcomes[k] if outcomes else None
            if k or len(reports) > 1:
                click.echo()
            show(render.brief(report, outcome) if brief
                 else render.explain(report, outcome, others=len(reports) > 1), fmt)
    if outcomes is None:
        return 0
    from paramcount.verify import exit_code, problems

    for line in problems(outcomes):
        click.echo(f"Error: {line}", err=True)
    return exit_code(outcomes)
