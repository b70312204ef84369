"""``paramcount shapes``: tensor shapes, h_n order and equal slices, optionally verified."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from paramcount.analysis.flow import flow as make_flow
from paramcount.api import flow as api_flow
from paramcount.cli.commands.configs import cell_argument, specs_of
from paramcount.cli.options import WholeNumber, format_options, layer_options_for, resolve_format
from paramcount.cli.output import show, show_json
from paramcount.engine.spec import Framework, LayerSpec

F = TypeVar("F", bound=Callable[..., Any])


def run_options(function: F) -> F:
    """--batch, --seq-len, --seed and the output formats of the commands that run a stack."""
    decorators = [
        click.option("--batch", "-N", "batch", type=WholeNumber(minimum=1), default=3,
                     show_default=True, help="Sequences in the batch (N)."),
        click.option("--seq-len", "-T", "seq_len", type=WholeNumber(minimum=1), default=5,
                     show_default=True, help="Time steps per sequence (T)."),
        click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True,
                     help="Seed of the random weights, input and initial states."),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return format_options()(function)


def one_spec(cell: str, options: dict[str, Any]) -> LayerSpec:
    """The one torch or Keras layer stack asked for (the option types admit nothing else)."""
    specs = specs_of(cell, options)
    assert len(specs) == 1 and specs[0].framework in RUN_FRAMEWORKS and not specs[0].single_cell
    return specs[0]


RUN_FRAMEWORKS = api_flow.RUN_FRAMEWORKS
"""The frameworks whose layers ``shapes --verify`` and ``trace`` run for real."""


def run_layer_options(function: F) -> F:
    """The layer options of a stack that runs for real: torch or Keras, no --cell."""
    return layer_options_for(frameworks=RUN_FRAMEWORKS, several=False,
                             single_cell=False)(function)


@click.command(name="shapes")
@cell_argument
@run_layer_options
@run_options
@click.option("--batch-first", is_flag=True,
              help="PyTorch batch_first=True: (N, T, …) input and output; h_n and c_n stay "
                   "(D·L, N, …).")
@click.option("--verify", is_flag=True,
              help="Check every claim with a real forward pass (torch, or keras).")
def shapes(cell: str, batch: int, seq_len: int, seed: int, output_format: str | None,
           as_json: bool, as_markdown: bool, batch_first: bool, verify: bool,
           **options: Any) -> int:
    """Shapes of input, output, h_n and c_n; the order of h_n; which output slice equals which."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    spec = one_spec(cell, options)
    if batch_first and spec.framework is Framework.KERAS:
        raise click.UsageError(
            "--batch-first is a PyTorch option: Keras layers always take (N, T, features)"
        )
    from paramcount.api.flow import checked_shapes

    result = checked_shapes(make_flow(spec, batch, seq_len, batch_first), seed, verify)
    if fmt == "json":
        show_json(result.to_json())
    else:
        show(result.documents()[0], fmt)
    return result.exit_code
