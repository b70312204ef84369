"""``paramcount compute`` and ``paramcount memory``: a layer's forward-pass MACs and FLOPs, and
its training memory — the names people guess for the count commands' -T and --optimizer views.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from paramcount.cli.commands.configs import cell_argument, specs_of
from paramcount.cli.options import (
    format_options,
    layer_options,
    resolve_format,
    verify_option,
)
from paramcount.cli.output import show, show_json
from paramcount.cli.workload_options import compute_options, memory_options, pop_workload
from paramcount.engine.spec import DType

if TYPE_CHECKING:
    from paramcount.api.workload import Computed, TrainingMemory


def _show(result: Computed | TrainingMemory, fmt: str) -> int:
    """Print the result (its JSON, or each layer's document), the real layers' disagreements
    on stderr; return the exit code."""
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
    from paramcount.api.workload import compute_specs

    result = compute_specs(specs_of(cell, options), workload.seq_len, workload.batch,
                           workload.lengths, verify)
    return _show(result, fmt)


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
    from paramcount.api.workload import memory_specs

    assert workload.optimizer is not None  # the command's default: adam
    result = memory_specs(specs_of(cell, options), workload.optimizer,
                          workload.mixed_precision, dtype, verify)
    return _show(result, fmt)
