"""``paramcount fit``: the largest hidden size whose parameters fit a budget."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from paramcount.analysis.fit import BudgetTooSmall, Fit, fit
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

if TYPE_CHECKING:
    from paramcount.render.verification import Outcome


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
    try:
        answer = fit(spec, max_params=max_params, max_bytes=max_bytes, dtype=DType(dtype),
                     round_to=round_to)
    except BudgetTooSmall as error:
        if fmt != "json":
            raise
        _show_data(error.smallest, None, str(error))
        raise
    outcomes = None
    if verify:
        from paramcount.engine.report import build_report
        from paramcount.verify import verify_reports

        outcomes = verify_reports([
            build_report(answer.spec, answer.dtype),
            build_report(answer.spec.replace(hidden_size=answer.next_hidden_size), answer.dtype),
        ])
    if fmt == "json":
        _show_data(answer, outcomes)
    else:
        from paramcount.render.fit import fit_document

        show(fit_document(answer, outcomes), fmt)
    if outcomes is None:
        return 0
    from paramcount.verify import exit_code, problems

    for line in problems(outcomes):
        click.echo(f"Error: {line}", err=True)
    return exit_code(outcomes)


def _show_data(answer: Fit, outcomes: Sequence[Outcome] | None, error: str | None = None) -> None:
    """Print ``answer`` as JSON, with the error when nothing fits."""
    from paramcount.engine.report import build_report
    from paramcount.render.data import config, dumps
    from paramcount.render.fit import fit_data

    data = fit_data(answer, config(build_report(answer.spec, answer.dtype)), outcomes, error)
    show_json(dumps(data))
