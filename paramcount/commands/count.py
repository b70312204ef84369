"""``paramcount rnn|lstm|gru``: every parameter tensor of a layer, with the explanation."""

from __future__ import annotations

from typing import Any

import click

from paramcount.options import layer_options_for, layer_specs, output_options, resolve_format
from paramcount.output import show, show_json
from paramcount.report import build_report
from paramcount.spec import Cell, DType
from paramcount.workload_options import pop_workload, workload_options

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
    @click.option("--verify", "verify", is_flag=True,
                  help="Build the real layer(s) (torch, Keras and Flax without allocating "
                       "weights; ONNX as a small graph) and check every tensor and the total; "
                       "exit 1 on a mismatch, 3 if not installed.")
    def command(
        output_format: str | None,
        as_json: bool,
        as_markdown: bool,
        dtype: str,
        verify: bool,
        **options: Any,
    ) -> int:
        fmt = resolve_format(output_format, as_json, as_markdown)
        workload = pop_workload(options)
        reports = [build_report(spec, DType(dtype)) for spec in layer_specs(cell, options)]
        extras = [
            (r.spec.framework.display_name, workload.memory(r.spec, r.dtype),
             workload.compute(r.spec))
            for r in reports
        ]
        outcomes = None
        if verify:
            from paramcount.verify import verify_reports

            outcomes = verify_reports(reports, skip_missing=len(reports) > 1)
        if fmt == "json":
            from paramcount.render.data import dumps, report_data, workload_data

            data = [
                {**report_data(r, outcomes[i] if outcomes else None), **workload_data(m, c)}
                for i, (r, (_, m, c)) in enumerate(zip(reports, extras, strict=True))
            ]
            show_json(dumps(data[0] if len(data) == 1 else {"reports": data}))
        else:
            from paramcount.render.breakdown import breakdown, side_by_side

            document = (
                breakdown(reports[0], outcomes[0] if outcomes else None) if len(reports) == 1
                else side_by_side(reports, outcomes)
            )
            if any(m or c for _, m, c in extras):
                from paramcount.render.workload import append_sections

                document = append_sections(document, extras)
            show(document, fmt)
        if outcomes is None:
            return 0
        from paramcount.verify import exit_code, problems

        for line in problems(outcomes):
            click.echo(f"Error: {line}", err=True)
        return exit_code(outcomes)

    return command


rnn = make_command(Cell.RNN)
lstm = make_command(Cell.LSTM)
gru = make_command(Cell.GRU)
