"""The command-line options that describe a layer, and their translation into LayerSpecs.

Shared by every command that takes "cell options" (count, verify, explain, compare, ...), so a
layer is spelled the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from paramcount.engine import flags
from paramcount.engine.counts import CountError, parse_bytes, parse_count, parse_int
from paramcount.engine.flags import FORMATS, FRAMEWORK_ALIASES, framework_named
from paramcount.engine.spec import Cell, DType, Framework, LayerSpec, MergeMode
from paramcount.errors import quote

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

F = TypeVar("F", bound=Callable[..., Any])

FRAMEWORK_CHOICES = (*(f.value for f in Framework), "all")

class WholeNumber(click.ParamType):  # type: ignore[type-arg]
    """A whole number as people write counts: ``250``, ``1_000_000``, ``1e6``, ``1.5M``, ``250K``.

    Exact (``1.5M`` is 1500000; ``1.5`` is refused) and at most 2^63 - 1. Ranges are left to
    the spec, which names the rule (``--hidden 0 must be a positive integer``), unless
    ``minimum`` is given.
    """

    name = "n"

    def __init__(self, minimum: int | None = None) -> None:
        self.minimum = minimum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """Parse ``value`` or fail with a one-line message naming the option."""
        try:
            number = parse_int(value)
        except CountError as error:
            self.fail(str(error), param, ctx)
        if self.minimum is not None and number < self.minimum:
            self.fail(f"{number:,} must be at least {self.minimum:,}", param, ctx)
        return number


class Count(click.ParamType):  # type: ignore[type-arg]
    """A positive count such as a budget: ``1e6``, ``1_000_000``, ``1.5M``, ``250K``, ``7B``."""

    name = "n"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """Parse ``value`` or fail with a one-line message naming the option."""
        try:
            return parse_count(value)
        except CountError as error:
            self.fail(str(error), param, ctx)


class ByteSize(click.ParamType):  # type: ignore[type-arg]
    """A positive size in bytes: ``4MB`` (10^6 bytes each), ``4MiB`` (2^20), ``512``."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """Parse ``value`` or fail with a one-line message naming the option."""
        try:
            return parse_bytes(value)
        except CountError as error:
            self.fail(str(error), param, ctx)


def name_option_once(error: click.BadParameter) -> click.BadParameter:
    """``error``, naming its option by its first long name only (not every alias)."""
    if isinstance(error.param, click.Option) and error.param_hint is None:
        names = [o for o in error.param.opts if o.startswith("--")] or error.param.opts
        error.param_hint = f"'{names[0]}'"
    return error


class Frameworks(click.ParamType):  # type: ignore[type-arg]
    """``all`` (every current framework), one framework, or a comma list of them.

    ``allowed`` restricts the choices to what a command accepts; ``several=False`` takes one
    framework only (no ``all``, no list). Aliases (``pytorch``, ``tensorflow``, ``tf.keras``)
    are accepted and not listed.
    """

    def __init__(self, allowed: tuple[Framework, ...] | None = None, several: bool = True,
                 why_not: dict[Framework, str] | None = None) -> None:
        self.allowed = tuple(allowed) if allowed is not None else tuple(Framework)
        self.several = several
        self.why_not = why_not or {}  # why a framework is left out, for the error naming it
        self.choices = (*(f.value for f in self.allowed),
                        *(("all",) if several and len(self.allowed) > 1 else ()))
        self.name = "|".join(self.choices) + (",..." if several else "")

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        """The choices, as click shows a Choice."""
        return "[" + "|".join(self.choices) + "]"

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str
                       ) -> list[CompletionItem]:
        """The choices that start with what was typed (after the last comma of a list)."""
        return _complete(self.choices, incomplete, self.several)

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[Framework, ...]:
        """Parse ``all``, ``onnx`` or ``torch,keras,tf1-cudnn``."""
        if isinstance(value, tuple):
            return value
        parts = str(value).split(",")
        if not self.several and (len(parts) > 1 or str(value).strip().lower() == "all"):
            self.fail(f"{quote(str(value))}: this command answers for one framework at a time; "
                      f"give one of {', '.join(self.choices)}", param, ctx)
        chosen = flags.frameworks_named(str(value), self.allowed, "all" in self.choices)
        if isinstance(chosen, str):
            framework = framework_named(chosen)
            hint = (f" ({self.why_not[framework]})" if framework in self.why_not
                    else _framework_hint(chosen, framework, self.allowed))
            self.fail(f"{quote(chosen.strip())} is not one of {', '.join(self.choices)}{hint}",
                      param, ctx)
        return chosen


def _framework_hint(part: str, framework: Framework | None,
                    allowed: tuple[Framework, ...]) -> str:
    if framework is not None:
        return f" ({framework.display_name} is not available to this command)"
    if part.strip().lower() in ("jax", "flax"):
        return " (Flax: flax-linen or flax-nnx)" if Framework.FLAX_LINEN in allowed else ""
    return ""


class MergeModes(click.ParamType):  # type: ignore[type-arg]
    """One Keras merge mode, or a comma list with one per layer."""

    name = "mode[,mode...]"

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str
                       ) -> list[CompletionItem]:
        """The merge modes that start with what was typed (after the last comma)."""
        return _complete(tuple(m.value for m in MergeMode), incomplete, True)

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[MergeMode, ...]:
        """Parse ``concat`` or ``concat,sum,none``."""
        if isinstance(value, tuple):
            return value
        modes = []
        for part in str(value).split(","):
            mode = flags.merge_mode_named(part)
            if mode is None:
                choices = "|".join(m.value for m in MergeMode)
                self.fail(f"{quote(part.strip())} is not a merge mode ({choices})", param, ctx)
            modes.append(mode)
        return tuple(modes)


def _complete(choices: tuple[str, ...], incomplete: str, several: bool
              ) -> list[CompletionItem]:
    """Shell completions of one choice, or of the last item of a comma list."""
    from click.shell_completion import CompletionItem

    head, _, last = incomplete.rpartition(",") if several else ("", "", incomplete)
    prefix = head + "," if head else ""
    return [CompletionItem(prefix + choice) for choice in choices
            if choice.startswith(last.lower())]


def layer_options(function: F) -> F:
    """Every option that describes a recurrent layer of any cell, in any framework."""
    return layer_options_for()(function)


def layer_options_but_hidden(function: F) -> F:
    """Every layer option except --hidden, for one framework at a time: for ``fit``."""
    return layer_options_for(hidden=False, several=False)(function)


_PROJECTING = frozenset({Framework.TORCH, Framework.TF1})
_RESETTING = frozenset({Framework.TORCH, Framework.KERAS})
_CELL_CLASSES = frozenset(Framework) - {Framework.ONNX, Framework.TF1_CUDNN}
_PEEPHOLES = frozenset({Framework.ONNX, Framework.TF1})


def layer_options_for(
    cells: tuple[Cell, ...] = tuple(Cell),
    frameworks: tuple[Framework, ...] = tuple(Framework),
    *,
    hidden: bool = True,
    several: bool = True,
    single_cell: bool = True,
) -> Callable[[F], F]:
    """The layer options that apply to ``cells`` in ``frameworks``, and nothing else.

    An option is listed when at least one of the cells in one of the frameworks takes it
    (``--proj`` for an LSTM in torch or tf1, ``--reset-after`` for a GRU in torch or Keras...),
    so a command's help shows what it accepts. ``several`` lets ``--framework`` take ``all``
    and comma lists; ``single_cell`` offers ``--cell``. Omitted options take their defaults in
    :func:`layer_specs`.
    """
    why_not = {f: f"cell {cells[0].value} has no CuDNN layer in TF1: there are only CuDNNLSTM "
                  "and CuDNNGRU" for f in frameworks
               if not any(_offers(f, cell) for cell in cells)}
    frameworks = tuple(f for f in frameworks if f not in why_not)
    default = frameworks[0] if Framework.TORCH not in frameworks else Framework.TORCH
    where = set(frameworks)
    decorators: list[Callable[[F], F]] = [
        click.option(*flags.INPUT, "input_size", type=WholeNumber(),
                     required=True, help="Input features per time step (I; torch input_size)."),
    ]
    if hidden:
        decorators.append(
            click.option(*flags.HIDDEN, "hidden_size",
                         type=WholeNumber(), required=True,
                         help="Hidden size (H; torch hidden_size, Keras units)."))
    decorators += [
        click.option(*flags.LAYERS, "num_layers", type=WholeNumber(),
                     default=1, show_default=True, help="Stacked layers (L; torch num_layers)."),
        click.option(*flags.switch(flags.BIDIRECTIONAL), "bidirectional", default=False,
                     help="Bidirectional: a forward and a backward direction per layer."),
    ]
    if where - {Framework.FLAX_LINEN, Framework.FLAX_NNX, Framework.TF1, Framework.TF1_CUDNN}:
        decorators.append(
            click.option(*flags.switch(flags.BIAS), "bias", default=True,
                         show_default=True,
                         help="Bias vectors (torch bias: bias_ih and bias_hh; Keras use_bias)."))
    if Cell.LSTM in cells and where & _PROJECTING:
        decorators.append(
            click.option(*flags.PROJ, "proj_size", type=WholeNumber(), default=0,
                         help="LSTM projection size P (torch proj_size"
                         + (", tf1 num_proj" if Framework.TF1 in where else "") + "); 0 = none."))
    decorators.append(
        click.option(*flags.FRAMEWORK, "framework", type=Frameworks(frameworks, several, why_not),
                     default=default.value, show_default=True,
                     help=_framework_help(frameworks, several)))
    decorators.append(
        click.option(*flags.MERGE_MODE, "merge_modes", type=MergeModes(), default=None,
                     help="Keras Bidirectional merge_mode: concat|sum|mul|ave|none, or a comma "
                          "list, one per layer; the other frameworks always concatenate "
                          "(concat). [default: concat]"))
    if Cell.GRU in cells and where & _RESETTING:
        decorators.append(
            click.option(*flags.switch(flags.RESET_AFTER), "reset_after", default=None,
                         help="Keras GRU reset_after (two bias rows when on; torch always "
                              "does it). [default: on]"))
    if Cell.RNN in cells:
        decorators.append(
            click.option(*flags.NONLINEARITY, "nonlinearity",
                         type=click.Choice(flags.NONLINEARITIES), default=None,
                         help="RNN activation (does not change the count). [default: tanh]"))
    if single_cell and where & _CELL_CLASSES:
        decorators.append(
            click.option(*flags.SINGLE_CELL, "single_cell", is_flag=True, default=False,
                         help="The single-step cell class (nn.LSTMCell, keras LSTMCell)."))
    if Cell.LSTM in cells and where & _PEEPHOLES:
        decorators.append(
            click.option(*flags.PEEPHOLES, "peepholes", is_flag=True, default=False,
                         help="LSTM peephole weights (ONNX input P, tf1 LSTMCell "
                              "use_peepholes)."))

    def apply(function: F) -> F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


def _offers(framework: Framework, cell: Cell) -> bool:
    """Whether ``framework`` has a layer of ``cell`` (TF1's CuDNN layers are LSTM and GRU)."""
    return not (framework is Framework.TF1_CUDNN and cell is Cell.RNN)


def _framework_help(frameworks: tuple[Framework, ...], several: bool) -> str:
    """The help of --framework for a command taking ``frameworks``."""
    text = "Whose naming and layout to use"
    if several:
        text += (": one, a comma list, or 'all' (each current one in turn, not the legacy "
                 "tf1, tf1-cudnn)")
    aliases = [name for name, f in FRAMEWORK_ALIASES.items()
               if f in frameworks and name != "tf-keras"]
    if aliases:
        text += "; " + ", ".join(repr(a) for a in aliases) + " are accepted too"
    return text + "."


def _apply(decorators: list[Callable[[F], F]], function: F) -> F:
    """``function`` under every decorator, the first listed outermost."""
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def format_options(*formats: str) -> Callable[[F], F]:
    """--format (one of ``formats``, all of FORMATS by default) and its --json / --markdown."""
    chosen = formats or FORMATS

    def decorate(function: F) -> F:
        decorators: list[Any] = [
            click.option(*flags.FORMAT, "output_format", type=click.Choice(chosen), default=None,
                         help="Output format. [default: table]"),
        ]
        if "json" in chosen:
            decorators.append(click.option(*flags.JSON, "as_json", is_flag=True,
                                           help="Shorthand for --format json (docs/json.md)."))
        if "markdown" in chosen:
            decorators.append(click.option(*flags.MARKDOWN, "as_markdown", is_flag=True,
                                           help="Shorthand for --format markdown."))
        return _apply(decorators, function)

    return decorate


def output_options(function: F) -> F:
    """--format, its --json / --markdown shorthands, and --dtype."""
    function = click.option(
        *flags.DTYPE, "dtype", type=click.Choice([d.value for d in DType]), default="fp32",
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
    asked = flags.formats_asked(output_format, as_json, as_markdown)
    if len(asked) > 1:
        raise click.UsageError(
            "choose one output format: " + " and ".join(asked) + " were both given"
        )
    return asked[0] if asked else "table"


def layer_specs(cell: Cell, options: dict[str, Any]) -> list[LayerSpec]:
    """The LayerSpec for each framework asked for (several with ``--framework all``)."""
    framework = options["framework"]
    if isinstance(framework, str):
        framework = Frameworks().convert(framework, None, None)
    return flags.layer_specs(cell, options, tuple(framework))


_CLASSES = {"rnn": "nn.RNN", "lstm": "nn.LSTM", "gru": "nn.GRU"}
_ONLY_FOR = {
    "--proj": ("lstm", "has no proj_size"),
    "--proj-size": ("lstm", "has no proj_size"),
    "--reset-after": ("gru", "has no reset_after"),
    "--no-reset-after": ("gru", "has no reset_after"),
    "--nonlinearity": ("rnn", "has no nonlinearity"),
    "--peepholes": ("lstm", "has no peephole weights"),
}
_NOT_RUN = {
    "--cell": "a single-step cell has no sequence and no h_n; drop --cell",
    "--peepholes": "peepholes are an ONNX / tf1 LSTMCell option, and this command runs torch "
                   "and Keras layers",
}


def not_offered(option: str, command: str) -> str | None:
    """Why ``command`` lacks ``option`` that another command takes, as an error, or None.

    >>> not_offered("--proj", "gru")
    '--proj applies only to LSTM (nn.GRU has no proj_size)'
    """
    option = option.split("=", 1)[0]
    if command in _CLASSES and option in _ONLY_FOR:
        cell, lacks = _ONLY_FOR[option]
        if cell != command:
            return f"{option} applies only to {cell.upper()} ({_CLASSES[command]} {lacks})"
    if command in ("shapes", "trace") and option in _NOT_RUN:
        return f"{option}: {_NOT_RUN[option]}"
    return None
