"""``paramcount explain``: the complete forum answer for one configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from paramcount.commands.configs import cell_argument, specs_of
from paramcount.options import layer_options, output_options, resolve_format
from paramcount.output import show, show_json
from paramcount.report import build_report
from paramcount.spec import DType


@click.command(name="explain")
@cell_argument
@layer_options
@output_options
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Also draw the depth chart to FILE.png or FILE.svg "
                                 "(needs matplotlib, the 'plot' extra).")
def explain(cell: str, output_format: str | None, as_json: bool, as_markdown: bool, dtype: str,
            plot_path: Path | None, **options: Any) -> None:
    """Explain a layer's count: formula, per-layer table, growth, depth chart and pitfalls."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    if plot_path is not None and plot_path.suffix.lower() not in (".png", ".svg"):
        raise click.BadParameter(
            f"{str(plot_path)!r} must end in .png or .svg", param_hint="'--plot'"
        )
    reports = [build_report(spec, DType(dtype)) for spec in specs_of(cell, options)]
    if plot_path is not None:
        from paramcount.plot import depth_plot

        depth_plot(reports[0], plot_path)
    if fmt == "json":
        from paramcount.render.data import dumps
        from paramcount.render.explain import explain_data

        data = [explain_data(r) for r in reports]
        show_json(dumps(data[0] if len(data) == 1 else {"reports": data}))
        return
    from paramcount.render.explain import explain as explain_document

    for k, report in enumerate(reports):
        if k:
            click.echo()
        show(explain_document(report), fmt)
