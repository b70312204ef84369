"""``paramcount rnn|lstm|gru``: every parameter tensor of a layer, with the explanation."""

from __future__ import annotations

from typing import Any

import click

from paramcount.options import layer_options, layer_specs, output_options, resolve_format
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
    @layer_options
    @output_options
    @workload_options
    def command(
        output_format: str | None, as_json: bool, as_markdown: bool, dtype: str, **options: Any
    ) -> None:
        fmt = resolve_format(output_format, as_json, as_markdown)
        workload = pop_workload(options)
        reports = [build_report(spec, DType(dtype)) for spec in layer_specs(cell, options)]
        extras = [
            (r.spec.framework.display_name, workload.memory(r.spec, r.dtype),
             workload.compute(r.spec))
            for r in reports
        ]
        if fmt == "json":
            from paramcount.render.data import dumps, report_data
            from paramcount.render.workload import compute_data, memory_data

            data = [
                {**report_data(r), "memory": memory_data(m), "compute": compute_data(c)}
                for r, (_, m, c) in zip(reports, extras, strict=True)
            ]
            show_json(dumps(data[0] if len(data) == 1 else {"reports": data}))
            return
        from paramcount.render.breakdown import breakdown, side_by_side
        from paramcount.render.workload import append_sections

        document = breakdown(reports[0]) if len(reports) == 1 else side_by_side(reports)
        show(append_sections(document, extras), fmt)

    return command


rnn = make_command(Cell.RNN)
lstm = make_command(Cell.LSTM)
gru = make_command(Cell.GRU)
