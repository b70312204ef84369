"""How a layer is spelled on the command line, without click: option names and their values.

One list for both parsers: :mod:`paramcount.cli.options` builds click's options from these names,
and :mod:`paramcount.cli.quick` reads the common count command lines with them, so that a name is
added, or an alias accepted, in one place. Each tuple lists an option's names, the one that
errors use first; a switch lists its (on, off) pairs.
"""

from __future__ import annotations

from typing import Any

from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode
from paramcount.errors import SpecError

INPUT = ("--input", "--input-size", "-i")
HIDDEN = ("--hidden", "--hidden-size", "--units", "-H")
LAYERS = ("--layers", "--num-layers", "-L")
BIDIRECTIONAL = (("--bidir", "--no-bidir"), ("--bidirectional", "--no-bidirectional"))
BIAS = (("--bias", "--no-bias"), ("--use-bias", "--no-use-bias"))
PROJ = ("--proj", "--proj-size")
FRAMEWORK = ("--framework", "-f")
MERGE_MODE = ("--merge-mode",)
RESET_AFTER = (("--reset-after", "--no-reset-after"),)
NONLINEARITY = ("--nonlinearity",)
SINGLE_CELL = ("--cell",)
PEEPHOLES = ("--peepholes",)
FORMAT = ("--format",)
JSON = ("--json",)
MARKDOWN = ("--markdown",)
DTYPE = ("--dtype",)

NONLINEARITIES = ("tanh", "relu")
FORMATS = ("table", "json", "markdown")


def formats_asked(output_format: str | None, as_json: bool, as_markdown: bool) -> list[str]:
    """Every output format the options ask for (--format, --json, --markdown), sorted: one is
    an answer, two are an error."""
    asked = {f for f, on in (("json", as_json), ("markdown", as_markdown)) if on}
    if output_format:
        asked.add(output_format)
    return sorted(asked)


def switch(pairs: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """A switch's names as click declares them: ``('--bidir/--no-bidir', ...)``."""
    return tuple(f"{on}/{off}" for on, off in pairs)


FRAMEWORK_ALIASES = {"pytorch": Framework.TORCH, "tensorflow": Framework.KERAS,
                     "tf.keras": Framework.KERAS, "tf-keras": Framework.KERAS}
"""Other names people give the frameworks: PyTorch's own, TensorFlow's Keras."""


def framework_named(name: str) -> Framework | None:
    """The framework called ``name`` (its value or an alias, any case), or None."""
    name = name.strip().lower()
    if name in FRAMEWORK_ALIASES:
        return FRAMEWORK_ALIASES[name]
    try:
        return Framework(name)
    except ValueError:
        return None


def frameworks_named(text: str, allowed: tuple[Framework, ...] = tuple(Framework),
                     take_all: bool = True) -> tuple[Framework, ...] | str:
    """The frameworks ``text`` names: ``all`` (each current one in ``allowed``, if
    ``take_all``), one framework or a comma list, without repeats; or the first part that
    names none of ``allowed``, for the error."""
    chosen: list[Framework] = []
    for part in text.split(","):
        if take_all and part.strip().lower() == "all":
            named = tuple(f for f in Framework.current() if f in allowed)
        else:
            framework = framework_named(part)
            if framework is None or framework not in allowed:
                return part
            named = (framework,)
        chosen += [f for f in named if f not in chosen]
    return tuple(chosen)


def merge_mode_named(name: str) -> MergeMode | None:
    """The merge mode called ``name`` (any case, spaces around it ignored), or None."""
    try:
        return MergeMode(name.strip().lower())
    except ValueError:
        return None


def layer_specs(cell: Cell, options: dict[str, Any],
                frameworks: tuple[Framework, ...]) -> list[LayerSpec]:
    """The LayerSpec for each of ``frameworks``, from the parsed options (a missing optional
    one takes its default); with several frameworks, an error names the one refusing."""
    several = len(frameworks) > 1
    specs = []
    for framework in frameworks:
        try:
            specs.append(LayerSpec(
                cell=cell,
                input_size=options["input_size"],
                hidden_size=options["hidden_size"],
                num_layers=options["num_layers"],
                bidirectional=options["bidirectional"],
                bias=options.get("bias", True),
                proj_size=options.get("proj_size", 0),
                framework=framework,
                merge_modes=options.get("merge_modes"),
                reset_after=options.get("reset_after"),
                nonlinearity=options.get("nonlinearity"),
                single_cell=options.get("single_cell", False),
                peepholes=options.get("peepholes", False),
            ))
        except SpecError as error:
            if not several:
                raise
            raise SpecError(
                error.template + f" [{framework.value} refuses it; pick frameworks with a "
                "comma list, e.g. --framework torch,keras]",
                **error.values,
            ) from None
    return specs


# How each LayerSpec field is spelled on the command line, for error messages.
_SPELLED: dict[str, str] = {
    "input_size": INPUT[0],
    "hidden_size": HIDDEN[0],
    "num_layers": LAYERS[0],
    "proj_size": PROJ[0],
    "merge_modes": MERGE_MODE[0],
    "nonlinearity": NONLINEARITY[0],
    "framework": FRAMEWORK[0],
    "cell": "cell",
    "dtype": DTYPE[0],
    "input_channels": "--input-channels",
    "filters": "--filters",
    "kernel": "--kernel",
    "rank": "--rank",
    "data_format": "--data-format",
}
_SWITCHED: dict[str, tuple[str, str]] = {
    "bidirectional": BIDIRECTIONAL[0],
    "bias": BIAS[0],
    "reset_after": RESET_AFTER[0],
    "single_cell": ("--cell", "--cell"),
    "peepholes": ("--peepholes", "--no-peepholes"),
    "mixed_precision": ("--mixed-precision", "--mixed-precision"),
}


def cli_label(field: str, value: object) -> str:
    """Name a LayerSpec field as the user typed it: ``--proj 128``, ``--no-reset-after``."""
    if field in _SWITCHED:
        on, off = _SWITCHED[field]
        return on if value else off
    return f"{_SPELLED.get(field, '--' + field.replace('_', '-'))} {value}"
