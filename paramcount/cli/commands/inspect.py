"""``paramcount inspect``: count and explain model files and checkpoints, or a failed load."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from paramcount.cli.options import Frameworks, resolve_format
from paramcount.cli.output import show, show_json
from paramcount.engine.spec import Framework

AS_CHOICES = ("torch", "keras", "onnx")


@click.command(name="inspect")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path, dir_okay=True,
                                                     allow_dash=False))
@click.option("--as", "as_framework", default=None,
              type=Frameworks(tuple(Framework(f) for f in AS_CHOICES), several=False),
              help="Also give the count in this framework's convention, every difference "
                   "named (biases, tied and duplicated weights, buffers).")
@click.option("--error", "error_file", type=click.Path(path_type=Path, allow_dash=True,
                                                        dir_okay=False),
              default=None, help="Explain a failed load_state_dict / hidden-size error "
                                 "read from FILE, or '-' for standard input.")
@click.option("--via", "via", type=click.Choice(("transformers",)), default=None,
              help="For a folder with a config.json (or the file) of a model type paramcount "
                   "does not model: count the model transformers builds from it, on the meta "
                   "device (no weights, no code from the hub), module by module; no closed "
                   "form claimed.")
@click.option("--format", "output_format", type=click.Choice(("table", "json", "markdown")),
              default=None, help="Output format. [default: table]")
@click.option("--json", "as_json", is_flag=True, help="Shorthand for --format json.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Shorthand for --format markdown.")
def inspect(files: tuple[Path, ...], as_framework: tuple[Framework] | None, error_file: Path | None,
            via: str | None, output_format: str | None, as_json: bool,
            as_markdown: bool) -> None:
    """Count and explain model files and checkpoints, reading headers only.

    FILES may be safetensors (or a sharded *.index.json), PyTorch .pt/.pth/.bin/.ckpt, ONNX,
    Keras .keras/.h5 or numpy .npz/.npy. Shows every tensor by module, totals per dtype, and
    each recurrent layer recognised, checked against the formula engine, with the command that
    explains it. Nothing in a file is executed; a file paramcount cannot read exits 2.
    """
    fmt = resolve_format(output_format, as_json, as_markdown)
    if error_file is not None:
        if files:
            raise click.UsageError("give FILES or --error, not both")
        _explain_error(error_file, fmt)
        return
    if not files:
        raise click.UsageError("name at least one model file (or use --error FILE|-)")
    if via is not None:
        if as_framework:
            raise click.UsageError("--via transformers counts the built model: give --as "
                                   "without it")
        _via(files, fmt)
        return
    from paramcount.api.files import Inspection
    from paramcount.files.dispatch import read_file
    from paramcount.files.inspect import inspect as inspect_listing

    target = as_framework[0] if as_framework else None
    result = Inspection([inspect_listing(read_file(path), target) for path in files])
    if fmt == "json":
        show_json(result.to_json())
        return
    for k, document in enumerate(result.documents()):
        if k:
            click.echo()
        show(document, fmt)


def _via(files: tuple[Path, ...], fmt: str) -> None:
    """``--via transformers``: each config.json's model as transformers builds it."""
    from paramcount.api.built import via_transformers

    results = [via_transformers(path) for path in files]
    for k, result in enumerate(results):
        if fmt == "json":
            show_json(result.to_json())
            continue
        if k:
            click.echo()
        show(result.documents()[0], fmt)


def _explain_error(error_file: Path, fmt: str) -> None:
    """``--error``: what a checkpoint holds against what the model expects, per module."""
    from paramcount.api.files import load_error
    from paramcount.errors import ParamcountError

    if str(error_file) == "-":
        text = sys.stdin.read()
    else:
        try:
            text = error_file.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            raise ParamcountError(f"{error_file}: cannot read it ({error.strerror})") from None
    result = load_error(text)
    if fmt == "json":
        show_json(result.to_json())
    else:
        show(result.documents()[0], fmt)
