"""``paramcount compute`` and ``paramcount memory``: a layer's forward-pass MACs and FLOPs, and
its training memory — the names people guess for the count commands' -T and --optimizer views.
"""

from __future__ import annotations

from typing import Any

import click

from paramcount.cli.commands.configs import cell_argument, specs_of
from paramcount.cli.commands.count import check_flops, verdict_code
from paramcount.cli.options import (
    format_options,
    layer_options,
    resolve_format,
    verify_option,
)
from paramcount.cli.output import show, show_json
from paramcount.cli.workload_options import compute_options, memory_options, pop_workload
from paramcount.engine.report import Report, build_report
from paramcount.engine.spec import DType

COMPUTE_SCHEMA = "paramcount.compute/1"
MEMORY_SCHEMA = "paramcount.memory/1"


def _reports(cell: str, dtype: str, options: dict[str, Any]) -> list[Report]:
    return [build_report(spec, DType(dtype)) for spec in specs_of(cell, options)]


def _show_all(documents: list[Any], fmt: str) -> None:
    for k, document in enumerate(documents):
        if k:
            click.echo()
        show(document, fmt)


@click.command(name="compute")
@cell_argument
@layer_options
@compute_options(" [default: 1, or the longest of --lengths]")
@format_options()
@verify_option("Build the real layer(s) and check every tensor; measure the MACs with torch's "
               "FlopCounterMode on the meta device; exit 1 on a mismatch, 3 if not installed.")
def compute_command(cell: str, output_format: str | None, as_json: bool, as_markdown: bool,
                    verify: bool, **options: Any) -> int:
    """MACs and FLOPs of one forward pass (the count commands' -T view): paramcount compute lstm
    -i 32 -H 128 -T 100 -N 8."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    if options["seq_len"] is None and options["lengths"] is None:
        options["seq_len"] = 1
    workload = pop_workload(options)
    reports = _reports(cell, "fp32", options)
    computes = [workload.compute(r.spec) for r in reports]
    outcomes = flops = None
    if verify:
        from paramcount.verify import verify_reports

        outcomes = verify_reports(reports, skip_missing=len(reports) > 1)
        flops = check_flops(computes, skip_missing=len(reports) > 1)
    if fmt == "json":
        from paramcount.render.data import dumps
        from paramcount.render.workload import workload_report_data

        data = [workload_report_data(COMPUTE_SCHEMA, r, outcomes[k] if outcomes else None,
                                     compute=c, flops=flops[k] if flops else None)
                for k, (r, c) in enumerate(zip(reports, computes, strict=True))]
        show_json(dumps(data[0] if len(data) == 1 else {"reports": data}))
    else:
        from paramcount.render.workload import compute_document

        _show_all([compute_document(r, c, outcomes[k] if outcomes else None,
                                    flops[k] if flops else None)
                   for k, (r, c) in enumerate(zip(reports, computes, strict=True))], fmt)
    return 0 if outcomes is None else verdict_code(outcomes, flops)


@click.command(name="memory")
@cell_argument
@layer_options
@memory_options(optimizer_default="adam")
@click.option("--dtype", type=click.Choice([d.value for d in DType if d is not DType.INT8]),
              default="fp32", show_default=True,
              help="Storage type of the trained parameters (int8 weights are not trained).")
@format_options()
@verify_option("Build the real layer(s) and check every tensor and the total the memory is "
               "computed from; exit 1 on a mismatch, 3 if not installed.")
def memory_command(cell: str, output_format: str | None, as_json: bool, as_markdown: bool,
                   dtype: str, verify: bool, **options: Any) -> int:
    """Training memory of the parameters, gradients and optimizer state (the count commands'
    --optimizer view): paramcount memory lstm -i 32 -H 128 --optimizer adam."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    workload = pop_workload(options)
    reports = _reports(cell, dtype, options)
    memories = [workload.memory(r.spec, r.dtype) for r in reports]
    outcomes = None
    if verify:
        from paramcount.verify import verify_reports

        outcomes = verify_reports(reports, skip_missing=len(reports) > 1)
    if fmt == "json":
        from paramcount.render.data import dumps
        from paramcount.render.workload import workload_report_data

        data = [workload_report_data(MEMORY_SCHEMA, r, outcomes[k] if outcomes else None,
                                     memory=m)
                for k, (r, m) in enumerate(zip(reports, memories, strict=True))]
        show_json(dumps(data[0] if len(data) == 1 else {"reports": data}))
    else:
        from paramcount.render.workload import memory_document

        _show_all([memory_document(r, m, outcomes[k] if outcomes else None)
                   for k, (r, m) in enumerate(zip(reports, memories, strict=True))], fmt)
    return 0 if outcomes is None else verdict_code(outcomes, None)
