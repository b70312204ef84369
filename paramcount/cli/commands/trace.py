"""``paramcount trace``: prove the computation flow by rebuilding the stack from its parts."""

from __future__ import annotations

from typing import Any

import click

from paramcount.cli.commands.configs import cell_argument
from paramcount.cli.commands.shapes import one_spec, run_layer_options, run_options
from paramcount.cli.options import resolve_format
from paramcount.cli.output import show, show_json


@click.command(name="trace")
@cell_argument
@run_layer_options
@run_options
@click.option("--show-mistake", is_flag=True,
              help="Also run the common wrong rebuild (backward outputs not flipped back) and "
                   "show where it diverges.")
def trace(cell: str, batch: int, seq_len: int, seed: int, output_format: str | None,
          as_json: bool, as_markdown: bool, show_mistake: bool, **options: Any) -> int:
    """Rebuild a (bidirectional) stack from unidirectional single-layer modules and compare."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    spec = one_spec(cell, options)
    from paramcount.api.flow import trace_of

    result = trace_of(spec, batch, seq_len, seed, show_mistake)
    if fmt == "json":
        show_json(result.to_json())
    else:
        show(result.documents()[0], fmt)
    return result.exit_code
