"""The command-line options that describe a layer, and their translation into LayerSpecs.

Shared by every command that takes "cell options" (count, verify, explain, compare, ...), so a
layer is spelled the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from paramcount.errors import SpecError
from paramcount.spec import Cell, DType, Framework, LayerSpec, MergeMode

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("table", "json", "markdown")
FRAMEWORK_CHOICES = (*(f.value for f in Framework), "all")

# How each LayerSpec field is spelled on the command line, for error messages.
_FLAGS = {
    "input_size": "--input",
    "hidden_size": "--hidden",
    "num_layers": "--layers",
    "proj_size": "--proj",
    "merge_modes": "--merge-mode",
    "nonlinearity": "--nonlinearity",
    "framework": "--framework",
    "cell": "cell",
    "dtype": "--dtype",
    "input_channels": "--input-channels",
    "filters": "--filters",
    "kernel": "--kernel",
    "rank": "--rank",
    "data_format": "--data-format",
}
_SWITCHES = {
    "bidirectional": ("--bidir", "--no-bidir"),
    "bias": ("--bias", "--no-bias"),
    "reset_after": ("--reset-after", "--no-reset-after"),
    "single_cell": ("--cell", "--cell"),
    "peepholes": ("--peepholes", "--no-peepholes"),
    "mixed_precision": ("--mixed-precision", "--mixed-precision"),
}


def cli_label(field: str, value: object) -> str:
    """Name a LayerSpec field as the user typed it: ``--proj 128``, ``--no-reset-after``."""
    if field in _SWITCHES:
        on, off = _SWITCHES[field]
        return on if value else off
    return f"{_FLAGS.get(field, '--' + field.replace('_', '-'))} {value}"


class WholeNumber(click.ParamType):  # type: ignore[type-arg]
    """An integer of any size, written in decimal digits (``1_000`` allowed)."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """Parse ``value`` or fail with a message naming the option."""
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return int(str(value).strip(), 10)
        except ValueError:
            self.fail(f"{value!r} is not a whole number", param, ctx)


class Frameworks(click.ParamType):  # type: ignore[type-arg]
    """``all`` (every current framework), one framework, or a comma list of them."""

    name = "framework[,framework...]"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[Framework, ...]:
        """Parse ``all``, ``onnx`` or ``torch,keras,tf1-cudnn``."""
        if isinstance(value, tuple):
            return value
        chosen: list[Framework] = []
        for part in str(value).split(","):
            name = part.strip().lower()
            try:
                frameworks = Framework.current() if name == "all" else (Framework(name),)
            except ValueError:
                self.fail(f"{part.strip()!r} is not one of {', '.join(FRAMEWORK_CHOICES)}",
                          param, ctx)
            chosen += [f for f in frameworks if f not in chosen]
        return tuple(chosen)


class MergeModes(click.ParamType):  # type: ignore[type-arg]
    """One Keras merge mode, or a comma list with one per layer."""

    name = "mode[,mode...]"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[MergeMode, ...]:
        """Parse ``concat`` or ``concat,sum,none``."""
        if isinstance(value, tuple):
            return value
        modes = []
        for part in str(value).split(","):
            try:
                modes.append(MergeMode(part.strip().lower()))
            except ValueError:
                choices = "|".join(m.value for m in MergeMode)
                self.fail(f"{part.strip()!r} is not a merge mode ({choices})", param, ctx)
        return tuple(modes)


def layer_options(function: F) -> F:
    """Every option that describes a recurrent layer."""
    return _apply(_layer_decorators(with_hidden=True), function)


def layer_options_but_hidden(function: F) -> F:
    """Every layer option except --hidden: for ``fit``, which solves for it."""
    return _apply(_layer_decorators(with_hidden=False), function)


def _apply(decorators: list[Callable[[F], F]], function: F) -> F:
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _layer_decorators(with_hidden: bool) -> list[Any]:
    decorators = [
        click.option("--input", "-i", "input_size", type=WholeNumber(), required=True,
                     help="Input features per time step (I)."),
        click.option("--hidden", "--units", "-H", "hidden_size", type=WholeNumber(),
                     required=True, help="Hidden size (H); Keras calls it units."),
        click.option("--layers", "-L", "num_layers", type=WholeNumber(), default=1,
                     show_default=True, help="Stacked layers (L)."),
        click.option("--bidir/--no-bidir", "bidirectional", default=False,
                     help="Bidirectional: a forward and a backward direction per layer."),
        click.option("--bias/--no-bias", default=True, show_default=True,
                     help="Bias vectors (torch: bias_ih and bias_hh; Keras: use_bias)."),
        click.option("--proj", "proj_size", type=WholeNumber(), default=0,
                     help="LSTM projection size P (torch proj_size); 0 = none."),
        click.option("--framework", "-f", type=Frameworks(), default="torch",
                     show_default=True,
                     help="Whose naming and layout to use: " + "|".join(FRAMEWORK_CHOICES)
                     + ", or a comma list; 'all' shows each current one in turn (not the "
                     "legacy tf1, tf1-cudnn)."),
        click.option("--merge-mode", "merge_modes", type=MergeModes(), default=None,
                     help="Keras Bidirectional merge: concat|sum|mul|ave|none, or a comma "
                          "list, one per layer. [default: concat]"),
        click.option("--reset-after/--no-reset-after", default=None,
                     help="Keras GRU reset_after (two bias rows when on). [default: on]"),
        click.option("--nonlinearity", type=click.Choice(["tanh", "relu"]), default=None,
                     help="RNN activation (does not change the count). [default: tanh]"),
        click.option("--cell", "single_cell", is_flag=True, default=False,
                     help="The single-step cell class (nn.LSTMCell, keras LSTMCell)."),
        click.option("--peepholes", is_flag=True, default=False,
                     help="LSTM peephole weights (ONNX input P, tf1 LSTMCell use_peepholes)."),
    ]
    return decorators if with_hidden else [decorators[0], *decorators[2:]]


def format_options(*formats: str) -> Callable[[F], F]:
    """--format (one of ``formats``, all of FORMATS by default) and its --json / --markdown."""
    chosen = formats or FORMATS

    def decorate(function: F) -> F:
        decorators: list[Any] = [
            click.option("--format", "output_format", type=click.Choice(chosen), default=None,
                         help="Output format. [default: table]"),
        ]
        if "json" in chosen:
            decorators.append(click.option("--json", "as_json", is_flag=True,
                                           help="Shorthand for --format json (docs/json.md)."))
        if "markdown" in chosen:
            decorators.append(click.option("--markdown", "as_markdown", is_flag=True,
                                           help="Shorthand for --format markdown."))
        return _apply(decorators, function)

    return decorate


def output_options(function: F) -> F:
    """--format, its --json / --markdown shorthands, and --dtype."""
    function = click.option(
        "--dtype", type=click.Choice([d.value for d in DType]), default="fp32",
        show_default=True, help="Parameter storage type, for the size in bytes.",
    )(function)
    return format_options()(function)


VERIFY_HELP = (
    "Build the real layer(s) (torch, Keras and Flax without allocating weights; ONNX as a "
    "small graph) and check every tensor and the total; exit 1 on a mismatch, 3 if not "
    "installed."
)


def verify_option(help_text: str = VERIFY_HELP) -> Callable[[F], F]:
    """The --verify flag, with the command's own help text."""
    return click.option("--verify", "verify", is_flag=True, help=help_text)


def resolve_format(output_format: str | None, as_json: bool, as_markdown: bool) -> str:
    """The one format asked for; two different ones are an error."""
    asked = {f for f, on in (("json", as_json), ("markdown", as_markdown)) if on}
    if output_format:
        asked.add(output_format)
    if len(asked) > 1:
        raise click.UsageError(
            "choose one output format: " + " and ".join(sorted(asked)) + " were both given"
        )
    return asked.pop() if asked else "table"


def layer_specs(cell: Cell, options: dict[str, Any]) -> list[LayerSpec]:
    """The LayerSpec for each framework asked for (several with ``--framework all``)."""
    framework = options["framework"]
    if isinstance(framework, str):
        framework = Frameworks().convert(framework, None, None)
    frameworks = list(framework)
    return [_layer_spec(cell, options, f, several=len(frameworks) > 1) for f in frameworks]


def _layer_spec(
    cell: Cell, options: dict[str, Any], framework: Framework, several: bool
) -> LayerSpec:
    """One framework's LayerSpec; with several frameworks an error names the one refusing."""
    try:
        return LayerSpec(
            cell=cell,
            input_size=options["input_size"],
            hidden_size=options["hidden_size"],
            num_layers=options["num_layers"],
            bidirectional=options["bidirectional"],
            bias=options["bias"],
            proj_size=options["proj_size"],
            framework=framework,
            merge_modes=options["merge_modes"],
            reset_after=options["reset_after"],
            nonlinearity=options["nonlinearity"],
            single_cell=options["single_cell"],
            peepholes=options.get("peepholes", False),
        )
    except SpecError as error:
        if not several:
            raise
        raise SpecError(
            error.template + f" [{framework.value} refuses it; pick frameworks with a comma "
            "list, e.g. --framework torch,keras]",
            **error.values,
        ) from None
