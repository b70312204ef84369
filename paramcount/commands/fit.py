"""``paramcount fit``: the largest hidden size whose parameters fit a budget."""

from __future__ import annotations

from typing import Any

import click

from paramcount.fit import fit, parse_bytes, parse_count
from paramcount.options import FORMATS, MergeModes, WholeNumber, resolve_format
from paramcount.output import show, show_json
from paramcount.spec import Cell, DType, Framework, LayerSpec


@click.command(name="fit")
@click.argument("cell", type=click.Choice([c.value for c in Cell]))
@click.option("--input", "-i", "input_size", type=WholeNumber(), required=True,
              help="Input features per time step (I).")
@click.option("--layers", "-L", "num_layers", type=WholeNumber(), default=1, show_default=True,
              help="Stacked layers (L).")
@click.option("--bidir/--no-bidir", "bidirectional", default=False, help="Bidirectional.")
@click.option("--bias/--no-bias", default=True, show_default=True, help="Bias vectors.")
@click.option("--proj", "proj_size", type=WholeNumber(), default=0,
              help="A fixed LSTM projection size P (torch); the hidden size must exceed it.")
@click.option("--framework", "-f", type=click.Choice([f.value for f in Framework]),
              default="torch", show_default=True, help="Whose convention to count in.")
@click.option("--merge-mode", "merge_modes", type=MergeModes(), default=None,
              help="Keras Bidirectional merge: concat|sum|mul|ave|none, or one per layer.")
@click.option("--reset-after/--no-reset-after", default=None, help="Keras GRU reset_after.")
@click.option("--nonlinearity", type=click.Choice(["tanh", "relu"]), default=None,
              help="RNN activation (does not change the count).")
@click.option("--cell", "single_cell", is_flag=True, default=False,
              help="The single-step cell class.")
@click.option("--max-params", default=None, metavar="N",
              help="Budget in parameters; K, M, G, T suffixes are powers of 1000 (1M).")
@click.option("--max-bytes", default=None, metavar="SIZE",
              help="Budget in bytes of --dtype: 4MB (10^6) or 4MiB (2^20), KB/GB/KiB/GiB...")
@click.option("--dtype", type=click.Choice([d.value for d in DType]), default="fp32",
              show_default=True, help="Parameter storage type, for bytes.")
@click.option("--round", "round_to", type=WholeNumber(), default=1, show_default=True,
              help="Only hidden sizes that are multiples of this (8, 64, ...).")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default=None,
              help="Output format. [default: table]")
@click.option("--json", "as_json", is_flag=True, help="Shorthand for --format json.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Shorthand for --format markdown.")
def fit_command(
    cell: str,
    max_params: str | None,
    max_bytes: str | None,
    dtype: str,
    round_to: int,
    output_format: str | None,
    as_json: bool,
    as_markdown: bool,
    **options: Any,
) -> None:
    """The largest hidden size whose parameters fit --max-params or --max-bytes, exactly."""
    fmt = resolve_format(output_format, as_json, as_markdown)
    if (max_params is None) == (max_bytes is None):
        raise click.UsageError("give one budget: --max-params N or --max-bytes SIZE")
    params = parse_count(max_params) if max_params is not None else None
    size = parse_bytes(max_bytes) if max_bytes is not None else None
    proj = options["proj_size"]
    hidden = proj + 1 if isinstance(proj, int) and proj > 0 else 1
    spec = LayerSpec(cell=Cell(cell), hidden_size=hidden, **options)
    answer = fit(spec, max_params=params, max_bytes=size, dtype=DType(dtype), round_to=round_to)
    if fmt == "json":
        from paramcount.render.data import config, dumps
        from paramcount.render.fit import fit_data
        from paramcount.report import build_report

        show_json(dumps(fit_data(answer, config(build_report(answer.spec, answer.dtype)))))
        return
    from paramcount.render.fit import fit_document

    show(fit_document(answer), fmt)
