"""One command per family: which family a command line means, and the command that counts a model.

``paramcount xlstm`` counts both xLSTM layouts (transformers' ``xLSTMForCausalLM`` and the
``xlstm`` package's ``xLSTMLMModel``) and ``paramcount mingru`` both the layer and the language
model (``minLM``); ``--impl`` chooses, and when it is not given the command reads the choice from
``--config``'s file, then from the options given (one that only one implementation has), and
otherwise takes the first. The old commands ``xlstm-lm`` and ``minlm`` are hidden aliases. No
click here: the quick path and the click commands both choose through :func:`chosen`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from paramcount.errors import ConfigError, ParamcountError
from paramcount.families.registry import FAMILIES, changed, family_of, options

IMPL = "--impl"
"""The option that names a command's implementation."""

VARIANTS: dict[str, dict[str, str]] = {
    "xlstm": {"transformers": "xlstm", "xlstm": "xlstm-lm"},
    "mingru": {"layer": "mingru", "lm": "minlm"},
    "inkling": {"inkling": "inkling", "inkling2": "inkling2", "inkling2-loop": "inkling2-loop"},
}
"""Command → ``--impl`` value → family; the first is the default."""

HIDDEN: dict[str, str] = {"xlstm-lm": "xlstm", "minlm": "mingru", "inkling2": "inkling",
                          "inkling2-loop": "inkling"}
"""The old command names, kept working but not listed: family → the command that lists it."""

CONFIG_KEYS: dict[str, frozenset[str]] = {
    "xlstm-lm": frozenset({"model", "mlstm_block", "slstm_block", "slstm_at", "context_length"}),
    "minlm": frozenset({"num_tokens", "depth", "ff_mult", "expansion", "conv_kernel_size",
                        "enable_conv"}),
    "mingru": frozenset({"expansion_factor", "proj_out"}),
    "inkling2": frozenset({"qk_l2_clip_threshold", "rel_l2_clip_threshold",
                           "n_layers_per_attn_res_block", "mlp_gate_softcap", "mlp_up_softcap"}),
    "inkling2-loop": frozenset({"loop_config", "loop_layer_index_start", "loop_layer_index_end",
                                "loop_num_passes", "loop_gate_rank"}),
}
"""Keys of a config file that only this implementation's file has (beside ``model_type``,
which :func:`paramcount.families.registry.family_of` reads); a file with the keys of two says
nothing."""

SHARED_OPTIONS = frozenset({"--config", "--explain", "--what-if", "--format", "--json",
                            "--markdown", "--dtype", "-h", "--help", IMPL})
"""Options every family command takes, whatever the implementation."""


def commands() -> list[str]:
    """The family commands ``paramcount --help`` lists, in the registry's order."""
    return [name for name in FAMILIES if name not in HIDDEN]


def impl_of(family: str) -> tuple[str, str] | None:
    """The command that lists ``family`` and its ``--impl`` value, or None for a family that
    is a command of its own."""
    for command, variants in VARIANTS.items():
        for impl, name in variants.items():
            if name == family:
                return command, impl
    return None


def command_words(family: str) -> list[str]:
    """``["xlstm", "--impl", "xlstm"]``: the words after ``paramcount`` that count ``family``
    (``--impl`` only where the family is not its command's default)."""
    found = impl_of(family)
    if found is None:
        return [family]
    command, impl = found
    return [command] if impl == next(iter(VARIANTS[command])) else [command, IMPL, impl]


def chosen(command: str, args: Sequence[str]) -> str:
    """The family that ``paramcount COMMAND ARGS`` counts: ``--impl``'s, else the one that
    ``--config``'s file describes, else the one offering every option given, else the
    default (a mistake is left for the family's own command to name)."""
    if command not in VARIANTS:
        return command
    variants = VARIANTS[command]
    default = next(iter(variants.values()))
    impl = _value(args, IMPL)
    if impl is not None:
        return variants.get(impl, default)
    path = _value(args, "--config")
    if path is not None:
        from paramcount.families.config_json import read_config

        try:
            found = from_config(command, read_config(path))
        except ParamcountError:
            found = None  # the chosen family's command says why the file cannot be read
        if found is not None:
            return found
    given = {arg.partition("=")[0] for arg in args if arg.startswith("-")} - SHARED_OPTIONS
    for family in variants.values():
        if given <= {name for option in options(family) for name in _spellings(option)}:
            return family
    return default


def from_config(command: str, data: Mapping[str, object]) -> str | None:
    """The family among ``command``'s implementations that a config file's object describes,
    or None if it does not say."""
    families = VARIANTS[command].values()
    named = family_of(data)
    if named in families:
        return named
    keyed = [family for family in families
             if not CONFIG_KEYS.get(family, frozenset()).isdisjoint(data)]
    return keyed[0] if len(keyed) == 1 else None


def check_config(family: str, path: str | None) -> None:
    """Refuse (ConfigError) a config file that describes another implementation of
    ``family``'s command (``--impl transformers`` beside the xlstm package's file): counting it
    as this one would give a confident wrong number."""
    found = impl_of(family)
    if path is None or found is None:
        return
    from paramcount.families.config_json import read_config
    from paramcount.families.registry import family as module

    other = from_config(found[0], read_config(path))
    if other is not None and other != family:
        raise ConfigError(f"{path}: describes a {module(other).TITLE} model (count it with "
                          f"'paramcount {' '.join(command_words(other))} --config {path}')")


def command_line(family: str, config: Any, config_file: str = "config.json") -> str:
    """The ``paramcount`` command that counts ``config`` (options only where not default; a
    vision-language model's is its ``config_file`` read, which no option gives)."""
    spelled = {o.field: o for o in options(family)}
    words = ["paramcount", *command_words(family)]
    if hasattr(config, "vision"):  # a vision-language model: only its config.json gives it
        return " ".join([*words, "--config", config_file])
    for field, value in changed(config).items():
        option = spelled[field]
        if option.kind == "bool":
            words.append(option.label if value else option.off)
        elif isinstance(value, tuple):
            words += [option.label, ",".join(str(item) for item in value)]
        else:
            words += [option.label, str(value)]
    return " ".join(words)


def _value(args: Sequence[str], name: str) -> str | None:
    """The value given to option ``name`` in ``args`` (``--name V`` or ``--name=V``), the
    last if it is given twice; None if it is not given."""
    found = None
    for position, arg in enumerate(args):
        if arg == name and position + 1 < len(args):
            found = args[position + 1]
        elif arg.startswith(name + "="):
            found = arg[len(name) + 1:]
    return found


def _spellings(option: Any) -> tuple[str, ...]:
    """Every name of a family option, a switch's ``--no-`` forms included."""
    if option.kind != "bool":
        return tuple(option.names)
    return (*option.names, *(f"--no-{name.removeprefix('--')}" for name in option.names))
