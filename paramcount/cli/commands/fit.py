"""``paramcount fit``: the largest hidden size whose parameters fit a budget."""

from __future__ import annotations

from typing import Any

import click

from paramcount.analysis.fit import BudgetTooSmall
from paramcount.cli.options import (
    ByteSize,
    Count,
    WholeNumber,
    format_options,
    layer_options_but_hidden,
    layer_specs,
    resolve_format,
    verify_option,
)
from paramcount.cli.output import show, show_json
from paramcount.engine.spec import Cell, DType


@click.command(name="fit")
@click.argument("cell", type=click.Choice([c.value for c in Cell]))
@layer_options_but_hidden
@click.option("--max-params", type=Count(), default=None,
              help="Budget in parameters: 1_000_000, 1e6, 1.5M, 250K; K, M, G (or B), T are "
                   "powers of 1000.")
@click.option("--max-bytes", type=ByteSize(), default=None,
              help="Budget in bytes of --dtype: 4MB (10^6) or 4MiB (2^20), KB/GB/KiB/GiB...")
@click.option("--dtype", type=click.Choice([d.value for d in DType]), default="fp32",
              show_default=True, help="Parameter storage type, for bytes.")
@click.option("--round", "round_to", type=WholeNumber(), default=1, show_default=True,
              help="Only hidden sizes that are multiples of this (8, 64, ...).")
@format_options()
@verify_option("Build the real layer at the answer's hidden size and at the next one up, and "
               "check that the framework counts what paramcount counts; exit 1 on a mismatch, "
               "3 if not installed.")
def fit_command(
    cell: str,
    max_params: int | None,
    max_bytes: int | None,
    dtype: str,
    round_to: int,
    output_format: str | None,
    as_json: bool,
    as_markdown: bool,
    verify: bool,
    **options: Any,
) -> int:
    """The largest hidden size whose parameters fit --max-params or --max-bytes, exactly."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    if (max_params is None) == (max_bytes is None):
        raise click.UsageError("give one budget: --max-params N or --max-bytes SIZE")
    proj = options.get("proj_size", 0)
    hidden = proj + 1 if isinstance(proj, int) and proj > 0 else 1
    (spec,) = layer_specs(Cell(cell), {**options, "hidden_size": hidden})
    from paramcount.api.fit import Fitted, fit_spec

    try:
        result = fit_spec(spec, max_params, max_bytes, DType(dtype), round_to, verify)
    except BudgetTooSmall as error:
        if fmt == "json":
            show_json(Fitted(error.smallest, None, str(error)).to_json())
        raise
    if fmt == "json":
        show_json(result.to_json())
    else:
        show(result.documents()[0], fmt)
    for line in result.problems:
        click.echo(f"Error: {line}", err=True)
    return result.exit_code
