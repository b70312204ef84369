"""``paramcount convlstm``: Keras ConvLSTM1D/2D/3D and Flax linen ConvLSTMCell stacks."""

from __future__ import annotations

import click

from paramcount.cli.options import (
    Frameworks,
    WholeNumber,
    output_options,
    resolve_format,
    verify_option,
)
from paramcount.cli.output import show, show_json
from paramcount.engine.convlstm_report import FRAMEWORKS, DataFormat
from paramcount.engine.spec import Framework


@click.command(name="convlstm")
@click.option("--rank", type=click.IntRange(1, 3), required=True,
              help="Spatial axes of each frame: 1, 2 or 3 (ConvLSTM1D/2D/3D).")
@click.option("--input-channels", "-C", "input_channels", type=WholeNumber(), required=True,
              help="Channels of the input frames (C).")
@click.option("--filters", "-F", type=WholeNumber(), required=True,
              help="Filters (F): the channels of each direction's output.")
@click.option("--kernel", "--kernel-size", "-k", "kernel", required=True,
              help="Kernel size, one per spatial axis joined by x (3x3), or one size for all.")
@click.option("--layers", "-L", "num_layers", type=WholeNumber(), default=1, show_default=True,
              help="Stacked layers (L).")
@click.option("--bidir/--no-bidir", "--bidirectional/--no-bidirectional", "bidirectional",
              default=False,
              help="Wrap every layer in Bidirectional (concat merge).")
@click.option("--bias/--no-bias", "--use-bias/--no-use-bias", "bias", default=True,
              show_default=True, help="use_bias.")
@click.option("--data-format", type=click.Choice([d.value for d in DataFormat]),
              default="channels_last", show_default=True,
              help="Keras data_format; channels_first changes what a Bidirectional stack reads.")
@click.option("--framework", "-f", type=Frameworks(FRAMEWORKS), default="keras",
              show_default=True,
              help="Keras ConvLSTM{1,2,3}D or Flax linen ConvLSTMCell, or both ('all'); "
                   "'tensorflow' / 'tf.keras' are accepted too.")
@output_options
@verify_option("Build the real layers (Keras without allocating weights, Flax under "
               "jax.eval_shape) and check every tensor and the total; exit 1 on a mismatch, "
               "3 if not installed.")
def convlstm(
    rank: int,
    input_channels: int,
    filters: int,
    kernel: str,
    num_layers: int,
    bidirectional: bool,
    bias: bool,
    data_format: str,
    framework: tuple[Framework, ...],
    output_format: str | None,
    as_json: bool,
    as_markdown: bool,
    dtype: str,
    verify: bool,
) -> int:
    """Parameters of a ConvLSTM stack: Keras ConvLSTM1D/2D/3D, Flax linen ConvLSTMCell."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    from paramcount.api.convlstm import convlstm as count_convlstm

    result = count_convlstm(rank, input_channels, filters, kernel, num_layers=num_layers,
                            bidirectional=bidirectional, bias=bias, data_format=data_format,
                            framework=framework, dtype=dtype, verify=verify)
    if fmt == "json":
        show_json(result.to_json())
    else:
        show(result.documents()[0], fmt)
    for line in result.problems:
        click.echo(f"Error: {line}", err=True)
    return result.exit_code
