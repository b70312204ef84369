"""``paramcount rnn|lstm|gru``: every parameter tensor of a layer, with the explanation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from paramcount.cli.options import (
    VERIFY_HELP,
    layer_options_for,
    layer_specs,
    output_options,
    resolve_format,
    verify_option,
)
from paramcount.cli.output import show_reports
from paramcount.cli.workload_options import pop_workload, workload_options
from paramcount.engine.report import build_report
from paramcount.engine.spec import Cell, DType

if TYPE_CHECKING:
    from paramcount.api.count import Extras
    from paramcount.engine.report import Report
    from paramcount.verify import Outcome
    from paramcount.verify.flops import FlopOutcome

_HELP = {
    Cell.RNN: "Parameters of nn.RNN / keras SimpleRNN (tanh or relu).",
    Cell.LSTM: "Parameters of nn.LSTM / keras LSTM, with optional projection (torch).",
    Cell.GRU: "Parameters of nn.GRU / keras GRU (reset_after on or off).",
}


def make_command(cell: Cell) -> click.Command:
    """The counting command for one cell type."""

    @click.command(name=cell.value, help=_HELP[cell])
    @layer_options_for(cells=(cell,))
    @output_options
    @workload_options
    @verify_option(VERIFY_HELP[:-1] + "; with -T also the MACs, measured with torch's "
                   "FlopCounterMode on the meta device.")
    def command(
        output_format: str | None,
        as_json: bool,
        as_markdown: bool,
        dtype: str,
        verify: bool,
        **options: Any,
    ) -> int:
        fmt = resolve_format(output_format, as_json, as_markdown)
        reports, extras = reports_of(cell, dtype, options)
        outcomes = flops = None
        if verify:
            from paramcount.api.verdict import check_flops
            from paramcount.verify import verify_reports

            outcomes = verify_reports(reports, skip_missing=len(reports) > 1)
            flops = check_flops([c for _, _, c in extras], skip_missing=len(reports) > 1)
        show_reports(reports, fmt, extras, outcomes, flops)
        if outcomes is None:
            return 0
        return verdict_code(outcomes, flops)

    return command


def reports_of(cell: Cell, dtype: str, options: dict[str, Any]
               ) -> tuple[list[Report], list[Extras]]:
    """The reports of the layers the command's parsed options describe, each with its
    framework's name, training memory and compute where asked for (the workload options are
    taken out of ``options``)."""
    workload = pop_workload(options)
    reports = [build_report(spec, DType(dtype)) for spec in layer_specs(cell, options)]
    extras = [
        (r.spec.framework.display_name, workload.memory(r.spec, r.dtype),
         workload.compute(r.spec))
        for r in reports
    ]
    return reports, extras


def verdict_code(outcomes: Sequence[Outcome], flops: Sequence[FlopOutcome | None] | None) -> int:
    """Print one error line per disagreement; 1 if the parameters or the MACs disagree."""
    from paramcount.api.verdict import exit_code, problems

    for line in problems(outcomes, flops):
        click.echo(f"Error: {line}", err=True)
    return exit_code(outcomes, flops)


rnn = make_command(Cell.RNN)
lstm = make_command(Cell.LSTM)
gru = make_command(Cell.GRU)
