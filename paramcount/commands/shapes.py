"""``paramcount shapes``: tensor shapes, h_n order and equal slices, optionally verified."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from paramcount.commands.configs import cell_argument, specs_of
from paramcount.flow import flow as make_flow
from paramcount.options import format_options, layer_options, resolve_format
from paramcount.output import show, show_json
from paramcount.spec import Framework, LayerSpec

F = TypeVar("F", bound=Callable[..., Any])


def run_options(function: F) -> F:
    """--batch, --seq-len, --seed and the output formats of the commands that run a stack."""
    decorators = [
        click.option("--batch", "-N", "batch", type=click.IntRange(min=1), default=3,
                     show_default=True, help="Sequences in the batch (N)."),
        click.option("--seq-len", "-T", "seq_len", type=click.IntRange(min=1), default=5,
                     show_default=True, help="Time steps per sequence (T)."),
        click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True,
                     help="Seed of the random weights, input and initial states."),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return format_options()(function)


def one_spec(cell: str, options: dict[str, Any]) -> LayerSpec:
    """The one layer stack asked for; ``--framework all`` and ``--cell`` are refused."""
    frameworks = options["framework"]
    if frameworks == "all" or (
        not isinstance(frameworks, str)
        and (len(frameworks) != 1 or frameworks[0] not in (Framework.TORCH, Framework.KERAS))
    ):
        chosen = (frameworks if isinstance(frameworks, str)
                  else "all" if tuple(frameworks) == Framework.current()
                  else ",".join(frameworks))
        raise click.UsageError(f"--framework {chosen}: choose torch or keras")
    spec = specs_of(cell, options)[0]
    if spec.single_cell:
        raise click.UsageError(
            "--cell: a single-step cell has no sequence and no h_n; drop --cell"
        )
    return spec


@click.command(name="shapes")
@cell_argument
@layer_options
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
    flow = make_flow(spec, batch, seq_len, batch_first)
    checks = None
    if verify:
        if spec.framework is Framework.TORCH:
            from paramcount.proof import torch_run

            checks = torch_run.verify_flow(flow, seed)
        else:
            from paramcount.proof import keras_run

            checks = keras_run.verify_flow(flow, seed)
    if fmt == "json":
        from paramcount.render.data import dumps
        from paramcount.render.flow_data import shapes_data

        show_json(dumps(shapes_data(flow, checks)))
    else:
        from paramcount.render.flow import shapes_document

        show(shapes_document(flow, checks), fmt)
    return 1 if checks is not None and not all(c.ok for c in checks.values()) else 0
