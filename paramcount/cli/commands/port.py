"""``paramcount port``: move recurrent weights to another framework's convention, with proof."""

from __future__ import annotations

import math
from typing import Any

import click

from paramcount.cli.options import (
    Frameworks,
    MergeModes,
    WholeNumber,
    format_options,
    resolve_format,
)
from paramcount.cli.output import show, show_json
from paramcount.engine.spec import Framework, Nonlinearity

_FRAMEWORKS = Frameworks(several=False)  # pytorch, tensorflow, tf.keras accepted too


@click.command(name="port")
@click.argument("source", metavar="SRC", type=click.Path(dir_okay=False))
@click.option("--to", "to", type=_FRAMEWORKS, required=True,
              help="The target convention.")
@click.option("--from", "from_", type=_FRAMEWORKS, default=None,
              help="The source's convention, when its names could be read several ways.")
@click.option("--out", "-o", "out", type=click.Path(dir_okay=False), default=None,
              help="Write the ported model: .npz or .safetensors (one array per target "
                   "tensor, any convention), .pt (--to torch: a state dict), .onnx (--to onnx: "
                   "a runnable graph of the whole model), .keras (--to keras: a whole model, "
                   "keras.saving.load_model), .weights.h5 (--to keras --model: "
                   "model.load_weights) or .msgpack (--to flax-linen: the variables tree).")
@click.option("--verify", is_flag=True,
              help="Run the real source and target layers on random input with non-zero "
                   "initial states; exit 1 if outputs or final states differ by more than "
                   "1e-5.")
@click.option("--model", "model", metavar="MODULE:FUNCTION", default=None,
              help="Your target model's factory (imported from the current folder): its "
                   "layers are matched to the source's and its own names written.")
@click.option("--kwargs", "kwargs", metavar="JSON", default=None,
              help="Keyword arguments for --model's factory, as a JSON object.")
@click.option("--source-model", "source_model", metavar="MODULE:FUNCTION", default=None,
              help="With --verify --model: the factory of a torch checkpoint's own model, so "
                   "that both whole models run side by side (a .keras file is its own model).")
@click.option("--source-kwargs", "source_kwargs", metavar="JSON", default=None,
              help="Keyword arguments for --source-model's factory, as a JSON object.")
@click.option("--factory-timeout", metavar="SECONDS", default=None,
              help="Stop --model's or --source-model's factory if it has not returned its "
                   "model after SECONDS (the port runs in a child process). Also "
                   "PARAMCOUNT_FACTORY_TIMEOUT. [default: 120]")
@click.option("--input-shape", "input_shape", metavar="SIZES", default=None,
              help="With --verify --model: one example of the whole models' input without "
                   "the batch axis, as the source model reads it (1,32,100 for a torch "
                   "Conv2d on 1 channel of 32 × 100); by default what the models declare, "
                   "free sizes 7.")
@click.option("--allow-unmapped", is_flag=True,
              help="Leave out the tensors nothing in the target maps (named under Notes); "
                   "without it such a port is refused and nothing is written.")
@format_options()
@click.option("--input", "--input-size", "-i", "input_size", type=WholeNumber(), default=None,
              help="Check: the source layer's input width.")
@click.option("--hidden", "--hidden-size", "--units", "-H", "hidden_size", type=WholeNumber(),
              default=None,
              help="Check: the source layer's hidden size.")
@click.option("--layers", "--num-layers", "-L", "num_layers", type=WholeNumber(), default=None,
              help="Check: the source's stacked layers.")
@click.option("--bidir/--no-bidir", "--bidirectional/--no-bidirectional", "bidirectional",
              default=None,
              help="Check: whether the source is bidirectional.")
@click.option("--proj", "--proj-size", "proj_size", type=WholeNumber(), default=None,
              help="Check: the source LSTM's projection size.")
@click.option("--nonlinearity", type=click.Choice([n.value for n in Nonlinearity]),
              default=None, help="A plain RNN's activation, which torch files do not store.")
@click.option("--forget-bias", type=float, default=1.0, show_default=True,
              help="TF1 LSTMCell's forget_bias (not stored in checkpoints), folded into or "
                   "out of the forget-gate bias.")
@click.option("--reset-after/--no-reset-after", default=None,
              help="Keras GRU's reset_after: of the target, or of a Keras source whose "
                   "GRU has no bias (which the weights cannot tell). [default: what is "
                   "exact]")
@click.option("--linear-before-reset/--no-linear-before-reset", default=None,
              help="Target ONNX GRU's linear_before_reset. [default: what is exact]")
@click.option("--merge-mode", "merge_modes", type=MergeModes(), default=None,
              help="Target Keras Bidirectional merge mode(s). [default: the source's]")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True,
              help="Seed of the random input and states used by --verify.")
def port(source: str, to: tuple[Framework], from_: tuple[Framework] | None, out: str | None,
         verify: bool, model: str | None, kwargs: str | None, source_model: str | None,
         source_kwargs: str | None, factory_timeout: str | None, input_shape: str | None,
         allow_unmapped: bool,
         output_format: str | None, as_json: bool, as_markdown: bool,
         nonlinearity: str | None, forget_bias: float,
         reset_after: bool | None, linear_before_reset: bool | None,
         merge_modes: Any, seed: int, **expect: Any) -> int:
    """Port the weights of a whole model in SRC to another framework, tensor by tensor.

    SRC is a checkpoint or model file (.pt, .pth, .bin, .ckpt, .safetensors, .npz, .keras, .h5,
    .hdf5, .onnx). Every layer is ported: recurrent layers (RNN, LSTM, GRU) and Linear / Dense,
    Embedding, Conv1d/2d/3d and batch and layer norms; the plan shows each target tensor, the
    source tensors it reads and every operation applied. --out writes the result in a file the
    target loads in one line; --verify runs the real source and target and exits 1 if they
    differ.
    """
    from paramcount.porting.model import parse_kwargs
    from paramcount.porting.plan import TargetOptions
    from paramcount.porting.run import SourceOptions
    from paramcount.porting.run import port as run_port

    fmt = resolve_format(output_format, as_json, as_markdown)
    from paramcount.cli import fenced

    if (model or source_model) and not fenced.inside():
        return _behind_fence(model, source_model, factory_timeout)
    if not math.isfinite(forget_bias):
        raise click.BadParameter(f"{forget_bias} is not a finite number",
                                 param_hint="'--forget-bias'")
    chosen = Nonlinearity(nonlinearity) if nonlinearity else None
    shape = None
    if input_shape is not None:
        from paramcount.porting.inputs import InputError, parse_shape

        if model is None:
            raise InputError("--input-shape shapes the whole models' test input: give it with "
                             "--model (and --verify)")
        shape = parse_shape(input_shape)
    result = run_port(
        source,
        SourceOptions(from_[0] if from_ else None, chosen, forget_bias, expect),
        TargetOptions(to[0], reset_after, linear_before_reset, merge_modes,
                      forget_bias, chosen),
        out=out, verify=verify, seed=seed, allow_unmapped=allow_unmapped,
        model=model, kwargs=parse_kwargs(kwargs), source_model=source_model,
        source_kwargs=parse_kwargs(source_kwargs, "--source-kwargs"), input_shape=shape,
    )
    from paramcount.api.port import Ported

    if fmt == "json":
        show_json(Ported(result).to_json())
    else:
        show(Ported(result).documents()[0], fmt)
    if not result.ok:
        worst = result.worst
        click.echo(f"Error: the ported layer computes something else (largest difference "
                   f"{worst:.1e} > 1e-05)" + ("; nothing written" if out else ""), err=True)
        return 1
    return 0


def _behind_fence(model: str | None, source_model: str | None,
                  factory_timeout: str | None) -> int:
    """Run this port, whose factories are the user's code, in the fenced child."""
    from paramcount.cli.commands import LazyGroup
    from paramcount.cli.fenced import port_behind_fence
    from paramcount.factories.factory import FactoryError
    from paramcount.factories.policy import parse_timeout, policy_from
    from paramcount.porting.model import ModelError

    what = f"--model {model}" if model else f"--source-model {source_model}"
    try:
        timeout = (None if factory_timeout is None
                   else parse_timeout(factory_timeout, "--factory-timeout"))
        policy = policy_from(False, timeout)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    if not policy.allowed:
        raise ModelError(f"{what}: not run: {policy.refused_by} refuses every factory")
    root = click.get_current_context().find_root().command
    arguments = root.arguments if isinstance(root, LazyGroup) else []
    if "port" not in arguments:  # a click group run by other means than paramcount's own
        raise click.UsageError("port with --model or --source-model runs as a command line "
                               "(paramcount.cli.main.run(['port', ...])), which its fenced "
                               "child runs again")
    try:
        return port_behind_fence(arguments, policy.timeout, what)
    except FactoryError as error:
        raise ModelError(str(error)) from None
